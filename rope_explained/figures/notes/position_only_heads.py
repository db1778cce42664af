r"""Figures of the research-notes page on position-only heads (Chris Wendler's Experiment 1).

Each figure reads the arrays of ``rope_explained.experiments``; nothing here recomputes an
experiment.
"""

from __future__ import annotations

import numpy as np

from ...examples import LONG_PROMPT
from ...experiments import (
    NOTES_D,
    previous_token_experiment,
    previous_token_scores,
)
from ...model import DEFAULT, forward
from .. import floor_to, register, setting_text, times_ten, value
from ..style import COLORS, attention_heatmap, new_figure

_D0_LABELS = (r"$d_0 = 0$", r"$d_0 = d/2$", r"$d_0 = d - d/4$", r"$d_0 = d - d/8$", r"$d_0 = d-2$")


@register(
    "notes-previous-token-patterns",
    caption=(
        r"Experiment 1 reproduced: the attention pattern \(A_{m,n}\) of the hand-built "
        r"previous-token head for \(\alpha = 1, 10, 100\) (sequence length 20, \(D = 768\), "
        r'\(d = {{ value("position-setting-d") }}\), random inputs with a constant first '
        r"coordinate). Grey, hatched cells are "
        r"hidden by the causal mask. At \(\alpha = 1\) the weight is spread over a few neighbours; "
        r"from \(\alpha = 10\) on, every query puts practically all of it on position \(m-1\). "
        r"Drawn with the site's frequencies \(10000^{-2i/d}\); with those of Wendler's notes, "
        r"\(10^{-8i/(d-2)}\), no weight changes by more than "
        r'{{ value("notes-schedule-pattern-gap") }}.'
    ),
    alt=(
        "Three square heatmaps side by side, query position m down, key position n across, "
        "upper triangle grey and hatched. For alpha 1 the band just below the diagonal is green "
        "(about 0.6) with faint blue on its two sides; for alpha 10 and alpha 100 only the "
        "cells directly below the diagonal are yellow (weight 1) and all others dark."
    ),
    alphas=(1.0, 10.0, 100.0),
    T=20,
    D=NOTES_D,
    d=DEFAULT.d,
)
def previous_token_patterns(alphas=(1.0, 10.0, 100.0), T=20, D=NOTES_D, d=DEFAULT.d):
    """Experiment 1: the three attention patterns, masked above the diagonal."""
    patterns = previous_token_experiment(alphas=alphas, T=T, D=D, d=d)
    fig, axes = new_figure(1, len(patterns), width=7.2, height=2.7, layout="constrained")
    axes = np.atleast_1d(axes)
    causal = np.tri(T, dtype=bool)
    for ax, (alpha, A) in zip(axes, patterns.items(), strict=True):
        im = attention_heatmap(ax, A, causal)
        ax.set_title(rf"$\alpha = {alpha:g}$", fontsize=12)
    for ax in axes[1:]:
        ax.set_ylabel("")
    cbar = fig.colorbar(im, ax=list(axes), shrink=0.8)
    cbar.set_label(r"attention weight $A_{m,n}$")
    return fig


@register(
    "notes-previous-token-scores",
    caption=(
        r"Why \(\alpha\) matters: the score per unit \(\alpha\), "
        r"\(\sum_i \cos((n-m+1)\theta_i)\), that query \(m\) gives key \(n\), for "
        r'\(d = {{ value("position-setting-d") }}\). '
        r"It peaks at \(d/2 = 32\) on the previous token and is only about "
        r'{{ value("notes-score-gap") }} lower on its two neighbours, \(n = m\) and '
        r"\(n = m-2\); the softmax turns that gap into a sharp choice only once it is "
        r"multiplied by a large \(\alpha\)."
    ),
    alt=(
        "Line plot with markers: score per unit alpha against the offset n minus m from -19 "
        "to 0. The curve wanders between about 19 and 24 for offsets -19 to -5, climbs to a "
        "marked peak of 32 at offset -1 and drops back to about 31 at offset 0."
    ),
    T=20,
    d=DEFAULT.d,
)
def previous_token_score_profile(T=20, d=DEFAULT.d):
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


# Values the page states ------------------------------------------------------------------------


def _gap(d: int) -> float:
    """How far the previous token's two neighbours trail it, per unit alpha."""
    peak, side = previous_token_scores(np.array([0.0, 1.0]), d=d)
    return float(peak - side)


@value("notes-neighbour-score")
def notes_neighbour_score(d: int = DEFAULT.d) -> str:
    """The score per unit alpha of the previous token's neighbours, sum_i cos(theta_i)."""
    return f"{previous_token_scores(np.array([1.0]), d=d)[0]:.2f}"


@value("notes-score-gap")
def notes_score_gap(d: int = DEFAULT.d) -> str:
    """How far the neighbours trail the peak d/2, per unit alpha."""
    return f"{_gap(d):.2f}"


@value("notes-gap-exponent-10", alpha=DEFAULT.alpha, decimals=1)
@value("notes-gap-exponent-100", alpha=100.0, decimals=0)
def notes_gap_exponent(alpha: float = DEFAULT.alpha, decimals: int = 1, d: int = DEFAULT.d) -> str:
    """The score gap at sharpness ``alpha``, the exponent of the neighbours' weight ratio."""
    return f"{alpha * _gap(d):.{decimals}f}"


