"""Numbers stated on the pages, computed again from the package.

Each test reads a page's Markdown, finds the number the page states, and checks it against a fresh
computation: a page that drifts from the package fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rope_explained.model import forward

DOCS = Path(__file__).resolve().parent.parent / "docs"


def page_text(path: str) -> str:
    """The Markdown source of a page under docs/."""
    return (DOCS / path).read_text(encoding="utf-8")


def stated(pattern: str, text: str) -> re.Match:
    """The first match of ``pattern`` in ``text``; fails the test if the page no longer says it."""
    m = re.search(pattern, text, flags=re.S)
    assert m is not None, f"the page no longer states {pattern!r}"
    return m


# --- forward-pass/index.md and index.md ---------------------------------------------------------

FORWARD_PASS_PAGE = "forward-pass/index.md"


def _fp_trace():
    from rope_explained.examples import FORWARD_PASS_PROMPT as EXAMPLE_PROMPT

    return forward(EXAMPLE_PROMPT)


def test_forward_pass_prompt_is_the_one_the_page_names():
    from rope_explained.examples import FORWARD_PASS_PROMPT as EXAMPLE_PROMPT

    text = page_text(FORWARD_PASS_PAGE)
    assert stated(r"The prompt is `([a-z]+)`", text).group(1) == EXAMPLE_PROMPT
    # the home page's figure caption and the forward-pass page speak of the same prompt
    from rope_explained.figures import get

    assert f"`{EXAMPLE_PROMPT}`" in get("home-circuit").caption


def test_forward_pass_prediction_and_probability():
    tr = _fp_trace()
    text = page_text(FORWARD_PASS_PAGE)
    m = stated(r"predicts \*\*([a-z])\*\*\s+with probability\s+\*\*(0\.\d+)\*\*", text)
    letter, p_stated = m.group(1), float(m.group(2))
    p = tr.probs[-1]
    assert tr.prediction == letter
    decimals = len(m.group(2)) - 2
    assert round(float(p.max()), decimals) == p_stated
    # the probability left over goes to the two neighbours on the letter circle
    m2 = stated(r"`b` and `z`, with\s+\*\*(0\.\d+)\*\*\s+each", text)
    q = float(m2.group(1))
    vocab = tr.vocab
    for v in ("b", "z"):
        assert round(float(p[vocab.index(v)]), len(m2.group(1)) - 2) == q
    others = [i for i, v in enumerate(vocab) if v not in (letter, "b", "z")]
    assert p[others].sum() < 1e-3


def test_forward_pass_previous_token_weights():
    tr = _fp_trace()
    text = page_text(FORWARD_PASS_PAGE)
    bound = float(stated(r"at least\s+\*\*(0\.\d+)\*\*\s+of its weight", text).group(1))
    T = len(tr.tokens)
    on_prev = np.array([tr.A0[m, m - 1] for m in range(1, T)])
    assert on_prev.min() >= bound
    # the stated bound is tight to its last digit: one more 9 would be false
    assert on_prev.min() < bound + 10.0 ** -(len(str(bound)) - 2)


def test_forward_pass_scores_320_and_309():
    tr = _fp_trace()
    text = page_text(FORWARD_PASS_PAGE)
    best = int(stated(r"exactly \\\(\\alpha\\, d/2 = (\d+)\\\)", text).group(1))
    side = int(stated(r"the keys on\s+either side reach (\d+)", text).group(1))
    cfg = tr.config
    assert best == cfg.alpha * cfg.d / 2
    T = len(tr.tokens)
    for m in range(1, T):
        row = tr.scores0[m, : m + 1]
        assert int(np.argmax(row)) == m - 1
        assert row[m - 1] == pytest.approx(best, abs=1e-9)
        assert round(float(row[m])) == side  # the key at n = m
        if m >= 2:
            assert round(float(row[m - 2])) == side  # the key at n = m - 2


def test_forward_pass_induction_weight_on_position_5():
    tr = _fp_trace()
    text = page_text(FORWARD_PASS_PAGE)
    w = stated(r"puts\s+\*\*(\d\.\d+)\*\*\s+of its weight on position (\d+)", text)
    n = int(w.group(2))
    assert int(np.argmax(tr.A1[-1])) == n
    assert round(float(tr.A1[-1, n]), len(w.group(1)) - 2) == float(w.group(1))
    # position n holds the letter that followed the first copy of the last letter
    last = tr.tokens[-1]
    first = tr.tokens.index(last)
    assert first + 1 == n and tr.tokens[n] == tr.prediction
    # the rows of the second "h" and "e" find their match one step earlier, just as sharply
    assert int(np.argmax(tr.A1[-2])) == n - 1 and tr.A1[-2, n - 1] > 0.9995
    assert int(np.argmax(tr.A1[-3])) == n - 2 and tr.A1[-3, n - 2] > 0.9995


def test_forward_pass_unseen_last_letter():
    text = page_text(FORWARD_PASS_PAGE)
    m = stated(
        r'`forward\("([a-z]+)"\)`\s+predicts \*\*([a-z])\*\*, with the same probability (0\.\d+)',
        text,
    )
    prompt, letter, p_stated = m.group(1), m.group(2), float(m.group(3))
    tr = forward(prompt)
    assert prompt[-1] not in prompt[:-1]  # the last letter really is new
    assert tr.prediction == letter
    assert round(float(tr.probs[-1].max()), 3) == p_stated
    assert round(float(_fp_trace().probs[-1].max()), 3) == p_stated


def test_home_page_circuit_story():
    """The home page's walk through its figure: the last letter looks at the key after its twin."""
    text = page_text("index.md")
    tr = _fp_trace()
    story = stated(r"the only such key is\s+position (\d+),\s+which holds `([a-z])`", text)
    n, held = int(story.group(1)), story.group(2)
    assert int(np.argmax(tr.A1[-1])) == n
    assert tr.tokens[n] == held == tr.prediction
    assert int(np.argmax(tr.A0[n])) == n - 1 and tr.tokens[n - 1] == tr.tokens[-1]
    assert stated(r"the model\s+answers `([a-z])`", text).group(1) == tr.prediction


# --- notes/position-only-heads.md, notes/semantic-heads.md, notes/open-questions.md -----------

NOTES_POSITION = "notes/position-only-heads.md"
NOTES_SEMANTIC = "notes/semantic-heads.md"
NOTES_OPEN = "notes/open-questions.md"


def _notes_decimals(s: str) -> int:
    return len(s.split(".")[1]) if "." in s else 0


def test_notes_every_page_credits_wendler_and_says_what_ran():
    for path in (NOTES_POSITION, NOTES_SEMANTIC, NOTES_OPEN):
        text = page_text(path)
        head = text[:1500]  # near the top
        assert "Chris Wendler" in head, path
        assert re.search(r"Experiment 1|Experiment 3", head), path
    assert "Jakob Heiss" in page_text(NOTES_POSITION)


