r"""The induction task the trained model learns, and the clean prompts it is measured on.

A sequence is the start token, some filler, a *segment* of distinct letters, more filler, and
the same segment again:

```
<s>  x q f  [k d w b ... r]  m m a  [k d w b ... r]
     filler   segment          gap     segment again
```

Inside the second copy, "find my letter earlier and copy what came next" names the next letter,
provided the current letter occurs exactly once before: then its earlier occurrence sits in the
first copy and the letter after it is the answer. Only those positions carry a loss (the
``mask``): everywhere else the next letter is random filler, which no rule predicts, and a
letter that also occurs in the filler has two earlier occurrences and so two candidate answers.
The filler is drawn from all 26 letters, the segment's included, so that "a letter seen exactly
once" does not by itself mark the segment. The gap is random, so no fixed offset finds the
earlier copy.

*Clean* prompts draw the filler from the letters outside the segment: every position of the
second copy but its last has one right answer, however long the prompt. The chapter on the
trained model measures on those.

Tokens are integers: 0 is the start token, ``1 + idx(t)`` the letter ``t``; targets are letter
indices ``0..25`` (the model predicts letters only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import check_bool, check_int_range, check_seed, show
from .embedding import BOS, VOCAB

SEGMENT = (10, 26)
"""Shortest and longest segment of the training sequences (distinct letters)."""
CLEAN_SEGMENT = (10, 16)
"""Shortest and longest segment of the clean prompts: at least 10 letters are left for the
filler."""
MAX_LENGTH = 4096
"""Longest sequence (positions, start token included) [`batch`][] makes."""
MAX_BATCH = 4096
"""Most sequences [`batch`][] makes at once."""


@dataclass(frozen=True)
class Batch:
    """Sequences of the induction task, ``B`` of them with ``T`` positions each.

    | name | shape | what |
    |---|---|---|
    | `tokens` | (B, T) | int32 token ids, 0 the start token at position 0, `1 + idx(t)` a letter |
    | `targets` | (B, T) | int32: the letter index of the next token, -1 at the last position |
    | `mask` | (B, T) | True where the next letter has one right answer (loss, accuracy) |
    | `source` | (B, T) | int32: where `mask`, the position of the earlier occurrence; else -1 |
    | `segment` | (B,) | the segment's length |
    """

    tokens: np.ndarray
    targets: np.ndarray
    mask: np.ndarray
    source: np.ndarray
    segment: np.ndarray

    def texts(self) -> list[str]:
        """Each sequence as a string of letters (the start token left out)."""
        return ["".join(VOCAB[t - 1] for t in row[1:]) for row in self.tokens]


def batch(
    seed: int | np.random.Generator,
    size: int,
    length: int,
    *,
    clean: bool = False,
    segment: tuple[int, int] | None = None,
) -> Batch:
    """``size`` sequences of ``length`` positions (start token included) of the induction task.

    Args:
        seed: a seed (an integer in ``[0, 2**63 - 1]``) or a ``numpy.random.Generator``,
            which is advanced (the training script draws every batch from one generator).
        size: how many sequences, in ``[1, 4096]``.
        length: positions per sequence, start token included, in ``[2 * lo + 1, 4096]`` for
            the shortest segment ``lo``.
        clean: False: filler from all 26 letters (the training data); True: filler from the
            letters outside the segment (the clean prompts).
        segment: ``(lo, hi)``, the range of segment lengths, clipped to what fits
            (``(length - 1) // 2``) and, for clean prompts, to 16 letters; default
            [`SEGMENT`][] or [`CLEAN_SEGMENT`][].

    Examples:
        >>> b = batch(0, 2, 40, clean=True)
        >>> b.tokens.shape, int(b.tokens[0, 0])
        ((2, 40), 0)
        >>> bool((b.targets[b.mask] == b.tokens[:, 1:][b.mask[:, :-1]] - 1).all())
        True
    """
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(check_seed(seed))
    size = check_int_range("size", size, 1, MAX_BATCH)
    clean = check_bool("clean", clean)
    lo, hi = CLEAN_SEGMENT if clean else SEGMENT
    if segment is not None:
        if not (isinstance(segment, tuple) and len(segment) == 2):
            raise ValueError(f"segment must be a (lo, hi) tuple of integers; got {show(segment)}")
        lo = check_int_range("segment[0]", segment[0], 2, 26)
        hi = check_int_range("segment[1]", segment[1], lo, 26)
    length = check_int_range("length", length, 2 * lo + 1, MAX_LENGTH)
    hi = min(hi, (length - 1) // 2, 16 if clean else 26)
    lo = min(lo, hi)
    T = length
    tokens = np.zeros((size, T), dtype=np.int32)
    seg_len = np.empty(size, dtype=np.int32)
    for b in range(size):
        L = int(rng.integers(lo, hi + 1))
        letters = rng.permutation(26)
        seg = letters[:L]
        room = T - 1 - 2 * L  # filler letters in all
        before = int(rng.integers(0, room + 1))  # before the first copy; the rest is the gap
        if clean:
            filler = letters[L:][rng.integers(0, 26 - L, size=room)]
        else:
            filler = rng.integers(0, 26, size=room)
        row = np.concatenate([filler[:before], seg, filler[before:], seg])
        tokens[b, 1:] = row + 1
        seg_len[b] = L
    # The earlier occurrences of each token: (B, T, T) [m, n] = token n equals token m, n < m
    same = (tokens[:, :, None] == tokens[:, None, :]) & np.tri(T, k=-1, dtype=bool)
    once = same.sum(axis=2) == 1
    source = np.where(once, same.argmax(axis=2), -1).astype(np.int32)
    second = np.arange(T)[None, :] >= (T - seg_len[:, None])  # the second copy
    last = np.arange(T)[None, :] == T - 1
    mask = second & once & ~last
    targets = np.full((size, T), -1, dtype=np.int32)
    targets[:, :-1] = tokens[:, 1:] - 1
    return Batch(
        tokens=tokens,
        targets=targets,
        mask=mask,
        source=np.where(mask, source, -1).astype(np.int32),
        segment=seg_len,
    )


def token_ids(tokens: list[str]) -> np.ndarray:
    """Token ids of a list of tokens (``"<s>"`` and letters a-z), as int32."""
    ids = []
    for pos, t in enumerate(tokens):
        if t == BOS:
            ids.append(0)
        elif isinstance(t, str) and t in VOCAB:
            ids.append(1 + VOCAB.index(t))
        else:
            raise ValueError(
                f"tokens must be '<s>' or letters a-z; got {show(t)} at position {pos}"
            )
    return np.array(ids, dtype=np.int32)
