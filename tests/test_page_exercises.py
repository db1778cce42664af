"""The worked exercises of the chapters from 6 on (forward pass step by step, the notes, context
extension, RoPE in real models): every number an answer states, recomputed by another route than
its value function's (the page's formula in numpy, or another function of the package), and the
claims the answers make about it.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from pages import agrees, value

from rope_explained import figures
from rope_explained.embedding import VOCAB, letter_angle
from rope_explained.examples import FORWARD_PASS_PROMPT
from rope_explained.model import forward

figures.load_all()


def circle_probs(z: complex, gamma: float = 100.0) -> np.ndarray:
    """The readout for a point z of the letter plane: softmax of gamma |z| cos(a_v - arg z)."""
    angles = np.array([letter_angle(v) for v in VOCAB])
    logits = gamma * abs(z) * np.cos(angles - np.angle(z))
    p = np.exp(logits - logits.max())
    return p / p.sum()


# --- forward-pass/index.md ----------------------------------------------------------------------


def test_forward_pass_exercise_smaller_head():
    d, alpha = 32, 10.0
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)  # the page's frequencies, from the formula
    best, side = alpha * d / 2, alpha * np.cos(theta).sum()
    agrees("fp-ex-d32-best", best)
    agrees("fp-ex-d32-side", side)
    agrees("fp-ex-d32-lead", best - side)
    assert float(value("fp-ex-d32-lead")) < float(value("fp-score-lead"))  # "the lead shrinks"
    # every row from 1 on: the previous key against its rivals, from the formula alone
    weights = []
    for m in range(1, len(FORWARD_PASS_PROMPT) + 1):  # + 1: the start token is position 0
        delta = np.arange(m + 1)  # keys n = m - delta
        s = alpha * np.cos(np.outer(1 - delta, theta)).sum(axis=1)
        w = np.exp(s - s.max())
        weights.append(w[1] / w.sum())
    agrees("fp-ex-d32-min-weight", min(weights), rounding="down")
    # the same prediction with the same probability as d = 64
    tr = forward(FORWARD_PASS_PROMPT, d=d)
    assert tr.prediction == forward(FORWARD_PASS_PROMPT).prediction == "a"
    agrees("fp-ex-d32-probability", circle_probs(np.exp(1j * letter_angle("a"))).max())


def test_forward_pass_exercise_offset_zero_repeats_the_last_letter():
    text = FORWARD_PASS_PROMPT
    tr = forward(text, offset=0)
    rows = np.arange(1, len(tr.tokens))
    assert np.all(np.argmax(np.where(tr.mask, tr.scores0, -np.inf)[rows], axis=1) == rows)
    # layer 1 splits the last row between the first c (token index = text index + 1) and
    # the query itself, half and half (to 1e-3: what layer 0 leaks from other letters into the
    # two keys differs slightly)
    first, own = text.index(text[-1]) + 1, len(text)
    assert tr.A1[-1, [first, own]] == pytest.approx([0.5, 0.5], abs=1e-3)
    assert tr.tokens[first] == tr.tokens[own] == text[-1]
    assert value("fp-ex-offset0-prediction") == text[-1]


def test_forward_pass_exercise_several_matches_are_averaged():
    from rope_explained.figures.forward_pass import EXERCISE_REPEATED as text

    tr = forward(text)
    last = text[-1]
    after = [i + 2 for i in range(len(text) - 2) if text[i] == last]  # token index of followers
    assert len(after) == 4 and text[:-1].count(last) == 4
    w = tr.A1[-1, after]
    assert w.sum() > 0.99  # the four keys take (nearly) all the weight
    agrees("fp-ex-repeated-min-weight", w.min(), rounding="down")
    # the mean of the followers' points on the circle, read out as the page's readout does
    z = sum(tr.A1[-1, n] * np.exp(1j * letter_angle(tr.tokens[n])) for n in range(1, len(text)))
    p = circle_probs(z)
    predicted = VOCAB[int(np.argmax(p))]
    assert value("fp-ex-repeated-prediction") == predicted == tr.prediction
    assert predicted not in {text[n - 1] for n in after}  # never follows t in the prompt
    agrees("fp-ex-repeated-probability", p.max())


# --- real-models/conventions.md -----------------------------------------------------------------


def hf_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """Hugging Face's ``permute`` of convert_llama_weights_to_hf.py, transcribed in numpy."""
    dim1, dim2 = w.shape
    return w.reshape(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(0, 2, 1, 3).reshape(w.shape)


def buggy_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """The exercise's script: view (n_heads, 2, d/2, D), swap the middle axes."""
    dim1, dim2 = w.shape
    return w.reshape(n_heads, 2, dim1 // n_heads // 2, dim2).transpose(0, 2, 1, 3).reshape(w.shape)


def test_conventions_exercise_where_a_coordinate_goes():
    d, c = 8, 5
    rows = hf_permute(np.arange(d, dtype=float)[:, None], 1)[:, 0]  # new row -> old row
    new = int(np.flatnonzero(rows == c)[0])
    assert value("conventions-ex-moved-to") == str(new)
    # it pairs, under rotate-half, with where coordinate c - 1 (same interleaved pair) went
    partner = int(np.flatnonzero(rows == c - 1)[0])
    assert new - partner == d // 2


def test_conventions_exercise_the_inverse_passes_at_d_4_only():
    from rope_explained.conventions import half_to_interleaved, interleaved_to_half

    rng = np.random.default_rng(0)
    smallest = None
    for d in range(2, 34, 2):
        W = rng.standard_normal((3 * d, 5))  # three heads
        same = np.array_equal(buggy_permute(W, 3), hf_permute(W, 3))
        assert np.array_equal(buggy_permute(W, 3), half_to_interleaved(W, 3))
        assert np.array_equal(hf_permute(W, 3), interleaved_to_half(W, 3))
        if not same and smallest is None:
            smallest = d
        assert same == (d <= 4)
    assert value("conventions-ex-smallest-d") == str(smallest)


def test_conventions_exercise_the_bug_keeps_layer_0s_diagonal():
    from rope_explained.figures.real_models.conventions import PROMPT

    a = forward(PROMPT, layout="half")
    b = forward(PROMPT, layout="half", weights_layout="interleaved")
    # layer 0: the diagonal is (W_q h_m)^T (W_k h_m), whatever the rotation; computed here
    # without any rotation, with the weights of the interleaved model
    tr = forward(PROMPT)
    W = tr.weights.L0
    plain = np.einsum("td,td->t", tr.h0 @ W.W_q.T, tr.h0 @ W.W_k.T)
    bound = float(value("conventions-ex-diagonal-layer0").removeprefix("10^{").rstrip("}"))
    for t in (a, b):
        assert np.abs(np.diag(t.scores0) - plain).max() < 10.0**bound
    off = np.abs(np.tril(a.scores0 - b.scores0, -1)).max()
    agrees("conventions-ex-offdiagonal-layer0", off)
    agrees("conventions-ex-diagonal-layer1", np.abs(np.diag(a.scores1) - np.diag(b.scores1)).max())
    # only the start token's rows come through exactly
    assert np.allclose(a.h1[0], b.h1[0], atol=1e-12) and not np.allclose(a.h1[1:], b.h1[1:])


# --- real-models/partial-rotary.md --------------------------------------------------------------


def test_partial_rotary_exercise_ladder_steps():
    base = 10000.0
    agrees("partial-ex-gptj-step", base ** (2 / 64))  # GPT-J: rotary_dim = 64
    agrees("partial-ex-full-step", base ** (2 / 256))


def test_partial_rotary_exercise_leads_from_the_model():
    """The lead alpha sum (1 - cos theta_i), read off layer 0's scores of the model run with
    partial rotary: the score one step back minus the score of the query's own key."""
    from rope_explained.examples import LONG_PROMPT

    text = LONG_PROMPT[:40]
    cases = {
        "partial-ex-lead-neox-8": {"rotary_pct": 8 / 64},
        # the fastest-pairs variant: GPT-NeoX's call with the base raised to r/d
        "partial-ex-lead-fastest-8": {"rotary_pct": 8 / 64, "base": 10000.0 ** (8 / 64)},
        "partial-ex-lead-full": {},
    }
    leads = {}
    for vid, config in cases.items():
        s = forward(text, **config).scores0
        m = np.arange(2, len(text))
        lead = s[m, m - 1] - s[m, m]
        assert np.allclose(lead, lead[0], atol=1e-9)  # the same in every row
        assert np.allclose(s[m, m - 2], s[m, m], atol=1e-9)  # both neighbours alike
        agrees(vid, lead[0])
        leads[vid] = lead[0]
    assert leads["partial-ex-lead-neox-8"] < leads["partial-ex-lead-fastest-8"] / 2
    # "only its first pair contributes": pair 0 alone gives all but a tenth of a unit
    assert leads["partial-ex-lead-neox-8"] - 10 * (1 - np.cos(1.0)) < 0.1


def test_partial_rotary_exercise_no_horizon_without_a_turning_slow_pair():
    from rope_explained.extension import distance_prompts
    from rope_explained.figures.real_models import partial_rotary as page
    from rope_explained.model import predict_last

    prompts = distance_prompts(page.EXERCISE_FAR, page.EXERCISE_PROMPTS)
    assert value("partial-ex-far-prompts") == str(len(prompts))
    for vid, pct in (("partial-ex-far-accuracy", 0.25), ("partial-ex-far-accuracy-full", 1.0)):
        hits = [predict_last(p.text, rotary_pct=pct).prediction == p.answer for p in prompts]
        agrees(vid, 100 * np.mean(hits))
    # the distance is past the full head's limit pi / (26 theta_31)
    assert page.EXERCISE_FAR > np.pi / 26 / 10000.0 ** (-62 / 64)


# --- real-models/deriving-rope.md ---------------------------------------------------------------


def test_deriving_exercise_the_fastest_pair_comes_back_near_its_start():
    """Exact integer arithmetic on the turns (math.remainder on each m), not the value's numpy."""
    for limit, suffix in ((100, "100"), (1000, "1000")):
        misses = {m: abs(math.remainder(m, 2 * math.pi)) for m in range(1, limit + 1)}
        m = min(misses, key=misses.get)
        assert value(f"deriving-ex-return-{suffix}") == str(m)
        assert value(f"deriving-ex-return-{suffix}-turns") == str(round(m / (2 * math.pi)))
        agrees(f"deriving-ex-return-{suffix}-miss", misses[m])
        # the closest distance is unique
        assert sorted(misses.values())[1] > misses[m]


def test_deriving_exercise_identity_position_term_is_relative_but_cross_terms_are_not():
    from rope_explained.sinusoidal import sinusoidal_positions

    p = sinusoidal_positions(48)
    one_apart = np.einsum("td,td->t", p[:-1], p[1:])
    assert np.allclose(one_apart, one_apart[0], atol=1e-12)
    agrees("deriving-ex-identity-score", one_apart[0])
    # with M = I the cross term x^T p_n still changes with the key's position n
    x = np.random.default_rng(0).standard_normal(64)  # generic content
    cross = p @ x
    assert cross.max() - cross.min() > 1.0


def test_deriving_exercise_the_mirrored_key_depends_on_m_plus_n():
    from rope_explained.rope import rotation_matrix

    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 64))
    T = 48
    right = np.array([[q @ rotation_matrix(m, 64).T @ rotation_matrix(n, 64) @ k for n in range(T)]
                      for m in range(T)])  # fmt: skip
    wrong = np.array([[q @ rotation_matrix(m, 64).T @ rotation_matrix(-n, 64) @ k
                       for n in range(T)] for m in range(T)])  # fmt: skip
    # the wrong score is a function of m + n
    for total in range(2 * T - 1):
        cells = [wrong[m, total - m] for m in range(max(0, total - T + 1), min(T, total + 1))]
        assert np.ptp(cells) < 1e-10
    bound = float(value("deriving-ex-mirrored-column0").removeprefix("10^{").rstrip("}"))
    assert np.abs(right[:, 0] - wrong[:, 0]).max() < 10.0**bound
    agrees("deriving-ex-mirrored-elsewhere", np.abs(np.tril(right - wrong)[:, 1:]).max())
    back = np.array([wrong[m, m - 1] for m in range(1, T)])
    agrees("deriving-ex-mirrored-spread", np.ptp(back))


