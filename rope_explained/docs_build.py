r"""MkDocs hooks: numbered equations, build-time figures and offline MathJax.

This is the only MkDocs-aware code of the project (it is listed under ``hooks:`` in
``mkdocs.yml``). The figures themselves live in :mod:`rope_explained.figures` and render
without MkDocs; this file only hands them to the pages.

Page conventions (a page opts in with ``number:`` in its front matter):

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
  "Figure N.k" from any page.

Figures are rendered once per build into ``site/figures/<id>.svg`` through a cache in
``.cache/figures`` keyed by :func:`rope_explained.figures.cache_key` (package source and
arguments): a rebuild with nothing changed renders nothing. MathJax 3 is copied from
``node_modules/mathjax/es5`` (``npm ci``) into ``site/javascripts/vendor/mathjax/``.
"""

from __future__ import annotations

import html
import importlib
import logging
import os
import posixpath
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as etree

ROOT = Path(__file__).resolve().parent.parent


def _import_package():
    """Import the package next to this file (installed or not), afresh if its source changed.

    MkDocs runs this file anew for every build, ``mkdocs serve`` too, but Python keeps imported
    modules: without this a figure edited during ``mkdocs serve`` would be rendered by the old
    code under the new cache key.
    """
    loaded = sys.modules.get("rope_explained.figures")
    if loaded is not None:
        built_from = getattr(loaded, "_built_from", None)
        stale = Path(loaded.__file__).resolve().parent.parent.parent != ROOT or (
            built_from is not None and built_from != loaded.package_hash()
        )
        if stale:
            for name in [n for n in sys.modules if n.split(".")[0] == "rope_explained"]:
                if name != __name__:
                    del sys.modules[name]
    sys.path.insert(0, str(ROOT))
    try:
        figures = importlib.import_module("rope_explained.figures")
    finally:
        sys.path.remove(str(ROOT))
    if Path(figures.__file__).resolve().parent.parent.parent != ROOT:
        raise ImportError(f"rope_explained imported from {figures.__file__}, not from {ROOT}")
    figures._built_from = figures.package_hash()
    return figures


figures = _import_package()

import markdown  # noqa: E402
from markdown.extensions import Extension  # noqa: E402
from markdown.treeprocessors import Treeprocessor  # noqa: E402
from mkdocs.exceptions import PluginError  # noqa: E402
from mkdocs.plugins import event_priority  # noqa: E402
from mkdocs.utils import get_relative_url  # noqa: E402
from mkdocs.utils.meta import get_data  # noqa: E402

log = logging.getLogger("mkdocs.hooks.rope_explained")

CACHE_DIR = figures.CACHE_DIR
MATHJAX_SRC = ROOT / "node_modules" / "mathjax" / "es5"
MATHJAX_DEST = "javascripts/vendor/mathjax"
FIGURES_DEST = "figures"
#: What the site loads of MathJax: the combined TeX-to-SVG component (it holds the menu and the
#: assistive MathML for screen readers), the TeX extensions that `autoload` fetches when a page
#: uses their macros, and what the menu's accessibility explorer fetches when a reader turns it
#: on (MathML input, the a11y components, the speech rule engine's English rules).
MATHJAX_FILES = (
    "tex-svg.js",
    "input/tex/extensions/*.js",
    "input/mml.js",
    "a11y/*.js",
    "sre/mathmaps/base.json",
    "sre/mathmaps/en.json",
)

LABEL = r"[a-z0-9]+(?:-[a-z0-9]+)*"
RE_LABEL_LINE = re.compile(r"^%\s*eq:\s*(?P<label>\S+)\s*$")
RE_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})")
RE_MACRO = re.compile(
    r"\{\{\s*(?P<name>eq|figure|fig)\(\s*(?P<q>[\"'])(?P<arg>.*?)(?P=q)\s*\)\s*\}\}"
)
RE_ANY_MACRO = re.compile(r"\{\{\s*(?P<name>[A-Za-z_]\w*)\s*\(")
PLACEHOLDER = "ROPE-FIGURE-PLACEHOLDER-"
RE_PLACEHOLDER_P = re.compile(rf"<p[^>]*>\s*{PLACEHOLDER}(?P<id>{LABEL})\s*</p>")


# --------------------------------------------------------------------------------------------
# Scanning a page's Markdown (no MkDocs needed)
# --------------------------------------------------------------------------------------------


