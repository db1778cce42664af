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
    check_bool,
    check_choice,
    check_head_dim,
    check_int_range,
    check_real,
    check_size,
    show,
)

LAYOUTS = ("interleaved", "half")
SCHEDULES = ("standard", "wendler")
"""Frequency schedules of [`frequencies`][]."""
SCALING_METHODS = ("linear", "ntk", "dynamic-ntk", "yarn", "llama3")
"""The context-extension methods the site's pages compare (``method`` of
[`scaled_frequencies`][])."""
ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional")
"""Hugging Face transformers' ``rope_type`` names, each also a ``method`` of
[`scaled_frequencies`][]: ``"dynamic"`` is the site's ``"dynamic-ntk"``; ``"ntk"`` (a fixed
NTK-aware base) has no type of its own in transformers."""
METHODS = (
    "default",
    "linear",
    "ntk",
    "dynamic-ntk",
    "dynamic",
    "yarn",
    "longrope",
    "llama3",
    "proportional",
)
"""Every ``method`` [`scaled_frequencies`][] takes: [`SCALING_METHODS`][] and [`ROPE_TYPES`][]."""
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
    _check_angles(p, t)
    angle = np.outer(p, t)  # (seq, d/2): m theta_i
    return np.cos(angle), np.sin(angle)


def _check_angles(positions: np.ndarray, theta: np.ndarray, theta_name: str = "theta") -> None:
    r"""Refuse a table of angles \(m\theta_i\) too large to build or to compute: checked
    float64 ``positions`` and frequencies ``theta``; ``theta_name`` is what the caller calls
    the frequencies, for messages."""
    p, t = positions, theta
    check_size(f"len(positions) x len({theta_name})", p.size * t.size)
    if p.size and t.size and float(np.abs(p).max()) * float(np.abs(t).max()) > 1e300:
        raise ValueError(
            f"positions times {theta_name} must stay below 1e300 (the angles m * theta_i); got "
            f"positions up to {float(np.abs(p).max()):g} and {theta_name} up to "
            f"{float(np.abs(t).max()):g}"
        )


# --8<-- [start:rotate_pairs]
def _rotate_pairs(
    x: np.ndarray, positions: np.ndarray, theta: np.ndarray, layout: str
) -> np.ndarray:
    r"""The rotation of [`apply_rope`][], for arguments it has checked: ``x`` of shape
    ``(..., seq, d)``, float64 ``positions`` of shape ``(seq,)``, ``theta`` of shape
    ``(d/2,)`` and a layout of [`LAYOUTS`][]. It checks nothing itself: the package's model
    calls it with what [`Config`][rope_explained.model.Config] has checked."""
    d = x.shape[-1]
    angle = np.outer(positions, theta)  # (seq, d/2): m theta_i, in float64
    cos = np.cos(angle).astype(x.dtype, copy=False)
    sin = np.sin(angle).astype(x.dtype, copy=False)
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


# --8<-- [end:rotate_pairs]


