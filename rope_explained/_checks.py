"""Input checks shared by the package.

Each check returns the value in the form the caller computes with (an ``int``, a ``float``, a
float array) or raises a ``ValueError`` that names the argument, states the allowed range and
quotes at most a short excerpt of what it got (see `show`). The limits below are the
package's documented upper bounds: past them a computation would overflow, take minutes or ask
for gigabytes, so the value is refused before any work is done.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

MAX_HEAD_DIM = 4096
"""Largest head dimension ``d`` the RoPE functions accept."""
MAX_WIDTH = 16_384
"""Largest residual-stream width ``D`` the experiments accept."""
MAX_BASE = 1e12
"""Largest frequency ``base`` (RoFormer uses 10,000; long-context models up to about 10**7)."""
MAX_SHARPNESS = 1e6
"""Largest sharpness ``alpha``, ``beta``, ``gamma`` (and experiment ``alphas``): past it the
scores of long texts leave the range where float64 keeps them apart."""
MAX_ARRAY_SIZE = 2**25
"""Largest number of entries of an array a function builds or accepts (256 MiB as float64)."""
MAX_LETTERS = 8192
"""Longest text [`forward`][rope_explained.model.forward] accepts: its trace holds four
T x T float64 matrices (T = letters + 1), about 2.1 GB at 8,192 letters."""
MAX_CONTEXT = 10**9
"""Largest context length (``original_max_position``, ``seq_len``) a scaling accepts."""
MAX_MODEL_DIM = 512
"""Largest head dimension ``d`` of the two-layer model ([`Config`][rope_explained.model.Config])."""
MAX_MODEL_WIDTH = 2048
"""Largest residual width ``D`` of the model: its trace holds five T x D matrices."""
EXCERPT = 40
"""How many characters of a refused text or value an error message quotes."""


def show(value: object) -> str:
    """A short description of ``value`` for an error message: never more than about 80 characters.

    Long texts are cut to their first `EXCERPT` characters and their length; arrays are
    described by shape and dtype; other objects by a cut ``repr``.

    Examples:
        >>> show("abc")
        "'abc'"
        >>> show("x" * 1000)
        "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (1,000 characters)"
        >>> show(np.zeros((2, 3)))
        'an array of shape (2, 3) and dtype float64'
    """
    if isinstance(value, str | bytes):
        if len(value) <= EXCERPT:
            return repr(value)
        return f"{value[:EXCERPT]!r}... ({len(value):,} characters)"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        if abs(int(value)) >= 10**EXCERPT:
            return f"an integer of {int(value).bit_length():,} bits"
        return repr(int(value))
    if isinstance(value, list | tuple | dict | set | frozenset) and len(value) > 8:
        return f"a {type(value).__name__} of {len(value):,} items"
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__}>"
    if len(text) > 2 * EXCERPT:
        text = f"{text[: 2 * EXCERPT]}... ({type(value).__name__})"
    return text


def _num(x: float | None, default: str) -> str:
    if x is None:
        return default
    if isinstance(x, float):
        return f"{x:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
    return str(x)


def _range(lo: float | None, hi: float | None, lo_open: bool = False) -> str:
    """``[lo, hi]`` as a message shows it: ``(`` for an open or missing lower end."""
    left = "(" if lo_open or lo is None else "["
    right = ")" if hi is None else "]"
    return f"{left}{_num(lo, '-inf')}, {_num(hi, 'inf')}{right}"


def check_int_range(name: str, value: object, lo: int, hi: int | None = None) -> int:
    """An integer in ``[lo, hi]`` (``hi`` None: no upper bound); bools and floats are refused."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer in {_range(lo, hi)}; got {show(value)}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be in {_range(lo, hi)}; got {show(value)}")
    return value


def check_head_dim(d: object, name: str = "d", hi: int = MAX_HEAD_DIM) -> int:
    """An even integer in ``[2, hi]`` (a RoPE head turns its coordinates in pairs)."""
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or not 2 <= d <= hi or d % 2:
        raise ValueError(f"{name} must be an even integer in [2, {hi}]; got {show(d)}")
    return int(d)


def check_model_dims(d: object, D: object) -> tuple[int, int]:
    """The model's head dimension and width: ``d`` even in ``[2, 512]``, ``D`` in
    ``[3d + 1, 2048]`` (room for the bias coordinate and three slots of ``d``)."""
    d = check_head_dim(d, hi=MAX_MODEL_DIM)
    return d, check_int_range("D", D, 3 * d + 1, MAX_MODEL_WIDTH)


def check_real(
    name: str,
    value: object,
    lo: float | None = None,
    hi: float | None = None,
    *,
    lo_open: bool = False,
) -> float:
    """A finite real number in ``[lo, hi]`` (``(lo, hi]`` with ``lo_open``); None: unbounded."""
    bounds = "" if lo is None and hi is None else f" in {_range(lo, hi, lo_open)}"
    what = f"{name} must be a finite number{bounds}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{what}; got {show(value)}")
    try:
        x = float(value)
    except (OverflowError, ValueError):  # an int too large for a float
        raise ValueError(f"{what}; got {show(value)}") from None
    if (
        not math.isfinite(x)
        or (lo is not None and (x <= lo if lo_open else x < lo))
        or (hi is not None and x > hi)
    ):
        raise ValueError(f"{what}; got {show(value)}")
    return x


def check_positive_finite(name: str, value: object, hi: float | None = None) -> float:
    """A finite number in ``(0, hi]`` (``hi`` None: no upper bound)."""
    return check_real(name, value, 0.0, hi, lo_open=True)


