"""Fuzz of the whole public API: every bad input is refused cleanly, quickly and cheaply.

The callables are discovered, not listed: every public function and class of
``rope_explained.__all__`` and of the modules in :data:`MODULES` (whatever is defined in the
package), plus the figure registry's functions in :data:`FIGURE_API`. A new public function is
fuzzed as soon as it exists; a parameter name with no strategy in :data:`VALID` fails
:func:`test_every_parameter_has_a_strategy` until one is added.

Each example draws one call: small, mutually consistent valid arguments (:data:`VALID`), of
which zero, one or two are then replaced by a bad value (a broken variant of the valid one, or
one of :data:`BAD`: wrong types, NaN, inf, empty, huge, wrong shapes, absurd lengths). The call
must

* return normally, with no NaN or inf anywhere in what it returns, or
* raise ``ValueError`` / ``TypeError`` within a second, with a message of at most
  :data:`MAX_MESSAGE` characters that names a replaced argument;

never raise anything else, hang (a timer stops it after :data:`HANG_SECONDS`), refuse valid
arguments, or ask for gigabytes (the address space is capped while the fuzz runs, so an attempt
is a ``MemoryError``). Every call is recorded and the counts by outcome are printed in the
terminal summary (and written as JSON to ``$ROPE_FUZZ_REPORT`` when that is set).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import inspect
import json
import math
import numbers
import os
import re
import resource
import shutil
import signal
import tempfile
import time
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import rope_explained
from rope_explained import (
    conventions,
    decoding,
    embedding,
    examples,
    experiments,
    extension,
    figures,
    heads,
    hf,
    model,
    precision,
    real_models,
    rope,
    sinusoidal,
)

MODULES = (
    rope_explained, embedding, rope, conventions, heads, model, experiments, examples,
    real_models, sinusoidal, extension, decoding, precision, hf,
)  # fmt: skip
FIGURE_API = (
    "register",
    "get",
    "render_bytes",
    "file_stem",
    "page_of",
    "module_dependencies",
)
#: Records the package's functions return, made from checked settings: not entry points, so
#: they check nothing themselves.
RECORDS = (model.Trace, hf.HFRope)
EXAMPLES_PER_CALLABLE = 30
#: Fewer examples for callables whose valid calls take 30 ms or more (rendering a figure, hashing
#: a module's import closure, an experiment at its default sizes).
FEWER_EXAMPLES = {
    "rope_explained.figures": 10,
    "rope_explained.experiments.previous_token": 15,
    "rope_explained.real_models.convention_experiment": 10,
    "rope_explained.real_models.partial_rotary_sweep": 10,
}
MAX_MESSAGE = 300
REFUSE_SECONDS = 1.0
HANG_SECONDS = 5.0
#: Extra address space the fuzzed calls may take beyond what the process has mapped.
MEMORY_HEADROOM = 1536 * 2**20
#: A quick figure (about 0.15 s), so that valid calls of the renderers stay cheap.
FAST_FIGURE = "notes-previous-token-scores"


def public_callables() -> dict[str, object]:
    """``qualified name -> callable`` for every public function and class of the package
    (defined in a public module of it: the helpers of ``_checks`` are not API)."""
    found: dict[str, object] = {}
    for module in MODULES:
        names = getattr(module, "__all__", None) or [n for n in vars(module) if n[0] != "_"]
        for name in names:
            obj = getattr(module, name)
            if (
                callable(obj)
                and not isinstance(obj, types.ModuleType)
                and getattr(obj, "__module__", "").startswith("rope_explained")
                and not any(part.startswith("_") for part in obj.__module__.split("."))
            ):
                found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    for record in RECORDS:
        found.pop(f"{record.__module__}.{record.__qualname__}", None)
    for name in FIGURE_API:
        obj = getattr(figures, name)
        found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return dict(sorted(found.items()))


CALLABLES = public_callables()
SAMPLE_CONFIGS = [m["config"] for m in hf.released_configs()]
SAMPLE_LAST = model.predict_last("abcab")
SAMPLE_PROMPT = experiments.induction_prompts(1, 3, 12, seed=1)[0]
SAMPLE_STEP = decoding.decode("abca")[-1]


# --- valid arguments ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Dims:
    """The sizes one example shares among its arguments."""

    seq: int  # rows of x, positions, scores
    d: int  # head dimension
    D: int  # residual width, >= 3d + 1


DIMS = st.builds(
    lambda seq, d, k: Dims(seq, d, 3 * d + 1 + k),
    st.sampled_from([1, 2, 3, 6]),
    st.sampled_from([2, 4, 8, 16]),
    st.integers(0, 3),
)
FINITE = st.floats(-100.0, 100.0, allow_nan=False)


def arrays(shape, elements=FINITE, dtypes=(np.float64,)):
    return st.sampled_from(dtypes).flatmap(
        lambda dt: hnp.arrays(np.float64, shape, elements=elements).map(lambda a: a.astype(dt))
    )


def prompts_list():
    return st.integers(0, 1000).map(lambda s: experiments.induction_prompts(2, 3, 12, seed=s))


CONFIG_KEYS = {
    "d": lambda z: st.just(z.d),
    "D": lambda z: st.just(z.D),
    "base": lambda z: st.sampled_from([10000.0, 100.0, 1e6]),
    "alpha": lambda z: st.floats(0.01, 1e4),
    "offset": lambda z: st.integers(0, 4),
    "head": lambda z: st.sampled_from(heads.HEADS),
    "beta": lambda z: st.floats(0.01, 1e4),
    "gamma": lambda z: st.floats(0.01, 1e4),
    "bos": lambda z: st.booleans(),
    "layout": lambda z: st.sampled_from(rope.LAYOUTS),
    "weights_layout": lambda z: st.none() | st.sampled_from(rope.LAYOUTS),
    "rotary_pct": lambda z: st.sampled_from([1.0] if z.d < 4 else [1.0, 0.5]),
    # a scaling needs a factor and an original length with it: drawn together in test_model
    "scaling": lambda z: st.none(),
    "unrotated_fast": lambda z: st.integers(0, z.d // 8),  # with unrotated_slow: <= r/2
    "unrotated_slow": lambda z: st.integers(0, z.d // 8),
    "layer1_rotary": lambda z: st.booleans(),
}
#: Valid values by parameter name, given the example's :class:`Dims`.
VALID = {
    **CONFIG_KEYS,
    "m": lambda z: st.floats(-1e3, 1e3),
    "x": lambda z: arrays((z.seq, z.d), dtypes=(np.float64, np.float32, np.float16, np.int64)),
    "positions": lambda z: arrays((z.seq,), st.floats(-1e4, 1e4)),
    "theta": lambda z: arrays((z.d // 2,), st.floats(0.0, 1.0)),
    "inv_freq": lambda z: st.none() | arrays((z.d // 2,), st.floats(0.0, 1.0)),
    "layout": lambda z: st.sampled_from(rope.LAYOUTS),
    "method": lambda z: st.sampled_from(rope.SCALING_METHODS),
    "factor": lambda z: st.floats(1.0, 100.0),
    "original_max_position": lambda z: st.integers(1, 10**5),
    "beta_fast": lambda z: st.floats(2.0, 64.0),
    "beta_slow": lambda z: st.floats(0.1, 1.9),
    "token": lambda z: st.sampled_from(embedding.VOCAB),
    "idx": lambda z: st.integers(-100, 100) | arrays((z.seq,), st.integers(0, 30).map(float)),
    "text": lambda z: st.text("abcdefghijklmnopqrstuvwxyzABC", min_size=1, max_size=30),
    "fold_case": lambda z: st.just(True),
    "tokens": lambda z: st.lists(st.sampled_from(embedding.VOCAB), min_size=1, max_size=8).map(
        lambda t: [embedding.BOS, *t]
    ),
    "config": lambda z: st.just(model.Config(d=z.d, D=z.D)),
    "scores": lambda z: (
        arrays((z.seq, z.seq), st.floats(-1e3, 1e3))
        | arrays((2, z.seq, z.seq), st.floats(-1e3, 1e3))
    ),
    "logits": lambda z: arrays((z.seq, 26), st.floats(-1e3, 1e3)),
    "W_q": lambda z: arrays((z.d, z.D)),
    "W_k": lambda z: arrays((z.d, z.D)),
    "W_v": lambda z: arrays((z.d, z.D)),
    "W_o": lambda z: arrays((z.D, z.d)),
    "W_out": lambda z: arrays((26, z.D)),
    "b_out": lambda z: arrays((26,)),
    "L0": lambda z: st.just(heads.previous_token_weights(z.d, z.D, 10000.0, 10.0, 1)),
    "L1": lambda z: st.sampled_from(heads.HEADS).map(
        lambda h: heads.induction_weights(z.d, z.D, 1000.0, h)
    ),
    "readout": lambda z: st.just(heads.readout_weights(z.d, z.D, 100.0)),
    "alphas": lambda z: st.lists(st.floats(0.1, 100.0), min_size=1, max_size=3),
    "T": lambda z: st.integers(2, 12),
    "seed": lambda z: st.integers(0, 2**32),
    "offsets": lambda z: arrays((z.seq,), st.floats(-1e3, 1e3)),
    "distances": lambda z: arrays((z.seq,), st.floats(0.0, 1e5)),
    "d0": lambda z: st.integers(0, z.d - 2),
    "d0_values": lambda z: st.none() | st.lists(st.integers(0, z.d - 2), min_size=1, max_size=3),
    "min_cos": lambda z: st.floats(-0.99, 0.99),
    "n": lambda z: st.integers(1, 5),
    "min_len": lambda z: st.integers(3, 10),
    "max_len": lambda z: st.integers(10, 40),
    "prompts": lambda z: prompts_list(),
    "answer": lambda z: st.just(SAMPLE_PROMPT.answer),
    "first": lambda z: st.just(SAMPLE_PROMPT.first),
    "fig_id": lambda z: st.just(FAST_FIGURE),
    "caption": lambda z: st.text(min_size=1, max_size=20).filter(str.strip),
    "alt": lambda z: st.just("A line plot of six scores, one per pair."),
    "kwargs": lambda z: st.just({}),
    "fmt": lambda z: st.sampled_from(["svg", "svg", "png"]),
    "width": lambda z: st.sampled_from(sorted(figures.COLUMNS)),
    # Relative paths: the fuzz runs in a temporary folder, so every variant stays inside it.
    "out_dir": lambda z: st.just("out"),
    "cache_dir": lambda z: st.sampled_from(["cache", "cache/sub"]),
    "module": lambda z: st.sampled_from(
        ["rope_explained.figures.home", "rope_explained.figures.notes.semantic_heads"]
    ),
    "spec": lambda z: st.just(figures.get(FAST_FIGURE)),
    # "wendler" needs d >= 4 (its exponent is 2i/(d-2)): with d = 2 it is a bad value
    "schedule": lambda z: st.sampled_from(rope.SCHEDULES if z.d >= 4 else ("standard",)),
    "seq_len": lambda z: st.integers(1, 10**5),
    "low_freq_factor": lambda z: st.floats(0.5, 1.5),
    "high_freq_factor": lambda z: st.floats(2.0, 8.0),
    "ramp": lambda z: st.sampled_from(rope.YARN_RAMPS),
    "truncate": lambda z: st.booleans(),
    "attention_factor": lambda z: st.none() | st.floats(0.1, 10.0),
    "mscale": lambda z: st.none() | st.floats(0.0, 2.0),
    "mscale_all_dim": lambda z: st.none() | st.floats(0.0, 2.0),
    "short_factor": lambda z: st.none() | arrays((z.d // 2,), st.floats(1.0, 10.0)),
    "long_factor": lambda z: st.none() | arrays((z.d // 2,), st.floats(1.0, 10.0)),
    "partial_rotary_factor": lambda z: st.just(1.0),
    "rotary_dim": lambda z: st.none() | st.just(z.d),
    "layer_type": lambda z: st.none(),
    "W": lambda z: arrays((z.d, z.D)),
    "n_heads": lambda z: st.just(1),
    "rotary_dims": lambda z: st.none() | st.just(z.d),
    "mask": lambda z: st.none() | st.just(np.tri(z.seq, dtype=bool)),
    "fraction": lambda z: st.sampled_from([1.0] if z.d < 4 else [1.0, 0.5]),
    "fractions": lambda z: st.lists(st.sampled_from([1.0, 0.5, 0.25]), min_size=1, max_size=2),
    "variant": lambda z: st.sampled_from(real_models.PARTIAL_VARIANTS),
    "query_letter": lambda z: st.sampled_from(embedding.VOCAB),
    "key_letter": lambda z: st.sampled_from(embedding.VOCAB),
    "texts": lambda z: st.integers(1, 20).flatmap(
        lambda k: st.lists(
            st.text("abcdefghijklmnopqrstuvwxyz", min_size=k, max_size=k), min_size=1, max_size=3
        )
    ),
    "distance": lambda z: st.integers(2, 60),
    "low": lambda z: st.integers(2, 50),
    "high": lambda z: st.integers(60, 400),
    "count": lambda z: st.integers(2, 6),
    "accuracy": lambda z: arrays((3,), st.floats(0.0, 1.0)),
    "threshold": lambda z: st.floats(0.01, 1.0),
    "near": lambda z: st.integers(2, 6),
    "far": lambda z: st.integers(8, 40),
    # decoding, padding and packing
    "cache": lambda z: st.just(decoding.new_cache()) | st.just(SAMPLE_STEP.cache),
    "position": lambda z: st.none() | st.floats(-1e4, 1e4),
    "fault": lambda z: st.none(),  # a fault with a position is refused: drawn in test_decoding
    "prefill": lambda z: st.integers(0, 1),
    "pads": lambda z: st.integers(0, 6),
    "count_pads": lambda z: st.booleans(),
    "mask_pads": lambda z: st.booleans(),
    "reset_positions": lambda z: st.booleans(),
    "mask_documents": lambda z: st.booleans(),
    # precision
    "dtype": lambda z: st.sampled_from(list(precision.DTYPES)),
    "angle_dtype": lambda z: st.sampled_from(list(precision.DTYPES)),
    "storage_dtype": lambda z: st.sampled_from(list(precision.DTYPES)),
    "pipeline": lambda z: st.sampled_from(list(precision.PIPELINES)),
    "window": lambda z: st.integers(16, 300),
    "limit": lambda z: st.integers(2, 300),
    "top": lambda z: st.integers(2, 10**6),
    "per_decade": lambda z: st.integers(1, 8),
}
PRECISION_POSITIONS = {
    "positions": lambda z: arrays((z.seq,), st.integers(1, 60000).map(float)),
}
#: Texts of at least two letters (the experiments measure attention one step back).
TWO_LETTERS = {"text": lambda z: st.text("abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=30)}
#: Per-callable valid values where the generic ones do not fit together.
OVERRIDES = {
    "rope_explained.model.LastPosition": {
        f.name: (lambda z, name=f.name: st.just(getattr(SAMPLE_LAST, name)))
        for f in dataclasses.fields(model.LastPosition)
    },
    "rope_explained.experiments.InductionPrompt": {
        "text": lambda z: st.just(SAMPLE_PROMPT.text),
    },
    "rope_explained.experiments.d0_sweep_values": {"d": lambda z: st.sampled_from([32, 48, 64])},
    "rope_explained.rope.scaled_frequencies": {
        "d": lambda z: st.sampled_from([4, 8, 64]),
        "seq_len": lambda z: st.integers(1, 10**5),
    },
    "rope_explained.rope.frequencies": {"d": lambda z: st.sampled_from([4, 8, 16, 64])},
    "rope_explained.rope.DynamicNTKState": {"d": lambda z: st.sampled_from([4, 8, 64])},
    "rope_explained.rope.longrope_attention_factor": {
        "original_max_position": lambda z: st.integers(2, 10**5),
    },
    "rope_explained.hf.from_config": {
        "config": lambda z: st.sampled_from(SAMPLE_CONFIGS),
    },
    "rope_explained.model.Config": {
        "factor": lambda z: st.none(),
        "original_max_position": lambda z: st.none(),
    },
    "rope_explained.model.check_mask": {
        "mask": lambda z: st.just(np.tri(z.seq, dtype=bool)),
        "T": lambda z: st.just(z.seq),
    },
    "rope_explained.model.forward_tokens": {
        "tokens": lambda z: st.lists(
            st.sampled_from([*embedding.VOCAB, embedding.BOS, embedding.PAD]),
            min_size=z.seq,
            max_size=z.seq,
        ),
        "positions": lambda z: st.none() | arrays((z.seq,), st.floats(-1e4, 1e4)),
    },
    "rope_explained.real_models.convention_experiment": TWO_LETTERS,
    "rope_explained.real_models.partial_rotary_sweep": TWO_LETTERS,
    "rope_explained.extension.induction_curve": {
        "distances": lambda z: st.lists(st.integers(2, 40), min_size=1, max_size=3),
    },
    "rope_explained.extension.recency_prompts": {
        "near": lambda z: st.integers(2, 4),
        "far": lambda z: st.integers(6, 40),
    },
    "rope_explained.extension.recency_accuracy": {
        "near": lambda z: st.integers(2, 4),
        "far": lambda z: st.integers(6, 40),
    },
    "rope_explained.extension.predict_last_at": {
        # the frequencies replace the scaling and the ablations, one for each of the d/2 pairs
        "inv_freq": lambda z: arrays((z.d // 2,), st.floats(0.0, 1.0)),
        "attention_factor": lambda z: st.floats(0.5, 2.0),
        "d": lambda z: st.just(z.d),
        "D": lambda z: st.just(z.D),
        "rotary_pct": lambda z: st.just(1.0),
        "unrotated_fast": lambda z: st.just(0),
        "unrotated_slow": lambda z: st.just(0),
    },
    "rope_explained.extension.sweep_distances": {
        "low": lambda z: st.integers(2, 50),
        "high": lambda z: st.integers(60, 400),
    },
    "rope_explained.extension.horizon_reached": {
        "distances": lambda z: st.just([3, 5, 9]),
    },
    **{
        f"rope_explained.precision.{name}": PRECISION_POSITIONS
        for name in (
            "angles",
            "angle_error",
            "cos_sin_error",
            "score_drift",
            "previous_token_attention",
        )
    },  # fmt: skip
    "rope_explained.precision.rotate_in": {
        "x": lambda z: arrays((z.seq, z.d)),
        **PRECISION_POSITIONS,
    },
    "rope_explained.decoding.decode_step": {"token": lambda z: st.sampled_from(["a", "z", "<s>"])},
    "rope_explained.decoding.KVCache": {
        f.name: (lambda z, name=f.name: st.just(getattr(SAMPLE_STEP.cache, name)))
        for f in dataclasses.fields(decoding.KVCache)
    },
    "rope_explained.decoding.DecodeStep": {
        f.name: (lambda z, name=f.name: st.just(getattr(SAMPLE_STEP, name)))
        for f in dataclasses.fields(decoding.DecodeStep)
    },
    "rope_explained.decoding.pack": {
        "texts": lambda z: st.lists(
            st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=10), min_size=1, max_size=3
        ),
    },
    "rope_explained.experiments.semantic_head_experiment": {
        "d": lambda z: st.just(32),
        "D": lambda z: st.just(64),
    },
    "rope_explained.experiments.semantic_head_weights": {
        "d": lambda z: st.just(32),
        "D": lambda z: st.just(64),
    },
}
#: Arguments drawn together: when one is given, so is the other (their ranges depend on it).
TOGETHER = {"D": "d", "d0": "d", "d0_values": "d"}


# --- bad arguments ------------------------------------------------------------------------------

HUGE_VIEW = np.broadcast_to(np.float64(1.0), (10**6, 10**6))  # 10**12 entries, no memory
#: Bad values for any parameter.
BAD = [
    None,
    True,
    "",
    "abc",
    "\u00e9",
    "x" * 100_000,
    "a" * 100_000,
    b"abc",
    [],
    [1, 2],
    [[1.0, 2.0], [3.0]],
    {},
    {1, 2},
    (),
    object(),
    math.nan,
    math.inf,
    -math.inf,
    0,
    -1,
    0.5,
    1e308,
    -1e308,
    10**400,
    -(10**400),
    2**63,
    10**9,
    1 + 2j,
    np.array([]),
    np.zeros((0, 4)),
    np.array(np.nan),
    np.full((3, 4), np.nan),
    np.ones((2, 3, 5)),
    np.array(["a", "b"]),
    np.array([1 + 1j]),
    np.array([10**30], dtype=object),
    HUGE_VIEW,
    np.full((3, 4), 1e308),
    np.full((2, 4), 6e4, dtype=np.float16),
]


def variants(value) -> list:
    """Broken versions of a valid value."""
    if isinstance(value, bool):
        return [1, "yes", None]
    if isinstance(value, numbers.Integral):
        v = int(value)
        return [-1, 0, -(10**9), 10**9, 10**18, 10**400, float(v), v + 0.5, str(v)]
    if isinstance(value, numbers.Real):
        v = float(value)
        return [math.nan, math.inf, -math.inf, 0.0, -v, 1e308, -1e308, 5e-324, str(v)]
    if isinstance(value, str):
        return ["", value.upper(), value + " ", value + "!", "\u00e9" + value, value[:1] * 10**6]
    if isinstance(value, np.ndarray):
        out = [
            value[None],
            value.ravel(),
            value[..., :-1],
            value.astype(complex),
            value.astype(str),
        ]
        out.append(np.broadcast_to(value.ravel()[:1], (10**5,) * max(value.ndim, 2)))
        if value.size and value.dtype.kind == "f":
            for bad in (np.nan, np.inf, -np.inf, np.finfo(value.dtype).max):
                broken = value.copy()
                broken.flat[value.size // 2] = bad
                out.append(broken)
        if value.ndim >= 2:
            out.append(np.swapaxes(value, -1, -2))
        return out
    if isinstance(value, list | tuple):
        return [type(value)(), [None] * max(len(value), 1), list(value) * 100_000, "abc"]
    return [None, "abc", {}, 42]


# --- one call -----------------------------------------------------------------------------------


class CallTimeout(BaseException):
    """Raised in a call that runs longer than :data:`HANG_SECONDS`."""


def _alarm(signum, frame):
    raise CallTimeout


def non_finite(value, depth: int = 0) -> str | None:
    """Where ``value`` holds a NaN or inf, if anywhere (arrays, numbers, containers, records)."""
    if depth > 4:
        return None
    if isinstance(value, np.ndarray):
        if value.size > 2**25:  # more than the package ever builds: a view passed through
            return f"an array of {value.size:,} entries"
        if value.dtype.kind in "fc" and value.size and not np.isfinite(value).all():
            return f"array of shape {value.shape}"
        return None
    if isinstance(value, float | np.floating):
        return None if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value[:1000])
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = ((f.name, getattr(value, f.name)) for f in dataclasses.fields(value))
    else:
        return None
    for key, item in items:
        where = non_finite(item, depth + 1)
        if where:
            return f"{key}: {where}"
    return None


def names(message: str, arg: str) -> bool:
    """True if ``message`` names the argument ``arg`` as a word."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(arg)}(?![A-Za-z0-9_])", message) is not None


