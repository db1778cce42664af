r"""Figures of the research-notes page on semantic heads and their recency bias (Experiment 3).

Each figure reads the arrays of ``rope_explained.experiments``; nothing here recomputes an
experiment.
"""

from __future__ import annotations

import numpy as np

from ...embedding import letter_angle
from ...experiments import (
    NOTES_D,
    d0_sweep_values,
    induction_prompts,
    semantic_head_experiment,
    semantic_head_inputs,
    semantic_head_weights,
    semantic_recency,
)
from ...model import DEFAULT, Config
from ...rope import frequencies
from .. import register, setting_text, times_ten, value
from ..style import COLORS, legend_columns, new_figure

_D0_LABELS = (r"$d_0 = 0$", r"$d_0 = d/2$", r"$d_0 = d - d/4$", r"$d_0 = d - d/8$", r"$d_0 = d-2$")


@register(
    "notes-semantic-recency",
    caption=(
        r"The recency bias of a content-only head: every position holds the same random "
        r"vector, so without RoPE all keys would score alike. With RoPE the last query's score, "
        r"divided by its score against itself, falls with the distance \(m - n\). Keeping only "
        r"the slow pairs (larger \(d_0\)) flattens the curve; the lower panel zooms in on the "
        r"top 2 %: over 999 tokens the four slowest pairs lose "
        r'{{ value("notes-recency-loss-56") }} % and the slowest pair alone '
        r'{{ value("notes-recency-loss-62") }} %. The distance axis is logarithmic beyond 1.'
    ),
    alt=(
        "Two stacked line plots sharing a distance axis from 0 to 999 tokens (logarithmic "
        "beyond 1). Top: five curves start at 1 at distance 0. The d0 = 0 curve falls to about "
        "0.6 within 20 tokens and then oscillates, dropping towards 0 near 999; d0 = d/2 stays "
        "near 1 up to about 50 tokens and then falls to about 0.25; d0 = d - d/4 falls to about "
        "0.8; d0 = d - d/8 and d0 = d - 2 stay at 1. Bottom: the y axis from 0.98 to 1 shows "
        "d0 = d - d/8 and d0 = d - 2 bending down by about 1 % at distance 999."
    ),
    T=1000,
    d=DEFAULT.d,
)
def semantic_recency_curves(T=1000, d=DEFAULT.d):
    """The same vector at every position: normalised score against distance, per d0."""
    fig, (top, zoom) = new_figure(
        2,
        1,
        height=5.6,
        sharex=True,
        layout="constrained",
        gridspec_kw={"height_ratios": (1.6, 1.0)},
    )
    distance = np.arange(T)[::-1]  # key n = 0..T-1, query at T-1
    styles = ("-", "-", "-.", "--", ":")
    curves = zip(COLORS, styles, _D0_LABELS, d0_sweep_values(d), strict=False)
    for color, ls, label, d0 in curves:
        s = semantic_recency(T=T, d=d, d0=d0)
        for ax in (top, zoom):
            ax.plot(distance, s / s[-1], color=color, ls=ls, lw=1.8, label=label)
    for ax in (top, zoom):
        ax.axhline(1.0, color="0.5", lw=0.8, zorder=0)
        ax.grid(alpha=0.3)
    zoom.set_ylim(0.98, 1.0015)
    zoom.set_xscale("symlog", linthresh=1.0, linscale=0.4)
    zoom.set_xlim(0, T - 1)
    zoom.set_xlabel(r"distance $m - n$ from the query (tokens)")
    top.set_ylabel(r"$q_m^T k_n\,/\,q_m^T k_m$")
    zoom.set_ylabel("zoom")
    top.legend(loc="lower left", fontsize=11, ncols=legend_columns(2))
    return fig


_SCHEDULES = (("wendler", "his schedule"), ("standard", "the site's schedule"))
"""The two frequency schedules of Experiment 3, as the figures label them: Wendler's notes use
the first, the rest of the site the second."""
_ZOOM = (0.98, 1.002)
"""The y range of the panels that keep only the slowest pairs, zoomed in as in Fig. 8.1."""


