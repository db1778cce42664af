"""The research-notes pages (chapters 7 to 9): Wendler's experiments under his frequencies and
the site's, Experiment 3's softmax weights, Fig. 8.2's zoom, the rival-letter limit of the
semantic-heads page, and the wording the pages must keep or avoid.

Every value is recomputed here from the formula the page gives (numpy), not read back from the
function that printed it; every claim the prose makes about the numbers is asserted.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pytest
from pages import number, value

from rope_explained import figures
from rope_explained.embedding import letter_angle
from rope_explained.experiments import (
    d0_sweep_values,
    previous_token_experiment,
    semantic_head_experiment,
    semantic_head_inputs,
    semantic_head_weights,
)
from rope_explained.model import Config, predict_last
from rope_explained.rope import frequencies

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "docs" / "notes"
T1, D1, d = 20, 768, 64  # Experiment 1
T3 = 1000  # Experiment 3
#: The two schedules, written out from their formulas (counted from 0).
THETA = {
    "wendler": 10.0 ** (-4 * 2 * np.arange(d // 2) / (d - 2)),
    "standard": 10000.0 ** (-2 * np.arange(d // 2) / d),
}


def agrees(value_id: str, x: float) -> None:
    """The value prints ``x`` rounded to its last digit."""
    text = value(value_id)
    mantissa = re.sub(r" \\times.*", "", text.replace(",", ""))
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0**-decimals * (number(text) / float(mantissa) if float(mantissa) else 1.0)
    assert abs(number(text) - x) <= unit / 2 + 1e-12, (value_id, text, x)


def page(name: str) -> str:
    return " ".join((NOTES / name).read_text(encoding="utf-8").split())


@functools.cache
def exp1(schedule: str) -> dict:
    """Experiment 1 from its formula: the pattern does not depend on the random content, so each
    row is the causal softmax of alpha * sum_i cos((n - m + 1) theta_i)."""
    out = {}
    for alpha in (1.0, 10.0, 100.0):
        A = np.zeros((T1, T1))
        for m in range(T1):
            s = alpha * np.cos((np.arange(m + 1) - m + 1.0)[:, None] * THETA[schedule]).sum(1)
            w = np.exp(s - s.max())
            A[m, : m + 1] = w / w.sum()
        out[alpha] = A
    return out


@functools.cache
def exp3(schedule: str) -> dict:
    """Experiment 3 from its formula: sum_i cos((n - m) theta_i) (s_2i^2 + s_2i+1^2) over the
    pairs the head keeps, for keys 0..998 and the query at 999."""
    _, s = semantic_head_inputs(T=T3, D=768, d=d)  # the shared meaning of the fixed seed
    delta = np.arange(T3 - 1) - (T3 - 1.0)
    out = {}
    for d0 in d0_sweep_values(d):
        keep = s.copy()
        keep[:d0] = 0
        out[d0] = np.cos(delta[:, None] * THETA[schedule]) @ (keep[0::2] ** 2 + keep[1::2] ** 2)
    return out


def softmax(x: np.ndarray) -> np.ndarray:
    w = np.exp(x - x.max())
    return w / w.sum()


# --- E7: the two schedules -----------------------------------------------------------------------


def test_wendler_schedule_is_the_one_of_his_notes():
    for schedule, theta in THETA.items():
        assert np.allclose(frequencies(d, schedule=schedule), theta, rtol=1e-14, atol=0)
    # "the same first pair", "the slowest by exactly 1e-4", "about three quarters of the site's"
    assert THETA["wendler"][0] == THETA["standard"][0] == 1.0
    assert THETA["wendler"][-1] == pytest.approx(1e-4, rel=1e-12)
    assert round(THETA["wendler"][-1] / THETA["standard"][-1], 2) == 0.75
    # "every pair except the first is slower under his schedule"
    assert np.all(THETA["wendler"][1:] < THETA["standard"][1:])
    agrees("notes-slowest-turn-wendler", 999 * 1e-4)
    agrees("notes-slowest-drop-wendler", 100 * (1 - np.cos(999 * 1e-4)))
    assert number(value("notes-slowest-drop-wendler")) < number(value("notes-slowest-drop"))


@pytest.mark.parametrize("schedule", ["wendler", "standard"])
def test_experiment_1_under_each_schedule(schedule):
    ours = previous_token_experiment(schedule=schedule)
    for alpha, A in exp1(schedule).items():
        assert np.allclose(ours[alpha], A, atol=1e-12)
    if schedule == "wendler":
        A1, A10 = exp1("wendler")[1.0], exp1("wendler")[10.0]
        agrees("notes-mean-weight-wendler-1", np.diag(A1, k=-1).mean())
        agrees("notes-mean-weight-wendler-10", np.diag(A10, k=-1).mean())
        for m in range(T1 // 2, T1):  # "about 0.20 each", symmetric about m - 1
            assert A1[m, m] == pytest.approx(A1[m, m - 2], rel=1e-12)
        # "about 0.20 each for late queries, under both": one printed value for both schedules
        agrees("notes-spill-1", max(A1[m, m] for m in range(T1 // 2, T1)))
        rest = 1 - np.diag(A10, k=-1).mean()
        assert abs(number(value("notes-left-weight-wendler-10")) / rest - 1) < 0.25


def test_experiment_1_schedules_compared():
    w, s = exp1("wendler"), exp1("standard")
    # "his frequencies make the band at alpha = 1 a little softer": the neighbours keep more
    assert np.diag(w[1.0], k=-1).mean() < np.diag(s[1.0], k=-1).mean()
    assert all(w[1.0][m, m] > s[1.0][m, m] for m in range(1, T1))
    # the caption: no weight changes by more than the stated bound (rounded up)
    gap = np.abs(w[1.0] - s[1.0]).max()
    assert gap <= number(value("notes-schedule-pattern-gap")) < gap + 0.01 + 1e-12
    assert all(np.abs(w[a] - s[a]).max() <= gap for a in (10.0, 100.0))


def test_experiment_3_spreads_under_both_schedules():
    spreads = {}
    for schedule in ("wendler", "standard"):
        ours = semantic_head_experiment(schedule=schedule)
        for d0, scores in exp3(schedule).items():
            assert np.allclose(ours[d0], scores, rtol=1e-10, atol=1e-9)
        spreads[schedule] = [np.ptp(v) / v.max() for v in exp3(schedule).values()]
    for d0, spread in zip(d0_sweep_values(d), spreads["wendler"], strict=True):
        agrees(f"notes-flatness-wendler-{d0}", spread)
    for schedule in spreads:  # "under both schedules the spread falls steadily"
        assert all(b < a for a, b in zip(spreads[schedule], spreads[schedule][1:], strict=False))
        assert spreads[schedule][-2] < 0.02  # "the four slowest pairs: close to position-blind"
    # "his slower frequencies make every spread smaller, by about a third to a half from 48 on"
    assert all(w < s for w, s in zip(spreads["wendler"], spreads["standard"], strict=True))
    for w, s in zip(spreads["wendler"][2:], spreads["standard"][2:], strict=True):
        assert 0.3 <= 1 - w / s <= 0.5


def test_experiment_3_softmax_weights():
    for schedule in ("wendler", "standard"):
        ours = semantic_head_weights(schedule=schedule)
        for d0, scores in exp3(schedule).items():
            assert np.allclose(ours[d0], softmax(scores), rtol=1e-9, atol=1e-15)
            assert ours[d0].sum() == pytest.approx(1.0)
    w = {d0: softmax(v) for d0, v in exp3("wendler").items()}
    agrees("notes-softmax-nearest-0", w[0][-1])
    agrees("notes-softmax-nearest-0-standard", softmax(exp3("standard")[0])[-1])
    agrees("notes-softmax-last-ten-32", 100 * w[32][-10:].sum())
    assert 100 * 10 / 999 == pytest.approx(1.0, abs=0.01)  # "an ideal head would give them 1 %"
    for d0 in (48, 56, 62):
        agrees(f"notes-softmax-low-{d0}", 999 * w[d0].min())
        agrees(f"notes-softmax-high-{d0}", 999 * w[d0].max())
    # "the nearest key's raw score lies a few units above the next one's"
    top = np.sort(exp3("wendler")[0])[::-1]
    assert 2 < top[0] - top[1] < 5
    # "the softmax makes the recency bias far more visible than the raw scores": the nearest
    # key's share of the weight is far above its share of the raw scores
    raw = exp3("wendler")[0]
    assert w[0][-1] > 100 * raw[-1] / raw.sum()
    # "leaves Wendler's conclusion standing": the slowest pairs give nearly uniform weights
    assert 0.9 < 999 * w[62].min() and 999 * w[62].max() < 1.1


def test_semantic_sweep_zoom_shows_every_curve():
    """Fig. 8.2: every curve lies inside its panel, and the last two panels (d0 = 56, 62) have
    a y range at most a tenth of the others', so their spread is visible."""
    import matplotlib.pyplot as plt

    fig = figures.get("notes-semantic-sweep").func()
    try:
        axes = fig.axes
        assert len(axes) == 5
        spans = []
        for ax in axes:
            lo, hi = ax.get_ylim()
            spans.append(hi - lo)
            for line in ax.get_lines():
                y = np.asarray(line.get_ydata(), dtype=float)
                assert lo <= y.min() and y.max() <= hi, (ax.get_ylim(), y.min(), y.max())
            curves = [ln for ln in ax.get_lines() if np.asarray(ln.get_ydata()).size > 2]
            assert len(curves) == 2  # his schedule and the site's
        assert max(spans[3:]) <= min(spans[:3]) / 10
        # in the zoomed panels each curve fills at least a fifth of the height
        for ax in axes[3:]:
            for line in ax.get_lines():
                y = np.asarray(line.get_ydata(), dtype=float)
                if y.size > 2:
                    assert np.ptp(y) >= 0.2 * np.diff(ax.get_ylim())[0]
    finally:
        plt.close(fig)


