r"""Weights of the hand-built heads, written down rather than learned.

The residual stream \(h \in \mathbb{R}^D\) is cut into named slots
(see `Slots`):

| slot | what it holds |
|---|---|
| `h[0]` | the constant bias coordinate, always 1 |
| `h[tok]` | the current letter's embedding \(E[t_m]\) (`d` coordinates) |
| `h[prev]` | written by layer 0: the previous letter's embedding |
| `h[out]` | written by layer 1: the letter the induction head copied |
| the rest | zero: room the model does not use |

The bias coordinate is what \(W_k x = c\) "for all x" needs: a linear map sends every input to
the same non-zero vector only if the inputs share a constant coordinate.

Layer 0 is the previous-token head of Wendler's notes. Layer 1 comes in two variants:

**`"induction"`** (the default, the one that works):
    the query reads the current letter, the key reads the previous letter, both through the
    2-dimensional plane that holds every embedding, and both are placed in the **slowest**
    RoPE pair of the head, where position turns them least. The score is
    \(\beta\cos(a_{t_m} - a_{t_{n-1}} + (m-n)\theta_{d/2-1})\): largest where the key's
    previous letter is the query's letter. This is a rank-2 bilinear form; rank 2 is the
    least that can rank keys differently for different queries.

**`"rank1"`** (the explained-equations document's construction):
    \(W_q^{(1)} = u_q v_q^T\), \(W_k^{(1)} = u_k v_k^T\). The score factors as
    \((u_q^T R_{n-m} u_k)(v_q^T h_m)(v_k^T h_n)\): a number read from the query's vector \(h_m\)
    times a row that depends only on the query's position \(m\) and the keys. That number only
    scales or flips the row, so for each query position at most two keys can be the favourite (the
    row's largest and smallest entries), whatever the letter there; RoPE may move them with \(m\),
    but here \(u\) sits in the slowest pair and barely does. The head cannot look for "the
    letter I am": it attends to the key with the most extreme scalar whatever the query
    letter. Its induction accuracy is therefore near chance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import (
    MAX_LETTERS,
    check_array,
    check_base,
    check_choice,
    check_head_dim,
    check_int_range,
    check_model_dims,
    check_sharpness,
    show,
)
from .embedding import VOCAB, letter_angle, plane_reader
from .rope import rotation_matrix

HEADS = ("induction", "rank1")


def _frozen(name: str, array: object, shape: tuple[int | None, ...], why: str = "") -> np.ndarray:
    """A read-only float64 copy of a finite array of the given shape (None: any length)."""
    array = check_array(name, array, ndim=len(shape))
    want = tuple(n if n is not None else m for n, m in zip(shape, array.shape, strict=True))
    if array.shape != want:
        raise ValueError(f"{name} must have shape {want}{why}; got shape {array.shape}")
    array = np.array(array, dtype=np.float64)  # a copy the caller cannot reach
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class HeadWeights:
    r"""The four matrices of one attention head, each read-only.

    In the page's column-vector notation \(k_n = W_k h_n\), \(q_m = W_q h_m\),
    \(v_n = W_v h_n\) and the head writes \(W_o \sum_n A_{m,n} v_n\) into the residual
    stream. Each is a finite 2-D array: ``W_q``, ``W_k``, ``W_v`` of one shape ``(d, D)`` and
    ``W_o`` of shape ``(D, d)``.
    """

    W_q: np.ndarray  # (d, D)
    W_k: np.ndarray  # (d, D)
    W_v: np.ndarray  # (d, D)
    W_o: np.ndarray  # (D, d)

    def __post_init__(self) -> None:
        W_q = _frozen("W_q", self.W_q, (None, None))
        d, D = W_q.shape
        object.__setattr__(self, "W_q", W_q)
        for name, shape, why in (
            ("W_k", (d, D), ", that of W_q"),
            ("W_v", (d, D), ", that of W_q"),
            ("W_o", (D, d), ", that of W_q transposed"),
        ):
            object.__setattr__(self, name, _frozen(name, getattr(self, name), shape, why))


@dataclass(frozen=True)
class Readout:
    r"""The unembedding: \(\mathrm{logits} = W_\mathrm{out} h + b_\mathrm{out}\).

    ``W_out`` is a finite array of shape ``(26, D)``, ``b_out`` one of shape ``(26,)``.
    """

    W_out: np.ndarray  # (26, D)
    b_out: np.ndarray  # (26,)

    def __post_init__(self) -> None:
        V = len(VOCAB)
        why = " (one row per letter)"
        object.__setattr__(self, "W_out", _frozen("W_out", self.W_out, (V, None), why))
        object.__setattr__(self, "b_out", _frozen("b_out", self.b_out, (V,), why))


@dataclass(frozen=True)
class Weights:
    """Every weight of the two-layer model: ``L0`` (previous-token head), ``L1`` (the layer-1
    head) and the ``readout``."""

    L0: HeadWeights
    L1: HeadWeights
    readout: Readout

    def __post_init__(self) -> None:
        for name, kind in (("L0", HeadWeights), ("L1", HeadWeights), ("readout", Readout)):
            value = getattr(self, name)
            if not isinstance(value, kind):
                raise ValueError(f"{name} must be a {kind.__name__}; got {show(value)}")
        shapes = {"L0": self.L0.W_q.shape, "L1": self.L1.W_q.shape}
        if shapes["L0"] != shapes["L1"]:
            raise ValueError(f"L0 and L1 must have the same (d, D); got {shapes}")
        if self.readout.W_out.shape[1] != shapes["L0"][1]:
            raise ValueError(
                f"readout.W_out must have D = {shapes['L0'][1]} columns, as L0 and L1; "
                f"got shape {self.readout.W_out.shape}"
            )


@dataclass(frozen=True)
class Slots:
    """Index ranges of the residual stream's slots for head dimension ``d`` (even, in
    ``[2, 4096]``)."""

    d: int

    def __post_init__(self) -> None:
        check_head_dim(self.d)

    @property
    def bias(self) -> int:
        return 0

    @property
    def tok(self) -> slice:
        return slice(1, 1 + self.d)

    @property
    def prev(self) -> slice:
        return slice(1 + self.d, 1 + 2 * self.d)

    @property
    def out(self) -> slice:
        return slice(1 + 2 * self.d, 1 + 3 * self.d)


def constant_key_vector(d: int) -> np.ndarray:
    r"""The layer-0 key before rotation, \(c = (1, 0, 1, 0, \ldots, 1, 0)^T\) (``d`` even, in
    ``[2, 4096]``)."""
    c = np.zeros(check_head_dim(d))
    c[0::2] = 1.0
    return c


def previous_token_weights(
    d: int, D: int, base: float, alpha: float, offset: int, rotary_dims: int | None = None
) -> HeadWeights:
    r"""Layer 0: \(W_k x = c\) for all \(x\), \(W_q = \alpha R_{\Theta,-\mathrm{offset}} W_k\).

    \(W_k\) reads only the bias coordinate: column 0 is \(c\), every other column is
    zero, so \(W_k h = h_0\, c = c\). The value map reads the ``tok`` slot and the output
    map writes it into the ``prev`` slot.

    \(R_{\Theta,-\mathrm{offset}}\) is the rotation the model applies: with ``rotary_dims``
    \(r < d\) (partial rotary, as in GPT-NeoX) only the first \(r\) coordinates turn, at the
    frequencies of an \(r\)-dimensional head, \(\mathrm{base}^{-2i/r}\), and the rest are left
    alone, so the construction is the same one written for a head whose rotary part is
    \(r\) wide.

    The arguments have the ranges of [`Config`][rope_explained.model.Config]; ``rotary_dims`` is
    None (all ``d``) or an even integer in ``[2, d]``. Returns the [`HeadWeights`][]
    (``W_q``, ``W_k``, ``W_v`` of shape ``(d, D)``, ``W_o`` of shape ``(D, d)``).
    """
    d, D = check_model_dims(d, D)
    base = check_base(base)
    alpha = check_sharpness("alpha", alpha)
    offset = check_int_range("offset", offset, 0, MAX_LETTERS)
    r = d if rotary_dims is None else check_int_range("rotary_dims", rotary_dims, 2, d)
    if r % 2:
        raise ValueError(f"rotary_dims must be even (RoPE turns pairs); got {r}")
    s = Slots(d)
    W_k = np.zeros((d, D))
    W_k[:, s.bias] = constant_key_vector(d)
    R = np.eye(d)
    R[:r, :r] = rotation_matrix(-offset, r, base)  # the rotary part turns back by `offset`
    W_q = alpha * R @ W_k
    W_v = np.zeros((d, D))
    W_v[:, s.tok] = np.eye(d)
    W_o = np.zeros((D, d))
    W_o[s.prev, :] = np.eye(d)
    return HeadWeights(W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o)


def induction_weights(d: int, D: int, beta: float, head: str = "induction") -> HeadWeights:
    r"""Layer 1 weights for ``head`` in ``("induction", "rank1")`` (see the module docstring).

    Both variants put their query and key in the slowest RoPE pair, coordinates
    ``(d-2, d-1)``; the value map reads the ``tok`` slot and the output map writes it into
    the ``out`` slot.
    """
    d, D = check_model_dims(d, D)
    beta = check_sharpness("beta", beta)
    check_choice("head", head, HEADS)
    s = Slots(d)
    P = plane_reader(d)  # (2, d): E[t] -> (cos a_t, sin a_t)
    slow = slice(d - 2, d)  # the slowest-turning RoPE pair
    W_q = np.zeros((d, D))
    W_k = np.zeros((d, D))
    if head == "induction":
        W_q[slow, s.tok] = beta * P  # q_pre = beta (cos a_m, sin a_m)
        W_k[slow, s.prev] = P  # k_pre = (cos a_{n-1}, sin a_{n-1})
    else:
        u = np.zeros(d)
        u[d - 2] = 1.0  # u_q = u_k: first coordinate of the slowest pair
        v = np.zeros(D)
        v_q, v_k = v.copy(), v.copy()
        v_q[s.tok] = P[0]  # v_q^T h_m = cos a_m: one number for the current letter
        v_k[s.prev] = P[0]  # v_k^T h_n = cos a_{n-1}: one number for the previous letter
        W_q = beta * np.outer(u, v_q)  # rank 1
        W_k = np.outer(u, v_k)  # rank 1
    W_v = np.zeros((d, D))
    W_v[:, s.tok] = np.eye(d)
    W_o = np.zeros((D, d))
    W_o[s.out, :] = np.eye(d)
    return HeadWeights(W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o)


def readout_weights(d: int, D: int, gamma: float) -> Readout:
    r"""Readout: \(\mathrm{logits}_v = \gamma\,(\cos a_v, \sin a_v)\cdot P\,h_\mathrm{out}\).

    For a copied letter \(B\) the logit of letter \(v\) is
    \(\gamma\cos(a_v - a_B)\): largest for \(B\), smaller for letters further round the
    circle. \(b_\mathrm{out} = 0\): no letter is preferred without context.

    Returns the [`Readout`][] (``W_out`` of shape ``(26, D)``, ``b_out`` of shape ``(26,)``).
    """
    d, D = check_model_dims(d, D)
    gamma = check_sharpness("gamma", gamma)
    s = Slots(d)
    P = plane_reader(d)
    angles = np.array([letter_angle(t) for t in VOCAB])
    U = np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (26, 2)
    W_out = np.zeros((len(VOCAB), D))
    W_out[:, s.out] = gamma * U @ P
    b_out = np.zeros(len(VOCAB))
    return Readout(W_out=W_out, b_out=b_out)
