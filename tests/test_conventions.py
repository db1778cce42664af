"""The two pairing conventions, the weight permutation between them, and the experiments of
the section "RoPE in real models" (the wrong convention, partial rotary, additive sinusoids).

Every reference here is written again in numpy from the source it transcribes: Hugging Face's
``permute`` (``convert_llama_weights_to_hf.py``), Meta's complex multiplication
(``llama/model.py``), Hugging Face's ``rotate_half`` with ``cat(freqs, freqs)``
(``modeling_llama.py``) and the sinusoidal encoding of Vaswani et al.
"""

from __future__ import annotations

import numpy as np
import pytest

from rope_explained import (
    apply_rope,
    apply_rope_matrix,
    forward,
    half_to_interleaved,
    interleaved_to_half,
    rope_complex,
    rope_rotate_half,
)
from rope_explained.embedding import VOCAB, embedding_matrix
from rope_explained.experiments import induction_prompts
from rope_explained.model import Config, build_weights
from rope_explained.real_models import (
    convention_experiment,
    other_layout,
    partial_rotary_sweep,
    rotary_frequencies,
)
from rope_explained.sinusoidal import additive_score_terms, sinusoidal_positions

# --- numpy transcriptions of the codebases -------------------------------------------------------


def hf_permute(w: np.ndarray, n_heads: int) -> np.ndarray:
    """``permute`` of convert_llama_weights_to_hf.py: ``w.view(n_heads, dim1 // n_heads // 2,
    2, dim2).transpose(1, 2).reshape(dim1, dim2)`` (torch's transpose(1, 2) swaps axes 1, 2)."""
    dim1, dim2 = w.shape
    view = w.reshape(n_heads, dim1 // n_heads // 2, 2, dim2)
    return view.transpose(0, 2, 1, 3).reshape(dim1, dim2)


def theta(d: int, base: float = 10000.0) -> np.ndarray:
    """``1.0 / (base ** (arange(0, d, 2) / d))``, as both codebases write it."""
    return 1.0 / base ** (np.arange(0, d, 2) / d)


def meta_rope(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Meta: ``view_as_complex(x.reshape(..., -1, 2)) * polar(1, outer(t, freqs))``."""
    z = x.reshape(*x.shape[:-1], -1, 2)
    z = (z[..., 0] + 1j * z[..., 1]) * np.exp(1j * np.outer(pos, theta(x.shape[-1])))
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)


def hf_rope(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Hugging Face: ``q * cos + rotate_half(q) * sin`` with ``emb = cat(freqs, freqs)``."""
    freqs = np.outer(pos, theta(x.shape[-1]))
    emb = np.concatenate([freqs, freqs], axis=-1)
    h = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    return x * np.cos(emb) + rotated * np.sin(emb)


def head_scores(W_q, W_k, x, n_heads, rope) -> np.ndarray:
    """Per-head (T, T) scores of x (T, D) with stacked projections, rotated by ``rope``."""
    pos = np.arange(x.shape[0], dtype=float)
    d = W_q.shape[0] // n_heads
    out = []
    for h in range(n_heads):
        rows = slice(h * d, (h + 1) * d)
        q, k = rope(x @ W_q[rows].T, pos), rope(x @ W_k[rows].T, pos)
        out.append(q @ k.T)
    return np.stack(out)


# --- interleaved_to_half is Hugging Face's permute --------------------------------------------


@pytest.mark.parametrize("n_heads", [1, 2, 3, 8])
@pytest.mark.parametrize("d", [2, 4, 16, 64])
def test_interleaved_to_half_is_the_hf_permute(n_heads, d):
    W = np.random.default_rng(d * n_heads).standard_normal((n_heads * d, 5))
    np.testing.assert_array_equal(interleaved_to_half(W, n_heads), hf_permute(W, n_heads))
    np.testing.assert_array_equal(half_to_interleaved(interleaved_to_half(W, n_heads), n_heads), W)
    if d >= 4:  # a real reordering, not the identity
        assert not np.array_equal(interleaved_to_half(W, n_heads), W)


def test_interleaved_to_half_moves_2j_to_j_and_2j_plus_1_to_j_plus_half():
    d = 16
    rows = interleaved_to_half(np.arange(2.0 * d)[:, None], n_heads=2).ravel()
    for h in range(2):
        for j in range(d // 2):
            assert rows[h * d + j] == h * d + 2 * j
            assert rows[h * d + j + d // 2] == h * d + 2 * j + 1


@pytest.mark.parametrize(("n_heads", "n_kv_heads", "d"), [(1, 1, 8), (4, 4, 16), (8, 2, 16)])
def test_converted_weights_give_the_original_scores(n_heads, n_kv_heads, d):
    """Meta's weights under Meta's rotation = converted weights under Hugging Face's, head by
    head, also with grouped-query attention (keys converted with the key-value head count)."""
    rng = np.random.default_rng(n_heads + d)
    D, T = 24, 40
    W_q = rng.standard_normal((n_heads * d, D))
    W_k = rng.standard_normal((n_kv_heads * d, D))
    x = rng.standard_normal((T, D))
    W_k_full = np.repeat(W_k.reshape(n_kv_heads, d, D), n_heads // n_kv_heads, 0).reshape(-1, D)
    original = head_scores(W_q, W_k_full, x, n_heads, meta_rope)
    W_k_conv = interleaved_to_half(W_k, n_kv_heads)
    W_k_conv_full = np.repeat(W_k_conv.reshape(n_kv_heads, d, D), n_heads // n_kv_heads, 0)
    converted = head_scores(
        interleaved_to_half(W_q, n_heads), W_k_conv_full.reshape(-1, D), x, n_heads, hf_rope
    )
    np.testing.assert_allclose(converted, original, atol=1e-10 * np.abs(original).max())
    unconverted = head_scores(W_q, W_k_full, x, n_heads, hf_rope)
    assert not np.allclose(unconverted, original, atol=1e-3)
    # converting only the queries breaks the scores as well (the page's "partly converted")
    half_done = head_scores(interleaved_to_half(W_q, n_heads), W_k_full, x, n_heads, hf_rope)
    assert not np.allclose(half_done, original, atol=1e-3)


def test_listings_equal_apply_rope_and_the_codebases():
    rng = np.random.default_rng(5)
    x, pos = rng.standard_normal((50, 64)), np.arange(50.0) * 7
    np.testing.assert_allclose(rope_complex(x, pos), apply_rope(x, pos), atol=1e-12)
    np.testing.assert_allclose(rope_complex(x, pos), meta_rope(x, pos), atol=1e-12)
    half = apply_rope(x, pos, layout="half")
    np.testing.assert_allclose(rope_rotate_half(x, pos), half, atol=1e-12)
    np.testing.assert_allclose(rope_rotate_half(x, pos), hf_rope(x, pos), atol=1e-12)
    np.testing.assert_allclose(rope_complex(x, pos), apply_rope_matrix(x, pos), atol=1e-12)


# --- the model in both conventions ----------------------------------------------------------------

FIELDS = ("scores0", "A0", "scores1", "A1", "h1", "h2", "logits", "probs")


@pytest.mark.parametrize(
    ("text", "config"),
    [("thecatsatonthecat", {}), ("jumpfoxjumpfox", {"head": "rank1"}),
     ("abcabd", {"d": 8, "D": 30}), ("qxzqxzqx", {"rotary_pct": 0.5})],
)  # fmt: skip
def test_forward_is_the_same_in_both_layouts(text, config):
    a, b = forward(text, **config), forward(text, layout="half", **config)
    for name in FIELDS:  # patterns and probabilities to 1e-12; scores to 1e-12 of their size
        ref = getattr(a, name)
        tol = 1e-12 * max(1.0, float(np.abs(ref).max()))
        np.testing.assert_allclose(getattr(b, name), ref, rtol=0, atol=tol)
    # the queries themselves are permuted, not equal: the layouts really differ
    assert not np.allclose(a.q0, b.q0)


def test_half_weights_are_the_interleaved_ones_reordered():
    c = Config()
    W, Wh = build_weights(c), build_weights(Config(layout="half"))
    for head, half in ((W.L0, Wh.L0), (W.L1, Wh.L1)):
        np.testing.assert_array_equal(half.W_q, hf_permute(head.W_q, 1))
        np.testing.assert_array_equal(half.W_k, hf_permute(head.W_k, 1))
        np.testing.assert_array_equal(half.W_v, head.W_v)


def test_wrong_convention_keeps_the_diagonal_and_the_first_position():
    """The page's signs: the diagonal of every score matrix and the first position's output
    do not depend on the convention; the scores still depend on n - m only."""
    text = "thequickbrownfox"
    right = forward(text)
    wrong = forward(text, layout="half", weights_layout="interleaved")
    np.testing.assert_allclose(np.diag(wrong.scores0), np.diag(right.scores0), atol=1e-9)
    np.testing.assert_allclose(wrong.probs[0], right.probs[0], atol=1e-12)
    s = wrong.scores0  # position-only head: Toeplitz, constant along each diagonal
    for k in range(-5, 6):
        assert np.ptp(np.diag(s, k)) < 1e-9
    assert not np.allclose(wrong.scores0, right.scores0)


@pytest.fixture(scope="module")
def experiment():
    return convention_experiment(induction_prompts(12, max_len=40, seed=3), "abcdefghijklmnop")


def test_wrong_convention_makes_layer0_look_at_itself_and_the_model_echo(experiment):
    r = experiment
    assert r["previous_right"] > 0.99 and r["accuracy_right"] == 1.0
    assert r["previous"] < 0.01 and r["itself"] > 0.99
    assert r["accuracy"] == 0.0 and r["echo"] == 1.0
    assert other_layout("interleaved") == "half" and other_layout("half") == "interleaved"


def test_the_induction_head_alone_tolerates_the_wrong_convention():
    """Layer 1's two coordinates (62, 63) become the second members of the slow rotate-half
    pairs 30 and 31: with the right layer-0 output, its scores barely change at short range."""
    tr = forward("jumpfoxjumpfox")
    pos = np.arange(len(tr.tokens), dtype=float)
    q = apply_rope(tr.q1_pre, pos, layout="half")
    k = apply_rope(tr.k1_pre, pos, layout="half")
    np.testing.assert_array_equal(np.argmax(q @ k.T, axis=1), np.argmax(tr.scores1, axis=1))


# --- partial rotary -------------------------------------------------------------------------------


def test_rotary_frequencies_follow_neox_and_the_fastest_pairs():
    np.testing.assert_allclose(rotary_frequencies(0.25)[:8], 10000.0 ** (-np.arange(8) / 8))
    np.testing.assert_allclose(rotary_frequencies(0.25, "fastest")[:8], theta(64)[:8])
    assert (rotary_frequencies(0.25)[8:] == 0).all()
    np.testing.assert_allclose(rotary_frequencies(1.0), theta(64))


def test_model_partial_rotary_uses_the_neox_frequencies_and_a_still_induction_head():
    for variant in ("neox", "fastest"):
        pct = 0.25
        base = 10000.0**pct if variant == "fastest" else 10000.0
        tr = forward("jumpfoxjumpfox", rotary_pct=pct, base=base)
        np.testing.assert_allclose(tr.theta, rotary_frequencies(pct, variant)[:8])
        # the induction head's coordinates do not turn: its scores are the unrotated products
        np.testing.assert_allclose(tr.scores1, tr.q1_pre @ tr.k1_pre.T, atol=1e-9)


def test_partial_sweep_small():
    prompts = induction_prompts(6, max_len=30, seed=2)
    s = partial_rotary_sweep(prompts, "abcdefghijkl", (1.0, 0.125), "neox")
    assert list(s["rotary_dims"]) == [64, 8]
    assert s["accuracy"][0] == 1.0 and s["previous_min"][0] > 0.99
    assert (s["previous_min"] <= s["previous"]).all()


# --- additive sinusoids --------------------------------------------------------------------------


def test_sinusoidal_positions_are_vaswanis():
    p = sinusoidal_positions(30, d=16)
    m = np.arange(30)[:, None]
    np.testing.assert_allclose(p[:, 0::2], np.sin(m / 10000 ** (np.arange(0, 16, 2) / 16)))
    np.testing.assert_allclose(p[:, 1::2], np.cos(m / 10000 ** (np.arange(0, 16, 2) / 16)))
    # with M = I the position-position term is relative: p_m . p_n depends on m - n only
    G = p @ p.T
    assert max(np.ptp(np.diag(G, k)) for k in range(-10, 11)) < 1e-12


def test_additive_terms_mix_content_with_absolute_position_and_rope_does_not():
    S = additive_score_terms("c", "q", T=20, d=16, seed=4)
    assert np.ptp(S["content"]) == 0
    assert np.ptp(S["content_position"], axis=0).max() < 1e-12  # depends on n only
    assert np.ptp(S["content_position"], axis=1).max() > 0.1
    assert np.ptp(S["position_content"], axis=1).max() < 1e-12  # depends on m only
    assert np.ptp(S["position_content"], axis=0).max() > 0.1
    total = S["content"] + S["content_position"] + S["position_content"] + S["position"]
    np.testing.assert_allclose(S["additive"], total)
    assert max(np.ptp(np.diag(S["rope"], k)) for k in range(-19, 20)) < 1e-12
    assert max(np.ptp(np.diag(S["additive"], k)) for k in range(-5, 6)) > 0.1
    # the additive score from scratch: (x + p_m)^T W_q^T W_k (y + p_n)
    rng = np.random.default_rng(4)
    W_q, W_k = rng.standard_normal((2, 16, 16)) / 4.0
    E = embedding_matrix(16)
    x, y = (E[VOCAB.index(t)] * np.sqrt(8) / np.linalg.norm(E[VOCAB.index(t)]) for t in "cq")
    p = sinusoidal_positions(20, 16)
    ref = (x + p) @ W_q.T @ W_k @ (y + p).T
    np.testing.assert_allclose(S["additive"], ref, atol=1e-10)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: interleaved_to_half(np.ones((6, 2)), 2), "head dimension"),
        (lambda: interleaved_to_half(np.ones((8, 2)), 3), "n_heads"),
        (lambda: interleaved_to_half(np.ones((8, 2)), 0), "n_heads"),
        (lambda: convention_experiment(induction_prompts(1), "a"), "text"),
        (lambda: convention_experiment([], "abc"), "prompts"),
        (lambda: convention_experiment(induction_prompts(1), "abc", "neox"), "layout"),
        (lambda: rotary_frequencies(0.25, "p-rope"), "variant"),
        (lambda: partial_rotary_sweep(induction_prompts(1), "ab", (0.3,)), "fractions[0]"),
        (lambda: partial_rotary_sweep(induction_prompts(1), "ab", 0.5), "fractions"),
        (lambda: additive_score_terms("A"), "query_letter"),
        (lambda: sinusoidal_positions(0), "T"),
    ],
)
def test_bad_input_is_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call()
