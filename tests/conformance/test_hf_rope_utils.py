"""Hugging Face's own RoPE tests, ported to run the package: ``RopeTest`` of transformers'
``tests/utils/test_modeling_rope_utils.py``, as stored at commit
e42e4a43c16b458045aa7b0f721cfe4015680880 (the version this port was written from; the file
is in neither the wheel nor the source distribution of a release).

Each case gives the package (through ``hf_config.package_frequencies``) Hugging Face's inputs
and checks it with Hugging Face's assertion and tolerance: ``torch.testing.assert_close`` on
float32 tensors (its defaults, rtol 1.3e-6 and atol 1e-5), Hugging Face's margins, and its
exact equalities for attention factors. Every case also runs on the installed transformers
itself, so that a case that no longer describes transformers fails as well.

Ported, every numerical case: the default frequencies, linear, dynamic NTK (no scaling up to
the original length, a snapshot at 16,384), YaRN (the attention factor, derived and given
outright, the bounds, beta_fast = 1000, a snapshot), LongRoPE (the attention factor, derived
and given outright, the short and the long factors) and Llama 3 (the attention factor, the
bounds, high_freq_factor = 1000, a snapshot). LongRoPE's Check 3 is adapted to transformers 5,
which chooses the long factors by the length of the text (``seq_len`` past the original
context) where the stored test chose them by ``factor > 1``; the stored reading is kept as a
case transformers 5 no longer passes. Not ported: ``test_rope_validation`` and the
``*_function_bc`` cases (transformers' own argument handling, with no counterpart in the
package).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hf_config import package_frequencies
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

IMPLEMENTATIONS = ["package", "transformers"]
CPU = torch.device("cpu")


def rope_fn(impl: str, rope: dict | None = None, seq_len: int | None = None, native=False):
    """``(inv_freq, attention_scale)`` of transformers' default Llama configuration (head 128,
    base 10000, 2048 positions) with these rope parameters, from ``impl``: float32 tensors, as
    Hugging Face's snapshots and tolerances expect. ``native``: in the implementation's own
    precision instead (the package's float64), for the order comparisons, whose bounds are
    then formed in that precision and rounded to float32 once, as the frequencies are:
    Hugging Face forms them in float32 from float32 frequencies, and the package's
    ``theta / s`` rounded once can sit one ulp below transformers' ``float32(theta) / s``
    (pair 48 of Llama 3 with s = 10: 9.9999997e-05 against 1.0000001e-04)."""
    config = LlamaConfig()
    if rope is not None:
        config.rope_parameters = {"rope_theta": 10000.0, **rope}
    if impl == "package":
        inv_freq, attention = package_frequencies(config, seq_len)
        dtype = np.float64 if native else np.float32
        return torch.from_numpy(np.asarray(inv_freq, dtype=dtype)), attention
    rope_type = config.rope_parameters.get("rope_type", "default")
    if rope_type == "default":
        return LlamaRotaryEmbedding.compute_default_rope_parameters(config, device=CPU)
    kwargs = {} if seq_len is None else {"seq_len": seq_len}
    return ROPE_INIT_FUNCTIONS[rope_type](config, CPU, **kwargs)


def default_inv_freq(impl: str, native: bool = False) -> torch.Tensor:
    return rope_fn(impl, native=native)[0]


def test_the_inputs_are_hugging_faces():
    """The port's input sanity checks (transformers 5 names the rope settings
    rope_parameters)."""
    config = LlamaConfig()
    assert config.hidden_size == 4096 and config.num_attention_heads == 32
    assert config.rope_parameters["rope_theta"] == 10000.0
    assert config.rope_parameters.get("partial_rotary_factor", 1.0) == 1.0


# fmt: off
DEFAULT_EXPECTED = [
    1.0000e+00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
    4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
    1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.6596e-02,
    7.4989e-02, 6.4938e-02, 5.6234e-02, 4.8697e-02, 4.2170e-02, 3.6517e-02,
    3.1623e-02, 2.7384e-02, 2.3714e-02, 2.0535e-02, 1.7783e-02, 1.5399e-02,
    1.3335e-02, 1.1548e-02, 1.0000e-02, 8.6596e-03, 7.4989e-03, 6.4938e-03,
    5.6234e-03, 4.8697e-03, 4.2170e-03, 3.6517e-03, 3.1623e-03, 2.7384e-03,
    2.3714e-03, 2.0535e-03, 1.7783e-03, 1.5399e-03, 1.3335e-03, 1.1548e-03,
    1.0000e-03, 8.6596e-04, 7.4989e-04, 6.4938e-04, 5.6234e-04, 4.8697e-04,
    4.2170e-04, 3.6517e-04, 3.1623e-04, 2.7384e-04, 2.3714e-04, 2.0535e-04,
    1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
]
DYNAMIC_EXPECTED = [
    1.0000e+00, 8.0931e-01, 6.5498e-01, 5.3008e-01, 4.2900e-01, 3.4720e-01,
    2.8099e-01, 2.2741e-01, 1.8404e-01, 1.4895e-01, 1.2055e-01, 9.7558e-02,
    7.8955e-02, 6.3899e-02, 5.1714e-02, 4.1853e-02, 3.3872e-02, 2.7413e-02,
    2.2185e-02, 1.7955e-02, 1.4531e-02, 1.1760e-02, 9.5176e-03, 7.7027e-03,
    6.2339e-03, 5.0451e-03, 4.0831e-03, 3.3045e-03, 2.6744e-03, 2.1644e-03,
    1.7517e-03, 1.4176e-03, 1.1473e-03, 9.2852e-04, 7.5146e-04, 6.0817e-04,
    4.9220e-04, 3.9834e-04, 3.2238e-04, 2.6091e-04, 2.1115e-04, 1.7089e-04,
    1.3830e-04, 1.1193e-04, 9.0585e-05, 7.3312e-05, 5.9332e-05, 4.8018e-05,
    3.8861e-05, 3.1451e-05, 2.5453e-05, 2.0600e-05, 1.6672e-05, 1.3492e-05,
    1.0920e-05, 8.8374e-06, 7.1522e-06, 5.7883e-06, 4.6845e-06, 3.7912e-06,
    3.0683e-06, 2.4832e-06, 2.0097e-06, 1.6265e-06,
]
YARN_EXPECTED = [
    1.0000e+00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
    4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
    1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.3479e-02,
    6.9590e-02, 5.7925e-02, 4.8136e-02, 3.9931e-02, 3.3061e-02, 2.7315e-02,
    2.2515e-02, 1.8512e-02, 1.5177e-02, 1.2403e-02, 1.0101e-02, 8.1924e-03,
    6.6143e-03, 5.3120e-03, 4.2400e-03, 3.3599e-03, 2.6396e-03, 2.0520e-03,
    1.5746e-03, 1.1882e-03, 8.7713e-04, 6.2810e-04, 4.3007e-04, 2.7384e-04,
    2.3714e-04, 2.0535e-04, 1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
    1.0000e-04, 8.6596e-05, 7.4989e-05, 6.4938e-05, 5.6234e-05, 4.8697e-05,
    4.2170e-05, 3.6517e-05, 3.1623e-05, 2.7384e-05, 2.3714e-05, 2.0535e-05,
    1.7783e-05, 1.5399e-05, 1.3335e-05, 1.1548e-05,
]
LLAMA3_EXPECTED = [
    1.0000e+00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
    4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
    1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.6596e-02,
    7.4989e-02, 6.4938e-02, 5.6234e-02, 4.8697e-02, 4.2170e-02, 3.6517e-02,
    3.1623e-02, 2.7384e-02, 2.3714e-02, 2.0535e-02, 1.7783e-02, 1.5399e-02,
    1.3335e-02, 1.0730e-02, 7.7785e-03, 5.6009e-03, 3.9991e-03, 2.8248e-03,
    1.9675e-03, 1.3449e-03, 8.9549e-04, 5.7363e-04, 3.4539e-04, 2.7384e-04,
    2.3714e-04, 2.0535e-04, 1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
    1.0000e-04, 8.6596e-05, 7.4989e-05, 6.4938e-05, 5.6234e-05, 4.8697e-05,
    4.2170e-05, 3.6517e-05, 3.1623e-05, 2.7384e-05, 2.3714e-05, 2.0535e-05,
    1.7783e-05, 1.5399e-05, 1.3335e-05, 1.1548e-05,
]
# fmt: on


def expected(values: list[float]) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float32)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_default_rope_numerically(impl):
    inv_freq, attention_scale = rope_fn(impl)
    assert attention_scale == 1.0  # attention scale is always 1 for default RoPE
    torch.testing.assert_close(inv_freq, expected(DEFAULT_EXPECTED))


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_linear_rope_numerically(impl, factor):
    inv_freq, attention_scale = rope_fn(impl, {"rope_type": "linear", "factor": factor})
    assert attention_scale == 1.0
    torch.testing.assert_close(inv_freq, default_inv_freq(impl) / factor)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_dynamic_rope_does_not_scale_within_the_original_length(impl, factor):
    rope = {"rope_type": "dynamic", "factor": factor}
    inv_freq, attention_scale = rope_fn(impl, rope)
    assert attention_scale == 1.0
    torch.testing.assert_close(inv_freq, default_inv_freq(impl))
    inv_freq, _ = rope_fn(impl, rope, seq_len=1)
    torch.testing.assert_close(inv_freq, default_inv_freq(impl))


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_dynamic_rope_numerically(impl):
    factor = 10.0
    inv_freq, _ = rope_fn(impl, {"rope_type": "dynamic", "factor": factor}, seq_len=16384)
    with pytest.raises(AssertionError):  # it is NOT a linear factor
        torch.testing.assert_close(inv_freq, default_inv_freq(impl) / factor)
    torch.testing.assert_close(inv_freq, expected(DYNAMIC_EXPECTED))


def _yarn(factor: float, **more) -> dict:
    # transformers 5 takes the original length from the rope parameters
    return {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": 2048, **more}


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_yarn_attention_factor_default(impl, factor):
    _, attention_scale = rope_fn(impl, _yarn(factor))
    assert attention_scale == 0.1 * math.log(factor) + 1.0


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_yarn_attention_factor_given(impl, factor):
    _, attention_scale = rope_fn(impl, _yarn(factor, attention_factor=0.5), seq_len=1)
    assert attention_scale == 0.5


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_yarn_rope_numerically(impl):
    factor, margin = 10.0, 1e-8
    default = default_inv_freq(impl, native=True)
    lower = ((default / factor) - margin).float()
    upper = (default + margin).float()
    inv_freq = rope_fn(impl, _yarn(factor, beta_fast=32, beta_slow=1), native=True)[0].float()
    assert all(lower[i] <= value <= upper[i] for i, value in enumerate(inv_freq))
    # a very high beta_fast interpolates every pair but the first
    inv_freq = rope_fn(impl, _yarn(factor, beta_fast=1000, beta_slow=1), native=True)[0].float()
    interpolating = [value < upper[i] for i, value in enumerate(inv_freq)]
    assert not interpolating[0] and all(interpolating[1:])
    inv_freq, _ = rope_fn(impl, _yarn(factor, beta_fast=1000, beta_slow=1))
    torch.testing.assert_close(inv_freq[-20:], default_inv_freq(impl)[-20:] / factor)
    # the snapshot
    inv_freq, _ = rope_fn(impl, _yarn(factor, beta_fast=32, beta_slow=1))
    torch.testing.assert_close(inv_freq, expected(YARN_EXPECTED))


HEAD = 128  # LlamaConfig's hidden_size // num_attention_heads
SHORT = [2.0] * (HEAD // 2)
LONG = torch.ones(HEAD // 2).cumsum(0).tolist()


def _longrope(factor: float, **more) -> dict:
    return {"rope_type": "longrope", "factor": factor, "short_factor": SHORT, "long_factor": LONG,
            **more}  # fmt: skip


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_longrope_attention_factor(impl, factor):
    # transformers 5 sets the original length to max_position_embeddings (2048) when absent
    _, attention_scale = rope_fn(impl, _longrope(factor))
    assert attention_scale == math.sqrt(1 + math.log(factor) / math.log(2048))
    _, attention_scale = rope_fn(impl, _longrope(factor, attention_factor=0.5), seq_len=1)
    assert attention_scale == 0.5


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_longrope_rope_numerically(impl):
    default = default_inv_freq(impl)
    # Check 2: factor 1, the short factors
    inv_freq, _ = rope_fn(impl, _longrope(1.0))
    torch.testing.assert_close(inv_freq, default / torch.tensor(SHORT))
    # Check 3, as transformers 5 reads it: a text longer than the original 2,048 positions
    inv_freq, _ = rope_fn(impl, _longrope(10.0), seq_len=2049)
    torch.testing.assert_close(inv_freq, default / torch.tensor(LONG))
    inv_freq, _ = rope_fn(impl, _longrope(10.0), seq_len=2048)
    torch.testing.assert_close(inv_freq, default / torch.tensor(SHORT))


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_longrope_no_longer_chooses_by_factor(impl):
    """The stored Check 3 (factor 10, no length: the long factors) describes neither
    transformers 5 nor the package: both give the short factors."""
    inv_freq, _ = rope_fn(impl, _longrope(10.0))
    with pytest.raises(AssertionError):
        torch.testing.assert_close(inv_freq, default_inv_freq(impl) / torch.tensor(LONG))


def _llama3(factor: float, high: float = 4) -> dict:
    return {
        "rope_type": "llama3",
        "factor": factor,
        "original_max_position_embeddings": 2048,
        "low_freq_factor": 1,
        "high_freq_factor": high,
    }


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("factor", [2.0, 10.0, 20.0])
def test_llama3_attention_factor(impl, factor):
    assert rope_fn(impl, _llama3(factor))[1] == 1.0


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_llama3_rope_numerically(impl):
    factor = 10.0
    default = default_inv_freq(impl, native=True)
    lower, upper = (default / factor).float(), default.float()
    inv_freq = rope_fn(impl, _llama3(factor), native=True)[0].float()
    assert all(lower[i] <= value <= upper[i] for i, value in enumerate(inv_freq))
    # with a very high high_freq_factor no pair counts as fast: every one is scaled
    inv_freq = rope_fn(impl, _llama3(factor, high=1000), native=True)[0].float()
    assert all(value < upper[i] for i, value in enumerate(inv_freq))
    inv_freq, _ = rope_fn(impl, _llama3(factor))
    torch.testing.assert_close(inv_freq, expected(LLAMA3_EXPECTED))


@pytest.mark.parametrize(
    ("rope", "snapshot"),
    [
        ({"rope_type": "linear", "factor": 10.0}, YARN_EXPECTED),  # YaRN read as linear
        (_llama3(10.0, high=2), LLAMA3_EXPECTED),  # another band
        ({"rope_type": "dynamic", "factor": 20.0}, DYNAMIC_EXPECTED),  # another factor
        (_yarn(10.0, truncate=False), YARN_EXPECTED),  # the ramp's ends not rounded
        ({"rope_type": "linear", "factor": 10.0, "partial_rotary_factor": 1.0}, LLAMA3_EXPECTED),
    ],
)
def test_the_port_catches_a_wrong_schedule(rope, snapshot):
    """Hugging Face's tolerances separate: a schedule other than the snapshot's fails it."""
    inv_freq, _ = rope_fn("package", rope, seq_len=16384)
    with pytest.raises(AssertionError):
        torch.testing.assert_close(inv_freq, expected(snapshot))
