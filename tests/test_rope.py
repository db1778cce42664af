"""RoPE identities, both layouts, context-extension schedules and input checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rope_explained import (
    apply_rope,
    apply_rope_matrix,
    frequencies,
    rotation_matrix,
    scaled_frequencies,
)
from rope_explained.rope import cos_sin_table, yarn_keep

dims = st.sampled_from([2, 4, 8, 16, 64, 128])
positions = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False)
bases = st.floats(min_value=1.5, max_value=1e6)


def rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# --- frequencies and the rotation matrix ---------------------------------------------------


@given(d=dims, base=bases)
def test_frequencies_follow_the_schedule(d, base):
    theta = frequencies(d, base)
    assert theta.shape == (d // 2,)
    assert theta[0] == 1.0
    i = np.arange(d // 2)
    np.testing.assert_allclose(np.log(theta), -2 * i / d * math.log(base), atol=1e-9)
    assert np.all(np.diff(theta) < 0)  # strictly slower pair after pair


@given(d=dims, m=positions)
def test_rotation_matrix_is_orthogonal_block_diagonal(d, m):
    R = rotation_matrix(m, d)
    np.testing.assert_allclose(R.T @ R, np.eye(d), atol=1e-12)
    assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-9)
    blocks = np.kron(np.eye(d // 2), np.ones((2, 2)))
    assert np.all(R[blocks == 0] == 0)


def test_rotation_matrix_block_is_the_2d_rotation():
    d, m = 6, 2.5
    theta = frequencies(d)
    R = rotation_matrix(m, d)
    for i, t in enumerate(theta):
        c, s = math.cos(m * t), math.sin(m * t)
        np.testing.assert_allclose(R[2 * i : 2 * i + 2, 2 * i : 2 * i + 2], [[c, -s], [s, c]])


@given(d=dims, a=positions, b=positions)
def test_composition_R_a_R_b_is_R_a_plus_b(d, a, b):
    np.testing.assert_allclose(
        rotation_matrix(a, d) @ rotation_matrix(b, d), rotation_matrix(a + b, d), atol=1e-9
    )


@given(d=dims, m=positions, n=positions)
def test_relative_property_RmT_Rn_is_R_n_minus_m(d, m, n):
    np.testing.assert_allclose(
        rotation_matrix(m, d).T @ rotation_matrix(n, d), rotation_matrix(n - m, d), atol=1e-9
    )


def test_negative_and_fractional_positions():
    d = 8
    np.testing.assert_allclose(rotation_matrix(-1, d), rotation_matrix(1, d).T, atol=1e-15)
    half = rotation_matrix(0.5, d)
    np.testing.assert_allclose(half @ half, rotation_matrix(1, d), atol=1e-12)


# --- the fast path ----------------------------------------------------------------------------


@settings(max_examples=50)
@given(d=dims, seq=st.integers(1, 12), seed=st.integers(0, 10_000), base=bases)
def test_fast_path_equals_matrix_path(d, seq, seed, base):
    x = rand((3, seq, d), seed)
    pos = np.random.default_rng(seed).uniform(-500, 500, size=seq)
    np.testing.assert_allclose(
        apply_rope(x, pos, base), apply_rope_matrix(x, pos, base), rtol=0, atol=1e-12
    )


@given(d=dims, seed=st.integers(0, 10_000))
def test_norms_are_preserved(d, seed):
    x = rand((5, d), seed)
    pos = np.arange(5) * 37.0
    for layout in ("interleaved", "half"):
        out = apply_rope(x, pos, layout=layout)
        np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1))


@given(d=dims, seed=st.integers(0, 10_000))
def test_position_zero_is_identity(d, seed):
    x = rand((1, d), seed)
    for layout in ("interleaved", "half"):
        np.testing.assert_array_equal(apply_rope(x, [0.0], layout=layout), x)


def score(q, k, m, n, layout="interleaved", base=10000.0):
    return float(
        apply_rope(q[None], [m], base, layout)[0] @ apply_rope(k[None], [n], base, layout)[0]
    )


@settings(max_examples=60)
@given(
    d=dims,
    seed=st.integers(0, 10_000),
    m=st.integers(-1000, 1000),
    n=st.integers(-1000, 1000),
    shift=st.integers(-(10**6), 10**6),
)
def test_score_invariant_under_equal_shifts(d, seed, m, n, shift):
    q, k = rand((2, d), seed)
    for layout in ("interleaved", "half"):
        ref = score(q, k, m, n, layout)
        # angles up to 1e6 rad lose ~1e-10 of absolute precision in float64
        assert score(q, k, m + shift, n + shift, layout) == pytest.approx(ref, abs=1e-8)


def test_shift_invariance_at_one_million():
    q, k = rand((2, 64), 3)
    ref = score(q, k, 5, 2)
    for s in (1, 123, 10**5, 10**6):
        assert score(q, k, 5 + s, 2 + s) == pytest.approx(ref, abs=1e-8)


def test_different_offsets_give_different_scores():
    q, k = rand((2, 64), 4)
    scores = [score(q, k, 100, 100 - off) for off in range(0, 50)]
    assert min(abs(a - b) for i, a in enumerate(scores) for b in scores[i + 1 :]) > 1e-6


# --- layouts against the conventions of GPT-J and GPT-NeoX / LLaMA ------------------------------


def gptj_rotary(x, pos, base=10000.0):
    """GPT-J's `rotate_every_two` formulation, written as its reference code does."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2) / d))
    sinusoid = np.einsum("i,j->ij", pos, inv_freq)
    sin = np.repeat(np.sin(sinusoid), 2, axis=-1)
    cos = np.repeat(np.cos(sinusoid), 2, axis=-1)
    x1, x2 = x[..., ::2], x[..., 1::2]
    rotated = np.stack((-x2, x1), axis=-1).reshape(x.shape)
    return x * cos + rotated * sin


