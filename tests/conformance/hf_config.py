"""transformers' RoPE configuration, read as the package's parameters.

``package_frequencies(config, seq_len)`` takes what transformers' ``ROPE_INIT_FUNCTIONS`` take,
a ``PreTrainedConfig`` (and ``seq_len`` for the types that read the length), hands its rope
fields to ``rope_explained.hf.from_config`` as a ``config.json`` would give them, and returns
the package's ``(inv_freq, attention_factor)``, so that a test written against transformers,
Hugging Face's own tests included, can run the package on the same input.
"""

from __future__ import annotations

import copy

import numpy as np

from rope_explained.hf import from_config

#: the fields ``from_config`` reads besides the rope parameters, when the configuration has them
FIELDS = (
    "head_dim",
    "hidden_size",
    "num_attention_heads",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "partial_rotary_factor",
)


def as_config_json(config) -> dict:
    """The rope fields of a transformers configuration, as a ``config.json`` dict."""
    config.standardize_rope_params()
    fields = {"rope_parameters": copy.deepcopy(dict(config.rope_parameters))}
    for key in FIELDS:
        if getattr(config, key, None) is not None:
            fields[key] = getattr(config, key)
    return fields


def package_frequencies(
    config, seq_len: int | None = None, layer_type: str | None = None
) -> tuple[np.ndarray, float]:
    """The package's ``(inv_freq, attention_factor)`` for a transformers configuration."""
    rope = from_config(as_config_json(config), seq_len=seq_len, layer_type=layer_type)
    return np.array(rope.inv_freq), rope.attention_factor
