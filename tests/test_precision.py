"""RoPE in low precision (rope_explained.precision) and the numbers and claims of the page
real-models/precision.md.

The roundings are checked against ml_dtypes casts written out here; the previous-token head's
attention against a brute-force softmax over every key; the failure positions against the
formats' integer grids.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from pages import number, value

from rope_explained import precision
from rope_explained.figures.real_models import precision as page
from rope_explained.model import forward
from rope_explained.precision import (
    PIPELINES,
    angle_error,
    angles,
    cos_sin_error,
    first_failure,
    log_positions,
    previous_token_attention,
    rotate_in,
    score_drift,
)
from rope_explained.rope import apply_rope, frequencies

BF16 = ml_dtypes.bfloat16


def head_vectors():
    """W_q h and W_k h of layer 0 for a token (the head reads only the bias coordinate)."""
    tr = forward("ab")
    return tr.q0_pre[1], tr.k0_pre[1]


def brute_attention(m: int, angle_dtype, storage_dtype) -> float:
    """Layer-0 weight on m - 1 over all keys 0..m, every key rotated on its own."""
    q_pre, k_pre = head_vectors()
    n = np.arange(m + 1, dtype=np.float64)
    K = rotate_in(np.tile(k_pre, (m + 1, 1)), n, angle_dtype, storage_dtype)
    q = rotate_in(q_pre[None], np.array([float(m)]), angle_dtype, storage_dtype)[0]
    acc = np.float64 if storage_dtype == "float64" else np.float32
    s = (K.astype(acc) @ q.astype(acc)).astype(np.float64)
    w = np.exp(s - s.max())
    return float(w[m - 1] / w.sum())


def test_angles_round_like_the_format():
    p = np.array([1.0, 257.0, 1001.0, 15962.0])
    theta = frequencies(64)
    got = angles(p, "bfloat16")
    by_hand = (
        (p.astype(BF16).astype(np.float64)[:, None] * theta.astype(BF16).astype(np.float64))
        .astype(BF16)
        .astype(np.float64)
    )
    assert np.array_equal(got, by_hand)
    assert np.array_equal(angles(p, "float64"), p[:, None] * theta)
    # float32: within the bound 2 m theta_i 2^-24 of the page's equation
    big = log_positions()
    err = np.abs(angles(big, "float32") - big[:, None] * theta)
    assert (err <= 2 * big[:, None] * theta * 2.0**-24 + 1e-300).all()
    assert np.array_equal(angle_error(big, "float32"), err.max(axis=1))


def test_float16_positions_stop_at_its_largest_value():
    with pytest.raises(ValueError, match="positions"):
        angles(np.array([65505.0]), "float16")
    with pytest.raises(ValueError, match="positions"):
        previous_token_attention(np.array([70000.0]), "float16 storage")
    assert value("precision-float16-max") == "65,504"
    assert page.FP16_MAX == float(np.finfo(np.float16).max)


def test_rotate_in_float64_is_apply_rope():
    x = np.random.default_rng(0).normal(size=(5, 8))
    p = np.array([0.0, 3.0, 17.0, 1000.0, 999999.0])
    assert np.allclose(rotate_in(x, p, "float64", "float64"), apply_rope(x, p), atol=1e-9)
    got = rotate_in(x, p, "float32", "bfloat16")
    assert np.array_equal(got, got.astype(BF16).astype(np.float64))  # values bf16 holds


def test_cos_sin_error_floor_and_slope():
    p = log_positions()
    storage = cos_sin_error(p, "float32", "bfloat16")
    assert storage.max() <= 2.0**-9 + 2 * (p.max() * 2.0**-24)  # half a bf16 step, + the angle
    assert storage[:10].min() > 2.0**-10  # a floor, from the first position on
    fp32 = cos_sin_error(p, "float32", "float32")
    assert fp32[-1] > 100 * fp32[0]  # grows with the position
    assert number(value("precision-fp32-cos-error-top")) == pytest.approx(fp32[-1], rel=0.5)
    assert number(value("precision-bf16-storage-cos-error")) == pytest.approx(
        cos_sin_error(np.array([1.0]), "float32", "bfloat16")[0], rel=0.5
    )


def test_first_failures_are_the_first_inexact_integers():
    assert first_failure("bfloat16") == 257 == 2**8 + 1
    assert first_failure("float16", limit=2100) == 2049 == 2**11 + 1
    assert value("precision-bf16-failure") == "257"
    assert value("precision-fp16-failure") == "2,049"
    assert value("precision-bf16-failure-rounded") == "256"
    assert (
        value("precision-exact-bfloat16") == "256" and value("precision-exact-float16") == "2,048"
    )
    assert value("precision-exact-float32") == f"{2**24:,}"
    # brute force over every key: fine just before, failing at the position found
    for angle, storage, m in (("bfloat16", "bfloat16", 257), ("float16", "float16", 2049)):
        assert brute_attention(m - 1, angle, storage) > 0.5
        assert brute_attention(m, angle, storage) < 0.5
    # float32 angles hold up over the same range
    assert first_failure("bfloat16 storage", limit=600) == 0


def test_grouped_and_windowed_attention_agree_with_brute_force():
    for name, m in (("bfloat16", 300), ("bfloat16", 1000), ("float32", 700), ("float16", 2100)):
        a, s = PIPELINES[name]
        assert previous_token_attention(np.array([m]), name)[0] == pytest.approx(
            brute_attention(m, a, s), abs=1e-5
        )
    # past the window every key scores far below the previous token: the window is enough
    theta = frequencies(64)
    far = np.arange(page_window(), 20001, dtype=np.float64)
    per_alpha = np.cos(np.outer(far, theta)).sum(axis=1).max()
    assert 10.0 * (32 - per_alpha) > 100  # e^-100 per key, 10**6 keys: nothing
    big = np.array([10**6])
    assert previous_token_attention(big, "float32", window=4096)[0] == pytest.approx(
        previous_token_attention(big, "float32")[0], abs=1e-12
    )


def page_window() -> int:
    from rope_explained import precision

    return precision.WINDOW


def test_score_drift_claims():
    p = log_positions()[1:]
    f64 = score_drift(p, "float64")
    f32 = score_drift(p, "float32")
    assert f64.max() < 1e-12
    # the page: within one float32 unit at 320 up to the limit it names (the package's sum finds
    # exactly 0 there, which the page says depends on the order of summation), then above it
    ulp = float(np.spacing(np.float32(320.0)))
    assert number(value("precision-fp32-ulp")) == pytest.approx(ulp, rel=1e-3)
    zero_until = int(value("precision-fp32-exact-until").replace(",", ""))
    assert f32[p <= zero_until].max() <= ulp and f32[p > zero_until][0] > 0
    assert number(value("precision-drift-fp32-top")) >= f32.max() > 0
    bf = score_drift(p, "bfloat16 storage")
    assert number(value("precision-drift-bf16-storage-max")) >= bf.max()
    assert bf.max() < 1.0 < score_drift(p, "bfloat16").max()
    # the exact peak: alpha d / 2
    assert value("precision-peak-score") == "320"


def test_previous_token_head_values():
    for name in ("float32", "bfloat16 storage"):
        a = page.attention(name)
        vid = {"float32": "fp32", "bfloat16 storage": "bf16-storage"}[name]
        got = float(value(f"precision-min-attention-{vid}"))
        assert got <= a.min() < got + 1e-4
    for name in ("float64", "float32", "bfloat16 storage", "float16 storage"):
        assert page.attention(name).min() > 0.99
    p = np.array([5000, 60000])
    assert (previous_token_attention(p, "bfloat16") < 0.5).all()
    assert (previous_token_attention(p, "float16") < 0.5).all()


def test_format_values():
    assert value("precision-bits-bfloat16") == "8"
    assert value("precision-bits-float16") == "11" and value("precision-bits-float32") == "24"
    assert number(value("precision-max-float32")) == pytest.approx(3.4e38, rel=0.01)
    assert number(value("precision-fp32-angle-bound")) == pytest.approx(2e6 * 2.0**-24, rel=0.5)
    err = angle_error(np.array([1e6]), "float32")[0]
    assert err <= 2e6 * 2.0**-24
    assert number(value("precision-fp32-angle-error")) == pytest.approx(err, rel=0.5)
    assert number(value("precision-bf16-angle-error")) > 2 * np.pi


def test_fp32_angle_of_the_fastest_pair_is_exact():
    """The page: at 10**6 the fastest pair's float32 angle is exact (integer times 1), and the
    largest error over the pairs is in the pair the page names; recomputed in numpy float32."""
    theta32 = frequencies(64).astype(np.float32)
    got = (np.float32(1e6) * theta32).astype(np.float64)
    err = np.abs(got - 1e6 * frequencies(64))
    assert err[0] == 0.0 and angle_error(np.array([1e6]), "float32")[0] == err.max()
    assert value("precision-fp32-angle-worst-pair") == str(int(err.argmax()))
    assert err.max() <= 2e6 * frequencies(64)[err.argmax()] * 2.0**-24


def test_fp32_zero_drift_depends_on_the_order_of_summation():
    """The page: added one after another in float32, the same rotated vectors drift by whole
    units of float32's last place at 320 (so the package's exact zero is an accident of its sum
    order), and by no more than one. Recomputed with a plain Python loop in float32."""
    from rope_explained.precision import _head

    ulp = np.float32(np.spacing(np.float32(320.0)))
    until = int(value("precision-fp32-exact-until").replace(",", ""))
    p = log_positions()[1:]
    p = p[p <= until]
    q_pre, k_pre = _head()

    def in_order(m: float) -> np.float32:
        q = rotate_in(q_pre[None], np.array([m]), "float32", "float32")[0].astype(np.float32)
        k = rotate_in(k_pre[None], np.array([m - 1]), "float32", "float32")[0].astype(np.float32)
        total = np.float32(0.0)
        for a, b in zip(q, k, strict=True):
            total = np.float32(total + np.float32(a * b))
        return total

    s1 = in_order(1.0)
    drift = np.array([abs(float(in_order(float(m))) - float(s1)) for m in p])
    units = drift / float(ulp)
    assert np.array_equal(units, np.round(units))  # whole units: scores on float32's grid
    assert units.max() == int(value("precision-fp32-sequential-max-ulps")) == 1
    assert int(value("precision-fp32-sequential-count")) == np.count_nonzero(units) > 0
    assert int(value("precision-fp32-sequential-of")) == p.size


def test_float32_rotation_cast_back_keeps_first_order_scatter():
    """The page: Meta's recipe (rotation in float32, q and k cast back to the model's format)
    leaves the drift of the same size as storing in that format: within a factor 2 of it, and
    more than 100 times the float32 recipe's largest drift over the same positions (or one
    float32 unit at 320, if that is larger); the page's values are the maxima rounded up. The
    recipe itself recomputed here by hand: widen, rotate in float32, round."""
    p = log_positions()[1:]
    ulp = float(np.spacing(np.float32(320.0)))
    for short, fmt in (("bf16", "bfloat16"), ("fp16", "float16")):
        q = p[p <= 65504] if fmt == "float16" else p
        f32 = max(score_drift(q, "float32").max(), ulp)
        store = score_drift(q, f"{fmt} storage").max()
        cast = score_drift(q, f"{fmt}, float32 rotation").max()
        assert cast > 100 * f32 and 0.5 < cast / store < 2
        for vid, got in ((f"precision-drift-{short}-cast-max", cast),
                         (f"precision-drift-{short}-storage-max", store)):  # fmt: skip
            assert got <= number(value(vid)) < got * 1.05  # rounded up by at most a digit
    # by hand: Meta's order of operations for one query, in numpy
    from rope_explained.precision import DTYPES, _head

    bf = DTYPES["bfloat16"]
    q_pre, _ = _head()
    m = 1000.0
    theta = frequencies(64).astype(np.float32)
    ang = (np.float32(m) * theta).astype(np.float32)
    c = np.cos(ang.astype(np.float64)).astype(np.float32)
    s_ = np.sin(ang.astype(np.float64)).astype(np.float32)
    x = q_pre.astype(bf).astype(np.float32)
    a, b = x[0::2], x[1::2]
    out = np.empty(64, np.float32)
    out[0::2], out[1::2] = a * c - b * s_, a * s_ + b * c
    want = out.astype(bf).astype(np.float64)
    got = precision._rotate(q_pre[None], np.array([m]), DTYPES["float32"], bf, DTYPES["float32"])
    assert np.array_equal(got[0], want)  # the same roundings in the same order: bit for bit