def test_notes_open_items_are_marked_open():
    open_text = page_text(NOTES_OPEN)
    for item in ("Question 1", "Question 2", "Experiment 4", "Experiment 5", "Experiment 6"):
        assert re.search(rf'!!! question "Open: {item}', open_text), item
    assert re.search(r'!!! question "Open: Experiment 2', page_text(NOTES_POSITION))
    # no open item claims a result
    for block in re.findall(r'!!! question "Open.*?(?=\n\S|\Z)', open_text, flags=re.S):
        assert "we found" not in block.lower() and "results show" not in block.lower()


def test_notes_experiment_1_setting_matches_the_figure():
    from rope_explained.figures import get

    text = page_text(NOTES_POSITION)
    spec = get("notes-previous-token-patterns")
    assert spec.kwargs["alphas"] == (1.0, 10.0, 100.0)
    assert spec.kwargs["T"] == 20 and spec.kwargs["D"] == 768 and spec.kwargs["d"] == 64
    setting = r"a sequence of (\d+) vectors in \\\(\\mathbb\{R\}\^\{(\d+)\}\\\)"
    assert stated(setting, text).groups() == ("20", "768")
    assert int(stated(r"averaged over the (\d+) queries", text).group(1)) == spec.kwargs["T"] - 1


def test_notes_experiment_1_table():
    from rope_explained.experiments import previous_token_experiment

    text = page_text(NOTES_POSITION)
    out = previous_token_experiment()
    for alpha in (1, 10):
        cell = stated(rf"\n\| {alpha} \| (0\.\d+) \|", text).group(1)
        mean = float(np.diag(out[float(alpha)], k=-1).mean())
        assert round(mean, _notes_decimals(cell)) == float(cell), (alpha, mean)
    stated(r"\n\| 100 \| 1\.0 to double precision \|", text)
    assert 1.0 - np.diag(out[100.0], k=-1).mean() < 1e-15
    # alpha = 1: late queries give "about 0.20" to n = m and to n = m - 2
    spill = stated(r"n = m - 2\\\) \(about (0\.\d+) each for late queries\)", text).group(1)
    A1 = out[1.0]
    for m in range(10, 20):
        assert round(float(A1[m, m]), 2) == float(spill)
        assert A1[m, m] == pytest.approx(A1[m, m - 2], rel=1e-12)
    # alpha = 10: "about 4 x 10^-5" left for the neighbours
    left = stated(r"with about \\\((\d) \\times 10\^\{-(\d)\}\\\) left", text)
    rest = 1.0 - float(np.diag(out[10.0], k=-1).mean())
    assert f"{rest:.0e}" == f"{left.group(1)}e-0{left.group(2)}"


def test_notes_score_gap_numbers():
    from rope_explained.experiments import previous_token_scores

    text = page_text(NOTES_POSITION)
    side = previous_token_scores(np.array([1.0]), d=64)[0]
    gap = 32.0 - side
    stated_side = stated(r"\\approx (\d+\.\d+)\\,\\alpha\\\), only about", text).group(1)
    stated_gap = stated(r"only about \\\((\d\.\d+)\\,\\alpha\\\) below", text).group(1)
    assert round(side, 2) == float(stated_side)
    assert round(gap, 2) == float(stated_gap)
    m = stated(r"get about \\\(2e\^\{-(\d+\.\d)\} \\approx (\d)\\times10\^\{-(\d)\}\\\)", text)
    assert round(10 * gap, 1) == float(m.group(1))
    assert f"{2 * np.exp(-10 * gap):.0e}" == f"{m.group(2)}e-0{m.group(3)}"
    assert round(100 * gap) == int(stated(r"of order \\\(e\^\{-(\d+)\}\\\)", text).group(1))


def test_notes_layer0_of_the_model_matches_the_stated_bound():
    text = page_text(NOTES_POSITION)
    bound = float(stated(r"previous token is at least\s+(0\.\d+) as well", text).group(1))
    stated(r"this construction with \\\(\\alpha = (10)\\\)", text)
    tr = forward("abcabdefghijklmnopqrstuvwxyzab")
    assert tr.config.alpha == 10
    T = len(tr.tokens)
    on_prev = np.array([tr.A0[m, m - 1] for m in range(1, T)])
    assert on_prev.min() >= bound


def test_notes_slowest_pair_numbers():
    from rope_explained.rope import frequencies

    text = page_text(NOTES_SEMANTIC)
    th = frequencies(64)[-1]
    m = stated(r"\\approx (\d\.\d+) \\times 10\^\{-4\}\\\) rad per token", text)
    assert round(th * 1e4, 2) == float(m.group(1))
    turn = stated(r"Over 999\s+tokens that is (0\.\d+) rad", text).group(1)
    assert round(999 * th, 3) == float(turn)
    c = stated(r"\\cos 0\.\d+ \\approx (0\.\d+)\\\): a (0\.\d) % drop", text)
    assert round(np.cos(999 * th), 3) == float(c.group(1))
    assert round(100 * (1 - np.cos(999 * th)), 1) == float(c.group(2))


def test_notes_recency_numbers():
    from rope_explained.experiments import semantic_recency

    text = page_text(NOTES_SEMANTIC)
    s = semantic_recency(T=1000, d=64, d0=0)
    r = (s / s[-1])[::-1]  # by distance 0..999
    at10 = stated(r"normalised score is down to (0\.\d+) at distance 10", text).group(1)
    assert round(r[10], 2) == float(at10)
    lo, hi = stated(r"between about \\\((-0\.\d+)\\\) and \\\((0\.\d+)\\\)", text).groups()
    assert round(r[10:].min(), 2) == float(lo) and round(r[10:].max(), 2) == float(hi)
    assert r[10:].max() < 1.0


def test_notes_recency_caption_numbers():
    from rope_explained.experiments import semantic_recency
    from rope_explained.figures import get

    caption = get("notes-semantic-recency").caption
    pattern = r"four slowest pairs lose (\d\.\d) % and the slowest pair\s+alone (\d\.\d) %"
    m = re.search(pattern, caption)
    assert m is not None
    for d0, loss in ((56, m.group(1)), (62, m.group(2))):
        s = semantic_recency(T=1000, d=64, d0=d0)
        assert round(100 * (1 - s[0] / s[-1]), 1) == float(loss)


def test_notes_experiment_3_flatness_table():
    from rope_explained.experiments import d0_sweep_values, semantic_head_experiment

    text = page_text(NOTES_SEMANTIC)
    out = semantic_head_experiment()
    rows = re.findall(r"\n\s*\| ([^|]+) \| ([^|]+) \| (0\.\d+) \|", text)
    assert len(rows) == 5
    for (label, _, value), d0 in zip(rows, d0_sweep_values(64), strict=True):
        assert str(d0) in label
        flat = np.ptp(out[d0]) / out[d0].max()
        assert round(float(flat), 3) == float(value), (d0, flat)


