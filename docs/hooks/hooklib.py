r"""What the site's MkDocs hooks share: page indexes, the build's state and figure blocks.

Not a hook itself: ``numbering.py`` and ``notebooks.py`` import it (MkDocs puts this folder on
``sys.path`` while it loads a hook). Nothing here imports MkDocs at module level, so the tests
can use the page scanner on its own.

Page conventions (a page opts in with ``number:`` in its front matter; a notebook with
``rope_explained: number:`` in its jupytext header):

* A display equation is a ``$$`` block whose first line is a label comment::

      $$
      % eq: frequencies
      \theta_i = 10000^{-2i/d}
      $$

  It is numbered ``(N.k)`` (``N`` = the page's ``number``, ``k`` = its rank on the page) with a
  ``\tag{N.k}`` and anchored ``#eq-frequencies``. A ``$$`` block without a label, a duplicate
  label, or numbered content on a page without ``number:`` stops the build.
* ``{{ eq("frequencies") }}`` links to an equation of the same page as ``(N.k)``;
  ``{{ eq("equations/rope.md#frequencies") }}`` to one on another page.
* ``{{ figure("rope-frequencies") }}`` alone in a paragraph inserts the figure: the SVG rendered
  at build time (cached), "Figure N.k." and the caption, a download link, and a collapsed block
  with the code of the figure function. ``{{ fig("rope-frequencies") }}`` links to it as
  "Figure N.k" from any page. A notebook shows a figure by calling its function in a cell
  tagged ``fig:<id>``.
* ``{{ value("fp-top-probability") }}`` is replaced by the string that the value function
  registered under that id returns (computed at build time, cached like the figures): a number
  the page states is never typed by hand. It may stand anywhere outside code blocks, inside
  inline or display math too, and in the caption or alt text of a figure. A value belongs to
  the page of its module and is used on that page only.
"""

from __future__ import annotations

import html
import importlib
import json
import multiprocessing
import os
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as etree

import cache
from threadpoolctl import threadpool_limits

ROOT = cache.ROOT
PACKAGE = "rope_explained"
FIGURES_DEST = "figures"
LABEL = r"[a-z0-9]+(?:-[a-z0-9]+)*"
RE_LABEL_LINE = re.compile(r"^%\s*eq:\s*(?P<label>\S+)\s*$")
RE_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})")
#: The macros a page may use, ``{{ name("arg") }}``.
MACROS = ("eq", "fig", "figure", "value")
RE_MACRO = re.compile(
    r"\{\{\s*(?P<name>eq|figure|fig|value)\(\s*(?P<q>[\"'])(?P<arg>.*?)(?P=q)\s*\)\s*\}\}"
)
RE_ANY_MACRO = re.compile(r"\{\{\s*(?P<name>[A-Za-z_]\w*)\s*\(")
PLACEHOLDER = "ROPE-FIGURE-PLACEHOLDER-"
RE_PLACEHOLDER_P = re.compile(rf"<p[^>]*>\s*{PLACEHOLDER}(?P<id>{LABEL})\s*</p>")

RE_NOTEBOOK_FIGURE = re.compile(rf"""^# %%.*\btags=\[[^\]]*["']fig:(?P<id>{LABEL})["']""", re.M)


# --------------------------------------------------------------------------------------------
# The package, imported from this repository (and afresh when its source changed)
# --------------------------------------------------------------------------------------------


def _package_stamp() -> tuple:
    """Name, time and size of each source file of the package (not its ``__pycache__``)."""
    files = sorted(p for p in (ROOT / PACKAGE).rglob("*") if p.suffix in (".py", ".mplstyle"))
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)


_LOADED: dict[str, tuple] = {}