def neox_rotary(x, pos, base=10000.0):
    """GPT-NeoX / LLaMA's `rotate_half` formulation, written as its reference code does."""
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (np.arange(0, d, 2) / d))
    freqs = np.outer(pos, inv_freq)
    emb = np.concatenate((freqs, freqs), axis=-1)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    rotate_half = np.concatenate((-x2, x1), axis=-1)
    return x * np.cos(emb) + rotate_half * np.sin(emb)


@given(d=dims, seed=st.integers(0, 10_000))
def test_interleaved_matches_gptj(d, seed):
    x = rand((2, 7, d), seed)
    pos = np.arange(7) * 11.0
    np.testing.assert_allclose(apply_rope(x, pos), gptj_rotary(x, pos), atol=1e-12)


@given(d=dims, seed=st.integers(0, 10_000))
def test_half_matches_neox_llama(d, seed):
    x = rand((2, 7, d), seed)
    pos = np.arange(7) * 11.0
    np.testing.assert_allclose(apply_rope(x, pos, layout="half"), neox_rotary(x, pos), atol=1e-12)


@given(d=dims, seed=st.integers(0, 10_000))
def test_layouts_are_one_rotation_up_to_a_permutation(d, seed):
    x = rand((5, d), seed)
    pos = np.arange(5) * 3.0
    perm = np.r_[np.arange(0, d, 2), np.arange(1, d, 2)]  # interleaved -> half order
    inter = apply_rope(x, pos)
    half = apply_rope(x[..., perm], pos, layout="half")
    np.testing.assert_allclose(half, inter[..., perm], atol=1e-12)
    if d >= 4:  # and the permutation is not the identity: the layouts differ on the same input
        assert not np.allclose(apply_rope(x, pos, layout="half"), inter)


# --- the six sanity checks of the paper-to-code drill ----------------------------------------


def test_drill_sanity_checks():
    rng = np.random.default_rng(0)
    dim = 8
    q, k = rng.standard_normal(dim), rng.standard_normal(dim)
    x = rng.standard_normal((4, dim))
    # 1 norm
    xr = apply_rope(x, np.arange(4))
    np.testing.assert_allclose(np.linalg.norm(x, axis=-1), np.linalg.norm(xr, axis=-1))
    # 2 position 0 is the identity
    x0 = rng.standard_normal((1, dim))
    np.testing.assert_allclose(apply_rope(x0, [0]), x0)
    # 3 relative-offset invariance
    assert score(q, k, 5, 2) == pytest.approx(score(q, k, 5 + 17, 2 + 17), abs=1e-12)
    # 4 shape
    big = rng.standard_normal((2, 6, 10))
    assert apply_rope(big, np.arange(6)).shape == big.shape
    # 5 different offsets, different scores
    assert abs(score(q, k, 5, 2) - score(q, k, 5, 0)) > 1e-3
    # 6 composition
    twostep = apply_rope(apply_rope(x0, [3.0]), [4.0])
    np.testing.assert_allclose(twostep, apply_rope(x0, [7.0]), atol=1e-12)