def test_notes_induction_head_margin():
    from rope_explained.embedding import letter_angle
    from rope_explained.experiments import induction_prompts
    from rope_explained.model import Config
    from rope_explained.rope import frequencies

    text = page_text(NOTES_SEMANTIC)
    d = Config().d
    th = frequencies(d)[-1]
    max_len = max(len(p.text) for p in induction_prompts())
    assert int(stated(r"prompts are at most (\d+)\s+tokens long", text).group(1)) == max_len
    m = stated(r"at most \\\((\d+)\\,\\theta_\{31\}\s+\\approx (0\.\d+)\\\) rad", text)
    assert int(m.group(1)) == max_len - 1 and d // 2 - 1 == 31
    assert round((max_len - 1) * th, 3) == float(m.group(2))
    step = letter_angle("b") - letter_angle("a")
    half = float(stated(r"\\pi/26 \\approx (0\.\d+)\\\) rad", text).group(1))
    assert step == pytest.approx(np.pi / 13) and round(np.pi / 26, 3) == half
    assert (max_len - 1) * th < half
    reach = int(stated(r"prompts of up to about (\d+) tokens", text).group(1))
    assert round(np.pi / 26 / th) == reach


def test_notes_bottleneck_table():
    from rope_explained.experiments import pair_horizons, stable_pair_count

    text = page_text(NOTES_OPEN)
    lengths = np.array([100.0, 1000.0, 10000.0])
    setups = {
        r"\(d = 64\), base \(10^4\) (this site)": (64, 1e4),
        r"\(d = 128\), base \(10^4\)": (128, 1e4),
        r"\(d = 128\), base \(5 \times 10^5\)": (128, 5e5),
    }
    for label, (d, base) in setups.items():
        row = stated(re.escape(f"| {label} |") + r"([^\n]+)", text).group(1)
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        coords = 2 * stable_pair_count(lengths, d=d, base=base)
        assert cells == [f"{c} of {d}" for c in coords], (label, cells)
    tol = float(stated(r"\\approx \\frac\{(0\.\d+)\}\{\\theta_i\}", text).group(1))
    assert round(np.arccos(0.9), 3) == tol
    slowest = int(stated(r"horizon of\s+only about (\d+) tokens", text).group(1))
    assert round(pair_horizons(64, 1e4, 0.9)[-1], -2) == slowest


# --- equations/previous-token-head.md, induction-head.md, forward-pass.md (chapters 3-5) ------

LAYER0_PAGE = "equations/previous-token-head.md"
LAYER1_PAGE = "equations/induction-head.md"
COMPLETE_PAGE = "equations/forward-pass.md"


def _decimals(s: str) -> int:
    return len(s.split(".")[1]) if "." in s else 0


def test_layer0_peak_and_nearest_rivals():
    from rope_explained.experiments import previous_token_scores
    from rope_explained.rope import frequencies

    text = page_text(LAYER0_PAGE)
    peak = int(stated(r"\\alpha \\cdot d/2 = (\d+)\\,\\alpha", text).group(1))
    assert peak == 64 // 2 == previous_token_scores(np.array([0]), d=64)[0]
    m = stated(r"at \\\((\d+\.\d+)\\,\\alpha\\\): a gap of \\\((\d\.\d+)\\,\\alpha\\\)", text)
    side = previous_token_scores(np.array([-1, 1]), d=64)
    assert side[0] == side[1] and round(side[0], 2) == float(m.group(1))
    assert round(peak - side[0], 2) == float(m.group(2))
    fastest = float(stated(r"1 - \\cos 1 = (0\.\d+)", text).group(1))
    assert round(1 - np.cos(frequencies(64)[0]), 2) == fastest
    assert 0.4 < fastest / (peak - side[0]) < 0.5  # "almost half"
    # "over the first 10^5 offsets no Delta != 0 comes closer to 32 than Delta = +-1"
    stated(r"over the first \\\(10\^5\\\) offsets", text)
    far = previous_token_scores(-np.arange(2, 100_001), d=64)
    assert far.max() < side[0]
    # the forward pass scores exactly alpha * d/2 on the previous key
    tr = forward("thequickbrownfox")
    T = len(tr.tokens)
    for q in range(1, T):
        assert tr.scores0[q, q - 1] == pytest.approx(tr.config.alpha * peak, abs=1e-9)
        assert int(np.argmax(tr.scores0[q, : q + 1])) == q - 1


def test_layer0_fewer_pairs_smaller_gap():
    from rope_explained.experiments import previous_token_scores

    text = page_text(LAYER0_PAGE)
    stated(r"the\s+ceiling \\\(d/2\\\) shrinks with \\\(d\\\), and so does the gap", text)
    gaps = [d / 2 - previous_token_scores(np.array([1]), d=d)[0] for d in (8, 16, 32, 64, 128)]
    assert all(a < b for a, b in zip(gaps[:-1], gaps[1:], strict=True))


def test_layer0_alpha_numbers():
    from rope_explained.figures.equations.previous_token_head import PROMPT

    text = page_text(LAYER0_PAGE)
    a1 = stated(r"previous token is only (0\.\d+) in the worst row", text).group(1)
    a10 = stated(r"With \\\(\\alpha = 10\\\) it is (0\.\d+)", text).group(1)
    a100 = stated(r"other keys is about \\\((\d\.\d) \\times 10\^\{-(\d+)\}\\\)", text)
    a5 = stated(r"already \\\(\\alpha = 5\\\)\s+gives (0\.\d+)", text).group(1)
    again = stated(r"puts on its previous token is (0\.\d+)", text).group(1)
    assert again == a10

    def worst(alpha):
        A = forward(PROMPT, alpha=alpha).A0
        on_prev = np.diag(A, k=-1)
        off = max(np.delete(A[m, : m + 1], m - 1).sum() for m in range(1, len(A)))
        return on_prev.min(), off

    for alpha, s in ((1.0, a1), (10.0, a10), (5.0, a5)):
        assert round(float(worst(alpha)[0]), _decimals(s)) == float(s), alpha
    _, off100 = worst(100.0)
    assert f"{off100:.1e}" == f"{a100.group(1)}e-{a100.group(2)}"
    # each of the two nearest rivals gets about e^{-1.08 alpha} of the winner's weight
    A = forward(PROMPT, alpha=10.0).A0
    ratio = A[10, 10] / A[10, 9]
    assert np.log(ratio) == pytest.approx(-10 * 1.0832, abs=0.01)


def test_layer0_first_row_and_output_copy():
    tr = forward("thequickbrownfox")
    s = tr.slots
    assert tr.tokens[0] == "<s>" and tr.A0[0, 0] == 1.0
    # o_m ~ v_{m-1}: the prev slot of h1 holds the previous letter's embedding
    err = np.abs(tr.h1[1:, s.prev] - tr.h0[:-1, s.tok]).max()
    miss = max(1 - tr.A0[m, m - 1] for m in range(1, len(tr.tokens)))
    spread = np.abs(tr.h0[:, s.tok][:, None] - tr.h0[:, s.tok][None, :]).max()
    assert err <= miss * spread + 1e-12
    assert err < 1e-4


def test_layer0_offset_setting_moves_the_band():
    text = page_text(LAYER0_PAGE)
    stated(r"`forward\(text, offset=2\)` builds \\\(W_q = \\alpha R_\{\\Theta,-2\} W_k\\\)", text)
    tr = forward("thequickbrownfox", offset=2)
    T = len(tr.tokens)
    assert all(int(np.argmax(tr.A0[m])) == m - 2 for m in range(2, T))
    assert int(np.argmax(tr.A0[1])) == 0


_INDUCTION_CACHE: dict = {}


