"""The two-layer model: what each layer does, induction accuracy, bad input, stability."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from configs import configs, rounding_bound, texts
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rope_explained
from rope_explained import (
    BOS,
    VOCAB,
    Config,
    causal_softmax,
    embedding_matrix,
    forward,
    frequencies,
    induction_accuracy,
    induction_prompts,
    plane_reader,
    predict_last,
    predict_next,
    rotation_matrix,
    tokenize,
)
from rope_explained.model import MAX_LETTERS

TRACE_ARRAYS = "h0 k0 q0 scores0 A0 v0 o0 h1 k1 q1 scores1 A1 v1 o1 h2 logits probs".split()


@pytest.fixture(scope="module")
def prompts():
    return induction_prompts(n=1000, min_len=8, max_len=256, seed=0)


def random_text(T, seed):
    rng = np.random.default_rng(seed)
    return "".join(rng.choice(list(VOCAB), size=T))


# --- the embedding ----------------------------------------------------------------------------


def test_embedding_has_26_distinct_rows_in_one_plane():
    E = embedding_matrix(64)
    assert np.linalg.matrix_rank(E, tol=1e-10) == 2
    dists = np.linalg.norm(E[:, None] - E[None, :], axis=-1)
    assert dists[~np.eye(26, dtype=bool)].min() > 0.1
    P = plane_reader(64)
    np.testing.assert_allclose(np.linalg.norm(P @ E.T, axis=0), 1.0, atol=1e-9)


def test_tokenize_folds_case_and_refuses_the_rest():
    assert tokenize("HeLLo") == list("hello")
    for bad, what in [
        ("", "empty"),
        ("ab c", r"character U\+0020 at position 2 "),
        ("ab1", "U\\+0031 \\(\u20681\u2069\\) at position 2"),
        ("é", "U\\+00E9 \\(\u2068é\u2069\\) at position 0"),
    ]:
        with pytest.raises(ValueError, match=what):
            tokenize(bad)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        tokenize("Ab", fold_case=False)


# --- the trace ----------------------------------------------------------------------------------


def test_trace_has_every_intermediate_with_documented_shapes():
    tr = forward("abcabd")
    T, D, d = 7, tr.config.D, tr.config.d
    assert tr.tokens == [BOS, *"abcabd"] and tr.vocab == list(VOCAB)
    shapes = {"h0": (T, D), "k0": (T, d), "q0": (T, d), "scores0": (T, T), "A0": (T, T),
              "o0": (T, D), "h1": (T, D), "k1": (T, d), "q1": (T, d), "A1": (T, T),
              "h2": (T, D), "logits": (T, 26), "probs": (T, 26)}  # fmt: skip
    for name, shape in shapes.items():
        assert getattr(tr, name).shape == shape, name
    assert tr.attention[0] is tr.A0 and tr.attention[1] is tr.A1
    for A in tr.attention:
        np.testing.assert_allclose(A.sum(axis=1), 1.0)
        assert np.all(A[~tr.mask] == 0)  # causal
    np.testing.assert_allclose(tr.probs.sum(axis=1), 1.0)


def test_trace_equations_hold():
    tr = forward("thequickbrownfox")
    c = tr.config
    s = tr.slots
    T = len(tr.tokens)
    # the bias coordinate is 1 everywhere and W_k h = c for every h
    assert np.all(tr.h0[:, 0] == 1.0)
    c_vec = np.tile([1.0, 0.0], c.d // 2)
    for n in range(T):
        np.testing.assert_allclose(tr.k0[n], rotation_matrix(n, c.d) @ c_vec, atol=1e-12)
        np.testing.assert_allclose(
            tr.q0[n], c.alpha * rotation_matrix(n - 1, c.d) @ c_vec, atol=1e-9
        )
    # the score formula of the document: alpha * sum_i cos((n - m + 1) theta_i)
    theta = frequencies(c.d, c.base)
    m, n = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    expected = c.alpha * np.cos((n - m + 1)[..., None] * theta).sum(-1)
    np.testing.assert_allclose(tr.scores0, expected, atol=1e-9)
    # residual adds
    np.testing.assert_allclose(tr.h1, tr.h0 + tr.o0)
    np.testing.assert_allclose(tr.h2, tr.h1 + tr.o1)
    # layer 0 writes the previous letter into the prev slot
    E = embedding_matrix(c.d)
    for pos in range(2, T):
        prev = VOCAB.index(tr.tokens[pos - 1])
        np.testing.assert_allclose(tr.h1[pos, s.prev], E[prev], atol=1e-3)
    assert np.allclose(tr.h1[1, s.prev], 0, atol=1e-3)  # the first letter follows <s>


@pytest.mark.parametrize("T", [20, 256])
def test_layer0_attends_to_the_previous_position(T):
    tr = forward(random_text(T, seed=T))  # T letters after <s>
    rows = np.arange(1, len(tr.tokens))
    assert tr.A0[rows, rows - 1].min() >= 0.99


def test_layer0_sharpens_with_alpha():
    text = random_text(40, 1)
    prev = [forward(text, alpha=a).A0[5, 4] for a in (0.5, 1, 2, 5, 10, 100)]
    assert all(a < b for a, b in zip(prev, prev[1:], strict=False))


def test_offset_two_looks_two_back():
    tr = forward(random_text(30, 2), offset=2)
    rows = np.arange(2, len(tr.tokens))
    assert tr.A0[rows, rows - 2].min() > 0.99


# --- induction ------------------------------------------------------------------------------


def test_prompts_have_the_promised_shape(prompts):
    assert len(prompts) == 1000
    lengths = [len(p.text) for p in prompts]
    assert min(lengths) >= 8 and max(lengths) <= 256 and max(lengths) > 200
    for p in prompts:
        a = p.text[-1]
        assert p.text.count(a) == 2 and p.text[p.first] == a and p.text[p.first + 1] == p.answer


def test_benchmark_hits_agree_with_induction_accuracy(prompts, induction_hits):
    for head in ("induction", "rank1"):
        hits = induction_hits[head]
        assert hits.shape == (len(prompts),)
        for lo, hi in ((0, 40), (500, 530)):  # the package's benchmark on samples of prompts
            assert induction_accuracy(prompts[lo:hi], head=head) == hits[lo:hi].mean(), head
    assert "".join(induction_hits["letter"]) == "".join(p.text[-1] for p in prompts)


def test_induction_head_predicts_B(induction_hits):
    acc = induction_hits["induction"].mean()
    assert acc >= 0.99, acc


def test_rank1_head_is_near_chance_on_the_same_prompts(induction_hits):
    acc = induction_hits["rank1"].mean()
    assert acc < 0.25, acc  # near chance (1/26 = 0.04); the working head reaches >= 0.99


def test_rank1_scores_rank_keys_identically_for_every_query():
    tr = forward("qwertyuiopasdfghjklzxcvbnm", head="rank1")
    S = tr.scores1[1:, 1:]
    # every row is a multiple of one row: the matrix has rank 1 (RoPE turns the slowest pair
    # by a negligible angle over 27 positions, hence the tolerance)
    sv = np.linalg.svd(S, compute_uv=False)
    assert sv[1] / sv[0] < 1e-2
    orders = {tuple(np.argsort(row)) for row, q in zip(S, tr.q1[1:, -2], strict=True) if q > 1e-6}
    assert len(orders) == 1


def test_working_head_attends_after_the_earlier_occurrence():
    tr = forward("xqbmkzwqj")  # tokens: <s> x q b m k z w q j
    last = len(tr.tokens) - 2  # the second q
    assert tr.tokens[last] == "q"
    assert int(np.argmax(tr.A1[last])) == 3  # the key whose previous letter is q: "b"
    assert tr.A1[last, 3] > 0.99


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.integers(1, 40))
def test_prediction_does_not_depend_on_where_the_pattern_sits(seed, shift):
    rng = np.random.default_rng(seed)
    letters = list(rng.permutation(list(VOCAB))[:8])
    a = letters[0]
    core = "".join(letters) + "".join(rng.choice(letters[2:], size=5)) + a
    filler = "".join(rng.choice([x for x in VOCAB if x not in letters], size=shift))
    assert predict_next(core) == letters[1] == predict_next(filler + core)


def test_predict_next_returns_one_letter():
    out = predict_next("abcab")
    assert isinstance(out, str) and len(out) == 1 and out in VOCAB


# --- bad input and stability -------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"d": 7}, "even integer"),
        ({"d": 0}, "even integer"),
        ({"D": 100}, "D must be in"),
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": float("nan")}, "alpha"),
        ({"alpha": float("inf")}, "alpha"),
        ({"base": 1.0}, "base"),
        ({"base": -5.0}, "base"),
        ({"head": "rank2"}, "head must be one of"),
        ({"offset": -1}, "offset"),
        ({"beta": 0}, "beta"),
        ({"gamma": float("inf")}, "gamma"),
    ],
)
def test_bad_config_is_a_clear_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        forward("abc", **kwargs)


@pytest.mark.parametrize("text", ["", "hello world", "abc!", 42])
def test_bad_text_is_a_clear_value_error(text):
    with pytest.raises(ValueError):
        forward(text)


def test_forward_refuses_texts_longer_than_max_letters_and_says_why():
    assert MAX_LETTERS >= 8192  # the benchmark runs the full forward pass at 8,192 letters
    with pytest.raises(ValueError) as info:
        forward("ab" * 50_000)
    message = str(info.value)
    assert message.startswith(
        f"text has 100,000 letters; forward accepts at most {MAX_LETTERS:,} (MAX_LETTERS): "
        "its trace holds four T x T matrices"
    )
    assert "'abababab" in message and len(message) < 300  # an excerpt, not the text
    with pytest.raises(ValueError, match=f"text has {MAX_LETTERS + 1:,} letters"):
        forward("a" * (MAX_LETTERS + 1))


def test_settings_past_their_documented_limits_name_the_setting():
    for name, value, limit in [("alpha", 1e308, "1e6"), ("beta", 2e6, "1e6"),
                               ("gamma", 1e7, "1e6"), ("base", 1e13, "1e12"),
                               ("d", 1024, "512"), ("D", 4096, "2048")]:  # fmt: skip
        with pytest.raises(ValueError, match=rf"^{name} must be .*{limit}\]; got"):
            forward("abc", **{name: value})
    tr = forward("abcab" * 20, alpha=1e6, beta=1e6, gamma=1e6, base=1e12)
    for name in TRACE_ARRAYS:
        assert np.all(np.isfinite(getattr(tr, name))), name


def causal_softmax_reference(scores):
    """The textbook form, with its temporaries: mask, shift, exponentiate, divide."""
    T = scores.shape[-1]
    s = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def traced_memory(setup: str, statement: str, value: str = "None") -> dict:
    """Run ``statement`` under tracemalloc in a Python process of its own (after ``setup``; the
    model's names and numpy imported), where no other thread allocates: the bytes still held
    after it, the peak while it ran, and ``value`` evaluated afterwards."""
    script = "\n".join(
        [
            "import json, tracemalloc",
            "import numpy as np",
            "from rope_explained.model import causal_softmax, forward",
            setup,
            "tracemalloc.start()",
            statement,
            "held, peak = tracemalloc.get_traced_memory()",
            "tracemalloc.stop()",
            f"print(json.dumps({{'held': held, 'peak': peak, 'value': {value}}}))",
        ]
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_causal_softmax_is_the_textbook_form_with_one_T_by_T_allocation():
    scores = np.random.default_rng(3).standard_normal((2, 300, 300)) * 50
    A = causal_softmax(scores)
    np.testing.assert_array_equal(A, causal_softmax_reference(scores))  # bit for bit
    assert np.array_equal(scores, np.random.default_rng(3).standard_normal((2, 300, 300)) * 50)
    T = 1000
    peak = traced_memory(
        f"scores = np.random.default_rng(4).standard_normal(({T}, {T}))",
        "causal_softmax(scores)",
    )["peak"]
    assert peak < 1.1 * T * T * 8  # the result, and no other T x T temporary


def test_forward_peaks_at_what_its_trace_holds():
    text = random_text(1024, seed=9)
    got = traced_memory(
        f'forward("abc")  # the weights\' one-off imports and caches\ntext = {text!r}',
        "tr = forward(text)",
        "len(tr.tokens)",
    )
    T, held, peak = got["value"], got["held"], got["peak"]
    assert held >= 4 * T * T * 8  # the four T x T matrices of the trace
    assert peak - held < 0.5 * T * T * 8  # no T x T temporary on top of them


@pytest.mark.parametrize("alpha", [1e-3, 1.0, 1e2, 1e4])
def test_no_nan_or_inf_for_large_alpha(alpha):
    tr = forward(random_text(300, 5), alpha=alpha, beta=1e4, gamma=1e4)
    for name in TRACE_ARRAYS:
        assert np.all(np.isfinite(getattr(tr, name))), name


def test_no_nan_or_inf_at_4096_tokens():
    tr = forward(random_text(4096, 6))
    for name in TRACE_ARRAYS:
        assert np.all(np.isfinite(getattr(tr, name))), name
    np.testing.assert_allclose(tr.A0.sum(axis=1), 1.0)


# --- documentation ------------------------------------------------------------------------------


def test_every_public_function_has_a_docstring_with_its_equation():
    for name in rope_explained.__all__:
        obj = getattr(rope_explained, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            doc = inspect.getdoc(obj) or ""
            assert len(doc) > 40, name
    # the functions that compute an equation state it in the site's notation
    stated = [
        "frequencies",
        "rotation_matrix",
        "apply_rope",
        "scaled_frequencies",
        "causal_softmax",
        "letter_angle",
        "embed_index",
        "embedding_matrix",
        "previous_token_experiment",
        "semantic_recency",
        "semantic_head_experiment",
    ]
    for name in stated:
        doc = inspect.getdoc(getattr(rope_explained, name))
        assert "\\(" in doc or "$$" in doc, name


def test_config_defaults_are_documented():
    src = inspect.getsource(Config)
    for f in dataclasses.fields(Config):
        line = next(ln for ln in src.splitlines() if ln.strip().startswith(f"{f.name}:"))
        assert "#" in line, f.name


# --- predict_last: checked against forward over every setting -----------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), text=texts(max_size=300))
def test_predict_last_is_forwards_last_row_over_every_setting(config, text):
    """predict_last against forward_tokens (through forward) over every setting of Config and
    texts up to 300 letters (its layer 0 runs ROWS = 256 queries at a time, so a longer text
    takes two blocks): the probabilities, the last query's layer-1 attention and the weights on
    the key one step back to 1e-12, or to the rounding bound of forward's own numbers where
    that is larger (tests/configs.py); the favourite keys where forward's pattern has no tie
    to rounding. Both run the same numpy operations on the same weights, so they differ by a
    few ulps of the probabilities (2e-14 at most seen)."""
    tr = forward(text, **config)
    lp = predict_last(text, **config)
    bound = rounding_bound(tr)
    T = len(tr.tokens)
    assert lp.tokens == tr.tokens
    for got, want, b in (
        (lp.probs, tr.probs[-1], bound["probs"]),
        (lp.attention1, tr.A1[-1], bound["A1"]),
        (lp.previous, tr.A0[np.arange(1, T), np.arange(T - 1)], bound["A0"]),
    ):
        np.testing.assert_allclose(got, want, rtol=0, atol=max(1e-12, b))
    for m in np.flatnonzero(lp.peak != np.argmax(tr.A0, axis=1)):
        row = tr.A0[m, : m + 1]
        assert abs(row[lp.peak[m]] - row.max()) <= 1e-12, m
