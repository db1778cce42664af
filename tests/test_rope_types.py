"""Hugging Face's rope types in ``rope_explained.rope``: the identities that tie each one to the
others (LongRoPE with unit factors is the default, proportional with the whole head is linear,
YaRN's two ramp readings meet when the ramp ends are whole pair indices), partial rotary in
``apply_rope``, and the state of dynamic NTK as transformers keeps it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rope_explained.rope import (
    LAYOUTS,
    METHODS,
    ROPE_TYPES,
    SCALING_METHODS,
    DynamicNTKState,
    apply_rope,
    frequencies,
    rotary_width,
    scaled_frequencies,
    yarn_attention_factor,
    yarn_keep,
)

RNG = np.random.default_rng(7)


def test_every_name_is_a_method():
    assert set(SCALING_METHODS) | set(ROPE_TYPES) == set(METHODS)


@pytest.mark.parametrize("seq_len", [1, 100, 2048, 2049, 50_000])
def test_dynamic_is_dynamic_ntk(seq_len):
    kw = {"factor": 4.0, "original_max_position": 2048, "seq_len": seq_len}
    f, a = scaled_frequencies(64, method="dynamic", **kw)
    g, b = scaled_frequencies(64, method="dynamic-ntk", **kw)
    assert np.array_equal(f, g) and a == b == 1.0


def test_default_is_the_plain_frequencies():
    f, a = scaled_frequencies(
        64, base=500000.0, method="default", factor=None, original_max_position=None
    )
    assert np.array_equal(f, frequencies(64, 500000.0)) and a == 1.0


# --- YaRN ------------------------------------------------------------------------------------


def _beta(pair: float, d: int, base: float, L: int) -> float:
    """The turn count r at which YaRN's correction_dim is ``pair``:
    L / (2 pi r) = base**(2 pair / d)."""
    return L / (2 * math.pi) * base ** (-2 * pair / d)


def test_yarn_truncated_and_not_agree_when_the_ramp_ends_are_whole_pairs():
    d, base, L = 64, 10000.0, 4096
    # ends just inside 5 and 20, so that rounding down and up gives 5 and 20
    kw = {"base": base, "original_max_position": L}
    kw["beta_fast"], kw["beta_slow"] = _beta(5 + 1e-9, d, base, L), _beta(20 - 1e-9, d, base, L)
    truncated = yarn_keep(d, truncate=True, **kw)
    exact = yarn_keep(d, truncate=False, **kw)
    np.testing.assert_allclose(truncated, exact, rtol=0, atol=1e-8)
    assert truncated[5] == 1.0 and truncated[20] == 0.0 and 0 < truncated[12] < 1


def test_yarn_truncate_matters_when_the_ends_are_not_whole_pairs():
    kw = {"base": 150000.0, "original_max_position": 4096}  # gpt-oss
    truncated = yarn_keep(64, truncate=True, **kw)
    exact = yarn_keep(64, truncate=False, **kw)
    assert np.abs(truncated - exact).max() > 0.01
    # the rounded ramp is the wider one: it keeps at least as much at the fast end and
    # interpolates at least as much at the slow end
    low = np.flatnonzero(exact < 1)[0]
    assert (truncated[:low] == 1).all()


@pytest.mark.parametrize("s", [1.0, 2.0, 40.0])
def test_yarn_attention_factor(s):
    assert yarn_attention_factor(s) == pytest.approx(0.1 * math.log(s) + 1, rel=1e-15)
    assert yarn_attention_factor(s, mscale=0.7, mscale_all_dim=0.7) == 1.0
    ratio = (0.1 * 2 * math.log(s) + 1) / (0.1 * 0.5 * math.log(s) + 1)
    assert yarn_attention_factor(s, mscale=2.0, mscale_all_dim=0.5) == pytest.approx(
        ratio, rel=1e-15
    )
    # one of the two missing or zero: the plain factor, as in transformers
    assert yarn_attention_factor(s, mscale=2.0) == yarn_attention_factor(s)
    assert yarn_attention_factor(s, mscale=0.0, mscale_all_dim=2.0) == yarn_attention_factor(s)


def test_an_explicit_attention_factor_is_kept_and_moves_no_frequency():
    kw = {"method": "yarn", "factor": 8.0, "original_max_position": 2048}
    f, a = scaled_frequencies(64, attention_factor=0.5, **kw)
    g, b = scaled_frequencies(64, **kw)
    assert a == 0.5 and b == pytest.approx(0.1 * math.log(8) + 1) and np.array_equal(f, g)


# --- LongRoPE --------------------------------------------------------------------------------


@pytest.mark.parametrize("seq_len", [None, 1, 4096])
def test_longrope_with_unit_short_factors_is_the_default_up_to_the_original_context(seq_len):
    ones, twos = np.ones(48), np.full(48, 2.0)
    kw = {"method": "longrope", "factor": 32.0, "original_max_position": 4096}
    f, a = scaled_frequencies(96, seq_len=seq_len, short_factor=ones, long_factor=twos, **kw)
    np.testing.assert_allclose(f, frequencies(96), rtol=1e-15, atol=0)
    assert a == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


def test_longrope_past_the_original_context_divides_by_the_long_factors():
    ones, ext = np.ones(48), np.linspace(1.0, 40.0, 48)
    kw = {"method": "longrope", "factor": 32.0, "original_max_position": 4096}
    f, _ = scaled_frequencies(96, seq_len=4097, short_factor=ones, long_factor=ext, **kw)
    np.testing.assert_allclose(f, frequencies(96) / ext, rtol=1e-15, atol=0)
    same, _ = scaled_frequencies(
        96, seq_len=4097, short_factor=ones, long_factor=np.full(48, 32.0), **kw
    )
    linear, _ = scaled_frequencies(96, method="linear", factor=32.0, original_max_position=None)
    np.testing.assert_allclose(same, linear, rtol=1e-15, atol=0)


# --- proportional ----------------------------------------------------------------------------


@pytest.mark.parametrize(("d", "p", "s"), [(256, 0.25, 1.0), (64, 0.5, 8.0), (16, 0.3, 2.0)])
def test_proportional_keeps_the_whole_heads_frequencies_on_the_pairs_that_turn(d, p, s):
    """Partial rotary renormalises the exponent to the rotary width w (b**(-2i/w), reaching
    down to about 1/b); proportional keeps the whole head's b**(-2i/d) for the first k pairs,
    so its slowest turning pair is b**(-2(k-1)/d), and gives the other pairs frequency 0."""
    f, a = scaled_frequencies(
        d, method="proportional", factor=s, original_max_position=None, partial_rotary_factor=p
    )
    k = int(p * d // 2)
    assert f.shape == (d // 2,) and a == 1.0
    np.testing.assert_allclose(f[:k], frequencies(d)[:k] / s, rtol=1e-15, atol=0)
    assert (f[k:] == 0).all() and (f[:k] > 0).all()


def test_proportional_with_the_whole_head_is_linear():
    f, _ = scaled_frequencies(
        64, method="proportional", factor=4.0, original_max_position=None, partial_rotary_factor=1.0
    )
    g, _ = scaled_frequencies(64, method="linear", factor=4.0, original_max_position=None)
    assert np.array_equal(f, g)


def test_proportional_pairs_of_frequency_zero_never_move():
    d = 16
    f, _ = scaled_frequencies(
        d,
        method="proportional",
        factor=None,
        original_max_position=None,
        partial_rotary_factor=0.25,
    )
    x = RNG.normal(size=(5, d))
    y = apply_rope(x, np.arange(5) * 1000.0, layout="half", inv_freq=f)
    still = np.r_[2 : d // 2, d // 2 + 2 : d]  # pairs 2..7: coordinates (i, i + d/2)
    assert np.array_equal(y[:, still], x[:, still])
    assert not np.allclose(y[1:, [0, 8]], x[1:, [0, 8]])


# --- partial rotary --------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("d", "w"), [(8, 2), (64, 32), (80, 32), (128, 96), (64, 64)])
def test_partial_rotary_turns_the_head_and_leaves_the_tail_bit_identical(layout, d, w):
    x = RNG.normal(size=(2, 7, d)).astype(np.float32)
    positions = np.arange(7) * 3.0
    inv_freq = frequencies(w, 500000.0)
    y = apply_rope(x, positions, layout=layout, inv_freq=inv_freq, rotary_dim=w)
    assert y.dtype == x.dtype
    assert np.array_equal(y[..., w:], x[..., w:])
    assert np.array_equal(
        y[..., :w], apply_rope(x[..., :w], positions, layout=layout, inv_freq=inv_freq)
    )
    np.testing.assert_allclose(
        np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-5, atol=0
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: apply_rope(np.ones((2, 8)), [0, 1], rotary_dim=10), "rotary_dim"),
        (lambda: apply_rope(np.ones((2, 8)), [0, 1], rotary_dim=3), "rotary_dim"),
        (
            lambda: apply_rope(np.ones((2, 8)), [0, 1], inv_freq=np.ones(4), rotary_dim=4),
            "inv_freq",
        ),
        (lambda: rotary_width(64, 0.3), "transformers would take 10 frequencies"),
        (lambda: rotary_width(64, 0.0), "partial_rotary_factor"),
        (
            lambda: scaled_frequencies(
                96, method="longrope", factor=2.0, original_max_position=64, short_factor=[1.0]
            ),
            "short_factor",
        ),
        (
            lambda: scaled_frequencies(8, method="yarn", factor=2.0, original_max_position=None),
            "original_max_position",
        ),
        (
            lambda: scaled_frequencies(8, method="linear", factor=None, original_max_position=None),
            "factor",
        ),
    ],
)
def test_bad_input_is_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_rotary_width_is_int_of_the_product():
    assert rotary_width(80, 0.4) == 32 and rotary_width(128, 0.75) == 96 and rotary_width(64) == 64


# --- dynamic NTK with state ------------------------------------------------------------------


def test_dynamic_ntk_state_keeps_the_largest_frequencies_until_a_text_fits_again():
    """32, 16, 8 and 4 tokens, head 8, L = 8, factor 4: the 16-token text gets the 32-token
    frequencies, a text of exactly L keeps them, and one shorter than L resets."""
    kw = {"base": 10000.0, "factor": 4.0, "original_max_position": 8}
    state = DynamicNTKState(8, **kw)
    stateless = {
        n: scaled_frequencies(8, method="dynamic", seq_len=n, **kw)[0] for n in (32, 16, 8, 4)
    }
    assert np.array_equal(state.inv_freq(32), stateless[32])
    assert np.array_equal(state.inv_freq(16), stateless[32])
    assert not np.allclose(stateless[16], stateless[32])
    assert np.array_equal(state.inv_freq(8), stateless[32])
    assert np.array_equal(state.inv_freq(4), frequencies(8))
    assert state.max_seq_len_cached == 8
    assert np.array_equal(state.inv_freq(16), stateless[16])  # grows again from L


def test_dynamic_ntk_state_returns_copies():
    state = DynamicNTKState(8, factor=2.0, original_max_position=8)
    f = state.inv_freq(20)
    f[:] = 0
    assert (state.inv_freq(20) > 0).all()