# --- context extension ---------------------------------------------------------------------


def test_linear_interpolation_divides_every_frequency():
    f, att = scaled_frequencies(64, method="linear", factor=4.0, original_max_position=2048)
    np.testing.assert_allclose(f, frequencies(64) / 4.0)
    assert att == 1.0


def test_ntk_keeps_fastest_and_divides_slowest_by_s():
    d, s = 64, 8.0
    f, att = scaled_frequencies(d, method="ntk", factor=s, original_max_position=2048)
    np.testing.assert_allclose(f, frequencies(d, 10000.0 * s ** (d / (d - 2))))
    assert f[0] == 1.0
    assert f[-1] == pytest.approx(frequencies(d)[-1] / s, rel=1e-12)
    assert att == 1.0


def test_yarn_ramp_and_attention_factor():
    d, s, L = 128, 4.0, 4096
    f, att = scaled_frequencies(d, method="yarn", factor=s, original_max_position=L)
    theta = frequencies(d)
    turns = L * theta / (2 * math.pi)  # rotations of each pair over the trained context
    np.testing.assert_allclose(f[turns > 32 * 1.5], theta[turns > 32 * 1.5])  # fast: kept
    np.testing.assert_allclose(f[turns < 1 / 1.5], theta[turns < 1 / 1.5] / s)  # slow: / s
    ratio = theta / f
    assert np.all(np.diff(ratio) >= -1e-12) and ratio.min() >= 1 - 1e-12 and ratio.max() <= s
    assert att == pytest.approx(0.1 * math.log(s) + 1)


def test_factor_one_changes_nothing():
    for method in ("linear", "ntk", "yarn"):
        f, att = scaled_frequencies(32, method=method, factor=1.0, original_max_position=512)
        np.testing.assert_allclose(f, frequencies(32), rtol=1e-12)
        assert att == pytest.approx(1.0)


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: frequencies(7), "even integer"),
        (lambda: frequencies(1), "even integer"),
        (lambda: frequencies(8, base=1.0), "base"),
        (lambda: frequencies(8, base=0.5), "base"),
        (lambda: frequencies(8, base=float("nan")), "base"),
        (lambda: apply_rope(np.ones((3, 5)), np.arange(3)), "even integer"),
        (lambda: apply_rope(np.ones((3, 4)), np.arange(3), layout="neox"), "layout"),
        (lambda: apply_rope(np.ones(4), [0]), "shape"),
        (lambda: apply_rope(np.full((1, 4), np.nan), [0]), "finite"),
        (lambda: apply_rope(np.ones((1, 4)), [np.inf]), "finite"),
        (
            lambda: scaled_frequencies(8, method="yarn", factor=0.5, original_max_position=8),
            "factor",
        ),
        (
            lambda: scaled_frequencies(8, method="dynamic_ntk", factor=2, original_max_position=8),
            "method",
        ),
        (
            lambda: scaled_frequencies(8, method="ntk", factor=2, original_max_position=0),
            "original",
        ),
    ],
)
def test_bad_input_is_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- dtypes and the cos/sin table cache --------------------------------------------------------


@pytest.mark.parametrize(("dtype", "rtol"), [(np.float16, 2e-3), (np.float32, 1e-6)])
def test_apply_rope_keeps_a_floating_dtype(dtype, rtol):
    x = rand((3, 5, 8))
    pos = np.arange(5.0) * 3
    for layout in ("interleaved", "half"):
        out = apply_rope(x.astype(dtype), pos, layout=layout)
        assert out.dtype == dtype and out.shape == x.shape
        ref = apply_rope(x.astype(dtype).astype(np.float64), pos, layout=layout)
        np.testing.assert_allclose(out, ref, rtol=rtol, atol=rtol * 4)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, bool])
def test_apply_rope_turns_integers_and_bools_into_float64(dtype):
    x = (rand((4, 6)) > 0).astype(dtype)
    out = apply_rope(x, np.arange(4.0))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, apply_rope(x.astype(np.float64), np.arange(4.0)))


