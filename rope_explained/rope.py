r"""Rotary Position Embedding: frequencies, rotation matrices and the fast path.

Notation follows the site. A head has an even dimension ``d``; its coordinates form
``d/2`` pairs, pair ``i`` turning at the frequency

$$
\theta_i = \mathrm{base}^{-2i/d}, \qquad i = 0, \ldots, d/2 - 1 .
$$

At position ``m`` pair ``i`` is turned by the angle ``m * theta_i``. Two layouts say which
coordinates form pair ``i``:

* ``"interleaved"``: coordinates ``(2i, 2i+1)``, as in RoFormer, GPT-J and Meta's reference
  LLaMA code (which views each adjacent pair as one complex number);
* ``"half"``: coordinates ``(i, i + d/2)``, the "rotate half" layout of GPT-NeoX and of the
  Hugging Face port of LLaMA, whose conversion script reorders the rows of \(W_q\) and
  \(W_k\) ([`rope_explained.conventions.interleaved_to_half`][]) so that the scores stay
  the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ._checks import (
    MAX_CONTEXT,
    check_array,
    check_base,
    check_choice,
    check_head_dim,
    check_int_range,
    check_real,
    check_size,
)

LAYOUTS = ("interleaved", "half")
SCHEDULES = ("standard", "wendler")
"""Frequency schedules of [`frequencies`][]."""
SCALING_METHODS = ("linear", "ntk", "dynamic-ntk", "yarn", "llama3")
"""Context-extension methods of [`scaled_frequencies`][]."""
YARN_RAMPS = ("code", "paper")
"""The two readings of YaRN's ramp ([`yarn_keep`][])."""
MAX_FACTOR = 1e6
"""Largest context extension ``factor`` of [`scaled_frequencies`][]."""
YARN_ATTENTION_SLOPE = 0.1
"""The slope of YaRN's attention factor in the log of the extension: \\(1 + 0.1 \\ln s\\)
([`scaled_frequencies`][])."""
YARN_MIN_RAMP = 0.001
"""The width YaRN's ramp ([`yarn_keep`][]) is given when its two ends meet (a ramp of width 0
would divide by zero)."""