@dataclass
class PageIndex:
    """What one page numbers: its chapter number, equation labels and figure ids, in order."""

    src: str
    number: int | None
    equations: dict[str, int] = field(default_factory=dict)  # label -> k
    figures: dict[str, int] = field(default_factory=dict)  # figure id -> k

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
            i = end + 1
            continue
        if stripped.startswith("\\[") or stripped.startswith("\\begin{"):
            problems.append(
                f"{src}:{i + 1 + line_offset}: display math must be a labelled '$$' block; "
                f"found "
                f"{stripped[:20]!r}"
            )
        for m in RE_ANY_MACRO.finditer(lines[i]):
            if m.group("name") not in ("eq", "figure", "fig"):
                problems.append(
                    f"{src}:{i + 1 + line_offset}: unknown macro {m.group('name')!r}; "
                    f"known: eq, fig, figure"
                )
        for m in RE_MACRO.finditer(lines[i]):
            if m.group("name") == "figure":
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


# --------------------------------------------------------------------------------------------
# Figures: rendering with a cache (no MkDocs needed)
# --------------------------------------------------------------------------------------------


#: The cache lives with the figures package (kept here under its old name for the hooks).
render_figure_cached = figures.render_cached


def svg_size(data: bytes) -> tuple[int, int]:
    """Width and height in CSS pixels of an SVG written by matplotlib (``pt`` units)."""
    root = etree.fromstring(data)
    size = []
    for attr in ("width", "height"):
        m = re.fullmatch(r"([0-9.]+)(pt|px)?", root.get(attr, ""))
        if not m:
            raise ValueError(f"SVG has no usable {attr}: {root.get(attr)!r}")
        value = float(m.group(1)) * (4 / 3 if m.group(2) == "pt" else 1)
        size.append(round(value))
    return size[0], size[1]


# --------------------------------------------------------------------------------------------
# Build state and the Markdown extension that anchors equations and figures
# --------------------------------------------------------------------------------------------


@dataclass
class _Build:
    pages: dict[str, PageIndex] = field(default_factory=dict)
    figure_page: dict[str, str] = field(default_factory=dict)  # figure id -> page src
    current_tags: dict[str, str] = field(default_factory=dict)  # "N.k" -> label, current page
    svgs: dict[str, bytes] = field(default_factory=dict)  # figure id -> SVG bytes
    rendered: int = 0
    cached: int = 0
    pkg_hash: str = ""
    md_config: tuple = ((), {})
    page_urls: list = field(default_factory=list)  # (src_uri, url) of every page


_BUILD = _Build()


class _AnchorTreeprocessor(Treeprocessor):
    """Give numbered equation blocks and figure placeholders their ``id`` (before MkDocs
    collects the page's anchors, so links to them validate)."""

    def run(self, root):
        for el in root.iter():
            cls = el.get("class") or ""
            text = el.text or ""
            if el.tag == "div" and "arithmatex" in cls.split():
                m = re.search(r"\\tag\{([0-9]+\.[0-9]+)\}\s*\\\]\s*$", text)
                if m and m.group(1) in _BUILD.current_tags:
                    el.set("id", f"eq-{_BUILD.current_tags[m.group(1)]}")
            elif el.tag == "p" and len(el) == 0:
                m = re.fullmatch(rf"\s*{PLACEHOLDER}({LABEL})\s*", text)
                if m:
                    el.set("id", f"fig-{m.group(1)}")


class _AnchorExtension(Extension):
    def extendMarkdown(self, md):  # noqa: N802 (Markdown's API)
        md.treeprocessors.register(_AnchorTreeprocessor(md), "rope_explained_anchors", 6)


# --------------------------------------------------------------------------------------------
# Hooks
# --------------------------------------------------------------------------------------------


def on_config(config, **kwargs):
    if not (MATHJAX_SRC / "tex-svg.js").is_file():
        raise PluginError(
            f"MathJax 3 is missing ({MATHJAX_SRC / 'tex-svg.js'} not found): run `npm ci` in "
            f"{ROOT} (or `make setup`) first"
        )
    _BUILD.pkg_hash = figures._built_from
    names = [ext for ext in config.markdown_extensions if isinstance(ext, str)]
    _BUILD.md_config = (names, dict(config.mdx_configs))
    config.markdown_extensions.append(_AnchorExtension())
    if "MIKE_DOCS_VERSION" not in os.environ:
        # Only a `mike deploy` has a versions.json beside the site: a plain build (make site,
        # make serve) shows no version selector instead of asking for a file that is not there.
        config.extra.pop("version", None)
    return config