@register(
    "notes-semantic-sweep",
    caption=(
        r"Experiment 3 reproduced: the last of 1000 random vectors asks for the shared "
        r"meaning \(s\) that all 999 earlier ones carry (\(D = 768\), "
        r'\(d = {{ value("semantic-setting-d") }}\)). Each panel '
        r"shows, for one \(d_0\), the last query's raw scores \(q_m^T k_n\) over the earlier "
        r"positions \(n\), divided by \(\|s_{d_0:}\|^2\), the score every key would get "
        r"without RoPE (dashed line at 1); not softmax weights, which Fig. 8.3 shows. Solid: "
        r"the frequencies of Wendler's notes, \(\theta_i = 10^{-8i/(d-2)}\); dotted: the "
        r"site's \(\theta_i = 10000^{-2i/d}\). The last two panels have their own, zoomed "
        r"y axis (0.98 to 1): at the scale of the others their curves would lie on the line. "
        r"The head is close to a true semantic head only when it keeps the slowest pairs alone."
    ),
    alt=(
        "Five stacked line plots sharing the key position axis from 0 to 998, two curves and "
        "a dashed line at 1 in each. The first three share a y axis from -0.2 to 1.1. For "
        "d0 = 0 both curves are a noisy band between about 0.1 and 0.5 that climbs to about "
        "0.9 at the last positions; for d0 = d/2 a slow wave between 0.3 and 0.7 reaching 1 at "
        "the end; for d0 = d - d/4 a gentle rise from about 0.93 (site's schedule) or 0.95 "
        "(his schedule) to 1. The last two panels zoom into 0.98 to 1: for d0 = d - d/8 and "
        "d0 = d - 2 the curves rise gently to 1 at the query, the site's schedule starting "
        "lower than his. Each panel states the spread (max - min)/max for both schedules: "
        'his {{ value("notes-flatness-wendler-0") }}, '
        '{{ value("notes-flatness-wendler-32") }}, {{ value("notes-flatness-wendler-48") }}, '
        '{{ value("notes-flatness-wendler-56") }} and {{ value("notes-flatness-wendler-62") }}; '
        'the site\'s {{ value("notes-flatness-0") }}, {{ value("notes-flatness-32") }}, '
        '{{ value("notes-flatness-48") }}, {{ value("notes-flatness-56") }} and '
        '{{ value("notes-flatness-62") }}.'
    ),
    T=1000,
    D=NOTES_D,
    d=DEFAULT.d,
)
def semantic_sweep(T=1000, D=NOTES_D, d=DEFAULT.d):
    """Experiment 3: the last query's normalised scores over its predecessors, per d0, under
    both frequency schedules."""
    d0s = d0_sweep_values(d)
    scores = {
        sch: semantic_head_experiment(d0_values=d0s, T=T, D=D, d=d, schedule=sch)
        for sch, _ in _SCHEDULES
    }
    _, s = semantic_head_inputs(T=T, D=D, d=d)
    fig, axes = new_figure(len(d0s), 1, width=7.2, height=8.2, sharex=True, layout="constrained")
    n = np.arange(T - 1)
    for k, (ax, color, label, d0) in enumerate(zip(axes, COLORS, _D0_LABELS, d0s, strict=False)):
        ideal = float(np.sum(s[d0:] ** 2))  # the score of every key without rotations
        ax.axhline(1.0, color="0.4", lw=0.8, ls="--", zorder=0)
        spreads = []
        for (sch, name), ls in zip(_SCHEDULES, ("-", ":"), strict=True):
            y = scores[sch][d0] / ideal
            ax.plot(n, y, color=color if sch == "wendler" else "0.25", lw=1.4, ls=ls, label=name)
            spreads.append(np.ptp(scores[sch][d0]) / scores[sch][d0].max())
        zoomed = k >= len(d0s) - 2
        ax.text(
            0.01,
            0.08,
            f"{label}{'  (zoom)' if zoomed else ''}   (max - min)/max: "
            f"his {spreads[0]:.3f}, site's {spreads[1]:.3f}",
            transform=ax.transAxes,
            fontsize=10.5,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.5},
        )
        ax.set_ylim(*(_ZOOM if zoomed else (-0.2, 1.1)))
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper left", fontsize=10, ncols=legend_columns(2), framealpha=0.9)
    axes[-1].set_xlim(0, T - 2)
    axes[-1].set_xlabel(r"key position $n$ (the query is at $m = 999$)")
    fig.supylabel(r"raw score $q_m^T k_n \,/\, \|s_{d_0:}\|^2$", fontsize=12)
    return fig


