"""Claims of the induction-head page (equations/induction-head.md) that go beyond its values'
agreement: the rank-1 correction (E1), the two-copies tie-break and the worked exercises.

Every expected figure is computed here from the formulas the page gives (numpy on letter angles
and frequencies) or from the package by another route than the value function's.
"""

from __future__ import annotations

import numpy as np
import pytest
from pages import value

from rope_explained import figures
from rope_explained.embedding import VOCAB, letter_angle
from rope_explained.figures.equations import induction_head as ih
from rope_explained.model import Config, forward
from rope_explained.rope import frequencies

TH31 = 10000.0 ** (-62 / 64)  # the slowest frequency of a d = 64 head, from its formula


def num(text: str) -> float:
    text = text.replace("{,}", "").replace(" \\times 10^{", "e").rstrip("}")
    return float(text)


def close(value_id: str, x: float) -> None:
    """The value prints ``x`` to its last digit."""
    text = value(value_id)
    mantissa = text.split(" ")[0].replace("{,}", "")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    scale = num(text) / float(mantissa) if float(mantissa) else 1.0
    assert abs(num(text) - x) <= 0.5 * 10.0**-decimals * abs(scale) * (1 + 1e-9), (value_id, x)


def rank1_key_factor(text: str) -> np.ndarray:
    """f_m(n) = cos((n - m) theta_31) cos a_{t_{n-1}} of the last query m, for keys 0..m
    (keys 0 and 1 have no letter before them: 0), from the page's formula alone."""
    m = len(text)
    f = np.zeros(m + 1)
    for n in range(2, m + 1):
        f[n] = np.cos((n - m) * TH31) * np.cos(letter_angle(text[n - 2]))
    return f


PREFIXES = (ih.PROMPT[:-1], "zzabyxnqthec")


@pytest.mark.parametrize("prefix", PREFIXES)
def test_rank1_favourite_cannot_depend_on_the_query_token(prefix):
    """E1, the true statement: whatever letter the query holds, its favourite key is where
    f_m is largest (positive scalar) or smallest (negative scalar): at most two favourites."""
    favourites = set()
    ref = forward(prefix + "a", head="rank1").scores1[-1] / np.cos(letter_angle("a"))
    for t in VOCAB:
        tr = forward(prefix + t, head="rank1")
        best = int(np.argmax(tr.scores1[-1]))
        favourites.add(best)
        f = rank1_key_factor(prefix + t)
        s = np.cos(letter_angle(t))  # the query's scalar, cos a_t, never 0 for a letter
        want = f.max() if s > 0 else f.min()
        assert f[best] == pytest.approx(want, abs=1e-3)  # ties between equal letters allowed
        # the row is the query's scalar times one row that does not depend on the letter (the
        # query's own key, n = m, is left out: layer 0 leaks 2e-5 of the query's letter into it)
        assert np.allclose((tr.scores1[-1] / s)[:-1], ref[:-1], atol=1e-6 * tr.config.beta)
    assert len(favourites) <= 2


def test_rank1_favourite_count_value():
    f = rank1_key_factor(ih.PROMPT)
    # letters with both signs of cos a_t exist, so both ends of f are used
    signs = {np.sign(np.cos(letter_angle(t))) for t in VOCAB}
    expected = len({int(np.argmax(f)), int(np.argmin(f))}) if signs == {1.0, -1.0} else 1
    assert value("layer1-rank1-favourite-count") == str(expected)


def test_old_claim_is_false_on_the_sites_own_rank1_layer0():
    """E1, the false statement: "every query ranks the keys in the same order". Layer 0 has
    rank-1 maps, and its favourite key moves with the query's position (it is m - 1)."""
    tr = forward("jumpfoxjumpfox")
    L0 = tr.weights.L0
    assert np.linalg.matrix_rank(L0.W_q) == 1 and np.linalg.matrix_rank(L0.W_k) == 1
    masked = np.where(tr.mask, tr.scores0, -np.inf)
    best = np.argmax(masked, axis=1)[1:]
    assert np.array_equal(best, np.arange(len(tr.tokens) - 1))  # m - 1 for every m >= 1
    # two queries that rank the same keys in different orders
    order_5 = np.argsort(-tr.scores0[5, :5])
    order_9 = np.argsort(-tr.scores0[9, :5])
    assert not np.array_equal(order_5, order_9)


def test_rank1_position_factor_is_nearly_constant():
    """In the site's rank-1 head the position factor is cos((n - m) theta_31): the keys with a
    letter before them are 2..m, so the largest distance on the prompt is len - 2."""
    far = len(ih.PROMPT) - 2
    close("layer1-rank1-position-drift", 1 - np.cos(far * TH31))
    tr = forward(ih.PROMPT, head="rank1")
    q, k = tr.q1_pre[:, -2], tr.k1_pre[:, -2]
    for m in range(2, len(tr.tokens)):
        n = np.arange(2, m + 1)
        want = np.cos((n - m) * TH31) * q[m] * k[n]
        assert np.allclose(tr.scores1[m, n], want, atol=1e-9 * tr.config.beta)


