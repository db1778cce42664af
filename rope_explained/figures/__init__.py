"""Figures of the site: plain functions that return matplotlib Figures, and their registry.

Each page has one module here, named after it: the figures of ``equations/rope.md`` live in
``figures/equations/rope.py``, those of ``forward-pass/index.md`` in ``figures/forward_pass.py``
and those of the home page (``index.md``) in ``figures/home.py``. A figure function takes keyword
arguments only, reads what it plots from the package (a [`Trace`][rope_explained.model.Trace] or
an experiment's arrays) and returns a `matplotlib.figure.Figure`. The [`register`][]
decorator files it under a stable id with its caption and alt text:

    @register("rope-frequencies", caption="The frequency schedule ...", alt="A line plot of ...")
    def rope_frequencies(d=64, base=10000.0):
        fig, ax = new_figure()
        ...
        return fig

A page never types a number that the package computes. The same module registers, with
[`value`][], the numbers its page states: a value function takes keyword arguments only and
returns the text exactly as the page prints it (digits, thousands separators, TeX if the page
uses it inside math):

    @value("fp-top-probability")
    def fp_top_probability(text=FORWARD_PASS_PROMPT) -> str:
        return f"{example_trace(text).probs[-1].max():.3f}"

The site build replaces each value macro on the page with that text, through a cache keyed like
the figures' ([`value_cached`][]). A value belongs to the page of its module.

Nothing here knows about MkDocs or HTML: ``python -m rope_explained.figures --out DIR`` renders
every registered figure into ``DIR``.
"""

from __future__ import annotations

import ast
import difflib
import functools
import hashlib
import importlib
import inspect
import io
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .._checks import check_choice, check_text, show
from .style import STYLE_FILE, new_figure, style_context  # noqa: F401

MODULES = (
    "home",
    "equations.token_embedding",
    "equations.rope",
    "equations.previous_token_head",
    "equations.induction_head",
    "equations.forward_pass",
    "forward_pass",
    "notes.position_only_heads",
    "notes.semantic_heads",
    "notes.open_questions",
    "paper_to_code.roformer",
    "paper_to_code.roformer_exercise",
    "paper_to_code.context_extension",
    "real_models.deriving_rope",
    "real_models.conventions",
    "real_models.partial_rotary",
    "real_models.decoding",
    "real_models.precision",
    "trained",
    "playground",
)
"""Modules that hold figures, one per page (imported by [`load_all`][])."""

PACKAGE_DIR = Path(__file__).resolve().parent.parent
CACHE_DIR = PACKAGE_DIR.parent / ".cache" / "figures"
"""Where rendered figures are kept between builds (beside the package, in the repository)."""
VALUE_CACHE_DIR = PACKAGE_DIR.parent / ".cache" / "values"
"""Where computed page values are kept between builds."""
ID_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
"""Figure and value ids: lower-case kebab-case."""
FORMATS = ("svg", "png", "pdf")
"""The formats [`render_bytes`][] and [`render`][] write."""
MAX_ID_LENGTH = 80
"""Longest figure id [`register`][] accepts."""
_ID = re.compile(ID_PATTERN)


def _check_id(fig_id: object, name: str = "fig_id") -> str:
    """A figure or value id: lower-case kebab-case of at most [`MAX_ID_LENGTH`][] characters."""
    if not isinstance(fig_id, str) or len(fig_id) > MAX_ID_LENGTH or not _ID.fullmatch(fig_id):
        raise ValueError(
            f"{name} must be lower-case kebab-case (a-z, 0-9 and single dashes), at most "
            f"{MAX_ID_LENGTH} characters; got {show(fig_id)}"
        )
    return fig_id


def _check_module(module: object) -> str:
    """A dotted module name of this package whose source file exists."""
    top = PACKAGE_DIR.name
    if (
        not isinstance(module, str)
        or len(module) > 200
        or not all(part.isidentifier() for part in module.split("."))
        or module.split(".")[0] != top
        or not _module_path(module).is_file()
    ):
        raise ValueError(
            f"module must be the dotted name of a module of {top}, e.g. '{__name__}.home'; "
            f"got {show(module)}"
        )
    return module


