r"""The two ways real code pairs a head's coordinates, and the permutation between them.

[`apply_rope`][rope_explained.rope.apply_rope] turns pair \(i\) by \(m\theta_i\) in either layout:

* ``"interleaved"``: pair \(i\) is coordinates \((2i, 2i+1)\), as in RoFormer, GPT-J and Meta's
  reference LLaMA code (which views each adjacent pair as one complex number);
* ``"half"``: pair \(i\) is coordinates \((i, i + d/2)\), the "rotate half" of GPT-NeoX and of
  the Hugging Face port of LLaMA.

Both apply the same rotation to differently ordered coordinates, so a model written for one
runs unchanged under the other once the rows of \(W_q\) and \(W_k\) are reordered:
[`interleaved_to_half`][] is that reordering, the one Hugging Face's LLaMA conversion script
applies (its ``permute``). \(W_v\) and \(W_o\) are not touched: values are never rotated.

The two listings below are RoPE as those codebases write it, in numpy: Meta's complex
multiplication and Hugging Face's ``rotate_half`` with duplicated cos/sin tables. The site runs
both at build time and the tests hold each equal to ``apply_rope`` in its layout.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_base, check_head_dim, check_int_range
from .rope import frequencies


def _head_permutation(d: int) -> np.ndarray:
    """Row order within one head: interleaved pair ``(2i, 2i+1)`` goes to ``(i, i + d/2)``."""
    return np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)])  # (d,)


def interleaved_to_half(W: np.ndarray, n_heads: int = 1) -> np.ndarray:
    r"""Reorder the rows of a query or key weight matrix from interleaved pairs to rotate-half.

    ``W`` has shape ``(n_heads * d, D)``: ``n_heads`` heads of ``d`` rows each, as a projection
    \(W_q\) or \(W_k\) is stored. Within each head, row ``2i`` moves to row ``i`` and row
    ``2i + 1`` to row ``i + d/2``, so the coordinates that an interleaved model turns together
    are the ones the rotate-half layout turns together, at the same frequency. Then

    ``apply_rope(x @ interleaved_to_half(W).T, m, layout="half")`` equals
    ``apply_rope(x @ W.T, m)[..., perm]`` for a fixed permutation ``perm``, and every score
    \(q_m^T k_n\) is unchanged. This is the reordering ``transformers`` applies to q and k
    weights stored in Meta's layout (``PermuteForRope``,
    ``w.view(n_heads, d // 2, 2, D).transpose(1, 2)``; ``SOURCES["hf-permute-for-rope"]`` of
    ``rope_explained.sources`` links the lines), and the conformance tests compare the two.

    Args:
        W: array of shape ``(n_heads * d, D)`` with ``d`` even.
        n_heads: the number of heads stacked in ``W``, at least 1.

    Returns:
        A new array of the shape of ``W``.

    Examples:
        >>> interleaved_to_half(np.arange(8.0)[:, None], n_heads=2).ravel()
        array([0., 2., 1., 3., 4., 6., 5., 7.])
    """
    W, d = _check_stacked(W, n_heads)
    perm = _head_permutation(d)
    return W.reshape(n_heads, d, -1)[:, perm, :].reshape(W.shape)


def half_to_interleaved(W: np.ndarray, n_heads: int = 1) -> np.ndarray:
    """The inverse of [`interleaved_to_half`][].

    Examples:
        >>> W = np.arange(12.0).reshape(6, 2)
        >>> bool(np.array_equal(half_to_interleaved(interleaved_to_half(W, 3), 3), W))
        True
    """
    W, d = _check_stacked(W, n_heads)
    inverse = np.argsort(_head_permutation(d))
    return W.reshape(n_heads, d, -1)[:, inverse, :].reshape(W.shape)


def _check_stacked(W, n_heads) -> tuple[np.ndarray, int]:
    n_heads = check_int_range("n_heads", n_heads, 1)
    W = check_array("W", W, ndim=2)
    rows = W.shape[0]
    if rows % n_heads:
        raise ValueError(f"W has {rows} rows, not a multiple of n_heads = {n_heads}")
    d = check_head_dim(rows // n_heads, "head dimension (rows of W / n_heads)")
    return W, d


def _listing_inputs(x, positions, base) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``x`` as ``(seq, d)`` float64, its ``positions`` and the frequencies, all checked."""
    x = check_array("x", x, ndim=2, max_abs=1e150)
    d = check_head_dim(x.shape[-1], "d (the last axis of x)")
    positions = check_array("positions", positions, shape=(x.shape[0],), max_abs=1e12)
    return x, positions, frequencies(d, check_base(base))


# --8<-- [start:complex]
def rope_complex(x: np.ndarray, positions, base: float = 10000.0) -> np.ndarray:
    """RoPE as Meta's reference LLaMA code writes it: adjacent pairs as complex numbers.

    ``precompute_freqs_cis`` makes \\(e^{i m \\theta_j}\\); ``apply_rotary_emb`` views the
    coordinates ``(2j, 2j+1)`` of ``x`` as one complex number and multiplies.
    """
    x, positions, theta = _listing_inputs(x, positions, base)  # (seq, d), (seq,), (d/2,)
    freqs_cis = np.exp(1j * np.outer(positions, theta))  # (seq, d/2): torch.polar(1, m theta)
    x_complex = x[:, 0::2] + 1j * x[:, 1::2]  # view_as_complex(x.reshape(seq, -1, 2))
    rotated = x_complex * freqs_cis  # one complex product per pair
    return np.stack([rotated.real, rotated.imag], axis=-1).reshape(x.shape)  # view_as_real


# --8<-- [end:complex]


# --8<-- [start:rotate_half]
def rotate_half(x: np.ndarray) -> np.ndarray:
    """``(x1, x2) -> (-x2, x1)`` on the two halves of the last axis (of even length)."""
    x = check_array("x", x, ndim=(1, 32), max_abs=1e150)
    check_head_dim(x.shape[-1], "the last axis of x")
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rope_rotate_half(x: np.ndarray, positions, base: float = 10000.0) -> np.ndarray:
    """RoPE as the Hugging Face LLaMA port writes it: pairs ``(i, i + d/2)``, cos/sin doubled.

    ``LlamaRotaryEmbedding`` builds ``emb = cat(freqs, freqs)`` so that coordinate ``i`` and
    coordinate ``i + d/2`` see the same angle; ``apply_rotary_pos_emb`` computes
    ``q * cos + rotate_half(q) * sin``.
    """
    x, positions, theta = _listing_inputs(x, positions, base)  # (seq, d), (seq,), (d/2,)
    freqs = np.outer(positions, theta)  # (seq, d/2)
    emb = np.concatenate([freqs, freqs], axis=-1)  # (seq, d): the same angle twice
    return x * np.cos(emb) + rotate_half(x) * np.sin(emb)


# --8<-- [end:rotate_half]
