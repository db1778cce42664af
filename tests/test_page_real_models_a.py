"""The numbers of the pages deriving-rope, conventions and partial-rotary (section "RoPE in
real models"), each recomputed by another route than the value function's, and the claims the
pages make about them. (That every value is stated on its page, and only there, is checked for
every page by test_page_claims.py.)"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from pages import number, value

from rope_explained import figures
from rope_explained.embedding import VOCAB, embedding_matrix
from rope_explained.examples import LONG_PROMPT
from rope_explained.experiments import induction_prompts
from rope_explained.figures.real_models import conventions as conv_page
from rope_explained.figures.real_models import deriving_rope as deriving_page
from rope_explained.figures.real_models import partial_rotary as partial_page
from rope_explained.model import forward, predict_last
from rope_explained.rope import apply_rope_matrix, frequencies, rotation_matrix

figures.load_all()


def agrees(value_id: str, x: float, rounding: str = "nearest") -> None:
    text = value(value_id)
    decimals = len(text.split(".")[1]) if "." in text else 0
    unit = 10.0**-decimals
    v = number(text)
    if rounding == "down":
        ok = v - 1e-12 <= x < v + unit + 1e-12
    else:
        ok = abs(v - x) <= unit / 2 + 1e-12
    assert ok, f"{value_id} prints {text!r}; recomputed {x!r}"


# --- deriving RoPE: the additive score from the formula, the RoPE score from the matrix ---------


@functools.cache
def additive_and_rope() -> tuple[np.ndarray, np.ndarray]:
    """Scores of a (query at m) over b (key at m - 1), m = 1..47, from scratch."""
    s = deriving_page.SETTINGS
    d, T = 64, s["T"]
    rng = np.random.default_rng(s["seed"])
    W_q, W_k = rng.standard_normal((2, d, d)) / math.sqrt(d)
    E = embedding_matrix(d)
    x, y = (E[VOCAB.index(s[k])] for k in ("query_letter", "key_letter"))
    x, y = x * math.sqrt(d / 2) / np.linalg.norm(x), y * math.sqrt(d / 2) / np.linalg.norm(y)
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    p = np.zeros((T, d))
    p[:, 0::2] = np.sin(np.arange(T)[:, None] * omega)
    p[:, 1::2] = np.cos(np.arange(T)[:, None] * omega)
    m = np.arange(1, T)
    additive = np.array([(x + p[i]) @ W_q.T @ W_k @ (y + p[i - 1]) for i in m])
    rope = np.array(
        [(rotation_matrix(i, d) @ W_q @ x) @ (rotation_matrix(i - 1, d) @ W_k @ y) for i in m]
    )
    return additive, rope


def test_deriving_values():
    additive, rope = additive_and_rope()
    agrees("deriving-additive-low", additive.min())
    agrees("deriving-additive-high", additive.max())
    agrees("deriving-rope-score", rope.mean())
    # "the same at every position, to within" the printed spread: rounding only
    assert np.ptp(rope) < number(value("deriving-rope-spread")) <= 1e-12
    # and the additive score really wanders: by more than the RoPE score's own size
    assert np.ptp(additive) > abs(rope.mean())


# --- conventions -------------------------------------------------------------------------------


@functools.cache
def benchmark_predictions(layout: str, weights_layout: str) -> list[tuple[str, str, str]]:
    """(prediction, answer, last letter) on the page's prompts under one convention."""
    prompts = induction_prompts(conv_page.N_PROMPTS)
    cfg = {"layout": layout, "weights_layout": weights_layout}
    return [(predict_last(p.text, **cfg).prediction, p.answer, p.text[-1]) for p in prompts]


