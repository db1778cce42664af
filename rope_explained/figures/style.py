"""The shared look of the figures: one style file, and helpers every figure module uses.

Colour maps: ``viridis`` for probabilities and attention (sequential, 0 to 1), ``cividis`` for
other non-negative quantities, and [`DIVERGING`][] centred on zero ([`centred_norm`][])
for signed values such as raw scores. All three read in grey scale and for the common kinds
of colour blindness. The line colours are the Okabe-Ito palette.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.patches import Rectangle

STYLE_FILE = Path(__file__).with_name("rope_explained.mplstyle")
SEQUENTIAL = "viridis"
"""The colour map of probabilities and attention (sequential, 0 to 1)."""
DIVERGING = "RdBu_r"
"""The colour map of signed values such as raw scores, centred on zero by [`centred_norm`][]."""
MASK_COLOR = "0.86"
"""The cells of a pattern that the mask hides (a key after its query): grey, hatched."""
COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
"""Okabe-Ito colours, in the order of the style's colour cycle."""


@contextlib.contextmanager
def style_context():
    """Apply the site's matplotlib style (and only it) inside the ``with`` block."""
    with plt.style.context(["default", str(STYLE_FILE)]):
        yield


def new_figure(
    nrows: int = 1, ncols: int = 1, *, width: float = 7.2, height: float = 4.0, **kwargs
):
    """``plt.subplots`` in the site's style; returns ``(fig, axes)``."""
    with style_context():
        return plt.subplots(nrows, ncols, figsize=(width, height), **kwargs)


def centred_norm(values: np.ndarray) -> TwoSlopeNorm:
    """A colour norm for signed values with zero at the centre of [`DIVERGING`][]."""
    finite = np.asarray(values)[np.isfinite(values)]
    span = float(np.max(np.abs(finite))) if finite.size else 1.0
    span = span or 1.0
    return TwoSlopeNorm(vcenter=0.0, vmin=-span, vmax=span)


def token_ticks(ax, tokens, axis: str = "both", max_labels: int = 40) -> None:
    """Label a heatmap's rows and/or columns with tokens (thinned when there are many)."""
    n = len(tokens)
    step = max(1, int(np.ceil(n / max_labels)))
    idx = np.arange(0, n, step)
    labels = [f"{tokens[i]}" for i in idx]
    if axis in ("x", "both"):
        ax.set_xticks(idx, labels, fontsize=9 if n > 20 else 11)
    if axis in ("y", "both"):
        ax.set_yticks(idx, labels, fontsize=9 if n > 20 else 11)


SNAP_BITS = 40
"""Significant bits a colour-mapped value keeps ([`snap`][]): far more than a colour scale
resolves, far fewer than float64's 53."""


def snap(values: np.ndarray) -> np.ndarray:
    """``values`` rounded to [`SNAP_BITS`][] significant bits, before they are coloured.

    Round-off differs from one CPU to another (numpy's SIMD paths, the BLAS kernel), and a value
    that is exactly 1/2 in exact arithmetic (two keys tied) sits on the boundary between two of
    a colour map's 256 levels: 0.5 + 1e-14 on one machine and 0.5 on another would colour one
    cell differently. Rounded to 40 bits both are 0.5, so a figure is the same on every CPU.

    Examples:
        >>> snap(np.array([0.5 + 1.4e-14, 0.5 - 1.4e-14, 0.0])).tolist()
        [0.5, 0.5, 0.0]
    """
    values = np.asarray(values, dtype=np.float64)
    mantissa, exponent = np.frexp(values)
    return np.ldexp(np.round(np.ldexp(mantissa, SNAP_BITS)), exponent - SNAP_BITS)


def attention_heatmap(
    ax,
    values: np.ndarray,
    mask: np.ndarray,
    *,
    tokens: list[str] | None = None,
    cmap: str = SEQUENTIAL,
    norm=None,
    vmin: float = 0.0,
    vmax: float = 1.0,
    tick_every: int = 5,
):
    """Draw a ``(T, T)`` attention pattern (or scores) the way every figure of the site does.

    Query position \\(m\\) runs down, key position \\(n\\) across. The cells ``mask`` hides
    (``mask[m, n]`` False: a key after its query) are grey and hatched, never a colour of the
    scale, so a zero weight and a masked cell cannot be confused. With ``tokens`` the axes are
    labelled by token (thinned beyond 40), otherwise by position every ``tick_every``. The
    colour scale is ``cmap`` from ``vmin`` to ``vmax`` (probabilities: 0 to 1) unless a
    ``norm`` is given. The values are [`snap`][]ped first, so that round-off never changes a
    cell's colour. Returns the image, for a colour bar.
    """
    T = values.shape[-1]
    colours = mpl.colormaps[cmap].with_extremes(bad=(0.0, 0.0, 0.0, 0.0))  # masked: see-through
    ax.add_patch(
        Rectangle(
            (-0.5, -0.5), T, T, facecolor=MASK_COLOR, edgecolor="0.7", hatch="///",
            linewidth=0, zorder=0,
        )
    )  # fmt: skip
    scale = {"norm": norm} if norm is not None else {"vmin": vmin, "vmax": vmax}
    shown = np.ma.masked_where(~np.asarray(mask, dtype=bool), snap(values))
    im = ax.imshow(shown, cmap=colours, interpolation="nearest", zorder=1, **scale)
    if tokens is not None:
        token_ticks(ax, tokens)
        ax.tick_params(axis="x", labelrotation=90 if T > 20 else 0)
    else:
        ticks = np.arange(0, T, tick_every)
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
    ax.set_xlabel(r"key position $n$")
    ax.set_ylabel(r"query position $m$")
    for side in ("top", "right"):
        ax.spines[side].set_visible(True)
    return im
