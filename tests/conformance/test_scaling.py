"""The five context-extension schedules of ``rope_explained.rope.scaled_frequencies`` against
``transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS`` for the same configurations: the
frequencies and the attention factor.

transformers computes the frequencies in float32 and the package in float64. A float32 power
``b ** t`` (``t = 2i/d`` in [0, 1)) is off by at most about ``(1 + t ln b) * 2**-24`` relative,
under 8.8e-7 for every base up to 1e6 (ln 1e6 < 13.9); the division by the factor, the YaRN and
Llama 3 blends and the final reciprocal add at most a few ulps (6e-8 each) more, so the
frequencies are compared with a relative tolerance of 2e-6. A wrong schedule (the paper's YaRN
ramp, an unscaled pair, another factor) is off by a factor of order ``s``, at least 1e-3 here.
The attention factor is computed in float64 on both sides, to 1e-12.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from rope_explained.rope import SCALING_METHODS, frequencies, scaled_frequencies

RTOL = 2e-6  # float32 frequencies (see the module's docstring)

HEAD_DIMS = (8, 64, 128)
BASES = (10000.0, 500000.0)
FACTORS = (2.0, 4.0, 8.0, 32.0)
CONTEXTS = (16, 2048, 8192)  # L, the original context


def hf_config(d: int, base: float, L: int, **rope) -> LlamaConfig:
    """A one-layer Llama configuration with head size ``d`` whose original context is ``L``."""
    return LlamaConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        head_dim=d,
        num_hidden_layers=1,
        vocab_size=8,
        max_position_embeddings=L,
        rope_parameters={"rope_theta": base, **rope},
    )


def hf_frequencies(rope_type: str, d: int, base: float, L: int, seq_len=None, **rope):
    """transformers' ``(inv_freq, attention_factor)`` for ``rope_type``, as float64."""
    cfg = hf_config(d, base, L, rope_type=rope_type, **rope)
    fn = ROPE_INIT_FUNCTIONS[rope_type]
    kwargs = {} if seq_len is None else {"seq_len": seq_len}
    inv_freq, attention = fn(cfg, torch.device("cpu"), **kwargs)
    assert inv_freq.dtype == torch.float32
    return inv_freq.double().numpy(), float(attention)


def assert_same(ours: tuple[np.ndarray, float], theirs: tuple[np.ndarray, float]) -> None:
    f, a = ours
    g, b = theirs
    assert f.shape == g.shape
    np.testing.assert_allclose(f, g, rtol=RTOL, atol=0)
    assert a == pytest.approx(b, rel=1e-12, abs=0)


GRID = list(itertools.product(HEAD_DIMS, BASES, FACTORS, CONTEXTS))


def test_the_package_has_the_five_methods_this_file_checks():
    assert set(SCALING_METHODS) == {"linear", "ntk", "dynamic-ntk", "yarn", "llama3"}


@pytest.mark.parametrize(("d", "base", "factor", "L"), GRID)
def test_linear_is_transformers_linear(d, base, factor, L):
    ours = scaled_frequencies(d, base=base, method="linear", factor=factor, original_max_position=L)
    assert_same(ours, hf_frequencies("linear", d, base, L, factor=factor))


@pytest.mark.parametrize(("d", "base", "factor", "L"), GRID)
def test_ntk_aware_is_transformers_dynamic_at_the_length_where_it_scales_by_s(d, base, factor, L):
    """transformers has no static NTK-aware type; its dynamic type grows the base by
    ``(f * l / L - (f - 1)) ** (d / (d - 2))``, which is ``s ** (d / (d - 2))``, the NTK-aware
    base, for ``f = s - 1`` at ``l = 2L``."""
    ours = scaled_frequencies(d, base=base, method="ntk", factor=factor, original_max_position=L)
    theirs = hf_frequencies("dynamic", d, base, L, seq_len=2 * L, factor=factor - 1.0)
    assert_same(ours, theirs)


@pytest.mark.parametrize(("d", "base", "factor", "L"), GRID)
@pytest.mark.parametrize("length", [0.5, 1.0, 1.5, 3.0, 10.0])
def test_dynamic_ntk_is_transformers_dynamic(d, base, factor, L, length):
    seq_len = max(1, round(length * L))
    ours = scaled_frequencies(
        d, base=base, method="dynamic-ntk", factor=factor, original_max_position=L, seq_len=seq_len
    )
    theirs = hf_frequencies("dynamic", d, base, L, seq_len=seq_len, factor=factor)
    assert_same(ours, theirs)
    if seq_len <= L:  # the text fits: no scaling on either side
        np.testing.assert_allclose(ours[0], frequencies(d, base), rtol=0, atol=0)


@pytest.mark.parametrize(("d", "base", "factor", "L"), GRID)
@pytest.mark.parametrize(("beta_fast", "beta_slow"), [(32.0, 1.0), (16.0, 2.0), (4.0, 0.5)])
def test_yarn_is_transformers_yarn(d, base, factor, L, beta_fast, beta_slow):
    ours = scaled_frequencies(
        d,
        base=base,
        method="yarn",
        factor=factor,
        original_max_position=L,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
    )
    theirs = hf_frequencies(
        "yarn",
        d,
        base,
        L,
        factor=factor,
        original_max_position_embeddings=L,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
    )
    assert_same(ours, theirs)
    assert ours[1] == pytest.approx(0.1 * np.log(factor) + 1.0, rel=1e-12)


@pytest.mark.parametrize(("d", "base", "factor", "L"), GRID)
@pytest.mark.parametrize(("low", "high"), [(1.0, 4.0), (2.0, 8.0), (0.5, 1.5)])
def test_llama3_is_transformers_llama3(d, base, factor, L, low, high):
    ours = scaled_frequencies(
        d,
        base=base,
        method="llama3",
        factor=factor,
        original_max_position=L,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    theirs = hf_frequencies(
        "llama3",
        d,
        base,
        L,
        factor=factor,
        original_max_position_embeddings=L,
        low_freq_factor=low,
        high_freq_factor=high,
    )
    assert_same(ours, theirs)


def test_llama31_released_configuration():
    """Llama 3.1's own numbers (head 128, base 500,000, factor 8, L = 8192, 1 and 4)."""
    ours = scaled_frequencies(
        128, base=500000.0, method="llama3", factor=8.0, original_max_position=8192
    )
    theirs = hf_frequencies(
        "llama3",
        128,
        500000.0,
        131072,
        factor=8.0,
        original_max_position_embeddings=8192,
        low_freq_factor=1.0,
        high_freq_factor=4.0,
    )
    assert_same(ours, theirs)
    # all three regimes occur: kept, divided by 8, blended
    ratio = frequencies(128, 500000.0) / ours[0]
    assert np.isclose(ratio, 1.0).any() and np.isclose(ratio, 8.0).any()
    assert ((ratio > 1.001) & (ratio < 7.999)).any()


def test_a_wrong_schedule_is_caught():
    """The tolerance separates: YaRN read as the paper's ramp, or Llama 3 with the bounds
    swapped into another band, differ from transformers by far more than RTOL."""
    kw = {"factor": 8.0, "original_max_position": 2048}
    theirs = hf_frequencies(
        "yarn", 64, 10000.0, 2048, factor=8.0, original_max_position_embeddings=2048
    )
    linear = scaled_frequencies(64, method="linear", **kw)
    with pytest.raises(AssertionError):
        assert_same(linear, theirs)
    ntk = scaled_frequencies(64, method="ntk", **kw)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(ntk[0], theirs[0], rtol=RTOL, atol=0)