def test_conventions_layer0_values():
    text = conv_page.TEXT
    assert text == LONG_PROMPT
    for suffix, cfg in (
        ("wrong", {"layout": "half", "weights_layout": "interleaved"}),
        ("reverse", {"layout": "interleaved", "weights_layout": "half"}),
    ):
        A0 = forward(text, **cfg).A0
        T = A0.shape[0]
        agrees(f"conventions-previous-{suffix}", np.mean([A0[m, m - 1] for m in range(1, T)]))
        agrees(f"conventions-itself-{suffix}", np.mean([A0[m, m] for m in range(1, T)]))
    A0 = forward(text, layout="half").A0
    agrees("conventions-previous-right", np.mean(np.diag(A0, -1)))


def test_conventions_benchmark_values():
    assert value("conventions-n-prompts") == str(conv_page.N_PROMPTS)
    wrong = benchmark_predictions("half", "interleaved")
    right = benchmark_predictions("half", "half")
    agrees("conventions-accuracy-wrong", 100 * np.mean([p == a for p, a, _ in wrong]))
    agrees("conventions-accuracy-right", 100 * np.mean([p == a for p, a, _ in right]))
    agrees("conventions-echo-wrong", 100 * np.mean([p == last for p, _, last in wrong]))


def test_conventions_layout_and_listing_values():
    a, b = forward(conv_page.PROMPT), forward(conv_page.PROMPT, layout="half")
    diff = max(np.abs(getattr(a, n) - getattr(b, n)).max() for n in ("A0", "A1", "probs"))
    assert diff <= 1e-12
    assert diff < number(value("conventions-layout-difference")) <= 1e-12
    # the listings against the matrix path (apply_rope_matrix), on the page's inputs
    cfg = conv_page.LISTING
    assert value("conventions-listing-positions") == str(cfg["seq"])
    rng = np.random.default_rng(cfg["seed"])
    x = rng.standard_normal((cfg["seq"], cfg["d"]))
    pos = np.arange(cfg["seq"], dtype=float)
    ref = apply_rope_matrix(x, pos)
    from rope_explained.conventions import rope_complex, rope_rotate_half  # noqa: PLC0415

    assert np.abs(rope_complex(x, pos) - ref).max() < number(value("conventions-listing-complex"))
    perm = np.concatenate([np.arange(0, cfg["d"], 2), np.arange(1, cfg["d"], 2)])
    # rotate-half of the reordered coordinates is interleaved, reordered the same way
    assert np.abs(rope_rotate_half(x[:, perm], pos) - ref[:, perm]).max() < number(
        value("conventions-listing-rotate-half")
    )
    for key in ("complex", "rotate-half"):
        assert number(value(f"conventions-listing-{key}")) <= 1e-12


# --- partial rotary: layer 0 from its score formula, accuracy from the benchmark -----------------


def formula_previous_min(theta: np.ndarray, T: int, alpha: float = 10.0) -> float:
    """min over m of the attention on m - 1, from softmax of alpha sum_i cos((n-m+1) theta_i)."""
    worst = 1.0
    for m in range(1, T):
        offsets = np.arange(m + 1) - m + 1.0
        s = alpha * np.cos(np.outer(offsets, theta)).sum(axis=1)
        w = np.exp(s - s.max())
        worst = min(worst, w[m - 1] / w.sum())
    return worst


