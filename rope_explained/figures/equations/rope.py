"""Figures of the RoPE page (``equations/rope.md``).

Every figure reads the package: [`frequencies`][rope_explained.rope.frequencies],
[`rotation_matrix`][rope_explained.rope.rotation_matrix] and
[`apply_rope`][rope_explained.rope.apply_rope] (with ``inv_freq`` for the equal-frequency
what-if, and ``layout`` for the two pairings).
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap

from ...heads import constant_key_vector
from ...model import DEFAULT
from ...rope import apply_rope, frequencies, rotation_matrix
from ...sources import source_link
from .. import register, setting_text, thousands, times_ten, value
from ..style import COLORS, DIVERGING, SEQUENTIAL, centred_norm, legend_columns, new_figure


def _matrix_of(m: float, d: int, layout: str, inv_freq: np.ndarray | None = None) -> np.ndarray:
    """The (d, d) matrix that apply_rope applies at position m (its columns: images of e_j)."""
    eye = np.eye(d)[:, None, :]  # (d, 1, d): d sequences of one vector each
    return apply_rope(eye, [m], layout=layout, inv_freq=inv_freq)[:, 0, :].T  # (d, d)


def _wavelength(x):
    """2 pi / x, the map between a frequency and its wavelength (its own inverse)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        return 2 * np.pi / x


