"""Input checks shared by the package: each raises a ValueError naming the value and its range."""

from __future__ import annotations

import math
import numbers


def check_head_dim(d: object, name: str = "d") -> int:
    """An even integer of at least 2 (a RoPE head turns its coordinates in pairs)."""
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        raise ValueError(f"{name} must be an even integer >= 2; got {d!r}")
    d = int(d)
    if d < 2 or d % 2:
        raise ValueError(f"{name} must be an even integer >= 2; got {d}")
    return d


def check_base(base: object) -> float:
    """A finite frequency base greater than 1."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise ValueError(f"base must be a finite number > 1; got {base!r}")
    base = float(base)
    if not math.isfinite(base) or base <= 1.0:
        raise ValueError(f"base must be a finite number > 1; got {base!r}")
    return base


def check_positive_finite(name: str, value: object) -> float:
    """A finite number greater than 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return value


def check_int_range(name: str, value: object, lo: int, hi: int | None = None) -> int:
    """An integer in ``[lo, hi]`` (``hi`` None: no upper bound)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(
            f"{name} must be an integer in [{lo}, {hi if hi is not None else 'inf'}]; got {value!r}"
        )
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        raise ValueError(
            f"{name} must be in [{lo}, {hi if hi is not None else 'inf'}]; got {value}"
        )
    return value
