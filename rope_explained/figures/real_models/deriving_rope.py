r"""Figures of the derivation page (``real-models/deriving-rope.md``).

The additive sinusoidal encoding against RoPE, from
[`additive_score_terms`][rope_explained.sinusoidal.additive_score_terms]: one generic head, one
letter as the query's content and one as the key's, at every pair of positions.
"""

from __future__ import annotations

import functools

import numpy as np

from ...model import DEFAULT
from ...sinusoidal import additive_score_terms
from .. import below, register, setting_text, value
from ..style import COLORS, DIVERGING, centred_norm, legend_columns, new_figure

SETTINGS = {"query_letter": "a", "key_letter": "b", "T": 48, "seed": 0}
"""The query's and the key's letters, the number of positions and the seed of the head."""
OFFSETS = (-1, -4)
"""The offsets n - m of the second figure (keys one and four steps back)."""


@functools.cache
def terms() -> dict[str, np.ndarray]:
    """The terms of the additive score and the RoPE score, computed once."""
    return additive_score_terms(**SETTINGS)


def at_offset(score: np.ndarray, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """The query positions m and the scores [m, m + offset] where the key exists."""
    T = score.shape[0]
    m = np.arange(max(0, -offset), min(T, T - offset))
    return m, score[m, m + offset]


PANELS = (
    ("content_position", r"$x^T M\, \mathrm{PE}_n$: content of $m$, position of $n$"),
    ("position_content", r"$\mathrm{PE}_m^T M\, y$: position of $m$, content of $n$"),
    ("additive", r"additive: $(x + \mathrm{PE}_m)^T M\, (y + \mathrm{PE}_n)$"),
    ("rope", r"RoPE: $(R_{\Theta,m} W_q x)^T (R_{\Theta,n} W_k y)$"),
)


@register(
    "deriving-cross-terms",
    caption=r"The score of one generic head (random \(W_q, W_k\), "
    r'\(d = {{ value("deriving-setting-d") }}\)) between the '
    r"letter a as query at position \(m\) and the letter b as key at position \(n\), for "
    r"\(m, n < 48\). Top: the two cross terms of the additive sinusoidal encoding: each "
    r"changes with one token's absolute position only (stripes across or down), whatever the "
    r"offset. Bottom left: the whole additive score. Bottom right: the RoPE score of the "
    r"same contents, constant along every diagonal \(n - m = \text{const}\). One colour "
    r"scale for all four.",
    alt="Four heatmaps over query position m (down) and key position n (across), red positive, "
    "blue negative. Top left: vertical stripes, the value depends on n only. Top right: "
    "horizontal stripes, the value depends on m only. Bottom left: a patchy pattern with no "
    "diagonal structure. Bottom right: stripes parallel to the main diagonal only.",
)
def cross_terms():
    """Heatmaps of the cross terms, the additive score and the RoPE score."""
    S = terms()
    norm = centred_norm(np.concatenate([S[key].ravel() for key, _ in PANELS]))
    fig, axes = new_figure(2, 2, width=7.2, height=6.6, sharex=True, sharey=True, narrow=(1, 2.9))
    for ax, (key, title) in zip(axes.ravel(), PANELS, strict=True):
        im = ax.imshow(S[key], cmap=DIVERGING, norm=norm, interpolation="none")
        ax.set_title(title, fontsize=10.5)
        ax.set_xticks(np.arange(0, 48, 10))
        ax.set_yticks(np.arange(0, 48, 10))
    for ax in axes[1]:
        ax.set_xlabel(r"key position $n$")
    for ax in axes[:, 0]:
        ax.set_ylabel(r"query position $m$")
    fig.colorbar(im, ax=axes, label="score term", shrink=0.7)
    return fig


@register(
    "deriving-fixed-offset",
    caption=r"The same scores along two diagonals of {{ fig('deriving-cross-terms') }}: the "
    r"key one step and four steps before the query, against the query's position \(m\). "
    r"With the additive encoding the score of the same two letters at the same offset "
    r"wanders with where the pair stands; with RoPE it is one number per offset.",
    alt="Line plot of score against query position m from 0 to 47. Two wavy lines for the "
    "additive encoding (offsets -1 and -4) rise and fall by several units; two flat "
    "horizontal lines for RoPE at the same offsets.",
)
def fixed_offset():
    """Scores at fixed offsets against absolute position: additive wanders, RoPE is flat."""
    S = terms()
    fig, ax = new_figure(width=7.2, height=3.6)
    for j, offset in enumerate(OFFSETS):
        for key, style, name in (("additive", "-o", "additive"), ("rope", "--", "RoPE")):
            m, s = at_offset(S[key], offset)
            ax.plot(m, s, style, color=COLORS[2 * j], ms=3, lw=1.6,
                    label=rf"{name}, $n - m = {offset}$")  # fmt: skip
    ax.axhline(0, color="0.8", lw=0.8, zorder=0)
    ax.set_xlabel(r"query position $m$")
    ax.set_ylabel(r"score $q_m^T k_n$")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 1.22), ncols=legend_columns(2), fontsize=10)
    return fig