def _induction_hits():
    """Per-prompt hits of both heads on induction_prompts(1000), computed once per session."""
    if not _INDUCTION_CACHE:
        from rope_explained.experiments import induction_accuracy, induction_prompts

        prompts = induction_prompts(1000)
        for head in ("induction", "rank1"):
            hits = [forward(p.text, head=head).prediction == p.answer for p in prompts]
            _INDUCTION_CACHE[head] = np.array(hits)
        # the per-prompt loop agrees with the package's own benchmark function
        assert (
            induction_accuracy(prompts[:50], head="rank1") == _INDUCTION_CACHE["rank1"][:50].mean()
        )
        _INDUCTION_CACHE["letters"] = np.array([p.text[-1] for p in prompts])
    return _INDUCTION_CACHE


def test_layer1_accuracies_both_heads():
    res = _induction_hits()
    acc = {h: 100 * res[h].mean() for h in ("induction", "rank1")}
    text = page_text(LAYER1_PAGE)
    m = stated(r"predicts \\\(B\\\) in \*\*(\d+\.\d)%\*\* of them and the rank-1 head in\s+"
               r"\*\*(\d+\.\d)%\*\*", text)  # fmt: skip
    assert round(acc["induction"], 1) == float(m.group(1))
    assert round(acc["rank1"], 1) == float(m.group(2))
    # the complete-forward-pass page quotes the same two numbers
    text5 = page_text(COMPLETE_PAGE)
    m5 = stated(r"right (\d+\.\d)% of the time, against (\d+)% for the working head", text5)
    assert round(acc["rank1"], 1) == float(m5.group(1))
    assert round(acc["induction"]) == int(m5.group(2))
    # the accuracy figure's caption speaks of the same benchmark
    from rope_explained.figures import get

    assert get("layer1-accuracy").kwargs["n"] == 1000


def test_layer1_rank1_hits_are_the_two_extreme_letters():
    res = _induction_hits()
    text = page_text(LAYER1_PAGE)
    m = stated(r"is a \((\d+) of (\d+)\) or n \((\d+) of (\d+)\).*?only (\d+) of the other "
               r"(\d+) \((\d\.\d)%", text)  # fmt: skip
    hits, letters = res["rank1"], res["letters"]
    for letter, (h, n) in (("a", m.group(1, 2)), ("n", m.group(3, 4))):
        sel = letters == letter
        assert (int(hits[sel].sum()), int(sel.sum())) == (int(h), int(n)), letter
    rest = ~np.isin(letters, ["a", "n"])
    assert (int(hits[rest].sum()), int(rest.sum())) == (int(m.group(5)), int(m.group(6)))
    assert round(100 * hits[rest].mean(), 1) == float(m.group(7))
    assert abs(hits[rest].mean() - 1 / 26) < 0.01  # "about the 1-in-26 of chance"


def test_layer1_rank1_favourites_and_collapse():
    from rope_explained.figures.equations.induction_head import PROMPT, preference_matrix

    rank1 = preference_matrix("rank1")
    best = set(np.argmax(rank1, axis=1).tolist())
    assert best <= {0, 13}  # columns a and n only
    working = preference_matrix("induction")
    assert np.array_equal(np.argmax(working, axis=1), np.arange(26))
    # every row of the rank-1 score matrix is a multiple of one row (to the RoPE factor)
    tr = forward(PROMPT, head="rank1")
    d = tr.config.d
    qs = tr.q1_pre[:, d - 2]
    T = len(tr.tokens)
    ref = None
    for m in range(1, T):
        if abs(qs[m]) < 1e-6:
            continue
        row = tr.scores1[m, : m + 1] / qs[m]
        if ref is None:
            ref = tr.scores1[T - 1] / qs[T - 1]
        assert np.allclose(row, ref[: m + 1], atol=1e-4)
    # the RoPE factor stays within 1e-4 of 1 over a few dozen tokens
    text = page_text(LAYER1_PAGE)
    stated(r"stays within \\\(10\^\{-4\}\\\) of its\s+value at distance 0 over a few dozen", text)
    from rope_explained.rope import frequencies

    assert 1 - np.cos(50 * frequencies(64)[-1]) < 1e-4


def test_layer1_working_head_numbers():
    from rope_explained.rope import frequencies

    text = page_text(LAYER1_PAGE)
    th = frequencies(64)[-1]
    m = stated(r"\\theta_\{31\} = 10000\^\{-62/64\} \\approx (\d\.\d+) \\times\s+10\^\{-4\}", text)
    assert round(th * 1e4, 2) == float(m.group(1))
    assert th == pytest.approx(10000 ** (-62 / 64))
    limit = int(stated(r"\\frac\{\\pi\}\{26\\,\\theta_\{31\}\} \\approx (\d+)", text).group(1))
    assert round(np.pi / 26 / th) == limit
    neighbour = stated(r"\\beta\\cos\(\\pi/13\) \\approx (0\.\d+)\\,\\beta", text).group(1)
    assert round(np.cos(np.pi / 13), 3) == float(neighbour)
    e = int(stated(r"it about \\\(e\^\{-(\d+)\}\\\) of the weight", text).group(1))
    assert round(1000 * (1 - np.cos(np.pi / 13))) == e
    # and the forward pass really scores beta cos(a_m - a_{n-1} + (m - n) theta_31)
    from rope_explained.embedding import letter_angle

    tr = forward("kbxfmqkbz", alpha=100.0)  # alpha = 100: layer 0 copies the letter exactly
    beta = tr.config.beta
    for q in (5, 9):
        for n in range(2, q + 1):
            want = beta * np.cos(
                letter_angle(tr.tokens[q]) - letter_angle(tr.tokens[n - 1]) + (q - n) * th
            )
            assert tr.scores1[q, n] == pytest.approx(want, abs=1e-6)


def _spaced_prompts(gap: int, n: int = 10, seed: int = 0):
    """Prompts of gap + 1 letters with A at both ends, the rest uniform over the other 25."""
    from rope_explained.embedding import VOCAB

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        a = int(rng.integers(26))
        others = [VOCAB[i] for i in range(26) if i != a]
        letters = [others[j] for j in rng.integers(25, size=gap + 1)]
        letters[0] = letters[-1] = VOCAB[a]
        out.append(("".join(letters), letters[1]))
    return out


def test_layer1_distance_limit_in_predictions():
    text = page_text(LAYER1_PAGE)
    g = r"\\\(g = (\d+)\\\)"
    m = stated(rf"{g} letters apart the head is right (\d+) times out of (\d+); at\s+"
               rf"{g}, (\d+) times; at {g}, (\d+) times", text)  # fmt: skip
    n = int(m.group(3))
    assert n == 10 and "(NumPy seed 0)" in text
    for gap, hits in ((m.group(1), m.group(2)), (m.group(4), m.group(5)), (m.group(6), m.group(7))):
        got = sum(forward(t).prediction == b for t, b in _spaced_prompts(int(gap), n))
        assert got == int(hits), gap