def package():
    """The package ``rope_explained``, as this repository's source has it now.

    Every hook that reads the package calls this in its event handlers (never at import: MkDocs
    imports a hook once per process, and ``mkdocs serve`` rebuilds in that process). The first
    call of a build (after :meth:`Build.reset`) looks at the package's files; when one changed
    since the last build, the package's modules are dropped and imported again, so that every
    figure, value and data file of the build comes from the new code. The package is imported
    from the checkout that holds this ``mkdocs.yml`` even when another copy is installed (a
    second checkout, a scratch copy that ``mike`` builds).
    """
    if BUILD.package is not None:
        return BUILD.package
    stamp = _package_stamp()
    loaded = sys.modules.get(PACKAGE)
    stale = _LOADED.get("stamp") not in (None, stamp)
    if loaded is not None and (stale or Path(loaded.__file__).resolve().parents[1] != ROOT):
        for name in [n for n in sys.modules if n.split(".")[0] == PACKAGE]:
            del sys.modules[name]
    _LOADED["stamp"] = stamp
    sys.path.insert(0, str(ROOT))
    try:
        module = importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(ROOT))
    where = Path(module.__file__).resolve().parents[1]
    if where != ROOT:
        raise ImportError(f"{PACKAGE} is imported from {where}, not from {ROOT}")
    BUILD.package = module
    return module


def loader_html(
    page_url: str, scripts: list[str], *, marker: str, root: str, name: str, restarter: str
) -> str:
    """The inline script that loads a page's ``scripts`` (site paths), in order, once per
    browser page: each gets the attribute ``data-<marker>``; if one fails to load, they are
    all removed and the element of class ``root`` says which ``name`` could not load (later
    visits by instant navigation restart the page from ``restarter``)."""
    folder = page_url if page_url.endswith("/") else posixpath.dirname(page_url)
    urls = [posixpath.relpath(src, folder or ".") for src in scripts]
    return (
        "<script>\n"
        "(function (urls) {\n"
        '  "use strict";\n'
        "  // Once per browser page: later visits by instant navigation restart it from "
        f"{restarter}.\n"
        f'  if (document.querySelector("script[data-{marker}]")) return;\n'
        "  urls.forEach(function (url) {\n"
        '    var s = document.createElement("script");\n'
        "    s.src = new URL(url, location.href).href;\n"
        "    s.async = false; // run in this order\n"
        f'    s.setAttribute("data-{marker}", "");\n'
        "    s.onerror = function () {\n"
        f'      document.querySelectorAll("script[data-{marker}]").forEach(function (x) {{\n'
        "        x.remove();\n"
        "      });\n"
        f'      var root = document.querySelector(".{root}");\n'
        f'      if (root) root.textContent = "The {name} could not load " + url + ".";\n'
        "    };\n"
        "    document.body.appendChild(s);\n"
        "  });\n"
        f"}})({json.dumps(urls)});\n"
        "</script>\n"
    )


def frozen_data_js(data: dict, global_name: str, hook: str, readers: str) -> str:
    """A page's generated data file: ``data`` as ``window.<global_name>``, deeply frozen, with
    a header naming the ``hook`` that writes it and the ``readers`` that read it."""
    payload = json.dumps(data, indent=1, ensure_ascii=True, allow_nan=False)
    return (
        f"// Generated by docs/hooks/{hook} from the rope_explained package while the site\n"
        f"// builds: {readers}. Do not edit.\n"
        "(function (data) {\n"
        '  "use strict";\n'
        "  (function freeze(x) {\n"
        "    Object.values(x).forEach(function (v) {\n"
        '      if (v && typeof v === "object") freeze(v);\n'
        "    });\n"
        "    return Object.freeze(x);\n"
        "  })(data);\n"
        f"  window.{global_name} = data;\n"
        f"}})({payload});\n"
    )


def load_figures():
    """``rope_explained.figures`` of :func:`package`, with every figure and value registered.

    The build's numpy then runs on one BLAS thread: its matrices are small (a head is 64 wide,
    a text at most a few thousand letters) and many, where a second thread costs more in
    hand-overs than it computes, and the cores are better spent on the other processes of a
    build (notebook kernels, Node); the numbers are the same either way."""
    if BUILD.figures is None:
        package()
        threadpool_limits(limits=1, user_api="blas")  # numpy's BLAS is loaded by now
        figures = importlib.import_module(f"{PACKAGE}.figures")
        figures.load_all()
        BUILD.figures = figures
    return BUILD.figures


# --------------------------------------------------------------------------------------------
# Scanning a page (no MkDocs needed)
# --------------------------------------------------------------------------------------------


@dataclass
class PageIndex:
    """What one page numbers (its chapter number, equation labels and figure ids, in order) and
    the values it states."""

    src: str
    number: int | None
    equations: dict[str, int] = field(default_factory=dict)  # label -> k
    figures: dict[str, int] = field(default_factory=dict)  # figure id -> k
    values: dict[str, str] = field(default_factory=dict)  # value id -> where first used

    def eq_number(self, label: str) -> str:
        return f"{self.number}.{self.equations[label]}"

    def fig_number(self, fig_id: str) -> str:
        return f"{self.number}.{self.figures[fig_id]}"


