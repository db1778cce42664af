"""The token-embedding page (``equations/token-embedding.md``): its newer values and claims.

Each value is recomputed another way (from the formula of the page, not through the value
function), and each claim the prose makes about it is asserted as a property.
"""

from __future__ import annotations

import numpy as np
from pages import DOCS, agrees, number, value

from rope_explained.embedding import VOCAB, embed_index, embedding_matrix, letter_angle
from rope_explained.model import Config, forward

PAGE = (DOCS / "equations/token-embedding.md").read_text(encoding="utf-8")


def test_the_residual_stream_is_not_on_this_page():
    """The stream's details live where layer 0 first needs them."""
    for word in ("D = 256", "slot", "<s>", "start token", "W_k"):
        assert word not in PAGE.split("## Exercises")[0], word


def test_a_reader_by_similarity_needs_a_large_factor():
    gap = 1 - np.cos(np.pi / 13)
    agrees("embedding-neighbour-gap", gap)
    # the neighbour's share e^{-gap gamma}, from the closed form (the value uses the softmax)
    agrees("embedding-neighbour-ratio-gamma-10", np.exp(-10 * gap))
    agrees("embedding-neighbour-ratio-gamma-100", np.exp(-100 * gap))
    assert number(value("embedding-model-gamma")) == Config().gamma
    # "when it names one letter, the runners-up are that letter's two alphabet neighbours"
    tr = forward("abcab")
    p = dict(zip(tr.vocab, tr.probs[-1], strict=True))
    ranked = sorted(p, key=p.get, reverse=True)
    assert ranked[0] == "c" and set(ranked[1:3]) == {"b", "d"}
    assert np.isclose(p["b"] / p["c"], np.exp(-Config().gamma * gap), rtol=1e-3)


def test_exercise_opposite_letter():
    # sin(x + s pi/13) = -sin(x) for every x exactly when s pi/13 is an odd multiple of pi
    step = number(value("embedding-opposite-step"))
    assert step == 13
    assert np.allclose(embed_index(2 + 13, 64), -embed_index(2, 64), atol=1e-12)  # p = -c
    assert VOCAB[2 + 13] == "p"
    E = embedding_matrix(64)
    others = [t for t in range(26) if t not in (2, 15)]
    assert np.linalg.norm(E[others] + E[2], axis=1).min() > 0.1


def test_exercise_step_pi_over_ten():
    assert number(value("embedding-step-ten-count")) == round(2 * np.pi / (np.pi / 10))
    # six pairs of letters (a-u ... f-z) would share a vector
    j = np.arange(64)
    rows = 0.5 * np.sin(np.arange(26)[:, None] * np.pi / 10 + 0.1 * j)
    dist = np.linalg.norm(rows[:, None] - rows[None, :], axis=-1)
    same = [(a, b) for a in range(26) for b in range(a + 1, 26) if dist[a, b] < 1e-9]
    assert same == [(k, k + 20) for k in range(6)]
    assert (VOCAB[0], VOCAB[20], VOCAB[5], VOCAB[25]) == ("a", "u", "f", "z")


def test_exercise_no_letter_is_orthogonal_to_a():
    cosines = np.cos(np.array([letter_angle(t) for t in VOCAB]))
    agrees("embedding-right-angle-cosine", np.cos(6 * np.pi / 13))
    closest = np.flatnonzero(np.isclose(np.abs(cosines), np.abs(cosines[1:]).min()))
    assert [VOCAB[k] for k in closest] == ["g", "h", "t", "u"]
    assert np.abs(cosines).min() > 0.1  # none is orthogonal


def test_exercise_the_mean_embedding_is_zero():
    angles = 2 * np.pi * np.arange(26) / 26  # the corners of a regular 26-gon
    assert abs(np.cos(angles).sum()) < 1e-13 and abs(np.sin(angles).sum()) < 1e-13
    bound = number(value("embedding-mean-bound"))
    mean = np.linalg.norm(embedding_matrix(64).mean(axis=0))
    assert mean < bound and bound <= 1e-12