def test_apply_rope_refuses_entries_that_would_overflow_their_dtype():
    np.testing.assert_allclose(  # a rotated pair is at most sqrt(2) times its largest entry
        apply_rope(np.full((1, 2), 3e4, np.float16), [np.pi / 4]).astype(np.float64),
        [[0.0, 3e4 * np.sqrt(2)]],
        atol=64,
    )
    with pytest.raises(ValueError, match="x must have entries of magnitude at most 32752"):
        apply_rope(np.full((1, 2), 6e4, np.float16), [np.pi / 4])
    with pytest.raises(ValueError, match="x must have entries of magnitude at most 8.98847e307"):
        apply_rope(np.full((1, 2), 1.7e308), [np.pi / 4])


def test_cos_sin_table_is_cos_and_sin_of_every_angle():
    theta = frequencies(8)
    pos = np.array([0.0, 1.0, -2.5, 1e4])
    cos, sin = cos_sin_table(pos, theta)
    assert cos.shape == sin.shape == (4, 4)
    for m, p in enumerate(pos):
        for i, t in enumerate(theta):
            # one product and one cos/sin each: equal to a libm call up to an ulp or two
            assert (
                abs(cos[m, i] - np.cos(p * t)) <= 1e-15 and abs(sin[m, i] - np.sin(p * t)) <= 1e-15
            )


# --- context extension against transcriptions of the published formulas ----------------------
# Each reference below is written from its source, loop by loop, independently of the package:
# Position Interpolation (Chen et al. 2023, arXiv:2306.15595, eq. 4), NTK-aware (YaRN paper,
# arXiv:2309.00071 v2, eqs. 14-16), dynamic NTK (Hugging Face's _compute_dynamic_ntk_parameters),
# YaRN (Hugging Face's _compute_yarn_parameters; the paper's eqs. 17-20 for the paper's ramp) and
# Llama 3.1 (the first published apply_scaling of meta-llama/llama-models, a loop over
# frequencies).


def _inv_freq(d, base):
    return np.array([1.0 / base ** (j / d) for j in range(0, d, 2)])


def _pi_reference(d, base, s):
    # f'(x, m) = f(x, m L / L'): rotating position m by theta is rotating m / s by theta
    return np.array([t / s for t in _inv_freq(d, base)])