# --- E4: when a wrong letter can win ------------------------------------------------------------


def test_rival_letter_needs_both_distances_long():
    theta = frequencies(Config().d, Config().base)[-1]
    step = letter_angle("b") - letter_angle("a")  # pi/13
    limit = step / theta
    agrees("notes-rival-nearby-limit", limit)
    agrees("notes-distance-limit", limit / 2)
    # the angles of the right key at distance L and of the key after the next letter at L'
    L = np.arange(0, 2400, 7.0)[:, None]
    Lr = np.arange(0, 2400, 7.0)[None, :]
    right = np.cos(L * theta)
    rival = np.cos(step - Lr * theta)  # angle a_t - a_(t+1) + L' theta
    wins = (rival > right) & (L != Lr)
    # "the rival wins only if L + L' > pi / (13 theta)"
    assert not np.any(wins & (L + Lr <= limit))
    # "in prompts of up to about 906 tokens that cannot happen"
    assert not np.any(wins & (L < limit / 2) & (Lr < limit / 2))
    # "a rival at the same distance wins once both lie beyond about 906" (equation 4.11)
    same = np.arange(0, 2400.0)
    first = same[np.cos(step - same * theta) > np.cos(same * theta)].min()
    assert abs(first - limit / 2) <= 1
    # "a rival right next to the query wins only once the right letter is ~1812 back"
    near = np.arange(0, 2400.0)
    first = near[np.cos(step - 1 * theta) > np.cos(near * theta)].min()
    assert abs(first - limit) <= 2