def test_layer1_two_earlier_copies_example():
    text = page_text(LAYER1_PAGE)
    m = stated(r"In ([a-z]+) the two earlier k's are followed by ([a-z]) and ([a-z]), and the\s+"
               r"model predicts ([a-z]), a letter that never follows k, with probability "
               r"(0\.\d+)", text)  # fmt: skip
    prompt = m.group(1)
    tr = forward(prompt)
    follow = {prompt[i + 1] for i in range(len(prompt) - 1) if prompt[i] == "k"}
    assert follow == {m.group(2), m.group(3)}
    assert tr.prediction == m.group(4) and m.group(4) not in follow
    assert round(float(tr.probs[-1].max()), 2) == float(m.group(5))


def test_layer1_no_earlier_copy_falls_back_to_nearest_letter():
    from rope_explained.embedding import letter_angle

    for prompt in ("abcdefg", "qwertyu", "thequick"):
        tr = forward(prompt)
        q = len(tr.tokens) - 1
        n = int(np.argmax(tr.A1[q]))
        a = letter_angle(tr.tokens[q])
        dist = [abs(np.angle(np.exp(1j * (a - letter_angle(tr.tokens[k - 1])))))
                for k in range(2, q + 1)]  # fmt: skip
        assert n - 2 == int(np.argmin(dist))
        assert tr.prediction == tr.tokens[n]


def test_complete_page_example():
    from rope_explained.figures.equations.forward_pass import PROMPT

    text = page_text(COMPLETE_PAGE)
    assert stated(r"The running example is the prompt \*\*([a-z]+)\*\*", text).group(1) == PROMPT
    tr = forward(PROMPT)
    want = stated(r"an induction circuit should predict \*\*([a-z])\*\*", text).group(1)
    assert tr.prediction == want
    p = stated(r"gives a probability of (0\.\d+) to ([a-z]) and most of the rest to ([a-z]) "
               r"and ([a-z])", text)  # fmt: skip
    probs = tr.probs[-1]
    assert p.group(2) == want and round(float(probs.max()), 2) == float(p.group(1))
    nb = [tr.vocab.index(p.group(3)), tr.vocab.index(p.group(4))]
    assert probs[nb].sum() > 0.9 * (1 - probs.max())
    pos = int(stated(r"puts its\s+weight on position (\d+), the a of", text).group(1))
    assert int(np.argmax(tr.A1[-1])) == pos and tr.tokens[pos] == want
    assert tr.tokens[pos - 1] == tr.tokens[-1]
    wrong = stated(r"the rank-1 head attends to the wrong key and\s+predicts ([a-z]) instead", text)
    assert forward(PROMPT, head="rank1").prediction == wrong.group(1) != want
    bound = stated(r"the weight on \\\(m-1\\\) is at\s+least (0\.\d+) in every row", text).group(1)
    assert np.diag(tr.A0, k=-1).min() >= float(bound)
    spare = int(stated(r"D - 3d - 1 = (\d+)", text).group(1))
    cfg = tr.config
    assert spare == cfg.D - 3 * cfg.d - 1
    assert np.all(tr.h2[:, 3 * cfg.d + 1 :] == 0)


def test_complete_readout_numbers():
    text = page_text(COMPLETE_PAGE)
    gamma = stated(r"\\gamma\\cos\(a_v - a_B\)\\\) with \\\(\\gamma = (\d+)\\\)", text)
    gamma = int(gamma.group(1))
    tr = forward("thecatsatthec")
    assert gamma == tr.config.gamma
    m = stated(r"\\approx (\d\.\d)\\\) in logit,\s+so each keeps about \\\(e\^\{-\d\.\d\} "
               r"\\approx (0\.\d+)\\\)", text)  # fmt: skip
    gap = gamma * (1 - np.cos(np.pi / 13))
    assert round(gap, 1) == float(m.group(1))
    assert round(np.exp(-gap), 2) == float(m.group(2))
    logits = tr.logits[-1]
    assert logits.max() - np.sort(logits)[-2] == pytest.approx(gap, rel=1e-3)


def test_complete_code_listing_and_table():
    import dataclasses

    from rope_explained.model import Trace

    root = DOCS.parent
    source = (root / "rope_explained" / "model.py").read_text(encoding="utf-8")
    start = source.index("# --8<-- [start:forward]\n")
    end = source.index("# --8<-- [end:forward]")
    section = source[start:end]
    assert section.count("\ndef forward(") == 1 and "return Trace(" in section
    text = page_text(COMPLETE_PAGE)
    assert '--8<-- "rope_explained/model.py:forward"' in text
    rows = re.findall(r"\n\| (`[^\n]*?) \| ([^|\n]+) \| ([^|\n]+) \|", text)
    fields = {f.name for f in dataclasses.fields(Trace)}
    named = set()
    for code, trace_names, eqs in rows:
        for snippet in re.findall(r"`([^`]+)`", code):
            assert snippet in section, snippet  # the line really is in forward()
        named |= set(re.findall(r"`(\w+)`", trace_names))
        assert re.search(r'\{\{ eq\("[a-z0-9-]+"\) \}\}', eqs)
    arrays = {"h0", "k0_pre", "q0_pre", "k0", "q0", "scores0", "A0", "v0", "o0", "h1",
              "k1_pre", "q1_pre", "k1", "q1", "scores1", "A1", "v1", "o1", "h2", "logits",
              "probs"}  # fmt: skip
    assert arrays <= fields and named == arrays


# --- equations/token-embedding.md ---------------------------------------------------------------

EMBEDDING_PAGE = "equations/token-embedding.md"


def _flat(text: str) -> str:
    """A page's text with every run of white space (line breaks, indentation) as one space."""
    return re.sub(r"\s+", " ", text)


def _num(s: str) -> float:
    """A number as a page writes it: '47{,}117' or '20,000' or '0.971'."""
    return float(s.replace("{,}", "").replace(",", ""))


def test_embedding_page_period_26():
    from rope_explained.embedding import VOCAB, embed_index, embedding_matrix

    text = _flat(page_text(EMBEDDING_PAGE))
    assert stated(r"has period (\d+)", text).group(1) == "26"
    stated(r"26 \\cdot \\pi/13 = 2\\pi", text)
    assert np.isclose(26 * np.pi / 13, 2 * np.pi)
    k = np.arange(-30, 60)
    assert np.allclose(embed_index(k + 26, 64), embed_index(k, 64), atol=1e-12)
    # 26 distinct vectors, one per letter: no two letters closer than the neighbour distance
    E = embedding_matrix(64)
    dist = np.linalg.norm(E[:, None, :] - E[None, :, :], axis=-1)
    assert len(VOCAB) == 26 and dist[~np.eye(26, dtype=bool)].min() > 0.5
    # the 27th token (index 26) would get the vector of "a"; distance zero again at 52
    zeros = [
        int(z)
        for z in stated(r"returns to zero at \\\(k = (\d+)\\\) and \\\(k = (\d+)", text).groups()
    ]
    assert zeros == [26, 52]
    for z in zeros:
        assert np.linalg.norm(embed_index(z, 64) - embed_index(0, 64)) < 1e-12
    # the what-if: a step of pi/20 gives period 40
    assert stated(r"\\pi/20\\\) instead of \\\(\\pi/13\\\), the period would be (\d+)", text).group(
        1
    ) == str(round(2 * np.pi / (np.pi / 20)))


