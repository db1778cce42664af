r"""Figures of the layer-0 page (equations/previous-token-head.md).

Every figure reads the package: the score curve comes from
[`previous_token_scores`][rope_explained.experiments.previous_token_scores], everything else
(the residual stream included) from the [`Trace`][rope_explained.model.Trace] that
[`forward`][rope_explained.model.forward] returns.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
from matplotlib.patches import Circle

from ...embedding import VOCAB, embedding_matrix
from ...experiments import previous_token_scores
from ...model import DEFAULT, Config, forward
from ...rope import frequencies
from .. import floor_to, register, setting_text, times_ten, value
from ..style import COLORS, DIVERGING, attention_heatmap, centred_norm, new_figure, token_ticks

PROMPT = "thequickbrownfox"
"""The prompt the layer-0 figures run through the model."""


def _pattern(ax, trace, label: str | None = None):
    """Draw the layer-0 attention pattern of ``trace`` on ``ax``; return the image."""
    im = attention_heatmap(ax, trace.A0, trace.mask, tokens=trace.tokens)
    if label:
        ax.set_title(label)
    return im


@register(
    "layer0-score-vs-offset",
    caption=(
        r"The layer-0 score per unit \(\alpha\), "
        r"\(\sum_{i=0}^{d/2-1}\cos((\Delta + 1)\,\theta_i)\), against the offset "
        r"\(\Delta = n - m\) of the key from the query, for "
        r'\(d = {{ value("layer0-setting-d") }}\). Only '
        r"\(\Delta = -1\), the key one step back, reaches the ceiling \(d/2 = 32\); every "
        r"other offset falls short, and the nearest competitors (\(\Delta = 0\) and "
        r"\(\Delta = -2\)) fall short by about "
        r'{{ value("layer0-score-gap") }}. The grey band, \(\Delta \ge 1\), holds future keys, '
        r"which the causal mask hides anyway."
    ),
    alt="Line plot with dots: the score per unit alpha against the offset Delta from -41 to 39. "
    "It peaks at 32 at Delta = -1, drops to about 30.9 at Delta = 0 and -2, and keeps "
    "falling, with ripples, to about 15 forty steps either side; a dashed line marks the "
    "ceiling d/2 = 32. A zoomed panel shows offsets -5 to 3 and the gap of "
    '{{ value("layer0-score-gap") }} next to the peak.',
    d=DEFAULT.d,
    base=DEFAULT.base,
    span=40,
)
def score_vs_offset(d: int = DEFAULT.d, base: float = DEFAULT.base, span: int = 40):
    """Score per unit alpha against the offset Delta = n - m, from ``previous_token_scores``
    (which takes Delta + 1)."""
    offsets = np.arange(-span, span + 1) - 1  # Delta = n - m, centred on the peak at -1
    scores = previous_token_scores(offsets + 1, d=d, base=base)
    fig, (ax, zoom) = new_figure(1, 2, width=7.2, height=3.6, width_ratios=[2.2, 1])
    for a in (ax, zoom):
        a.axvspan(0.5, span, color="0.92", lw=0)
        a.axhline(d / 2, color="0.5", ls="--", lw=1)
        a.plot(offsets, scores, color=COLORS[0], marker="o", ms=3.5, lw=1.2)
        a.plot([-1], [d / 2], marker="o", ms=8, color=COLORS[5], zorder=3)
        a.set_xlabel(r"offset $\Delta = n - m$")
    ax.set_ylabel(r"$q_m^T k_n\,/\,\alpha$")
    ax.set_xlim(-span - 2, span)
    ax.text(span * 0.6, d / 2 - 5, "future keys\n(masked)", ha="center", color="0.35", fontsize=10)
    ax.annotate(
        rf"$\Delta = -1$: $d/2 = {d // 2}$",
        xy=(-1, d / 2),
        xytext=(7, d / 2 - 2.5),
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    close = np.abs(offsets + 1) <= 4  # within 4 of the peak
    zoom.set_xlim(-5.5, 3.5)
    zoom.set_ylim(scores[close].min() - 0.5, d / 2 + 0.4)
    zoom.set_xticks(offsets[close][::2])
    gap = d / 2 - scores[offsets == 0][0]
    zoom.annotate(
        f"gap {gap:.2f}",
        xy=(0, scores[offsets == 0][0]),
        xytext=(0.6, d / 2 - 0.35),
        fontsize=11,
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    return fig


@register(
    "layer0-clock-hands",
    caption=(
        r"The score as \(d/2 = 32\) clock hands, read from the keys and queries of a "
        r"forward pass: hand \(i\) is the angle \((\Delta + 1)\,\theta_i\) between the RoPE pair "
        r"\(i\) of \(q_m\) and of \(k_n\), drawn from 12 o'clock. The score per unit "
        r"\(\alpha\) is the sum of the hands' heights (the number under each clock). "
        r"At \(\Delta = n - m = -1\) all hands point straight up; at other offsets the fast pairs "
        r"swing away while the slow ones barely move."
    ),
    alt="Three clock faces for offsets Delta = -1, -2 and -6. On the first all 32 hands point "
    "straight up, heights summing to 32. On the second a few fast hands lean away, sum about "
    "30.9. On the third the fast hands are spread around the dial, sum about 23.5.",
    prompt=PROMPT,
    m=10,
    deltas=(-1, -2, -6),
)
def clock_hands(prompt: str = PROMPT, m: int = 10, deltas=(-1, -2, -6)):
    """Hands = angle between query pair i and key pair i, from ``forward(prompt)``."""
    tr = forward(prompt)
    d = tr.config.d
    qm = tr.q0[m].reshape(d // 2, 2)  # (d/2, 2): the pairs of q_m
    fig, axes = new_figure(1, len(deltas), width=7.2, height=3.0)
    cmap = mpl.colormaps["cividis"]
    for ax, delta in zip(np.atleast_1d(axes), deltas, strict=True):
        n = m + delta  # Delta = n - m
        kn = tr.k0[n].reshape(d // 2, 2)
        # signed angle from q's pair to k's pair: the pair's contribution is alpha cos(angle)
        ang = np.arctan2(qm[:, 0] * kn[:, 1] - qm[:, 1] * kn[:, 0], (qm * kn).sum(axis=1))
        heights = (qm * kn).sum(axis=1) / tr.config.alpha  # cos of each hand
        ax.add_patch(Circle((0, 0), 1, fill=False, color="0.6"))
        for i, a in enumerate(ang):
            ax.plot([0, np.sin(a)], [0, np.cos(a)], color=cmap(i / (d // 2 - 1)), lw=1.6)
        ax.plot([0], [0], "o", color="0.2", ms=4)
        ax.set_xlim(-1.15, 1.15)
        ax.set_ylim(-1.15, 1.15)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
        ax.set_title(rf"$\Delta = {delta}$: key $n = m {delta:+d}$", fontsize=12)
        ax.set_xlabel(rf"heights sum to ${heights.sum():.2f}$")
    sm = mpl.cm.ScalarMappable(cmap=cmap, norm=mpl.colors.Normalize(0, d // 2 - 1))
    fig.colorbar(sm, ax=axes, label=r"pair $i$ (fast $\to$ slow)", shrink=0.8)
    return fig


@register(
    "layer0-pattern",
    caption=(
        r"Layer 0 on a real prompt (\(\alpha = 10\)). Top: the raw scores "
        r"\(q_m^T k_n\) measured from the best score of their row (what the softmax sees; "
        r"the cells the causal mask hides, \(n > m\), are grey and hatched): only the "
        r"sub-diagonal reaches 0, the "
        r'diagonal sits about \({{ value("layer0-row-gap") }} = \alpha \times '
        r'{{ value("layer0-score-gap") }}\) below it. Bottom: after the softmax, '
        r"each row puts essentially all its weight on the key one step back, the "
        r"sub-diagonal. Row 0 is the start token \(\langle s\rangle\), which can only see "
        r"itself."
    ),
    alt="Two heatmaps one above the other, query position down, key position across, tokens as "
    "tick labels. Top, each score minus its row's best: bright yellow (zero) on the "
    "sub-diagonal, darker on the diagonal, dark blue further left. Bottom, attention weights: "
    "a single yellow sub-diagonal line, everything else dark. In both the masked upper "
    "triangle is grey and hatched.",
    prompt=PROMPT,
)
def pattern(prompt: str = PROMPT):
    """Raw scores and the softmax pattern of layer 0, from ``forward(prompt)``."""
    tr = forward(prompt)
    # One heatmap above the other, each nearly as wide as the page, so that the token labels
    # stay legible when the figure is shrunk to a phone's width.
    fig, (ax0, ax1) = new_figure(2, 1, width=5.6, height=10.4)
    gap = tr.scores0 - np.where(tr.mask, tr.scores0, -np.inf).max(axis=1, keepdims=True)
    im0 = attention_heatmap(ax0, gap, tr.mask, tokens=tr.tokens, cmap="cividis", vmin=-40, vmax=0)
    fig.colorbar(im0, ax=ax0, label=r"$q_m^T k_n$ minus the row's best", extend="min")
    ax0.set_title("raw scores, row maximum subtracted", fontsize=13)
    im1 = _pattern(ax1, tr)
    fig.colorbar(im1, ax=ax1, label=r"$\mathrm{Attn}(m, n)$")
    ax1.set_title("attention weights after the softmax", fontsize=13)
    for ax in (ax0, ax1):
        ax.tick_params(labelsize=13)
    return fig


@register(
    "layer0-alpha-sweep",
    caption=(
        r"How sharp the head is as a function of \(\alpha\), on the prompt of "
        r"{{ fig('layer0-pattern') }}. Left: the weight on the previous token, smallest and "
        r"mean over the rows "
        r"\(m \ge 1\). Right: the weight left on all other keys, on a log scale against a linear "
        r"\(\alpha\) axis: a straight "
        r"line, because each of the two nearest competitors (the token itself and the one two "
        r'back) trails by \({{ value("layer0-score-gap") }}\,\alpha\) in score and so gets about '
        r'\(e^{-{{ value("layer0-score-gap") }}\alpha}\) of the weight.'
    ),
    alt="Two line plots against alpha from 0.1 to 100. Left, log alpha axis: the weight on the "
    "previous token rises from about 0.1 at alpha 0.1 through "
    '{{ value("layer0-min-weight-alpha-1") }} at alpha 1 to '
    '{{ value("layer0-min-weight-alpha-10") }} at alpha 10 and 1 beyond. Right, alpha on a '
    "linear axis: the weight on the other keys falls "
    "along a straight line on a log axis, 0.41 at alpha 1, 4e-5 at alpha 10 and about 2e-47 at "
    "alpha 100.",
    prompt=PROMPT,
)
def alpha_sweep(prompt: str = PROMPT):
    """Attention on m-1 against alpha, one ``forward(prompt, alpha=...)`` per alpha."""
    marks = (1.0, 10.0, 100.0)
    alphas = np.unique(np.r_[np.geomspace(0.1, 100.0, 37), marks])
    low, mean, miss = [], [], []
    for a in alphas:
        A = forward(prompt, alpha=float(a)).A0
        prev = np.diag(A, k=-1)  # Attn(m, m-1) for m = 1..T-1
        low.append(prev.min())
        mean.append(prev.mean())
        # the weight on every other key, summed from the small entries themselves (1 - prev
        # would round to 0 long before the entries do)
        off = [np.delete(A[m, : m + 1], m - 1).sum() for m in range(1, len(A))]
        miss.append(max(off))
    low, mean, miss = np.array(low), np.array(mean), np.array(miss)
    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.6)
    ax0.plot(alphas, mean, color=COLORS[0], label="mean over rows")
    ax0.plot(alphas, low, color=COLORS[1], ls="--", label="smallest row")
    ax0.set_ylabel(r"$\mathrm{Attn}(m, m-1)$")
    ax0.set_ylim(0, 1.08)
    ax0.legend(loc="lower right")
    ax1.plot(alphas, miss, color=COLORS[1], ls="--")
    ax1.set_yscale("log")
    ax1.set_ylabel(r"weight on other keys (worst row)")
    ax0.set_xscale("log")
    ax1.set_xlim(0, 105)
    for ax, series in ((ax0, low), (ax1, miss)):
        ax.set_xlabel(r"sharpness $\alpha$")
        for a in marks:
            i = int(np.flatnonzero(np.isclose(alphas, a))[0])
            ax.plot([a], [series[i]], "o", color=COLORS[5], ms=6, zorder=3)
            if ax is ax0 and a < 100:
                ax.annotate(
                    f"{series[i]:.5f}",
                    xy=(a, series[i]),
                    xytext=(8, -14),
                    textcoords="offset points",
                    fontsize=10,
                )
            if ax is ax1:
                ax.annotate(
                    f"{series[i]:.1e}",
                    xy=(a, series[i]),
                    xytext=(8, 4),
                    textcoords="offset points",
                    fontsize=10,
                )
    return fig


@register(
    "layer0-offset-two",
    caption=(
        r"Changing one number of the construction: with \(W_q = \alpha "
        r"R_{\Theta,-2} W_k\) (the model's ``offset=2``) the same prompt gives a band two steps "
        r"below the diagonal, a head that looks two tokens back. The first two rows have no "
        r"key two steps back; they settle on the nearest offset the mask allows."
    ),
    alt="Two heatmaps of attention weights, query position down, key position across. Left, "
    "offset 1: one bright line just below the diagonal. Right, offset 2: one bright line two "
    "steps below the diagonal, with rows 0 and 1 putting their weight on position 0.",
    prompt=PROMPT,
)
def offset_two(prompt: str = PROMPT):
    """Layer-0 patterns for ``offset=1`` and ``offset=2``, from two forward passes."""
    fig, axes = new_figure(1, 2, width=7.2, height=3.9)
    for ax, off in zip(axes, (1, 2), strict=True):
        tr = forward(prompt, offset=off)
        im = _pattern(ax, tr, label=rf"$W_q = \alpha R_{{\Theta,-{off}}} W_k$")
        ax.tick_params(labelsize=10)
    axes[1].set_ylabel("")
    fig.colorbar(im, ax=axes, label=r"$\mathrm{Attn}(m, n)$", shrink=0.8)
    return fig


@register(
    "layer0-residual-stream",
    caption=r"Where the model's vectors live: the residual stream for the input 'abcab' "
    r"(\(D = 256\) coordinates per position, start token first). Top: \(h^{(0)}\), straight "
    r"after embedding, with only the bias coordinate and the tok slot filled (the start "
    r"token's tok slot is zero). Bottom: after both layers, which write into the prev and out "
    r"slots.",
    alt="Two heatmaps, 6 rows (positions <s>, a, b, c, a, b) by 256 columns, divided by "
    "vertical lines into slots labelled bias, tok, prev, out and unused. Top: column 0 is 1 in "
    "every row and the tok slot shows stripes for the five letters, with an empty row for <s>; "
    "the other slots are white. Bottom: the prev and out slots are also filled.",
    text="abcab",
)
def residual_stream(text: str = "abcab"):
    """The residual stream before and after the two layers, with the slots marked."""
    tr = forward(text)
    s = tr.slots
    D = tr.h0.shape[1]
    bounds = [
        ("bias", 0, 1),
        ("tok", s.tok.start, s.tok.stop),
        ("prev", s.prev.start, s.prev.stop),
        ("out", s.out.start, s.out.stop),
        ("unused", s.out.stop, D),
    ]
    norm = centred_norm(np.concatenate([tr.h0.ravel(), tr.h2.ravel()]))
    fig, axes = new_figure(2, 1, width=7.2, height=4.8, sharex=True)
    for ax, h, name in zip(axes, (tr.h0, tr.h2), (r"$h^{(0)}$", r"$h^{(2)}$"), strict=True):
        im = ax.imshow(h, cmap=DIVERGING, norm=norm, aspect="auto", interpolation="none")
        token_ticks(ax, tr.tokens, axis="y")
        ax.set_ylabel(f"{name}\nposition")
        for _label, lo, _hi in bounds[1:]:
            ax.axvline(lo - 0.5, color="0.2", lw=1)
    axes[0].annotate(
        r"bias: $h[0] = 1$ in every row",
        xy=(0.5, 0),
        xytext=(80, 0.0),
        fontsize=11,
        va="center",
        bbox={"fc": "white", "ec": "0.6", "pad": 2},
        arrowprops={"arrowstyle": "->", "color": "0.2"},
    )
    top = axes[0].secondary_xaxis("top")
    top.set_xticks([(lo + hi - 1) / 2 for _, lo, hi in bounds], [b[0] for b in bounds])
    top.tick_params(length=0)
    axes[1].set_xlabel(r"residual coordinate (0 to $D-1$)")
    fig.colorbar(im, ax=axes, label="value", shrink=0.9)
    return fig


# Values the page states ------------------------------------------------------------------------


def _worst_row(prompt: str, alpha: float) -> tuple[float, float]:
    """Over the rows m >= 1 of layer 0: the smallest weight on m - 1, and the largest weight
    left on all other keys (summed from the small entries, which 1 - weight would round away)."""
    A = forward(prompt, alpha=alpha).A0
    off = max(np.delete(A[m, : m + 1], m - 1).sum() for m in range(1, len(A)))
    return float(np.diag(A, k=-1).min()), float(off)


@value("layer0-slowest-frequency")
def layer0_slowest_frequency(d: int = DEFAULT.d, base: float = DEFAULT.base) -> str:
    """The frequency of the slowest pair, to two digits (TeX)."""
    return times_ten(frequencies(d, base)[-1], 1)


@value("layer0-neighbour-score")
def layer0_neighbour_score(d: int = DEFAULT.d) -> str:
    """The score per unit alpha of the closest competitors, Delta = +-1."""
    return f"{previous_token_scores(np.array([1.0]), d=d)[0]:.2f}"


@value("layer0-score-gap")
def layer0_score_gap(d: int = DEFAULT.d) -> str:
    """How far the closest competitors trail the peak d/2, per unit alpha."""
    peak, side = previous_token_scores(np.array([0.0, 1.0]), d=d)
    return f"{peak - side:.2f}"


@value("layer0-fastest-pair-gap")
def layer0_fastest_pair_gap(d: int = DEFAULT.d) -> str:
    """The share of the fastest pair in that gap, 1 - cos(theta_0)."""
    return f"{1 - np.cos(frequencies(d)[0]):.2f}"


@value("layer0-row-gap")
def layer0_row_gap(prompt: str = PROMPT) -> str:
    """The score of the query's own key below the row's best, in the forward pass."""
    tr = forward(prompt)
    m = len(tr.tokens) - 1
    return f"{tr.scores0[m, m - 1] - tr.scores0[m, m]:.1f}"


@value("layer0-min-weight-alpha-1", alpha=1.0, decimals=3)
@value("layer0-min-weight-alpha-5", alpha=5.0, decimals=3)
@value("layer0-min-weight-alpha-10", alpha=DEFAULT.alpha, decimals=5)
def layer0_min_weight(alpha: float = DEFAULT.alpha, decimals: int = 5, prompt: str = PROMPT) -> str:
    """The smallest weight any row puts on its previous token, at sharpness ``alpha``."""
    return f"{_worst_row(prompt, alpha)[0]:.{decimals}f}"


@value("layer0-other-weight-alpha-100", alpha=100.0)
def layer0_other_weight(alpha: float = 100.0, prompt: str = PROMPT) -> str:
    """The largest weight a row leaves on all keys but its previous one (TeX)."""
    return times_ten(_worst_row(prompt, alpha)[1], 1)


@value("layer0-stream-width")
def layer0_stream_width() -> str:
    """The width D of the model's residual stream (``Config().D``)."""
    return str(Config().D)


