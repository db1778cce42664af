r"""Figures of the research-notes pages (Chris Wendler's notes on RoPE).

Each figure reads the arrays of ``rope_explained.experiments``; nothing here recomputes an
experiment.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps

from ..experiments import (
    d0_sweep_values,
    pair_horizons,
    previous_token_experiment,
    previous_token_scores,
    semantic_head_experiment,
    semantic_head_inputs,
    semantic_recency,
    stable_pair_count,
)
from . import register
from .style import COLORS, SEQUENTIAL, new_figure

_D0_LABELS = (r"$d_0 = 0$", r"$d_0 = d/2$", r"$d_0 = d - d/4$", r"$d_0 = d - d/8$", r"$d_0 = d-2$")


def _masked_attention_cmap():
    # the masked (future) half: light grey, not a colour of the scale
    return colormaps[SEQUENTIAL].with_extremes(bad="#e6e6e6")


@register(
    "notes-previous-token-patterns",
    page="notes/position-only-heads.md",
    caption=(
        r"Experiment 1 reproduced: the attention pattern \(A_{m,n}\) of the hand-built "
        r"previous-token head for \(\alpha = 1, 10, 100\) (sequence length 20, \(D = 768\), "
        r"\(d = 64\), random inputs with a constant first coordinate). Grey cells are hidden "
        r"by the causal mask. At \(\alpha = 1\) the weight is spread over a few neighbours; "
        r"from \(\alpha = 10\) on, every query puts practically all of it on position \(m-1\)."
    ),
    alt=(
        "Three square heatmaps side by side, query position m down, key position n across, "
        "upper triangle grey. For alpha 1 the band just below the diagonal is green "
        "(about 0.6) with faint blue on its two sides; for alpha 10 and alpha 100 only the "
        "cells directly below the diagonal are yellow (weight 1) and all others dark."
    ),
    alphas=(1.0, 10.0, 100.0),
    T=20,
    D=768,
    d=64,
)
def previous_token_patterns(alphas=(1.0, 10.0, 100.0), T=20, D=768, d=64):
    """Experiment 1: the three attention patterns, masked above the diagonal."""
    patterns = previous_token_experiment(alphas=alphas, T=T, D=D, d=d)
    fig, axes = new_figure(1, len(patterns), width=7.2, height=2.7, layout="constrained")
    axes = np.atleast_1d(axes)
    future = ~np.tril(np.ones((T, T), dtype=bool))
    cmap = _masked_attention_cmap()
    ticks = np.arange(0, T, 5)
    for ax, (alpha, A) in zip(axes, patterns.items(), strict=True):
        im = ax.imshow(np.ma.masked_array(A, future), cmap=cmap, vmin=0.0, vmax=1.0)
        ax.set_title(rf"$\alpha = {alpha:g}$", fontsize=12)
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
        ax.set_xlabel(r"key position $n$")
    axes[0].set_ylabel(r"query position $m$")
    cbar = fig.colorbar(im, ax=list(axes), shrink=0.8)
    cbar.set_label(r"attention weight $A_{m,n}$")
    return fig


@register(
    "notes-previous-token-scores",
    page="notes/position-only-heads.md",
    caption=(
        r"Why \(\alpha\) matters: the score per unit \(\alpha\), "
        r"\(\sum_i \cos((n-m+1)\theta_i)\), that query \(m\) gives key \(n\), for \(d = 64\). "
        r"It peaks at \(d/2 = 32\) on the previous token and is only about 1.08 lower on its "
        r"two neighbours, \(n = m\) and \(n = m-2\); the softmax turns that gap into a sharp "
        r"choice only once it is multiplied by a large \(\alpha\)."
    ),
    alt=(
        "Line plot with markers: score per unit alpha against the offset n minus m from -19 "
        "to 0. The curve wanders between about 19 and 24 for offsets -19 to -5, climbs to a "
        "marked peak of 32 at offset -1 and drops back to about 31 at offset 0."
    ),
    T=20,
    d=64,
)
def previous_token_score_profile(T=20, d=64):
    """The layer-0 score per unit alpha against the offset n - m (Experiment 1's logits)."""
    offsets = np.arange(-(T - 1), 1)  # n - m for the keys a query can see
    scores = previous_token_scores(offsets + 1, d=d)  # the query looks one step back
    fig, ax = new_figure(height=3.4)
    ax.plot(offsets, scores, "o-", color=COLORS[0], ms=4)
    peak = int(np.argmax(scores))
    ax.plot(offsets[peak], scores[peak], "o", ms=10, mfc="none", mec=COLORS[5], mew=2)
    ax.annotate(
        rf"$n = m-1$: score $d/2 = {scores[peak]:.0f}$",
        (offsets[peak], scores[peak]),
        xytext=(-12.5, scores[peak] - 2),
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    ax.set_xlabel(r"offset $n - m$ of the key from the query")
    ax.set_ylabel(r"$q_m^T k_n / \alpha$")
    ax.set_xticks(np.arange(-(T - 1) + (T - 1) % 3, 1, 3))
    ax.grid(alpha=0.3)
    return fig


@register(
    "notes-semantic-recency",
    page="notes/semantic-heads.md",
    caption=(
        r"The recency bias of a content-only head: every position holds the same random "
        r"vector, so without RoPE all keys would score alike. With RoPE the last query's score, "
        r"divided by its score against itself, falls with the distance \(m - n\). Keeping only "
        r"the slow pairs (larger \(d_0\)) flattens the curve; the lower panel zooms in on the "
        r"top 2 %: over 999 tokens the four slowest pairs lose 1.9 % and the slowest pair "
        r"alone 0.9 %. The distance axis is logarithmic beyond 1."
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
    page="notes/semantic-heads.md",
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


@register(
    "notes-rope-bottleneck",
    page="notes/open-questions.md",
    caption=(
        r"The RoPE bottleneck in numbers. Left: for each pair \(i\) of a \(d = 64\) head "
        r"(base 10000), the largest distance \(L_i = \arccos(0.9)/\theta_i\) over which its "
        r"factor \(\cos(\Delta\theta_i)\) stays at least 0.9. Right: how many coordinates "
        r"(twice the number of such pairs) stay within that tolerance over a whole window of "
        r"\(L\) tokens, for this site's head and for head sizes and bases like those of "
        r"Llama 2 (\(d = 128\), base \(10^4\)) and Llama 3 (\(d = 128\), base \(5\cdot10^5\))."
    ),
    alt=(
        "Two panels. Left: bar chart on a log scale, pair index 0 to 31 across, horizon in "
        "tokens up, rising from about 0.45 for pair 0 to about 3400 for pair 31, with "
        "dashed lines at 100, 1000 and 10000 tokens. Right: step curves of usable "
        "coordinates against window length from 1 to 100000 tokens (log axis), all falling "
        "as the window grows; for d = 64 they are 26 at 100 tokens, 10 at 1000 and 0 at "
        "10000 tokens."
    ),
    d=64,
    base=10000.0,
    min_cos=0.9,
)
def rope_bottleneck(d=64, base=10000.0, min_cos=0.9):
    """Per-pair horizons and the number of position-blind coordinates per window length."""
    horizons = pair_horizons(d, base, min_cos)
    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.6, layout="constrained")
    i = np.arange(d // 2)
    ax0.bar(i, horizons, color=COLORS[0], width=0.8)
    ax0.set_yscale("log")
    for L in (100, 1000, 10000):
        ax0.axhline(L, color="0.35", lw=0.9, ls="--")
        ax0.text(0.5, L * 1.15, f"{L:,} tokens", fontsize=11, color="0.25")
    ax0.set_ylim(0.1, 3e4)
    ax0.set_xlabel(r"pair $i$ (slowest on the right)")
    ax0.set_ylabel(r"horizon $L_i$ (tokens)")

    lengths = np.unique(np.round(np.logspace(0, 5, 400)))
    setups = (
        (d, base, rf"$d = {d}$, base $10^4$ (this site)"),
        (128, 10000.0, r"$d = 128$, base $10^4$"),
        (128, 500000.0, r"$d = 128$, base $5\cdot 10^5$"),
    )
    for color, (dd, bb, label) in zip(COLORS, setups, strict=False):
        count = 2 * stable_pair_count(lengths, d=dd, base=bb, min_cos=min_cos)
        ax1.step(lengths, count, where="post", color=color, lw=1.8, label=label)
    ax1.set_xscale("log")
    ax1.set_xlim(1, 1e5)
    ax1.set_ylim(-3, 175)
    ax1.set_yticks(np.arange(0, 121, 20))
    ax1.set_xlabel(r"window $L$ (tokens)")
    ax1.set_ylabel(r"usable coordinates $d_\mathrm{semantic}$")
    ax1.legend(fontsize=11, loc="upper right")
    ax1.grid(alpha=0.3)
    return fig
