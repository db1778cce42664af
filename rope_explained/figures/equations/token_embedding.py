"""Figures of the token-embedding page (``equations/token-embedding.md``).

Every figure reads the package: [`embedding_matrix`][rope_explained.embedding.embedding_matrix],
[`embed_index`][rope_explained.embedding.embed_index],
[`plane_reader`][rope_explained.embedding.plane_reader] and, for the readout's sharpness,
[`Config`][rope_explained.model.Config].
"""

from __future__ import annotations

import math

import numpy as np

from ...embedding import (
    VOCAB,
    embed_index,
    embedding_matrix,
    letter_angle,
    plane_basis,
    plane_reader,
)
from ...model import DEFAULT, Config
from .. import below, ceil_to, register, setting_text, value
from ..style import COLORS, DIVERGING, centred_norm, new_figure, token_ticks


@register(
    "embedding-matrix",
    caption=r'The demo embedding matrix \(E\) for \(d = {{ value("embedding-setting-d") }}\): one '
    r"row per letter, one column "
    r"per coordinate \(j\). Every row is the same sine wave in \(j\), shifted by "
    r"\(\pi/13\) from the row above, which is why the stripes run diagonally.",
    alt="Heatmap with 26 rows labelled a to z and 64 columns j = 0 to 63, values between -0.5 "
    "(blue) and 0.5 (red). Diagonal red and blue stripes: each row repeats the row above, "
    "shifted a little to the left.",
    d=DEFAULT.d,
)
def embedding_matrix_heatmap(d: int = DEFAULT.d):
    """Heatmap of the 26 x d embedding matrix."""
    E = embedding_matrix(d)  # (26, d)
    fig, ax = new_figure(width=7.2, height=4.6)
    im = ax.imshow(E, cmap=DIVERGING, norm=centred_norm(E), aspect="auto", interpolation="none")
    token_ticks(ax, VOCAB, axis="y")
    ax.set_xlabel(r"coordinate $j$")
    ax.set_ylabel(r"letter $t$")
    fig.colorbar(im, ax=ax, label=r"$E[t]_j$", shrink=0.9)
    return fig