def _check_dir(name: str, value: object) -> Path:
    """A non-empty directory path (str or os.PathLike) without NUL characters."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value or "\0" in value or len(value) > 4096:
        raise ValueError(
            f"{name} must be a non-empty path (a str or pathlib.Path) of at most 4096 "
            f"characters; got {show(value)}"
        )
    return Path(value)


def page_of(module: str) -> str:
    """The docs page a figure module serves, as a path without suffix.

    ``rope_explained.figures.equations.rope`` serves ``equations/rope``;
    ``rope_explained.figures.forward_pass`` serves ``forward-pass`` (the page
    ``forward-pass/index.md``); ``rope_explained.figures.home`` serves ``index``.

    Examples:
        >>> page_of("rope_explained.figures.notes.semantic_heads")
        'notes/semantic-heads'
    """
    prefix = __name__ + "."
    if not isinstance(module, str) or not module.startswith(prefix):
        raise ValueError(
            f"module must be a figure module: figure and value functions live under "
            f"{prefix}*; got {show(module)}"
        )
    rel = module[len(prefix) :]
    if rel == "home":
        return "index"
    return rel.replace(".", "/").replace("_", "-")


@dataclass(frozen=True)
class FigureSpec:
    """A registered figure: its stable id, the function and arguments, caption and alt text."""

    id: str  # stable, lower-case kebab-case; used in file names and #fig-<id> anchors
    func: Callable
    caption: str  # one or two sentences, Markdown allowed (inline math with \( \))
    alt: str  # what the plot shows, for readers who cannot see it
    kwargs: dict = field(default_factory=dict)

    @property
    def page(self) -> str:
        """The page that shows the figure, without suffix (see [`page_of`][])."""
        return page_of(self.func.__module__)

    @property
    def qualname(self) -> str:
        """Dotted path of the function, as the API reference names it."""
        return f"{self.func.__module__}.{self.func.__qualname__}"

    def source(self) -> str:
        """The source code of the figure function."""
        return inspect.getsource(self.func)

    def draw(self) -> Figure:
        """Call the figure function with its registered arguments, in the site's style."""
        with style_context():
            return self.func(**self.kwargs)


REGISTRY: dict[str, FigureSpec] = {}


def register(fig_id: str, *, caption: str, alt: str, **kwargs):
    """Decorator: file a figure function under ``fig_id`` (called with ``kwargs``).

    ``fig_id`` is lower-case kebab-case of at most 80 characters (``a-z``, ``0-9``, ``-``),
    ``caption`` a non-empty str and ``alt`` a str of at least six words.
    """
    _check_id(fig_id)
    check_text("caption", caption)
    if len(check_text("alt", alt).split()) < 6:
        raise ValueError(
            f"alt text of {fig_id!r} must say what the plot shows (six words or more); "
            f"got {show(alt)}"
        )

    def deco(func):
        if not callable(func):
            raise ValueError(f"register({fig_id!r}) decorates a function; got {show(func)}")
        page_of(func.__module__)  # refuse figure functions outside this package
        if fig_id in REGISTRY and REGISTRY[fig_id].func.__qualname__ != func.__qualname__:
            raise ValueError(f"figure id {fig_id!r} is registered twice")
        if fig_id in VALUES:
            raise ValueError(f"figure id {fig_id!r} is already the id of a value")
        REGISTRY[fig_id] = FigureSpec(fig_id, func, caption, alt, dict(kwargs))
        return func

    return deco


@dataclass(frozen=True)
class ValueSpec:
    """A registered page value: its stable id, the function that computes its text and the
    arguments it is called with."""

    id: str  # stable, lower-case kebab-case; the page writes it in its value macro
    func: Callable
    kwargs: dict = field(default_factory=dict)

    @property
    def page(self) -> str:
        """The page that states the value, without suffix (see [`page_of`][])."""
        return page_of(self.func.__module__)

    @property
    def qualname(self) -> str:
        """Dotted path of the function."""
        return f"{self.func.__module__}.{self.func.__qualname__}"

    def compute(self) -> str:
        """Call the value function with its registered arguments; return its text.

        Raises:
            TypeError: when the function does not return a non-empty, single-line string.
        """
        text = self.func(**self.kwargs)
        if not isinstance(text, str) or not text.strip() or "\n" in text:
            raise TypeError(
                f"value {self.id!r} ({self.qualname}) must return a non-empty one-line str; "
                f"got {text!r}"
            )
        return text