@value("embedding-slot-bias", slot="bias")
@value("embedding-slot-tok", slot="tok")
@value("embedding-slot-prev", slot="prev")
@value("embedding-slot-out", slot="out")
@value("embedding-slot-unused", slot="unused")
def stream_slot(slot: str = "tok", text: str = "abcab") -> str:
    """The residual coordinates of one slot, ``first–last``, as the model lays them out."""
    tr = forward(text)
    s, D = tr.slots, tr.h0.shape[1]
    first, stop = {
        "bias": (s.bias, s.bias + 1),
        "tok": (s.tok.start, s.tok.stop),
        "prev": (s.prev.start, s.prev.stop),
        "out": (s.out.start, s.out.stop),
        "unused": (s.out.stop, D),
    }[slot]
    return str(first) if stop == first + 1 else f"{first}–{stop - 1}"


@value("layer0-bos-weight")
def layer0_bos_weight(text: str = "abcab") -> str:
    """The layer-0 weight the first letter puts on the start token."""
    return f"{forward(text).A0[1, 0]:.5f}"


@value("layer0-sum-factor")
def layer0_sum_factor(d: int = DEFAULT.d) -> str:
    """The factor k in E[a] + E[c] = k E[b]."""
    E = embedding_matrix(d)
    a, b, c = (E[VOCAB.index(t)] for t in "abc")
    return f"{(a + c) @ b / (b @ b):.2f}"