def test_embedding_page_rank_two_and_singular_values():
    from rope_explained.embedding import embedding_matrix

    text = _flat(page_text(EMBEDDING_PAGE))
    s = np.linalg.svd(embedding_matrix(64), compute_uv=False)
    s1 = stated(r"\\sigma_1 = ([0-9.]+)", text).group(1)
    s2 = stated(r"\\sigma_2 = ([0-9.]+)", text).group(1)
    assert f"{s[0]:.2f}" == s1 and f"{s[1]:.2f}" == s2
    exponent = int(stated(r"other 24 are below \\\(10\^\{(-\d+)\}", text).group(1))
    assert s.size == 26 and np.all(s[2:] < 10.0**exponent) and s[1] > 1.0
    stated(r"rank of \\\(E\\\) is 2 for every", text)
    for d in (2, 4, 16, 64, 256):
        assert np.linalg.matrix_rank(embedding_matrix(d)) == 2


def test_embedding_page_plane_and_similarity():
    from rope_explained.embedding import (
        VOCAB,
        embedding_matrix,
        letter_angle,
        plane_basis,
        plane_reader,
    )

    text = _flat(page_text(EMBEDDING_PAGE))
    E, B, P = embedding_matrix(64), plane_basis(64), plane_reader(64)
    a = np.array([letter_angle(t) for t in VOCAB])
    # E[t] = 1/2 (cos a_t S + sin a_t C), and P reads (cos a_t, sin a_t)
    assert np.allclose(E, 0.5 * (np.cos(a)[:, None] * B[0] + np.sin(a)[:, None] * B[1]))
    assert np.allclose(E @ P.T, np.stack([np.cos(a), np.sin(a)], axis=1))
    stated(r"P S = \(2, 0\)\^T\\\) and \\\(P C = \(0, 2\)\^T", text)
    assert np.allclose(P @ B.T, 2 * np.eye(2))
    # neighbours: cos(pi/13)
    assert stated(r"\\cos\(\\pi/13\) = ([0-9.]+)", text).group(1) == f"{np.cos(np.pi / 13):.3f}"
    # 'n' is exactly -E[a]
    stated(r'"n" is exactly \\\(-E\[\\text\{a\}\]', text)
    assert np.allclose(E[VOCAB.index("n")], -E[0], atol=1e-15)
    # raw cosine similarity within the stated tolerance of cos(a_s - a_t)
    tol = float(stated(r"within ([0-9.]+) of \\\(\\cos\(a_s - a_t\)", text).group(1))
    n = np.linalg.norm(E, axis=1)
    sim = (E @ E.T) / np.outer(n, n)
    dev = np.abs(sim - np.cos(a[:, None] - a[None, :])).max()
    assert 0.001 < dev < tol  # a real, small deviation, below what the page says
    # |S| and |C|
    norm_s = stated(r"\\\|S\\\| = ([0-9.]+)", text).group(1)
    norm_c = stated(r"\\\|C\\\| = ([0-9.]+)", text).group(1)
    assert f"{np.linalg.norm(B[0]):.2f}" == norm_s and f"{np.linalg.norm(B[1]):.2f}" == norm_c
    # "a" plus "c" is 2 cos(pi/13) E[b] = 1.94 E[b]
    factor = stated(r"= ([0-9.]+)\\,E\[\\text\{b\}\]", text).group(1)
    assert np.allclose(E[0] + E[2], 2 * np.cos(np.pi / 13) * E[1])
    assert f"{2 * np.cos(np.pi / 13):.2f}" == factor


def test_embedding_page_runner_up_letters():
    text = _flat(page_text(EMBEDDING_PAGE))
    m = stated(
        r'After the input "([a-z]+)", the model gives "([a-z])" a probability of ([0-9.]+), '
        r'and "([a-z])" and "([a-z])" get ([0-9.]+) each',
        text,
    )
    prompt, top, p_top, n1, n2, p_n = m.groups()
    tr = forward(prompt)
    probs = dict(zip(tr.vocab, tr.probs[-1], strict=True))
    assert tr.prediction == top and f"{probs[top]:.3f}" == p_top
    assert f"{probs[n1]:.3f}" == p_n and f"{probs[n2]:.3f}" == p_n
    # they are the runners-up, and alphabet neighbours of the top letter
    ranked = sorted(probs, key=probs.get, reverse=True)
    assert set(ranked[1:3]) == {n1, n2}
    assert {abs(ord(n1) - ord(top)), abs(ord(n2) - ord(top))} == {1}


def test_embedding_page_residual_stream_layout():
    from rope_explained.embedding import BOS, VOCAB, embedding_matrix
    from rope_explained.heads import Slots
    from rope_explained.model import Config

    text = _flat(page_text(EMBEDDING_PAGE))
    cfg = Config()
    assert int(stated(r"\\\(D = (\d+)\\\) numbers", text).group(1)) == cfg.D
    assert int(stated(r"keeps \\\(d = (\d+)\\\) for those", text).group(1)) == cfg.d
    s = Slots(cfg.d)
    expected = {
        "bias": (s.bias, s.bias),
        "tok": (s.tok.start, s.tok.stop - 1),
        "prev": (s.prev.start, s.prev.stop - 1),
        "out": (s.out.start, s.out.stop - 1),
        "unused": (s.out.stop, cfg.D - 1),
    }
    for name, (lo, hi) in expected.items():
        cell = stated(rf"\n\| {name} \| ([0-9–]+) \|", page_text(EMBEDDING_PAGE)).group(1)
        got = tuple(int(v) for v in cell.split("–")) if "–" in cell else (int(cell), int(cell))
        assert got == (lo, hi), name
    tr = forward("abcab")
    assert tr.tokens[0] == BOS and tr.h0.shape[1] == cfg.D
    assert np.all(tr.h0[:, s.bias] == 1.0)
    assert np.all(tr.h0[0, 1:] == 0.0)  # <s>: zero embedding, only the bias
    E = embedding_matrix(cfg.d)
    for m, t in enumerate(tr.tokens[1:], start=1):
        assert np.allclose(tr.h0[m, s.tok], E[VOCAB.index(t)])
    assert np.all(tr.h0[:, s.tok.stop :] == 0.0)
    # the layers write into prev and out
    assert np.abs(tr.h2[2:, s.prev]).max() > 0.1 and np.abs(tr.h2[-1, s.out]).max() > 0.1
    # W_k reads only the bias coordinate: W_k h = c for every h with h[0] = 1
    W_k = tr.weights.L0.W_k
    rng = np.random.default_rng(0)
    h = rng.standard_normal((5, cfg.D))
    h[:, 0] = 1.0
    assert np.allclose(h @ W_k.T, W_k[:, 0])
    stated(r"positions 1 to 5", text)
    assert len(tr.tokens) - 1 == 5