VALUES: dict[str, ValueSpec] = {}


def value(value_id: str, **kwargs):
    """Decorator: file a page-value function under ``value_id`` (called with ``kwargs``).

    The function lives in the figure module of the page that states the value, takes keyword
    arguments only (each with a default, unless ``kwargs`` supplies it) and returns the text
    the page prints. Ids are unique across values and figures.
    """
    _check_id(value_id, "value_id")

    def deco(func):
        page_of(func.__module__)  # refuse value functions outside this package
        params = inspect.signature(func).parameters.values()
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)]
        if positional:
            raise ValueError(
                f"value {value_id!r}: {func.__qualname__} must take keyword arguments only; "
                f"got positional {positional}"
            )
        try:
            inspect.signature(func).bind(**kwargs)
        except TypeError as err:
            raise ValueError(
                f"value {value_id!r}: {func.__qualname__} cannot take {kwargs}: {err}"
            ) from err
        if value_id in VALUES and VALUES[value_id].func.__qualname__ != func.__qualname__:
            raise ValueError(f"value id {value_id!r} is registered twice")
        if value_id in REGISTRY:
            raise ValueError(f"value id {value_id!r} is already the id of a figure")
        VALUES[value_id] = ValueSpec(value_id, func, dict(kwargs))
        return func

    return deco


def load_all() -> dict[str, FigureSpec]:
    """Import every figure module and return the registry."""
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}")
    return REGISTRY


def get(fig_id: str) -> FigureSpec:
    """The spec registered under ``fig_id``; a ``ValueError`` names the closest known ids
    otherwise ([`load_all`][] lists them all)."""
    _check_id(fig_id)  # a malformed id is refused before the figure modules are imported
    load_all()
    if fig_id not in REGISTRY:
        close = difflib.get_close_matches(fig_id, sorted(REGISTRY), n=3)
        hint = f"did you mean {', '.join(map(repr, close))}? " if close else ""
        raise ValueError(
            f"unknown fig_id {show(fig_id)}; {hint}"
            f"{len(REGISTRY)} figures are registered (see figures.load_all())"
        )
    return REGISTRY[fig_id]


def load_values() -> dict[str, ValueSpec]:
    """Import every figure module and return the value registry."""
    load_all()
    return VALUES


def get_value(value_id: str) -> ValueSpec:
    """The value registered under ``value_id``; a ``ValueError`` names the closest known ids
    otherwise ([`load_values`][] lists them all)."""
    _check_id(value_id, "value_id")
    load_all()
    if value_id not in VALUES:
        close = difflib.get_close_matches(value_id, sorted(VALUES), n=3)
        hint = f"did you mean {', '.join(map(repr, close))}? " if close else ""
        raise ValueError(
            f"unknown value_id {show(value_id)}; {hint}"
            f"{len(VALUES)} values are registered (see figures.load_values())"
        )
    return VALUES[value_id]


def _module_path(module: str) -> Path:
    rel = Path(*module.split(".")[1:])
    package = PACKAGE_DIR / rel / "__init__.py"
    return package if package.is_file() else PACKAGE_DIR / rel.with_suffix(".py")


def _package_imports(module: str) -> frozenset[str]:
    """The modules of this package that ``module`` imports (relative or absolute)."""
    path = _module_path(module)
    return _modules_imported(module, path.name == "__init__.py", path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=256)
def _modules_imported(module: str, is_package: bool, source: str) -> frozenset[str]:
    """Those of the names ``source`` imports that are modules of this package (once per source:
    a new module file is imported only by a source that changed)."""
    candidates = _imported_names(module, is_package, source)
    return frozenset(n for n in candidates if n != module and _module_path(n).is_file())


def _statements(body: list):
    """Every statement of ``body`` and of the blocks nested in it (an import is a statement, so
    the expressions, most of a module's nodes, need not be visited)."""
    for node in body:
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                yield from _statements(block)


@functools.lru_cache(maxsize=256)
def _imported_names(module: str, is_package: bool, source: str) -> frozenset[str]:
    """Every dotted name of this package that ``source`` imports (parsed once per source)."""
    tree = ast.parse(source)
    here = module.split(".") if is_package else module.split(".")[:-1]
    top = PACKAGE_DIR.name
    found: set[str] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            stem = ".".join(base + ([node.module] if node.module else []))
            names = [stem] + [f"{stem}.{a.name}" for a in node.names]
        else:
            continue
        found.update(name for name in names if name.split(".")[0] == top)
    return frozenset(found)


