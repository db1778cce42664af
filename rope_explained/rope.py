r"""Rotary Position Embedding: frequencies, rotation matrices and the fast path.

Notation follows the site. A head has an even dimension ``d``; its coordinates form
``d/2`` pairs, pair ``i`` turning at the frequency

$$
\theta_i = \mathrm{base}^{-2i/d}, \qquad i = 0, \ldots, d/2 - 1 .
$$

At position ``m`` pair ``i`` is turned by the angle ``m * theta_i``. Two layouts say which
coordinates form pair ``i``:

* ``"interleaved"``: coordinates ``(2i, 2i+1)``, as in RoFormer and GPT-J;
* ``"half"``: coordinates ``(i, i + d/2)``, the "rotate half" layout of GPT-NeoX and LLaMA.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from ._checks import check_base, check_head_dim, check_positive_finite

LAYOUTS = ("interleaved", "half")
SCALING_METHODS = ("linear", "ntk", "yarn")


def frequencies(d: int, base: float = 10000.0) -> np.ndarray:
    r"""Rotation frequencies of a RoPE head: \(\theta_i = \mathrm{base}^{-2i/d}\).

    Args:
        d: head dimension, even and at least 2.
        base: the frequency base, greater than 1 (RoFormer uses 10000).

    Returns:
        Array of shape ``(d/2,)``; ``theta[0] == 1`` turns fastest, the last entry slowest.

    Examples:
        >>> frequencies(4)
        array([1.  , 0.01])
    """
    d = check_head_dim(d)
    base = check_base(base)
    i = np.arange(d // 2, dtype=np.float64)
    return base ** (-2.0 * i / d)  # (d/2,)


def rotation_matrix(m: float, d: int, base: float = 10000.0) -> np.ndarray:
    r"""The block-diagonal rotation \(R_{\Theta,m}\) (pairs ``(2i, 2i+1)``).

    $$
    R_{\Theta,m} = \mathrm{diag}\left(
    \begin{bmatrix}\cos m\theta_i & -\sin m\theta_i\\
    \sin m\theta_i & \cos m\theta_i\end{bmatrix}\right)_{i=0}^{d/2-1}
    $$

    ``m`` may be negative or fractional: \(R_{\Theta,-1}\) is the "look one step back"
    rotation of the previous-token head.

    Examples:
        >>> R = rotation_matrix(1, 2, base=10000.0)
        >>> bool(np.allclose(R, [[np.cos(1), -np.sin(1)], [np.sin(1), np.cos(1)]]))
        True
    """
    if not np.isfinite(m):
        raise ValueError(f"position m must be finite, got {m!r}")
    theta = frequencies(d, base)
    angle = float(m) * theta  # (d/2,)
    cos, sin = np.cos(angle), np.sin(angle)
    R = np.zeros((d, d))
    i = np.arange(d // 2)
    R[2 * i, 2 * i] = cos
    R[2 * i, 2 * i + 1] = -sin
    R[2 * i + 1, 2 * i] = sin
    R[2 * i + 1, 2 * i + 1] = cos
    return R


def _check_layout(layout: str) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; allowed: {', '.join(LAYOUTS)}")
    return layout


@functools.lru_cache(maxsize=16)
def _cos_sin_cached(positions: bytes, theta: bytes) -> tuple[np.ndarray, np.ndarray]:
    angle = np.outer(np.frombuffer(positions), np.frombuffer(theta))  # (seq, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    cos.flags.writeable = False
    sin.flags.writeable = False
    return cos, sin


def cos_sin_table(positions: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""\(\cos m\theta_i\) and \(\sin m\theta_i\) for every position and pair, shape ``(seq, d/2)``.

    The tables depend only on the positions and the frequencies, so, like the rotary modules of
    production models, the package keeps the last few in a small cache (read-only arrays).
    ``cos_sin_table.cache_clear()`` empties it.
    """
    p = np.ascontiguousarray(positions, dtype=np.float64)
    t = np.ascontiguousarray(theta, dtype=np.float64)
    return _cos_sin_cached(p.tobytes(), t.tobytes())


