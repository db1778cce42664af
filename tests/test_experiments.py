"""Properties of Chris Wendler's experiments as rope_explained.experiments runs them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rope_explained.experiments import (
    d0_sweep_values,
    pair_horizons,
    previous_token_experiment,
    previous_token_scores,
    semantic_head_experiment,
    semantic_head_inputs,
    semantic_offset_scores,
    semantic_recency,
    stable_pair_count,
)
from rope_explained.rope import frequencies


def flatness(scores: np.ndarray) -> float:
    """(max - min) / max: 0 for a head that scores every key alike."""
    return float(np.ptp(scores) / scores.max())


# --- Experiment 1: the previous-token head -------------------------------------------------


def test_previous_token_patterns_are_causal_distributions():
    for A in previous_token_experiment().values():
        assert A.shape == (20, 20)
        assert np.allclose(A.sum(axis=1), 1.0)
        assert np.all(A >= 0)
        assert np.all(np.triu(A, k=1) == 0)  # nothing from the future


def test_previous_token_weight_grows_with_alpha_and_is_sharp_at_100():
    out = previous_token_experiment(alphas=(0.5, 1.0, 3.0, 10.0, 100.0))
    means = [np.diag(out[a], k=-1).mean() for a in (0.5, 1.0, 3.0, 10.0, 100.0)]
    assert all(b > a for a, b in zip(means, means[1:], strict=False))
    assert np.all(np.diag(out[100.0], k=-1) > 0.99)
    assert np.diag(out[1.0], k=-1).mean() < 0.9  # alpha = 1 is visibly soft


def test_previous_token_pattern_ignores_content_and_is_reproducible():
    # Same seed: identical arrays. Different seed: different random inputs, yet the same
    # pattern, because W_k and W_q read only the constant coordinate.
    a = previous_token_experiment(seed=0)
    b = previous_token_experiment(seed=0)
    c = previous_token_experiment(seed=7)
    for alpha in a:
        assert np.array_equal(a[alpha], b[alpha])
        assert np.allclose(a[alpha], c[alpha], atol=1e-12)


def test_previous_token_pattern_is_symmetric_about_m_minus_1_at_alpha_1():
    A = previous_token_experiment(alphas=(1.0,))[1.0]
    m = np.arange(2, 20)
    assert np.allclose(A[m, m], A[m, m - 2], rtol=1e-12)  # cosines are even in the offset
    assert np.all(A[m, m - 1] > A[m, m])


def test_previous_token_scores_peak_at_d_over_2():
    offsets = np.arange(-50, 51)
    for d in (8, 64, 128):
        s = previous_token_scores(offsets, d=d)
        assert s[offsets == 0][0] == pytest.approx(d / 2)
        assert np.all(s[offsets != 0] < d / 2)
        assert np.allclose(s, s[::-1])  # even in the offset


# --- Recency bias --------------------------------------------------------------------------


@pytest.mark.parametrize("d0", [0, 32, 48, 56, 62])
def test_recency_peaks_at_the_query_itself(d0):
    s = semantic_recency(T=300, d=64, d0=d0)
    assert int(np.argmax(s)) == 299
    assert np.all(s[:-1] < s[-1])


@settings(max_examples=40, deadline=None)
@given(
    offsets=st.lists(st.integers(-5000, 5000), min_size=1, max_size=20),
    d0=st.sampled_from([0, 2, 10, 30, 62]),
    seed=st.integers(0, 1000),
)
def test_recency_is_even_in_the_offset_and_bounded_by_its_peak(offsets, d0, seed):
    off = np.asarray(offsets, dtype=float)
    plus = semantic_offset_scores(off, d=64, d0=d0, seed=seed)
    minus = semantic_offset_scores(-off, d=64, d0=d0, seed=seed)
    peak = semantic_offset_scores(np.array([0.0]), d=64, d0=d0, seed=seed)[0]
    assert np.allclose(plus, minus, rtol=1e-9, atol=1e-9 * peak)
    assert np.all(plus <= peak * (1 + 1e-12))


def test_recency_matches_the_offset_formula():
    T, d, d0 = 200, 64, 16
    s = semantic_recency(T=T, d=d, d0=d0, seed=3)
    by_offset = semantic_offset_scores(np.arange(T) - (T - 1.0), d=d, d0=d0, seed=3)
    assert np.allclose(s, by_offset, rtol=1e-10)
    # and the closed form sum_i cos(delta theta_i) (x_2i^2 + x_2i+1^2), with x from the seed
    x = np.random.default_rng(3).standard_normal(d)
    x[:d0] = 0.0
    w = x[0::2] ** 2 + x[1::2] ** 2
    delta = np.arange(T) - (T - 1.0)
    closed = np.cos(delta[:, None] * frequencies(d)[None, :]) @ w
    assert np.allclose(s, closed, rtol=1e-10)


def test_recency_seed_changes_the_vector():
    assert not np.allclose(semantic_recency(T=50, seed=0), semantic_recency(T=50, seed=1))
    assert np.array_equal(semantic_recency(T=50, seed=4), semantic_recency(T=50, seed=4))


# --- Experiment 3: the semantic head --------------------------------------------------------


def test_semantic_inputs_are_seeded():
    x0, s0 = semantic_head_inputs(T=100, seed=0)
    x0b, s0b = semantic_head_inputs(T=100, seed=0)
    x1, s1 = semantic_head_inputs(T=100, seed=1)
    assert np.array_equal(x0, x0b) and np.array_equal(s0, s0b)
    assert not np.allclose(s0, s1) and not np.allclose(x0, x1)
    a = semantic_head_experiment(T=100, seed=0)
    b = semantic_head_experiment(T=100, seed=0)
    c = semantic_head_experiment(T=100, seed=1)
    for d0 in a:
        assert np.array_equal(a[d0], b[d0])
        assert not np.allclose(a[d0], c[d0])


@pytest.mark.parametrize("seed", range(5))
def test_semantic_head_flattens_as_d0_grows(seed):
    out = semantic_head_experiment(seed=seed)
    flat = [flatness(out[d0]) for d0 in d0_sweep_values(64)]
    assert all(b < a for a, b in zip(flat, flat[1:], strict=False)), flat
    assert flat[-1] < 0.01  # the slowest pair alone: under 1 % over 999 tokens


def test_semantic_head_scores_follow_the_recency_formula_with_s():
    T, d = 400, 64
    _, s = semantic_head_inputs(T=T, d=d, seed=2)
    out = semantic_head_experiment(d0_values=(0, 40, 62), T=T, d=d, seed=2)
    delta = np.arange(T - 1) - (T - 1.0)  # keys 0..T-2, query at T-1
    theta = frequencies(d)
    for d0, scores in out.items():
        keep = s.copy()
        keep[:d0] = 0.0
        w = keep[0::2] ** 2 + keep[1::2] ** 2
        assert np.allclose(scores, np.cos(delta[:, None] * theta[None, :]) @ w, rtol=1e-10)


def test_d0_sweep_values():
    assert d0_sweep_values(64) == (0, 32, 48, 56, 62)
    assert d0_sweep_values(128) == (0, 64, 96, 112, 126)


# --- The bottleneck --------------------------------------------------------------------------


@pytest.mark.parametrize("d,base,min_cos", [(64, 1e4, 0.9), (128, 5e5, 0.99), (16, 100.0, 0.0)])
def test_horizons_are_where_the_cosine_crosses_the_tolerance(d, base, min_cos):
    L = pair_horizons(d, base, min_cos)
    theta = frequencies(d, base)
    assert np.all(np.diff(L) > 0)  # slower pairs reach further
    assert np.allclose(np.cos(L * theta), min_cos)
    for i in range(d // 2):  # brute force on integer distances
        delta = np.arange(0, int(np.floor(L[i])) + 2)
        ok = np.cos(delta * theta[i]) >= min_cos - 1e-12
        assert np.all(ok[delta <= L[i]]) and not ok[delta > L[i]].any()


def test_stable_pair_count_shrinks_with_the_window():
    lengths = np.unique(np.round(np.logspace(0, 6, 200)))
    for base in (1e4, 5e5):
        counts = stable_pair_count(lengths, d=128, base=base)
        assert np.all(np.diff(counts) <= 0)
    assert stable_pair_count(np.array([0.0]), d=64)[0] == 32  # distance 0: every pair is fine


# --- Bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: previous_token_experiment(T=1),
        lambda: previous_token_experiment(d=63),
        lambda: previous_token_experiment(alphas=(0.0,)),
        lambda: previous_token_experiment(alphas=(float("inf"),)),
        lambda: previous_token_experiment(base=1.0),
        lambda: semantic_recency(d0=63),
        lambda: semantic_offset_scores(np.array([[1.0]])),
        lambda: semantic_head_experiment(D=100, d=64),
        lambda: semantic_head_experiment(d0_values=(64,)),
        lambda: semantic_head_experiment(T=1),
        lambda: semantic_head_inputs(d=5),
        lambda: d0_sweep_values(8),
        lambda: d0_sweep_values(40),
        lambda: pair_horizons(min_cos=1.0),
        lambda: pair_horizons(min_cos="0.9"),
        lambda: stable_pair_count(np.array([-1.0])),
        lambda: stable_pair_count(np.array([np.inf])),
    ],
)
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_error_messages_name_the_value_and_range():
    with pytest.raises(ValueError, match=r"d0 must be in \[0, 62\]; got 63"):
        semantic_recency(d0=63)
    with pytest.raises(ValueError, match=r"min_cos must be a number in \(-1, 1\); got 1.5"):
        pair_horizons(min_cos=1.5)


# --- the frequency schedule -----------------------------------------------------------------


def test_schedule_reaches_every_experiment():
    """Each experiment rotates by the frequencies of its ``schedule``: the "wendler" run equals
    the formula with frequencies(d, schedule="wendler") and differs from the standard run."""
    d = 16
    th = frequencies(d, schedule="wendler")
    offsets = np.array([-3.0, 0.0, 2.0, 7.0])
    assert np.allclose(
        previous_token_scores(offsets, d=d, schedule="wendler"),
        np.cos(offsets[:, None] * th).sum(axis=1),
    )
    A = previous_token_experiment(alphas=(3.0,), T=8, D=20, d=d, schedule="wendler")[3.0]
    for m in range(8):  # the softmax of the score formula, row by row
        s = 3.0 * np.cos((np.arange(m + 1) - m + 1.0)[:, None] * th).sum(axis=1)
        assert np.allclose(A[m, : m + 1], np.exp(s - s.max()) / np.exp(s - s.max()).sum())
    x = np.random.default_rng(0).standard_normal(d)  # the vector of semantic_recency, seed 0
    w = x[0::2] ** 2 + x[1::2] ** 2
    assert np.allclose(
        semantic_recency(T=30, d=d, schedule="wendler"),
        np.cos((np.arange(30) - 29.0)[:, None] * th) @ w,
    )
    assert np.allclose(
        semantic_offset_scores(offsets, d=d, schedule="wendler"), np.cos(offsets[:, None] * th) @ w
    )
    _, s = semantic_head_inputs(T=30, D=40, d=d)
    got = semantic_head_experiment(d0_values=(0,), T=30, D=40, d=d, schedule="wendler")[0]
    delta = np.arange(29) - 29.0
    assert np.allclose(got, np.cos(delta[:, None] * th) @ (s[0::2] ** 2 + s[1::2] ** 2))
    assert np.allclose(pair_horizons(d, schedule="wendler"), np.arccos(0.9) / th)
    for schedule in ("standard", "wendler"):
        assert not np.allclose(
            semantic_head_experiment(d0_values=(0,), T=30, D=40, d=d, schedule=schedule)[0],
            semantic_head_experiment(
                d0_values=(0,), T=30, D=40, d=d,
                schedule="wendler" if schedule == "standard" else "standard",
            )[0],
        )  # fmt: skip


def test_semantic_head_weights_are_the_softmax_of_the_scores():
    from rope_explained.experiments import semantic_head_weights

    scores = semantic_head_experiment(T=60, D=160, d=32, schedule="wendler")
    weights = semantic_head_weights(T=60, D=160, d=32, schedule="wendler")
    assert scores.keys() == weights.keys()
    for d0, s in scores.items():
        assert np.allclose(weights[d0], np.exp(s) / np.exp(s).sum())
    # the slowest pair alone is nearly uniform; all pairs favour the nearest keys
    assert np.ptp(weights[30]) * 59 < 0.01 and np.argmax(weights[0]) == 58


@pytest.mark.parametrize(
    "call",
    [
        lambda: previous_token_experiment(d=2, schedule="wendler"),
        lambda: pair_horizons(schedule=None),
    ],
)
def test_bad_schedule_is_refused(call):
    with pytest.raises(ValueError, match="schedule"):
        call()