def test_embedding_page_start_token():
    text = _flat(page_text(EMBEDDING_PAGE))
    weight = stated(r"first letter puts a weight of ([0-9.]+) on position 0", text).group(1)
    tr = forward("abcab")
    s = tr.slots
    assert f"{tr.A0[1, 0]:.5f}" == weight
    # the first letter copies <s>'s zero vector: its prev slot is (nearly) empty
    assert np.linalg.norm(tr.h1[1, s.prev]) < 1e-3 < np.linalg.norm(tr.h1[2, s.prev])
    # without <s>, the first letter can only attend to itself and copies its own embedding
    tr0 = forward("abcab", bos=False)
    assert tr0.A0[0, 0] == 1.0
    assert np.allclose(tr0.h1[0, s.prev], tr0.h0[0, s.tok])


# --- equations/rope.md --------------------------------------------------------------------------

ROPE_PAGE = "equations/rope.md"


def test_rope_page_frequency_schedule():
    from rope_explained.rope import frequencies

    text = _flat(page_text(ROPE_PAGE))
    d = int(stated(r"head size of this site, \\\(d = (\d+)\\\)", text).group(1))
    theta = frequencies(d)
    assert stated(r"\\\(\\theta_0 = (\d+)\\\)", text).group(1) == "1" and theta[0] == 1.0
    m = stated(
        r"there are (\d+) pairs, and the slowest has \\\(\\theta_\{(\d+)\} = ([0-9.]+) "
        r"\\times 10\^\{(-\d+)\}",
        text,
    )
    n_pairs, last, mant, exp = m.groups()
    assert int(n_pairs) == theta.size == d // 2 and int(last) == d // 2 - 1
    assert f"{theta[-1] / 10.0 ** int(exp):.2f}" == mant
    ratio = stated(r"that factor is ([0-9.]+)", text).group(1)
    assert np.allclose(theta[:-1] / theta[1:], 10000 ** (2 / d))
    assert f"{10000 ** (2 / d):.2f}" == ratio
    stated(r"Eight pairs further down the list, the frequency is ten times smaller", text)
    assert np.allclose(theta[:-8] / theta[8:], 10.0)
    lam = 2 * np.pi / theta
    lam0 = stated(r"\\lambda_0 = ([0-9.]+)\\\)", text).group(1)
    lam_last = stated(r"\\lambda_\{31\} = ([0-9{},]+)\\\)", text).group(1)
    assert f"{lam[0]:.2f}" == lam0 and round(lam[-1]) == _num(lam_last)
    # "Pair 0 has gone round almost four times after 24 positions"
    turns = 24 * theta[0] / (2 * np.pi)
    stated(r"almost four times after 24 positions", text)
    assert 3.5 < turns < 4.0
    # base 100: the slowest pair repeats after "a few hundred" positions
    stated(r"Base 100 makes the slowest pair repeat after a few hundred", text)
    assert 200 < 2 * np.pi / frequencies(d, 100.0)[-1] < 1000


