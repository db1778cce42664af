"""``rope_explained.hf``: a Hugging Face configuration read as RoPE. Every released
configuration shipped with the package goes through ``from_config``; the fields are read with
transformers' precedence; every refusal in ``REFUSED`` has a configuration that meets it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rope_explained import hf
from rope_explained.rope import ROPE_TYPES, frequencies, scaled_frequencies

RELEASED = [(m, lt) for m in hf.released_configs() for lt in m["layer_types"]]
#: types whose frequencies fall from pair to pair (longrope divides by factors a checkpoint chose)
MONOTONE = {"default", "linear", "dynamic", "yarn", "llama3"}


def _id(case) -> str:
    model, layer_type = case
    return model["name"] if layer_type is None else f"{model['name']} ({layer_type})"


@pytest.mark.parametrize("case", RELEASED, ids=[_id(c) for c in RELEASED])
def test_every_released_configuration_reads(case):
    model, layer_type = case
    rope = hf.from_config(model["config"], layer_type=layer_type)
    assert model["source"].startswith(f"https://huggingface.co/{model['repo']}/")
    assert rope.rope_type in ROPE_TYPES
    assert rope.inv_freq.shape == (rope.rotary_dim // 2,) and rope.rotary_dim <= rope.head_dim
    assert np.isfinite(rope.inv_freq).all() and (rope.inv_freq > 0).all()
    assert rope.inv_freq[0] <= 1.0
    if rope.rope_type in MONOTONE:
        assert (np.diff(rope.inv_freq) < 0).all()
    np.testing.assert_allclose(rope.wavelengths, 2 * math.pi / rope.inv_freq, rtol=1e-15)
    assert math.isfinite(rope.attention_factor) and rope.attention_factor > 0


def _rope_scaling(config: dict) -> dict:
    return config.get("rope_scaling") or config.get("rope_parameters") or {}


@pytest.mark.parametrize("case", RELEASED, ids=[_id(c) for c in RELEASED])
def test_the_attention_factor_is_the_formula_of_its_type(case):
    model, layer_type = case
    config = model["config"]
    rope = hf.from_config(config, layer_type=layer_type)
    scaling = _rope_scaling(config)
    if rope.rope_type == "yarn":
        s = scaling["factor"]
        m, m_all = scaling.get("mscale"), scaling.get("mscale_all_dim")
        want = (
            (0.1 * m * math.log(s) + 1) / (0.1 * m_all * math.log(s) + 1)
            if m and m_all
            else 0.1 * math.log(s) + 1
        )
    elif rope.rope_type == "longrope":
        s = config["max_position_embeddings"] / config["original_max_position_embeddings"]
        want = math.sqrt(1 + math.log(s) / math.log(config["original_max_position_embeddings"]))
    else:
        want = 1.0
    assert rope.attention_factor == pytest.approx(want, rel=1e-15)


def test_released_configurations_cover_the_types_and_quirks():
    read = [hf.from_config(m["config"], layer_type=lt) for m, lt in RELEASED]
    assert {r.rope_type for r in read} >= {"default", "linear", "yarn", "longrope", "llama3"}
    configs = [m["config"] for m in hf.released_configs()]
    assert any(_rope_scaling(c).get("truncate") is False for c in configs)  # gpt-oss
    assert any(_rope_scaling(c).get("mscale") for c in configs)  # DeepSeek-V3
    assert any("qk_rope_head_dim" in c for c in configs)


def test_llama31_is_the_llama3_schedule():
    llama = next(m for m in hf.released_configs() if m["name"].startswith("Llama 3.1 8B"))
    rope = hf.from_config(llama["config"])
    f, _ = scaled_frequencies(
        128, base=500000.0, method="llama3", factor=8.0, original_max_position=8192
    )
    assert rope.head_dim == 128 and rope.original_max_position == 8192
    assert np.array_equal(rope.inv_freq, f)


def test_deepseek_reads_its_rope_head_and_gpt_oss_its_unrounded_ramp():
    by_name = {m["name"]: m["config"] for m in hf.released_configs()}
    deepseek = hf.from_config(by_name["DeepSeek-V3"])
    assert deepseek.head_dim == 64 and deepseek.attention_factor == 1.0  # mscale = mscale_all_dim
    gpt = hf.from_config(by_name["gpt-oss-20b"])
    truncated = dict(by_name["gpt-oss-20b"])
    truncated["rope_scaling"] = {**truncated["rope_scaling"], "truncate": True}
    assert not np.allclose(gpt.inv_freq, hf.from_config(truncated).inv_freq, rtol=1e-3)


def test_gemma3_is_nested_by_layer_type():
    gemma = next(m for m in hf.released_configs() if m["name"].startswith("Gemma 3"))
    with pytest.raises(ValueError, match="'full_attention', 'sliding_attention'"):
        hf.from_config(gemma["config"])
    full = hf.from_config(gemma["config"], layer_type="full_attention")
    local = hf.from_config(gemma["config"], layer_type="sliding_attention")
    assert np.array_equal(full.inv_freq, frequencies(256, 1e6) / 8)
    assert np.array_equal(local.inv_freq, frequencies(256, 1e4))
    with pytest.raises(ValueError, match="layer_type"):
        hf.from_config(
            {"rope_theta": 1e4, "head_dim": 8, "max_position_embeddings": 8}, layer_type="x"
        )


BASE = {"rope_theta": 10000.0, "head_dim": 64, "max_position_embeddings": 4096}


def test_the_fields_are_read_with_transformers_precedence():
    linear = {"rope_type": "linear", "factor": 2.0}
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024}
    # rope_scaling wins over rope_parameters
    both = hf.from_config({**BASE, "rope_scaling": linear, "rope_parameters": yarn})
    assert both.rope_type == "linear"
    # a top-level original_max_position_embeddings wins over the rope parameters' (Phi-3)
    assert hf.from_config({**BASE, "rope_parameters": yarn}).original_max_position == 1024
    top = hf.from_config({**BASE, "original_max_position_embeddings": 512, "rope_parameters": yarn})
    assert top.original_max_position == 512
    # without a factor, YaRN takes the ratio of the two contexts
    no_factor = {**yarn, "factor": None}
    derived = hf.from_config({**BASE, "rope_parameters": no_factor})
    explicit = hf.from_config({**BASE, "rope_parameters": {**yarn, "factor": 4.0}})
    assert np.array_equal(derived.inv_freq, explicit.inv_freq)
    # rope_theta and partial_rotary_factor inside the rope parameters win over the top level
    inner = hf.from_config(
        {**BASE, "partial_rotary_factor": 0.5, "rope_parameters": {"rope_theta": 100.0}}
    )
    assert inner.base == 100.0 and inner.rotary_dim == 32
    assert np.array_equal(inner.inv_freq, frequencies(32, 100.0))
    # hidden_size // num_attention_heads when there is no head_dim; a text_config is read
    heads = {"rope_theta": 1e4, "hidden_size": 512, "num_attention_heads": 8}
    nested = hf.from_config({"text_config": {**heads, "max_position_embeddings": 64}})
    assert nested.head_dim == 64


def test_dynamic_and_longrope_read_the_length():
    dynamic = {**BASE, "rope_parameters": {"rope_type": "dynamic", "factor": 4.0}}
    assert np.array_equal(hf.from_config(dynamic).inv_freq, frequencies(64))
    assert np.array_equal(hf.from_config(dynamic, seq_len=100).inv_freq, frequencies(64))
    longer = hf.from_config(dynamic, seq_len=8192)
    f, _ = scaled_frequencies(
        64, method="dynamic", factor=4.0, original_max_position=4096, seq_len=8192
    )
    assert np.array_equal(longer.inv_freq, f) and longer.seq_len == 8192
    longrope = {
        **BASE,
        "rope_parameters": {
            "rope_type": "longrope",
            "short_factor": [1.0] * 32,
            "long_factor": [4.0] * 32,
            "original_max_position_embeddings": 1024,
        },
    }
    assert np.array_equal(hf.from_config(longrope).inv_freq, frequencies(64))
    np.testing.assert_allclose(
        hf.from_config(longrope, seq_len=1025).inv_freq, frequencies(64) / 4, rtol=1e-15
    )


def test_turns_within_and_apply():
    rope = hf.from_config({"rope_theta": 10000.0, "head_dim": 8, "max_position_embeddings": 8})
    # theta = 1, 0.1, 0.01, 0.001: over 8 positions the angles run to 7, 0.7, 0.07, 0.007
    assert rope.turns_within(8).tolist() == [True, False, False, False]
    # pair 1 turns 2 pi = 6.28 between positions 0 and 63 (6.3), not between 0 and 62 (6.2)
    assert rope.turns_within(63).tolist() == [True, False, False, False]
    assert rope.turns_within(64).tolist() == [True, True, False, False]
    yarn = hf.from_config(
        {**BASE, "rope_parameters": {"rope_type": "yarn", "factor": 8.0, "attention_factor": 2.0}}
    )
    x = np.random.default_rng(1).normal(size=(3, 64))
    y = yarn.apply(x, [0, 5, 9])
    np.testing.assert_allclose(
        np.linalg.norm(y, axis=-1), 2.0 * np.linalg.norm(x, axis=-1), rtol=1e-12
    )
    with pytest.raises(ValueError, match="read-only"):
        yarn.inv_freq[0] = 0.0


#: one configuration per refusal
REFUSALS = {
    "odd rotary width": {**BASE, "partial_rotary_factor": 0.3},
    "factor below 1": {**BASE, "rope_scaling": {"rope_type": "linear", "factor": 0.5}},
    "unrecognised key": {**BASE, "rope_scaling": {"rope_type": "linear", "factor": 2, "scale": 2}},
    "no rope_theta": {"head_dim": 64, "max_position_embeddings": 4096},
    "beta_fast not above beta_slow": {
        **BASE,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "beta_fast": 1, "beta_slow": 2},
    },
    "high_freq_factor not above low_freq_factor": {
        **BASE,
        "rope_scaling": {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 4.0,
            "high_freq_factor": 1.0,
            "original_max_position_embeddings": 1024,
        },
    },
    "factor list of the wrong length": {
        **BASE,
        "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [1.0]},
    },
    "attention_factor not positive": {
        **BASE,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "attention_factor": 0.0},
    },
}


def test_every_refusal_has_a_case():
    assert set(REFUSALS) == set(hf.REFUSED)


@pytest.mark.parametrize("key", sorted(REFUSALS))
def test_a_refusal_says_what_transformers_would_do(key):
    with pytest.raises(ValueError) as refused:
        hf.from_config(REFUSALS[key])
    assert hf.REFUSED[key] in str(refused.value) and "transformers" in str(refused.value)


@pytest.mark.parametrize(
    ("config", "error", "message"),
    [
        ([1, 2], TypeError, "config must be a mapping"),
        ({**BASE, "rope_theta": "10000"}, TypeError, "rope_theta"),
        ({**BASE, "rope_scaling": {"rope_type": "ntk", "factor": 2}}, ValueError, "'longrope'"),
        ({**BASE, "head_dim": 63}, ValueError, "head_dim"),
        ({"rope_theta": 1e4, "max_position_embeddings": 8}, ValueError, "head_dim"),
        ({"rope_theta": 1e4, "head_dim": 8}, ValueError, "max_position_embeddings"),
        ({**BASE, "rope_scaling": {"rope_type": "linear"}}, ValueError, "factor"),
    ],
)
def test_bad_input(config, error, message):
    with pytest.raises(error, match=message):
        hf.from_config(config)