def frequencies(d: int, base: float = 10000.0, schedule: str = "standard") -> np.ndarray:
    r"""Rotation frequencies of a RoPE head.

    ``schedule="standard"`` (RoFormer, and every model this site discusses):
    \(\theta_i = \mathrm{base}^{-2i/d}\), \(i = 0, \ldots, d/2 - 1\), so the slowest pair
    turns by \(\mathrm{base}^{-(d-2)/d}\) per position.

    ``schedule="wendler"`` (the one Chris Wendler's notes on RoPE use):
    \(\theta_i = \mathrm{base}^{-2i/(d-2)}\), which spreads the same exponents so that the
    slowest pair turns by exactly \(1/\mathrm{base}\) (his \(10^{-4}\)).

    Args:
        d: head dimension, even, in ``[2, 4096]`` (``"wendler"`` needs ``d >= 4``).
        base: the frequency base, in ``(1, 1e12]`` (RoFormer uses 10000).
        schedule: one of [`SCHEDULES`][].

    Returns:
        Array of shape ``(d/2,)``; ``theta[0] == 1`` turns fastest, the last entry slowest.

    Examples:
        >>> frequencies(4)
        array([1.  , 0.01])
        >>> frequencies(4, schedule="wendler")
        array([1.e+00, 1.e-04])
    """
    d = check_head_dim(d)
    base = check_base(base)
    schedule = check_choice("schedule", schedule, SCHEDULES)
    if schedule == "standard":
        return _theta(d, base)
    if d < 4:
        raise ValueError(f"schedule='wendler' needs d >= 4 (its exponent is 2i/(d-2)); got d={d}")
    i = np.arange(d // 2, dtype=np.float64)
    return base ** (-2.0 * i / (d - 2))  # (d/2,)


def _theta(d: int, base: float) -> np.ndarray:
    i = np.arange(d // 2, dtype=np.float64)
    return base ** (-2.0 * i / d)  # (d/2,)


def rotation_matrix(m: float, d: int, base: float = 10000.0) -> np.ndarray:
    r"""The block-diagonal rotation \(R_{\Theta,m}\) (pairs ``(2i, 2i+1)``).

    $$
    R_{\Theta,m} = \mathrm{diag}\left(
    \begin{bmatrix}\cos m\theta_i & -\sin m\theta_i\\
    \sin m\theta_i & \cos m\theta_i\end{bmatrix}\right)_{i=0}^{d/2-1}
    $$

    ``m`` may be any finite number, negative or fractional: \(R_{\Theta,-1}\) is the
    "look one step back" rotation of the previous-token head. ``d`` is even, in ``[2, 4096]``;
    ``base`` in ``(1, 1e12]``.

    Examples:
        >>> R = rotation_matrix(1, 2, base=10000.0)
        >>> bool(np.allclose(R, [[np.cos(1), -np.sin(1)], [np.sin(1), np.cos(1)]]))
        True
    """
    m = check_real("m", m)
    theta = frequencies(d, base)
    angle = m * theta  # (d/2,)
    cos, sin = np.cos(angle), np.sin(angle)
    R = np.zeros((d, d))
    i = np.arange(d // 2)
    R[2 * i, 2 * i] = cos
    R[2 * i, 2 * i + 1] = -sin
    R[2 * i + 1, 2 * i] = sin
    R[2 * i + 1, 2 * i + 1] = cos
    return R


def _check_layout(layout: object) -> str:
    return check_choice("layout", layout, LAYOUTS)


def cos_sin_table(positions: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""\(\cos m\theta_i\) and \(\sin m\theta_i\) for every position and pair, shape ``(seq, d/2)``.

    ``positions`` and ``theta`` are 1-D arrays of finite numbers whose products stay finite; the
    tables are computed in float64 and have at most ``2**25`` entries each.

    They are computed afresh on every call: at 1,024 positions and 32 pairs that takes well under
    a millisecond, next to a forward pass that takes hundreds.
    """
    p = check_array("positions", positions, ndim=1, min_size=0)
    t = check_array("theta", theta, ndim=1, min_size=0)
    return _cos_sin(p, t)


def _cos_sin(
    p: np.ndarray, t: np.ndarray, theta_name: str = "theta"
) -> tuple[np.ndarray, np.ndarray]:
    """The tables for checked float64 positions and frequencies (see [`cos_sin_table`][]);
    ``theta_name`` is what the caller calls the frequencies, for messages."""
    check_size(f"len(positions) x len({theta_name})", p.size * t.size)
    if p.size and t.size and float(np.abs(p).max()) * float(np.abs(t).max()) > 1e300:
        raise ValueError(
            f"positions times {theta_name} must stay below 1e300 (the angles m * theta_i); got "
            f"positions up to {float(np.abs(p).max()):g} and {theta_name} up to "
            f"{float(np.abs(t).max()):g}"
        )
    angle = np.outer(p, t)  # (seq, d/2): m theta_i
    return np.cos(angle), np.sin(angle)


# --8<-- [start:apply_rope]
# --8<-- [start:apply_rope_signature]
def apply_rope(
    x: np.ndarray,
    positions: Sequence[float] | np.ndarray,
    base: float = 10000.0,
    layout: str = "interleaved",
    inv_freq: np.ndarray | None = None,
) -> np.ndarray:
    # --8<-- [end:apply_rope_signature]
    r"""Rotate every vector of ``x`` by its position: \(x_m \mapsto R_{\Theta,m}\,x_m\).

    The fast path: two element-wise products per coordinate instead of a ``(d, d)`` matrix
    product. For pair ``i`` with coordinates ``(a, b)`` at position ``m``

    $$
    a' = a\cos m\theta_i - b\sin m\theta_i, \qquad
    b' = a\sin m\theta_i + b\cos m\theta_i .
    $$

    Args:
        x: array of shape ``(..., seq, d)`` of finite real numbers, ``d`` even, in
            ``[2, 4096]``, at most ``2**25`` entries.
        positions: ``seq`` positions (any finite reals) for the rows of ``x``.
        base: frequency base, in ``(1, 1e12]``.
        layout: ``"interleaved"`` pairs ``(2i, 2i+1)`` (RoFormer, GPT-J, Meta's reference
            LLaMA code); ``"half"`` pairs ``(i, i + d/2)`` ("rotate half": GPT-NeoX and the
            Hugging Face port of LLaMA).
        inv_freq: optional frequencies of shape ``(d/2,)`` replacing ``frequencies(d, base)``,
            for example from [`scaled_frequencies`][].

    Returns:
        Array with the shape of ``x`` and its floating dtype: float16, float32 and float64 stay
        what they are (the cos/sin tables are computed in float64 and cast), bools and integers
        become float64.

    Examples:
        >>> x = np.array([[1.0, 0.0]])
        >>> np.round(apply_rope(x, [np.pi / 2]), 12)
        array([[0., 1.]])
        >>> apply_rope(x.astype(np.float32), [1.0]).dtype
        dtype('float32')
    """
    # Entries up to half the dtype's largest value: a rotated pair is at most twice as large.
    dtype = x.dtype if isinstance(x, np.ndarray) and x.dtype.kind == "f" else np.float64
    x = check_array("x", x, min_size=0, keep_float=True, max_abs=float(np.finfo(dtype).max) / 2)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, d); got shape {x.shape}")
    seq, d = x.shape[-2], x.shape[-1]
    check_head_dim(d, name="x.shape[-1] (the head dimension d)")
    _check_layout(layout)
    base = check_base(base)
    positions = check_array("positions", positions, ndim=1, min_size=0)
    if positions.shape != (seq,):
        raise ValueError(
            f"positions must have shape ({seq},) to match x's sequence axis; "
            f"got shape {positions.shape}"
        )
    if inv_freq is None:
        theta = _theta(d, base)
    else:
        theta = check_array("inv_freq", inv_freq, shape=(d // 2,))
    # --8<-- [start:apply_rope_rotate]
    cos, sin = _cos_sin(positions, theta, "theta" if inv_freq is None else "inv_freq")
    cos, sin = cos.astype(x.dtype, copy=False), sin.astype(x.dtype, copy=False)
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
    # --8<-- [end:apply_rope_rotate]


# --8<-- [end:apply_rope]


def apply_rope_matrix(
    x: np.ndarray, positions: Sequence[float] | np.ndarray, base: float = 10000.0
) -> np.ndarray:
    r"""Reference path: \(x_m \mapsto R_{\Theta,m} x_m\) with explicit matrices.

    Builds one ``(d, d)`` matrix per position with [`rotation_matrix`][] and multiplies
    (at most ``2**25`` matrix entries in all: ``seq * d * d``). Slow on purpose: it is the
    definition that [`apply_rope`][] is checked and timed against. Returns float64.

    Examples:
        >>> x = np.arange(8.0).reshape(2, 4)
        >>> bool(np.allclose(apply_rope_matrix(x, [0, 3]), apply_rope(x, [0, 3])))
        True
    """
    x = check_array("x", x, min_size=0, max_abs=float(np.finfo(np.float64).max) / 2)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, d); got shape {x.shape}")
    seq, d = x.shape[-2], x.shape[-1]
    check_head_dim(d, name="x.shape[-1] (the head dimension d)")
    positions = check_array("positions", positions, ndim=1, min_size=0)
    if positions.shape != (seq,):
        raise ValueError(
            f"positions must have shape ({seq},) to match x's sequence axis; "
            f"got shape {positions.shape}"
        )
    check_size("seq x d x d (one d x d matrix per position)", seq * d * d)
    angle = positions[:, None] * frequencies(d, base)[None, :]  # (seq, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    R = np.zeros((seq, d, d))  # one R_{Theta,m} per position, built as in rotation_matrix
    i = np.arange(d // 2)
    R[:, 2 * i, 2 * i] = cos
    R[:, 2 * i, 2 * i + 1] = -sin
    R[:, 2 * i + 1, 2 * i] = sin
    R[:, 2 * i + 1, 2 * i + 1] = cos
    return np.matmul(R, x[..., None])[..., 0]  # (..., seq, d): R_m @ x_m


def yarn_keep(
    d: int,
    *,
    base: float = 10000.0,
    original_max_position: int,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    ramp: str = "code",
) -> np.ndarray:
    r"""YaRN's blend: for each pair, the weight on its own frequency \(\theta_i\).

    YaRN (NTK-by-parts) gives pair \(i\) the frequency
    \(h(\theta_i) = (1 - \rho_i)\,\theta_i / s + \rho_i\,\theta_i\): \(\rho_i = 1\) keeps
    the pair, \(\rho_i = 0\) interpolates it like Position Interpolation. How \(\rho\)
    moves between the two is read two ways:

    * ``ramp="paper"``, the formula of the YaRN paper (Peng et al. 2023, v2, eqs. 17-20):
      \(\rho\) is linear in the number of turns \(r_i = L / \lambda_i = L\theta_i/2\pi\)
      the pair makes over the original context \(L\), 0 below ``beta_slow``
      (\(r_\text{slow} = 1\)) and 1 above ``beta_fast`` (\(r_\text{fast} = 32\)); the
      paper calls these bounds \(\alpha\) and \(\beta\), letters this site gives the
      model's sharpness settings;
    * ``ramp="code"``, the YaRN reference code and Hugging Face's ``_compute_yarn_parameters``:
      linear in the pair index \(i\), between the pair indices at which \(r\) equals
      ``beta_fast`` (rounded down) and ``beta_slow`` (rounded up). This is what
      [`scaled_frequencies`][] uses.

    Both agree at the two ends; in between the code's ramp is linear in \(\log r\).

    Returns:
        Array of shape ``(d/2,)`` with entries in ``[0, 1]``.

    Examples:
        >>> keep = yarn_keep(128, original_max_position=2048)
        >>> float(keep[0]), float(keep[-1])
        (1.0, 0.0)
    """
    d = check_head_dim(d)
    base = check_base(base)
    original_max_position = check_int_range(
        "original_max_position", original_max_position, 1, MAX_CONTEXT
    )
    beta_fast = check_real("beta_fast", beta_fast, 1e-6, 1e6)
    beta_slow = check_real("beta_slow", beta_slow, 1e-6, 1e6)
    ramp = check_choice("ramp", ramp, YARN_RAMPS)
    if not beta_fast > beta_slow:
        raise ValueError(
            f"need beta_fast > beta_slow; got beta_fast={beta_fast!r}, beta_slow={beta_slow!r}"
        )
    if ramp == "paper":
        turns = original_max_position * _theta(d, base) / (2 * math.pi)  # r_i = L / lambda_i
        return np.clip((turns - beta_slow) / (beta_fast - beta_slow), 0.0, 1.0)

    def correction_dim(rotations: float) -> float:  # the pair index i at which r_i = rotations
        return (d * math.log(original_max_position / (rotations * 2 * math.pi))) / (
            2 * math.log(base)
        )

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), d - 1)
    if low == high:
        high += YARN_MIN_RAMP  # avoid a zero-width ramp
    interpolate = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)
    return 1.0 - interpolate


def scaled_frequencies(
    d: int,
    *,
    base: float = 10000.0,
    method: str,
    factor: float,
    original_max_position: int,
    seq_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> tuple[np.ndarray, float]:
    r"""Frequencies for running a RoPE model past its original context \(L\).

    ``factor`` is the context extension \(s\) (new length / original length) and
    ``original_max_position`` is \(L\), the context the model was built for.

    * ``"linear"`` (Position Interpolation, Chen et al. 2023): \(\theta_i / s\), i.e.
      positions squeezed by \(s\).
    * ``"ntk"`` (NTK-aware, bloc97 2023): a larger base \(b' = b\,s^{d/(d-2)}\), so the
      fastest pair keeps its frequency and the slowest is divided by exactly \(s\).
    * ``"dynamic-ntk"`` (emozilla 2023, as Hugging Face implements it): the NTK-aware base,
      grown with the length \(\ell\) of the text being read (``seq_len``):
      \(b' = b\,(s\,\ell/L - (s - 1))^{d/(d-2)}\) when \(\ell > L\), and no scaling at all
      while the text fits the original context.
    * ``"yarn"`` (YaRN, Peng et al. 2023): pairs that turn more than ``beta_fast`` times over
      \(L\) keep \(\theta_i\); pairs that turn fewer than ``beta_slow`` times are interpolated
      to \(\theta_i/s\); a ramp in between ([`yarn_keep`][], the reference code's reading).
      Attention logits are multiplied by \((0.1 \ln s + 1)^2\), returned here as
      ``attention_factor`` \(= 0.1 \ln s + 1\), applied to both queries and keys.
    * ``"llama3"`` (Llama 3.1, Meta's ``apply_scaling`` and Hugging Face's
      ``_compute_llama3_parameters``): with wavelengths \(\lambda_i = 2\pi/\theta_i\), pairs
      with \(\lambda_i < L/\)``high_freq_factor`` keep \(\theta_i\), pairs with
      \(\lambda_i > L/\)``low_freq_factor`` get \(\theta_i/s\), and in between
      \((1-\mu)\theta_i/s + \mu\theta_i\) with
      \(\mu = (L/\lambda_i - \) ``low_freq_factor`` \() / (\) ``high_freq_factor`` \(-\)
      ``low_freq_factor`` \()\).

    Args:
        d: head dimension, even, in ``[2, 4096]`` (``"ntk"`` and ``"dynamic-ntk"`` need
            ``d >= 4``).
        base: frequency base, in ``(1, 1e12]``.
        method: one of [`SCALING_METHODS`][].
        factor: the context extension \(s\), in ``[1, 1e6]``.
        original_max_position: \(L\), an integer in ``[1, 10**9]``.
        seq_len: the length of the text, an integer in ``[1, 10**9]``; required by
            ``"dynamic-ntk"`` and ignored by the others.
        beta_fast: YaRN's turn count above which a pair keeps its frequency, in
            ``[1e-6, 1e6]``, larger than ``beta_slow``.
        beta_slow: YaRN's turn count below which a pair is interpolated, in ``[1e-6, 1e6]``.
        low_freq_factor: Llama 3.1's lower bound, in ``(0, 1e6]``.
        high_freq_factor: Llama 3.1's upper bound, in ``(0, 1e6]``, larger than
            ``low_freq_factor``.

    Returns:
        ``(inv_freq, attention_factor)``: frequencies of shape ``(d/2,)`` and the factor
        (1.0 except for ``"yarn"``).

    Examples:
        >>> f, a = scaled_frequencies(8, method="linear", factor=2.0, original_max_position=16)
        >>> bool(np.allclose(f, frequencies(8) / 2)), a
        (True, 1.0)
    """
    d = check_head_dim(d)
    base = check_base(base)
    method = check_choice("method", method, SCALING_METHODS)
    factor = check_real("factor", factor, 1.0, MAX_FACTOR)
    L = check_int_range("original_max_position", original_max_position, 1, MAX_CONTEXT)
    if seq_len is not None:
        seq_len = check_int_range("seq_len", seq_len, 1, MAX_CONTEXT)
    theta = _theta(d, base)
    if method == "linear":
        return theta / factor, 1.0
    if method in ("ntk", "dynamic-ntk") and d < 4:
        raise ValueError(
            f"method={method!r} needs d >= 4 (it scales the base by a power d/(d-2)); got d={d}"
        )
    if method == "ntk":
        return _theta(d, base * factor ** (d / (d - 2))), 1.0
    if method == "dynamic-ntk":
        if seq_len is None:
            raise ValueError(
                "method='dynamic-ntk' needs seq_len, the length of the text (an integer >= 1)"
            )
        if seq_len <= L:
            return theta, 1.0
        return _theta(d, base * (factor * seq_len / L - (factor - 1)) ** (d / (d - 2))), 1.0
    if method == "yarn":
        keep = yarn_keep(
            d, base=base, original_max_position=L, beta_fast=beta_fast, beta_slow=beta_slow
        )
        inv_freq = (theta / factor) * (1.0 - keep) + theta * keep
        return inv_freq, YARN_ATTENTION_SLOPE * math.log(factor) + 1.0
    # Llama 3.1
    low_freq_factor = check_real("low_freq_factor", low_freq_factor, 0.0, 1e6, lo_open=True)
    high_freq_factor = check_real("high_freq_factor", high_freq_factor, 0.0, 1e6, lo_open=True)
    if not high_freq_factor > low_freq_factor:
        raise ValueError(
            f"need high_freq_factor > low_freq_factor; got high_freq_factor="
            f"{high_freq_factor!r}, low_freq_factor={low_freq_factor!r}"
        )
    wavelen = 2 * math.pi / theta
    mu = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smooth = (1.0 - mu) * theta / factor + mu * theta
    inv_freq = np.where(wavelen < L / high_freq_factor, theta, smooth)
    return np.where(wavelen > L / low_freq_factor, theta / factor, inv_freq), 1.0
