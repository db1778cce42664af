"""The reading of transformers' configurations (``hf_config.package_frequencies``, through
``rope_explained.hf.from_config``) that a port of Hugging Face's own RoPE tests calls the
package through: it agrees with ``ROPE_INIT_FUNCTIONS`` on every rope type of transformers 5
and every setting of each (YaRN's attention_factor, mscale, truncate and its factor derived
from the two contexts, LongRoPE's short and long factors, partial rotary, the proportional
type). The frequencies agree to float32's rounding, as in test_scaling.py (2e-6)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hf_config import package_frequencies
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

RTOL = 2e-6  # float32 frequencies (test_scaling.py)


def config(**rope) -> LlamaConfig:
    """transformers' default Llama configuration (head 128, base 10000, 2048 positions) with
    these rope parameters."""
    cfg = LlamaConfig()
    if rope:
        cfg.rope_parameters = {"rope_theta": 10000.0, **rope}
    return cfg


SUPPORTED = [
    {},
    {"rope_type": "linear", "factor": 10.0},
    {"rope_type": "dynamic", "factor": 10.0},
    {"rope_type": "yarn", "factor": 10.0, "original_max_position_embeddings": 2048},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
     "beta_fast": 1000, "beta_slow": 1},
    {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192,
     "low_freq_factor": 1.0, "high_freq_factor": 4.0},
    {"rope_type": "longrope", "factor": 2.0, "original_max_position_embeddings": 1024,
     "short_factor": [1.0] * 64, "long_factor": [2.0 + i / 8 for i in range(64)]},
    {"rope_type": "longrope", "original_max_position_embeddings": 1024, "attention_factor": 0.7,
     "short_factor": [1.5] * 64, "long_factor": [3.0] * 64},
    {"rope_type": "proportional", "factor": 2.0, "partial_rotary_factor": 0.25},
    {"rope_type": "proportional"},
    {"rope_type": "yarn", "factor": 4.0, "attention_factor": 0.5,
     "original_max_position_embeddings": 2048},
    {"rope_type": "yarn", "factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0,
     "original_max_position_embeddings": 4096},
    {"rope_type": "yarn", "factor": 40.0, "mscale": 0.707, "mscale_all_dim": 1.3,
     "original_max_position_embeddings": 1024},
    {"rope_type": "yarn", "factor": 32.0, "truncate": False,
     "original_max_position_embeddings": 4096},
    {"rope_type": "yarn", "factor": 32.0, "truncate": False, "beta_fast": 16, "beta_slow": 2,
     "original_max_position_embeddings": 512},
    {"rope_type": "linear", "factor": 2.0, "partial_rotary_factor": 0.5},
    {"rope_type": "dynamic", "factor": 2.0, "partial_rotary_factor": 0.25},
    {"rope_type": "yarn", "factor": 8.0, "partial_rotary_factor": 0.75,
     "original_max_position_embeddings": 256},
    {"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 1024},
]  # fmt: skip


def _id(rope: dict) -> str:
    extra = sorted(
        k for k in rope if k not in ("rope_type", "factor", "short_factor", "long_factor")
    )
    return "-".join([rope.get("rope_type", "default"), *extra])


@pytest.mark.parametrize("rope", SUPPORTED, ids=_id)
@pytest.mark.parametrize("seq_len", [None, 1, 16384])
def test_the_reading_agrees_with_transformers(rope, seq_len):
    cfg = config(**rope)
    rope_type = cfg.rope_parameters.get("rope_type", "default")
    if rope_type == "default":
        inv_freq, attention = _default(cfg)
    else:
        reads_length = rope_type in ("dynamic", "longrope") and seq_len
        kwargs = {"seq_len": seq_len} if reads_length else {}
        inv_freq, attention = ROPE_INIT_FUNCTIONS[rope_type](cfg, torch.device("cpu"), **kwargs)
    ours = package_frequencies(cfg, seq_len)
    np.testing.assert_allclose(ours[0], inv_freq.double().numpy(), rtol=RTOL, atol=0)
    assert ours[1] == pytest.approx(float(attention), rel=1e-12, abs=0)


def _default(cfg):
    """The default type has no entry in ROPE_INIT_FUNCTIONS in transformers 5: each model's
    rotary embedding computes it."""
    return LlamaRotaryEmbedding.compute_default_rope_parameters(cfg, device=torch.device("cpu"))


def test_the_cases_cover_every_rope_type():
    assert {r.get("rope_type", "default") for r in SUPPORTED} == {"default", *ROPE_INIT_FUNCTIONS}