@value("notes-two-neighbours-estimate")
def notes_two_neighbours_estimate(alpha: float = DEFAULT.alpha, d: int = DEFAULT.d) -> str:
    """The estimate 2 e^(-alpha gap) of the weight the two neighbours get together (TeX)."""
    return times_ten(2 * np.exp(-alpha * _gap(d)), 0)


@value("notes-mean-weight-1", alpha=1.0, decimals=3)
@value("notes-mean-weight-10", alpha=DEFAULT.alpha, decimals=5)
@value("notes-mean-weight-wendler-1", alpha=1.0, decimals=3, schedule="wendler")
@value("notes-mean-weight-wendler-10", alpha=DEFAULT.alpha, decimals=5, schedule="wendler")
def notes_mean_weight(alpha: float = 1.0, decimals: int = 3, schedule: str = "standard") -> str:
    """Experiment 1: the weight on the previous token, averaged over the queries that have one."""
    A = previous_token_experiment(schedule=schedule)[alpha]
    return f"{np.diag(A, k=-1).mean():.{decimals}f}"


@value("notes-left-weight-wendler-10", alpha=DEFAULT.alpha)
def notes_left_weight_wendler(alpha: float = DEFAULT.alpha) -> str:
    """Experiment 1 under Wendler's schedule: the mean weight left off the previous token (TeX)."""
    A = previous_token_experiment(schedule="wendler")[alpha]
    return times_ten(1 - np.diag(A, k=-1).mean(), 0)


@value("notes-schedule-pattern-gap")
def notes_schedule_pattern_gap(alpha: float = 1.0) -> str:
    """Experiment 1 at ``alpha``: the largest difference, over all cells, between the
    patterns of the two schedules, rounded up to two decimals."""
    gap = np.abs(
        previous_token_experiment(schedule="wendler")[alpha]
        - previous_token_experiment(schedule="standard")[alpha]
    ).max()
    return f"{np.ceil(gap * 100) / 100:.2f}"


@value("notes-left-weight-10", alpha=DEFAULT.alpha)
def notes_left_weight(alpha: float = DEFAULT.alpha) -> str:
    """Experiment 1: the mean weight left off the previous token (TeX)."""
    return times_ten(1 - np.diag(previous_token_experiment()[alpha], k=-1).mean(), 0)


@value("notes-spill-1")
def notes_spill(alpha: float = 1.0) -> str:
    """Experiment 1: the weight a late query (m >= T/2) gives itself, the most of any."""
    A = previous_token_experiment()[alpha]
    T = len(A)
    return f"{max(A[m, m] for m in range(T // 2, T)):.2f}"


@value("notes-model-min-weight")
def notes_model_min_weight(text: str = LONG_PROMPT) -> str:
    """The smallest weight layer 0 of the site's model puts on the previous token, rounded
    down, on the longest prompt the playground takes."""
    return floor_to(np.diag(forward(text).A0, k=-1).min(), 5)


# Values of the exercises -------------------------------------------------------------------------

EXERCISE_SHARE = 0.01
"""The exercise's limit on what the two neighbours may keep together, relative to the previous
token."""
EXERCISE_WINDOW = 100
"""How far back the exercise on a doubled key looks (distances 2 to this)."""


@value("notes-ex-position-gap-128", d=128)
@value("notes-ex-position-gap-wendler", schedule="wendler")
def ex_gap(d: int = DEFAULT.d, schedule: str = "standard") -> str:
    """How far the previous token's neighbours trail it, per unit alpha, for a head of ``d``
    under ``schedule``."""
    peak, side = previous_token_scores(np.array([0.0, 1.0]), d=d, schedule=schedule)
    return f"{peak - side:.2f}"


@value("notes-ex-position-alpha-64", d=DEFAULT.d)
@value("notes-ex-position-alpha-128", d=128)
def ex_alpha(d: int = DEFAULT.d, share: float = EXERCISE_SHARE) -> str:
    """The smallest sharpness alpha at which the two neighbours together keep at most
    ``share`` of the previous token's weight, 2 exp(-alpha gap) <= share, rounded up."""
    from .. import ceil_to

    return ceil_to(np.log(2 / share) / _gap(d), 1)


@value("notes-ex-position-share")
def ex_share() -> str:
    """The limit, in percent."""
    return f"{100 * EXERCISE_SHARE:.0f}"


@value("notes-ex-position-doubled-wins")
def ex_doubled_wins(d: int = DEFAULT.d, window: int = EXERCISE_WINDOW) -> str:
    """At how many distances 2..window a key of twice the length, 2c, outscores the previous
    token's key c: 2 S(delta) > d/2, with S the score per unit alpha."""
    delta = np.arange(2, window + 1)
    S = previous_token_scores(1.0 - delta, d=d)  # the offset n - m + 1 = 1 - delta
    return str(int(np.count_nonzero(2 * S > d / 2)))


@value("notes-ex-position-window")
def ex_window() -> str:
    return str(EXERCISE_WINDOW)


@value("position-setting-d", name="d")
@value("position-setting-alpha", name="alpha")
def position_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