# --- real-models/decoding.md --------------------------------------------------------------------


def bound_of(value_id: str) -> float:
    """The power of ten a "below" value states."""
    return 10.0 ** float(value(value_id).removeprefix("10^{").rstrip("}"))


def test_decoding_exercise_a_shifted_loop_is_harmless():
    """The decode loop written out with the cached keys rotated by hand (rotation matrices),
    positions starting at 1, against the full pass."""
    from rope_explained.rope import rotation_matrix

    tr = forward(FORWARD_PASS_PROMPT)
    W, d = tr.weights, tr.config.d  # the heads' sharpness is part of W_q
    worst = 0.0
    for layer, h, A in ((W.L0, tr.h0, tr.A0), (W.L1, tr.h1, tr.A1)):
        keys = np.array([rotation_matrix(n + 1, d) @ layer.W_k @ h[n] for n in range(len(h))])
        for p in range(len(h)):
            q = rotation_matrix(p + 1, d) @ layer.W_q @ h[p]
            s = keys[: p + 1] @ q
            w = np.exp(s - s.max())
            worst = max(worst, np.abs(w / w.sum() - A[p, : p + 1]).max())
    assert worst < bound_of("decoding-ex-shifted")
    # and the package's loop: probabilities too
    from rope_explained.decoding import decode_step, new_cache

    cache = new_cache()
    for p, token in enumerate(tr.tokens):
        step = decode_step(cache, token, position=p + 1.0)
        cache = step.cache
        assert np.abs(step.probs - tr.probs[p]).max() < bound_of("decoding-ex-shifted")


