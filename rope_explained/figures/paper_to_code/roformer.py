r"""Figures of the paper-to-code notebook (RoFormer, Su et al. 2021).

The notebook calls these functions like any other code and gets a matplotlib Figure; a cell that
shows one carries the tag ``fig:<id>``, by which the site puts the registered, numbered figure in
the cell's place.
"""

from __future__ import annotations

import numpy as np

from ...model import DEFAULT
from ...rope import apply_rope, frequencies, scaled_frequencies, yarn_keep
from .. import register, value
from ..style import COLORS, DIVERGING, centred_norm, new_figure


@register(
    "paper-score-diagonals",
    caption=r"The RoPE score \(\langle R_{\Theta,m} q, R_{\Theta,n} k\rangle\) of one random "
    r"query and key (\(d = 64\)) for every query position \(m\) and key position \(n\). Each "
    r"diagonal \(m - n = \text{const}\) has a single colour: the score depends only on the offset.",
    alt="Heat map, 48 by 48, red for positive and blue for negative scores. The colours form "
    "stripes parallel to the main diagonal: every cell on a given diagonal has the same colour.",
    d=DEFAULT.d,
    length=48,
    seed=2,
)
def score_diagonals(d=DEFAULT.d, length=48, seed=2):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    pos = np.arange(length)
    Q = apply_rope(np.tile(q, (length, 1)), pos)  # (length, d): q at every position m
    K = apply_rope(np.tile(k, (length, 1)), pos)  # (length, d): k at every position n
    scores = Q @ K.T  # (m, n)
    fig, ax = new_figure(width=6.4, height=5.2)
    im = ax.imshow(scores, cmap=DIVERGING, norm=centred_norm(scores), origin="upper")
    ax.set_xlabel(r"key position $n$")
    ax.set_ylabel(r"query position $m$")
    fig.colorbar(im, ax=ax, label=r"score $(R_{\Theta,m}q)^\top (R_{\Theta,n}k)$")
    return fig