def short(value) -> str:
    text = repr(value) if not isinstance(value, np.ndarray) else f"array{value.shape}"
    return text if len(text) <= 60 else text[:57] + "..."


@st.composite
def calls(draw, qualname: str):
    """``(kwargs, bad names)`` for one call of the callable ``qualname``."""
    fn = CALLABLES[qualname]
    z = draw(DIMS)
    valid = {**VALID, **OVERRIDES.get(qualname, {})}
    kwargs: dict = {}
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            if p.name == "config":
                keys = draw(st.lists(st.sampled_from(sorted(CONFIG_KEYS)), unique=True))
                if "D" in keys and "d" not in keys:
                    keys.append("d")
                # settings a callable's overrides name are always given, with their values
                keys += [k for k in OVERRIDES.get(qualname, {}) if k in CONFIG_KEYS]
                kwargs.update({k: draw(valid[k](z)) for k in dict.fromkeys(keys)})
            continue
        optional = p.default is not p.empty and p.name not in OVERRIDES.get(qualname, {})
        if optional and draw(st.integers(0, 3)) == 0:
            continue  # the default
        kwargs[p.name] = draw(valid[p.name](z))
    for name, partner in TOGETHER.items():
        if name in kwargs and partner not in kwargs and partner in valid:
            if partner in inspect.signature(fn).parameters:
                kwargs[partner] = draw(valid[partner](z))
    bad: list[str] = []
    n_bad = draw(st.sampled_from([0, 1, 1, 1, 2]))
    if n_bad and kwargs:
        bad = draw(st.permutations(sorted(kwargs)))[:n_bad]
        for name in bad:
            pool = st.sampled_from(variants(kwargs[name])) | st.sampled_from(BAD)
            kwargs[name] = draw(pool)
    if "config" in inspect.signature(fn).parameters and draw(st.integers(0, 5)) == 0:
        if inspect.signature(fn).parameters["config"].kind is inspect.Parameter.VAR_KEYWORD:
            kwargs["colour"] = "red"  # an unknown setting
            bad.append("colour")
    return kwargs, bad