# Values the page states ------------------------------------------------------------------------


@value("deriving-additive-low", end="min")
@value("deriving-additive-high", end="max")
def additive_extreme(end: str = "min") -> str:
    """The lowest or highest additive score of a over b one step back, over positions."""
    _, s = at_offset(terms()["additive"], -1)
    return f"{(s.min() if end == 'min' else s.max()):.1f}"


@value("deriving-rope-score")
def rope_score() -> str:
    """The RoPE score of a over b one step back (the same at every position)."""
    _, s = at_offset(terms()["rope"], -1)
    return f"{s.mean():.2f}"


@value("deriving-rope-spread")
def rope_spread() -> str:
    """A bound on how far the RoPE score one step back moves over the positions (TeX): not at
    all in exact arithmetic, round-off here (about 1e-14)."""
    _, s = at_offset(terms()["rope"], -1)
    return below(float(np.ptp(s)), 1e-13)


# Values of the exercises -------------------------------------------------------------------------


def _closest_return(limit: int, theta: float = 1.0) -> tuple[int, float]:
    """The distance ``m`` in ``1..limit`` at which a pair turning ``theta`` per token comes
    closest to a whole number of turns, and how far from it it is, in radians."""
    m = np.arange(1, limit + 1)
    miss = np.abs(np.remainder(m * theta + np.pi, 2 * np.pi) - np.pi)
    best = int(np.argmin(miss))
    return int(m[best]), float(miss[best])


@value("deriving-ex-return-100", limit=100)
@value("deriving-ex-return-1000", limit=1000)
def ex_return(limit: int = 100) -> str:
    """The distance up to ``limit`` at which the fastest pair (one radian per token) comes
    closest to where it started."""
    return str(_closest_return(limit)[0])


@value("deriving-ex-return-100-miss", limit=100, digits=1)
@value("deriving-ex-return-1000-miss", limit=1000, digits=0)
def ex_return_miss(limit: int = 100, digits: int = 1) -> str:
    """How far from a whole number of turns the fastest pair is there, in radians (TeX)."""
    from .. import times_ten

    return times_ten(_closest_return(limit)[1], digits)


@value("deriving-ex-identity-score")
def ex_identity_score(d: int = DEFAULT.d) -> str:
    r"""\(p_m^T p_{m+1} = \sum_i \cos\theta_i\): the position term with \(M = I\), one step
    apart."""
    from ...rope import frequencies

    return f"{np.cos(frequencies(d)).sum():.2f}"


@functools.cache
def _mirrored_scores(
    T: int = 48, d: int = DEFAULT.d, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The scores of one random query and key at every pair of positions, rotated correctly
    and with the key turned the wrong way (by -n), shape ``(T, T)`` each."""
    from ...rope import apply_rope

    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, d))
    pos = np.arange(T, dtype=np.float64)
    Q = apply_rope(np.tile(q, (T, 1)), pos)
    right = Q @ apply_rope(np.tile(k, (T, 1)), pos).T
    wrong = Q @ apply_rope(np.tile(k, (T, 1)), -pos).T
    return right, wrong


@value("deriving-ex-mirrored-column0")
def ex_mirrored_column0() -> str:
    """A bound on how far the mirrored rotation moves the scores of the key at position 0
    (TeX): not at all in exact arithmetic, round-off here (about 1e-14)."""
    right, wrong = _mirrored_scores()
    return below(float(np.abs(right[:, 0] - wrong[:, 0]).max()), 1e-12)


@value("deriving-ex-mirrored-elsewhere")
def ex_mirrored_elsewhere() -> str:
    """The largest change the mirrored rotation makes to any other causal score."""
    right, wrong = _mirrored_scores()
    return f"{np.abs(np.tril(right - wrong)[:, 1:]).max():.1f}"


@value("deriving-ex-mirrored-spread")
def ex_mirrored_spread() -> str:
    """How far the mirrored score one step back moves over the positions (largest minus
    smallest): zero for a relative score."""
    _, wrong = _mirrored_scores()
    _, s = at_offset(wrong, -1)
    return f"{s.max() - s.min():.1f}"


@value("deriving-ex-return-100-turns", limit=100)
@value("deriving-ex-return-1000-turns", limit=1000)
def ex_return_turns(limit: int = 100) -> str:
    """How many whole turns the fastest pair has made at that distance."""
    m, _ = _closest_return(limit)
    return str(round(m / (2 * np.pi)))


@value("deriving-setting-d", name="d")
def deriving_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
