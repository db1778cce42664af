"""The released configurations shipped with the package (``rope_explained/data/hf_configs.json``)
read by ``rope_explained.hf.from_config`` and by transformers: each is given to the model's own
configuration class and rotary-embedding module, whose buffers (``inv_freq``, float32) and
``attention_scaling`` the package's frequencies and attention factor must equal, the
frequencies to 2e-6 relative (float32's rounding, as in test_scaling.py), the attention factor
to 1e-12 (both compute it in float64). The fields the file fills from a configuration class's
defaults are checked against that class."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import torch
import transformers
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

from rope_explained import hf

RTOL = 2e-6
ROTARY = {  # the configuration class -> its model's rotary embedding
    "LlamaConfig": "llama.modeling_llama.LlamaRotaryEmbedding",
    "Qwen2Config": "qwen2.modeling_qwen2.Qwen2RotaryEmbedding",
    "Qwen3Config": "qwen3.modeling_qwen3.Qwen3RotaryEmbedding",
    "MistralConfig": "mistral.modeling_mistral.MistralRotaryEmbedding",
    "DeepseekV3Config": "deepseek_v3.modeling_deepseek_v3.DeepseekV3RotaryEmbedding",
    "GptOssConfig": "gpt_oss.modeling_gpt_oss.GptOssRotaryEmbedding",
    "Phi3Config": "phi3.modeling_phi3.Phi3RotaryEmbedding",
    "Gemma3TextConfig": "gemma3.modeling_gemma3.Gemma3RotaryEmbedding",
}
MODELS = hf.released_configs()
CASES = [(m, lt) for m in MODELS for lt in m["layer_types"]]


def _rotary(name: str):
    module, cls = ROTARY[name].rsplit(".", 1)
    return getattr(importlib.import_module(f"transformers.models.{module}"), cls)


def _fields(model: dict) -> dict:
    """The configuration as transformers 5 takes it: Phi-3's first name for LongRoPE, "su",
    renamed to "longrope" (transformers' Phi3Config renames it only after moving
    original_max_position_embeddings into the rope parameters, which it does for "longrope"
    alone, and then refuses the result; see the test below)."""
    fields = dict(model["config"])
    scaling = fields.get("rope_scaling") or {}
    if scaling.get("type") == "su":
        fields["rope_scaling"] = {**scaling, "type": "longrope"}
    return fields


def test_transformers_5_refuses_phi3s_first_name_for_longrope():
    phi = next(m for m in MODELS if (m["config"].get("rope_scaling") or {}).get("type") == "su")
    with pytest.raises(KeyError, match="original_max_position_embeddings"):
        transformers.Phi3Config(**phi["config"])


def _theirs(model: dict, layer_type: str | None):
    config = getattr(transformers, model["transformers_config"])(**_fields(model))
    module = _rotary(model["transformers_config"])(config)
    prefix = "" if layer_type is None else f"{layer_type}_"
    inv_freq = getattr(module, f"{prefix}inv_freq")
    attention = getattr(module, f"{prefix}attention_scaling")
    assert inv_freq.dtype == torch.float32
    return config, inv_freq.double().numpy(), float(attention)


def _id(case) -> str:
    model, layer_type = case
    return model["name"] if layer_type is None else f"{model['name']} ({layer_type})"


def test_every_model_has_a_rotary_module():
    assert {m["transformers_config"] for m in MODELS} <= set(ROTARY)


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_a_released_configuration_is_read_as_transformers_reads_it(case):
    model, layer_type = case
    _, inv_freq, attention = _theirs(model, layer_type)
    ours = hf.from_config(model["config"], layer_type=layer_type)
    assert ours.inv_freq.shape == inv_freq.shape
    np.testing.assert_allclose(ours.inv_freq, inv_freq, rtol=RTOL, atol=0)
    assert ours.attention_factor == pytest.approx(attention, rel=1e-12, abs=0)


def test_longrope_past_the_original_context_is_transformers_long_factors():
    phi = next(m for m in MODELS if m["transformers_config"] == "Phi3Config")
    config = transformers.Phi3Config(**_fields(phi))
    L = phi["config"]["original_max_position_embeddings"]
    for seq_len in (L, L + 1, 131072):
        theirs, attention = ROPE_INIT_FUNCTIONS["longrope"](
            config, torch.device("cpu"), seq_len=seq_len
        )
        ours = hf.from_config(phi["config"], seq_len=seq_len)
        np.testing.assert_allclose(ours.inv_freq, theirs.double().numpy(), rtol=RTOL, atol=0)
        assert ours.attention_factor == pytest.approx(float(attention), rel=1e-12)


@pytest.mark.parametrize(
    "model", [m for m in MODELS if m["class_defaults"]], ids=lambda m: m["name"]
)
def test_the_values_filled_from_class_defaults_are_the_class_defaults(model):
    cls = getattr(transformers, model["transformers_config"])
    config = cls()
    themes = {"rope_theta": "global", "rope_local_base_freq": "local"}  # Gemma 3's default_theta
    for key in model["class_defaults"]:
        want = cls.default_theta[themes[key]] if key in themes else getattr(config, key)
        assert model["config"][key] == want, key


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("gpt-oss-20b", {"truncate": True}),  # gpt-oss read with the ramp's ends rounded
        ("DeepSeek-V3", {"mscale": 0.0}),  # DeepSeek-V3 without its mscale ratio
        ("Llama 3.1 8B Instruct", {"high_freq_factor": 2.0}),  # another band
    ],
)
def test_a_wrong_reading_is_caught(name, change):
    model = next(m for m in MODELS if m["name"] == name)
    _, inv_freq, attention = _theirs(model, None)
    wrong = {**model["config"], "rope_scaling": {**model["config"]["rope_scaling"], **change}}
    ours = hf.from_config(wrong)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(ours.inv_freq, inv_freq, rtol=RTOL, atol=0)
        assert ours.attention_factor == pytest.approx(attention, rel=1e-12, abs=0)