def _matches(text: str) -> list[int]:
    return [i + 2 for i in range(len(text) - 1) if text[i] == text[-1]]


def test_two_copies_example_has_no_tie():
    text = figures.get_value("layer1-two-copies-prediction").kwargs.get("text", "kbxkdqk")
    a, b = (text[n - 1] for n in _matches(text))
    # the followers' average direction points exactly at a letter
    mean = (np.exp(1j * letter_angle(a)) + np.exp(1j * letter_angle(b))) / 2
    angles = np.array([letter_angle(t) for t in VOCAB])
    gaps = np.abs(np.angle(np.exp(1j * (angles - np.angle(mean)))))
    nearest = np.sort(gaps)
    assert nearest[0] < 1e-9 and nearest[1] > 0.2  # one letter exactly, the next far away
    assert value("layer1-two-copies-prediction") == VOCAB[int(np.argmin(gaps))]
    # the readout of the average, gamma cos(a_v - a_mean) |mean|, through a softmax
    logits = Config().gamma * np.abs(mean) * np.cos(angles - np.angle(mean))
    p = np.exp(logits - logits.max())
    close("layer1-two-copies-probability", (p / p.sum()).max())


def test_tie_is_midway_and_broken_by_layer0_not_by_rope():
    text = ih.TIE_PROMPT
    early, late = _matches(text)
    a, b = text[early - 1], text[late - 1]
    mid = (letter_angle(a) + letter_angle(b)) / 2
    assert mid == pytest.approx(np.pi / 2)
    assert mid - letter_angle("g") == pytest.approx(letter_angle("h") - mid)  # exactly midway
    tr = forward(text)
    p = dict(zip(tr.vocab, tr.probs[-1], strict=True))
    close("layer1-tie-h", p["h"])
    close("layer1-tie-g", p["g"])
    assert p["h"] > p["g"] and tr.prediction == "h"
    close("layer1-tie-late", tr.A1[-1, late])
    close("layer1-tie-early", tr.A1[-1, early])
    close("layer1-tie-score-gap", tr.scores1[-1, late] - tr.scores1[-1, early])
    # RoPE's own share, from the score formula at the two distances
    m = len(text)
    rope = Config().beta * (np.cos((m - late) * TH31) - np.cos((m - early) * TH31))
    close("layer1-tie-rope-gap", rope)
    assert 40 < num(value("layer1-tie-score-gap")) / rope < 60  # "about fifty times smaller"
    # the stray weight layer 0 leaves around m - 1
    leak = max(1 - tr.A0[n, n - 1] for n in (early, late))
    assert 3.5e-5 <= leak < 4.5e-5 and value("layer1-tie-leak") == "4 \\times 10^{-5}"
    # with a clean layer 0 the split is even and g and h tie
    clean = forward(text, alpha=100.0)
    assert abs(clean.A1[-1, late] - 0.5) < 5e-5 and abs(clean.A1[-1, early] - 0.5) < 5e-5
    assert value("layer1-tie-exact") == "0.5000"
    pc = dict(zip(clean.vocab, clean.probs[-1], strict=True))
    assert abs(pc["g"] - pc["h"]) < 1e-3


def test_exercise_rank1_prediction():
    text = ih.EXERCISE_RANK1
    q = text[-1]
    assert np.cos(letter_angle(q)) > 0  # positive scalar: the largest key scalar wins
    f = rank1_key_factor(text)
    n = int(np.argmax(f))
    assert text[n - 2] == "a" and value("layer1-ex-rank1-prediction") == text[n - 1]
    # the working head copies the letter after the earlier copy of the last letter
    working = value("layer1-ex-working-prediction")
    assert working == text[text.index(q) + 1] != value("layer1-ex-rank1-prediction")


def test_exercise_two_after():
    text = ih.EXERCISE_TWO_AFTER
    assert text[:-1].count(text[-1]) == 1
    assert value("layer1-ex-two-after-prediction") == text[text.index(text[-1]) + 2]
    tr = forward(text, offset=2)
    assert int(np.argmax(tr.A0[5])) == 3  # layer 0 now looks two back


def test_exercise_limits():
    for vid, d, base in (("layer1-ex-limit-128", 128, 1e4), ("layer1-ex-limit-llama", 128, 5e5)):
        theta = base ** (-(d - 2) / d)
        close(vid, np.pi / 26 / theta)
    assert num(value("layer1-ex-limit-128")) > num(value("layer1-distance-limit"))
    assert frequencies(128, 5e5)[-1] < frequencies(128)[-1]


def test_distance_figure_keeps_every_series_on_the_plot():
    """Fig. 4.5: the y-range reaches the lowest plotted score (the keys after j)."""
    import matplotlib

    matplotlib.use("Agg")
    spec = figures.get("layer1-distance")
    fig = spec.func(**spec.kwargs)
    ax = fig.axes[0]
    low = min(np.min(line.get_ydata()) for line in ax.get_lines() if line.get_marker() == "o")
    assert ax.get_ylim()[0] < low
    import matplotlib.pyplot as plt

    plt.close(fig)
