r"""The additive sinusoidal position encoding of the original Transformer, for comparison.

Vaswani et al. add a position vector to each token's vector,
\(\mathrm{PE}_{m,2i} = \sin m\omega_i\), \(\mathrm{PE}_{m,2i+1} = \cos m\omega_i\) with
\(\omega_i = \mathrm{base}^{-2i/d}\), so the attention score of a query at \(m\) and a key at
\(n\) is

$$
(x_m + \mathrm{PE}_m)^T W_q^T W_k (x_n + \mathrm{PE}_n)
= x_m^T M x_n + x_m^T M \mathrm{PE}_n + \mathrm{PE}_m^T M x_n
  + \mathrm{PE}_m^T M \mathrm{PE}_n, \qquad M = W_q^T W_k .
$$

The two middle terms mix a token's content with the other token's absolute position.
[`additive_score_terms`][] computes the four terms, and the RoPE score of the same content,
for a generic head.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_base, check_choice, check_head_dim, check_int_range, check_seed
from .embedding import VOCAB, embedding_matrix
from .model import DEFAULT
from .rope import apply_rope, frequencies

MAX_POSITIONS = 4096
"""Most positions [`sinusoidal_positions`][] and [`additive_score_terms`][] compute."""
SCORE_TERMS = ("content", "content_position", "position_content", "position", "additive", "rope")
"""The terms [`additive_score_terms`][] returns, each ``(T, T)``."""


def sinusoidal_positions(T: int, d: int = DEFAULT.d, base: float = DEFAULT.base) -> np.ndarray:
    r"""The sinusoidal position vectors \(\mathrm{PE}_0, \ldots, \mathrm{PE}_{T-1}\), shape
    ``(T, d)``.

    \(\mathrm{PE}_{m,2i} = \sin m\omega_i\) and \(\mathrm{PE}_{m,2i+1} = \cos m\omega_i\), with
    the frequencies \(\omega_i = \mathrm{base}^{-2i/d}\) that RoPE also uses. ``T`` in
    ``[1, 4096]``, ``d`` even in ``[2, 4096]``, ``base`` in ``(1, 1e12]``. Every
    \(\mathrm{PE}_m\) has length \(\sqrt{d/2}\).

    Examples:
        >>> sinusoidal_positions(2, d=2)
        array([[0.        , 1.        ],
               [0.84147098, 0.54030231]])
    """
    T = check_int_range("T", T, 1, MAX_POSITIONS)
    d = check_head_dim(d)
    omega = frequencies(d, check_base(base))  # (d/2,)
    angle = np.outer(np.arange(T, dtype=np.float64), omega)  # (T, d/2)
    p = np.empty((T, d))
    p[:, 0::2], p[:, 1::2] = np.sin(angle), np.cos(angle)
    return p


def additive_score_terms(
    query_letter: str = "a", key_letter: str = "b", T: int = 48, d: int = DEFAULT.d, seed: int = 0
) -> dict[str, np.ndarray]:
    r"""The four terms of the additive score, and the RoPE score, at every pair of positions.

    One generic head: \(W_q\) and \(W_k\) have independent standard normal entries divided
    by \(\sqrt{d}\) (drawn from ``seed``, in ``[0, 2**63 - 1]``). The query's content
    \(x\) is the embedding of ``query_letter`` and the key's content \(y\) that of
    ``key_letter`` (letters ``a``-``z``), both scaled to the length \(\sqrt{d/2}\) of a
    position vector, so neither part dominates by its size. With \(M = W_q^T W_k\), the
    entry ``[m, n]`` of each term is

    | key | term |
    |---|---|
    | ``content`` | \(x^T M y\) |
    | ``content_position`` | \(x^T M \mathrm{PE}_n\) |
    | ``position_content`` | \(\mathrm{PE}_m^T M y\) |
    | ``position`` | \(\mathrm{PE}_m^T M \mathrm{PE}_n\) |
    | ``additive`` | the sum of the four: \((x + \mathrm{PE}_m)^T M (y + \mathrm{PE}_n)\) |
    | ``rope`` | \((R_{\Theta,m} W_q x)^T (R_{\Theta,n} W_k y)\) |

    ``T`` (positions, in ``[1, 4096]``) and ``d`` (even, in ``[2, 512]``) as for
    [`sinusoidal_positions`][], with the base 10000.

    Returns:
        A dict of the keys [`SCORE_TERMS`][], each an array of shape ``(T, T)``.
    """
    check_choice("query_letter", query_letter, VOCAB)
    check_choice("key_letter", key_letter, VOCAB)
    T = check_int_range("T", T, 1, MAX_POSITIONS)
    d = check_head_dim(d, hi=512)
    rng = np.random.default_rng(check_seed(seed))
    W_q, W_k = rng.standard_normal((2, d, d)) / np.sqrt(d)  # (d, d) each
    E = embedding_matrix(d)  # (26, d)
    x, y = (E[VOCAB.index(t)] for t in (query_letter, key_letter))
    x, y = (v * np.sqrt(d / 2) / np.linalg.norm(v) for v in (x, y))  # |x| = |y| = |PE_m|
    p = sinusoidal_positions(T, d)  # (T, d)
    M = W_q.T @ W_k  # (d, d)
    terms = {
        "content": np.full((T, T), x @ M @ y),
        "content_position": np.tile(p @ M.T @ x, (T, 1)),  # [m, n] = x^T M PE_n
        "position_content": np.tile((p @ M @ y)[:, None], (1, T)),  # [m, n] = PE_m^T M y
        "position": p @ M @ p.T,
    }
    terms["additive"] = sum(terms.values())
    pos = np.arange(T, dtype=np.float64)
    q = apply_rope(np.tile(W_q @ x, (T, 1)), pos)  # (T, d): R_m W_q x
    k = apply_rope(np.tile(W_k @ y, (T, 1)), pos)  # (T, d): R_n W_k y
    terms["rope"] = q @ k.T
    return terms
