"""transformers' RoPE configuration, read as the package's parameters.

``package_frequencies(config, seq_len)`` takes what transformers' ``ROPE_INIT_FUNCTIONS`` take,
a ``PreTrainedConfig`` with ``rope_parameters`` (and ``seq_len`` for the dynamic type), and calls
``rope_explained.rope.scaled_frequencies`` (or ``frequencies`` for the default type) with the
same meaning, so that a test written against transformers, Hugging Face's own tests included,
can run the package on the same input. What the package does not model raises
``Unsupported`` with the reason, so that a ported case fails loudly instead of passing on a
different question; ``UNSUPPORTED`` lists each such feature.
"""

from __future__ import annotations

import numpy as np

from rope_explained.rope import frequencies, scaled_frequencies

# transformers' rope_type -> the package's method
METHODS = {"linear": "linear", "dynamic": "dynamic-ntk", "yarn": "yarn", "llama3": "llama3"}

UNSUPPORTED = {
    "longrope": "LongRoPE's per-pair short and long factors (Phi-3, Phi-4)",
    "proportional": "the proportional type",
    "attention_factor": "YaRN's attention_factor given explicitly (the package derives it)",
    "mscale": "YaRN's mscale and mscale_all_dim (DeepSeek-V3)",
    "truncate": "YaRN with truncate=False (gpt-oss): the ramp's ends not rounded",
    "partial_rotary_factor": "a partial rotary factor below 1 as a rope parameter",
    "factor-default": "YaRN's factor derived from max_position_embeddings when not given",
}


class Unsupported(NotImplementedError):
    """A configuration that uses a feature the package does not model (``UNSUPPORTED``)."""


def _refuse(feature: str) -> None:
    raise Unsupported(f"{feature}: {UNSUPPORTED[feature]}")


def package_frequencies(config, seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """The package's ``(inv_freq, attention_factor)`` for a transformers configuration."""
    config.standardize_rope_params()
    rope = dict(config.rope_parameters)
    rope_type = rope.get("rope_type", "default")
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    if rope.get("partial_rotary_factor", 1.0) != 1.0:
        _refuse("partial_rotary_factor")
    base = float(rope["rope_theta"])
    if rope_type == "default":
        return frequencies(head_dim, base), 1.0
    if rope_type not in METHODS:
        _refuse(rope_type)
    kwargs = {}
    if rope_type in ("linear", "dynamic"):
        # both read the original context as the configuration's max_position_embeddings
        L = config.max_position_embeddings
        if rope_type == "dynamic":
            # transformers: seq_len defaults to, and is raised to, max_position_embeddings
            kwargs["seq_len"] = max(int(seq_len or L), L)
    else:
        L = rope["original_max_position_embeddings"]
    if rope_type == "yarn":
        for feature in ("attention_factor", "mscale", "mscale_all_dim"):
            if rope.get(feature) is not None:
                _refuse("mscale" if feature.startswith("mscale") else feature)
        if rope.get("truncate", True) is not True:
            _refuse("truncate")
        if rope.get("factor") is None:
            _refuse("factor-default")
        kwargs["beta_fast"] = float(rope.get("beta_fast") or 32)
        kwargs["beta_slow"] = float(rope.get("beta_slow") or 1)
    if rope_type == "llama3":
        kwargs["low_freq_factor"] = float(rope["low_freq_factor"])
        kwargs["high_freq_factor"] = float(rope["high_freq_factor"])
    return scaled_frequencies(
        head_dim,
        base=base,
        method=METHODS[rope_type],
        factor=float(rope["factor"]),
        original_max_position=int(L),
        **kwargs,
    )
