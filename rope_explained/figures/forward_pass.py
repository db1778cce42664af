r"""Figures of the forward-pass page: the eleven panels, all read from one traced forward pass.

Every panel calls [`example_trace`][], which runs [`rope_explained.model.forward`][] once on
[`FORWARD_PASS_PROMPT`][] (and caches the result), so the eleven pictures are eleven views of the
same computation.
"""

from __future__ import annotations

import functools

import matplotlib as mpl
import numpy as np
from matplotlib.patches import Rectangle

from ..embedding import BOS, letter_angle
from ..examples import FORWARD_PASS_PROMPT
from ..model import DEFAULT, Trace, forward
from . import floor_to, register, setting_text, value
from .style import COLORS, DIVERGING, SEQUENTIAL, attention_heatmap, centred_norm, new_figure


# --8<-- [start:trace]
@functools.lru_cache(maxsize=8)
def example_trace(text: str = FORWARD_PASS_PROMPT) -> Trace:
    """The forward pass the panels read (cached: one trace per prompt)."""
    return forward(text)


# --8<-- [end:trace]


def position_labels(tokens: list[str]) -> list[str]:
    """Tick labels ``"m t"`` for positions: the position number and its token."""
    return [f"{m} {t}" for m, t in enumerate(tokens)]


def _row_ticks(ax, tokens: list[str]) -> None:
    ax.set_yticks(np.arange(len(tokens)), position_labels(tokens), fontsize=10)
    ax.set_ylabel(r"position $m$ and its token")


def _vector_heatmap(
    ax, values: np.ndarray, tokens: list[str], *, norm=None, cmap=DIVERGING, col_offset: int = 0
):
    """Positions down, coordinates across, signed values in a diverging map centred at 0."""
    norm = norm if norm is not None else centred_norm(values)
    T, n = values.shape
    im = ax.imshow(
        values,
        cmap=cmap,
        norm=norm,
        aspect="auto",
        interpolation="nearest",
        extent=(col_offset - 0.5, col_offset + n - 0.5, T - 0.5, -0.5),
    )
    _row_ticks(ax, tokens)
    return im


def _frame(ax, col: int, row: int, *, width: int = 1, linewidth: float, color=COLORS[5]) -> None:
    """Outline heatmap cells ``row, col .. col + width - 1`` (to point at what the text names)."""
    ax.add_patch(
        Rectangle(
            (col - 0.5, row - 0.5),
            width,
            1,
            fill=False,
            edgecolor=color,
            linewidth=linewidth,
            zorder=3,
        )
    )


def _pattern(ax, A: np.ndarray, tokens: list[str], mask: np.ndarray, *, cmap=SEQUENTIAL, norm=None):
    """An attention-like (T, T) matrix (the site's heatmap), letters on both axes and the rows
    labelled "position letter"."""
    im = attention_heatmap(ax, A, mask, tokens=tokens, cmap=cmap, norm=norm)
    T = len(tokens)
    ax.set_xticks(np.arange(T), tokens, fontsize=10)
    ax.set_yticks(np.arange(T), position_labels(tokens), fontsize=10)
    ax.tick_params(axis="x", labelrotation=0)
    return im