def _outside_code(lines: list[str]):
    """Yield ``(index, line)`` for the lines that are not inside a fenced code block."""
    fence: str | None = None
    for i, line in enumerate(lines):
        m = RE_FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group("fence")
                continue
            yield i, line
        elif m and m.group("fence")[0] == fence[0] and len(m.group("fence")) >= len(fence):
            if not line.strip()[len(m.group("fence")) :].strip():
                fence = None


def scan_page(src: str, text: str, meta: dict, line_offset: int = 0) -> tuple[PageIndex, list[str]]:
    """Index the equations and figures of one page; return ``(index, problems)``.

    ``text`` is the Markdown after the front matter, which took ``line_offset`` lines: problems
    name the line of the file, ``page.md:LINE: ...``.
    """
    problems: list[str] = []
    number = meta.get("number")
    if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
        problems.append(f"{src}: front matter 'number' must be an integer; got {number!r}")
        number = None
    index = PageIndex(src, number)
    lines = text.split("\n")
    code_free = dict(_outside_code(lines))
    i = 0
    while i < len(lines):
        if i not in code_free:
            i += 1
            continue
        stripped = lines[i].strip()
        if stripped.startswith("$$"):
            where = f"{src}:{i + 1 + line_offset}"
            if stripped != "$$":
                problems.append(
                    f"{where}: display math must open with '$$' alone on a line, then a "
                    f"'% eq: label' line"
                )
                i += 1
                continue
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "$$"), None)
            if end is None:
                problems.append(f"{where}: '$$' block is never closed")
                break
            m = RE_LABEL_LINE.match(lines[i + 1].strip()) if i + 1 < end else None
            if not m:
                problems.append(
                    f"{where}: display equation without a label: its first line must be "
                    f"'% eq: some-label'"
                )
            elif not re.fullmatch(LABEL, m.group("label")):
                problems.append(
                    f"{where}: equation label {m.group('label')!r} must be lower-case kebab-case"
                )
            elif any(not lines[j].strip() for j in range(i + 1, end)):
                problems.append(f"{where}: blank line inside the display equation")
            elif m.group("label") in index.equations:
                problems.append(f"{where}: duplicate equation label {m.group('label')!r}")
            else:
                index.equations[m.group("label")] = len(index.equations) + 1
            for j in range(i + 1, end):  # a display equation may state values
                for v in RE_MACRO.finditer(lines[j]):
                    if v.group("name") == "value":
                        index.values.setdefault(v.group("arg"), f"{src}:{j + 1 + line_offset}")
            i = end + 1
            continue
        if stripped.startswith("\\[") or stripped.startswith("\\begin{"):
            problems.append(
                f"{src}:{i + 1 + line_offset}: display math must be a labelled '$$' block; "
                f"found "
                f"{stripped[:20]!r}"
            )
        for m in RE_ANY_MACRO.finditer(lines[i]):
            if m.group("name") not in MACROS:
                problems.append(
                    f"{src}:{i + 1 + line_offset}: unknown macro {m.group('name')!r}; "
                    f"known: {', '.join(MACROS)}"
                )
        for m in RE_MACRO.finditer(lines[i]):
            if m.group("name") == "value":
                index.values.setdefault(m.group("arg"), f"{src}:{i + 1 + line_offset}")
            elif m.group("name") == "figure":
                fig_id = m.group("arg")
                if fig_id in index.figures:
                    problems.append(
                        f"{src}:{i + 1 + line_offset}: figure {fig_id!r} is inserted twice"
                    )
                else:
                    index.figures[fig_id] = len(index.figures) + 1
        i += 1
    if index.number is None and (index.equations or index.figures) and not problems:
        problems.append(
            f"{src}: has numbered equations or figures but no 'number:' in its front matter"
        )
    return index, problems


def scan_notebook(src: str, text: str, number: int, first_figure: int = 1) -> PageIndex:
    """Index the figures of a notebook page (jupytext source): cells tagged ``fig:<id>``,
    numbered from ``first_figure`` on (a companion notebook may continue its chapter's count)."""
    index = PageIndex(src, number)
    for m in RE_NOTEBOOK_FIGURE.finditer(text):
        index.figures.setdefault(m.group("id"), first_figure + len(index.figures))
    return index