@value("layer0-own-position-weight")
def layer0_own_position_weight(prompt: str = PROMPT) -> str:
    """With offset 0 (W_q = alpha W_k): the smallest weight a row puts on its own position."""
    return floor_to(np.diag(forward(prompt, offset=0).A0).min(), 5)


@value("layer0-unrotated-key-weight")
def layer0_unrotated_key_weight(prompt: str = PROMPT) -> str:
    """If the keys were not rotated, every key would be c and the last row's weights uniform:
    the weight 1 / T that each of its T keys gets."""
    tr = forward(prompt)
    T = len(tr.tokens)
    q = tr.q0[T - 1]  # the last query, rotated as usual
    c = tr.k0[0]  # position 0: the key before any rotation, c itself
    scores = np.full(T, q @ c)  # every key the same vector c
    w = np.exp(scores - scores.max())
    return f"{(w / w.sum())[0]:.4f}"


# Values of the exercises ------------------------------------------------------------------------


@value("layer0-two-back-min-weight")
def layer0_two_back_min_weight(prompt: str = PROMPT) -> str:
    """With offset 2: the smallest weight a row m >= 2 puts on position m - 2."""
    A = forward(prompt, offset=2).A0
    return floor_to(np.diag(A, k=-2).min(), 5)


def _min_previous_weight(alpha: float, prompt: str) -> float:
    return float(np.diag(forward(prompt, alpha=alpha).A0, k=-1).min())


