"""Figures of the site: plain functions that return matplotlib Figures, and their registry.

Each page has one module here. A figure function takes keyword arguments only, reads what it
plots from the package (a :class:`~rope_explained.model.Trace` or an experiment's arrays) and
returns a :class:`matplotlib.figure.Figure`. The :func:`register` decorator files it under a
stable id with its caption and alt text::

    @register("rope-frequencies", page="equations/rope.md",
              caption="The frequency schedule ...", alt="A line plot of ...")
    def rope_frequencies(d=64, base=10000.0):
        fig, ax = new_figure()
        ...
        return fig

Nothing here knows about MkDocs: ``python -m rope_explained.figures --out DIR`` renders every
registered figure into ``DIR``.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import io
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from .style import STYLE_FILE, new_figure, style_context  # noqa: E402,F401

#: Modules that hold figures, one per page (imported by :func:`load_all`).
MODULES = (
    "home",
    "embedding",
    "rope",
    "layer0",
    "layer1",
    "complete",
    "forward_pass",
    "notes",
    "paper",
    "playground",
)

PACKAGE_DIR = Path(__file__).resolve().parent.parent
#: Where rendered figures are kept between builds (beside the package, in the repository).
CACHE_DIR = PACKAGE_DIR.parent / ".cache" / "figures"


@dataclass(frozen=True)
class FigureSpec:
    """A registered figure: its stable id, the function and arguments, caption and alt text."""

    id: str  # stable, lower-case kebab-case; used in file names and #fig-<id> anchors
    func: Callable
    page: str  # the docs page that shows it, e.g. "equations/rope.md"
    caption: str  # one or two sentences, Markdown allowed (inline math with \( \))
    alt: str  # what the plot shows, for readers who cannot see it
    kwargs: dict = field(default_factory=dict)

    @property
    def qualname(self) -> str:
        """Dotted path of the function, as the API reference names it."""
        return f"{self.func.__module__}.{self.func.__qualname__}"

    def source(self) -> str:
        """The source code of the figure function."""
        return inspect.getsource(self.func)


REGISTRY: dict[str, FigureSpec] = {}


def register(fig_id: str, *, page: str, caption: str, alt: str, **kwargs):
    """Decorator: file a figure function under ``fig_id`` (called with ``kwargs``)."""
    if not fig_id or fig_id != fig_id.lower() or " " in fig_id or "_" in fig_id:
        raise ValueError(f"figure id must be lower-case kebab-case; got {fig_id!r}")
    if len(alt.split()) < 6:
        raise ValueError(f"alt text of {fig_id!r} must say what the plot shows; got {alt!r}")

    def deco(func):
        if fig_id in REGISTRY and REGISTRY[fig_id].func.__qualname__ != func.__qualname__:
            raise ValueError(f"figure id {fig_id!r} is registered twice")
        REGISTRY[fig_id] = FigureSpec(fig_id, func, page, caption, alt, dict(kwargs))
        return func

    return deco


def load_all() -> dict[str, FigureSpec]:
    """Import every figure module and return the registry."""
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
    return REGISTRY


def get(fig_id: str) -> FigureSpec:
    """The spec registered under ``fig_id``; a ``ValueError`` lists the known ids otherwise."""
    load_all()
    if fig_id not in REGISTRY:
        raise ValueError(f"unknown figure id {fig_id!r}; known: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[fig_id]


def package_hash() -> str:
    """A hash of the package's source and style files: any change re-renders every figure."""
    h = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.suffix in {".py", ".mplstyle"} and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(PACKAGE_DIR)).encode())
            h.update(path.read_bytes())
    h.update(matplotlib.__version__.encode())
    return h.hexdigest()


def cache_key(spec: FigureSpec, pkg_hash: str | None = None) -> str:
    """Cache key of a figure: the package hash, the id and the arguments."""
    h = hashlib.sha256()
    h.update((pkg_hash or package_hash()).encode())
    h.update(spec.id.encode())
    h.update(repr(sorted(spec.kwargs.items())).encode())
    return h.hexdigest()[:20]


def render_bytes(fig_id: str, fmt: str = "svg") -> bytes:
    """Render a registered figure to bytes (SVG by default), deterministically."""
    spec = get(fig_id)
    with style_context():
        fig = spec.func(**spec.kwargs)
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {}
        if fmt == "png":
            metadata = {"Software": None}
        fig.savefig(buf, format=fmt, metadata=metadata)
        plt.close(fig)
    return buf.getvalue()


def render_cached(
    fig_id: str, cache_dir: str | Path = CACHE_DIR, pkg_hash: str | None = None
) -> tuple[bytes, bool]:
    """The SVG bytes of a registered figure and whether they had to be rendered.

    The cache file is ``cache_dir/<id>-<cache_key>.svg``: a figure is rendered again only when
    the package's source or the figure's arguments change. Older versions of the same figure
    are deleted when a new one is written.
    """
    spec = get(fig_id)
    key = cache_key(spec, pkg_hash)
    cache_dir = Path(cache_dir)
    path = cache_dir / f"{fig_id}-{key}.svg"
    if path.is_file():
        return path.read_bytes(), False
    data = render_bytes(fig_id, "svg")
    cache_dir.mkdir(parents=True, exist_ok=True)
    for old in cache_dir.glob(f"{fig_id}-*.svg"):
        if re.fullmatch(rf"{re.escape(fig_id)}-[0-9a-f]+\.svg", old.name):
            old.unlink()
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return data, True


def render(fig_id: str, out_dir: str | Path, fmt: str = "svg") -> Path:
    """Render a registered figure into ``out_dir/<id>.<fmt>`` and return the path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{fig_id}.{fmt}"
    path.write_bytes(render_bytes(fig_id, fmt))
    return path
