r"""A Hugging Face ``config.json`` read as RoPE: the frequencies a released model turns its
pairs at.

[`from_config`][rope_explained.hf.from_config] takes the rope-related fields of a model's
``config.json`` (as a dict) and returns an [`HFRope`][rope_explained.hf.HFRope]: the rope type,
the head and rotary widths, the frequencies \(\theta_i\) and the attention factor, computed by
[`rope_explained.rope.scaled_frequencies`][] with the meaning transformers 5 gives each field
(``standardize_rope_params`` and the ``_compute_*_parameters`` functions of
``modeling_rope_utils.py``). The fields read:

* ``rope_parameters`` (transformers 5) or ``rope_scaling`` (older configurations; it wins when
  both are given, as in transformers), possibly nested by layer type (Gemma 3:
  ``{"full_attention": {...}, "sliding_attention": {...}}``), then chosen with ``layer_type``;
* ``rope_theta``, ``partial_rotary_factor`` (inside the rope parameters or beside them; inside
  wins), ``rope_local_base_freq`` (Gemma 3's base for its sliding-window layers);
* ``head_dim``, else ``hidden_size // num_attention_heads``; ``qk_rope_head_dim`` (DeepSeek-V3,
  whose configuration sets ``head_dim`` to it) before both;
* ``max_position_embeddings`` and ``original_max_position_embeddings``;
* a multimodal configuration's ``text_config``, when the top level has no rope fields.

Every other key is ignored. A ``type`` of ``"su"``, Phi-3's first name for LongRoPE, is read as
``"longrope"``, as transformers' Phi-3 configuration renames it (the pinned transformers renames
it after placing ``original_max_position_embeddings``, which it does for ``"longrope"`` only,
and then raises a ``KeyError``; the package reads the top-level value as for ``"longrope"``). What
transformers accepts (at most with a warning) but this
package refuses is listed, with the reason, in [`REFUSED`][rope_explained.hf.REFUSED].
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

import numpy as np

from ._checks import MAX_CONTEXT, check_int_range, check_real, show
from .rope import ROPE_TYPES, apply_rope, rotary_width, scaled_frequencies

REFUSED = {
    "odd rotary width": (
        "a partial_rotary_factor that makes int(head_dim × partial_rotary_factor) odd "
        "(64 × 0.3 = 19.2 gives 19): transformers takes ceil(19/2) = 10 frequencies "
        "base^(-2i/19), and a model that rotates as many coordinates as its cos table has "
        "(Phi-3) turns 20; the package refuses it, because the exponents would then not run "
        "over the coordinates that turn"
    ),
    "factor below 1": (
        "a factor below 1: transformers warns and computes with it (linear then multiplies "
        "the frequencies, stretching positions apart); the package refuses it, because it is "
        "not a context extension"
    ),
    "unrecognised key": (
        "a key the rope type does not take: transformers warns and ignores it; the package "
        "refuses it, because a misspelt or model-specific key the computation skips would "
        "change nothing without saying so"
    ),
    "no rope_theta": (
        "a configuration without rope_theta: transformers uses the model class's "
        "default_theta (10,000 for most models, other values for some); the package refuses "
        "it, because it reads no model class"
    ),
    "beta_fast not above beta_slow": (
        "YaRN with beta_fast <= beta_slow: transformers builds its ramp anyway, with a warning "
        "when beta_fast is the smaller; the package refuses it, because the ramp runs from "
        "the pairs kept to the pairs interpolated only when beta_fast is the larger"
    ),
    "high_freq_factor not above low_freq_factor": (
        "Llama 3 with high_freq_factor <= low_freq_factor: transformers warns and divides by "
        "their difference, zero or negative; the package refuses it"
    ),
    "factor list of the wrong length": (
        "LongRoPE's short_factor or long_factor without one number per pair: transformers "
        "warns, then a list of one number divides every pair by it and other lengths fail in "
        "torch; the package refuses it"
    ),
    "attention_factor not positive": (
        "an attention_factor of 0 or less: transformers accepts 0 and warns only below it, and "
        "0 makes every rotated query and key zero; the package refuses it"
    ),
}
"""What transformers 5 accepts (at most with a warning) and [`from_config`][] refuses: for
each, what transformers does and why the package does not."""

_ROPE_KEYS = {"rope_type", "type", "rope_theta", "partial_rotary_factor"}
ALLOWED_KEYS = {
    "default": _ROPE_KEYS,
    "linear": _ROPE_KEYS | {"factor"},
    "dynamic": _ROPE_KEYS | {"factor"},
    "yarn": _ROPE_KEYS
    | {
        "factor",
        "original_max_position_embeddings",
        "attention_factor",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "truncate",
    },
    "longrope": _ROPE_KEYS
    | {
        "short_factor",
        "long_factor",
        "original_max_position_embeddings",
        "attention_factor",
        "factor",
    },
    "llama3": _ROPE_KEYS
    | {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"},
    "proportional": _ROPE_KEYS | {"factor"},
}
"""The keys each rope type takes in ``rope_parameters``, as transformers' validation lists
them (its required and optional keys, ``partial_rotary_factor`` and the old name ``type``)."""

_TOP_KEYS = ("rope_parameters", "rope_scaling", "rope_theta")


@dataclass(frozen=True, eq=False)
class HFRope:
    r"""The RoPE of one model (or one layer type of it), read from its configuration.

    Attributes:
        rope_type: one of [`rope_explained.rope.ROPE_TYPES`][].
        head_dim: the head dimension \(d\).
        rotary_dim: how many coordinates of each head turn (\(d\) unless partial rotary;
            \(d\) for ``"proportional"``, whose pairs that do not turn have frequency 0).
        base: the frequency base \(b\) (``rope_theta``).
        inv_freq: the frequencies \(\theta_i\), shape ``(rotary_dim // 2,)``, read-only.
        attention_factor: what transformers multiplies cos and sin by, so queries and keys
            (the attention logits by its square).
        original_max_position: the context \(L\) the type extends: for ``"llama3"``,
            ``"yarn"`` and ``"longrope"`` the original context; for ``"dynamic"``
            ``max_position_embeddings``, which transformers uses as \(L\); None otherwise.
        max_position: ``max_position_embeddings``.
        seq_len: the text length the frequencies are for (``"dynamic"`` and ``"longrope"``
            depend on it), or None.
        layer_type: the layer type chosen from nested rope parameters, or None.
    """

    rope_type: str
    head_dim: int
    rotary_dim: int
    base: float
    inv_freq: np.ndarray
    attention_factor: float
    original_max_position: int | None
    max_position: int
    seq_len: int | None = None
    layer_type: str | None = None

    @property
    def wavelengths(self) -> np.ndarray:
        r"""\(\lambda_i = 2\pi/\theta_i\), positions per full turn of each pair (``inf`` for a
        pair of frequency 0)."""
        theta = self.inv_freq
        out = np.full(theta.shape, np.inf)
        np.divide(2 * math.pi, theta, out=out, where=theta > 0)
        return out

    def turns_within(self, context: int) -> np.ndarray:
        r"""Which pairs complete at least one full turn within ``context`` positions:
        \(\theta_i \cdot (\text{context} - 1) \ge 2\pi\), the angle between the first and the
        last position. ``context`` is an integer in ``[1, 10**9]``; returns booleans of shape
        ``(rotary_dim // 2,)``."""
        context = check_int_range("context", context, 1, MAX_CONTEXT)
        return self.inv_freq * (context - 1) >= 2 * math.pi

    def apply(self, x: np.ndarray, positions, layout: str = "half") -> np.ndarray:
        """Rotate ``x`` (shape ``(..., seq, head_dim)``) as the model does: the first
        ``rotary_dim`` coordinates turn at ``inv_freq`` (pairs in ``layout``, by default
        transformers' ``"half"``), the rest pass unchanged, and the turned part is
        multiplied by ``attention_factor`` (see [`rope_explained.rope.apply_rope`][])."""
        out = apply_rope(x, positions, self.base, layout, self.inv_freq, rotary_dim=self.rotary_dim)
        out[..., : self.rotary_dim] *= self.attention_factor
        return out


def _refuse(key: str, detail: str) -> ValueError:
    return ValueError(f"{detail}. Refused ({key}): {REFUSED[key]}")


def _number(name: str, value: object, lo: float | None = None, hi: float | None = None, **kw):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number; got {show(value)}")
    return check_real(name, value, lo, hi, **kw)


def _integer(name: str, value: object, lo: int, hi: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON writers sometimes give 4096.0
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer in [{lo}, {hi}]; got {show(value)}")
    return check_int_range(name, value, lo, hi)


def _choose_layer(rope: Mapping, layer_type: str | None) -> tuple[Mapping, str | None]:
    """The rope parameters of ``layer_type`` when ``rope`` is nested by layer type."""
    nested = bool(rope) and all(isinstance(v, Mapping) or v is None for v in rope.values())
    if not nested:
        if layer_type is not None:
            raise ValueError(
                f"layer_type={layer_type!r} was given, but the rope parameters are not nested "
                "by layer type; leave layer_type as None"
            )
        return rope, None
    choices = sorted(k for k, v in rope.items() if v is not None)
    if layer_type is None or layer_type not in choices:
        got = "" if layer_type is None else f"; got {show(layer_type)}"
        raise ValueError(
            "the rope parameters are nested by layer type: choose one with layer_type, one of "
            f"{', '.join(map(repr, choices))}{got}"
        )
    return rope[layer_type], layer_type


def _rope_parameters(config: Mapping) -> Mapping:
    """The rope parameters as transformers 5 reads them: ``rope_scaling`` before
    ``rope_parameters``; Gemma 3's older fields (``rope_local_base_freq``, a ``rope_scaling``
    for the full-attention layers only) moved into a dict nested by layer type."""
    rope = config.get("rope_scaling") or config.get("rope_parameters") or {}
    if not isinstance(rope, Mapping):
        raise TypeError(f"rope_parameters / rope_scaling must be a mapping; got {show(rope)}")
    if "rope_local_base_freq" in config and not rope.get("full_attention"):
        # Gemma3TextConfig.convert_rope_params_to_dict
        full = {"rope_type": "default", **rope}
        if "rope_theta" in config:
            full.setdefault("rope_theta", config["rope_theta"])
        sliding = {"rope_type": "default", "rope_theta": config["rope_local_base_freq"]}
        return {"full_attention": full, "sliding_attention": sliding}
    return rope


def from_config(
    config: Mapping, *, seq_len: int | None = None, layer_type: str | None = None
) -> HFRope:
    r"""The RoPE of a Hugging Face configuration (a ``config.json`` read into a dict).

    Args:
        config: the configuration; the keys read are listed at the top of this module, the
            others ignored.
        seq_len: the length of the text, an integer in ``[1, 10**9]``, for the types that
            depend on it: ``"dynamic"`` (None: ``max_position_embeddings``, no scaling, as
            transformers' initial frequencies) and ``"longrope"`` (long factors past the
            original context, short ones otherwise and for None).
        layer_type: which entry of rope parameters nested by layer type to read (Gemma 3:
            ``"full_attention"`` or ``"sliding_attention"``); None for flat ones.

    Returns:
        An [`HFRope`][rope_explained.hf.HFRope].

    Raises:
        TypeError: a field of the wrong kind (a string for a number, a list for a mapping).
        ValueError: a missing or out-of-range field, naming it and the allowed values; or an
            input in [`REFUSED`][rope_explained.hf.REFUSED], saying what transformers would do.

    Examples:
        >>> rope = from_config({"rope_theta": 10000.0, "head_dim": 8,
        ...                     "max_position_embeddings": 2048})
        >>> rope.rope_type, rope.rotary_dim, rope.inv_freq
        ('default', 8, array([1.   , 0.1  , 0.01 , 0.001]))
    """
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a mapping (a config.json read as a dict); got {show(config)}"
        )
    text = config.get("text_config")
    if isinstance(text, Mapping) and not any(k in config for k in _TOP_KEYS):
        config = text
    rope, layer_type = _choose_layer(_rope_parameters(config), layer_type)
    if not isinstance(rope, Mapping):
        raise TypeError(f"the rope parameters must be a mapping; got {show(rope)}")
    rope_type = rope.get("rope_type", rope.get("type", "default"))
    if rope_type == "su":  # Phi-3's first name for LongRoPE (transformers' Phi3Config)
        rope_type = "longrope"
    if rope_type not in ROPE_TYPES:
        raise ValueError(
            f"rope_type must be one of {', '.join(map(repr, ROPE_TYPES))}; got {show(rope_type)}"
        )
    unknown = sorted(set(rope) - ALLOWED_KEYS[rope_type], key=str)
    if unknown:
        raise _refuse(
            "unrecognised key",
            f"rope_type {rope_type!r} takes the keys {', '.join(sorted(ALLOWED_KEYS[rope_type]))}; "
            f"got also {', '.join(map(repr, unknown))}",
        )
    where = f"config's rope parameters ({rope_type})"

    base = rope.get("rope_theta", config.get("rope_theta"))
    if base is None:
        raise _refuse("no rope_theta", "config has no rope_theta")
    base = _number("rope_theta", base, 1.0, 1e12, lo_open=True)
    p = rope.get("partial_rotary_factor", config.get("partial_rotary_factor", 1.0))
    p = _number("partial_rotary_factor", 1.0 if p is None else p, 0.0, 1.0, lo_open=True)

    head_dim = config.get("qk_rope_head_dim") or config.get("head_dim")
    if head_dim is None:
        hidden = config.get("hidden_size")
        heads = config.get("num_attention_heads")
        if hidden is None or heads is None:
            raise ValueError(
                "config has no head dimension: give head_dim, or hidden_size and "
                "num_attention_heads"
            )
        hidden = _integer("hidden_size", hidden, 1, 10**7)
        heads = _integer("num_attention_heads", heads, 1, 10**5)
        if hidden % heads:
            raise ValueError(
                f"hidden_size ({hidden}) must be a multiple of num_attention_heads ({heads}) "
                "for the head dimension hidden_size // num_attention_heads"
            )
        head_dim = hidden // heads
    head_dim = _integer("head_dim", head_dim, 2, 4096)
    if head_dim % 2:
        raise ValueError(f"head_dim must be even (RoPE turns pairs); got {head_dim}")
    if rope_type != "proportional":
        dim = int(head_dim * p)
        if dim % 2:
            raise _refuse(
                "odd rotary width",
                f"partial_rotary_factor={p!r} with head_dim={head_dim} gives an odd rotary "
                f"width {dim}",
            )
        rotary_dim = rotary_width(head_dim, p)
    else:
        rotary_dim = head_dim

    if config.get("max_position_embeddings") is None:
        raise ValueError("config has no max_position_embeddings: an integer in [1, 10**9]")
    max_position = _integer(
        "max_position_embeddings", config["max_position_embeddings"], 1, MAX_CONTEXT
    )
    L = None
    if rope_type in ("llama3", "yarn", "longrope"):
        # transformers: a top-level original_max_position_embeddings wins (Phi-3), then the
        # rope parameters', then max_position_embeddings
        L = config.get("original_max_position_embeddings")
        if L is None:
            L = rope.get("original_max_position_embeddings", max_position)
        L = _integer("original_max_position_embeddings", L, 1, MAX_CONTEXT)
    elif rope_type == "dynamic":
        L = max_position
    if seq_len is not None:
        seq_len = _integer("seq_len", seq_len, 1, MAX_CONTEXT)

    kwargs: dict = {"factor": None}
    if rope_type in ("linear", "dynamic", "llama3") and rope.get("factor") is None:
        raise ValueError(f"{where}: factor is missing: a number >= 1")
    factor = rope.get("factor")
    if factor is None and rope_type in ("yarn", "longrope"):
        factor = max_position / L  # transformers: the ratio of the two contexts
    if factor is not None:
        factor = _number("factor", factor)
        if factor < 1:
            raise _refuse("factor below 1", f"{where}: factor={factor!r}")
        kwargs["factor"] = factor
    if rope.get("attention_factor") is not None:
        a = _number("attention_factor", rope["attention_factor"])
        if a <= 0:
            raise _refuse("attention_factor not positive", f"{where}: attention_factor={a!r}")
        kwargs["attention_factor"] = a
    if rope_type == "yarn":
        for key in ("beta_fast", "beta_slow"):  # 0 or None: the default, as in transformers
            if rope.get(key):
                kwargs[key] = _number(key, rope[key])
        if kwargs.get("beta_fast", 32.0) <= kwargs.get("beta_slow", 1.0):
            raise _refuse(
                "beta_fast not above beta_slow",
                f"{where}: beta_fast={rope.get('beta_fast')!r}, "
                f"beta_slow={rope.get('beta_slow')!r}",
            )
        for key in ("mscale", "mscale_all_dim"):
            if rope.get(key) is not None:
                kwargs[key] = _number(key, rope[key])
        truncate = rope.get("truncate", True)
        if not isinstance(truncate, bool):
            raise TypeError(f"truncate must be true or false; got {show(truncate)}")
        kwargs["truncate"] = truncate
    if rope_type == "llama3":
        for key in ("low_freq_factor", "high_freq_factor"):
            if rope.get(key) is None:
                raise ValueError(f"{where}: {key} is missing: a number > 0")
            kwargs[key] = _number(key, rope[key])
        if kwargs["high_freq_factor"] <= kwargs["low_freq_factor"]:
            raise _refuse(
                "high_freq_factor not above low_freq_factor",
                f"{where}: low_freq_factor={kwargs['low_freq_factor']!r}, "
                f"high_freq_factor={kwargs['high_freq_factor']!r}",
            )
    if rope_type == "longrope":
        for key in ("short_factor", "long_factor"):
            value = rope.get(key)
            if not isinstance(value, list | tuple) or not all(
                isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value
            ):
                raise TypeError(f"{where}: {key} must be a list of numbers; got {show(value)}")
            if len(value) != rotary_dim // 2:
                raise _refuse(
                    "factor list of the wrong length",
                    f"{where}: {key} has {len(value)} numbers; the {rotary_dim // 2} pairs "
                    "need one each",
                )
            kwargs[key] = np.asarray(value, dtype=np.float64)
    if rope_type == "dynamic":
        seq_len_used = max(seq_len or L, L)  # transformers raises it to max_position_embeddings
        kwargs["seq_len"] = seq_len_used
    elif rope_type == "longrope":
        kwargs["seq_len"] = seq_len
    inv_freq, attention_factor = scaled_frequencies(
        head_dim,
        base=base,
        method=rope_type,
        original_max_position=L,
        partial_rotary_factor=p,
        **kwargs,
    )
    inv_freq = np.ascontiguousarray(inv_freq, dtype=np.float64)
    inv_freq.setflags(write=False)
    return HFRope(
        rope_type=rope_type,
        head_dim=head_dim,
        rotary_dim=rotary_dim,
        base=base,
        inv_freq=inv_freq,
        attention_factor=float(attention_factor),
        original_max_position=L,
        max_position=max_position,
        seq_len=seq_len if rope_type in ("dynamic", "longrope") else None,
        layer_type=layer_type,
    )


def released_configs() -> list[dict]:
    """The rope-related fields of released models' ``config.json`` files, shipped with the
    package (``rope_explained/data/hf_configs.json``): a list of dicts with the model's
    ``name``, its Hub ``repo``, the ``source`` (the Hub file), the ``copy`` the values were
    read from when not the Hub itself, a ``note``, the ``transformers_config`` class that reads
    it, its ``layer_types`` (``[None]`` when the rope parameters are not nested), the
    ``class_defaults`` filled from that class, and the ``config`` itself, ready for
    [`from_config`][rope_explained.hf.from_config]. A fresh copy on every call.

    Examples:
        >>> [m["name"] for m in released_configs()][:2]
        ['Llama 3.1 8B Instruct', 'Llama 3.2 1B Instruct']
    """
    data = resources.files(__package__).joinpath("data", "hf_configs.json").read_text()
    return json.loads(data)["models"]