cos_sin_table.cache_clear = _cos_sin_cached.cache_clear  # type: ignore[attr-defined]


# --8<-- [start:apply_rope]
def apply_rope(
    x: np.ndarray,
    positions: Sequence[float] | np.ndarray,
    base: float = 10000.0,
    layout: str = "interleaved",
    inv_freq: np.ndarray | None = None,
) -> np.ndarray:
    r"""Rotate every vector of ``x`` by its position: \(x_m \mapsto R_{\Theta,m}\,x_m\).

    The fast path: two element-wise products per coordinate instead of a ``(d, d)`` matrix
    product. For pair ``i`` with coordinates ``(a, b)`` at position ``m``

    $$
    a' = a\cos m\theta_i - b\sin m\theta_i, \qquad
    b' = a\sin m\theta_i + b\cos m\theta_i .
    $$

    Args:
        x: array of shape ``(..., seq, d)`` with ``d`` even.
        positions: ``seq`` positions (any finite reals) for the rows of ``x``.
        base: frequency base, greater than 1.
        layout: ``"interleaved"`` pairs ``(2i, 2i+1)`` (RoFormer, GPT-J); ``"half"`` pairs
            ``(i, i + d/2)`` (GPT-NeoX, LLaMA "rotate half").
        inv_freq: optional frequencies of shape ``(d/2,)`` replacing ``frequencies(d, base)``,
            for example from :func:`scaled_frequencies`.

    Returns:
        Array with the shape of ``x``, in float64.

    Examples:
        >>> x = np.array([[1.0, 0.0]])
        >>> np.round(apply_rope(x, [np.pi / 2]), 12)
        array([[0., 1.]])
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, d); got shape {x.shape}")
    seq, d = x.shape[-2], x.shape[-1]
    check_head_dim(d)
    _check_layout(layout)
    positions = np.asarray(positions, dtype=np.float64)
    if positions.shape != (seq,):
        raise ValueError(
            f"positions must have shape ({seq},) to match x's sequence axis; "
            f"got shape {positions.shape}"
        )
    if not np.all(np.isfinite(positions)):
        raise ValueError("positions must be finite")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite (found NaN or inf)")
    if inv_freq is None:
        theta = frequencies(d, base)
    else:
        theta = np.asarray(inv_freq, dtype=np.float64)
        if theta.shape != (d // 2,):
            raise ValueError(f"inv_freq must have shape ({d // 2},); got {theta.shape}")
    cos, sin = cos_sin_table(positions, theta)  # (seq, d/2) each
    if layout == "interleaved":
        a, b = x[..., 0::2], x[..., 1::2]  # (..., seq, d/2) each
    else:
        a, b = x[..., : d // 2], x[..., d // 2 :]
    out = np.empty_like(x)
    if layout == "interleaved":
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
    else:
        out[..., : d // 2] = a * cos - b * sin
        out[..., d // 2 :] = a * sin + b * cos
    return out


# --8<-- [end:apply_rope]


def apply_rope_matrix(
    x: np.ndarray, positions: Sequence[float] | np.ndarray, base: float = 10000.0
) -> np.ndarray:
    r"""Reference path: \(x_m \mapsto R_{\Theta,m} x_m\) with explicit matrices.

    Builds one ``(d, d)`` matrix per position with :func:`rotation_matrix` and multiplies.
    Slow on purpose: it is the definition that :func:`apply_rope` is checked and timed against.

    Examples:
        >>> x = np.arange(8.0).reshape(2, 4)
        >>> bool(np.allclose(apply_rope_matrix(x, [0, 3]), apply_rope(x, [0, 3])))
        True
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, d); got shape {x.shape}")
    positions = np.asarray(positions, dtype=np.float64)
    seq, d = x.shape[-2], x.shape[-1]
    if positions.shape != (seq,):
        raise ValueError(
            f"positions must have shape ({seq},) to match x's sequence axis; "
            f"got shape {positions.shape}"
        )
    check_head_dim(d)
    if not np.all(np.isfinite(positions)):
        raise ValueError("positions must be finite")
    angle = positions[:, None] * frequencies(d, base)[None, :]  # (seq, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    R = np.zeros((seq, d, d))  # one R_{Theta,m} per position, built as in rotation_matrix
    i = np.arange(d // 2)
    R[:, 2 * i, 2 * i] = cos
    R[:, 2 * i, 2 * i + 1] = -sin
    R[:, 2 * i + 1, 2 * i] = sin
    R[:, 2 * i + 1, 2 * i + 1] = cos
    return np.matmul(R, x[..., None])[..., 0]  # (..., seq, d): R_m @ x_m


def scaled_frequencies(
    d: int,
    *,
    base: float = 10000.0,
    method: str,
    factor: float,
    original_max_position: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> tuple[np.ndarray, float]:
    r"""Frequencies for running a RoPE model past its trained context.

    ``factor`` is the context extension \(s\) (new length / trained length).

    * ``"linear"`` (Position Interpolation, Chen et al. 2023): \(\theta_i / s\), i.e.
      positions squeezed by \(s\).
    * ``"ntk"`` (NTK-aware, bloc97 2023): a larger base \(b' = b\,s^{d/(d-2)}\), so the
      fastest pair keeps its frequency and the slowest is divided by exactly \(s\).
    * ``"yarn"`` (YaRN, Peng et al. 2023): pairs that turn more than ``beta_fast`` times over
      the trained length keep \(\theta_i\); pairs that turn fewer than ``beta_slow`` times
      are interpolated to \(\theta_i/s\); a linear ramp in between. Attention logits are
      multiplied by \((0.1 \ln s + 1)^2\), returned here as ``attention_factor``
      \(= 0.1 \ln s + 1\) applied to both queries and keys.

    Returns:
        ``(inv_freq, attention_factor)``: frequencies of shape ``(d/2,)`` and the factor
        (1.0 for ``"linear"`` and ``"ntk"``).

    Examples:
        >>> f, a = scaled_frequencies(8, method="linear", factor=2.0, original_max_position=16)
        >>> bool(np.allclose(f, frequencies(8) / 2)), a
        (True, 1.0)
    """
    d = check_head_dim(d)
    base = check_base(base)
    if method not in SCALING_METHODS:
        raise ValueError(f"unknown method {method!r}; allowed: {', '.join(SCALING_METHODS)}")
    factor = check_positive_finite("factor", factor)
    if factor < 1.0:
        raise ValueError(f"factor must be >= 1 (a context extension); got {factor!r}")
    if int(original_max_position) != original_max_position or original_max_position < 1:
        raise ValueError(
            f"original_max_position must be a positive integer; got {original_max_position!r}"
        )
    theta = frequencies(d, base)
    if method == "linear":
        return theta / factor, 1.0
    if method == "ntk":
        return frequencies(d, base * factor ** (d / (d - 2))), 1.0
    # YaRN: the pair index at which a frequency completes `rotations` turns over the context.
    if not (beta_fast > beta_slow > 0):
        raise ValueError(
            f"need beta_fast > beta_slow > 0; got beta_fast={beta_fast!r}, beta_slow={beta_slow!r}"
        )

    def correction_dim(rotations: float) -> float:
        return (d * math.log(original_max_position / (rotations * 2 * math.pi))) / (
            2 * math.log(base)
        )

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001  # avoid a zero-width ramp
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)  # 0: keep, 1: interpolate
    keep = 1.0 - ramp
    inv_freq = (theta / factor) * (1.0 - keep) + theta * keep
    return inv_freq, 0.1 * math.log(factor) + 1.0