@value("layer0-alpha-for-99")
def layer0_alpha_for_99(prompt: str = PROMPT, target: float = 0.99) -> str:
    """The smallest alpha (to three decimals) at which every row m >= 1 of ``forward(prompt)``
    puts at least ``target`` on its previous token, by bisection."""
    lo, hi = 0.0, 20.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if _min_previous_weight(mid, prompt) >= target else (mid, hi)
    return f"{hi:.3f}"


@value("layer0-alpha-for-99-estimate")
def layer0_alpha_for_99_estimate(d: int = DEFAULT.d, target: float = 0.99) -> str:
    """The two-rival estimate of that alpha: 1 / (1 + 2 e^{-g alpha}) = target."""
    peak, side = previous_token_scores(np.array([0.0, 1.0]), d=d)
    g = peak - side
    return f"{np.log(2 * target / (1 - target)) / g:.3f}"


@value("layer0-gap-d16", d=16)
def layer0_gap_small(d: int = 16) -> str:
    """The score gap to Delta = +-1 for a head of dimension d."""
    peak, side = previous_token_scores(np.array([0.0, 1.0]), d=d)
    return f"{peak - side:.2f}"


@value("layer0-alpha-d16")
def layer0_alpha_small(d: int = 16, alpha: float = DEFAULT.alpha) -> str:
    """The alpha that gives a d-dimensional head the d = 64 head's gap alpha x g_64."""
    g = {
        dd: float(np.subtract(*previous_token_scores(np.array([0.0, 1.0]), d=dd))) for dd in (d, 64)
    }
    return f"{alpha * g[64] / g[d]:.1f}"


@value("layer0-setting-d", name="d")
@value("layer0-setting-alpha", name="alpha")
def layer0_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
