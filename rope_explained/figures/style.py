"""The shared look of the figures: one style file, and helpers every figure module uses.

Colour maps: ``viridis`` for probabilities and attention (sequential, 0 to 1), ``cividis`` for
other non-negative quantities, and :data:`DIVERGING` centred on zero (:func:`centred_norm`)
for signed values such as raw scores. All three read in grey scale and for the common kinds
of colour blindness. The line colours are the Okabe-Ito palette.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm

STYLE_FILE = Path(__file__).with_name("rope_explained.mplstyle")
SEQUENTIAL = "viridis"
DIVERGING = "RdBu_r"
#: Okabe-Ito colours, in the order of the style's colour cycle.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


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
    """A colour norm for signed values with zero at the centre of :data:`DIVERGING`."""
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
