r"""Figures of the research-notes page on semantic heads and their recency bias (Experiment 3).

Each figure reads the arrays of ``rope_explained.experiments``; nothing here recomputes an
experiment.
"""

from __future__ import annotations

import numpy as np

from ...embedding import letter_angle
from ...experiments import (
    d0_sweep_values,
    induction_prompts,
    semantic_head_experiment,
    semantic_head_inputs,
    semantic_recency,
)
from ...model import Config
from ...rope import frequencies
from .. import register, times_ten, value
from ..style import COLORS, new_figure

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
    d=64,
)
def semantic_recency_curves(T=1000, d=64):
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
    top.legend(loc="lower left", fontsize=11, ncols=2)
    return fig


@register(
    "notes-semantic-sweep",
    caption=(
        r"Experiment 3 reproduced: the last of 1000 random vectors asks for the shared "
        r"meaning \(s\) that all 999 earlier ones carry (\(D = 768\), \(d = 64\)). Each panel "
        r"shows its scores \(q_m^T k_n\) over the earlier positions \(n\) for one \(d_0\), "
        r"divided by \(\|s_{d_0:}\|^2\), the score every key would get without RoPE (dashed "
        r"line at 1). The head is close to a true semantic head only when it keeps the "
        r"slowest pairs alone."
    ),
    alt=(
        "Five stacked line plots sharing the key position axis from 0 to 998 and a y axis "
        "from -0.2 to 1.1, a dashed line at 1 in each. For d0 = 0 the curve is a noisy band "
        "between about 0.1 and 0.5 that climbs to about 0.9 at the last positions; for "
        "d0 = d/2 it is a slow wave between 0.3 and 0.7 reaching 1 at the end; for "
        "d0 = d - d/4 it rises gently from about 0.93 to 1; for d0 = d - d/8 and d0 = d - 2 "
        "it lies on the line at 1. Each panel states its flatness (max - min)/max: 0.941, "
        "0.692, 0.073, 0.014 and 0.009."
    ),
    T=1000,
    D=768,
    d=64,
)
def semantic_sweep(T=1000, D=768, d=64):
    """Experiment 3: the last query's normalised scores over its predecessors, per d0."""
    d0s = d0_sweep_values(d)
    scores = semantic_head_experiment(d0_values=d0s, T=T, D=D, d=d)
    _, s = semantic_head_inputs(T=T, D=D, d=d)
    fig, axes = new_figure(
        len(d0s), 1, width=7.2, height=7.0, sharex=True, sharey=True, layout="constrained"
    )
    n = np.arange(T - 1)
    for ax, color, label, d0 in zip(axes, COLORS, _D0_LABELS, d0s, strict=False):
        ideal = float(np.sum(s[d0:] ** 2))  # the score of every key without rotations
        y = scores[d0] / ideal
        ax.axhline(1.0, color="0.4", lw=0.8, ls="--", zorder=0)
        ax.plot(n, y, color=color, lw=1.2)
        flat = np.ptp(scores[d0]) / scores[d0].max()
        ax.text(
            0.01,
            0.08,
            f"{label}   (max - min)/max = {flat:.3f}",
            transform=ax.transAxes,
            fontsize=11,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.5},
        )
        ax.set_ylim(-0.2, 1.1)
        ax.grid(alpha=0.3)
    axes[-1].set_xlim(0, T - 2)
    axes[-1].set_xlabel(r"key position $n$ (the query is at $m = 999$)")
    fig.supylabel(r"$q_m^T k_n \,/\, \|s_{d_0:}\|^2$", fontsize=12)
    return fig


# Values the page states ------------------------------------------------------------------------


def _recency_by_distance(T: int, d: int, d0: int) -> np.ndarray:
    """The last query's normalised score against the key at distance 0, 1, ..., T - 1."""
    s = semantic_recency(T=T, d=d, d0=d0)
    return (s / s[-1])[::-1]


@value("notes-recency-at-10")
def notes_recency_at_10(T: int = 1000, d: int = 64, distance: int = 10) -> str:
    """With every pair in use: the normalised score at ``distance``."""
    return f"{_recency_by_distance(T, d, 0)[distance]:.2f}"


@value("notes-recency-min", end="min")
@value("notes-recency-max", end="max")
def notes_recency_range(end: str = "min", T: int = 1000, d: int = 64, beyond: int = 10) -> str:
    """With every pair in use: the lowest (or highest) normalised score past ``beyond``."""
    far = _recency_by_distance(T, d, 0)[beyond:]
    return f"{(far.min() if end == 'min' else far.max()):.2f}"


@value("notes-recency-loss-56", d0=56)
@value("notes-recency-loss-62", d0=62)
def notes_recency_loss(d0: int = 56, T: int = 1000, d: int = 64) -> str:
    """How much of its score, in percent, the farthest key loses when the head keeps the
    pairs from ``d0 / 2`` on."""
    return f"{100 * (1 - _recency_by_distance(T, d, d0)[-1]):.1f}"


@value("notes-slowest-frequency")
def notes_slowest_frequency(d: int = 64) -> str:
    """The frequency of the slowest pair (TeX)."""
    return times_ten(frequencies(d)[-1], 2)


@value("notes-slowest-turn")
def notes_slowest_turn(T: int = 1000, d: int = 64) -> str:
    """How far, in radians, the slowest pair turns over T - 1 tokens."""
    return f"{(T - 1) * frequencies(d)[-1]:.3f}"


@value("notes-slowest-cos")
def notes_slowest_cos(T: int = 1000, d: int = 64) -> str:
    """The cosine of that angle."""
    return f"{np.cos((T - 1) * frequencies(d)[-1]):.3f}"


@value("notes-slowest-drop")
def notes_slowest_drop(T: int = 1000, d: int = 64) -> str:
    """The drop 1 - cos of that angle, in percent."""
    return f"{100 * (1 - np.cos((T - 1) * frequencies(d)[-1])):.1f}"


@value("notes-flatness-0", d0=0)
@value("notes-flatness-32", d0=32)
@value("notes-flatness-48", d0=48)
@value("notes-flatness-56", d0=56)
@value("notes-flatness-62", d0=62)
def notes_flatness(d0: int = 0) -> str:
    """Experiment 3: the spread (max - min) / max of the last query's scores."""
    scores = semantic_head_experiment(d0_values=(d0,))[d0]
    return f"{np.ptp(scores) / scores.max():.3f}"


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