def on_files(files, config, **kwargs):
    """Number every page's equations and figures before any page renders (for cross links)."""
    registry = figures.load_all()
    _BUILD.pages.clear()
    _BUILD.figure_page.clear()
    _BUILD.svgs.clear()
    _BUILD.rendered = _BUILD.cached = 0
    problems: list[str] = []
    for file in files.documentation_pages():
        if not file.src_uri.endswith(".md"):
            continue
        raw = Path(file.abs_src_path).read_text(encoding="utf-8")
        text, meta = get_data(raw)
        offset = raw.count("\n") - text.count("\n")  # lines taken by the front matter
        index, page_problems = scan_page(file.src_uri, text, meta, offset)
        problems += page_problems
        _BUILD.pages[file.src_uri] = index
        for fig_id in index.figures:
            if fig_id not in registry:
                problems.append(
                    f"{file.src_uri}: unknown figure id {fig_id!r}; known: "
                    f"{', '.join(sorted(registry))}"
                )
            elif registry[fig_id].page != file.src_uri:
                problems.append(
                    f"{file.src_uri}: figure {fig_id!r} is registered for page "
                    f"{registry[fig_id].page!r}; change its page= or move it there"
                )
            elif fig_id in _BUILD.figure_page:
                problems.append(
                    f"{file.src_uri}: figure {fig_id!r} is already inserted on "
                    f"{_BUILD.figure_page[fig_id]}"
                )
            else:
                _BUILD.figure_page[fig_id] = file.src_uri
    if problems:
        raise PluginError("Numbered content problems:\n  " + "\n  ".join(problems))
    return files


def _ref_target(kind: str, arg: str, page_src: str) -> tuple[PageIndex, str]:
    """Resolve an ``eq``/``fig`` reference to (page index, label/id); raise with known ids."""
    if kind == "eq":
        target_src, _, label = arg.rpartition("#")
        target_src = target_src or page_src
        index = _BUILD.pages.get(target_src)
        if index is None:
            raise PluginError(f"{page_src}: eq({arg!r}) names an unknown page {target_src!r}")
        if label not in index.equations:
            known = ", ".join(index.equations) or "none"
            raise PluginError(
                f"{page_src}: unknown equation label {label!r} on {target_src}; known: {known}"
            )
        return index, label
    if arg not in _BUILD.figure_page:
        raise PluginError(
            f"{page_src}: fig({arg!r}) names a figure that no page inserts; inserted: "
            f"{', '.join(sorted(_BUILD.figure_page)) or 'none'}"
        )
    return _BUILD.pages[_BUILD.figure_page[arg]], arg


def _ref_markdown(kind: str, arg: str, page_src: str) -> str:
    index, key = _ref_target(kind, arg, page_src)
    href = ""
    if index.src != page_src:
        href = posixpath.relpath(index.src, posixpath.dirname(page_src) or ".")
    if kind == "eq":
        return f"[({index.eq_number(key)})]({href}#eq-{key}){{ .eq-ref }}"
    return f"[Figure&nbsp;{index.fig_number(key)}]({href}#fig-{key}){{ .fig-ref }}"


def on_page_markdown(markdown_text, page, config, files, **kwargs):
    src = page.file.src_uri
    index = _BUILD.pages.get(src)
    _BUILD.current_tags = {}
    if index is None or ("{{" not in markdown_text and "$$" not in markdown_text):
        return None
    lines = markdown_text.split("\n")
    code_free = dict(_outside_code(lines))
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if i in code_free and line.strip() == "$$":
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "$$")
            label = RE_LABEL_LINE.match(lines[i + 1].strip()).group("label")
            tag = index.eq_number(label)
            _BUILD.current_tags[tag] = label
            indent = line[: len(line) - len(line.lstrip())]
            # blank lines around the block: arithmatex only sees a $$ that starts a block
            out.extend(["", line, *lines[i + 2 : end], f"{indent}\\tag{{{tag}}}", lines[end], ""])
            i = end + 1
            continue
        if i in code_free and "{{" in line:

            def replace(m, src=src):
                if m.group("name") == "figure":
                    return PLACEHOLDER + m.group("arg")
                return _ref_markdown(m.group("name"), m.group("arg"), src)

            line = RE_MACRO.sub(replace, line)
        out.append(line)
        i += 1
    for fig_id in index.figures:
        _ensure_rendered(fig_id)
    return "\n".join(out)


def _ensure_rendered(fig_id: str) -> bytes:
    if fig_id not in _BUILD.svgs:
        data, rendered = render_figure_cached(fig_id, CACHE_DIR, _BUILD.pkg_hash)
        _BUILD.svgs[fig_id] = data
        if rendered:
            _BUILD.rendered += 1
        else:
            _BUILD.cached += 1
    return _BUILD.svgs[fig_id]


def _private_markdown() -> markdown.Markdown:
    names, configs = _BUILD.md_config
    configs = dict(configs)
    if "pymdownx.highlight" in configs:
        # no line anchors: they would repeat the ids of the page's own first code block
        configs["pymdownx.highlight"] = {**configs["pymdownx.highlight"], "anchor_linenums": False}
    return markdown.Markdown(extensions=list(names), extension_configs=configs)


