"""What ``rope_explained.hf.REFUSED`` says transformers does with each input the package
refuses, checked on transformers: it accepts the input and computes what the entry says, and
``from_config`` refuses the same input with that entry's text."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hf_config import as_config_json
from transformers import Gemma3TextConfig, LlamaConfig, Phi3Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding

from rope_explained import hf

CPU = torch.device("cpu")
RTOL = 2e-6


def llama(**rope) -> LlamaConfig:
    """transformers' default Llama configuration (head 128, 2,048 positions), base 10,000."""
    config = LlamaConfig()
    config.rope_parameters = {"rope_theta": 10000.0, **rope}
    return config


def default() -> np.ndarray:
    inv_freq, _ = LlamaRotaryEmbedding.compute_default_rope_parameters(llama(), device=CPU)
    return inv_freq.double().numpy()


def refused(key: str, config) -> None:
    fields = config if isinstance(config, dict) else as_config_json(config)
    with pytest.raises(ValueError) as error:
        hf.from_config(fields)
    assert hf.REFUSED[key] in str(error.value)


def test_every_entry_is_checked_here():
    checked = {
        "odd rotary width", "factor below 1", "unrecognised key", "no rope_theta",
        "beta_fast not above beta_slow", "high_freq_factor not above low_freq_factor",
        "factor list of the wrong length", "attention_factor not positive",
    }  # fmt: skip
    assert checked == set(hf.REFUSED)


def test_odd_rotary_width():
    fields = {"hidden_size": 128, "num_attention_heads": 2, "rope_theta": 10000.0,
              "partial_rotary_factor": 0.3, "max_position_embeddings": 64}  # fmt: skip
    module = Phi3RotaryEmbedding(Phi3Config(**fields))
    assert module.inv_freq.shape == (10,)
    want = 10000.0 ** (-np.arange(0, 19, 2) / 19)
    np.testing.assert_allclose(module.inv_freq.double().numpy(), want, rtol=RTOL)
    cos, _ = module(torch.zeros(1, 3, 64), torch.arange(3)[None])
    assert cos.shape[-1] == 20  # the coordinates apply_rotary_pos_emb turns
    refused("odd rotary width", fields)


def test_factor_below_one():
    config = llama(rope_type="linear", factor=0.5)
    inv_freq, _ = ROPE_INIT_FUNCTIONS["linear"](config, CPU)
    np.testing.assert_allclose(inv_freq.double().numpy(), default() * 2, rtol=RTOL)
    refused("factor below 1", config)


def test_unrecognised_key():
    config = llama(rope_type="linear", factor=2.0, scale=4.0)
    inv_freq, _ = ROPE_INIT_FUNCTIONS["linear"](config, CPU)
    np.testing.assert_allclose(inv_freq.double().numpy(), default() / 2, rtol=RTOL)
    refused("unrecognised key", config)


def test_no_rope_theta():
    config = LlamaConfig()
    assert config.rope_parameters["rope_theta"] == LlamaConfig.default_theta == 10000.0
    assert Gemma3TextConfig.default_theta["global"] != 10000.0
    refused("no rope_theta", {"head_dim": 128, "max_position_embeddings": 2048})


def test_beta_fast_not_above_beta_slow():
    rope = {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1, "beta_slow": 2,
            "original_max_position_embeddings": 2048}  # fmt: skip
    inv_freq, _ = ROPE_INIT_FUNCTIONS["yarn"](llama(**rope), CPU)
    assert torch.isfinite(inv_freq).all()
    refused("beta_fast not above beta_slow", llama(**rope))


def test_high_freq_factor_not_above_low_freq_factor():
    rope = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0,
            "high_freq_factor": 1.0, "original_max_position_embeddings": 1024}  # fmt: skip
    inv_freq, _ = ROPE_INIT_FUNCTIONS["llama3"](llama(**rope), CPU)
    assert inv_freq.shape == (64,)
    refused("high_freq_factor not above low_freq_factor", llama(**rope))


def test_factor_list_of_the_wrong_length():
    one = {"rope_type": "longrope", "short_factor": [2.0], "long_factor": [2.0],
           "original_max_position_embeddings": 1024}  # fmt: skip
    inv_freq, _ = ROPE_INIT_FUNCTIONS["longrope"](llama(**one), CPU)
    np.testing.assert_allclose(inv_freq.double().numpy(), default() / 2, rtol=RTOL)
    three = {**one, "short_factor": [2.0, 2.0, 2.0]}
    with pytest.raises(RuntimeError):
        ROPE_INIT_FUNCTIONS["longrope"](llama(**three), CPU)
    refused("factor list of the wrong length", llama(**one))


def test_attention_factor_not_positive():
    rope = {"rope_type": "yarn", "factor": 4.0, "attention_factor": 0.0,
            "original_max_position_embeddings": 2048}  # fmt: skip
    _, attention = ROPE_INIT_FUNCTIONS["yarn"](llama(**rope), CPU)
    assert attention == 0.0
    refused("attention_factor not positive", llama(**rope))