@register(
    "notes-semantic-softmax",
    caption=(
        r"Experiment 3 as attention weights: the softmax of the same scores over the 999 "
        r"earlier keys (the query's own key, which holds noise, is left out), times 999, so "
        r"that an ideal semantic head would draw the dashed line at 1, against the distance "
        r"\(m - n\) of the key from the query (both axes logarithmic). Top: the "
        r"frequencies of Wendler's notes; bottom: the site's. The softmax sharpens the raw "
        r"scores' recency bias: with every pair in use, the nearest key takes "
        r'{{ value("notes-softmax-nearest-0") }} of the weight under his schedule.'
    ),
    alt=(
        "Two stacked line plots, his schedule on top and the site's below, each with five "
        "curves of weight times 999 on a log axis from 0.001 to 1000 against the distance "
        "from the query, 1 to 999 tokens on a log axis, and a dashed line at 1. In both, "
        "d0 = 0 starts at about 950 at distance 1 and falls below the axis within about ten "
        "tokens; d0 = d/2 starts between 20 and 30 and falls below the axis after 130 to 160 "
        "tokens; d0 = d - d/4 falls slowly from between 1.5 and 2 to between 0.2 and 0.4; "
        "d0 = d - d/8 and d0 = d - 2 stay close to 1."
    ),
    T=1000,
    D=NOTES_D,
    d=DEFAULT.d,
)
def semantic_softmax(T=1000, D=NOTES_D, d=DEFAULT.d):
    """Experiment 3: the last query's softmax weights over its predecessors, per d0."""
    d0s = d0_sweep_values(d)
    fig, axes = new_figure(2, 1, width=7.2, height=6.4, sharex=True, layout="constrained")
    distance = np.arange(T - 1, 0, -1)  # keys n = 0..T-2, the query at T-1
    styles = ("-", "-", "-.", "--", ":")
    for ax, (sch, name) in zip(axes, _SCHEDULES, strict=True):
        weights = semantic_head_weights(d0_values=d0s, T=T, D=D, d=d, schedule=sch)
        ax.axhline(1.0, color="0.4", lw=0.8, ls="--", zorder=0)
        for color, ls, label, d0 in zip(COLORS, styles, _D0_LABELS, d0s, strict=False):
            ax.plot(distance, weights[d0] * (T - 1), color=color, ls=ls, lw=1.6, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(1e-3, 2e3)
        ax.grid(alpha=0.3)
        ax.set_title(name, fontsize=12)
    axes[0].legend(loc="upper right", fontsize=10, ncols=legend_columns(2), framealpha=0.9)
    axes[-1].set_xlim(1, T - 1)
    axes[-1].set_xlabel(r"distance $m - n$ of the key from the query (tokens)")
    fig.supylabel(r"softmax weight $\times\ 999$", fontsize=12)
    return fig


# Values the page states ------------------------------------------------------------------------


def _recency_by_distance(T: int, d: int, d0: int) -> np.ndarray:
    """The last query's normalised score against the key at distance 0, 1, ..., T - 1."""
    s = semantic_recency(T=T, d=d, d0=d0)
    return (s / s[-1])[::-1]


@value("notes-recency-at-10")
def notes_recency_at_10(T: int = 1000, d: int = DEFAULT.d, distance: int = 10) -> str:
    """With every pair in use: the normalised score at ``distance``."""
    return f"{_recency_by_distance(T, d, 0)[distance]:.2f}"


@value("notes-recency-min", end="min")
@value("notes-recency-max", end="max")
def notes_recency_range(
    end: str = "min", T: int = 1000, d: int = DEFAULT.d, beyond: int = 10
) -> str:
    """With every pair in use: the lowest (or highest) normalised score past ``beyond``."""
    far = _recency_by_distance(T, d, 0)[beyond:]
    return f"{(far.min() if end == 'min' else far.max()):.2f}"


@value("notes-recency-loss-56", d0=56)
@value("notes-recency-loss-62", d0=62)
def notes_recency_loss(d0: int = 56, T: int = 1000, d: int = DEFAULT.d) -> str:
    """How much of its score, in percent, the farthest key loses when the head keeps the
    pairs from ``d0 / 2`` on."""
    return f"{100 * (1 - _recency_by_distance(T, d, d0)[-1]):.1f}"


@value("notes-slowest-turn-wendler")
def notes_slowest_turn_wendler(T: int = 1000, d: int = DEFAULT.d) -> str:
    """How far, in radians, the slowest pair of Wendler's schedule turns over T - 1 tokens."""
    return f"{(T - 1) * frequencies(d, schedule='wendler')[-1]:.4f}"


@value("notes-slowest-drop-wendler")
def notes_slowest_drop_wendler(T: int = 1000, d: int = DEFAULT.d) -> str:
    """The drop 1 - cos of that angle, in percent."""
    return f"{100 * (1 - np.cos((T - 1) * frequencies(d, schedule='wendler')[-1])):.1f}"


@value("notes-slowest-frequency")
def notes_slowest_frequency(d: int = DEFAULT.d) -> str:
    """The frequency of the slowest pair (TeX)."""
    return times_ten(frequencies(d)[-1], 2)


@value("notes-slowest-turn")
def notes_slowest_turn(T: int = 1000, d: int = DEFAULT.d) -> str:
    """How far, in radians, the slowest pair turns over T - 1 tokens."""
    return f"{(T - 1) * frequencies(d)[-1]:.3f}"


@value("notes-slowest-cos")
def notes_slowest_cos(T: int = 1000, d: int = DEFAULT.d) -> str:
    """The cosine of that angle."""
    return f"{np.cos((T - 1) * frequencies(d)[-1]):.3f}"


@value("notes-slowest-drop")
def notes_slowest_drop(T: int = 1000, d: int = DEFAULT.d) -> str:
    """The drop 1 - cos of that angle, in percent."""
    return f"{100 * (1 - np.cos((T - 1) * frequencies(d)[-1])):.1f}"


@value("notes-flatness-0", d0=0)
@value("notes-flatness-32", d0=32)
@value("notes-flatness-48", d0=48)
@value("notes-flatness-56", d0=56)
@value("notes-flatness-62", d0=62)
@value("notes-flatness-wendler-0", d0=0, schedule="wendler")
@value("notes-flatness-wendler-32", d0=32, schedule="wendler")
@value("notes-flatness-wendler-48", d0=48, schedule="wendler")
@value("notes-flatness-wendler-56", d0=56, schedule="wendler")
@value("notes-flatness-wendler-62", d0=62, schedule="wendler")
def notes_flatness(d0: int = 0, schedule: str = "standard") -> str:
    """Experiment 3: the spread (max - min) / max of the last query's scores."""
    scores = semantic_head_experiment(d0_values=(d0,), schedule=schedule)[d0]
    return f"{np.ptp(scores) / scores.max():.3f}"


def _weights(d0: int, schedule: str) -> np.ndarray:
    """Experiment 3: the last query's softmax weights over its 999 predecessors."""
    return semantic_head_weights(d0_values=(d0,), schedule=schedule)[d0]


@value("notes-softmax-nearest-0", d0=0, schedule="wendler")
@value("notes-softmax-nearest-0-standard", d0=0, schedule="standard")
def notes_softmax_nearest(d0: int = 0, schedule: str = "wendler") -> str:
    """Experiment 3: the softmax weight of the nearest earlier key."""
    return f"{_weights(d0, schedule)[-1]:.2f}"


@value("notes-softmax-last-ten-32", d0=32, schedule="wendler")
def notes_softmax_last_ten(d0: int = 32, schedule: str = "wendler", keys: int = 10) -> str:
    """Experiment 3: the weight the ``keys`` nearest earlier keys take together, in percent."""
    return f"{100 * _weights(d0, schedule)[-keys:].sum():.0f}"


@value("notes-softmax-low-48", d0=48, end="min")
@value("notes-softmax-high-48", d0=48, end="max")
@value("notes-softmax-low-56", d0=56, end="min")
@value("notes-softmax-high-56", d0=56, end="max")
@value("notes-softmax-low-62", d0=62, end="min")
@value("notes-softmax-high-62", d0=62, end="max")
def notes_softmax_range(d0: int = 62, end: str = "min", schedule: str = "wendler") -> str:
    """Experiment 3: the smallest (or largest) weight, as a multiple of the uniform 1/999."""
    w = _weights(d0, schedule) * 999
    return f"{(w.min() if end == 'min' else w.max()):.2f}"


def _benchmark_lengths() -> np.ndarray:
    return np.array([len(p.text) for p in induction_prompts()])


@value("notes-benchmark-max-length")
def notes_benchmark_max_length() -> str:
    """The length of the longest prompt of the induction benchmark."""
    return str(_benchmark_lengths().max())


@value("notes-benchmark-max-distance")
def notes_benchmark_max_distance() -> str:
    """The largest distance between two of its tokens."""
    return str(_benchmark_lengths().max() - 1)


@value("notes-benchmark-max-turn")
def notes_benchmark_max_turn() -> str:
    """How far, in radians, the slowest pair turns over that distance."""
    cfg = Config()
    return f"{(_benchmark_lengths().max() - 1) * frequencies(cfg.d, cfg.base)[-1]:.3f}"


@value("notes-half-letter-gap")
def notes_half_letter_gap() -> str:
    """Half the angle between neighbouring letters, pi/26, in radians."""
    return f"{(letter_angle('b') - letter_angle('a')) / 2:.3f}"


@value("notes-distance-limit")
def notes_distance_limit() -> str:
    """The distance at which the slowest pair has turned by pi/26."""
    cfg = Config()
    half_step = (letter_angle("b") - letter_angle("a")) / 2
    return f"{half_step / frequencies(cfg.d, cfg.base)[-1]:.0f}"


@value("notes-rival-nearby-limit")
def notes_rival_nearby_limit() -> str:
    """The distance beyond which the right letter loses to the next letter round the circle
    sitting right next to the query: where the slowest pair has turned by a whole letter
    step, pi/13."""
    cfg = Config()
    step = letter_angle("b") - letter_angle("a")
    return f"{step / frequencies(cfg.d, cfg.base)[-1]:,.0f}"


# Values of the exercises -------------------------------------------------------------------------

EXERCISE_LONG = 100_000
"""The distance of the exercise on a large head with a large base."""
EXERCISE_KEPT = 4
"""How many of the slowest pairs the exercise's head keeps (d0 = d - 2 * 4 = 56)."""
EXERCISE_LEVEL = 0.9
"""The exercise's level for the normalised score."""


@value("notes-ex-semantic-drop-llama-999", distance=999)
@value("notes-ex-semantic-drop-llama-long", distance=EXERCISE_LONG, decimals=1)
def ex_drop_llama(distance: int = 999, d: int = 128, base: float = 5e5, decimals: int = 4) -> str:
    """The drop, in percent, of the slowest pair's factor over ``distance`` tokens, for a head
    of ``d`` with ``base``."""
    return f"{100 * (1 - np.cos(distance * frequencies(d, base)[-1])):.{decimals}f}"


@value("notes-ex-semantic-long")
def ex_long() -> str:
    """The long distance, with a thousands separator."""
    return f"{EXERCISE_LONG:,}"


@value("notes-ex-semantic-zero")
def ex_zero(d: int = DEFAULT.d) -> str:
    """The distance at which the slowest pair's factor cos(delta theta_31) reaches 0, to the
    nearest hundred, with a thousands separator."""
    return f"{round(np.pi / 2 / frequencies(d)[-1], -2):,.0f}"


@value("notes-ex-semantic-kept-below")
def ex_kept_below(
    d: int = DEFAULT.d, kept: int = EXERCISE_KEPT, level: float = EXERCISE_LEVEL
) -> str:
    """The first distance at which a head with equal content in its ``kept`` slowest pairs
    (and none elsewhere) scores a key below ``level`` of the query's own score, with a
    thousands separator."""
    theta = frequencies(d)[-kept:]
    delta = np.arange(1, 100_000)
    mean = np.cos(np.outer(delta, theta)).mean(axis=1)
    return f"{int(delta[np.argmax(mean < level)]):,}"


@value("notes-ex-semantic-kept")
def ex_kept() -> str:
    return str(EXERCISE_KEPT)


@value("notes-ex-semantic-level")
def ex_level() -> str:
    return f"{EXERCISE_LEVEL}"


@value("semantic-setting-d", name="d")
def semantic_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