def page_stem(src: str) -> str:
    """A page's path without suffix, as figure modules name it: ``a/index.md`` -> ``a``."""
    stem = src.rsplit(".", 1)[0]
    return stem[: -len("/index")] if stem.endswith("/index") else stem


def svg_size(data: bytes) -> tuple[int, int]:
    """Width and height in CSS pixels of an SVG written by matplotlib (``pt`` units)."""
    parser = etree.XMLPullParser(events=("start",))
    root = None
    for start in range(0, len(data), 4096):  # the root's attributes are all it needs
        parser.feed(data[start : start + 4096])
        root = next((element for _, element in parser.read_events()), None)
        if root is not None:
            break
    if root is None:
        raise ValueError("not an SVG: no root element")
    size = []
    for attr in ("width", "height"):
        m = re.fullmatch(r"([0-9.]+)(pt|px)?", root.get(attr, ""))
        if not m:
            raise ValueError(f"SVG has no usable {attr}: {root.get(attr)!r}")
        value = float(m.group(1)) * (4 / 3 if m.group(2) == "pt" else 1)
        size.append(round(value))
    return size[0], size[1]


# --------------------------------------------------------------------------------------------
# The build's state, shared by the hooks
# --------------------------------------------------------------------------------------------


@dataclass
class Build:
    pages: dict[str, PageIndex] = field(default_factory=dict)  # src_uri -> index
    figure_page: dict[str, str] = field(default_factory=dict)  # figure id -> page src
    page_urls: dict[str, str] = field(default_factory=dict)  # src_uri -> url
    svgs: dict[str, bytes] = field(default_factory=dict)  # figure id -> SVG bytes
    rendered: int = 0
    cached: int = 0
    values: dict[str, str] = field(default_factory=dict)  # value id -> its text
    values_computed: int = 0
    values_cached: int = 0
    md_config: tuple = ((), {})
    package: object = None  # rope_explained, once package() has imported it this build
    figures: object = None  # rope_explained.figures, once load_figures() has loaded it
    sources: dict[str, bytes] = field(default_factory=dict)  # module -> its dependencies' source
    versions: str = ""  # of the libraries that draw and compute, read once per build
    markdown: object = None  # the Markdown converter of captions and code (private_markdown)

    def reset(self) -> None:
        self.__init__()


BUILD = Build()


def add_page(index: PageIndex, registry: dict, values: dict | None = None) -> list[str]:
    """Record a page's index, the figures it shows and the values it states (in its text and
    in its figures' captions and alt texts); return the problems found.

    ``registry`` and ``values`` are the package's figure and value registries (``values``
    defaults to the package's).
    """
    if values is None:
        values = load_figures().VALUES
    problems = []
    BUILD.pages[index.src] = index
    for fig_id in index.figures:
        if fig_id not in registry:
            problems.append(
                f"{index.src}: unknown figure id {fig_id!r}; known: {', '.join(sorted(registry))}"
            )
        elif registry[fig_id].page != page_stem(index.src):
            problems.append(
                f"{index.src}: figure {fig_id!r} belongs to page {registry[fig_id].page!r} (its "
                f"module is {registry[fig_id].func.__module__}); move it to that page's module"
            )
        elif fig_id in BUILD.figure_page:
            problems.append(
                f"{index.src}: figure {fig_id!r} is already inserted on {BUILD.figure_page[fig_id]}"
            )
        else:
            BUILD.figure_page[fig_id] = index.src
            spec = registry[fig_id]
            for part, text in (("caption", spec.caption), ("alt text", spec.alt)):
                for m in RE_MACRO.finditer(text):
                    if m.group("name") == "value":
                        where = f"{index.src}: the {part} of figure {fig_id!r}"
                        index.values.setdefault(m.group("arg"), where)
    for value_id, where in index.values.items():
        if value_id not in values:
            problems.append(
                f"{where}: unknown value id {value_id!r}; known: {', '.join(sorted(values))}"
            )
        elif values[value_id].page != page_stem(index.src):
            spec = values[value_id]
            problems.append(
                f"{where}: value {value_id!r} belongs to page {spec.page!r}, not to "
                f"{page_stem(index.src)!r} (its module is {spec.func.__module__}); a value is "
                f"stated on its own page only: register one in that page's module"
            )
    return problems