@functools.cache
def _rival_prompt(L: int, rival_distance: int) -> str:
    """'c x ... d y ... c': the key after the right letter (x) lies L back from the last c,
    the key after the next letter round the circle (y after d) rival_distance back; the filler
    letters sit at least seven letters from c on the circle."""
    rng = np.random.default_rng(0)
    letters = list(rng.choice(list("jklmnopqrs"), size=L + 2))
    letters[0], letters[1], letters[-1] = "c", "x", "c"
    letters[-2 - rival_distance], letters[-1 - rival_distance] = "d", "y"
    return "".join(letters)


@pytest.mark.parametrize(("L", "answer"), [(1700, "x"), (1900, "y")])
def test_rival_next_to_the_query_wins_only_beyond_the_far_limit(L, answer):
    """In the model: the right letter 1700 tokens back still beats a rival three tokens back;
    1900 tokens back it does not, although both are far beyond the 906-token limit."""
    limit = number(value("notes-rival-nearby-limit"))
    assert 1700 < limit < 1900
    assert predict_last(_rival_prompt(L, 3)).prediction == answer


# --- wording and credits ------------------------------------------------------------------------


def test_notes_pages_state_the_schedules_and_quantities():
    semantic = page("semantic-heads.md")
    assert "conclusions do not change" not in semantic
    assert "**raw scores**" in semantic and "**softmax weights**" in semantic
    assert '{{ figure("notes-semantic-softmax") }}' in semantic
    assert "wrong letter nearby could in principle" not in semantic
    assert 'eq("equations/induction-head.md#working-limit")' in semantic
    position = page("position-only-heads.md")
    for text in (semantic, position):
        assert r"10^{-4\cdot 2(i-1)/(d-2)}" in text and 'schedule="wendler"' in text