@register(
    "embedding-period",
    caption=r"Distance between the demo embedding of index \(k\) and that of index 0, for "
    r"\(k = 0, \ldots, 78\). It falls back to zero at \(k = 26\) and \(k = 52\): the formula "
    r"has period 26, exactly the 26 letters (shaded). A 27th token would get the vector of 'a'.",
    alt="Line plot with dots: distance from index 0 against index k from 0 to 78. The curve "
    "rises to about 5.7 at k = 13, falls to zero at k = 26, rises again and returns to zero at "
    "k = 52 and again near 78. The range 0 to 25 is shaded and labelled as the 26 letters.",
    d=DEFAULT.d,
    k_max=78,
)
def embedding_period(d: int = DEFAULT.d, k_max: int = 78):
    """Distance of embed_index(k) from embed_index(0), showing the period 26."""
    k = np.arange(k_max + 1)
    X = embed_index(k, d)  # (k_max+1, d)
    dist = np.linalg.norm(X - X[0], axis=1)  # (k_max+1,)
    fig, ax = new_figure(width=7.2, height=3.6)
    ax.axvspan(-0.5, len(VOCAB) - 0.5, color=COLORS[4], alpha=0.18, lw=0)
    ax.text(12.5, dist.max() * 1.04, "the 26 letters a–z", ha="center", va="bottom", fontsize=11)
    ax.plot(k, dist, "-o", ms=3.5, color=COLORS[0])
    for p in range(len(VOCAB), k_max + 1, len(VOCAB)):
        ax.axvline(p, color="0.4", ls="--", lw=1)
        ax.text(
            p,
            dist.max() * 1.04,
            f"$k = {p}$",
            ha="center",
            va="bottom",
            fontsize=11,
            bbox={"fc": "white", "ec": "none", "pad": 1},
        )
    ax.annotate(
        "same vector as $k = 0$",
        xy=(len(VOCAB), 0),
        xytext=(len(VOCAB) + 4, dist.max() * 0.12),
        fontsize=11,
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    ax.set_xlabel(r"index $k$ (letters are $k = 0, \ldots, 25$)")
    ax.set_ylabel(r"$\|E(k) - E(0)\|$")
    ax.set_ylim(-0.2, dist.max() * 1.18)
    ax.set_xlim(-1, k_max + 1)
    return fig


@register(
    "embedding-singular-values",
    caption=r"Singular values of the \(26 \times 64\) embedding matrix \(E\), on a log scale. "
    r"Two are about 10; the other 24 are floating-point rounding, below "
    r'\({{ value("embedding-rounding-bound") }}\) and drawn at that floor (grey), under '
    r"numpy's rank threshold (dashed). \(E\) has rank 2: all 26 letters lie in one plane.",
    alt="Bar chart on a logarithmic vertical axis: singular values number 1 to 26. Bars 1 and "
    "2 reach about 10; bars 3 to 26 are grey stubs at the floor of the axis, below a dashed "
    "line marking the numerical rank threshold.",
    d=DEFAULT.d,
)
def embedding_singular_values(d: int = DEFAULT.d):
    """Bar chart of the singular values of E: two non-zero, the rest rounding noise."""
    E = embedding_matrix(d)  # (26, d)
    s = _singular_values(d)  # (26,)
    tol = s.max() * max(E.shape) * np.finfo(E.dtype).eps  # numpy.linalg.matrix_rank's default
    # The 24 rounding-level values differ from one CPU to another: they are drawn at the
    # floor the page states (embedding-rounding-bound checks that they lie below it).
    shown = np.maximum(s, ROUNDING_FLOOR)
    fig, ax = new_figure(width=7.2, height=3.8)
    idx = np.arange(1, len(s) + 1)
    colors = [COLORS[0] if v > tol else "0.6" for v in s]
    ax.bar(idx, shown - ROUNDING_FLOOR / 10, color=colors, bottom=ROUNDING_FLOOR / 10)
    ax.set_yscale("log")
    ax.set_ylim(ROUNDING_FLOOR / 10, 1e2)
    ax.axhline(tol, color="0.3", ls="--", lw=1)
    ax.text(len(s) + 0.5, tol * 2.5, "rank threshold", ha="right", va="bottom", fontsize=11)
    ax.annotate(
        rf"$\sigma_1 = {s[0]:.2f}$, $\sigma_2 = {s[1]:.2f}$",
        xy=(2.4, s[1] * 0.5),
        xytext=(4, s[1] * 1e-3),
        fontsize=11,
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    ax.set_xticks([1, 2, 5, 10, 15, 20, 25])
    ax.set_xlabel(r"singular value number $k$")
    ax.set_ylabel(r"$\sigma_k(E)$")
    return fig


@register(
    "embedding-circle",
    caption=r"The 26 letters in the plane spanned by \(S\) and \(C\), read off with the "
    r"package's plane reader \(P\), which maps \(E[t]\) to \((\cos a_t, \sin a_t)\). "
    r"They sit at equal steps of \(\pi/13\) around a circle; 'n' is opposite 'a', and "
    r"index 26 (open circle) lands on 'a' again.",
    alt="Scatter plot on equal axes: 26 points labelled a to z evenly spaced around a unit "
    "circle, counter-clockwise from a at angle 0. A dashed line through the centre joins a "
    "(right) and n (left). An open circle marked index 26 sits on top of a.",
    d=DEFAULT.d,
)
def embedding_circle(d: int = DEFAULT.d):
    """The letters on the unit circle of the embedding plane."""
    P = plane_reader(d)  # (2, d)
    xy = embedding_matrix(d) @ P.T  # (26, 2) = (cos a_t, sin a_t)
    extra = P @ embed_index(len(VOCAB), d)  # (2,): index 26
    fig, ax = new_figure(width=7.2, height=5.4)
    u = np.linspace(0, 2 * np.pi, 400)
    ax.plot(np.cos(u), np.sin(u), color="0.75", lw=1, zorder=0)
    ax.plot(*xy[[0, 13]].T, color="0.4", ls="--", lw=1.2, zorder=1)
    ax.axhline(0, color="0.85", lw=0.8, zorder=0)
    ax.axvline(0, color="0.85", lw=0.8, zorder=0)
    hl = {0: COLORS[5], 13: COLORS[5]}
    for i, (x, y) in enumerate(xy):
        ax.plot(x, y, "o", ms=7, color=hl.get(i, COLORS[0]), zorder=3)
        ax.text(
            1.14 * x,
            1.14 * y,
            VOCAB[i],
            ha="center",
            va="center",
            fontsize=12,
            fontweight="bold" if i in hl else "normal",
        )
    ax.plot(*extra, "o", ms=15, mfc="none", mec=COLORS[1], mew=2, zorder=4)
    ax.annotate(
        "index 26",
        xy=extra,
        xytext=(1.25, -0.55),
        fontsize=11,
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    ax.annotate(
        r"$a_t = \mathrm{idx}(t)\,\pi/13$",
        xy=(xy[3, 0] * 0.5, xy[3, 1] * 0.5),
        xytext=(0.12, 0.08),
        fontsize=11,
    )
    ax.set_aspect("equal")
    ax.set_xlim(-1.35, 1.75)
    ax.set_ylim(-1.3, 1.3)
    ax.set_xlabel(r"$\cos a_t$  (coefficient of $S/2$)")
    ax.set_ylabel(r"$\sin a_t$  (coefficient of $C/2$)")
    return fig


@register(
    "embedding-similarity",
    caption=r"Cosine similarity between the embeddings of every pair of letters. It follows "
    r"\(\cos(a_{t'} - a_t)\): neighbours are nearly parallel, letters 13 apart point in "
    r"opposite directions ('n' is exactly \(-E[\text{a}]\)), and the pattern wraps around "
    r"from 'z' back to 'a'.",
    alt="26 by 26 heatmap, letters a to z on both axes, red (+1) on the main diagonal fading "
    "through white to blue (-1) along the diagonals 13 letters away, for example at row a, "
    "column n; the colours wrap so that z is again similar to a.",
    d=DEFAULT.d,
)
def embedding_similarity(d: int = DEFAULT.d):
    """Heatmap of the cosine similarity between the 26 letter embeddings."""
    E = embedding_matrix(d)  # (26, d)
    n = np.linalg.norm(E, axis=1)  # (26,)
    sim = (E @ E.T) / np.outer(n, n)  # (26, 26)
    fig, ax = new_figure(width=7.2, height=5.6)
    im = ax.imshow(
        sim, cmap=DIVERGING, norm=centred_norm(np.array([-1.0, 1.0])), interpolation="none"
    )
    token_ticks(ax, VOCAB)
    ax.set_xlabel(r"letter $t$")
    ax.set_ylabel(r"letter $s$")
    cbar = fig.colorbar(im, ax=ax, shrink=0.85)
    # 13 pt: the prime of t' is drawn at 0.7 of it, and every glyph must reach 9 pt
    cbar.set_label(r"$\cos\angle(E[t'], E[t])$", fontsize=13)
    return fig


# Values the page states ------------------------------------------------------------------------


ROUNDING_FLOOR = 1e-14
r"""The bound the page states for the singular values of \(E\) after the first two, and the
floor its figure draws them at: they are rounding (about 2e-15), whose digits depend on the CPU."""


def _singular_values(d: int) -> np.ndarray:
    return np.linalg.svd(embedding_matrix(d), compute_uv=False)


@value("embedding-sigma-1", k=0)
@value("embedding-sigma-2", k=1)
def embedding_sigma(k: int = 0, d: int = DEFAULT.d) -> str:
    """Singular value number ``k + 1`` of the embedding matrix."""
    return f"{_singular_values(d)[k]:.2f}"


@value("embedding-rounding-bound")
def embedding_rounding_bound(d: int = DEFAULT.d) -> str:
    """A bound on every singular value after the first two (TeX): they are zero in exact
    arithmetic and rounding here (about 2e-15; the digits depend on the CPU)."""
    return below(_singular_values(d)[2:].max(), ROUNDING_FLOOR)


@value("embedding-neighbour-cosine")
def embedding_neighbour_cosine() -> str:
    """The similarity of two neighbouring letters through the plane reader, cos(a_b - a_a)."""
    return f"{np.cos(letter_angle('b') - letter_angle('a')):.3f}"


@value("embedding-similarity-deviation")
def embedding_similarity_deviation(d: int = DEFAULT.d) -> str:
    """How far the raw cosine similarity strays from cos(a_t' - a_t), rounded up."""
    E = embedding_matrix(d)
    angles = np.array([letter_angle(t) for t in VOCAB])
    norms = np.linalg.norm(E, axis=1)
    similarity = (E @ E.T) / np.outer(norms, norms)
    return ceil_to(np.abs(similarity - np.cos(angles[:, None] - angles[None, :])).max(), 2)


@value("embedding-norm-s", row=0)
@value("embedding-norm-c", row=1)
def embedding_plane_norm(row: int = 0, d: int = DEFAULT.d) -> str:
    """The length of S (row 0 of the plane basis) or C (row 1)."""
    return f"{np.linalg.norm(plane_basis(d)[row]):.2f}"


@value("embedding-neighbour-gap")
def embedding_neighbour_gap() -> str:
    """How far a neighbour's cosine falls short of the letter's own, 1 - cos(pi/13)."""
    return f"{1 - np.cos(letter_angle('b') - letter_angle('a')):.4f}"


@value("embedding-neighbour-ratio-gamma-10", gamma=10.0)
@value("embedding-neighbour-ratio-gamma-100", gamma=100.0)
def embedding_neighbour_ratio(gamma: float = 100.0) -> str:
    """A neighbour's softmax weight relative to the letter's own, for scores gamma cos(a_v - a_t)
    over the whole alphabet (computed from the softmax itself)."""
    angles = np.array([letter_angle(t) for t in VOCAB])
    scores = gamma * np.cos(angles - angles[0])  # the letter "a" and every other letter
    w = np.exp(scores - scores.max())
    w /= w.sum()
    return f"{w[1] / w[0]:.3f}"


@value("embedding-model-gamma")
def embedding_model_gamma() -> str:
    """The model's readout sharpness gamma (``Config().gamma``)."""
    return f"{Config().gamma:g}"


# Values of the exercises ------------------------------------------------------------------------


@value("embedding-opposite-step")
def embedding_opposite_step(d: int = DEFAULT.d) -> str:
    """The smallest k > 0 with E(k) = -E(0): how many letters apart two opposites are."""
    k = np.arange(1, 27)
    gap = np.linalg.norm(embed_index(k, d) + embed_index(0, d), axis=1)
    return str(int(k[np.argmin(gap)]))


@value("embedding-step-ten-count")
def embedding_step_ten_count(d: int = DEFAULT.d, step: float = np.pi / 10, n: int = 200) -> str:
    """How many distinct vectors the formula gives with the step ``step`` instead of pi/13,
    counted over the indices 0..n-1 (vectors closer than 1e-9 count as one)."""
    j = np.arange(d)
    rows = 0.5 * np.sin(np.arange(n)[:, None] * step + 0.1 * j)  # (n, d)
    distinct: list[np.ndarray] = []
    for r in rows:
        if all(np.linalg.norm(r - u) > 1e-9 for u in distinct):
            distinct.append(r)
    return str(len(distinct))


@value("embedding-right-angle-cosine")
def embedding_right_angle_cosine(d: int = DEFAULT.d) -> str:
    """The smallest |cosine| through the plane reader between "a" and any other letter."""
    pts = embedding_matrix(d) @ plane_reader(d).T  # (26, 2): (cos a_t, sin a_t)
    return f"{np.abs(pts[1:] @ pts[0]).min():.3f}"


@value("embedding-mean-bound")
def embedding_mean_bound(d: int = DEFAULT.d) -> str:
    """The smallest power of ten above the length of the mean of the 26 embeddings (TeX)."""
    mean = np.linalg.norm(embedding_matrix(d).mean(axis=0))
    return f"10^{{{math.ceil(math.log10(mean))}}}"


@value("embedding-setting-d", name="d")
def embedding_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