def check_sharpness(name: str, value: object) -> float:
    """A sharpness (``alpha``, ``beta``, ``gamma``): a finite number in ``(0, 1e6]``."""
    return check_positive_finite(name, value, MAX_SHARPNESS)


def check_base(base: object, name: str = "base") -> float:
    """A frequency base: a finite number in ``(1, 1e12]``."""
    return check_real(name, base, 1.0, MAX_BASE, lo_open=True)


def check_bool(name: str, value: object) -> bool:
    """``True`` or ``False`` (not a truthy number or string)."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False; got {show(value)}")
    return bool(value)


def check_choice(name: str, value: object, allowed: Iterable[str]) -> str:
    """One of the strings ``allowed``."""
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(
            f"{name} must be one of {', '.join(map(repr, allowed))}; got {show(value)}"
        )
    return value


def check_text(
    name: str,
    value: object,
    max_len: int | None = None,
    *,
    unit: str = "characters",
    who: str = "the function",
    why: str = "",
) -> str:
    """A non-empty ``str`` of at most ``max_len`` characters.

    A longer one is refused with its length and an excerpt: "``name`` has N ``unit``; ``who``
    accepts at most ``max_len````why`` (``name`` starts '...')".

    Examples:
        >>> check_text("text", "abc", 2, unit="letters", who="f")
        Traceback (most recent call last):
        ...
        ValueError: text has 3 letters; f accepts at most 2 (text starts 'abc')
    """
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a str; got {type(value).__name__} {show(value)}")
    if value == "":
        raise ValueError(f"{name} is empty; give at least one of its {unit}")
    if max_len is not None and len(value) > max_len:
        raise ValueError(
            f"{name} has {len(value):,} {unit}; {who} accepts at most {max_len:,}{why} "
            f"({name} starts {value[:EXCERPT]!r})"
        )
    return value


def check_size(what: str, size: int, limit: int = MAX_ARRAY_SIZE) -> int:
    """Refuse a computation that would build an array of more than ``limit`` entries.

    ``what`` names the arguments the size comes from, e.g. ``"T x D"``.
    """
    if size > limit:
        raise ValueError(
            f"{what} = {size:,} entries is more than the {limit:,} this package builds at once "
            f"({limit * 8 / 2**20:,.0f} MiB as float64); use smaller sizes"
        )
    return size


def check_array(
    name: str,
    value: object,
    *,
    ndim: int | tuple[int, int] | None = None,
    shape: tuple[int, ...] | None = None,
    min_size: int = 1,
    max_size: int = MAX_ARRAY_SIZE,
    max_abs: float | None = None,
    keep_float: bool = False,
    finite: bool = True,
) -> np.ndarray:
    """An array of finite real numbers, converted to float64.

    Args:
        name: the argument's name, for the message.
        value: anything ``numpy.asarray`` reads as an array of bools, integers or floats.
        ndim: the number of axes, or an inclusive range ``(lo, hi)`` of them.
        shape: the exact shape (overrides ``ndim``).
        min_size: the least number of entries (1: empty arrays are refused).
        max_size: the most entries (default `MAX_ARRAY_SIZE`).
        max_abs: the largest magnitude an entry may have, if any.
        keep_float: keep a floating dtype (float16, float32, ...) instead of converting to
            float64; bools and integers still become float64.
        finite: check that every entry is finite (False: the caller checks what it reads).

    The checks run before any copy, so an absurd size is refused without allocating it.
    """
    if isinstance(value, str | bytes | dict | set) or value is None:
        raise ValueError(f"{name} must be an array of numbers; got {show(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError, RecursionError):
        raise ValueError(f"{name} must be an array of numbers; got {show(value)}") from None
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"{name} must be an array of real numbers; got {show(value)}"
            if arr.dtype.kind != "O"
            else f"{name} must be an array of real numbers; got {show(value)} of Python objects"
        )
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}; got shape {arr.shape}")
    if isinstance(ndim, int) and arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array; got shape {arr.shape}")
    if isinstance(ndim, tuple) and not ndim[0] <= arr.ndim <= ndim[1]:
        raise ValueError(f"{name} must have {ndim[0]} to {ndim[1]} axes; got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(
            f"{name} must have at least {min_size} entr{'y' if min_size == 1 else 'ies'}; "
            f"got shape {arr.shape}"
        )
    if arr.size > max_size:
        raise ValueError(
            f"{name} must have at most {max_size:,} entries; got shape {arr.shape} "
            f"({arr.size:,} entries)"
        )
    if not (keep_float and arr.dtype.kind == "f"):
        arr = arr.astype(np.float64, copy=False)
    if arr.size and finite:
        lo, hi = arr.min(), arr.max()  # NaN propagates; no temporary the size of arr
        if not (np.isfinite(lo) and np.isfinite(hi)):
            got = show(value) if arr.ndim == 0 else f"{show(arr)} containing NaN or inf"
            raise ValueError(f"{name} must be finite; got {got}")
        biggest = max(-float(lo), float(hi))
        if max_abs is not None and biggest > max_abs:
            raise ValueError(
                f"{name} must have entries of magnitude at most {_num(float(max_abs), '')}; "
                f"got an entry of magnitude {_num(biggest, '')}"
            )
    return arr


def check_seed(seed: object) -> int:
    """A random seed: an integer in ``[0, 2**63 - 1]``."""
    return check_int_range("seed", seed, 0, 2**63 - 1)