@pytest.mark.parametrize(
    ("variant", "r"), [("neox", 16), ("neox", 8), ("fastest", 8), ("fastest", 4)]
)
def test_partial_values(variant, r):
    theta = frequencies(r) if variant == "neox" else frequencies(64)[: r // 2]
    T = len(partial_page.TEXT) + 1
    agrees(f"partial-{variant}-{r}-previous", formula_previous_min(theta, T), rounding="down")
    base = 10000.0 ** (r / 64) if variant == "fastest" else 10000.0
    prompts = induction_prompts(partial_page.N_PROMPTS)
    hits = [predict_last(p.text, rotary_pct=r / 64, base=base).prediction == p.answer
            for p in prompts]  # fmt: skip
    agrees(f"partial-{variant}-{r}-accuracy", 100 * np.mean(hits))
    assert value("partial-n-prompts") == str(partial_page.N_PROMPTS)


def test_partial_claims():
    """The page: the quarter works, 8 coordinates break GPT-NeoX's head but not the
    fastest-pairs head, 4 break both; accuracy is perfect exactly where layer 0 holds."""
    neox, fastest = partial_page.sweep("neox"), partial_page.sweep("fastest")
    dims = list(neox["rotary_dims"])
    at = {r: dims.index(r) for r in (64, 16, 8, 4)}
    assert neox["previous_min"][at[16]] > 0.95 and neox["accuracy"][at[16]] == 1.0
    assert neox["previous_min"][at[8]] < 0.9 and neox["accuracy"][at[8]] < 0.5
    assert fastest["previous_min"][at[8]] > 0.95 and fastest["accuracy"][at[8]] == 1.0
    assert fastest["previous_min"][at[4]] < 0.5 and fastest["accuracy"][at[4]] < 0.5
    for s in (neox, fastest):
        works = s["previous_min"] > 0.95
        assert (s["accuracy"][works] == 1.0).all()
    # the fastest-pairs ladder at r = 8 is 10^(-i/8), GPT-NeoX's is 10^(-i)
    np.testing.assert_allclose(frequencies(8), 10.0 ** -np.arange(4.0))
    np.testing.assert_allclose(frequencies(64)[:4], 10.0 ** (-np.arange(4.0) / 8))


# --- the derivation's algebra and the sentences around it ---------------------------------------


def test_complex_solution_is_the_rotation_and_its_real_part_the_relative_score():
    """Eq. solution-2d: Re[(W_q x) e^{im theta} conj((W_k x) e^{in theta})] equals
    u^T R_{n-m} v and depends on m - n only; its length is |u| |v| at every position."""
    rng = np.random.default_rng(1)
    u, v = rng.standard_normal((2, 2))
    theta = 0.7
    zu, zv = complex(*u), complex(*v)
    for m, n in ((0, 0), (3, 1), (10, 8), (5, 9), (105, 109)):
        z = zu * np.exp(1j * m * theta) * np.conj(zv * np.exp(1j * n * theta))
        a = (n - m) * theta
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        assert z.real == pytest.approx(u @ R @ v, abs=1e-12)
        assert z == pytest.approx(zu * np.conj(zv) * np.exp(1j * (m - n) * theta), abs=1e-12)
        assert abs(z) == pytest.approx(np.linalg.norm(u) * np.linalg.norm(v))


def test_sinusoid_at_m_plus_k_is_a_fixed_rotation_of_the_sinusoid_at_m():
    """The What if box: p_{m+k} is a linear function of p_m, each pair turned by k theta_i."""
    from rope_explained.sinusoidal import sinusoidal_positions  # noqa: PLC0415

    d, T, k = 16, 40, 5
    p = sinusoidal_positions(T, d)
    b = k * frequencies(d)
    # (sin a, cos a) -> (sin(a + b), cos(a + b)): the matrix [[cos b, sin b], [-sin b, cos b]]
    s, c = p[:-k, 0::2], p[:-k, 1::2]
    np.testing.assert_allclose(p[k:, 0::2], np.cos(b) * s + np.sin(b) * c, atol=1e-12)
    np.testing.assert_allclose(p[k:, 1::2], -np.sin(b) * s + np.cos(b) * c, atol=1e-12)


def test_wrong_convention_previous_token_score_peaks_at_the_query():
    """The conventions page: under rotate-half, pair i joins coordinates i and i + 32 of the
    same parity, so the key's pairs are (1, 1) or (0, 0); the score alpha c^T R_-1^T R_Delta c,
    rotated the wrong way, peaks at offset 0 over every offset, before or after, and its value
    there is the sum of the query's cosines."""
    from rope_explained.heads import constant_key_vector  # noqa: PLC0415
    from rope_explained.rope import apply_rope  # noqa: PLC0415

    c = constant_key_vector(64)
    assert (c[:32] == c[32:]).all()
    q = 10.0 * apply_rope(c[None], np.array([-1.0]))[0]  # interleaved: alpha R_{-1} c
    offsets = np.arange(-60.0, 61.0)
    k = apply_rope(np.tile(c, (offsets.size, 1)), offsets, layout="half")
    s = k @ q  # query at position 0, rotate-half of a rotate-half-free query: q itself
    assert offsets[s.argmax()] == 0
    assert s[offsets == 0][0] == pytest.approx(10.0 * np.cos(frequencies(64)).sum())


def test_neox_quarter_keeps_the_range_of_speeds():
    """The partial-rotary page: with r = 16 of 64 the slowest rotating pair is within a factor
    base^(2/r - 2/d), about 2.4, of the full head's slowest; the fastest still turns by 1."""
    from rope_explained.real_models import rotary_frequencies  # noqa: PLC0415

    quarter, full = rotary_frequencies(0.25), rotary_frequencies(1.0)
    slow = quarter[quarter > 0].min()
    assert quarter[0] == full[0] == 1.0
    assert slow / full.min() == pytest.approx(10000.0 ** (2 / 16 - 2 / 64))
    assert round(slow / full.min(), 1) == 2.4


@pytest.mark.parametrize("pct", [0.25, 0.125])
def test_partial_previous_score_is_the_formula_plus_a_constant(pct):
    """Eq. partial-previous-score: with r of 64 coordinates rotating, layer 0's score of key n
    for query m is alpha sum_{i < r/2} cos((n - m + 1) theta_i) plus one constant per row."""
    tr = forward("abcdefghijklmnop", rotary_pct=pct)
    theta = frequencies(int(64 * pct))
    T = tr.scores0.shape[0]
    for m in range(1, T):
        n = np.arange(m + 1)
        formula = 10.0 * np.cos(np.outer(n - m + 1.0, theta)).sum(axis=1)
        rest = tr.scores0[m, : m + 1] - formula
        assert np.ptp(rest) < 1e-9, m


def test_cross_terms_remain_for_the_identity():
    """The deriving page: the cross term x^T M p_n is there for M = I too, changing with the
    key's absolute position for any nonzero content; p_m^T p_n depends on the offset alone."""
    from rope_explained.sinusoidal import sinusoidal_positions

    d, T = 64, 48
    p = sinusoidal_positions(T, d)  # (T, d)
    for letter in VOCAB:
        x = embedding_matrix(d)[VOCAB.index(letter)]
        cross = p @ x  # x^T I p_n for n = 0..T-1
        assert np.ptp(cross) > 0.1 * np.linalg.norm(x)  # moves with n, far above rounding
    gram = p @ p.T
    for k in range(1, 4):  # constant along each diagonal, up to rounding of sums of cosines
        assert np.ptp(np.diagonal(gram, k)) < 1e-12


def test_decoding_caches_values_before_the_output_map():
    """The decoding page: the cache holds W_v h (d numbers per head) and W_o comes after the
    weighted sum, which equals caching V h = W_o W_v h by linearity (rounding only: rtol 1e-12
    for sums of a few dozen terms of size about 1)."""
    from rope_explained.decoding import decode
    from rope_explained.model import Config, build_weights

    steps = decode("abcab")
    cache = steps[-1].cache
    W = build_weights(Config()).L0
    cfg = Config()
    assert cache.v0.shape == (len(cache.tokens), cfg.d)
    tr = forward("abcab")
    np.testing.assert_allclose(cache.v0, tr.h0 @ W.W_v.T, rtol=1e-12, atol=1e-12)
    V = W.W_o @ W.W_v  # (D, D)
    after = (tr.A0 @ cache.v0) @ W.W_o.T
    before = tr.A0 @ (tr.h0 @ V.T)
    np.testing.assert_allclose(after, before, rtol=1e-12, atol=1e-12)