def module_dependencies(module: str) -> list[str]:
    """``module``, every module of this package it imports (directly or not), and their parent
    packages, sorted.

    A parent package's ``__init__`` runs on import but computes nothing a figure draws, so its
    own imports are not followed (``rope_explained/__init__.py`` imports every module only to
    re-export it); its source still counts. ``module`` is the dotted name of a module of the
    package, e.g. ``"rope_explained.figures.home"``.
    """
    _check_module(module)
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(_package_imports(name) - seen)
    parents = {".".join(n.split(".")[:i]) for n in seen for i in range(1, n.count(".") + 1)}
    return sorted(seen | parents)


def source_hash(module: str) -> str:
    """A hash of everything a figure module's output depends on.

    The module's source and that of every module of the package it imports (transitively), the
    style file, and the versions of numpy and matplotlib: editing a figure of one page re-renders
    that page's figures only; editing the model re-renders every figure that runs it.
    ``module`` as for [`module_dependencies`][].
    """
    _check_module(module)
    known = _SOURCE_HASHES.get((module, PACKAGE_DIR)) or _stored_source_hash(module)
    if known is not None and _stamp(known[0]) == known[1]:
        _SOURCE_HASHES[module, PACKAGE_DIR] = known
        return known[2]  # no file it was computed from has changed since
    names = module_dependencies(module)
    paths = [_module_path(name) for name in names] + [STYLE_FILE]
    stamp = _stamp(paths)
    h = hashlib.sha256()
    for name, path in zip(names, paths[:-1], strict=True):
        h.update(name.encode())
        h.update(path.read_bytes())
    h.update(STYLE_FILE.read_bytes())
    h.update(f"numpy {np.__version__} matplotlib {matplotlib.__version__}".encode())
    _SOURCE_HASHES[module, PACKAGE_DIR] = (paths, stamp, h.hexdigest())
    _store_source_hash(module, paths, stamp, h.hexdigest())
    return h.hexdigest()


_SOURCE_HASHES: dict[tuple[str, Path], tuple[list[Path], tuple, str]] = {}
"""(module, package folder) -> (the files its source hash read, their sizes and modification
times, the hash)"""
SOURCE_HASH_FILE = CACHE_DIR / "source-hashes.json"
"""The same, kept beside the figure cache for the next process (a build, a test run), so that
it reads the import graph again only where a file changed."""


def _read_source_hashes() -> dict:
    try:
        stored = json.loads(SOURCE_HASH_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stored if isinstance(stored, dict) else {}


def _stored_source_hash(module: str) -> tuple[list[Path], tuple, str] | None:
    entry = _read_source_hashes().get(f"{PACKAGE_DIR}:{module}")
    try:
        paths, stamp, digest = entry
        return [Path(p) for p in paths], tuple(tuple(s) for s in stamp), str(digest)
    except (TypeError, ValueError):
        return None


def _store_source_hash(module: str, paths: list[Path], stamp: tuple, digest: str) -> None:
    stored = {  # entries of package folders that are gone (a test's copy) are dropped
        key: entry
        for key, entry in _read_source_hashes().items()
        if os.path.isdir(key.rsplit(":", 1)[0])
    }
    stored[f"{PACKAGE_DIR}:{module}"] = [[str(p) for p in paths], [list(s) for s in stamp], digest]
    try:
        SOURCE_HASH_FILE.parent.mkdir(parents=True, exist_ok=True)
        tmp = SOURCE_HASH_FILE.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(stored, sort_keys=True), encoding="utf-8")
        tmp.replace(SOURCE_HASH_FILE)
    except OSError:
        pass  # a read-only checkout: computed again next time


def _stamp(paths: list[Path]) -> tuple:
    """Size and modification time of each file (a file that is gone counts as changed)."""
    out = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            return ()
        out.append((st.st_size, st.st_mtime_ns))
    return tuple(out)