# --8<-- [start:apply_rope]
# --8<-- [start:apply_rope_signature]
def apply_rope(
    x: np.ndarray,
    positions: Sequence[float] | np.ndarray,
    base: float = 10000.0,
    layout: str = "interleaved",
    inv_freq: np.ndarray | None = None,
    rotary_dim: int | None = None,
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
        inv_freq: optional frequencies of shape ``(w/2,)`` replacing ``frequencies(w, base)``,
            for example from [`scaled_frequencies`][].
        rotary_dim: partial rotary: only the first ``w = rotary_dim`` coordinates of each
            vector turn, paired by ``layout`` among themselves (``"half"``: ``(i, i + w/2)``, as
            in GPT-NeoX and Phi, which apply ``rotate_half`` to that slice), and the other
            ``d - w`` are returned exactly as they are. An even integer in ``[2, d]``; None
            (the default) turns all ``d``.

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
    if rotary_dim is not None:
        w = check_head_dim(rotary_dim, name="rotary_dim", hi=d)
        out = x.copy()
        out[..., :w] = apply_rope(x[..., :w], positions, base, layout, inv_freq)
        return out
    if inv_freq is None:
        theta = _theta(d, base)
    else:
        theta = check_array("inv_freq", inv_freq, shape=(d // 2,))
    _check_angles(positions, theta, "theta" if inv_freq is None else "inv_freq")
    # --8<-- [start:apply_rope_call]
    return _rotate_pairs(x, positions, theta, layout)
    # --8<-- [end:apply_rope_call]


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
    truncate: bool = True,
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
      ``beta_fast`` and ``beta_slow``. With ``truncate=True`` (the default, and the reference
      code) the first is rounded down and the second up; ``truncate=False`` (gpt-oss) keeps
      them as they are. This is what [`scaled_frequencies`][] uses.

    Both agree at the two ends; in between the code's ramp is linear in \(\log r\).

    Args:
        d: the rotary width (twice the number of pairs), even, in ``[2, 4096]``.
        base: the frequency base, in ``(1, 1e12]``.
        original_max_position: \(L\), an integer in ``[1, 10**9]``.
        beta_fast: the turn count above which a pair keeps its frequency, in ``[1e-6, 1e6]``,
            larger than ``beta_slow``.
        beta_slow: the turn count below which a pair is interpolated, in ``[1e-6, 1e6]``.
        ramp: one of [`YARN_RAMPS`][].
        truncate: ``True`` or ``False``; whether the code's ramp ends are rounded to whole
            pair indices (``ramp="code"`` only).

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
    truncate = check_bool("truncate", truncate)
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

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += YARN_MIN_RAMP  # avoid a zero-width ramp
    interpolate = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)
    return 1.0 - interpolate


def yarn_attention_factor(
    factor: float, *, mscale: float | None = None, mscale_all_dim: float | None = None
) -> float:
    r"""YaRN's attention factor: what queries and keys are multiplied by (the logits by its
    square).

    \(g(s, m) = 0.1\,m \ln s + 1\) for \(s > 1\) (1 for \(s = 1\)). Without ``mscale`` the factor
    is \(g(s, 1) = 0.1 \ln s + 1\) (the YaRN paper's \(\sqrt{1/t}\)); with both ``mscale`` and
    ``mscale_all_dim`` (DeepSeek's configurations) it is
    \(g(s, \text{mscale}) / g(s, \text{mscale\_all\_dim})\), as Hugging Face's
    ``_compute_yarn_parameters`` computes it, so that equal values give exactly 1. A value of
    0 or None for either one means the first form, as in that function.

    Args:
        factor: the context extension \(s\), in ``[1, 1e6]``.
        mscale: None or a number in ``[0, 1e6]``.
        mscale_all_dim: None or a number in ``[0, 1e6]``.

    Examples:
        >>> yarn_attention_factor(1.0)
        1.0
        >>> yarn_attention_factor(40.0, mscale=1.0, mscale_all_dim=1.0)
        1.0
    """
    factor = check_real("factor", factor, 1.0, MAX_FACTOR)
    m = None if mscale is None else check_real("mscale", mscale, 0.0, 1e6)
    m_all = (
        None if mscale_all_dim is None else check_real("mscale_all_dim", mscale_all_dim, 0.0, 1e6)
    )
    if m and m_all:
        return _yarn_mscale(factor, m) / _yarn_mscale(factor, m_all)
    return _yarn_mscale(factor, 1.0)


def _yarn_mscale(s: float, m: float) -> float:
    return 1.0 if s <= 1 else YARN_ATTENTION_SLOPE * m * math.log(s) + 1.0


def longrope_attention_factor(factor: float, original_max_position: int) -> float:
    r"""LongRoPE's attention factor (Phi-3, Phi-4): \(\sqrt{1 + \ln s / \ln L}\) for \(s > 1\),
    1 for \(s = 1\), as Hugging Face's ``_compute_longrope_parameters`` sets it when the
    configuration gives none.

    Args:
        factor: the context extension \(s\), in ``[1, 1e6]``.
        original_max_position: \(L\), an integer in ``[2, 10**9]`` (\(\ln 1 = 0\)).

    Examples:
        >>> longrope_attention_factor(32.0, 4096) == math.sqrt(1 + 5 / 12)
        True
    """
    factor = check_real("factor", factor, 1.0, MAX_FACTOR)
    L = check_int_range("original_max_position", original_max_position, 2, MAX_CONTEXT)
    if factor <= 1.0:
        return 1.0
    return math.sqrt(1 + math.log(factor) / math.log(L))


def rotary_width(d: int, partial_rotary_factor: float = 1.0) -> int:
    r"""How many coordinates of a head of size ``d`` turn: ``int(d * partial_rotary_factor)``,
    Hugging Face's ``dim``, which must be even.

    transformers accepts an odd width: it then takes \(\lceil w/2 \rceil\) frequencies
    \(b^{-2i/w}\) with the odd \(w\) in the exponent, and a model that rotates as many
    coordinates as its cos table has (Phi-3) turns \(2\lceil w/2 \rceil\), one more than
    \(w\). The package refuses it (see
    [`rope_explained.hf.REFUSED`][]).

    Args:
        d: the head dimension, even, in ``[2, 4096]``.
        partial_rotary_factor: the fraction of the head that turns, in ``(0, 1]``.

    Examples:
        >>> rotary_width(128, 0.75)
        96
    """
    d = check_head_dim(d)
    p = check_real("partial_rotary_factor", partial_rotary_factor, 0.0, 1.0, lo_open=True)
    dim = int(d * p)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"partial_rotary_factor={p!r} gives the rotary width int({d} * {p!r}) = {dim}, "
            "which must be an even number >= 2; transformers would take "
            f"{(dim + 1) // 2} frequencies base^(-2i/{dim}) and turn {2 * ((dim + 1) // 2)} "
            "coordinates, so that the exponents do not run over the coordinates turned"
        )
    return dim


def scaled_frequencies(
    d: int,
    *,
    base: float = 10000.0,
    method: str,
    factor: float | None,
    original_max_position: int | None,
    seq_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    attention_factor: float | None = None,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    truncate: bool = True,
    short_factor: Sequence[float] | np.ndarray | None = None,
    long_factor: Sequence[float] | np.ndarray | None = None,
    partial_rotary_factor: float = 1.0,
) -> tuple[np.ndarray, float]:
    r"""Frequencies for running a RoPE model past its original context \(L\).

    ``factor`` is the context extension \(s\) (new length / original length) and
    ``original_max_position`` is \(L\), the context the model was built for. The frequencies
    are those of the first \(w\) = [`rotary_width`][]``(d, partial_rotary_factor)`` coordinates
    (every coordinate by default), \(\theta_i = b^{-2i/w}\), changed by ``method``:

    * ``"default"``: \(\theta_i\) as they are (``factor`` is not used).
    * ``"linear"`` (Position Interpolation, Chen et al. 2023): \(\theta_i / s\), i.e.
      positions squeezed by \(s\).
    * ``"ntk"`` (NTK-aware, bloc97 2023): a larger base \(b' = b\,s^{w/(w-2)}\), so the
      fastest pair keeps its frequency and the slowest is divided by exactly \(s\).
    * ``"dynamic-ntk"``, or ``"dynamic"`` as transformers names it (emozilla 2023, as Hugging
      Face implements it): the NTK-aware base, grown with the length \(\ell\) of the text being
      read (``seq_len``): \(b' = b\,(s\,\ell/L - (s - 1))^{w/(w-2)}\) when \(\ell > L\), and no
      scaling at all while the text fits the original context. This function is stateless;
      [`DynamicNTKState`][] keeps the largest frequencies seen, as transformers' rotary
      module does.
    * ``"yarn"`` (YaRN, Peng et al. 2023): pairs that turn more than ``beta_fast`` times over
      \(L\) keep \(\theta_i\); pairs that turn fewer than ``beta_slow`` times are interpolated
      to \(\theta_i/s\); a ramp in between ([`yarn_keep`][], the reference code's reading,
      ``truncate`` as there). The attention factor is ``attention_factor`` if given, else
      [`yarn_attention_factor`][] (\(0.1 \ln s + 1\), or DeepSeek's ratio with ``mscale`` and
      ``mscale_all_dim``), applied to both queries and keys.
    * ``"longrope"`` (LongRoPE, Phi-3 and Phi-4): pair \(i\) divided by its own factor,
      ``long_factor[i]`` when ``seq_len`` exceeds \(L\), ``short_factor[i]`` otherwise
      (also when ``seq_len`` is None); the attention factor is ``attention_factor`` if given,
      else [`longrope_attention_factor`][].
    * ``"llama3"`` (Llama 3.1, Meta's ``apply_scaling`` and Hugging Face's
      ``_compute_llama3_parameters``): with wavelengths \(\lambda_i = 2\pi/\theta_i\), pairs
      with \(\lambda_i < L/\)``high_freq_factor`` keep \(\theta_i\), pairs with
      \(\lambda_i > L/\)``low_freq_factor`` get \(\theta_i/s\), and in between
      \((1-\mu)\theta_i/s + \mu\theta_i\) with
      \(\mu = (L/\lambda_i - \) ``low_freq_factor`` \() / (\) ``high_freq_factor`` \(-\)
      ``low_freq_factor`` \()\).
    * ``"proportional"`` (transformers' ``_compute_proportional_rope_parameters``): the first
      \(k\) = ``int(partial_rotary_factor * d // 2)`` pairs keep the frequencies of the
      whole head, \(b^{-2i/d}/s\), and the other \(d/2 - k\) pairs get frequency 0, so they
      never turn; the array has all \(d/2\) entries (``factor`` defaults to 1 here).

    Args:
        d: head dimension, even, in ``[2, 4096]``.
        base: frequency base, in ``(1, 1e12]``.
        method: one of [`METHODS`][] ([`SCALING_METHODS`][] and [`ROPE_TYPES`][]).
        factor: the context extension \(s\), in ``[1, 1e6]``; None only for ``"default"``
            and ``"proportional"`` (no extension).
        original_max_position: \(L\), an integer in ``[1, 10**9]`` (``[2, 10**9]`` for
            ``"longrope"``); None only for ``"default"``, ``"linear"``, ``"ntk"`` and
            ``"proportional"``, which do not read it.
        seq_len: the length of the text, an integer in ``[1, 10**9]``; required by
            ``"dynamic-ntk"``, read by ``"longrope"``, ignored by the others.
        beta_fast: YaRN's turn count above which a pair keeps its frequency, in
            ``[1e-6, 1e6]``, larger than ``beta_slow``.
        beta_slow: YaRN's turn count below which a pair is interpolated, in ``[1e-6, 1e6]``.
        low_freq_factor: Llama 3.1's lower bound, in ``(0, 1e6]``.
        high_freq_factor: Llama 3.1's upper bound, in ``(0, 1e6]``, larger than
            ``low_freq_factor``.
        attention_factor: YaRN's or LongRoPE's attention factor given outright, in
            ``(0, 1e6]``; None derives it.
        mscale: YaRN's ``mscale`` (DeepSeek), None or in ``[0, 1e6]``.
        mscale_all_dim: YaRN's ``mscale_all_dim`` (DeepSeek), None or in ``[0, 1e6]``.
        truncate: YaRN's ramp ends rounded to whole pairs (``True``) or not (gpt-oss).
        short_factor: LongRoPE's per-pair factors for texts up to \(L\): \(w/2\) numbers in
            ``(0, 1e6]``.
        long_factor: LongRoPE's per-pair factors for longer texts, likewise.
        partial_rotary_factor: the fraction of the head that turns, in ``(0, 1]``.

    Returns:
        ``(inv_freq, attention_factor)``: frequencies of shape ``(w/2,)`` (``(d/2,)`` for
        ``"proportional"``) and the factor (1.0 except for ``"yarn"`` and ``"longrope"``).

    Examples:
        >>> f, a = scaled_frequencies(8, method="linear", factor=2.0, original_max_position=16)
        >>> bool(np.allclose(f, frequencies(8) / 2)), a
        (True, 1.0)
        >>> scaled_frequencies(8, method="proportional", factor=None, original_max_position=None,
        ...                    partial_rotary_factor=0.5)[0]
        array([1. , 0.1, 0. , 0. ])
    """
    d = check_head_dim(d)
    base = check_base(base)
    method = check_choice("method", method, METHODS)
    if factor is None and method not in ("default", "proportional"):
        raise ValueError(f"method={method!r} needs factor, a number in [1, 1e6]")
    factor = 1.0 if factor is None else check_real("factor", factor, 1.0, MAX_FACTOR)
    L = original_max_position
    if L is None and method in ("dynamic-ntk", "dynamic", "yarn", "longrope", "llama3"):
        raise ValueError(f"method={method!r} needs original_max_position, an integer in [1, 10**9]")
    if L is not None:
        L = check_int_range("original_max_position", L, 1, MAX_CONTEXT)
    if seq_len is not None:
        seq_len = check_int_range("seq_len", seq_len, 1, MAX_CONTEXT)
    if attention_factor is not None:
        attention_factor = check_real(
            "attention_factor", attention_factor, 0.0, MAX_FACTOR, lo_open=True
        )
    if method == "proportional":
        p = check_real("partial_rotary_factor", partial_rotary_factor, 0.0, 1.0, lo_open=True)
        k = int(p * d // 2)  # the pairs that turn
        inv_freq = np.zeros(d // 2)
        inv_freq[:k] = _theta(d, base)[:k]
        return inv_freq / factor, 1.0
    dim = rotary_width(d, partial_rotary_factor)
    theta = _theta(dim, base)
    if method == "default":
        return theta, 1.0
    if method == "linear":
        return theta / factor, 1.0
    if method in ("ntk", "dynamic-ntk", "dynamic") and dim < 4:
        raise ValueError(
            f"method={method!r} needs a rotary width >= 4 (it scales the base by a power "
            f"w/(w-2)); got {dim}"
        )
    if method == "ntk":
        return _theta(dim, base * factor ** (dim / (dim - 2))), 1.0
    if method in ("dynamic-ntk", "dynamic"):
        if seq_len is None:
            raise ValueError(
                f"method={method!r} needs seq_len, the length of the text (an integer >= 1)"
            )
        if seq_len <= L:
            return theta, 1.0
        return _theta(dim, base * (factor * seq_len / L - (factor - 1)) ** (dim / (dim - 2))), 1.0
    if method == "yarn":
        keep = yarn_keep(
            dim,
            base=base,
            original_max_position=L,
            beta_fast=beta_fast,
            beta_slow=beta_slow,
            truncate=truncate,
        )
        inv_freq = (theta / factor) * (1.0 - keep) + theta * keep
        if attention_factor is None:
            attention_factor = yarn_attention_factor(
                factor, mscale=mscale, mscale_all_dim=mscale_all_dim
            )
        return inv_freq, attention_factor
    if method == "longrope":
        if L < 2:
            raise ValueError(
                f"method='longrope' needs original_max_position >= 2 (its attention factor "
                f"divides by ln L); got {L}"
            )
        use_long = seq_len is not None and seq_len > L
        name = "long_factor" if use_long else "short_factor"
        ext = long_factor if use_long else short_factor
        if ext is None:
            raise ValueError(f"method='longrope' needs {name}: {dim // 2} numbers, one per pair")
        ext = check_array(name, ext, shape=(dim // 2,))
        if not (ext > 0).all() or float(ext.max()) > MAX_FACTOR:
            raise ValueError(f"{name} must hold numbers in (0, 1e6]; got {show(ext)}")
        if attention_factor is None:
            attention_factor = longrope_attention_factor(factor, L)
        return theta / ext, attention_factor
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


class DynamicNTKState:
    r"""Dynamic NTK with a memory, as transformers' rotary module runs it.

    [`scaled_frequencies`][] with ``method="dynamic-ntk"`` is a function of the text's length
    alone. Hugging Face's ``dynamic_rope_update`` (the decorator on each model's rotary
    ``forward``) keeps state instead: it computes new frequencies only when a text is longer
    than the longest seen so far, keeps them for shorter texts, and goes back to the
    unscaled frequencies only when a text is shorter than the original context \(L\)
    (``seq_len < L``; a text of exactly \(L\) keeps what it has). So the frequencies a text
    gets depend on the texts read before it. This class is that rule; ``seq_len`` is what
    transformers compares, the largest position id plus one.

    Args:
        d: head dimension, even, in ``[2, 4096]`` (the rotary width at least 4).
        base: frequency base, in ``(1, 1e12]``.
        factor: the extension \(s\), in ``[1, 1e6]``.
        original_max_position: \(L\) (transformers reads ``max_position_embeddings``), an
            integer in ``[1, 10**9]``.
        partial_rotary_factor: the fraction of the head that turns, in ``(0, 1]``.

    Examples:
        >>> state = DynamicNTKState(8, factor=4.0, original_max_position=8)
        >>> long = state.inv_freq(32)
        >>> bool((state.inv_freq(16) == long).all())
        True
        >>> bool((state.inv_freq(4) == frequencies(8)).all())
        True
    """

    def __init__(
        self,
        d: int,
        *,
        base: float = 10000.0,
        factor: float,
        original_max_position: int,
        partial_rotary_factor: float = 1.0,
    ) -> None:
        self._settings = {
            "d": d,
            "base": base,
            "method": "dynamic",
            "factor": factor,
            "original_max_position": original_max_position,
            "partial_rotary_factor": partial_rotary_factor,
        }
        # transformers starts from seq_len = L: the unscaled frequencies
        self._original, _ = scaled_frequencies(seq_len=original_max_position, **self._settings)
        self.original_max_position = int(original_max_position)
        self.reset()

    def reset(self) -> None:
        """Forget every text read: the unscaled frequencies, for a longest text of \\(L\\)."""
        self._inv_freq = self._original
        self.max_seq_len_cached = self.original_max_position

    def inv_freq(self, seq_len: int) -> np.ndarray:
        """The frequencies for a text whose largest position is ``seq_len - 1`` (an integer
        in ``[1, 10**9]``), updating the state as transformers does."""
        seq_len = check_int_range("seq_len", seq_len, 1, MAX_CONTEXT)
        L = self.original_max_position
        if seq_len > self.max_seq_len_cached:  # growth
            self._inv_freq, _ = scaled_frequencies(seq_len=seq_len, **self._settings)
            self.max_seq_len_cached = seq_len
        elif seq_len < L and self.max_seq_len_cached > L:  # back within the original context
            self.reset()
        return self._inv_freq.copy()
