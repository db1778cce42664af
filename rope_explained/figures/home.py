r"""Figures of the home page: the induction circuit at a glance, read from one forward pass."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ..embedding import BOS, VOCAB, letter_angle, plane_reader
from ..examples import FORWARD_PASS_PROMPT
from ..model import Trace
from . import register
from .forward_pass import example_trace
from .style import COLORS, new_figure

MIN_WEIGHT = 0.1
"""Attention weights below this are not drawn (they would be invisible anyway)."""


def decode_letter(tr: Trace, vec: np.ndarray) -> str:
    r"""The letter whose embedding a slot holds, read through the plane reader \(P\).

    Returns ``"·"`` when the slot is (nearly) empty, as for the start token.
    """
    x, y = plane_reader(tr.config.d) @ vec  # (cos a, sin a) times the slot's weight
    if np.hypot(x, y) < 0.5:
        return "·"
    angles = np.array([letter_angle(t) for t in VOCAB])
    gap = np.angle(np.exp(1j * (angles - np.arctan2(y, x))))
    return VOCAB[int(np.argmin(np.abs(gap)))]


def _box(ax, x, y, text, *, face="white", edge="0.35", color="black", bold=False, size=12):
    ax.add_patch(
        FancyBboxPatch(
            (x - 0.34, y - 0.22),
            0.68,
            0.44,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=face,
            edgecolor=edge,
            linewidth=1.2,
            zorder=3,
        )
    )
    ax.text(
        x,
        y,
        text,
        ha="center",
        va="center",
        fontsize=size,
        color=color,
        fontweight="bold" if bold else "normal",
        zorder=4,
    )


def _arrow(ax, n, y0, m, y1, weight, color, lw, rad):
    ax.add_patch(
        FancyArrowPatch(
            (n, y0 + 0.24),
            (m, y1 - 0.24),
            arrowstyle="-|>",
            mutation_scale=9,
            connectionstyle=f"arc3,rad={rad}",
            color=color,
            alpha=float(np.clip(weight, 0.15, 1.0)),
            linewidth=lw,
            zorder=2,
        )
    )


@register(
    "home-circuit",
    caption=r"The circuit at a glance, computed from one forward pass on the prompt "
    r"`thecatsatonthec`. Bottom row: the tokens. Middle row: what each position holds after "
    r"layer 0, its own letter and (grey) the letter before it, fetched by the previous-token "
    r"head (grey arrows). Top row: the letter layer 1 copied, fetched by the induction head "
    r"(blue arrows, darker for larger weight); grey letters mark positions whose letter has not "
    r"occurred before, where the head has nothing to match. The path that produces the "
    r"prediction is drawn in red-orange.",
    alt="Diagram with 16 columns, one per position, and three rows of boxes. Bottom: the tokens "
    "start, t h e c a t s a t o n t h e c. Middle: each position's letter with the previous "
    "letter beside it, each fed by a short arrow from the position to its left. Top: the "
    "letter copied by the induction head, fed by arrows from earlier positions. Highlighted "
    "path: c at position 4 is copied into position 5 by layer 0, layer 1 at the last position "
    "(c) attends to position 5 and copies a, and the prediction box above says a with "
    "probability 0.90.",
    text=FORWARD_PASS_PROMPT,
)
def home_circuit(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    s = tr.slots
    T = len(tr.tokens)
    last = T - 1
    target = int(np.argmax(tr.A1[last]))  # where the induction head looks from the last position
    source = int(np.argmax(tr.A0[target]))  # where layer 0 fetched that position's previous letter
    hot = COLORS[5]
    p = tr.probs[last]
    best = int(np.argmax(p))

    fig, ax = new_figure(width=7.2, height=5.0)
    ys = (0.0, 1.3, 3.2)
    # residual stream: each position's column carries its state upwards
    for m in range(T):
        ax.plot([m, m], [ys[0], ys[2]], color=hot if m == last else "0.85", linewidth=1.5,
                zorder=1)  # fmt: skip
    # layer-0 arrows: h^(0)_n -> h^(1)_m with weight A0[m, n]
    for m in range(T):
        for n in range(m):  # n = m is the residual line itself
            w = tr.A0[m, n]
            if w >= MIN_WEIGHT:
                on_path = (m, n) == (target, source)
                _arrow(ax, n, ys[0], m, ys[1], w, hot if on_path else "0.45",
                       2.4 if on_path else 1.1, 0.0)  # fmt: skip
    # layer-1 arrows: h^(1)_n -> h^(2)_m with weight A1[m, n]
    for m in range(T):
        for n in range(m):
            w = tr.A1[m, n]
            if w >= MIN_WEIGHT:
                on_path = (m, n) == (last, target)
                _arrow(ax, n, ys[1], m, ys[2], w, hot if on_path else COLORS[0],
                       2.6 if on_path else 1.1, 0.0)  # fmt: skip
    # boxes
    for m, t in enumerate(tr.tokens):
        on = m in (source, target, last)
        _box(ax, m, ys[0], "<s>" if t == BOS else t, size=9 if t == BOS else 12,
             edge=hot if on else "0.35", bold=on)  # fmt: skip
        prev = decode_letter(tr, tr.h1[m, s.prev])
        cur = "·" if t == BOS else t
        _box(ax, m, ys[1], "", edge=hot if m in (target, last) else "0.35")
        ax.text(m - 0.14, ys[1], prev, ha="center", va="center", fontsize=10, color="0.45",
                zorder=4)  # fmt: skip
        ax.text(m + 0.13, ys[1], cur, ha="center", va="center", fontsize=12, zorder=4)
        copied = decode_letter(tr, tr.h2[m, s.out])
        n = int(np.argmax(tr.A1[m]))
        match = n >= 1 and t != BOS and tr.tokens[n - 1] == t  # a true induction match
        color = hot if m == last else ("black" if match else "0.6")
        _box(ax, m, ys[2], copied, edge=hot if m == last else "0.35", bold=m == last,
             color=color, face="white" if match else "0.95")  # fmt: skip
    # prediction
    ax.annotate(
        f"next letter: {tr.vocab[best]}   (P = {p[best]:.2f})",
        xy=(last, ys[2] + 0.24),
        xytext=(last - 0.2, ys[2] + 0.95),
        ha="right",
        va="center",
        fontsize=12,
        color=hot,
        fontweight="bold",
        arrowprops={"arrowstyle": "-|>", "color": hot, "linewidth": 2,
                    "connectionstyle": "angle,angleA=0,angleB=90"},
    )  # fmt: skip
    # row names
    names = (
        "tokens $t_m$",
        "after layer 0\n(previous, own)",
        "after layer 1\n(copied letter)",
    )
    for y, name in zip(ys, names, strict=True):
        ax.text(-0.6, y, name, ha="right", va="center", fontsize=11)
    ax.text((T - 1) / 2, (ys[0] + ys[1]) / 2, "", ha="center")
    ax.set_xlim(-3.6, T - 0.4)
    ax.set_ylim(-0.55, ys[2] + 1.25)
    ax.set_xticks(np.arange(T), [str(m) for m in range(T)], fontsize=9)
    ax.set_xlabel(r"position $m$")
    ax.set_yticks([])
    for side in ("left", "top", "right"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_bounds(0, T - 1)
    return fig