def call_once(qualname: str, kwargs: dict, bad: list[str]) -> tuple[str, str | None]:
    """Run one call; ``(outcome, problem)``: problem is None for an acceptable outcome."""
    fn = CALLABLES[qualname]
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
    start = time.perf_counter()
    try:
        result = fn(**kwargs)
    except CallTimeout:
        return "hang", f"no answer within {HANG_SECONDS} s"
    except (ValueError, TypeError) as exc:
        elapsed = time.perf_counter() - start
        signal.setitimer(signal.ITIMER_REAL, 0)
        message = str(exc)
        if elapsed > REFUSE_SECONDS:
            return "slow refusal", f"refused after {elapsed:.1f} s: {message[:200]}"
        if len(message) > MAX_MESSAGE:
            return "long message", f"{len(message)} characters: {message[:200]}..."
        if not bad:
            return "valid input refused", message
        if not any(names(message, arg) for arg in bad):
            return "argument not named", f"{type(exc).__name__}: {message}"
        return "refused", None
    except BaseException as exc:  # noqa: BLE001 - anything else is the finding
        signal.setitimer(signal.ITIMER_REAL, 0)
        return f"other exception ({type(exc).__name__})", f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    where = non_finite(result)
    if where:
        huge = where.endswith(" entries")
        return ("absurdly large array returned" if huge else "NaN or inf returned"), where
    return "returned", None


