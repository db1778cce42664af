"""The layer-0 page (``equations/previous-token-head.md``): its newer values and claims.

Each value is recomputed another way (from the score formula of the page, not through the
forward pass the value function runs), and each claim the prose makes is asserted as a
property, so that a false general statement (such as "the frequencies are not rational
multiples of one another") cannot come back unnoticed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pages import DOCS, agrees, number, previous_row_weights, value, value_kwargs

from rope_explained import figures
from rope_explained.embedding import BOS, VOCAB, embedding_matrix
from rope_explained.experiments import previous_token_scores
from rope_explained.model import Config, forward
from rope_explained.rope import frequencies

PAGE = (DOCS / "equations/previous-token-head.md").read_text(encoding="utf-8")
PROMPT = value_kwargs("layer0-two-back-min-weight")["prompt"]


def test_unique_peak_reason_is_the_valid_one():
    theta = frequencies(64)
    # the old reason was false: for d = 64 the frequencies include rational multiples
    assert np.isclose(theta[8], theta[0] / 10, rtol=1e-14, atol=0)
    assert "not rational multiples" not in PAGE
    # the new one: theta_0 = 1 rad, and no non-zero integer offset is a multiple of 2 pi, so
    # the fastest hand is off the top, and the sum below 32, at every offset the page names
    assert theta[0] == 1.0
    offsets = np.arange(1, 100_001)
    off_top = np.abs(np.remainder(offsets + np.pi, 2 * np.pi) - np.pi)  # distance to 2 pi k
    assert off_top.min() > 1e-6 and np.all(np.cos(offsets * theta[0]) < 1)
    for lo in range(1, 100_001, 25_000):
        chunk = np.arange(lo, lo + 25_000, dtype=float)
        assert previous_token_scores(chunk).max() < 32 and previous_token_scores(-chunk).max() < 32


def test_no_twelve_o_clock_for_the_vector_1_0():
    assert "12 o'clock" not in PAGE


def test_rows_without_predecessor_are_excluded_from_at_least():
    # every "smallest weight any row" statement names rows m >= 1 (row 0 has no m - 1)
    for sentence in ("smallest weight any row", "in the worst row"):
        i = PAGE.index(sentence)
        assert "m \\ge 1" in PAGE[i : i + 60]


def test_residual_stream_layout():
    cfg = Config()
    assert number(value("layer0-stream-width")) == cfg.D
    cells = {}
    for slot in ("bias", "tok", "prev", "out", "unused"):
        lo, _, hi = value(f"embedding-slot-{slot}").partition("–")
        cells[slot] = (int(lo), int(hi or lo))
    # the slots tile the stream 0..D-1 in order; tok, prev and out are d wide
    bounds = list(cells.values())
    assert bounds[0][0] == 0 and bounds[-1][1] == cfg.D - 1
    assert all(b[0] == a[1] + 1 for a, b in zip(bounds, bounds[1:], strict=False))
    assert cells["bias"] == (0, 0)
    for slot in ("tok", "prev", "out"):
        assert cells[slot][1] - cells[slot][0] + 1 == cfg.d
    tr = forward("abcab")
    s = tr.slots
    assert tr.tokens[0] == BOS and tr.h0.shape[1] == cfg.D
    assert np.all(tr.h0[:, s.bias] == 1.0)
    assert np.all(tr.h0[0, 1:] == 0.0)  # <s>: zero embedding, only the bias
    E = embedding_matrix(cfg.d)
    for m, t in enumerate(tr.tokens[1:], start=1):  # tok holds the letter, where the table says
        lo, hi = cells["tok"]
        assert np.allclose(tr.h0[m, lo : hi + 1], E[VOCAB.index(t)])
    assert np.all(tr.h0[:, cells["prev"][0] :] == 0.0)
    # the layers write into prev and out; nobody writes into the unused slot
    lo, hi = cells["prev"]
    assert np.abs(tr.h2[2:, lo : hi + 1]).max() > 0.1
    lo, hi = cells["out"]
    assert np.abs(tr.h2[-1, lo : hi + 1]).max() > 0.1
    assert np.all(tr.h2[:, cells["unused"][0] :] == 0.0)
    # W_k reads only the bias coordinate: W_k h = c for every h with h[0] = 1
    W_k = tr.weights.L0.W_k
    h = np.random.default_rng(0).standard_normal((5, cfg.D))
    h[:, 0] = 1.0
    assert np.allclose(h @ W_k.T, W_k[:, 0])


def test_start_token():
    tr = forward("abcab")
    s = tr.slots
    agrees("layer0-bos-weight", previous_row_weights(1, tr.config.alpha)[0])
    # the first letter copies <s>'s zero vector: its prev slot is (nearly) empty
    assert np.linalg.norm(tr.h1[1, s.prev]) < 1e-3 < np.linalg.norm(tr.h1[2, s.prev])
    # without <s>, the first letter can only attend to itself and copies its own embedding
    tr0 = forward("abcab", bos=False)
    assert tr0.A0[0, 0] == 1.0
    assert np.allclose(tr0.h1[0, s.prev], tr0.h0[0, s.tok])


def test_sums_on_the_circle_are_ambiguous():
    E = embedding_matrix(64)
    assert np.allclose(E[0] + E[2], 2 * np.cos(np.pi / 13) * E[1])
    agrees("layer0-sum-factor", 2 * np.cos(np.pi / 13))


def test_what_if_keys_not_rotated():
    T = len(figures.get("layer0-pattern").kwargs["prompt"]) + 1
    agrees("layer0-unrotated-key-weight", 1 / T)  # equal scores: uniform weights


def test_what_if_query_not_turned_back():
    T = len(PROMPT) + 1
    # offset 0: scores alpha sum_i cos((n - m) theta_i), peak at n = m
    low = 1.0
    for m in range(T):
        s = 10.0 * previous_token_scores(np.arange(m + 1) - m * 1.0)
        w = np.exp(s - s.max())
        low = min(low, (w / w.sum())[m])
    agrees("layer0-own-position-weight", low, "down")
    assert low > 0.999


def test_exercise_two_back():
    T = len(PROMPT) + 1
    low = 1.0
    for m in range(2, T):
        s = 10.0 * previous_token_scores(np.arange(m + 1) - m + 2.0)  # Delta = n - m + 2
        w = np.exp(s - s.max())
        low = min(low, (w / w.sum())[m - 2])
    agrees("layer0-two-back-min-weight", low, "down")
    assert low > 0.999


def test_exercise_alpha_for_99():
    theta = frequencies(64)
    g = float(np.sum(1 - np.cos(theta)))
    agrees("layer0-alpha-for-99-estimate", math.log(198) / g)
    # the model's answer, found here from the score formula: the smallest alpha with every
    # row's weight on m - 1 at least 0.99 (scan, then the printed value's neighbourhood)
    T = len(value_kwargs("layer0-alpha-for-99")["prompt"]) + 1

    def worst(alpha):
        return min(previous_row_weights(m, alpha)[m - 1] for m in range(1, T))

    a = number(value("layer0-alpha-for-99"))
    assert worst(a + 0.0005) >= 0.99 > worst(a - 0.0005)
    # "the keys further away add almost nothing"
    assert abs(a - math.log(198) / g) < 0.01


def test_exercise_small_head():
    def gap(d):
        theta = 10000.0 ** (-2 * np.arange(d // 2) / d)
        return float(np.sum(1 - np.cos(theta)))

    agrees("layer0-gap-d16", gap(16))
    agrees("layer0-alpha-d16", 10 * gap(64) / gap(16))
    assert gap(16) < gap(64) and frequencies(16)[0] == frequencies(64)[0] == 1.0


def test_no_offset_within_ten_to_the_five_comes_closer_than_the_neighbours():
    """Chapter 3: over the 10^5 offsets on either side of Delta = -1 none scores closer to 32
    than the neighbours Delta = 0 and -2; the score is even in Delta + 1, so one side suffices
    (checked on a sample of the other side). The two neighbours' scores agree to rounding
    (rel 1e-15: cos(x) and cos(-x) are computed alike)."""
    far = previous_token_scores(np.arange(2, 10**5 + 1, dtype=np.float64))  # Delta + 1 >= 2
    near = previous_token_scores(np.array([1.0, -1.0]))  # Delta = 0 and Delta = -2
    assert near[0] == pytest.approx(near[1], rel=1e-15)
    assert far.max() < near.min() < 32
    sample = np.arange(2, 10**5 + 1, 997, dtype=np.float64)
    np.testing.assert_allclose(previous_token_scores(-sample), previous_token_scores(sample))