def test_decoding_exercise_masked_pads_may_sit_anywhere():
    from rope_explained.decoding import pad_left
    from rope_explained.figures.real_models.decoding import PADS

    base = forward(FORWARD_PASS_PROMPT)
    T = len(base.tokens)
    assert value("padding-pads") == str(PADS)
    for count in (True, False):
        tr = pad_left(FORWARD_PASS_PROMPT, PADS, count_pads=count)
        for name in ("A0", "A1"):
            got = getattr(tr, name)[-T:, -T:]
            assert np.abs(got - getattr(base, name)).max() < bound_of("decoding-ex-pad-position")
        assert np.abs(tr.probs[-T:] - base.probs).max() < bound_of("decoding-ex-pad-position")
    # without the mask the numbering does matter (the page's what-if)
    a = pad_left(FORWARD_PASS_PROMPT, PADS, mask_pads=False)
    assert np.abs(a.A0[-T:, -T:] - base.A0).max() > 0.1


def test_decoding_exercise_cache_size():
    from rope_explained.decoding import decode

    d, layers = forward("a").config.d, 2
    tokens = 1 + len(FORWARD_PASS_PROMPT)  # the start token and the letters
    agrees("decoding-ex-cache-per-token", 2 * layers * d)  # a key and a value per layer
    agrees("decoding-ex-cache-numbers", 2 * layers * d * tokens)
    assert value("decoding-ex-cache-tokens") == str(tokens)
    cache = decode(FORWARD_PASS_PROMPT)[-1].cache
    assert cache.k0.shape == cache.v1.shape == (tokens, d)


