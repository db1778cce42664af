"""The worked exercises of the chapters from 6 on (forward pass step by step, the notes, context
extension, RoPE in real models): every number an answer states, recomputed by another route than
its value function's (the page's formula in numpy, or another function of the package), and the
claims the answers make about it.
"""

from __future__ import annotations

import numpy as np
import pytest
from pages import agrees, value

from rope_explained import figures
from rope_explained.embedding import VOCAB, letter_angle
from rope_explained.examples import FORWARD_PASS_PROMPT
from rope_explained.model import forward

figures.load_all()


def circle_probs(z: complex, gamma: float = 100.0) -> np.ndarray:
    """The readout for a point z of the letter plane: softmax of gamma |z| cos(a_v - arg z)."""
    angles = np.array([letter_angle(v) for v in VOCAB])
    logits = gamma * abs(z) * np.cos(angles - np.angle(z))
    p = np.exp(logits - logits.max())
    return p / p.sum()


# --- forward-pass/index.md ----------------------------------------------------------------------


def test_forward_pass_exercise_smaller_head():
    d, alpha = 32, 10.0
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)  # the page's frequencies, from the formula
    best, side = alpha * d / 2, alpha * np.cos(theta).sum()
    agrees("fp-ex-d32-best", best)
    agrees("fp-ex-d32-side", side)
    agrees("fp-ex-d32-lead", best - side)
    assert float(value("fp-ex-d32-lead")) < float(value("fp-score-lead"))  # "the lead shrinks"
    # every row from 1 on: the previous key against its rivals, from the formula alone
    weights = []
    for m in range(1, len(FORWARD_PASS_PROMPT) + 1):  # + 1: the start token is position 0
        delta = np.arange(m + 1)  # keys n = m - delta
        s = alpha * np.cos(np.outer(1 - delta, theta)).sum(axis=1)
        w = np.exp(s - s.max())
        weights.append(w[1] / w.sum())
    agrees("fp-ex-d32-min-weight", min(weights), rounding="down")
    # the same prediction with the same probability as d = 64
    tr = forward(FORWARD_PASS_PROMPT, d=d)
    assert tr.prediction == forward(FORWARD_PASS_PROMPT).prediction == "a"
    agrees("fp-ex-d32-probability", circle_probs(np.exp(1j * letter_angle("a"))).max())


def test_forward_pass_exercise_offset_zero_repeats_the_last_letter():
    text = FORWARD_PASS_PROMPT
    tr = forward(text, offset=0)
    rows = np.arange(1, len(tr.tokens))
    assert np.all(np.argmax(np.where(tr.mask, tr.scores0, -np.inf)[rows], axis=1) == rows)
    # layer 1 splits the last row between the first c (token index = text index + 1) and
    # the query itself, half and half (to 1e-3: what layer 0 leaks from other letters into the
    # two keys differs slightly)
    first, own = text.index(text[-1]) + 1, len(text)
    assert tr.A1[-1, [first, own]] == pytest.approx([0.5, 0.5], abs=1e-3)
    assert tr.tokens[first] == tr.tokens[own] == text[-1]
    assert value("fp-ex-offset0-prediction") == text[-1]


def test_forward_pass_exercise_several_matches_are_averaged():
    from rope_explained.figures.forward_pass import EXERCISE_REPEATED as text

    tr = forward(text)
    last = text[-1]
    after = [i + 2 for i in range(len(text) - 2) if text[i] == last]  # token index of followers
    assert len(after) == 4 and text[:-1].count(last) == 4
    w = tr.A1[-1, after]
    assert w.sum() > 0.99  # the four keys take (nearly) all the weight
    agrees("fp-ex-repeated-min-weight", w.min(), rounding="down")
    # the mean of the followers' points on the circle, read out as the page's readout does
    z = sum(tr.A1[-1, n] * np.exp(1j * letter_angle(tr.tokens[n])) for n in range(1, len(text)))
    p = circle_probs(z)
    predicted = VOCAB[int(np.argmax(p))]
    assert value("fp-ex-repeated-prediction") == predicted == tr.prediction
    assert predicted not in {text[n - 1] for n in after}  # never follows t in the prompt
    agrees("fp-ex-repeated-probability", p.max())
