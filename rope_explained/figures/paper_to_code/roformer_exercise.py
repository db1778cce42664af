r"""Figures of the exercise version of the paper-to-code notebook."""

from __future__ import annotations

import numpy as np

from ...model import DEFAULT
from ...rope import apply_rope, frequencies
from .. import register
from ..style import COLORS, new_figure


@register(
    "paper-exercise-pair-rotation",
    caption=r"What apply_rope does to one pair of coordinates \((x_{2i}, x_{2i+1})\), here "
    r"starting at \((1, 0)\), for positions \(m = 0, \ldots, 5\) (\(d = 64\), base 10000). "
    r"Left: pair \(i = 0\) turns by \(\theta_0 = 1\) radian per position. Right: pair "
    r"\(i = 8\) turns by \(\theta_8 = 0.1\) radian per position. The length never changes.",
    alt="Two unit circles with six arrows each, for m = 0 to 5. Left: the arrows are spread "
    "around the circle, one radian apart. Right: the arrows are bunched together, a tenth of a "
    "radian apart, near the positive horizontal axis; only m = 0 and m = 5 are labelled.",
    d=DEFAULT.d,
    pairs=(0, 8),
    n_positions=6,
)
def exercise_pair_rotation(d=DEFAULT.d, pairs=(0, 8), n_positions=6):
    m = np.arange(n_positions)
    x = np.zeros((n_positions, d))
    x[:, 0::2] = 1.0  # every pair starts at (1, 0)
    rotated = apply_rope(x, m)  # (positions, d)
    theta = frequencies(d)
    fig, axes = new_figure(1, len(pairs), width=7.2, height=3.8)
    circle = np.linspace(0, 2 * np.pi, 200)
    for ax, i in zip(axes, pairs, strict=True):
        ax.plot(np.cos(circle), np.sin(circle), color="0.75", lw=1)
        for pos in m:
            a, b = rotated[pos, 2 * i], rotated[pos, 2 * i + 1]
            color = COLORS[pos % len(COLORS)]
            ax.annotate(
                "",
                xy=(a, b),
                xytext=(0, 0),
                arrowprops={"arrowstyle": "-|>", "color": color, "lw": 1.8},
            )
            if theta[i] > 0.3 or pos in (0, m[-1]):  # slow pairs: label the ends only
                ax.text(
                    1.16 * a,
                    1.16 * b,
                    f"$m={pos}$",
                    ha="center",
                    va="center",
                    fontsize=11,
                    color=color,
                )
        ax.set_aspect("equal")
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.35)
        ax.set_xlabel(rf"$x_{{{2 * i}}}$")
        ax.set_ylabel(rf"$x_{{{2 * i + 1}}}$")
        ax.set_title(rf"pair $i={i}$, $\theta_{{{i}}} = {theta[i]:.3g}$", fontsize=12)
    return fig