@register(
    "paper-layouts",
    caption=r"Which coordinates share a rotation, for \(d = 16\). Interleaved (RoFormer, GPT-J, "
    r"Meta's reference LLaMA code): pair \(i\) is coordinates \((2i, 2i+1)\). Rotate-half "
    r"(GPT-NeoX, the Hugging Face port of LLaMA): pair \(i\) is \((i, i + d/2)\). The number "
    r"in each cell is the pair index \(i\), so its frequency \(\theta_i\).",
    alt="Two rows of 16 cells, one per coordinate 0 to 15. Top row, interleaved: pair indices "
    "0 0 1 1 2 2 up to 7 7. Bottom row, rotate-half: pair indices 0 to 7, then 0 to 7 again.",
    d=16,
)
def layouts(d=16):
    c = np.arange(d)
    pair = np.stack([c // 2, c % (d // 2)])  # row 0: interleaved, row 1: rotate-half
    fig, ax = new_figure(width=7.2, height=2.4)
    ax.imshow(pair, cmap="cividis", aspect="auto", vmin=0, vmax=d // 2 - 1)
    for r in range(2):
        for j in range(d):
            v = pair[r, j]
            ax.text(
                j,
                r,
                str(v),
                ha="center",
                va="center",
                fontsize=11,
                color="white" if v < d // 4 else "black",
            )
    ax.set_yticks([0, 1], ["interleaved", "rotate-half"])
    ax.set_xticks(c)
    ax.set_xlabel(r"coordinate of $q$ or $k$ (number in cell: pair index $i$)")
    for s in ax.spines.values():
        s.set_visible(False)
    return fig


@register(
    "paper-long-term-decay",
    caption=r"Long-term decay (RoFormer, section 3.4.3), \(d = 128\), base 10000. Left: the "
    r"paper's bound factor \(\frac{1}{d/2}\sum_{j=1}^{d/2} |S_j|\) against the relative distance "
    r"\(m - n\). Right: real scores, divided by their value at distance 0. A query and key with "
    r"the same content (\(k = q\), mean over 200 random vectors) keep about half of their "
    r"score at distance 50 and about a quarter, with ripples, near 500; for independent "
    r"random \(q, k\) the typical size (root mean square) does not decay.",
    alt="Two line plots against relative distance 0 to 512. Left: the bound starts at "
    '{{ value("paper-decay-bound-start") }}, falls quickly to about '
    '{{ value("paper-decay-bound-100") }} by distance 100, then slowly and with ripples, to '
    "between 5 and 11 "
    "near 500. Right: the mean score for k equal to q falls from 1 to about 0.5 at distance 50 "
    "and ripples around 0.25 near 500; the root-mean-square score of independent pairs stays "
    "near 1 throughout.",
    d=128,
    max_distance=512,
    n_vectors=200,
    seed=0,
)
def long_term_decay(d=128, max_distance=512, n_vectors=200, seed=0):
    theta = frequencies(d)  # (d/2,)
    r = np.arange(max_distance + 1)  # relative distance m - n
    S = np.cumsum(np.exp(1j * r[:, None] * theta[None, :]), axis=1)  # S_j, j = 1..d/2
    bound = np.abs(S).mean(axis=1)  # (1/(d/2)) sum_j |S_j|

    rng = np.random.default_rng(seed)
    same = np.zeros(r.size)
    indep_sq = np.zeros(r.size)
    for _ in range(0, n_vectors, 50):  # chunks keep memory small
        q = rng.standard_normal((50, d))
        k = rng.standard_normal((50, d))
        # the query at position m = distance, the key at n = 0: only m - n matters
        Qr = apply_rope(np.broadcast_to(q[:, None, :], (50, r.size, d)), r)  # (50, R, d)
        same += np.einsum("brd,bd->r", Qr, q)
        indep_sq += (np.einsum("brd,bd->br", Qr, k) ** 2).sum(axis=0)
    same /= n_vectors
    indep_rms = np.sqrt(indep_sq / n_vectors)

    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.6)
    ax0.plot(r, bound, color=COLORS[0])
    ax0.set_xlabel(r"relative distance $m - n$")
    ax0.set_ylabel(r"$\frac{1}{d/2}\sum_j |S_j|$")
    ax0.set_ylim(0, None)
    ax1.axhline(0, color="0.6", lw=0.8)
    ax1.plot(r, same / same[0], color=COLORS[5], label=r"mean score, $k = q$")
    ax1.plot(r, indep_rms / indep_rms[0], color=COLORS[2], label="RMS score, independent")
    ax1.set_xlabel(r"relative distance $m - n$")
    ax1.set_ylabel("score / score at distance 0")
    ax1.legend(loc="center right")
    return fig


@register(
    "paper-context-wavelengths",
    caption=r"Wavelength \(\lambda_i = 2\pi/\theta_i\) of each pair \(i\) for \(d = 128\), base "
    r"10000, a trained context \(L = 2048\) and an extension by \(s = 4\). Dashed: the original "
    r"RoPE. Position Interpolation stretches every pair by \(s\); NTK-aware scaling keeps the fast "
    r"pairs and stretches the slowest by \(s\); YaRN keeps pairs that turn many times within "
    r"\(L\), interpolates those that turn less than once and ramps in between, drawn here "
    r"with the ramp of the YaRN reference code and Hugging Face, equation (10.8), which is "
    r"linear in the pair index.",
    alt="Three log-scale line plots of wavelength against pair index 0 to 63, one per method. "
    "The original wavelengths rise from 6.3 to about 54000. Linear scaling lies a factor 4 above "
    "everywhere. NTK starts on the original and ends a factor 4 above. YaRN matches the original "
    "up to pair 16, lies a factor 4 above from pair 41 on, with a ramp between. Horizontal "
    "lines mark 2048 and 8192.",
    d=128,
    base=DEFAULT.base,
    factor=4.0,
    original_max_position=2048,
)
def context_wavelengths(d=128, base=DEFAULT.base, factor=4.0, original_max_position=2048):
    i = np.arange(d // 2)
    original = 2 * np.pi / frequencies(d, base)
    names = {"linear": "Position Interpolation", "ntk": "NTK-aware", "yarn": "YaRN"}
    fig, axes = new_figure(1, 3, width=7.2, height=3.6, sharey=True)
    for ax, (method, name), color in zip(axes, names.items(), COLORS[:3], strict=True):
        inv_freq, _ = scaled_frequencies(
            d,
            base=base,
            method=method,
            factor=factor,
            original_max_position=original_max_position,
        )
        ax.axhline(original_max_position, color="0.35", lw=1, ls=":")
        ax.axhline(factor * original_max_position, color="0.35", lw=1, ls="-.")
        ax.plot(i, original, color="0.5", ls="--", lw=1.5, label="original")
        ax.plot(i, 2 * np.pi / inv_freq, color=color, label=name)
        ax.set_yscale("log")
        ax.set_xlabel(r"pair index $i$")
        ax.legend(loc="upper left", fontsize=10)
    axes[0].set_ylabel(r"wavelength $2\pi/\theta_i$ (positions)")
    axes[2].text(d // 2 - 1, original_max_position * 0.8, r"$L$", ha="right", va="top")
    axes[2].text(d // 2 - 1, factor * original_max_position * 1.2, r"$sL$", ha="right", va="bottom")
    return fig


@register(
    "paper-yarn-ramps",
    caption=r"YaRN's blend weight \(\rho_i\) (1: the pair keeps \(\theta_i\); 0: it is "
    r"interpolated to \(\theta_i/s\)) for \(d = 128\), base 10000 and \(L = 2048\), read "
    r"two ways. Paper: linear in the number of turns \(r_i\), equation (10.7). Code (YaRN "
    r"reference code, Hugging Face, this package and Figure 10.4): linear in the pair index "
    r"between rounded ends, equation (10.8). Left against the pair index, right against "
    r"\(r_i\) on a log axis. The two differ by up to "
    r'{{ value("paper-yarn-ramp-gap") }}, at pair {{ value("paper-yarn-ramp-gap-pair") }}.',
    alt="Two line plots with markers, two curves each. Left: weight against pair index 0 to "
    "63. Both curves are 1 up to pair 16 and 0 from pair 41 on; between, the code's curve "
    "falls in a straight line, the paper's falls fast at first and then slowly, lying below "
    'the code\'s by up to {{ value("paper-yarn-ramp-gap") }}. Right: weight against the number '
    "of turns r on a log axis from about 0.03 to 500: the paper's curve rises as a straight line "
    "in r, which bends on the log axis, the code's as a straight line in log r.",
    d=128,
    base=DEFAULT.base,
    original_max_position=2048,
)
def yarn_ramps(d=128, base=DEFAULT.base, original_max_position=2048):
    """YaRN's weight rho_i under the paper's formula and under the reference code's ramp."""
    i = np.arange(d // 2)
    turns = original_max_position * frequencies(d, base) / (2 * np.pi)  # r_i
    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.6, sharey=True, layout="constrained")
    for ramp, label, color, marker in (
        ("code", "code (10.8)", COLORS[0], "o"),
        ("paper", "paper (10.7)", COLORS[5], "s"),
    ):
        rho = yarn_keep(d, base=base, original_max_position=original_max_position, ramp=ramp)
        ax0.plot(i, rho, color=color, marker=marker, ms=3.5, lw=1.4, label=label)
        ax1.plot(turns, rho, color=color, marker=marker, ms=3.5, lw=1.4, label=label)
    ax0.set_xlabel(r"pair index $i$")
    ax0.set_ylabel(r"weight $\rho_i$ on $\theta_i$")
    ax1.set_xscale("log")
    ax1.set_xlim(turns.min() / 1.5, turns.max() * 1.5)
    ax1.set_xlabel(r"turns $r_i$ within $L$")
    for ax in (ax0, ax1):
        ax.grid(alpha=0.3)
    ax0.legend(loc="upper right", fontsize=10)
    return fig


def _ramp_gap(d: int = 128, base: float = DEFAULT.base, original_max_position: int = 2048):
    """The largest difference between the two readings of YaRN's weight, and its pair."""
    kw = {"base": base, "original_max_position": original_max_position}
    gap = np.abs(yarn_keep(d, ramp="code", **kw) - yarn_keep(d, ramp="paper", **kw))
    return float(gap.max()), int(np.argmax(gap))


@value("paper-yarn-ramp-gap")
def paper_yarn_ramp_gap() -> str:
    """The largest difference between the code's and the paper's YaRN weights."""
    return f"{_ramp_gap()[0]:.2f}"


@value("paper-yarn-ramp-gap-pair")
def paper_yarn_ramp_gap_pair() -> str:
    """The pair at which the two readings of YaRN's weight differ most."""
    return str(_ramp_gap()[1])


# Values the page states ------------------------------------------------------------------------


@value("paper-decay-bound-start", distance=0, decimals=1)
@value("paper-decay-bound-100", distance=100, decimals=0)
def paper_decay_bound(distance: int = 0, decimals: int = 1, d: int = 128) -> str:
    """The paper's bound factor (1/(d/2)) sum_j |S_j| at one relative distance."""
    S = np.cumsum(np.exp(1j * distance * frequencies(d)))  # S_j, j = 1..d/2
    return f"{np.abs(S).mean():.{decimals}f}"