@register(
    "rope-frequencies",
    caption=r"The frequency schedule \(\theta_i = 10000^{-2i/d}\) for "
    r'\(d = {{ value("rope-setting-d") }}\) (dots), '
    r"and the wavelength \(\lambda_i = 2\pi/\theta_i\) in positions on the right-hand axis. "
    r'Pair 0 turns once every {{ value("rope-fastest-wavelength-short") }} positions, pair 31 '
    r'once every {{ value("rope-slowest-wavelength-text") }}. Faint lines: the bases 100 and '
    r"500,000 for comparison.",
    alt="Log-scale plot of theta_i against pair index i from 0 to 31: a straight falling line "
    "from 1 at i = 0 to about 1.3e-4 at i = 31, with a right-hand axis giving the wavelength "
    "from about 6 to about 47,000 positions. Two faint lines show base 100 (flatter) and base "
    "500,000 (steeper).",
    d=DEFAULT.d,
    base=DEFAULT.base,
)
def frequency_schedule(d: int = DEFAULT.d, base: float = DEFAULT.base):
    """theta_i on a log scale, with the wavelength 2 pi / theta_i as a second axis."""
    i = np.arange(d // 2)
    theta = frequencies(d, base)  # (d/2,)
    fig, ax = new_figure(width=7.2, height=4.2)
    for b, col in ((100.0, COLORS[1]), (500000.0, COLORS[2])):
        ax.plot(i, frequencies(d, b), color=col, lw=1.5, alpha=0.7, label=f"base {b:,.0f}")
    ax.plot(i, theta, "o-", color=COLORS[0], ms=4, label=f"base {base:,.0f} (RoFormer)")
    ax.set_yscale("log")
    ax.set_xlabel(r"pair index $i$ (coordinates $2i,\ 2i+1$)")
    ax.set_ylabel(r"frequency $\theta_i$ (radians per position)")
    sec = ax.secondary_yaxis("right", functions=(_wavelength, _wavelength))
    sec.set_ylabel(r"wavelength $\lambda_i = 2\pi/\theta_i$ (positions)")
    marked = (0, d // 4, d // 2 - 1)
    ax.plot(i[list(marked)], theta[list(marked)], "o", ms=9, mfc="none", mec="black", mew=1.5)
    lines = [
        rf"$\theta_{{{k}}} = {theta[k]:.3g}$,  $\lambda_{{{k}}} = "
        + f"{2 * np.pi / theta[k]:,.{2 if k == 0 else 0}f}".replace(",", "{,}")
        + "$"
        for k in marked
    ]
    ax.text(
        0.98,
        0.97,
        "\n".join(lines),
        transform=ax.transAxes,
        ha="right",
        va="top",
        fontsize=11,
        bbox={"fc": "white", "ec": "0.7", "pad": 4},
    )
    ax.legend(loc="lower left")
    return fig


@register(
    "rope-turning",
    caption=r"One pair of coordinates turning with position: the unit vector \((1, 0)\) in "
    r"pair \(i\), rotated by \(R_{\Theta,m}\) for \(m = 0, \ldots, 24\) (colour = position). "
    r"The arrow marks \(m = 24\). Pair 0 goes round the circle almost four times; pair 31 has "
    r"barely left its start.",
    alt="Four unit circles side by side for pairs i = 0, 8, 16 and 31. Dots coloured by "
    "position m from 0 (dark purple) to 24 (yellow). For i = 0 the dots are spread all round "
    "the circle; for i = 8 they cover about a third of a turn; for i = 16 and i = 31 they "
    "stay bunched near the starting point at angle 0.",
    d=DEFAULT.d,
    pairs=(0, 8, 16, 31),
    m_max=24,
)
def rope_turning(d: int = DEFAULT.d, pairs=(0, 8, 16, 31), m_max: int = 24):
    """Small multiples: one pair's vector at positions 0..m_max, on its unit circle."""
    m = np.arange(m_max + 1, dtype=float)
    theta = frequencies(d)
    fig, axes = new_figure(1, len(pairs), width=7.2, height=2.4)
    u = np.linspace(0, 2 * np.pi, 300)
    for ax, i in zip(axes, pairs, strict=True):
        x = np.zeros((m.size, d))
        x[:, 2 * i] = 1.0  # (1, 0) in pair i, the same vector at every position
        y = apply_rope(x, m)[:, 2 * i : 2 * i + 2]  # (m, 2)
        ax.plot(np.cos(u), np.sin(u), color="0.8", lw=1, zorder=0)
        sc = ax.scatter(*y.T, c=m, cmap=SEQUENTIAL, s=22, zorder=2, edgecolors="none")
        ax.annotate(
            "",
            xy=y[-1],
            xytext=(0, 0),
            arrowprops={"arrowstyle": "->", "color": COLORS[5], "lw": 1.8},
        )
        ax.set_aspect("equal")
        ax.set_xlim(-1.25, 1.25)
        ax.set_ylim(-1.25, 1.25)
        ax.set_xticks([])
        ax.set_yticks([])
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
        ax.set_title(rf"$i = {i}$" + "\n" + rf"$\theta_{{{i}}} = {theta[i]:.2g}$", fontsize=12)
    fig.colorbar(sc, ax=axes, label=r"position $m$", shrink=0.85)
    return fig


@register(
    "rope-matrix",
    caption=r"The rotation matrix \(R_{\Theta,m}\) for a small head, \(d = 16\), at "
    r"positions \(m = 1\) and \(m = 6\). Only the \(2 \times 2\) blocks on the diagonal are "
    r"non-zero; the slow pairs (bottom right) stay close to the identity.",
    alt="Two 16 by 16 heatmaps, blue negative, red positive, white zero. In both, only eight "
    "2 by 2 blocks along the diagonal are coloured. At m = 1 the top-left blocks show clear "
    "sine entries off the diagonal; lower blocks are nearly identity. At m = 6 more blocks "
    "show rotation.",
    d=16,
    positions=(1, 6),
)
def rope_matrix(d: int = 16, positions=(1, 6)):
    """Heatmaps of R_{Theta,m} for a small d, showing its block-diagonal structure."""
    fig, axes = new_figure(1, len(positions), width=7.2, height=3.7)
    norm = centred_norm(np.array([-1.0, 1.0]))
    for ax, m in zip(axes, positions, strict=True):
        R = rotation_matrix(m, d)  # (d, d)
        im = ax.imshow(R, cmap=DIVERGING, norm=norm, interpolation="none")
        for b in range(2, d, 2):
            ax.axhline(b - 0.5, color="0.85", lw=0.6)
            ax.axvline(b - 0.5, color="0.85", lw=0.6)
        ax.set_title(rf"$R_{{\Theta,{m}}}$", fontsize=13)
        ticks = np.arange(0, d, 2)
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
        ax.set_xlabel("column")
    axes[0].set_ylabel("row")
    fig.colorbar(im, ax=axes, label="entry", shrink=0.85)
    return fig


@register(
    "rope-relative-score",
    caption=r"The score \((R_{\Theta,m}\,q)^T (R_{\Theta,n}\,k)\) for one fixed random pair "
    r'\(q, k\) (\(d = {{ value("rope-setting-d") }}\)), at every query position \(m\) and key '
    r"position \(n\). Left: it "
    r"is constant along every diagonal \(n - m = \text{const}\). Right: rows \(m = 8, 24, 40\) "
    r"plotted against the offset \(n - m\) lie on one curve. For this pair every score "
    r"happens to be negative; the sign belongs to the content, not to RoPE (with \(-k\) in "
    r"place of \(k\) every score would change sign), so the colour scale spans the scores "
    r"that occur.",
    alt="Left: a 48 by 48 heatmap of scores on a dark-blue-to-yellow scale running from the "
    "lowest score (about -15) to the highest (just below 0), made entirely of "
    "stripes parallel to the main diagonal. Right: a line plot of score against offset n - m "
    "for three query positions; the three curves coincide exactly.",
    d=DEFAULT.d,
    T=48,
    seed=0,
)
def rope_relative_score(d: int = DEFAULT.d, T: int = 48, seed: int = 0):
    """Score heatmap over (m, n) for fixed content: it depends only on n - m."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, d))  # (d,) each: fixed content
    pos = np.arange(T, dtype=float)
    Q = apply_rope(np.tile(q, (T, 1)), pos)  # (T, d): q_m = R_m q
    K = apply_rope(np.tile(k, (T, 1)), pos)  # (T, d): k_n = R_n k
    S = Q @ K.T  # (T, T): S[m, n] = q_m . k_n
    fig, (ax, ax2) = new_figure(1, 2, width=7.2, height=3.6, width_ratios=[1.15, 1])
    # Sequential, over the range that occurs: these scores need not straddle zero.
    im = ax.imshow(S, cmap="cividis", vmin=S.min(), vmax=S.max(), interpolation="none")
    ax.set_xlabel(r"key position $n$")
    ax.set_ylabel(r"query position $m$")
    fig.colorbar(im, ax=ax, label="score", shrink=0.9)
    for j, m in enumerate((8, 24, 40)):
        ax2.plot(pos - m, S[m], lw=[4.5, 2.5, 1.2][j], color=COLORS[j], label=rf"$m = {m}$")
    ax2.set_xlabel(r"offset $n - m$")
    ax2.set_ylabel(r"score $q_m^T k_n$")
    ax2.yaxis.set_label_position("right")
    ax2.yaxis.tick_right()
    ax2.spines["left"].set_visible(False)
    ax2.spines["right"].set_visible(True)
    ax2.axhline(0, color="0.8", lw=0.8, zorder=0)
    lo, hi = S.min(), S.max()
    ax2.set_ylim(lo - 0.4 * (hi - lo), hi + 0.05 * (hi - lo))
    ax2.legend(
        loc="lower center",
        fontsize=10,
        ncols=legend_columns(3),
        handlelength=1.2,
        columnspacing=0.8,
    )
    return fig


@register(
    "rope-aliasing",
    caption=r"The combination lock. Score \(c^T R_{\Theta,\Delta}\,c\) of the constant key "
    r"\(c = (1, 0, 1, 0, \ldots)\) against itself at offset \(\Delta\), divided by its "
    r"maximum \(d/2\). Top: every pair at the same frequency \(\theta = 2\pi/16\): the score "
    r"returns to its maximum every 16 positions. Bottom: the RoPE spectrum "
    r'(\(d = {{ value("rope-setting-d") }}\)): the maximum is reached only at \(\Delta = 0\).',
    alt="Two line plots against offset Delta from 0 to 200. Top: a cosine wave between -1 and "
    "1 with peaks of height 1 at Delta = 0, 16, 32 and so on, marked with dots. Bottom: a "
    "curve that is 1 at Delta = 0, falls quickly and then wanders between about 0 and 0.5 "
    "without ever returning to 1.",
    d=DEFAULT.d,
    period=16,
    delta_max=200,
)
def rope_aliasing(d: int = DEFAULT.d, period: int = 16, delta_max: int = 200):
    """Equal frequencies alias with period 2 pi / theta; the RoPE spectrum does not."""
    c = constant_key_vector(d)  # (d,)
    delta = np.arange(delta_max + 1, dtype=float)
    C = np.tile(c, (delta.size, 1))  # (Delta, d)
    same = np.full(d // 2, 2 * np.pi / period)
    rows = []
    for inv_freq in (same, None):
        K = apply_rope(C, delta, inv_freq=inv_freq)  # (Delta, d): R_Delta c
        rows.append(K @ c / (d / 2))  # (Delta,): c^T R_Delta c / (d/2)
    fig, axes = new_figure(2, 1, width=7.2, height=4.6, sharex=True)
    labels = (rf"all $\theta_i = 2\pi/{period}$", r"RoPE: $\theta_i = 10000^{-2i/d}$")
    for ax, y, lab, col in zip(axes, rows, labels, (COLORS[5], COLORS[0]), strict=True):
        ax.plot(delta, y, color=col, lw=1.6, label=lab)
        peaks = delta[np.isclose(y, 1.0, atol=1e-9)]
        ax.plot(peaks, np.ones_like(peaks), "o", color="black", ms=4)
        ax.axhline(1.0, color="0.6", ls=":", lw=1)
        ax.axhline(0.0, color="0.85", lw=0.8, zorder=0)
        ax.set_ylabel(r"score$\,/\,(d/2)$")
        ax.set_ylim(-1.15, 1.3)
        ax.legend(loc="lower right", fontsize=11, frameon=True, framealpha=0.9)
    axes[1].set_xlabel(r"offset $\Delta = n - m$")
    return fig


@register(
    "rope-layouts",
    caption=r"Which coordinates form a pair, for \(d = 8\). Each coloured cell is a non-zero "
    r"entry of the matrix that `apply_rope` applies, coloured by its pair \(i\) "
    r"(\(c_i = \cos m\theta_i\), \(s_i = \sin m\theta_i\)). Left: interleaved pairs "
    r"\((2i, 2i+1)\). Right: rotate-half pairs \((i, i + d/2)\).",
    alt="Two 8 by 8 grids. Left: four 2 by 2 blocks along the diagonal, each a different "
    "colour, with entries c_i, -s_i, s_i, c_i. Right: the same four colours, but pair i joins "
    "coordinates i and i + 4: the cos entries c_i lie on the main diagonal and the sine "
    "entries on the two diagonals 4 places above (-s_i) and below (s_i) it.",
    d=8,
)
def rope_layouts(d: int = 8):
    """The pairing pattern of the two layouts, read off apply_rope's matrices."""
    # Distinct angles in (0, pi/2) so every cos and sin is positive and tells its pair apart.
    inv_freq = np.linspace(0.3, 1.2, d // 2)
    cos, sin = np.cos(inv_freq), np.sin(inv_freq)
    cmap = ListedColormap(["white", *COLORS[: d // 2]])
    fig, axes = new_figure(1, 2, width=7.2, height=3.9)
    for ax, layout, name in zip(
        axes, ("interleaved", "half"), ("interleaved", "rotate half"), strict=True
    ):
        R = _matrix_of(1.0, d, layout, inv_freq)  # (d, d)
        pair = np.zeros((d, d), dtype=int)  # 0 = zero entry, i + 1 = pair i
        text = np.full((d, d), "", dtype=object)
        for r, col in zip(*np.nonzero(np.abs(R) > 1e-12), strict=True):
            v = R[r, col]
            i = int(np.argmin(np.minimum(np.abs(np.abs(v) - cos), np.abs(np.abs(v) - sin))))
            is_cos = np.isclose(v, cos[i])
            pair[r, col] = i + 1
            text[r, col] = f"$c_{i}$" if is_cos else (f"$-s_{i}$" if v < 0 else f"$s_{i}$")
        ax.imshow(pair, cmap=cmap, vmin=-0.5, vmax=d // 2 + 0.5, interpolation="none")
        for r in range(d):
            for col in range(d):
                if text[r, col]:
                    ax.text(
                        col,
                        r,
                        text[r, col],
                        ha="center",
                        va="center",
                        fontsize=10.5,
                        color="white" if pair[r, col] in (1, 3) else "black",
                    )
        ax.set_xticks(range(d))
        ax.set_yticks(range(d))
        ax.set_xticks(np.arange(-0.5, d), minor=True)
        ax.set_yticks(np.arange(-0.5, d), minor=True)
        ax.grid(which="minor", color="0.85", lw=0.6)
        ax.tick_params(which="minor", length=0)
        ax.set_title(name, fontsize=12)
        ax.set_xlabel("input coordinate")
    axes[0].set_ylabel("output coordinate")
    return fig


# Values the page states ------------------------------------------------------------------------


@value("rope-frequency-ratio")
def rope_frequency_ratio(d: int = DEFAULT.d, base: float = DEFAULT.base) -> str:
    """The factor between the frequencies of neighbouring pairs."""
    theta = frequencies(d, base)
    return f"{theta[0] / theta[1]:.2f}"


@value("rope-slowest-frequency")
def rope_slowest_frequency(d: int = DEFAULT.d, base: float = DEFAULT.base) -> str:
    """The frequency of the slowest pair (TeX)."""
    return times_ten(frequencies(d, base)[-1], 2)


@value("rope-fastest-wavelength", decimals=2)
@value("rope-fastest-wavelength-short", decimals=1)
def rope_fastest_wavelength(
    decimals: int = 2, d: int = DEFAULT.d, base: float = DEFAULT.base
) -> str:
    """The wavelength of pair 0, in positions."""
    return f"{_wavelength(frequencies(d, base)[0]):.{decimals}f}"


@value("rope-slowest-wavelength", tex=True)
@value("rope-slowest-wavelength-text", tex=False)
def rope_slowest_wavelength(
    tex: bool = True, d: int = DEFAULT.d, base: float = DEFAULT.base
) -> str:
    """The wavelength of the slowest pair, in positions, with a thousands separator."""
    return thousands(_wavelength(frequencies(d, base)[-1]), tex=tex)


@value("rope-runner-up-score")
def rope_runner_up_score(d: int = DEFAULT.d) -> str:
    """The score of the constant key against itself one position on, as a share of d/2."""
    c = constant_key_vector(d)
    return f"{apply_rope(c[None, :], [1.0])[0] @ c / (d / 2):.3f}"


@value("rope-slowest-wavelength-500k", base=500000.0)
def rope_slowest_wavelength_base(base: float = 500000.0, d: int = DEFAULT.d) -> str:
    """The slowest wavelength for another base, in positions (TeX thousands separator)."""
    return thousands(_wavelength(frequencies(d, base)[-1]), tex=True)


# Values of the exercises ------------------------------------------------------------------------


@value("rope-return-pair-0", pair=0)
@value("rope-return-pair-8", pair=8)
def rope_first_return(
    pair: int = 0, eps: float = 0.01, d: int = DEFAULT.d, limit: int = 5_000
) -> str:
    """The first offset Delta >= 1 at which pair ``pair`` of a vector rotated by R_Delta is
    within ``eps`` radians of where it started, found by rotating (1, 0) with apply_rope."""
    delta = np.arange(1, limit + 1, dtype=float)
    x = np.zeros((delta.size, d))
    x[:, 2 * pair] = 1.0
    y = apply_rope(x, delta)[:, 2 * pair : 2 * pair + 2]  # (Delta, 2): the pair's hand
    angle = np.abs(np.arctan2(y[:, 1], y[:, 0]))  # how far from the start, in (-pi, pi]
    hits = np.flatnonzero(angle < eps)
    if hits.size == 0:
        raise ValueError(f"pair {pair} does not return within {eps} rad below Delta = {limit}")
    return thousands(delta[hits[0]], tex=True)


@value("rope-slowest-degree")
def rope_slowest_degree(d: int = DEFAULT.d) -> str:
    """How many positions the slowest pair needs to turn by one degree, rounded up."""
    return str(int(np.ceil(np.deg2rad(1.0) / frequencies(d)[-1])))


@value("rope-layout-interleaved-a", layout="interleaved", which=0)
@value("rope-layout-interleaved-b", layout="interleaved", which=1)
@value("rope-layout-half-a", layout="half", which=0)
@value("rope-layout-half-b", layout="half", which=1)
def rope_layout_pair(layout: str = "half", which: int = 0, pair: int = 2, d: int = 8) -> str:
    """The coordinates that form pair ``pair`` in ``layout``, read off apply_rope's matrix: only
    pair ``pair`` turns (every other frequency is 0), so the coordinates it moves are its own."""
    inv_freq = np.zeros(d // 2)
    inv_freq[pair] = 1.0
    R = _matrix_of(1.0, d, layout, inv_freq)  # (d, d)
    moved = np.flatnonzero(np.abs(np.diag(R) - 1.0) > 1e-12)
    return str(int(moved[which]))


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = ("meta-apply-rotary-emb", "hf-apply-rotary", "hf-permute-for-rope")
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``rope-src-KEY``."""
for _key in CITED:
    value(f"rope-src-{_key}", key=_key)(_cited)


@value("rope-setting-d", name="d")
def rope_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