def entry_key(spec) -> str:
    """The cache key of a figure or a value (a spec of the package's registries): its id and
    arguments, the source of its module and of every module of the package that module imports
    (``figures.module_dependencies``), the figures' style, and numpy's and matplotlib's
    versions. Editing the model redraws every figure that runs it; editing one page's module
    redraws that page's figures only."""
    figures = load_figures()
    module = spec.func.__module__
    if module not in BUILD.sources:
        paths = []
        for name in figures.module_dependencies(module):
            rel = Path(*name.split("."))
            init = ROOT / rel / "__init__.py"
            paths.append(init if init.is_file() else ROOT / rel.with_suffix(".py"))
        BUILD.sources[module] = cache.source(*paths, Path(figures.STYLE_FILE))
    if not BUILD.versions:
        BUILD.versions = cache.versions("numpy", "matplotlib")
    kind = "figure" if isinstance(spec, figures.FigureSpec) else "value"
    return cache.key(
        kind,
        spec.id,
        repr(sorted(spec.kwargs.items())),
        BUILD.sources[module],
        BUILD.versions,
    )


def _figure(fig_id: str, width: str = "wide") -> tuple[bytes, bool]:
    """The SVG of a figure for the column ``width`` and whether it had to be drawn (else it
    came from the cache)."""
    figures = load_figures()
    stem, k = figures.file_stem(fig_id, width), entry_key(figures.get(fig_id))
    data = cache.read("figures", stem, k, "svg")
    if data is not None:
        return data, False
    data = figures.render_bytes(fig_id, "svg", width)
    cache.write("figures", stem, k, "svg", data)
    return data, True


def _value(value_id: str) -> tuple[str, bool]:
    """The text of a value and whether it had to be computed (else it came from the cache)."""
    figures = load_figures()
    k = entry_key(figures.get_value(value_id))
    data = cache.read("values", value_id, k, "txt")
    if data is not None and data.strip():
        return data.decode("utf-8"), False
    text = figures.get_value(value_id).compute()
    cache.write("values", value_id, k, "txt", text.encode("utf-8"))
    return text, True


def figure_svg(fig_id: str, width: str = "wide") -> bytes:
    """The SVG of a figure drawn for the column ``width`` (``"narrow"``: a phone's), once per
    build through the cache; :data:`BUILD` keeps it under its file's name (``<id>.narrow``)."""
    stem = load_figures().file_stem(fig_id, width)
    if stem not in BUILD.svgs:
        data, rendered = _figure(fig_id, width)
        BUILD.svgs[stem] = data
        if rendered:
            BUILD.rendered += 1
        else:
            BUILD.cached += 1
    return BUILD.svgs[stem]


def one_blas_thread() -> None:
    """Give this process's OpenBLAS (numpy's) one thread. Its idle threads spin while they wait
    for work (half the build's CPU time went to one), so two processes with a thread per core
    each would take turns on the cores instead of drawing side by side. The arrays here are
    small: one thread loses nothing, and the tests build the site with one thread as well
    (``OPENBLAS_NUM_THREADS=1``, tests/conftest.py)."""
    import ctypes

    try:  # the libraries this process has loaded (Linux)
        with open("/proc/self/maps", encoding="utf-8") as maps:
            libraries = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return
    for library in sorted(libraries):
        lib = ctypes.CDLL(library)
        for name in (
            "openblas_set_num_threads",
            "scipy_openblas_set_num_threads64_",
            "openblas_set_num_threads64_",
        ):
            if hasattr(lib, name):
                getattr(lib, name)(1)
                break


def _page_in_worker(job: tuple[list[str], list[str]]) -> tuple[dict, dict]:
    """Compute one page's values and draw its figures (in a worker process of
    :func:`prepare_pages`): one process per page, so that a page's values and figures share
    the expensive runs the package caches per process."""
    value_ids, stems = job
    values = {v: _value(v) for v in value_ids}
    figures = load_figures()
    svgs = {}
    for fig_id, width in stems:
        svgs[figures.file_stem(fig_id, width)] = _figure(fig_id, width)[0]
    return values, svgs


