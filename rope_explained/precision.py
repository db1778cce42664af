r"""RoPE in the number formats models run in: float64, float32, bfloat16 and float16.

A rotation computed in floating point is only as relative as its rounding. Production code
forms the angle \(m\theta_i\) in some format (the *angle dtype*), takes its cosine and sine,
and multiplies queries and keys stored in some format (the *storage dtype*). The functions
here follow that recipe with numpy: each operation is done in float64 and rounded to its
format, which is what a kernel that computes in float32 and stores a narrower result does.
bfloat16 comes from ``ml_dtypes`` (the numpy dtype extension JAX uses), so its rounding is a
maintained implementation's, not a hand-made imitation.

* [`angle_error`][]: how far \(m\theta_i\) formed in a format is from float64.
* [`cos_sin_error`][]: the same for \(\cos m\theta_i\) and \(\sin m\theta_i\).
* [`rotate_in`][]: \(R_{\Theta,m}x\) with the angle and the products in chosen formats.
* [`score_drift`][]: how far the previous-token head's score \(q_m^T k_{m-1}\) moves from
  its value at \(m = 1\): zero in exact arithmetic, where only the offset counts.
* [`previous_token_attention`][]: the previous-token head's weight on \(m-1\) at absolute
  position \(m\), and [`first_failure`][], the first position where it drops below 1/2.
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from ._checks import check_array, check_choice, check_int_range, show
from .model import DEFAULT, Config, build_weights
from .rope import frequencies

DTYPES = {
    "float64": np.dtype(np.float64),
    "float32": np.dtype(np.float32),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float16": np.dtype(np.float16),
}
"""The formats, by name. float16 cannot hold a position above 65,504."""
PIPELINES = {
    "float64": ("float64", "float64"),
    "float32": ("float32", "float32"),
    "bfloat16 storage": ("float32", "bfloat16"),
    "float16 storage": ("float32", "float16"),
    "bfloat16": ("bfloat16", "bfloat16"),
    "float16": ("float16", "float16"),
    "bfloat16, float32 rotation": ("float32", "bfloat16"),
    "float16, float32 rotation": ("float32", "float16"),
}
"""The recipes the precision page compares: name -> (angle dtype, storage dtype)."""
ROTATION = {
    "bfloat16, float32 rotation": "float32",
    "float16, float32 rotation": "float32",
}
"""The recipes that rotate in a wider format than they store: name -> the format of cosine,
sine and the rotation's products. The query and key arrive in the storage format, are widened
(exactly), rotated, and the result is rounded back to the storage format before the dot
product, as Meta's reference LLaMA code does (``xq.float()``, a complex64 product, then
``.type_as(xq)``). Every other recipe rotates in its storage format."""
MAX_POSITION = 10**6
"""The largest position the functions take (one million)."""
WINDOW = 256
"""How many keys before the query [`previous_token_attention`][] scores one by one when the
angle dtype holds every integer position exactly; keys further back score far below the
previous token in every format tested (see the precision page)."""


def _dtype(name: str, arg: str) -> np.dtype:
    return DTYPES[check_choice(arg, name, DTYPES)]


def _positions(positions: object, dtype: np.dtype, arg: str = "positions") -> np.ndarray:
    """Non-negative positions up to MAX_POSITION that ``dtype`` can hold (float16: 65,504)."""
    p = check_array(arg, positions, ndim=1, max_size=2**20)
    top = min(MAX_POSITION, float(ml_dtypes.finfo(dtype).max))
    if p.min() < 0 or p.max() > top:
        raise ValueError(
            f"{arg} must lie in [0, {top:g}] for {dtype.name} (got {p.min():g} to {p.max():g})"
        )
    return p


def angles(positions: np.ndarray, dtype: str = "float32", d: int = DEFAULT.d) -> np.ndarray:
    r"""The angles \(m\theta_i\), shape ``(len(positions), d/2)``, formed in ``dtype`` and
    returned as float64: the position and the frequency are each rounded to ``dtype`` and so is
    their product (as ``inv_freq @ position_ids`` does in that format).

    ``positions``: 1 to 2**20 numbers in ``[0, 10**6]`` (float16: up to 65,504); ``dtype`` a
    key of [`DTYPES`][]; ``d`` even, in ``[2, 512]``; base 10,000.
    """
    dt = _dtype(dtype, "dtype")
    p = _positions(positions, dt)
    d = check_int_range("d", d, 2, 512)
    if d % 2:
        raise ValueError(f"d must be even; got {d}")
    theta = frequencies(d).astype(dt)  # (d/2,)
    product = p.astype(dt)[:, None].astype(np.float64) * theta.astype(np.float64)[None, :]
    return product.astype(dt).astype(np.float64)


def angle_error(positions: np.ndarray, dtype: str = "float32", d: int = DEFAULT.d) -> np.ndarray:
    r"""The largest error over the pairs of the angle \(m\theta_i\) formed in ``dtype``, against
    float64, for each position: shape ``(len(positions),)``, in radians. Arguments as for
    [`angles`][]."""
    exact = np.asarray(check_array("positions", positions, ndim=1, max_size=2**20))
    got = angles(positions, dtype, d)
    ref = exact[:, None] * frequencies(d)[None, :]
    return np.abs(got - ref).max(axis=1)


def _cos_sin(
    p: np.ndarray, angle_dtype: np.dtype, storage: np.dtype, d: int
) -> tuple[np.ndarray, np.ndarray]:
    theta = frequencies(d).astype(angle_dtype).astype(np.float64)
    a = (p.astype(angle_dtype).astype(np.float64)[:, None] * theta[None, :]).astype(angle_dtype)
    a = a.astype(np.float64)
    return np.cos(a).astype(storage), np.sin(a).astype(storage)


def cos_sin_error(
    positions: np.ndarray,
    angle_dtype: str = "float32",
    storage_dtype: str = "bfloat16",
    d: int = DEFAULT.d,
) -> np.ndarray:
    r"""The largest error, over the pairs and over cosine and sine, of \(\cos m\theta_i\) and
    \(\sin m\theta_i\) when the angle is formed in ``angle_dtype`` and the result stored in
    ``storage_dtype``, against float64: shape ``(len(positions),)``.

    ``positions`` as for [`angles`][] (the limit of the narrower dtype applies); the dtypes
    keys of [`DTYPES`][]; ``d`` even, in ``[2, 512]``.
    """
    adt, sdt = _dtype(angle_dtype, "angle_dtype"), _dtype(storage_dtype, "storage_dtype")
    p = _positions(positions, adt if adt.itemsize < sdt.itemsize else sdt)
    d = check_int_range("d", d, 2, 512)
    if d % 2:
        raise ValueError(f"d must be even; got {d}")
    cos, sin = _cos_sin(p, adt, sdt, d)
    ref = p[:, None] * frequencies(d)[None, :]
    err = np.maximum(
        np.abs(cos.astype(np.float64) - np.cos(ref)), np.abs(sin.astype(np.float64) - np.sin(ref))
    )
    return err.max(axis=1)


def rotate_in(
    x: np.ndarray,
    positions: np.ndarray,
    angle_dtype: str = "float32",
    storage_dtype: str = "bfloat16",
) -> np.ndarray:
    r"""\(R_{\Theta,m}x_m\) for every row of ``x`` (``(seq, d)``, interleaved pairs, base
    10,000) the way a model in these formats computes it: the angle formed in ``angle_dtype``,
    its cosine and sine stored in ``storage_dtype``, ``x`` rounded to ``storage_dtype`` and
    every product and sum rounded to it. Returns float64 (the values the format holds).

    ``x``: finite, ``d`` even in ``[2, 512]``, entries of magnitude at most 1e4;
    ``positions``: ``seq`` numbers as for [`angles`][].
    """
    adt, sdt = _dtype(angle_dtype, "angle_dtype"), _dtype(storage_dtype, "storage_dtype")
    x = check_array("x", x, ndim=2, max_size=2**22, max_abs=1e4)
    seq, d = x.shape
    if d % 2 or not 2 <= d <= 512:
        raise ValueError(f"x must have shape (seq, d) with d even in [2, 512]; got {x.shape}")
    p = _positions(positions, adt if adt.itemsize < sdt.itemsize else sdt)
    if p.shape != (seq,):
        raise ValueError(f"positions must have shape ({seq},) to match x; got {p.shape}")
    return _rotate(x, p, adt, sdt)


def _rotate(
    x: np.ndarray, p: np.ndarray, adt: np.dtype, sdt: np.dtype, rdt: np.dtype | None = None
) -> np.ndarray:
    """Rotate in ``rdt`` (the storage dtype unless given) the rows of ``x`` as stored in
    ``sdt``, and round the result to ``sdt``."""
    rdt = sdt if rdt is None else rdt
    cos, sin = _cos_sin(p, adt, rdt, x.shape[1])  # (seq, d/2) each, in the rotation dtype
    xs = x.astype(sdt).astype(rdt)  # stored in sdt, widened exactly to rdt
    a, b = xs[:, 0::2], xs[:, 1::2]
    out = np.empty(x.shape, dtype=rdt)
    out[:, 0::2] = a * cos - b * sin  # each product and the difference rounded to rdt
    out[:, 1::2] = a * sin + b * cos
    return out.astype(sdt).astype(np.float64)


@functools.cache
def _head(alpha: float = DEFAULT.alpha, d: int = DEFAULT.d) -> tuple[np.ndarray, np.ndarray]:
    """The previous-token head's query and key before RoPE, W_q h and W_k h (the same for
    every token: the head reads only the bias coordinate)."""
    cfg = Config(d=d, D=4 * d, alpha=alpha)
    L0 = build_weights(cfg).L0
    h = np.zeros(cfg.D)
    h[0] = 1.0
    return L0.W_q @ h, L0.W_k @ h


def _pipeline(name: str) -> tuple[np.dtype, np.dtype, np.dtype]:
    """The angle, storage and rotation dtypes of a recipe."""
    check_choice("pipeline", name, PIPELINES)
    a, s = PIPELINES[name]
    return DTYPES[a], DTYPES[s], DTYPES[ROTATION.get(name, s)]


def _scores(q: np.ndarray, K: np.ndarray, sdt: np.dtype) -> np.ndarray:
    """q . k for each row of K, accumulated in float32 for the narrow formats (as matrix units
    do) and in float64 for float64."""
    acc = np.float64 if sdt == np.float64 else np.float32
    return (K.astype(acc) @ q.astype(acc)).astype(np.float64)


def score_drift(positions: np.ndarray, pipeline: str = "bfloat16") -> np.ndarray:
    r"""How far the previous-token head's score of the previous token, \(q_m^T k_{m-1}\),
    computed with ``pipeline`` (a key of [`PIPELINES`][]) at each of ``positions`` (\(m\),
    integers in ``[1, 10**6]``, float16 up to 65,504), is from the same pipeline's score at
    \(m = 1\). In exact arithmetic it is the same number, \(\alpha d/2 = 320\), at every
    \(m\). Returns the absolute differences, shape ``(len(positions),)``.
    """
    adt, sdt, rdt = _pipeline(pipeline)
    m = _query_positions(positions, adt, sdt)
    q_pre, k_pre = _head()
    q = _rotate(np.tile(q_pre, (len(m), 1)), m, adt, sdt, rdt)  # (P, d)
    k = _rotate(np.tile(k_pre, (len(m), 1)), m - 1, adt, sdt, rdt)  # (P, d)
    acc = np.float64 if sdt == np.float64 else np.float32
    s = np.einsum("pd,pd->p", q.astype(acc), k.astype(acc)).astype(np.float64)
    q1 = _rotate(q_pre[None], np.array([1.0]), adt, sdt, rdt)[0]
    k0 = _rotate(k_pre[None], np.array([0.0]), adt, sdt, rdt)[0]
    s1 = float(np.dot(q1.astype(acc), k0.astype(acc)))
    return np.abs(s - s1)


def _query_positions(positions: object, adt: np.dtype, sdt: np.dtype) -> np.ndarray:
    narrow = adt if adt.itemsize < sdt.itemsize else sdt
    m = _positions(positions, narrow)
    if m.min() < 1 or not np.array_equal(m, np.round(m)):
        raise ValueError(
            f"positions must be integers >= 1 (a query with a key before it); got {show(positions)}"
        )
    return m


def _attention_on_previous(
    m: float, adt: np.dtype, sdt: np.dtype, rdt: np.dtype, window: int
) -> float:
    q_pre, k_pre = _head()
    if ml_dtypes.finfo(adt).nmant >= 23:  # every integer position up to 10**6 is exact: a window
        n = np.arange(max(0.0, m - window), m + 1)
        counts = np.ones_like(n)
        prev = len(n) - 2
    else:  # positions round: keys that round alike are one vector, scored once, counted
        n_all = np.arange(0.0, m + 1).astype(adt).astype(np.float64)
        n, counts = np.unique(n_all, return_counts=True)
        prev = int(np.searchsorted(n, n_all[int(m) - 1]))
    K = _rotate(np.tile(k_pre, (len(n), 1)), n, adt, sdt, rdt)  # (N, d)
    q = _rotate(q_pre[None], np.array([m]), adt, sdt, rdt)[0]
    s = _scores(q, K, sdt)
    w = counts * np.exp(s - s.max())
    w /= w.sum()
    # the key m-1 shares its weight with every key that rounds to the same position
    return float(w[prev] / counts[prev])


def previous_token_attention(
    positions: np.ndarray, pipeline: str = "bfloat16", window: int = WINDOW
) -> np.ndarray:
    r"""The weight the model's previous-token head (layer 0, \(\alpha = 10\), \(d = 64\)) gives
    the key at \(m - 1\), for a query at each absolute position \(m\) of ``positions``,
    computed with ``pipeline`` (a key of [`PIPELINES`][]).

    ``positions``: at most 32 integers in ``[1, 10**6]`` (float16 pipelines: up to 65,504).
    The head reads no token, so only positions matter: when the angle dtype rounds positions,
    every key up to \(m\) is scored (keys that round alike only once); otherwise the
    ``window`` keys before \(m\) (an integer in ``[16, 65536]``), beyond which every key
    scores far below the previous token. Returns shape ``(len(positions),)``.
    """
    adt, sdt, rdt = _pipeline(pipeline)
    m = _query_positions(positions, adt, sdt)
    if len(m) > 32:
        raise ValueError(f"positions must hold at most 32 queries; got {len(m)}")
    window = check_int_range("window", window, 16, 65536)
    return np.array([_attention_on_previous(float(x), adt, sdt, rdt, window) for x in m])


def first_failure(pipeline: str = "bfloat16", limit: int = 4096, window: int = 256) -> int:
    r"""The first position \(m\) at which the previous-token head, computed with ``pipeline``,
    gives the key at \(m - 1\) less than half of its attention; 0 if none does up to
    ``limit`` (an integer in ``[2, 16384]``). Every query from 1 to ``limit`` is checked
    against the ``window`` keys before it (an integer in ``[16, 512]``, wide enough for the
    rounding of every format at these positions).
    """
    adt, sdt, rdt = _pipeline(pipeline)
    limit = check_int_range("limit", limit, 2, 16384)
    window = check_int_range("window", window, 16, 512)
    q_pre, k_pre = _head()
    pos = np.arange(0.0, limit + 1)
    K = _rotate(np.tile(k_pre, (len(pos), 1)), pos, adt, sdt, rdt)  # (N, d) one key per position
    Q = _rotate(np.tile(q_pre, (len(pos), 1)), pos, adt, sdt, rdt)
    acc = np.float64 if sdt == np.float64 else np.float32
    K, Q = K.astype(acc), Q.astype(acc)
    padded = np.vstack([np.repeat(K[:1], window, axis=0), K])  # keys before 0: copies, masked
    for start in range(1, limit + 1, 512):
        ms = np.arange(start, min(limit, start + 511) + 1)
        win = np.lib.stride_tricks.sliding_window_view(padded, (window + 1, K.shape[1]))
        keys = win[ms, 0]  # (B, window + 1, d): keys m - window .. m
        s = np.einsum("bwd,bd->bw", keys, Q[ms]).astype(np.float64)
        s[np.arange(window + 1)[None, :] < window - ms[:, None]] = -np.inf  # keys before 0
        s -= s.max(axis=1, keepdims=True)
        w = np.exp(s)
        w /= w.sum(axis=1, keepdims=True)
        bad = np.nonzero(w[:, window - 1] < 0.5)[0]
        if bad.size:
            return int(ms[bad[0]])
    return 0


def log_positions(top: int = MAX_POSITION, per_decade: int = 4) -> np.ndarray:
    """Integer positions from 1 to ``top`` (in ``[2, 10**6]``), about ``per_decade`` (in
    ``[1, 32]``) per factor of ten, with ``top`` last: the sweeps' sample points.

    Examples:
        >>> log_positions(100, 2).tolist()
        [1, 3, 10, 32, 100]
    """
    top = check_int_range("top", top, 2, MAX_POSITION)
    per_decade = check_int_range("per_decade", per_decade, 1, 32)
    k = int(np.ceil(np.log10(top) * per_decade))
    pts = np.unique(np.round(np.logspace(0, np.log10(top), k + 1)).astype(np.int64))
    return pts


__all__ = [
    "DTYPES",
    "MAX_POSITION",
    "PIPELINES",
    "ROTATION",
    "angle_error",
    "angles",
    "cos_sin_error",
    "first_failure",
    "log_positions",
    "previous_token_attention",
    "rotate_in",
    "score_drift",
]
