r"""The 26-letter vocabulary, the demo embedding and the tokenizer.

The demo embedding of the explained-equations document is

$$
E[t]_j = \tfrac12 \sin\!\left(\mathrm{idx}(t)\,\tfrac{\pi}{13} + 0.1\,j\right),
\qquad j = 0, \ldots, d-1 .
$$

Two facts follow from the angle-sum formula
\(\sin(a + 0.1j) = \cos a \,\sin 0.1j + \sin a\,\cos 0.1j\):

* every row is \(\tfrac12(\cos a_t\, S + \sin a_t\, C)\) with the fixed vectors
  \(S_j = \sin 0.1j\) and \(C_j = \cos 0.1j\), so **all embeddings lie in one
  2-dimensional plane**, on a circle, at the angle \(a_t = \mathrm{idx}(t)\,\pi/13\);
* the angle comes back to itself after 26 steps (\(26\pi/13 = 2\pi\)), so the formula gives
  **exactly 26 distinct vectors**: one per letter of a 26-letter vocabulary, and the 27th would
  repeat the first.
"""

from __future__ import annotations

import unicodedata

import numpy as np

from ._checks import check_array, check_bool, check_head_dim, check_size, show

VOCAB: tuple[str, ...] = tuple("abcdefghijklmnopqrstuvwxyz")
"""The output vocabulary: the 26 lower-case letters, in order; ``idx(t)`` is the index here."""
BOS = "<s>"
"""The start token the model puts at position 0 (its embedding is zero)."""
PAD = "<pad>"
"""A padding token (its embedding is zero too): the model never attends to it when the mask hides
it, and a text never contains it; [`rope_explained.model.forward_tokens`][] accepts it.
"""
LETTER_STEP = np.pi / 13
"""Angle step between neighbouring letters on the embedding circle: pi/13."""


def letter_angle(token: str) -> float:
    r"""The angle \(a_t = \mathrm{idx}(t)\,\pi/13\) of a letter on the embedding circle.

    ``token`` is one lower-case letter a-z.

    Examples:
        >>> round(letter_angle("n"), 6) == round(np.pi, 6)
        True
    """
    if not isinstance(token, str) or token not in VOCAB:
        raise ValueError(f"token must be one letter a-z (the vocabulary); got {show(token)}")
    return VOCAB.index(token) * LETTER_STEP


def embed_index(idx: np.ndarray | int, d: int) -> np.ndarray:
    r"""The demo embedding for integer indices: \(\tfrac12\sin(\mathrm{idx}\,\pi/13 + 0.1j)\).

    Works for any integer, which is how one sees the period: ``embed_index(26, d)`` equals
    ``embed_index(0, d)`` to rounding. ``idx`` is a number or an array of finite numbers;
    ``d`` is even, in ``[2, 4096]``; the result has at most ``2**25`` entries.

    Examples:
        >>> bool(np.allclose(embed_index(26, 8), embed_index(0, 8)))
        True
    """
    d = check_head_dim(d)
    idx = check_array("idx", idx, min_size=0)
    check_size("idx.size x d", idx.size * d)
    j = np.arange(d, dtype=np.float64)
    return 0.5 * np.sin(idx[..., None] * LETTER_STEP + 0.1 * j)  # (..., d)


def embedding_matrix(d: int) -> np.ndarray:
    r"""The matrix \(E\) with one row per letter, shape ``(26, d)``.

    Examples:
        >>> embedding_matrix(64).shape
        (26, 64)
    """
    return embed_index(np.arange(len(VOCAB)), d)


def plane_basis(d: int) -> np.ndarray:
    r"""The two vectors that span every embedding: rows \(S_j=\sin 0.1j\), \(C_j=\cos 0.1j\).

    \(E[t] = \tfrac12(\cos a_t\,S + \sin a_t\,C)\).

    Examples:
        >>> B = plane_basis(16)
        >>> a = letter_angle("c")
        >>> bool(np.allclose(0.5 * (np.cos(a) * B[0] + np.sin(a) * B[1]), embedding_matrix(16)[2]))
        True
    """
    d = check_head_dim(d)
    j = np.arange(d, dtype=np.float64)
    return np.stack([np.sin(0.1 * j), np.cos(0.1 * j)])  # (2, d)


def plane_reader(d: int) -> np.ndarray:
    r"""A ``(2, d)`` matrix \(P\) with \(P\,E[t] = (\cos a_t, \sin a_t)\).

    It reads the letter off its embedding as a point on the unit circle; the working induction
    head and the readout are built from it.

    Examples:
        >>> P = plane_reader(64)
        >>> np.round(P @ embedding_matrix(64)[13], 9)  # 'n' sits at angle pi
        array([-1.,  0.])
    """
    B = plane_basis(d)  # (2, d); checks d
    return 2.0 * np.linalg.pinv(B.T)  # (2, d): pinv(B^T) B^T = I


def tokenize(text: str, fold_case: bool = True) -> list[str]:
    """Split text into letter tokens, one per character.

    Upper-case letters are folded to lower case when ``fold_case`` is true (the default), so
    ``"AbC"`` reads as ``"abc"``. Anything else (spaces, digits, punctuation, accented letters)
    is refused with a ``ValueError`` that names the character and its position.

    Examples:
        >>> tokenize("Abc")
        ['a', 'b', 'c']
    """
    check_bool("fold_case", fold_case)
    if not isinstance(text, str):
        raise ValueError(f"text must be a str; got {type(text).__name__}")
    if text == "":
        raise ValueError("text is empty; give at least one letter a-z")
    given = text
    if fold_case:
        text = "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in text)
    for pos, ch in enumerate(text):
        if ch not in VOCAB:
            lo, hi = max(0, pos - 8), min(len(given), pos + 9)
            raise ValueError(
                f"text: character {_describe_char(given[pos])} at position {pos} is not a "
                "letter a-z (outside the vocabulary; allowed: a-z"
                + (", and A-Z read as lower case" if fold_case else "; fold_case=False")
                + f"); text[{lo}:{hi}] = {ascii(given[lo:hi])}"
            )
    return list(text)


def _describe_char(ch: str) -> str:
    """``U+XXXX``, then the character itself between Unicode isolates (U+2068 ... U+2069), so
    it cannot reorder the message, unless it is invisible (control, format, combining,
    separator, unassigned)."""
    code = f"U+{ord(ch):04X}"
    if unicodedata.category(ch)[0] in "CMZ":
        return code
    return f"{code} (\u2068{ch}\u2069)"
