"""Figures of the site: plain functions that return matplotlib Figures, and their registry.

Each page has one module here, named after it: the figures of ``equations/rope.md`` live in
``figures/equations/rope.py``, those of ``forward-pass/index.md`` in ``figures/forward_pass.py``
and those of the home page (``index.md``) in ``figures/home.py``. A figure function takes keyword
arguments only, reads what it plots from the package (a [`Trace`][rope_explained.model.Trace] or
an experiment's arrays) and returns a `matplotlib.figure.Figure`. The [`register`][]
decorator files it under a stable id with its caption and alt text:

    @register("rope-frequencies", caption="The frequency schedule ...", alt="A line plot of ...")
    def frequency_schedule(d=DEFAULT.d, base=DEFAULT.base):  # the model's settings
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

The site build replaces each value macro on the page with that text. A value belongs to the
page of its module.

Nothing here knows about MkDocs or HTML, and nothing here writes a file: the site build keeps
what it computed in its own cache (keyed by [`module_dependencies`][]), and
``python -m rope_explained.figures --out DIR`` writes every registered figure into ``DIR``.
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import inspect
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .._checks import check_choice, check_text, show
from .style import (  # noqa: F401
    COLUMNS,
    MIN_TEXT_PT,
    STYLE_FILE,
    column,
    fit_text,
    new_figure,
    style_context,
    svg_text_sizes,
)

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
    "real_models.your_config",
    "trained",
    "playground",
    "notation",
)
"""Modules that hold figures, one per page (imported by [`load_all`][])."""

PACKAGE_DIR = Path(__file__).resolve().parent.parent
ID_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
"""Figure and value ids: lower-case kebab-case."""
FORMATS = ("svg", "png", "pdf")
"""The formats [`render_bytes`][] renders."""
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

    def draw(self, width: str = "wide") -> Figure:
        """Call the figure function with its registered arguments, in the site's style, for the
        column ``width`` (a key of [`COLUMNS`][rope_explained.figures.style.COLUMNS]:
        ``"wide"`` for a desktop, ``"narrow"`` for a phone); its smallest text is then
        [`MIN_TEXT_PT`][rope_explained.figures.style.MIN_TEXT_PT] points
        ([`fit_text`][rope_explained.figures.style.fit_text])."""
        check_choice("width", width, COLUMNS)
        with style_context(), column(width):
            fig = self.func(**self.kwargs)
            fit_text(fig)
            return fig


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

    @property
    def call(self) -> str:
        """The call that computes the value, as a reader would type it after importing the
        function from its module: ``decoding_copied(fault='rotate-again')``.

        Examples:
            >>> get_value("rope-slowest-wavelength-text").call
            'rope_slowest_wavelength(tex=False)'
        """
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.func.__name__}({args})"

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
    packages, sorted: what a figure or value of ``module`` can depend on (the site build keys
    its cache with their source, so that editing one page's module redraws that page only).

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


def render_bytes(fig_id: str, fmt: str = "svg", width: str = "wide") -> bytes:
    """Render a registered figure to bytes, deterministically; ``fmt`` is one of
    [`FORMATS`][] (SVG by default), ``width`` a key of
    [`COLUMNS`][rope_explained.figures.style.COLUMNS] (``"wide"`` by default, ``"narrow"`` for
    a phone). An SVG is compacted (`_compact_svg`)."""
    check_choice("fmt", fmt, FORMATS)
    check_choice("width", width, COLUMNS)
    spec = get(fig_id)
    with style_context():  # also at save time: the SVG's hash salt comes from the style
        fig = spec.draw(width)
        buf = io.BytesIO()
        metadata = {"Date": None} if fmt == "svg" else {}
        if fmt == "png":
            metadata = {"Software": None}
        fig.savefig(buf, format=fmt, metadata=metadata)
        plt.close(fig)
    return _compact_svg(buf.getvalue()) if fmt == "svg" else buf.getvalue()


def file_stem(fig_id: str, width: str = "wide") -> str:
    """The name, without suffix, of a figure's file for the column ``width``: its id for the
    wide figure, ``<id>.narrow`` for the phone's (an id has no dot, so no two figures share a
    name)."""
    _check_id(fig_id)
    check_choice("width", width, COLUMNS)
    return fig_id if width == "wide" else f"{fig_id}.{width}"


# --------------------------------------------------------------------------------------------
# Formatting helpers for value functions
# --------------------------------------------------------------------------------------------


def setting_text(x: float) -> str:
    """A setting of the model as a page prints it, for a page that states the settings it
    runs: ``Config().alpha`` is ``10.0``, printed ``10``.

    Examples:
        >>> setting_text(10.0), setting_text(64), setting_text(1000.0)
        ('10', '64', '1000')
    """
    return f"{x:g}"


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


def below(x: float, bound: float) -> str:
    r"""``bound`` in TeX (``10^{-12}``), for "below ..." statements about a quantity that is
    zero in exact arithmetic, after checking that the measured ``x`` is below it.

    Such a measurement is round-off: its digits depend on the CPU and the BLAS kernel that
    computed it, so a page states a fixed bound instead, chosen with a wide margin, and the
    build fails (``ValueError``) rather than print a bound the measurement breaks.
    ``bound`` is a power of ten.

    Examples:
        >>> below(6.2e-14, 1e-12)
        '10^{-12}'
    """
    exponent = round(math.log10(bound))
    if not math.isclose(bound, 10.0**exponent, rel_tol=1e-12):
        raise ValueError(f"bound must be a power of ten; got {bound!r}")
    if not abs(float(x)) < bound:
        raise ValueError(f"the measured {float(x)!r} is not below the stated bound {bound!r}")
    return f"10^{{{exponent}}}"


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