# --- the test -----------------------------------------------------------------------------------

COUNTS: collections.Counter = collections.Counter()
FAILURES: dict[str, list[str]] = collections.defaultdict(list)


@contextlib.contextmanager
def capped_memory():
    """Cap the address space at what is mapped now plus :data:`MEMORY_HEADROOM`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/status") as f:
        mapped = int(re.search(r"VmSize:\s+(\d+) kB", f.read()).group(1)) * 1024
    cap = mapped + MEMORY_HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard < 0 else min(cap, hard), hard))
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module", autouse=True)
def report(summary):
    np.ones((64, 64)) @ np.ones((64, 64))  # start the BLAS threads before the cap
    figures.render_bytes(FAST_FIGURE)  # import matplotlib's backends before the cap
    cwd, tmp = os.getcwd(), tempfile.mkdtemp(prefix="rope-fuzz-")
    os.chdir(tmp)  # the renderers write files, to relative paths: only ever under tmp
    try:
        yield
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)
    total = sum(COUNTS.values())
    if total:
        parts = ", ".join(f"{k}: {v}" for k, v in COUNTS.most_common())
        summary.append(f"API fuzz: {total} calls of {len(CALLABLES)} callables; {parts}")
    if os.environ.get("ROPE_FUZZ_REPORT"):
        with open(os.environ["ROPE_FUZZ_REPORT"], "w") as f:
            json.dump({"calls": total, "outcomes": dict(COUNTS), "failures": FAILURES}, f, indent=1)


def test_discovery_finds_the_public_api():
    for name in ["forward", "apply_rope", "Config", "InductionPrompt", "tokenize"]:
        assert any(q.endswith(f".{name}") for q in CALLABLES), name
    assert not any(q.endswith(".Trace") for q in CALLABLES)  # a record, not an entry point
    for name in FIGURE_API:
        assert f"rope_explained.figures.{name}" in CALLABLES
    assert "rope_explained.rope.cos_sin_table" in CALLABLES
    assert not any(".figures.style" in q or "numpy" in q for q in CALLABLES)


def test_every_parameter_has_a_strategy():
    missing = [
        f"{q}({p.name})"
        for q, fn in CALLABLES.items()
        for p in inspect.signature(fn).parameters.values()
        if p.kind is not p.VAR_KEYWORD and p.name not in {**VALID, **OVERRIDES.get(q, {})}
    ]
    assert not missing, f"add a strategy to VALID for: {', '.join(missing)}"


@pytest.mark.parametrize("qualname", list(CALLABLES))
def test_bad_input_is_refused_cleanly(qualname):
    seen: list[str] = []

    @settings(
        max_examples=next(
            (n for prefix, n in FEWER_EXAMPLES.items() if qualname.startswith(prefix)),
            EXAMPLES_PER_CALLABLE,
        ),
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(calls(qualname))
    def run(call):
        kwargs, bad = call
        with capped_memory():
            outcome, problem = call_once(qualname, kwargs, bad)
        COUNTS[outcome] += 1
        if problem:
            args = ", ".join(f"{k}={short(v)}" for k, v in kwargs.items())
            seen.append(f"{outcome}: {qualname.rsplit('.', 1)[1]}({args}) -> {problem}")

    run()
    FAILURES[qualname] = seen
    assert not seen, f"{len(seen)} bad outcomes:\n" + "\n".join(seen[:8])