# 1 ---------------------------------------------------------------------------------------------
@register(
    "fp-embedding",
    caption=r"Step 1, the embedding: row \(m\) is \(E[t_m]\), the letter's 64 numbers as they "
    r"sit in the `tok` slot of \(h^{(0)}_m\). Rows of the same letter are identical; the start "
    r"token `<s>` is the zero vector.",
    alt="Heatmap, 16 positions down (the start token then t h e c a t s a t o n t h e c), 64 "
    "coordinates across, red positive and blue negative values between -0.5 and 0.5; each row "
    "is a sine wave along the coordinates whose phase depends on the letter, and the first row "
    "is white (zero).",
    text=FORWARD_PASS_PROMPT,
)
def fp_embedding(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    tok = tr.h0[:, tr.slots.tok]  # (T, d)
    fig, ax = new_figure(height=4.6)
    im = _vector_heatmap(ax, tok, tr.tokens)
    ax.set_xlabel(r"coordinate $j$ of $E[t_m]$")
    fig.colorbar(im, ax=ax, label=r"$E[t_m]_j$")
    return fig


# 2 ---------------------------------------------------------------------------------------------
@register(
    "fp-keys",
    caption=r"Step 2, layer-0 keys \(k^{(0)}_n = R_{\Theta,n}\,c\): the same constant vector "
    r"\(c = (1,0,1,0,\ldots)\) turned by each position. The fast pairs (left) spin visibly "
    r"from row to row; the slow pairs (right) barely move. The letters play no part.",
    alt="Heatmap, 16 positions down, 64 key coordinates across, values between -1 and 1 in a "
    "red-blue map; row 0 alternates 1, 0 across; in lower rows the left columns oscillate "
    "quickly between red and blue while the right columns stay close to the pattern of row 0.",
    text=FORWARD_PASS_PROMPT,
)
def fp_keys(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    fig, ax = new_figure(height=4.6)
    im = _vector_heatmap(ax, tr.k0, tr.tokens)
    ax.set_xlabel(r"coordinate of $k^{(0)}_n$ (pair $i$ = coordinates $2i, 2i{+}1$)")
    fig.colorbar(im, ax=ax, label=r"$k^{(0)}_{n}$ entry")
    return fig


# 3 ---------------------------------------------------------------------------------------------
@register(
    "fp-queries",
    caption=r"Step 3, layer-0 queries \(q^{(0)}_m = \alpha R_{\Theta,m-1}\,c\) with "
    r"\(\alpha = 10\). Row \(m\) here is row \(m-1\) of the keys, ten times larger: the query "
    r"is built to look exactly like the key one step back.",
    alt="Heatmap, 16 positions down, 64 query coordinates across, values between -10 and 10 in "
    "a red-blue map; the pattern is that of the key heatmap moved down by one row, and row 0 "
    "corresponds to rotating c back by one step.",
    text=FORWARD_PASS_PROMPT,
)
def fp_queries(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    fig, ax = new_figure(height=4.6)
    im = _vector_heatmap(ax, tr.q0, tr.tokens)
    ax.set_xlabel(r"coordinate of $q^{(0)}_m$")
    fig.colorbar(im, ax=ax, label=r"$q^{(0)}_{m}$ entry")
    return fig


# 4 ---------------------------------------------------------------------------------------------
@register(
    "fp-scores",
    caption=r"Step 4, layer-0 scores \(q^{(0)T}_m k^{(0)}_n\) for every key the query may see. "
    r'The largest value in every row, \(\alpha\,d/2 = {{ value("fp-best-score") }}\), sits just '
    r"left of the diagonal at \(n = m-1\) (framed); its neighbours reach only "
    r'{{ value("fp-side-score") }}. Hatched cells are future keys, hidden by the causal mask.',
    alt="Square heatmap of scores with the value written in each cell, query position down and "
    'key position across, dark blue near 200 to yellow at {{ value("fp-best-score") }}; in every '
    'row the framed cell just below the diagonal holds {{ value("fp-best-score") }} and its '
    'neighbours {{ value("fp-side-score") }}, and the scores fall further away; cells above the '
    "diagonal are grey and hatched.",
    text=FORWARD_PASS_PROMPT,
)
def fp_scores(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    mask = tr.mask
    visible = np.where(mask, tr.scores0, np.nan)
    if np.nanmin(visible) >= 0:  # non-negative here: a sequential map over the visible range
        norm = mpl.colors.Normalize(vmin=np.nanmin(visible), vmax=np.nanmax(visible))
        cmap = "cividis"
    else:
        norm, cmap = centred_norm(visible), DIVERGING
    fig, ax = new_figure(height=5.6)
    im = _pattern(ax, tr.scores0, tr.tokens, mask, cmap=cmap, norm=norm)
    T = len(tr.tokens)
    for m in range(T):
        best = int(np.nanargmax(visible[m]))
        for n in range(m + 1):
            v = tr.scores0[m, n]
            light = norm(v) < 0.6
            ax.text(
                n,
                m,
                f"{v:.0f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if light else "black",
                fontweight="bold" if n == best else "normal",
            )
        _frame(ax, best, m, linewidth=2.0)
    fig.colorbar(im, ax=ax, label=r"score $q^{(0)T}_m k^{(0)}_n$", shrink=0.9)
    return fig


# 5 ---------------------------------------------------------------------------------------------
@register(
    "fp-pattern0",
    caption=r"Step 5, the layer-0 pattern \(A^{(0)}_{m,n}\): the causal softmax of the scores. "
    r"Each row is one bright cell at \(n = m-1\): the previous-token head. Position 0 can only "
    r"see itself.",
    alt="Square attention heatmap, viridis colours from 0 (dark purple) to 1 (yellow), query "
    "position down and key position across; a single yellow cell per row just below the "
    "diagonal, every other visible cell dark; the top-left cell is yellow; cells above the "
    "diagonal are grey and hatched.",
    text=FORWARD_PASS_PROMPT,
)
def fp_pattern0(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    fig, ax = new_figure(height=5.6)
    im = _pattern(ax, tr.A0, tr.tokens, tr.mask)
    fig.colorbar(im, ax=ax, label=r"attention weight $A^{(0)}_{m,n}$", shrink=0.9)
    return fig


def _slot_heatmap(fig, ax, tr: Trace, h: np.ndarray, slots: list[tuple[str, slice]], label: str):
    """Side-by-side slots of the residual stream, separated by lines and named on top."""
    blocks = [h[:, s] for _, s in slots]
    values = np.concatenate(blocks, axis=1)  # (T, len(slots) * d)
    im = _vector_heatmap(ax, values, tr.tokens)
    d = tr.config.d
    top = ax.secondary_xaxis("top")
    top.set_xticks([k * d + (d - 1) / 2 for k in range(len(slots))], [n for n, _ in slots])
    top.tick_params(length=0)
    for k in range(1, len(slots)):
        ax.axvline(k * d - 0.5, color="black", linewidth=1.5)
    ax.set_xticks([k * d for k in range(len(slots))] + [len(slots) * d - 1])
    ax.set_xlabel(r"coordinate within the slot ($0 \ldots d-1$, $d = 64$, per slot)")
    ax.set_xticklabels([str(0) for _ in slots] + [str(d - 1)])
    fig.colorbar(im, ax=ax, label=label)
    return im


# 6 ---------------------------------------------------------------------------------------------
@register(
    "fp-output0",
    caption=r"Step 6, the residual stream after layer 0, \(h^{(1)} = h^{(0)} + o^{(0)}\). The "
    r"`tok` slot still holds the current letter; the `prev` slot, written by the head, holds "
    r"the letter before it: the same rows, moved down by one position.",
    alt="Heatmap with two blocks of 64 columns, labelled tok and prev, 16 positions down, "
    "red-blue values; the prev block repeats the tok block shifted down by one row, and its "
    "first two rows are white.",
    text=FORWARD_PASS_PROMPT,
)
def fp_output0(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    s = tr.slots
    fig, ax = new_figure(height=4.6)
    _slot_heatmap(
        fig,
        ax,
        tr,
        tr.h1,
        [(r"tok: $E[t_m]$", s.tok), (r"prev: $o^{(0)}_m \approx E[t_{m-1}]$", s.prev)],
        r"$h^{(1)}_m$ entry",
    )
    return fig


def _circle_panel(
    ax,
    points: np.ndarray,
    tokens: list[str],
    *,
    color: str,
    marker: str,
    highlight: int | None = None,
    ghost: np.ndarray | None = None,
    symbol: str = "n",
) -> None:
    """Points of the slowest RoPE pair on the unit circle, labelled with their positions."""
    t = np.linspace(0, 2 * np.pi, 200)
    ax.plot(np.cos(t), np.sin(t), color="0.8", linewidth=1, zorder=0)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        a = letter_angle(letter)
        ax.text(
            1.27 * np.cos(a),
            1.27 * np.sin(a),
            letter,
            ha="center",
            va="center",
            fontsize=9,
            color="0.45",
        )
        ax.plot(
            [np.cos(a), 1.08 * np.cos(a)], [np.sin(a), 1.08 * np.sin(a)], color="0.7", linewidth=0.8
        )
    if ghost is not None:
        ax.scatter(
            ghost[:, 0],
            ghost[:, 1],
            s=150,
            facecolors="none",
            edgecolors="0.45",
            linewidths=1.2,
            zorder=1,
        )
    step = np.pi / 26  # half the angle between neighbouring letters
    groups: dict[int, list[int]] = {}  # points grouped by the letter they sit at (-1: origin)
    for m, (x, y) in enumerate(points):
        key = -1 if np.hypot(x, y) < 0.05 else int(np.round(np.arctan2(y, x) / step)) % 52
        groups.setdefault(key, []).append(m)
    previous_angle = None
    for key, ms in sorted(groups.items()):
        hit = highlight is not None and highlight in ms
        x, y = points[ms[0]]
        ax.scatter([x], [y], s=55, color=COLORS[5] if hit else color, marker=marker, zorder=3)
        if key < 0:
            ax.text(
                0.0,
                -0.13,
                f"{symbol} = " + ",".join(map(str, ms)) + " (zero)",
                ha="center",
                va="top",
                fontsize=9,
            )
            continue
        a = np.arctan2(y, x)
        near = previous_angle is not None and abs(np.angle(np.exp(1j * (a - previous_angle)))) < 0.3
        r = 0.58 if near else 0.8  # stagger labels of neighbouring letters
        previous_angle = a
        ax.annotate(
            ",".join(map(str, ms)),
            xy=(x, y),
            xytext=(r * np.cos(a), r * np.sin(a)),
            ha="center",
            va="center",
            fontsize=9,
            color=COLORS[5] if hit else "black",
            fontweight="bold" if hit else "normal",
            arrowprops={"arrowstyle": "-", "color": "0.6", "linewidth": 0.8, "shrinkB": 4},
        )
    ax.set_aspect("equal")
    ax.set_xlim(-1.45, 1.45)
    ax.set_ylim(-1.45, 1.45)
    ax.set_xticks([-1, 0, 1])
    ax.set_yticks([-1, 0, 1])


def _slow_pair_figure(
    tr: Trace,
    values: np.ndarray,
    scale: float,
    name: str,
    label: str,
    ghost: np.ndarray | None,
    highlight: int,
):
    d = tr.config.d
    pair = values[:, d - 2 :] / scale  # (T, 2) the only non-zero coordinates
    fig, (ax0, ax1) = new_figure(
        1, 2, height=4.8, width=7.2, gridspec_kw={"width_ratios": [1, 2.1]}
    )
    im = _vector_heatmap(ax0, pair, tr.tokens, norm=centred_norm(np.array([-1.0, 1.0])))
    ax0.set_xticks([0, 1], [f"{d - 2}", f"{d - 1}"])
    ax0.set_xlabel("coordinate")
    for m in range(len(tr.tokens)):
        for j in range(2):
            v = pair[m, j]
            ax0.text(
                j,
                m,
                "0.00" if abs(v) < 0.005 else f"{v:+.2f}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if abs(v) > 0.6 else "black",
            )
    fig.colorbar(im, ax=ax0, label=label, location="bottom", shrink=0.9)
    _circle_panel(
        ax1,
        pair,
        tr.tokens,
        color=COLORS[0],
        marker="o",
        highlight=highlight,
        ghost=ghost,
        symbol="n" if name == "key" else "m",
    )
    ax1.set_xlabel(rf"{name} coordinate {d - 2}")
    ax1.set_ylabel(rf"{name} coordinate {d - 1}")
    return fig


# 7 ---------------------------------------------------------------------------------------------
@register(
    "fp-semantic-keys",
    caption=r"Step 7, layer-1 keys \(k^{(1)}_n\). Only the slowest RoPE pair (coordinates 62 "
    r"and 63) is used; it holds the **previous** letter as a point on the letter circle. Left: "
    r"the two numbers per position. Right: the same keys on the circle, labelled with their "
    r"positions \(n\); position 5 (after the first `c`) is highlighted.",
    alt="Left, a 16 by 2 heatmap of the two non-zero key coordinates with their values written "
    "in the cells. Right, a unit circle with the 26 letters around it; each key is a dot at the "
    "angle of the letter before it, labelled with its positions, for example 2,7,10,13 at the "
    "letter t; positions 0 and 1 sit at the centre because they have no previous letter.",
    text=FORWARD_PASS_PROMPT,
)
def fp_semantic_keys(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    target = _induction_target(tr)
    return _slow_pair_figure(tr, tr.k1, 1.0, "key", r"$k^{(1)}_n$ entry", None, target)


# 8 ---------------------------------------------------------------------------------------------
@register(
    "fp-semantic-queries",
    caption=r"Step 8, layer-1 queries \(q^{(1)}_m\), divided by \(\beta = 1000\) to fit the "
    r"circle. The query holds the **current** letter. Hollow grey rings mark the keys of "
    r'{{ fig("fp-semantic-keys") }}: the last query (position 15, letter `c`) lands on the '
    r"key of position 5.",
    alt="Left, a 16 by 2 heatmap of the two non-zero query coordinates divided by 1000. Right, "
    "the unit circle with the 26 letters; each query is a dot at its own letter's angle, "
    "labelled with its positions; hollow rings show where the keys are; the dot of position 15 "
    "is highlighted at the letter c, on top of a key ring.",
    text=FORWARD_PASS_PROMPT,
)
def fp_semantic_queries(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    d = tr.config.d
    keys = tr.k1[:, d - 2 :]
    keys = keys[np.hypot(keys[:, 0], keys[:, 1]) > 0.05]
    beta = tr.config.beta
    return _slow_pair_figure(
        tr, tr.q1, beta, "query", r"$q^{(1)}_m / \beta$ entry", keys, len(tr.tokens) - 1
    )


def _induction_target(tr: Trace) -> int:
    """The key position the last query attends to most in layer 1."""
    return int(np.argmax(tr.A1[-1]))


# 9 ---------------------------------------------------------------------------------------------
@register(
    "fp-pattern1",
    caption=r"Step 9, the induction pattern \(A^{(1)}_{m,n}\). Red-orange frames mark the cells "
    r"whose key follows an earlier copy of the query's letter (\(t_{n-1} = t_m\)); wherever a "
    r"row has one such cell, the head puts its weight there. The last row attends to position "
    r"5, the `a` after the first `c`.",
    alt="Square attention heatmap, viridis, query position down and key position across, upper "
    "triangle grey and hatched; red-orange frames mark cells where the key's previous letter "
    "equals the query's letter, and they coincide with the yellow cells, for example row 13 h "
    "to key 3 e, row 14 e to key 4 c and row 15 c to key 5 a.",
    text=FORWARD_PASS_PROMPT,
)
def fp_pattern1(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    fig, ax = new_figure(height=5.6)
    im = _pattern(ax, tr.A1, tr.tokens, tr.mask)
    toks = tr.tokens
    for m in range(len(toks)):
        for n in range(1, m + 1):
            if toks[n - 1] == toks[m] and toks[m] != BOS:
                _frame(ax, n, m, linewidth=2.2)
    fig.colorbar(im, ax=ax, label=r"attention weight $A^{(1)}_{m,n}$", shrink=0.9)
    return fig


# 10 --------------------------------------------------------------------------------------------
@register(
    "fp-output1",
    caption=r"Step 10, the final residual stream \(h^{(2)} = h^{(1)} + o^{(1)}\): the `out` "
    r"slot holds the letter the induction head copied. In the last row it is \(E[a]\), the "
    r"same row as the `tok` slot of position 5.",
    alt="Heatmap with three blocks of 64 columns, labelled tok, prev and out, 16 positions "
    "down, red-blue values; the out block shows, in each row, the embedding of the letter at "
    "the attended key; the last row of the out block matches the tok row of position 5.",
    text=FORWARD_PASS_PROMPT,
)
def fp_output1(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    s = tr.slots
    fig, ax = new_figure(height=4.6)
    _slot_heatmap(
        fig,
        ax,
        tr,
        tr.h2,
        [("tok", s.tok), ("prev", s.prev), (r"out: $o^{(1)}_m$", s.out)],
        r"$h^{(2)}_m$ entry",
    )
    T = len(tr.tokens)
    d = tr.config.d
    _frame(ax, 2 * d, T - 1, width=d, linewidth=2.5, color="black")
    n = _induction_target(tr)
    _frame(ax, 0, n, width=d, linewidth=2.5, color="black")
    return fig


# 11 --------------------------------------------------------------------------------------------
@register(
    "fp-prediction",
    caption=r"Step 11, the prediction: \(P(\text{next letter} \mid \text{prompt})\) at the last "
    r"position. The winner is highlighted; its two neighbours on the letter circle get the "
    r"little that is left, because the readout scores letters by \(\gamma\cos(a_v - a_B)\).",
    alt="Bar chart over the 26 letters a to z, probability from 0 to 1; the bar of a is "
    "highlighted in orange at about 0.90 and labelled with its value; b and z have small bars "
    "of about 0.05; every other letter is near zero.",
    text=FORWARD_PASS_PROMPT,
)
def fp_prediction(text: str = FORWARD_PASS_PROMPT):
    tr = example_trace(text)
    p = tr.probs[-1]  # (26,)
    best = int(np.argmax(p))
    colors = [COLORS[5] if i == best else COLORS[0] for i in range(len(p))]
    fig, ax = new_figure(height=3.6)
    x = np.arange(len(p))
    ax.bar(x, p, color=colors, width=0.75)
    ax.set_xticks(x, tr.vocab)
    ax.set_xlim(-0.7, len(p) - 0.3)
    ax.set_ylim(0, 1.08)
    ax.set_xlabel(r"next letter $v$")
    ax.set_ylabel(r"$P(v \mid \mathrm{prompt})$")
    for i in np.flatnonzero(p > 0.01):
        if i != best:
            ax.text(i, p[i] + 0.02, f"{p[i]:.3f}", ha="center", va="bottom", fontsize=9)
    ax.annotate(
        f"{tr.vocab[best]}: {p[best]:.3f}",
        (best, p[best]),
        xytext=(10, -4),
        textcoords="offset points",
        ha="left",
        va="top",
        fontsize=12,
        color=COLORS[5],
        fontweight="bold",
    )
    return fig


# Values the page states ------------------------------------------------------------------------


@value("fp-best-score")
def fp_best_score(text: str = FORWARD_PASS_PROMPT) -> str:
    """The best layer-0 score of the rows that have a previous token (the same in each)."""
    tr = example_trace(text)
    visible = np.where(tr.mask, tr.scores0, -np.inf)
    return f"{visible[1:].max(axis=1).min():.0f}"


@value("fp-side-score")
def fp_side_score(text: str = FORWARD_PASS_PROMPT) -> str:
    """The layer-0 score of the last query against its own key, next to the best one."""
    tr = example_trace(text)
    return f"{tr.scores0[-1, -1]:.0f}"


@value("fp-score-lead")
def fp_score_lead(text: str = FORWARD_PASS_PROMPT) -> str:
    """How far the best layer-0 score of the last row leads the runner-up."""
    tr = example_trace(text)
    row = np.sort(tr.scores0[-1])
    return f"{row[-1] - row[-2]:.0f}"


@value("fp-min-previous-weight")
def fp_min_previous_weight(text: str = FORWARD_PASS_PROMPT) -> str:
    """The smallest layer-0 weight on position m - 1, rounded down (the page says "at least")."""
    return floor_to(np.diag(example_trace(text).A0, k=-1).min(), 5)


@value("fp-induction-weight")
def fp_induction_weight(text: str = FORWARD_PASS_PROMPT) -> str:
    """The largest layer-1 weight of the last row."""
    return f"{example_trace(text).A1[-1].max():.3f}"


@value("fp-top-probability")
def fp_top_probability(text: str = FORWARD_PASS_PROMPT) -> str:
    """The probability of the predicted letter."""
    return f"{example_trace(text).probs[-1].max():.3f}"


@value("fp-neighbour-probability")
def fp_neighbour_probability(text: str = FORWARD_PASS_PROMPT) -> str:
    """The probability of the predicted letter's neighbours on the letter circle."""
    tr = example_trace(text)
    p = tr.probs[-1]
    best = int(np.argmax(p))
    return f"{p[[(best - 1) % len(p), (best + 1) % len(p)]].max():.3f}"


@value("fp-unseen-prediction", text="thecatsatonthex")
def fp_unseen_prediction(text: str = "thecatsatonthex") -> str:
    """The prediction after a last letter that never occurred before."""
    return example_trace(text).prediction


@value("fp-unseen-top-probability", text="thecatsatonthex")
def fp_unseen_top_probability(text: str = "thecatsatonthex") -> str:
    """The probability of that prediction."""
    return f"{example_trace(text).probs[-1].max():.3f}"


# Values of the exercises -------------------------------------------------------------------------

EXERCISE_REPEATED = FORWARD_PASS_PROMPT[:-1] + "t"
"""A prompt whose last letter, t, occurred four times before, each time followed by another
letter."""


@value("fp-ex-d32-best", what="best")
@value("fp-ex-d32-side", what="side")
def fp_ex_d32_score(what: str = "best", d: int = 32, text: str = FORWARD_PASS_PROMPT) -> str:
    """Layer 0 of a ``d``-dimensional head on the example: the best score of the last row, or
    the score of the last query against its own key."""
    tr = forward(text, d=d)
    row = np.where(tr.mask, tr.scores0, -np.inf)[-1]
    return f"{(row.max() if what == 'best' else row[-1]):.0f}"


@value("fp-ex-d32-min-weight")
def fp_ex_d32_min_weight(d: int = 32, text: str = FORWARD_PASS_PROMPT) -> str:
    """The smallest layer-0 weight on position m - 1 with a ``d``-dimensional head, rounded
    down (the answer says "at least")."""
    return floor_to(np.diag(forward(text, d=d).A0, k=-1).min(), 5)


@value("fp-ex-d32-probability")
def fp_ex_d32_probability(d: int = 32, text: str = FORWARD_PASS_PROMPT) -> str:
    """The probability of the prediction with a ``d``-dimensional head."""
    return f"{forward(text, d=d).probs[-1].max():.3f}"


@value("fp-ex-offset0-prediction")
def fp_ex_offset0_prediction(offset: int = 0, text: str = FORWARD_PASS_PROMPT) -> str:
    """What the model predicts when layer 0 looks ``offset`` positions back."""
    return forward(text, offset=offset).prediction


@value("fp-ex-repeated-prediction")
def fp_ex_repeated_prediction(text: str = EXERCISE_REPEATED) -> str:
    """What the model predicts after a letter that occurred several times."""
    return example_trace(text).prediction


@value("fp-ex-repeated-probability")
def fp_ex_repeated_probability(text: str = EXERCISE_REPEATED) -> str:
    """The probability of that prediction."""
    return f"{example_trace(text).probs[-1].max():.3f}"


@value("fp-ex-repeated-min-weight")
def fp_ex_repeated_min_weight(text: str = EXERCISE_REPEATED) -> str:
    """The smallest layer-1 weight the last row puts on a key that follows an earlier copy of
    its letter, rounded down (the answer says "at least")."""
    tr = example_trace(text)
    last = tr.tokens[-1]
    after = [n for n in range(2, len(tr.tokens) - 1) if tr.tokens[n - 1] == last]
    return floor_to(tr.A1[-1, after].min(), 2)


@value("fp-ex-d32-lead")
def fp_ex_d32_lead(d: int = 32, text: str = FORWARD_PASS_PROMPT) -> str:
    """How far the best layer-0 score of the last row leads the runner-up, for a
    ``d``-dimensional head."""
    row = np.sort(forward(text, d=d).scores0[-1])
    return f"{row[-1] - row[-2]:.0f}"


@value("fp-setting-d", name="d")
@value("fp-setting-alpha", name="alpha")
@value("fp-setting-beta", name="beta")
@value("fp-setting-gamma", name="gamma")
def fp_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