def cache_key(spec: FigureSpec | ValueSpec) -> str:
    """Cache key of a figure or a value: its code's [`source_hash`][], its id and its
    arguments.

    ``spec`` is a [`FigureSpec`][] or a [`ValueSpec`][], as [`get`][] and
    [`get_value`][] return.
    """
    if not isinstance(spec, (FigureSpec, ValueSpec)):
        raise ValueError(
            f"spec must be a FigureSpec or a ValueSpec (see figures.get); got {show(spec)}"
        )
    h = hashlib.sha256()
    h.update(source_hash(spec.func.__module__).encode())
    h.update(spec.id.encode())
    h.update(repr(sorted(spec.kwargs.items())).encode())
    return h.hexdigest()[:20]


SVG_DECIMALS = 2
"""Decimals kept in an SVG's coordinates: a hundredth of a point is a seventieth of a pixel."""
_RE_SVG_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_RE_SVG_PATH = re.compile(r'(?<=\sd=")[^"]*')
_RE_SVG_LENGTH = re.compile(r'(?<=\s)(x|y|width|height)="([^"]*)"')
_RE_SVG_TRANSLATE = re.compile(r"translate\(([^)]*)\)")
_RE_SVG_ID = re.compile(r'\sid="([^"]*)"')
_RE_SVG_REFERENCE = re.compile(r'(?:url\(#|href="#)([^)"]+)')


def _svg_number(m: re.Match) -> str:
    text = f"{float(m.group()):.{SVG_DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _compact_path(d: str) -> str:
    """A path's commands with rounded numbers and no more spaces than the grammar needs."""
    out = []
    for token in re.findall(r"[A-Za-z]|" + _RE_SVG_NUMBER.pattern, d):
        if token.isalpha():
            out.append(token)
        else:
            number = _RE_SVG_NUMBER.sub(_svg_number, token)
            out.append(number if out and out[-1].isalpha() else " " + number)
    return "".join(out).strip()


def _compact_svg(data: bytes) -> bytes:
    """matplotlib's SVG drawn the same with fewer bytes: coordinates (path data, positions,
    sizes and translations; never scale factors) rounded to [`SVG_DECIMALS`][] decimals,
    no metadata, no indentation, and no ids that nothing refers to."""
    text = data.decode("utf-8")
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    text = _RE_SVG_PATH.sub(lambda m: _compact_path(m.group()), text)
    text = _RE_SVG_LENGTH.sub(
        lambda m: f'{m.group(1)}="{_RE_SVG_NUMBER.sub(_svg_number, m.group(2))}"', text
    )
    text = _RE_SVG_TRANSLATE.sub(
        lambda m: f"translate({_RE_SVG_NUMBER.sub(_svg_number, m.group(1))})", text
    )
    referenced = set(_RE_SVG_REFERENCE.findall(text))
    text = _RE_SVG_ID.sub(lambda m: m.group() if m.group(1) in referenced else "", text)
    # the ids that are referred to, shortened in order of first appearance
    short: dict[str, str] = {}
    for m in _RE_SVG_ID.finditer(text):
        short.setdefault(m.group(1), f"i{len(short):x}")
    text = _RE_SVG_ID.sub(lambda m: f' id="{short[m.group(1)]}"', text)
    text = _RE_SVG_REFERENCE.sub(
        lambda m: m.group().replace(m.group(1), short.get(m.group(1), m.group(1))), text
    )
    text = text.replace('xlink:href="#', 'href="#')
    text = re.sub(
        r'style="([^"]*)"',
        lambda m: 'style="' + re.sub(r"\s*([:;])\s*", r"\1", m.group(1)) + '"',
        text,
    )
    text = re.sub(r">\s+<", "><", text)
    # a group with no attributes does nothing: keep its children only
    out, stack, pos = [], [], 0
    for m in re.finditer(r"<g>|<g\s[^>]*>|</g>", text):
        if m.group() == "</g>":
            bare = stack.pop()
        else:
            bare = m.group() == "<g>"
            stack.append(bare)
        out.append(text[pos : m.start()] if bare else text[pos : m.end()])
        pos = m.end()
    out.append(text[pos:])
    return "".join(out).encode("utf-8")


def render_bytes(fig_id: str, fmt: str = "svg") -> bytes:
    """Render a registered figure to bytes, deterministically; ``fmt`` is one of
    [`FORMATS`][] (SVG by default). An SVG is compacted (`_compact_svg`)."""
    check_choice("fmt", fmt, FORMATS)
    spec = get(fig_id)
    with style_context():  # also at save time: the SVG's hash salt comes from the style
        fig = spec.draw()
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {}
        if fmt == "png":
            metadata = {"Software": None}
        fig.savefig(buf, format=fmt, metadata=metadata)
        plt.close(fig)
    return _compact_svg(buf.getvalue()) if fmt == "svg" else buf.getvalue()