def _ntk_reference(d, base, s):
    b = base * s ** (d / (d - 2))
    return np.array([b ** (-2 * i / d) for i in range(d // 2)])


def _dynamic_reference(d, base, s, L, seq_len):
    seq_len = seq_len if seq_len > L else L
    b = base * ((s * seq_len / L) - (s - 1)) ** (d / (d - 2))
    return _inv_freq(d, b)


def _yarn_hf_reference(d, base, s, L, beta_fast=32, beta_slow=1):
    def find_correction_dim(num_rotations):
        return (d * math.log(L / (num_rotations * 2 * math.pi))) / (2 * math.log(base))

    low = max(math.floor(find_correction_dim(beta_fast)), 0)
    high = min(math.ceil(find_correction_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    extrapolation_factor = 1 - ramp
    pos_freqs = np.array([base ** (j / d) for j in range(0, d, 2)])
    inv_extra, inv_inter = 1.0 / pos_freqs, 1.0 / (s * pos_freqs)
    inv = inv_inter * (1 - extrapolation_factor) + inv_extra * extrapolation_factor
    return inv, 0.1 * math.log(s) + 1.0


def _yarn_paper_reference(d, base, s, L, alpha=1.0, beta=32.0):
    out = []
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        r = L / (2 * math.pi / theta)  # eq. 17 (with b: NTK-by-parts keeps the base)
        gamma = 0.0 if r < alpha else 1.0 if r > beta else (r - alpha) / (beta - alpha)  # eq. 18
        out.append((1 - gamma) * theta / s + gamma * theta)  # eq. 20
    return np.array(out)


def _llama3_reference(freqs, scale_factor, low_freq_factor, high_freq_factor, old_context_len):
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    new_freqs = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < high_freq_wavelen:
            new_freqs.append(freq)
        elif wavelen > low_freq_wavelen:
            new_freqs.append(freq / scale_factor)
        else:
            smooth = (old_context_len / wavelen - low_freq_factor) / (
                high_freq_factor - low_freq_factor
            )
            new_freqs.append((1 - smooth) * freq / scale_factor + smooth * freq)
    return np.array(new_freqs)


EXTENSION_CASES = [
    (64, 10000.0, 1024),
    (128, 10000.0, 4096),
    (128, 500000.0, 8192),
    (16, 100.0, 64),
]


@pytest.mark.parametrize("d, base, L", EXTENSION_CASES)
@pytest.mark.parametrize("s", [1.0, 2.0, 4.0, 8.0, 3.5])
def test_every_method_matches_its_published_formula(d, base, L, s):
    def ours(method, **kw):
        return scaled_frequencies(
            d, base=base, method=method, factor=s, original_max_position=L, **kw
        )

    np.testing.assert_allclose(ours("linear")[0], _pi_reference(d, base, s), rtol=1e-12)
    np.testing.assert_allclose(ours("ntk")[0], _ntk_reference(d, base, s), rtol=1e-12)
    for seq_len in (1, L // 2, L, L + 1, 3 * L):
        np.testing.assert_allclose(
            ours("dynamic-ntk", seq_len=seq_len)[0],
            _dynamic_reference(d, base, s, L, seq_len),
            rtol=1e-12,
        )
    f, att = ours("yarn")
    ref, ref_att = _yarn_hf_reference(d, base, s, L)
    np.testing.assert_allclose(f, ref, rtol=1e-12)
    assert att == pytest.approx(ref_att, rel=1e-15)
    keep = yarn_keep(d, base=base, original_max_position=L, ramp="paper")
    theta = frequencies(d, base)
    np.testing.assert_allclose(
        (1 - keep) * theta / s + keep * theta, _yarn_paper_reference(d, base, s, L), rtol=1e-12
    )
    for lo, hi in ((1.0, 4.0), (2.0, 8.0)):
        np.testing.assert_allclose(
            ours("llama3", low_freq_factor=lo, high_freq_factor=hi)[0],
            _llama3_reference(theta, s, lo, hi, L),
            rtol=1e-12,
        )


def test_llama31_published_settings():
    """Llama 3.1: head 128, base 500000, L = 8192, s = 8: 29 pairs kept, 29 divided, 6 blended."""
    theta = frequencies(128, 500000.0)
    f, att = scaled_frequencies(
        128, base=500000.0, method="llama3", factor=8.0, original_max_position=8192
    )
    assert att == 1.0
    assert int(np.sum(f == theta)) == 29
    assert int(np.sum(np.isclose(f, theta / 8, rtol=1e-14))) == 29
    assert int(np.sum((f < theta) & (f > theta / 8))) == 6


@pytest.mark.parametrize("s", [1.0, 2.0, 8.0])
@pytest.mark.parametrize("seq_len", [1, 100, 1023, 1024])
def test_dynamic_ntk_is_no_scaling_within_the_original_context(s, seq_len):
    f, att = scaled_frequencies(
        64, method="dynamic-ntk", factor=s, original_max_position=1024, seq_len=seq_len
    )
    np.testing.assert_array_equal(f, frequencies(64))
    assert att == 1.0
    longer, _ = scaled_frequencies(
        64, method="dynamic-ntk", factor=s, original_max_position=1024, seq_len=1025
    )
    assert s == 1.0 or longer[-1] < f[-1]


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"factor": 0.99}, "factor"),
        ({"factor": float("nan")}, "factor"),
        ({"factor": float("inf")}, "factor"),
        ({"factor": None}, "factor"),
        ({"original_max_position": 0}, "original_max_position"),
        ({"original_max_position": -4}, "original_max_position"),
        ({"original_max_position": True}, "original_max_position"),
        ({"original_max_position": float("nan")}, "original_max_position"),
        ({"seq_len": 0}, "seq_len"),
        ({"seq_len": -1}, "seq_len"),
        ({"seq_len": 2.5}, "seq_len"),
        ({"method": "dynamic-ntk", "seq_len": None}, "seq_len"),
        ({"method": "llama3", "low_freq_factor": 4.0, "high_freq_factor": 1.0}, "freq_factor"),
        ({"method": "yarn", "beta_fast": 1.0, "beta_slow": 32.0}, "beta_fast"),
    ],
)
def test_bad_scaling_settings_name_the_setting(kwargs, name):
    args = {"method": "dynamic-ntk", "factor": 2.0, "original_max_position": 64, "seq_len": 8}
    with pytest.raises(ValueError, match=name):
        scaled_frequencies(16, **{**args, **kwargs})
