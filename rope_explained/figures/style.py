"""The shared look of the figures: one style file, and helpers every figure module uses.

Colour maps: ``viridis`` for probabilities and attention (sequential, 0 to 1), ``cividis`` for
other non-negative quantities, and [`DIVERGING`][] centred on zero ([`centred_norm`][])
for signed values such as raw scores. All three read in grey scale and for the common kinds
of colour blindness. The line colours are the Okabe-Ito palette.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re
import warnings
from pathlib import Path
from xml.etree import ElementTree

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from .._checks import check_choice, check_int_range

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


COLUMNS = {"wide": 7.2, "narrow": 4.0}
"""The widths, in inches, a figure is drawn at: ``wide`` for the page's column on a desktop or
a tablet (shown about 670 px wide at a 1280 px window), ``narrow`` for a phone (shown about
310 px wide on a 360 px screen, the column less the page's margins and the figure's card)."""
MIN_TEXT_PT = 9.0
"""The smallest text of a figure, in points, every glyph counted (a superscript too): 11.7 px
on a desktop's wide figure, 9.7 px on a phone's narrow one."""
SCRIPT_SHRINK = 0.7
"""How much smaller mathtext sets a sub- or superscript than its text (matplotlib's rule)."""
_COLUMN: contextvars.ContextVar[str] = contextvars.ContextVar("column", default="wide")


@contextlib.contextmanager
def column(width: str):
    """Draw the figures made inside the ``with`` block for the column ``width`` (a key of
    [`COLUMNS`][]): [`new_figure`][] lays their panels out for it."""
    check_choice("width", width, COLUMNS)
    token = _COLUMN.set(width)
    try:
        yield
    finally:
        _COLUMN.reset(token)


def legend_columns(ncols: int) -> int:
    """``ncols`` for a legend on a desktop's figure, 1 on a phone's (whose panels are about half
    as wide): ``ax.legend(..., ncols=legend_columns(3))``."""
    check_int_range("ncols", ncols, 1)
    return ncols if _COLUMN.get() == "wide" else 1


def new_figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    width: float = 7.2,
    height: float = 4.0,
    narrow: tuple[int, float] | None = None,
    **kwargs,
):
    """``plt.subplots`` in the site's style; returns ``(fig, axes)``.

    ``width`` and ``height`` (inches) are the figure's on a desktop. Drawn for a phone (inside
    ``with column("narrow")``) the figure is [`COLUMNS`][]``["narrow"]`` wide and its panels,
    side by side on a desktop, stand one under the other, two abreast when there are four or
    more in a row; ``narrow=(columns, panel_height)`` chooses otherwise. ``axes`` has the same
    shape either way, and the panels share the axes ``sharex``/``sharey`` ask for.
    """
    if _COLUMN.get() == "wide":
        with style_context():
            return plt.subplots(nrows, ncols, figsize=(width, height), **kwargs)
    n = nrows * ncols
    full = COLUMNS["narrow"]
    if narrow is None:
        # a row of four panels or more goes two abreast (one under the other: too tall)
        cols = 2 if ncols > 1 and n >= 4 else 1
        panel_w = full / cols
        wide_w, wide_h = width / ncols, height / nrows
        panel_h = float(np.clip(wide_h * panel_w / wide_w * 1.3, 0.55 * panel_w, panel_w))
    else:
        cols, panel_h = narrow
        check_int_range("narrow columns", cols, 1, n)
    cols = min(cols, n)
    rows = -(-n // cols)
    sharex, sharey = kwargs.pop("sharex", False), kwargs.pop("sharey", False)
    gridspec_kw = dict(kwargs.pop("gridspec_kw", None) or {})
    ratios = kwargs.pop("height_ratios", None) or gridspec_kw.get("height_ratios")
    for key in ("width_ratios", "height_ratios"):
        gridspec_kw.pop(key, None)
        kwargs.pop(key, None)
    if ratios is not None and (rows, cols) == (nrows, ncols):
        gridspec_kw["height_ratios"] = ratios  # already one column: the panels keep their heights
    with style_context():
        fig, grid = plt.subplots(
            rows, cols, figsize=(full, panel_h * rows + 0.3), squeeze=False,
            gridspec_kw=gridspec_kw or None, **kwargs,
        )  # fmt: skip
    flat = list(grid.ravel())
    for extra in flat[n:]:
        extra.remove()
    axes = np.empty((nrows, ncols), dtype=object)
    for k in range(n):
        axes[k // ncols, k % ncols] = flat[k]
    for share, name in ((sharex, "x"), (sharey, "y")):
        for r in range(nrows):
            for c in range(ncols):
                lead = {True: (0, 0), "all": (0, 0), "col": (0, c), "row": (r, 0)}.get(share)
                if lead is not None and lead != (r, c):
                    getattr(axes[r, c], f"share{name}")(axes[lead])
    if nrows == 1 and ncols == 1:
        return fig, axes[0, 0]
    if nrows == 1 or ncols == 1:
        return fig, axes.ravel()
    return fig, axes


def _script_depth(text: str) -> int:
    """How deep the sub- and superscripts of a label's mathtext go (0: none)."""
    depth = 0
    for math_part in re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", text):
        level, stack, deepest = 0, [], 0
        pending = False
        for ch in math_part:
            if ch in "^_":
                pending = True
                deepest = max(deepest, level + 1)
                continue
            if ch == "{":
                stack.append(pending)
                level += pending
            elif ch == "}" and stack:
                level -= stack.pop()
            pending = False
        depth = max(depth, deepest)
    return depth


def _all_axes(fig) -> list:
    """The figure's axes, their colour bars' and their secondary axes (children of an axes)."""
    out, todo = [], list(fig.axes)
    while todo:
        ax = todo.pop(0)
        if ax not in out:
            out.append(ax)
            todo.extend(getattr(ax, "child_axes", []))
    return out


def _visible_texts(fig) -> list[Text]:
    return [
        t for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.figure is not None
    ]  # fmt: skip


def _overlap(a, b, pad: float) -> bool:
    return not (
        a.x1 + pad <= b.x0 or b.x1 + pad <= a.x0 or a.y1 + pad <= b.y0 or b.y1 + pad <= a.y0
    )


def _thin_ticks(fig, renderer) -> bool:
    """Keep every k-th tick label of an axis whose labels run into one another (k as small as
    clears them); True if any axis was thinned."""
    changed = False
    pad = 2.0  # pixels at the figure's dpi: a little air between labels
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            ticks = [
                (tick.get_loc(), label)
                for tick in axis.get_major_ticks()
                for label in (tick.label1, tick.label2)
                if label.get_visible() and label.get_text().strip()
            ]
            if len(ticks) < 2:
                continue
            lo, hi = sorted(axis.get_view_interval())
            ticks = [
                (loc, lab)
                for loc, lab in ticks
                if lo - 1e-9 * abs(hi - lo) <= loc <= hi + 1e-9 * abs(hi - lo)
            ]
            boxes = [lab.get_window_extent(renderer) for _, lab in ticks]
            if not any(_overlap(a, b, pad) for a, b in zip(boxes, boxes[1:], strict=False)):
                continue
            locs = [loc for loc, _ in ticks]
            labels = [lab.get_text() for _, lab in ticks]
            for k in range(2, len(ticks) + 1):
                kept = boxes[::k]
                if not any(_overlap(a, b, pad) for a, b in zip(kept, kept[1:], strict=False)):
                    break
            axis.set_ticks(locs, [text if i % k == 0 else "" for i, text in enumerate(labels)])
            changed = True
    return changed


_RE_NUMBER = re.compile(r"[-+\u2212]?\d[\d.,]*(?:e[-+]?\d+)?%?")


def _hide_crowded_cell_text(fig, renderer) -> bool:
    """Numbers written on a plot (in its cells, over its bars) stay only where they fit: if
    any two of an axes' numbers run into one another, that axes shows none of them."""
    changed = False
    for ax in fig.axes:
        cells = [
            t for t in ax.texts
            if t.get_visible() and _RE_NUMBER.fullmatch(t.get_text().strip().strip("$"))
        ]  # fmt: skip
        if len(cells) < 2:
            continue
        boxes = [t.get_window_extent(renderer) for t in cells]
        if any(_overlap(a, b, 0.0) for i, a in enumerate(boxes) for b in boxes[i + 1 :]):
            for t in cells:
                t.set_visible(False)
            changed = True
    return changed


def _wrap_wide_text(fig, renderer, within_panels: bool = True) -> bool:
    """Break at spaces (outside mathtext) a text wider than its panel (a title, an axis
    label, a note; the figure for the figure's own texts)."""
    changed = False
    skip = set()
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            skip.update(id(t) for t in axis.get_ticklabels(which="both"))
        legend = ax.get_legend()
        if legend is not None:
            skip.update(id(t) for t in legend.get_texts())
    label_of = {id(axis.label): ax for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)}
    for t in _visible_texts(fig):
        if id(t) in skip or "\n" in t.get_text():
            continue
        is_label = id(t) in label_of  # an axis label knows its figure, not its axes
        ax = label_of[id(t)] if is_label else t.axes
        vertical = t.get_rotation() % 180 == 90
        if within_panels and ax is not None and ax in fig.axes and not is_label:
            room = ax.bbox.height if vertical else ax.bbox.width
            limit = max(room * 1.15, fig.bbox.width * 0.5)
        else:
            limit = (fig.bbox.height if vertical else fig.bbox.width) * 0.96
        box = t.get_window_extent(renderer)
        if not vertical:  # nor past the figure's right edge, from where the text starts
            limit = min(limit, fig.bbox.x1 - max(box.x0, fig.bbox.x0) - 4)
            if is_label and (box.x0 < fig.bbox.x0 or box.x1 > fig.bbox.x1):
                # a label centred under a narrow panel
                limit = min(limit, max(ax.bbox.width * 1.15, fig.bbox.width * 0.4))
        extent = box.height if vertical else box.width
        if extent <= limit:
            continue
        words = re.findall(r"(?:\$[^$]*\$|\S)+", t.get_text())
        if len(words) < 2:
            continue
        # greedy, each word's width estimated as its share of the characters
        per_char = extent / max(len(t.get_text()), 1)
        lines, line = [], []
        for word in words:
            if line and per_char * len(" ".join([*line, word])) > limit:
                lines.append(" ".join(line))
                line = []
            line.append(word)
        lines.append(" ".join(line))
        if len(lines) > 1:
            t.set_text("\n".join(lines))
            changed = True
    return changed


def _draw_quietly(fig) -> bool:
    """Lay the figure out; True if the layout could not fit its panels yet (a text still too
    wide, which the steps after this draw fix; the final drawing warns if it still cannot)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.draw_without_rendering()
    collapsed = False
    for w in caught:
        if "constrained_layout not applied" in str(w.message):
            collapsed = True
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return collapsed


def fit_text(fig, min_pt: float = MIN_TEXT_PT) -> None:
    """Make ``fig``'s smallest text ``min_pt`` points, every glyph counted.

    A text smaller is enlarged (one with sub- or superscripts so that those reach
    ``min_pt``); then, while the layout settles, an axis whose tick labels now run into one
    another keeps every other (or every k-th) label, an axes whose in-cell numbers collide
    shows none, and a title or label wider than the figure is broken over lines.
    """
    if isinstance(min_pt, bool) or not isinstance(min_pt, (int, float)) or not 1 <= min_pt <= 72:
        raise ValueError(f"min_pt must be a size in points in [1, 72]; got {min_pt!r}")
    _draw_quietly(fig)
    for ax in _all_axes(fig):
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                ticks = axis.get_major_ticks() if which == "major" else axis.get_minor_ticks()
                labels = [lab for tick in ticks for lab in (tick.label1, tick.label2)]
                texts = [lab.get_text() for lab in labels if lab.get_text().strip()]
                if not texts:
                    continue
                need = max(min_pt / SCRIPT_SHRINK ** _script_depth(text) for text in texts)
                if min(lab.get_fontsize() for lab in labels) < need - 1e-9:
                    axis.set_tick_params(which=which, labelsize=need)
    for t in _visible_texts(fig):
        need = min_pt / SCRIPT_SHRINK ** _script_depth(t.get_text())
        if t.get_fontsize() < need - 1e-9:
            t.set_fontsize(need)
    for ax in fig.axes:  # a note placed inside a panel is wrapped to it, never shrinks it
        for t in ax.texts:
            x, y = t.get_position()
            if t.get_transform() == ax.transAxes and 0 <= x <= 1 and 0 <= y <= 1:
                t.set_in_layout(False)
    for _ in range(5):
        collapsed = _draw_quietly(fig)
        renderer = fig.canvas.get_renderer()
        if collapsed:  # the panels' sizes mean nothing yet: only what is wider than the figure
            if not _wrap_wide_text(fig, renderer, within_panels=False):
                break
            continue
        if not (
            _wrap_wide_text(fig, renderer)
            | _hide_crowded_cell_text(fig, renderer)
            | _thin_ticks(fig, renderer)
        ):
            # The layout is final: no engine from here on (None where the rcParams ask for
            # none), so that saving draws the figure once, without laying it out again.
            with mpl.rc_context(
                {"figure.autolayout": False, "figure.constrained_layout.use": False}
            ):
                fig.set_layout_engine(None)
            break


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


GLYPH_UNITS = "scale(0.015625)"
"""The transform matplotlib gives every glyph outline it writes into an SVG (``svg.fonttype:
path``): FreeType's 1/64 units."""
TEXT_PATH_SCALE = 100.0
"""matplotlib draws text as paths at 100 units per em (``TextToPath.FONT_SCALE``): a glyph
drawn at scale ``s`` belongs to text of ``100 s`` points."""
_RE_SCALE = re.compile(r"scale\(\s*([-0-9.eE+]+)(?:[\s,]+([-0-9.eE+]+))?\s*\)")
_SVG = "{http://www.w3.org/2000/svg}"


def _transform_scale(transform: str | None) -> float:
    """The factor by which ``transform`` scales lengths (translations and rotations keep them;
    matplotlib scales text uniformly, up to the sign that flips it)."""
    factor = 1.0
    for m in _RE_SCALE.finditer(transform or ""):
        sx = abs(float(m.group(1)))
        sy = abs(float(m.group(2))) if m.group(2) else sx
        factor *= math.sqrt(sx * sy)
    return factor


def svg_text_sizes(svg: bytes | str) -> tuple[float, list[float]]:
    """The width of a figure's SVG and the size of every glyph of its text, both in points.

    matplotlib writes text as glyph outlines (``svg.fonttype: path``), so the sizes are read
    from the scale each glyph is drawn at: 100 units per em ([`TEXT_PATH_SCALE`][]), times
    every scale of the groups around it (a superscript is drawn smaller inside its label's
    group). The page shows the SVG ``displayed / width`` times its size, and each glyph with it.

    Raises:
        ValueError: if ``svg`` is not an SVG document with a width in points.
    """
    if not isinstance(svg, (bytes, str)):
        raise ValueError(f"svg must be the bytes or text of an SVG document; got {type(svg)}")
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError as err:
        raise ValueError(f"svg must be the bytes or text of an SVG document: {err}") from err
    width = root.get("width", "")
    if root.tag != f"{_SVG}svg" or not re.fullmatch(r"[0-9.]+pt", width):
        raise ValueError(f"svg must be an SVG document with a width in pt; got {width!r}")
    glyphs = {
        path.get("id")
        for path in root.iter(f"{_SVG}path")
        if path.get("id") and path.get("transform") == GLYPH_UNITS
    }
    href = "href"
    xlink = "{http://www.w3.org/1999/xlink}href"
    sizes: list[float] = []

    def walk(element, scale: float) -> None:
        scale *= _transform_scale(element.get("transform"))
        if element.tag == f"{_SVG}use":
            target = (element.get(href) or element.get(xlink) or "").removeprefix("#")
            if target in glyphs:
                sizes.append(TEXT_PATH_SCALE * scale)
        for child in element:
            if child.tag != f"{_SVG}defs":
                walk(child, scale)

    walk(root, 1.0)
    return float(width.removesuffix("pt")), sizes