def test_rope_page_aliasing_and_runner_up():
    from rope_explained.heads import constant_key_vector
    from rope_explained.rope import apply_rope, frequencies

    text = _flat(page_text(ROPE_PAGE))
    d = 64
    c = constant_key_vector(d)
    period = int(stated(r"with \\\(\\theta = 2\\pi/(\d+)\\\), an offset of (\d+)", text).group(1))
    delta = np.arange(0, 4 * period + 1, dtype=float)
    same = np.full(d // 2, 2 * np.pi / period)
    score = apply_rope(np.tile(c, (delta.size, 1)), delta, inv_freq=same) @ c
    assert np.allclose(score, d / 2 * np.cos(delta * 2 * np.pi / period))  # the equation
    assert np.isclose(score[period], d / 2) and np.isclose(score[0], d / 2)
    # the RoPE spectrum: maximum only at 0, runner-up at Delta = 1
    horizon = int(_num(stated(r"no offset from 1 to ([0-9,]+) comes closer", text).group(1)))
    dl = np.arange(1, horizon + 1, dtype=float)
    rope_score = np.cos(dl[:, None] * frequencies(d)[None, :]).sum(axis=1) / (d / 2)
    first = stated(r"at \\\(\\Delta = 1\\\) the score is still ([0-9.]+) of the maximum", text)
    assert f"{rope_score[0]:.3f}" == first.group(1)
    assert int(np.argmax(rope_score)) == 0 and rope_score.max() < 1 - 1e-3
    K = apply_rope(np.tile(c, (51, 1)), np.arange(51.0))
    assert np.allclose(K @ c / (d / 2), np.r_[1.0, rope_score[:50]])


def test_rope_page_identities_hold():
    from rope_explained.rope import apply_rope, rotation_matrix

    text = _flat(page_text(ROPE_PAGE))
    for label in (
        "norm-preservation",
        "rotation-sum",
        "composition",
        "relative-score",
        "layout-permutation",
    ):
        stated(rf"% eq: {label}\n", page_text(ROPE_PAGE))
    d = 16
    rng = np.random.default_rng(1)
    v = rng.standard_normal(d)
    for a, b in [(0, 0), (3, 5), (-7, 2), (100, -98), (2.5, 0.25)]:
        Ra, Rb = rotation_matrix(a, d), rotation_matrix(b, d)
        assert np.isclose(np.linalg.norm(Ra @ v), np.linalg.norm(v))
        assert np.allclose(Ra @ Rb, rotation_matrix(a + b, d), atol=1e-12)
        assert np.allclose(Ra.T @ Rb, rotation_matrix(b - a, d), atol=1e-12)
        assert np.allclose(Ra.T, rotation_matrix(-a, d), atol=1e-12)
    assert np.allclose(rotation_matrix(0, d), np.eye(d))
    # q at 5 vs k at 3 sees what q at 100 sees vs k at 98
    stated(
        r"position 5 looking at a key at position 3 sees exactly what a query at position "
        r"100 sees looking at position 98",
        text,
    )
    q, k = rng.standard_normal((2, d))
    s1 = apply_rope(q[None], [5.0]) @ apply_rope(k[None], [3.0]).T
    s2 = apply_rope(q[None], [100.0]) @ apply_rope(k[None], [98.0]).T
    assert np.isclose(s1, s2)
    # layouts: rope_half(x) = Pi^T rope_interleaved(Pi x)
    # with (Pi x)_{2i} = x_i and (Pi x)_{2i+1} = x_{i+d/2}
    Pi = np.zeros((d, d))
    i = np.arange(d // 2)
    Pi[2 * i, i] = 1.0
    Pi[2 * i + 1, i + d // 2] = 1.0
    X = rng.standard_normal((6, d))
    pos = np.array([0.0, 1.0, 2.0, 7.0, 50.0, -3.0])
    half = apply_rope(X, pos, layout="half")
    inter = apply_rope(X @ Pi.T, pos, layout="interleaved") @ Pi
    assert np.allclose(half, inter)
    assert not np.allclose(half, apply_rope(X, pos, layout="interleaved"))


def test_rope_page_code_listing_is_the_real_function():
    import inspect

    from rope_explained import rope

    text = _flat(page_text(ROPE_PAGE))
    stated(r'--8<-- "rope_explained/rope\.py:apply_rope"', text)
    src = Path(rope.__file__).read_text(encoding="utf-8")
    assert src.count("# --8<-- [start:apply_rope]") == 1
    assert src.count("# --8<-- [end:apply_rope]") == 1
    section = src.split("# --8<-- [start:apply_rope]")[1].split("# --8<-- [end:apply_rope]")[0]
    assert section.strip() == inspect.getsource(rope.apply_rope).strip()
    stated(r"Su, Lu, Pan, Murtadha, Wen and Liu", text)
    stated(r"arXiv:2104\.09864", text)


def test_embedding_and_rope_captions_state_true_numbers():
    from rope_explained.figures import get
    from rope_explained.rope import frequencies

    theta = frequencies(64)
    cap = get("rope-frequencies").caption
    assert "47,117" in cap and f"{round(2 * np.pi / theta[-1]):,}" == "47,117"
    assert "6.3 positions" in cap and f"{2 * np.pi / theta[0]:.1f}" == "6.3"
    cap = get("rope-turning").caption
    assert "almost four times" in cap and 3.5 < 24 / (2 * np.pi) < 4.0
    cap = get("embedding-residual-stream").caption
    assert r"\(D = 256\)" in cap and forward("abcab").h0.shape[1] == 256
    cap = get("rope-aliasing").caption
    assert r"\theta = 2\pi/16" in cap and "every 16 positions" in cap


def test_forward_pass_induction_rows_find_their_matches():
    """Step 9 and the home figure: a row whose letter occurred before puts its weight on the keys
    that follow the earlier copies (shared when there are several); other rows have no match."""
    tr = _fp_trace()
    toks = tr.tokens
    for m in range(1, len(toks)):
        matches = [n for n in range(1, m + 1) if toks[n - 1] == toks[m]]
        seen_before = toks[m] in toks[1:m]
        assert bool(matches) == seen_before
        if len(matches) == 1:
            assert tr.A1[m, matches[0]] > 0.999
        elif matches:
            assert tr.A1[m, matches].sum() > 0.99
            assert tr.A1[m, matches].max() < 0.9  # really shared, not one winner


# --- playground.md ------------------------------------------------------------------------------

PLAYGROUND_PAGE = "playground.md"


def test_playground_slow_pair_turns_a_letter_step():
    """'At base 1000 that pair turns through a whole letter step in about 195 positions ...
    At base 10 000 the same turn takes about 1812 positions'."""
    from rope_explained.rope import frequencies

    text = page_text(PLAYGROUND_PAGE)
    at_1000 = int(stated(r"whole letter step in about (\d+)\s+positions", text).group(1))
    at_10000 = int(
        stated(r"At base 10 000 the same turn takes about (\d+) positions", text).group(1)
    )
    for base, stated_len in ((1000.0, at_1000), (10000.0, at_10000)):
        assert stated_len == round((np.pi / 13) / frequencies(64, base)[-1])
    assert at_10000 > 256  # "longer than any text here"


def test_playground_reference_set_spans_what_the_page_says():
    """The parity cases span one letter to the longest text, both heads, and the whole range
    of the alpha and base sliders."""
    from playground_cases import reference_cases

    from rope_explained.examples import ALPHA_RANGE, BASE_RANGE, MAX_LETTERS

    text = page_text(PLAYGROUND_PAGE)
    stated(r"from one letter to 256, both heads", text)
    assert MAX_LETTERS == int(stated(r"at most (\d+) letters", text).group(1))
    cases = reference_cases()
    lengths = [len(c["text"]) for c in cases]
    alphas = [c["config"].get("alpha", 10.0) for c in cases]
    bases = [c["config"].get("base", 10000.0) for c in cases]
    assert (min(lengths), max(lengths)) == (1, MAX_LETTERS)
    assert (min(alphas), max(alphas)) == ALPHA_RANGE
    assert (min(bases), max(bases)) == BASE_RANGE
    assert {c["config"].get("head", "induction") for c in cases} == {"induction", "rank1"}


def test_playground_alpha_band_is_saturated_from_ten():
    """'from about 10 on it is already as sharp as the colour map can show' (256 colours), and
    'on the opening prompt the prediction stops being a' towards alpha = 0.1."""
    from rope_explained.examples import OPENING_PROMPT

    text = page_text(PLAYGROUND_PAGE)
    stated(r"from about\s+10 on it is already as sharp as the colour map can show", text)
    stated(r"the prediction stops being `a`", text)

    def band(alpha):
        tr = forward(OPENING_PROMPT, alpha=alpha)
        return np.array([tr.A0[m, m - 1] for m in range(1, len(tr.tokens))])

    assert np.all(np.floor(band(10.0) * 256) >= 255)  # the top colour of the map
    assert not np.all(np.floor(band(3.0) * 256) >= 255)
    assert forward(OPENING_PROMPT).prediction == "a"
    assert forward(OPENING_PROMPT, alpha=0.1).prediction != "a"


def test_playground_never_seen_letter_example():
    """'after abcdez it picks the b that follows an a'."""
    text = page_text(PLAYGROUND_PAGE)
    stated(r"after `abcdez` it picks the `b` that follows an `a`", text)
    tr = forward("abcdez")
    n = int(np.argmax(tr.A1[-1]))
    assert tr.tokens[n] == "b" and tr.tokens[n - 1] == "a"


# --- paper-to-code/roformer.py (a jupytext notebook; its Markdown cells are comment lines) ------


def _notebook_prose(path: str) -> str:
    import jupytext

    cells = jupytext.read(DOCS / path).cells
    return " ".join(" ".join(c.source for c in cells if c.cell_type == "markdown").split())


def test_paper_context_extension_numbers():
    from rope_explained import frequencies, scaled_frequencies

    text = _notebook_prose("paper-to-code/roformer.py")
    d, L, s = 128, 2048, 4.0
    theta = frequencies(d)
    slow = 2 * np.pi / theta > L
    over = {"original": np.full(slow.sum(), s)}
    inv = {}
    for method in ("linear", "ntk", "yarn"):
        inv[method], _ = scaled_frequencies(d, method=method, factor=s, original_max_position=L)
        over[method] = (s * inv[method][slow]) / theta[slow]
    n_slow = int(stated(r"drives (\d+) slow pairs up to four times", text).group(1))
    assert n_slow == int(slow.sum())
    assert float(stated(r"from 1 to ([0-9.]+) radians", text).group(1)) == inv["linear"][0]
    ntk = float(stated(r"worst overshoot from 4 to about ([0-9.]+)", text).group(1))
    assert ntk == round(float(over["ntk"].max()), 1)
    assert over["linear"].max() == pytest.approx(1.0) and over["yarn"].max() == pytest.approx(1.0)


def test_paper_decay_caption_numbers():
    from rope_explained import frequencies
    from rope_explained.figures import get

    caption = get("paper-long-term-decay").caption
    theta = frequencies(128)
    r = np.arange(513)
    expected = np.cos(r[:, None] * theta).mean(axis=1)  # E[score(k = q)] / score at 0
    stated(r"about half of their score at distance 50", caption)
    assert 0.45 < expected[50] < 0.6
    stated(r"about a quarter, with ripples, near 500", caption)
    assert 0.2 < expected[450:].mean() < 0.3
    bound = np.abs(np.cumsum(np.exp(1j * r[:, None] * theta), axis=1)).mean(axis=1)
    alt = get("paper-long-term-decay").alt
    assert f"starts at {bound[0]:.1f}" in alt and round(bound[100]) == 10