# --- real-models/precision.md -------------------------------------------------------------------


def test_precision_exercise_the_bf16_grid():
    bf16 = ml_dtypes.bfloat16
    info = ml_dtypes.finfo(bf16)
    # the gap at x in [2^k, 2^(k+1)) is 2^(k - (bits - 1)), from the format's epsilon
    for x, vid in ((1000, "precision-ex-gap-1000"), (100000, "precision-ex-gap-100000")):
        agrees(vid, float(info.eps) * 2.0 ** math.floor(math.log2(x)))
    assert int(value("precision-bits-bfloat16")) == info.nmant + 1
    # round to nearest, ties to even significand, by hand on the grid of 4
    for m in (1001, 1002, 1003):
        lo, hi = 4 * (m // 4), 4 * (m // 4) + 4
        want = lo if (m - lo < hi - m or (m - lo == hi - m and (lo // 4) % 2 == 0)) else hi
        assert value(f"precision-ex-rounds-{m}") == str(want) == str(int(float(bf16(m))))


def test_precision_exercise_distinct_positions():
    from rope_explained.figures.real_models.precision import EXERCISE_CONTEXT as n

    def count(significand_bits: int) -> int:
        """Exact integers up to 2^bits, then 2^(bits-1) numbers per doubling, plus the
        context's own power of two, which the last positions round up to."""
        exact = 2**significand_bits
        doublings = int(math.log2(n)) - significand_bits
        return exact + doublings * 2 ** (significand_bits - 1) + 1

    assert n & (n - 1) == 0  # a power of two, as the count assumes
    agrees("precision-ex-distinct-bfloat16", count(8))
    agrees("precision-ex-distinct-float16", count(11))
    agrees("precision-ex-context", n)
    assert count(11) < n / 2 + 2  # "about half as many as there are positions"


def test_precision_exercise_scores_in_bf16():
    alpha, d = 10.0, 64
    peak = alpha * d / 2
    assert value("precision-peak-score") == f"{peak:.0f}"
    agrees("precision-ex-score-gap-bfloat16", 2.0 ** (math.floor(math.log2(peak)) - 7))
    agrees("precision-ex-score-gap-float16", 2.0 ** (math.floor(math.log2(peak)) - 10))
    side = alpha * sum(math.cos(10000.0 ** (-2 * i / d)) for i in range(d // 2))
    agrees("precision-ex-side-score", side)
    rounded = 2.0 * round(side / 2.0)  # the bf16 grid near 300 is the even numbers
    agrees("precision-ex-side-score-bfloat16", rounded)
    assert float(ml_dtypes.bfloat16(peak)) - rounded >= 2  # the lead survives the rounding


# --- notes/position-only-heads.md ---------------------------------------------------------------


def profile(delta: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """S(delta) = sum_i cos((1 - delta) theta_i), the score per unit alpha of the key delta
    steps back, by explicit cosines."""
    return np.array([sum(math.cos((1 - int(t)) * th) for th in theta) for t in delta])


def test_position_only_exercise_sharpness_for_one_percent():
    share = float(value("notes-ex-position-share")) / 100
    for d in (64, 128):
        theta = 10000.0 ** (-np.arange(0, d, 2) / d)
        gap = d / 2 - profile(np.array([2]), theta)[0]
        if d == 128:
            agrees("notes-ex-position-gap-128", gap)
        alpha = math.log(2 / share) / gap
        agrees(f"notes-ex-position-alpha-{d}", alpha, rounding="up")
        # at the stated alpha the neighbours keep at most the share, just below it more
        stated = float(value(f"notes-ex-position-alpha-{d}"))
        assert 2 * math.exp(-stated * gap) <= share < 2 * math.exp(-(stated - 0.1) * gap)
    # "more pairs between one and a tenth of a radian per step"
    fast = [int(np.count_nonzero(10000.0 ** (-np.arange(0, d, 2) / d) >= 0.1)) for d in (64, 128)]
    assert fast[1] > fast[0]


def test_position_only_exercise_wendler_gap():
    d = 64
    wendler = 10000.0 ** (-2 * np.arange(d // 2) / (d - 2))  # his schedule, from the formula
    standard = 10000.0 ** (-np.arange(0, d, 2) / d)
    assert wendler[0] == standard[0] == 1 and np.all(wendler[1:] < standard[1:])
    gap_w = d / 2 - profile(np.array([2]), wendler)[0]
    gap_s = d / 2 - profile(np.array([2]), standard)[0]
    agrees("notes-ex-position-gap-wendler", gap_w)
    assert gap_w < gap_s < gap_w + 0.1  # smaller, slightly
    # the schedules differ most, relatively, in the slow pairs
    ratio = standard / wendler
    assert np.all(np.diff(ratio) > 0)


def test_position_only_exercise_a_doubled_key():
    d, window = 64, int(value("notes-ex-position-window"))
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    delta = np.arange(2, window + 1)
    wins = 0
    for alpha in (1.0, 10.0, 100.0):  # "whatever alpha is"
        scores = alpha * profile(delta, theta)
        count = int(np.count_nonzero(2 * scores > alpha * d / 2))
        wins = wins or count
        assert count == wins
    assert value("notes-ex-position-doubled-wins") == str(wins)


# --- notes/semantic-heads.md --------------------------------------------------------------------


def test_semantic_exercise_a_large_head_with_a_large_base():
    from rope_explained.figures.notes.semantic_heads import EXERCISE_LONG

    theta = 500000.0 ** (-126 / 128)  # the slowest pair of d = 128, from the formula
    agrees("notes-ex-semantic-drop-llama-999", 100 * (1 - math.cos(999 * theta)))
    agrees("notes-ex-semantic-drop-llama-long", 100 * (1 - math.cos(EXERCISE_LONG * theta)))
    assert value("notes-ex-semantic-long") == f"{EXERCISE_LONG:,}"
    site = 100 * (1 - math.cos(999 * 10000.0 ** (-62 / 64)))
    agrees("notes-slowest-drop", site)
    assert 100 * (1 - math.cos(999 * theta)) < site / 1000


def test_semantic_exercise_the_slowest_factor_turns_negative():
    theta = 10000.0 ** (-62 / 64)
    zero = int(value("notes-ex-semantic-zero").replace(",", ""))
    # the cosine changes sign within the hundred tokens the value is rounded to
    assert math.cos((zero - 50) * theta) > 0 > math.cos((zero + 50) * theta)


def test_semantic_exercise_four_slow_pairs():
    from rope_explained.figures.notes.semantic_heads import EXERCISE_KEPT, EXERCISE_LEVEL

    assert value("notes-ex-semantic-kept") == str(EXERCISE_KEPT) == "4"  # d0 = 56 in the text
    theta = [10000.0 ** (-2 * i / 64) for i in range(28, 32)]
    stated = int(value("notes-ex-semantic-kept-below").replace(",", ""))

    def mean(delta: int) -> float:
        return sum(math.cos(delta * t) for t in theta) / len(theta)

    assert mean(stated) < EXERCISE_LEVEL <= min(mean(t) for t in range(stated))
    # faster than the slowest pair alone would fall below the level
    assert stated < math.acos(EXERCISE_LEVEL) / theta[-1]


# --- notes/open-questions.md --------------------------------------------------------------------


def usable(d: int, base: float, length: float, min_cos: float) -> int:
    """d_semantic(L), counted pair by pair from the horizon formula."""
    return 2 * sum(1 for i in range(d // 2) if math.acos(min_cos) / base ** (-2 * i / d) >= length)


def test_open_questions_exercise_the_base_a_window_needs():
    from pages import number

    from rope_explained.figures.notes.open_questions import EXERCISE_TARGET as t

    stated = number(value("notes-ex-open-base"))
    assert usable(t["d"], stated, t["length"], t["min_cos"]) >= t["coordinates"]
    # rounded up by less than one unit of its second digit: below that it is not enough
    unit = 10.0 ** (math.floor(math.log10(stated)) - 1)
    assert usable(t["d"], stated - unit, t["length"], t["min_cos"]) < t["coordinates"]
    assert value("notes-ex-open-coordinates") == str(t["coordinates"])
    assert value("notes-ex-open-length") == f"{t['length']:,}"
    # "every doubling of the window roughly doubles the base"
    assert 2 < 2 ** (128 / 120) < 2.2


def test_open_questions_exercise_a_looser_tolerance():
    loose = usable(64, 1e4, 1000, 0.5)
    assert value("notes-ex-open-loose") == str(loose)
    assert value("bottleneck-d64-b1e4-l1000") == str(usable(64, 1e4, 1000, 0.9))
    assert loose <= 64 / 4  # three quarters of the head or more stay unusable
    assert 2 < math.acos(0.5) / math.acos(0.9) < 2.5  # "a little more than twice"


def test_open_questions_exercise_slow_pairs_under_rotate_half():
    d = 64
    # rotate-half pair i is (i, i + d/2): the four slowest pairs, 28..31
    coords = sorted(c for i in range(28, 32) for c in (i, i + d // 2))
    assert value("notes-ex-open-half-first") == str(coords[0])
    assert value("notes-ex-open-half-second") == str(coords[4])
    assert coords == [*range(28, 32), *range(60, 64)]
    # the last eight coordinates of a rotate-half head: second members of pairs 24..31
    assert sorted(c - d // 2 for c in range(56, 64)) == list(range(24, 32))


# --- paper-to-code/context-extension.md ---------------------------------------------------------


def test_context_extension_exercise_linear_between_two_keys():
    """The last query's row from the page's formula alone: alpha sum_i cos(delta theta_i / s -
    theta_i) for every delta in 0..L-1, then a softmax."""
    from rope_explained.figures.paper_to_code.context_extension import L

    alpha, d = 10.0, 64
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    delta = np.arange(L)  # the last query of a text of L positions sees L keys
    rows = {}
    for s in (1.5, 1.25):
        scores = alpha * np.cos(np.outer(delta, theta / s) - theta).sum(axis=1)
        w = np.exp(scores - scores.max())
        rows[s] = w / w.sum()
    # at s = 1.5 the scores of delta = 1 and 2 agree term by term: cos(-t/3) = cos(t/3)
    assert np.allclose(np.cos(theta / 1.5 - theta), np.cos(2 * theta / 1.5 - theta), atol=1e-15)
    agrees("ctx-ex-linear-1-5-back-1", rows[1.5][1])
    agrees("ctx-ex-linear-1-5-back-2", rows[1.5][2])
    assert rows[1.5][1] + rows[1.5][2] > 0.999  # the two keys take all but a trace
    agrees("ctx-ex-linear-1-25-back-1", rows[1.25][1])
    assert rows[1.25][1] < float(value("ctx-ablation-threshold"))  # a rival can win


def test_context_extension_exercise_ntk_pair_1():
    from rope_explained.figures.paper_to_code.context_extension import L
    from rope_explained.rope import scaled_frequencies

    s, d = 8.0, 64
    agrees("ctx-ex-ntk-pair1", s ** (2 / (d - 2)))
    # the package's frequencies from the larger base b s^(d/(d-2)): pair 0 kept, the last
    # divided by exactly s, and the slowdown geometric along the pairs
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    new, _ = scaled_frequencies(d, method="ntk", factor=s, original_max_position=L)
    slow = theta / new
    assert slow[0] == pytest.approx(1.0, rel=1e-12) and slow[-1] == pytest.approx(s, rel=1e-12)
    assert np.allclose(slow[1:] / slow[:-1], s ** (2 / (d - 2)), rtol=1e-12)
    assert 0.01 < slow[1] - 1 < 0.1  # "a few per cent"


def test_context_extension_exercise_dynamic_ntk_meets_the_static_method():
    from rope_explained.figures.paper_to_code.context_extension import L
    from rope_explained.rope import scaled_frequencies

    s, d = 4.0, 64
    ell = int(value("ctx-ex-dynamic-length").replace(",", ""))
    assert value("ctx-original").replace(",", "").replace("{", "").replace("}", "") == str(L)
    static, _ = scaled_frequencies(d, method="ntk", factor=s, original_max_position=L)
    dynamic, _ = scaled_frequencies(
        d, method="dynamic-ntk", factor=s, original_max_position=L, seq_len=ell
    )
    assert np.allclose(dynamic, static, rtol=1e-12)
    shorter, _ = scaled_frequencies(
        d, method="dynamic-ntk", factor=s, original_max_position=L, seq_len=ell - 1
    )
    assert shorter[-1] > static[-1]  # shorter texts: a smaller factor, a faster last pair
    agrees("ctx-ex-dynamic-factor", s * 4 - (s - 1))