def prepare_pages(pages: list[tuple[list[str], list[str]]], workers: int | None = None) -> None:
    """Compute the values and draw the figures of every page, ``(value_ids, fig_ids)`` each,
    into :data:`BUILD`: pages side by side in ``workers`` processes (default: one per core),
    each page's values and figures in one process. Values come from the package's value cache
    when it has them; figures already in the figure cache are read by the pages later.

    Each value and figure is computed by the same function whichever process computes it (the
    SVGs are deterministic; tests/test_figures.py renders them in another process and
    compares), so the site is the same as from a serial build. Processes are forked (they start
    with the package imported); where fork is not available everything runs in this process.
    """
    figures = load_figures()
    jobs = []
    for value_ids, fig_ids in pages:
        missing = []
        for fig_id in dict.fromkeys(fig_ids):
            k = entry_key(figures.get(fig_id))
            for width in figures.COLUMNS:
                stem = figures.file_stem(fig_id, width)
                if stem not in BUILD.svgs and not cache.path("figures", stem, k, "svg").is_file():
                    missing.append((fig_id, width))
        new_values = [
            value_id
            for value_id in dict.fromkeys(value_ids)
            if value_id not in BUILD.values
            and not cache.path(
                "values", value_id, entry_key(figures.get_value(value_id)), "txt"
            ).is_file()
        ]
        if missing or new_values:  # cached values and figures are read as the pages need them
            jobs.append((list(dict.fromkeys(value_ids)) if new_values else [], missing))
    if not jobs:
        return
    workers = min(len(jobs), workers or os.cpu_count() or 1)
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        results = map(_page_in_worker, jobs)
        _collect(results)
        return
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=one_blas_thread) as pool:
        _collect(pool.map(_page_in_worker, jobs))


def _collect(results) -> None:
    for values, svgs in results:
        for value_id, (text, computed) in values.items():
            BUILD.values[value_id] = text
            if computed:
                BUILD.values_computed += 1
            else:
                BUILD.values_cached += 1
        for fig_id, data in svgs.items():
            BUILD.svgs[fig_id] = data
            BUILD.rendered += 1


def value_text(value_id: str) -> str:
    """The text of a value, computed once per build through the cache."""
    if value_id not in BUILD.values:
        try:
            text, computed = _value(value_id)
        except ValueError as err:  # an unknown id (add_page reports those before any page)
            raise BuildError(str(err)) from err
        BUILD.values[value_id] = text
        if computed:
            BUILD.values_computed += 1
        else:
            BUILD.values_cached += 1
    return BUILD.values[value_id]


def substitute_values(text: str) -> str:
    """``text`` with every ``{{ value("id") }}`` replaced by the value's text (other macros
    are left as they are)."""
    return RE_MACRO.sub(
        lambda m: value_text(m.group("arg")) if m.group("name") == "value" else m.group(0), text
    )


# --------------------------------------------------------------------------------------------
# References and figure blocks
# --------------------------------------------------------------------------------------------


class BuildError(Exception):
    """A problem in a page; the hooks turn it into MkDocs' PluginError."""


def ref_target(kind: str, arg: str, page_src: str) -> tuple[PageIndex, str]:
    """Resolve an ``eq``/``fig`` reference to (page index, label/id); raise with known ids."""
    if kind == "eq":
        target_src, _, label = arg.rpartition("#")
        target_src = target_src or page_src
        index = BUILD.pages.get(target_src)
        if index is None:
            raise BuildError(f"{page_src}: eq({arg!r}) names an unknown page {target_src!r}")
        if label not in index.equations:
            known = ", ".join(index.equations) or "none"
            raise BuildError(
                f"{page_src}: unknown equation label {label!r} on {target_src}; known: {known}"
            )
        return index, label
    if arg not in BUILD.figure_page:
        raise BuildError(
            f"{page_src}: fig({arg!r}) names a figure that no page inserts; inserted: "
            f"{', '.join(sorted(BUILD.figure_page)) or 'none'}"
        )
    return BUILD.pages[BUILD.figure_page[arg]], arg


def relative_url(target_url: str, page_url: str) -> str:
    """The address of ``target_url`` relative to the page at ``page_url`` (both site paths)."""
    from mkdocs.utils import get_relative_url

    return get_relative_url(target_url, page_url)