def _caption_refs(caption: str, page) -> str:
    """``{{ eq() }}``/``{{ fig() }}`` inside a caption, as plain URLs relative to the page."""

    def replace(m):
        if m.group("name") == "figure":
            raise PluginError(f"{page.file.src_uri}: figure() cannot appear inside a caption")
        index, key = _ref_target(m.group("name"), m.group("arg"), page.file.src_uri)
        target = next(p for p in _BUILD.page_urls if p[0] == index.src)[1]
        href = get_relative_url(target, page.url) if index.src != page.file.src_uri else ""
        if m.group("name") == "eq":
            return f"[({index.eq_number(key)})]({href}#eq-{key})"
        return f"[Figure&nbsp;{index.fig_number(key)}]({href}#fig-{key})"

    return RE_MACRO.sub(replace, caption)


def figure_html(fig_id: str, page) -> str:
    """The HTML block of a figure on ``page``."""
    spec = figures.get(fig_id)
    index = _BUILD.pages[page.file.src_uri]
    number = index.fig_number(fig_id)
    url = get_relative_url(f"{FIGURES_DEST}/{fig_id}.svg", page.url)
    width, height = svg_size(_ensure_rendered(fig_id))
    md = _private_markdown()
    caption = md.convert(_caption_refs(spec.caption, page)).strip()
    if caption.startswith("<p>") and caption.endswith("</p>") and caption.count("<p>") == 1:
        caption = caption[3:-4]
    source = spec.source().rstrip("\n")
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", source)), default=0))
    code = "\n".join("    " + line if line else "" for line in source.split("\n"))
    md.reset()
    details = md.convert(
        f'??? abstract "Code for Figure {number}: `{spec.qualname}`"\n\n'
        f"    {fence}python\n{code}\n    {fence}\n"
    )
    alt = html.escape(spec.alt, quote=True)
    return (
        f'<figure class="rope-figure" id="fig-{fig_id}">\n'
        f'<a class="rope-figure__image glightbox" href="{url}" data-type="image" '
        f'data-title="Figure {number}" '
        f'title="Open Figure {number} full size">'
        f'<img src="{url}" alt="{alt}" width="{width}" height="{height}"></a>\n'
        f'<figcaption><span class="rope-figure__number">Figure {number}.</span> {caption} '
        f'<a class="rope-figure__download" href="{url}" download="{fig_id}.svg">'
        f"Download SVG</a></figcaption>\n"
        f"{details}\n</figure>"
    )


def on_nav(nav, config, files, **kwargs):
    _BUILD.page_urls = [(f.src_uri, f.url) for f in files.documentation_pages()]
    return nav


@event_priority(50)  # before print-site keeps a copy of each page for the printable edition
def on_page_content(html_text, page, config, files, **kwargs):
    index = _BUILD.pages.get(page.file.src_uri)
    if index is None or not index.figures and PLACEHOLDER not in html_text:
        return None

    def replace(m):
        return figure_html(m.group("id"), page)

    html_text = RE_PLACEHOLDER_P.sub(replace, html_text)
    if PLACEHOLDER in html_text:
        where = html_text[html_text.index(PLACEHOLDER) :].split("<")[0]
        raise PluginError(
            f"{page.file.src_uri}: a {{{{ figure(...) }}}} must stand alone in its own "
            f"paragraph (found {where!r} inside other text)"
        )
    return html_text


def copy_mathjax(site_dir: str | Path) -> int:
    """Copy what the site needs of MathJax 3 into the built site; return the bytes copied."""
    dest_root = Path(site_dir) / MATHJAX_DEST
    total = 0
    for pattern in MATHJAX_FILES:
        matches = sorted(MATHJAX_SRC.glob(pattern))
        if not matches:
            raise PluginError(f"MathJax file {pattern} not found in {MATHJAX_SRC}: run `npm ci`")
        for src in matches:
            dest = dest_root / src.relative_to(MATHJAX_SRC)
            total += src.stat().st_size
            if dest.is_file() and dest.stat().st_size == src.stat().st_size:
                if dest.stat().st_mtime >= src.stat().st_mtime:
                    continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    return total


def on_post_build(config, **kwargs):
    out = Path(config.site_dir) / FIGURES_DEST
    out.mkdir(parents=True, exist_ok=True)
    for fig_id, data in sorted(_BUILD.svgs.items()):
        (out / f"{fig_id}.svg").write_bytes(data)
    size = copy_mathjax(config.site_dir)
    log.info(
        "figures: %d rendered, %d from cache (%s); MathJax: %.1f MB copied",
        _BUILD.rendered,
        _BUILD.cached,
        CACHE_DIR,
        size / 1e6,
    )