def render_cached(fig_id: str, cache_dir: str | Path = CACHE_DIR) -> tuple[bytes, bool]:
    """The SVG bytes of a registered figure and whether they had to be rendered.

    The cache file is ``cache_dir/<id>-<cache_key>.svg``: a figure is rendered again only when
    the code it depends on or its arguments change ([`cache_key`][]). Older versions of the
    same figure are deleted when a new one is written. ``cache_dir`` is a non-empty path.
    """
    cache_dir = _check_dir("cache_dir", cache_dir)
    spec = get(fig_id)
    key = cache_key(spec)
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
    """Render a registered figure into ``out_dir/<id>.<fmt>`` and return the path.

    ``out_dir`` is a non-empty path (made if missing); ``fmt`` one of [`FORMATS`][].
    """
    out = _check_dir("out_dir", out_dir)
    check_choice("fmt", fmt, FORMATS)
    get(fig_id)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{fig_id}.{fmt}"
    path.write_bytes(render_bytes(fig_id, fmt))
    return path


def value_cached(value_id: str, cache_dir: str | Path = VALUE_CACHE_DIR) -> tuple[str, bool]:
    """The text of a registered value and whether it had to be computed.

    The cache file is ``cache_dir/<id>-<cache_key>.json``, holding the id, the key and the
    text: a value is computed again only when the code its module depends on or its arguments
    change ([`cache_key`][]). Older versions of the same value are deleted when a new one is
    written; a damaged file is computed again.
    """
    spec = get_value(value_id)
    key = cache_key(spec)
    cache_dir = Path(cache_dir)
    path = cache_dir / f"{value_id}-{key}.json"
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict) and data.get("id") == value_id and data.get("key") == key:
            if isinstance(data.get("text"), str) and data["text"]:
                return data["text"], False
    text = spec.compute()
    cache_dir.mkdir(parents=True, exist_ok=True)
    for old in cache_dir.glob(f"{value_id}-*.json"):
        if re.fullmatch(rf"{re.escape(value_id)}-[0-9a-f]+\.json", old.name):
            old.unlink()
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"id": value_id, "key": key, "text": text}) + "\n", encoding="utf-8")
    tmp.replace(path)
    return text, True


# --------------------------------------------------------------------------------------------
# Formatting helpers for value functions
# --------------------------------------------------------------------------------------------


def floor_to(x: float, decimals: int) -> str:
    """``x`` rounded *down* to ``decimals`` places, for "at least ..." statements.

    Examples:
        >>> floor_to(0.9999604, 5)
        '0.99996'
    """
    scaled = math.floor(round(float(x) * 10**decimals, 9))
    return f"{scaled / 10**decimals:.{decimals}f}"


def ceil_to(x: float, decimals: int) -> str:
    """``x`` rounded *up* to ``decimals`` places, for "within ..." and "below ..." statements.

    Examples:
        >>> ceil_to(0.018, 2)
        '0.02'
    """
    scaled = math.ceil(round(float(x) * 10**decimals, 9))
    return f"{scaled / 10**decimals:.{decimals}f}"


def thousands(x: float, *, tex: bool = False) -> str:
    """``x`` rounded to an integer with thousands separators: ``47,117``, or ``47{,}117``
    inside TeX math (where a bare comma would add space).

    Examples:
        >>> thousands(47117.24), thousands(47117.24, tex=True)
        ('47,117', '47{,}117')
    """
    text = f"{round(float(x)):,}"
    return text.replace(",", "{,}") if tex else text


def times_ten(x: float, digits: int = 1) -> str:
    r"""``x`` in scientific notation for TeX math, ``1.8 \times 10^{-47}``, with ``digits``
    digits after the point (``4 \times 10^{-5}`` for ``digits=0``).

    Examples:
        >>> times_ten(1.818e-47), times_ten(3.85e-05, digits=0)
        ('1.8 \\times 10^{-47}', '4 \\times 10^{-5}')
    """
    mantissa, exponent = f"{float(x):.{digits}e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"