def test_notes_layouts_name_meta_and_hugging_face():
    text = page("open-questions.md")
    assert "GPT-NeoX and LLaMA" not in text
    assert "Meta's reference code" in text and "Hugging Face port of LLaMA" in text


def test_every_numbered_equation_of_the_notes_has_a_what():
    """Each numbered equation is followed, before the next one, by a What box."""
    for name in ("position-only-heads.md", "semantic-heads.md", "open-questions.md"):
        text = (NOTES / name).read_text(encoding="utf-8")
        parts = re.split(r"% eq: [a-z0-9-]+", text)[1:]
        for part in parts:
            assert '!!! what "' in part, (name, part[:80])


def test_pages_agree_on_what_has_been_run_of_experiment_5():
    """Experiment 5 (turning RoPE off) is run here only as a stand-in on the hand-built model,
    in the context-extension section the notes pages link to: that section exists, says it is a
    stand-in, and its number comes from a run with layer 1 unrotated; no notes page says that
    nothing of it has been run on this site."""
    from rope_explained.figures.paper_to_code import context_extension as ctx

    target = "../paper-to-code/context-extension.md#layer-1-without-rope"
    for name in ("position-only-heads.md", "open-questions.md"):
        text = page(name)
        assert target in text, name
        assert "None of these experiments has been run" not in text
        assert "does not claim results" not in text
    status = page("open-questions.md").split("Experiment 5, turning RoPE off")[1]
    status = status.split("!!! question")[0]
    assert "**Status.** Not run." not in status and target in status
    extension = (ROOT / "docs" / "paper-to-code" / "context-extension.md").read_text("utf-8")
    section = extension.split("### Layer 1 without RoPE")[1].split("\n## ")[0]
    assert "stand-in" in section and "layer1_rotary=False" in section
    assert '{{ value("ctx-norope-min") }}' in section
    # the stand-in's number is a run without rotation in layer 1, and differs from the rotating
    # model's (which fails past its limit): the section reports a result, not an idea
    assert ctx.unrotated_layer1().min() > 0.5 > ctx.study()["rows"][None, None]["curve"].min()