def ref_link(kind: str, arg: str, page_src: str, page_url: str | None = None) -> str:
    """Markdown link for ``{{ eq(...) }}`` / ``{{ fig(...) }}`` on the page ``page_src``.

    Without ``page_url`` the link names the target's source file (``../rope.md#eq-x``), which
    MkDocs checks and rewrites like any link of the page; with it, the link is the target's
    address relative to ``page_url``, for HTML that MkDocs does not see (captions, notebooks).
    """
    index, key = ref_target(kind, arg, page_src)
    href = ""
    if index.src != page_src:
        if page_url is None:
            href = posixpath.relpath(index.src, posixpath.dirname(page_src) or ".")
        else:
            href = relative_url(BUILD.page_urls[index.src], page_url)
    if kind == "eq":
        return f"[({index.eq_number(key)})]({href}#eq-{key}){{ .eq-ref }}"
    return f"[Figure&nbsp;{index.fig_number(key)}]({href}#fig-{key}){{ .fig-ref }}"


def private_markdown():
    """A Markdown converter with the site's extensions, for captions and code blocks."""
    import markdown

    names, configs = BUILD.md_config
    configs = dict(configs)
    if "pymdownx.highlight" in configs:
        # no line anchors: they would repeat the ids of the page's own first code block
        configs["pymdownx.highlight"] = {**configs["pymdownx.highlight"], "anchor_linenums": False}
    return markdown.Markdown(extensions=list(names), extension_configs=configs)


def figure_html(fig_id: str, page_src: str, page_url: str) -> str:
    """The HTML block of a figure on the page ``page_src`` (served at ``page_url``)."""
    spec = load_figures().get(fig_id)
    index = BUILD.pages[page_src]
    number = index.fig_number(fig_id)
    url = relative_url(f"{FIGURES_DEST}/{fig_id}.svg", page_url)
    width, height = svg_size(figure_svg(fig_id))
    # the figure drawn for a phone's column, written beside the wide one as <id>.narrow.svg
    narrow_stem = load_figures().file_stem(fig_id, "narrow")
    narrow_url = relative_url(f"{FIGURES_DEST}/{narrow_stem}.svg", page_url)
    narrow_width, narrow_height = svg_size(figure_svg(fig_id, "narrow"))
    if BUILD.markdown is None:
        BUILD.markdown = private_markdown()
    md = BUILD.markdown
    md.reset()

    def caption_ref(m):
        if m.group("name") == "figure":
            raise BuildError(f"{page_src}: figure() cannot appear inside a caption")
        if m.group("name") == "value":
            return value_text(m.group("arg"))
        return ref_link(m.group("name"), m.group("arg"), page_src, page_url)

    caption = md.convert(RE_MACRO.sub(caption_ref, spec.caption)).strip()
    if caption.startswith("<p>") and caption.endswith("</p>") and caption.count("<p>") == 1:
        caption = caption[3:-4]

    def code_block() -> str:
        source = spec.source().rstrip("\n")
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", source)), default=0))
        code = "\n".join("    " + line if line else "" for line in source.split("\n"))
        return md.reset().convert(
            f'??? abstract "Code for Figure {number}: `{spec.qualname}`"\n\n'
            f"    {fence}python\n{code}\n    {fence}\n"
        )

    details = code_block()
    # the code is shown here, under its figure; searches find the prose around it
    details = details.replace("<details ", "<details data-search-exclude ", 1)
    alt = html.escape(substitute_values(spec.alt), quote=True)
    return (
        f'<span class="rope-alias" id="fig-{number}"></span>'
        f'<figure class="rope-figure" id="fig-{fig_id}">\n'
        f'<a class="rope-figure__image" href="{url}" title="Open Figure {number} full size">'
        f'<picture><source media="(max-width: 37.5em)" srcset="{narrow_url}" '
        f'width="{narrow_width}" height="{narrow_height}">'
        f'<img src="{url}" alt="{alt}" width="{width}" height="{height}"></picture></a>\n'
        f'<figcaption><a class="rope-figure__number" href="#fig-{fig_id}" '
        f'title="Link to Figure {number}">Figure {number}.</a> {caption} '
        f'<a class="rope-figure__download" href="{url}" download="{fig_id}.svg">'
        f"Download SVG</a></figcaption>\n"
        f"{details}\n</figure>"
    )
