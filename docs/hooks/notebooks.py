r"""MkDocs hook for the notebook pages that mkdocs-jupyter renders (``docs/paper-to-code/*.py``).

mkdocs-jupyter converts each notebook to HTML with nbconvert. This hook runs the notebooks
for it, and adds what the site needs around them; it returns at once on every other page:

* **Cached runs.** The hook executes each notebook with nbclient (``NotebookClient``, a kernel
  of the Python that runs MkDocs) before any page renders, and hands mkdocs-jupyter the
  executed notebook (the page's ``File.abs_src_path`` points at it; the plugin itself executes
  nothing). The kernel's printed text is kept as one output per stream and cell
  (``coalesce_streams``): a cell that prints several lines may send them in one message or
  several, depending on timing, and two runs must give the same page. An executed notebook is
  kept in the build's cache (``cache.py``), keyed by the notebook's text, the package's source
  and the versions of the libraries that run and draw: a build with nothing changed executes
  no notebook, a change to either executes it again.
* **Front matter.** A notebook keeps its ``title`` and ``number`` (the chapter number) in its
  jupytext header, under ``jupyter: rope_explained:``; they become ``page.meta``, as the front
  matter of a Markdown page does.
* **Figures.** A code cell tagged ``fig:<id>`` calls a registered figure function, so the
  notebook shows the plot wherever it runs. On the site, that cell's output becomes the numbered
  figure block of the Markdown pages (an SVG file, caption, download link and code).
* **No third-party scripts.** nbconvert's page template carries a MathJax 2 loader (empty
  unless ``custom_mathjax_url`` is set) and a Mermaid loader that imports from a CDN when a
  notebook holds a diagram. Both are removed; the build stops if any script from another host
  is left.
* **Math.** Jupyter's ``$...$`` and ``$$...$$`` in Markdown cells become the markup that
  ``pymdownx.arithmatex`` writes on the Markdown pages, so both kinds of page are typeset
  alike. An anchor ``<a id="eq-label"></a>`` alone in a paragraph right before a display
  equation becomes the equation's ``id``, as on the Markdown pages.
* **One shared style sheet.** nbconvert writes its whole style sheet (JupyterLab's and
  Blueprint's rules, about 600 KB) into every notebook page. The hook takes it out of the pages
  and writes it once, as ``stylesheets/notebook.css``, linked from the notebook pages only and
  cached by the browser across them; only the rules whose classes occur on a notebook page are
  kept, and only the custom properties that some kept rule (or the theme's CSS) reads.
* **Downloads.** Links to the notebook as ``.ipynb`` (written at build time from the ``.py``
  source, without outputs, with stable cell ids) and as the jupytext ``.py`` script (copied
  beside it), placed under the page's title.
"""

from __future__ import annotations

import functools
import html
import logging
import os
import re
import shutil
from pathlib import Path

import cache
import jupytext
import nbformat
import tinycss2
from hooklib import (
    BUILD,
    PACKAGE,
    ROOT,
    BuildError,
    add_page,
    figure_html,
    figure_svg,
    load_figures,
    relative_url,
    scan_notebook,
)
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

log = logging.getLogger("mkdocs.hooks.notebooks")

NOTEBOOK_DIR = "paper-to-code/"
#: Seconds a cell may run.
CELL_TIMEOUT = 600
#: The libraries whose versions an executed notebook's outputs depend on.
LIBRARIES = ("numpy", "matplotlib", "nbclient", "ipykernel", "jupytext", "nbformat")
RE_NBCONVERT_MATHJAX = re.compile(
    r'\s*<!-- Load mathjax -->\s*<script src="[^"]*">\s*</script>'
    r'\s*<!-- MathJax configuration -->\s*<script type="text/x-mathjax-config">.*?</script>'
    r"\s*<!-- End of mathjax configuration -->",
    re.DOTALL,
)
RE_MERMAID = re.compile(r'<script type="module">(?:(?!</script>).)*?mermaid.*?</script>', re.DOTALL)
RE_EXTERNAL_SCRIPT = re.compile(
    r"<script[^>]*\bsrc=[\"']?(?:https?:)?//|import\(\s*[\"'](?:https?:)?//", re.IGNORECASE
)
RE_MARKDOWN_CELL = re.compile(r'<div class="[^"]*\bjp-RenderedMarkdown\b[^"]*"[^>]*>')
RE_FIGURE_CELL = re.compile(r'<div class="[^"]*\bcelltag_fig:(?P<id>[a-z0-9-]+)[^"]*"[^>]*>')
RE_OUTPUT_WRAPPER = re.compile(r'<div class="[^"]*\bjp-Cell-outputWrapper\b[^"]*"[^>]*>')
RE_DIV_TAG = re.compile(r"<div\b[^>]*>|</div>")
RE_CODE_AREA = re.compile(r'<div class="highlight-ipynb[^"]*"(?![^>]*tabindex)')
RE_CELL_ID = re.compile(r'(?<=id="cell-id=)[0-9a-f-]+(?=")')
RE_VERBATIM = re.compile(r"(<(pre|code|script|style)\b.*?</\2>)", re.DOTALL | re.IGNORECASE)
RE_DISPLAY = re.compile(
    r'(?:<p>\s*<a id="(?P<anchor>eq-[a-z0-9]+(?:-[a-z0-9]+)*)">\s*</a>\s*</p>\s*)?'
    r"(?P<p><p>\s*)?\$\$(?P<tex>.+?)\$\$(?(p)\s*</p>)",
    re.DOTALL,
)
# $...$ on one line or across lines, not $$, not an escaped \$, no space before the closing $
RE_INLINE = re.compile(r"(?<![\\$])\$(?P<tex>[^$]+?)(?<![\\\s])\$(?!\$)")

RE_TEMPLATE_STYLE = re.compile(r"\s*<style[^>]*>(.*?)</style>", re.DOTALL | re.IGNORECASE)
RE_TRAILING_STYLE = re.compile(r"\s*<style[^>]*>(.*?)</style>\s*\Z", re.DOTALL | re.IGNORECASE)
NOTEBOOK_WRAPPER = '<div class="jupyter-wrapper">'
NOTEBOOK_CSS = "stylesheets/notebook.css"
RE_CLASS_ATTR = re.compile(r"""\bclass=(?:"([^"]*)"|'([^']*)'|([^\s>"']+))""")
RE_SELECTOR_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
RE_NEGATION = re.compile(r":not\((?:[^()]|\([^()]*\))*\)")
RE_VAR_USE = re.compile(r"var\(\s*(--[\w-]+)")

_notebooks: dict[str, Path] = {}  # page src_uri -> source path, for on_post_build
_styles: list[str] = []  # the style blocks of nbconvert's template, in order, each once
_notebook_pages: list[str] = []  # the written notebook pages, whose classes the CSS keeps


def is_notebook(page) -> bool:
    """Whether ``page`` is one of the notebooks (jupytext ``.py`` files in paper-to-code/)."""
    src = page.file.src_uri
    return src.startswith(NOTEBOOK_DIR) and src.endswith(".py")


@functools.lru_cache(maxsize=16)
def _header(path: str, mtime_ns: int, size: int) -> dict:
    """The ``rope_explained`` section of a notebook's jupytext header (read once per version of
    the file: the build asks for it several times)."""
    return dict(jupytext.read(path).metadata.get("rope_explained") or {})


def notebook_meta(path: str | Path) -> dict:
    """The ``title``/``number`` (and optional ``first_figure``) a notebook declares in its
    jupytext header.

    Raises:
        ValueError: when the header has no ``rope_explained`` section or its ``number`` is not
            a non-negative integer.
    """
    st = os.stat(path)
    meta = dict(_header(str(path), st.st_mtime_ns, st.st_size))
    for key, lowest, required in (("number", 0, True), ("first_figure", 1, False)):
        value = meta.get(key)
        if value is None and not required:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise ValueError(
                f"{path}: the jupytext header needs 'rope_explained: {key}:' with an integer "
                f">= {lowest}; got {value!r}"
            )
    return meta


def executed(path: Path, kernel_name: str, source: bytes) -> Path:
    """The notebook at ``path`` (a jupytext script) with its outputs: executed in ``path``'s
    folder with nbclient, or taken from the cache. ``source``: the package's source, part of
    the key. Cells get stable ids (``cell-0``, ...) and no timing metadata, so that one key
    always holds the same file.

    Raises:
        nbclient.exceptions.CellExecutionError: when a cell fails.
    """
    text = path.read_bytes()
    k = cache.key(
        "notebook", text, source, kernel_name, str(CELL_TIMEOUT), cache.versions(*LIBRARIES)
    )
    name = path.stem
    if cache.read("notebooks", name, k, "ipynb") is None:
        nb = jupytext.read(path)
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"cell-{i}"
        client = NotebookClient(
            nb,
            kernel_name=kernel_name,
            timeout=CELL_TIMEOUT,
            allow_errors=False,
            coalesce_streams=True,
            record_timing=False,
            resources={"metadata": {"path": str(path.parent)}},
        )
        log.info("notebooks: executing %s", path.name)
        client.execute()
        cache.write("notebooks", name, k, "ipynb", nbformat.writes(nb).encode("utf-8"))
    return cache.path("notebooks", name, k, "ipynb")


def on_config(config, **kwargs):
    plugin = config.plugins.get("mkdocs-jupyter")
    if plugin is None:
        return config
    if plugin.config["allow_errors"] or plugin.config["execute"] or plugin.config.get("cache"):
        raise PluginError(
            "mkdocs-jupyter must keep allow_errors, execute and cache false: "
            "docs/hooks/notebooks.py runs the notebooks (a failing cell fails the build) and "
            "keeps them in the build's cache"
        )
    # the notebooks' kernels import the package from this checkout, whatever else is installed
    path = os.environ.get("PYTHONPATH", "")
    if str(ROOT) not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), path)))
    return config


def on_files(files, config, **kwargs):
    """Number each notebook's figures (after numbering.py has indexed the Markdown pages), and
    run each notebook (or take its run from the cache) for mkdocs-jupyter to convert."""
    _notebooks.clear()
    registry = load_figures().REGISTRY
    problems = []
    for file in files.documentation_pages():
        if not (file.src_uri.startswith(NOTEBOOK_DIR) and file.src_uri.endswith(".py")):
            continue
        try:
            meta = notebook_meta(file.abs_src_path)
        except ValueError as err:
            raise PluginError(str(err)) from err
        text = Path(file.abs_src_path).read_text(encoding="utf-8")
        index = scan_notebook(file.src_uri, text, meta["number"], meta.get("first_figure", 1))
        problems += add_page(index, registry)
        _notebooks[file.src_uri] = Path(file.abs_src_path)
    if problems:
        raise PluginError("Notebook figure problems:\n  " + "\n  ".join(problems))
    plugin = config.plugins.get("mkdocs-jupyter")
    if plugin is not None and _notebooks:
        source = cache.source(ROOT / PACKAGE)
        for src_uri, path in sorted(_notebooks.items()):
            try:
                run = executed(path, plugin.config["kernel_name"] or "python3", source)
            except CellExecutionError as err:
                raise PluginError(f"{src_uri}: a cell failed:\n{err}") from err
            # mkdocs-jupyter renders the notebook at the file's path: the executed one
            files.get_file_from_path(src_uri).abs_src_path = str(run)
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    if not is_notebook(page):
        return None
    meta = notebook_meta(_notebooks[page.file.src_uri])
    page.meta.update({k: v for k, v in meta.items() if k != "first_figure"})
    for fig_id in BUILD.pages[page.file.src_uri].figures:
        figure_svg(fig_id)
    return None


def _math_to_arithmatex(text: str) -> str:
    """Mark ``$$...$$`` and ``$...$`` in rendered Markdown (not in code) as arithmatex does."""

    def display(m: re.Match) -> str:
        anchor = f' id="{m.group("anchor")}"' if m.group("anchor") else ""
        return f'<div class="arithmatex"{anchor}>\\[{m.group("tex")}\\]</div>'

    def inline(m: re.Match) -> str:
        return f'<span class="arithmatex">\\({m.group("tex")}\\)</span>'

    parts = RE_VERBATIM.split(text)
    out = []
    for i, part in enumerate(parts):
        if i % 3 == 0:  # text between verbatim elements (split yields text, element, tag name)
            part = RE_INLINE.sub(inline, RE_DISPLAY.sub(display, part))
            out.append(part)
        elif i % 3 == 1:
            out.append(part)
    return "".join(out)


def _div_end(text: str, start: int) -> int:
    """The index of the ``</div>`` that closes the ``<div`` opening at ``start``."""
    depth = 0
    for tag in RE_DIV_TAG.finditer(text, start):
        depth += 1 if tag.group().startswith("<div") else -1
        if depth == 0:
            return tag.start()
    raise PluginError("unbalanced <div> in a notebook page")


def mark_math(html_text: str) -> str:
    r"""Apply :func:`_math_to_arithmatex` inside every rendered Markdown cell of a notebook page.

    >>> cell = '<div class="jp-RenderedMarkdown"><p>Let $x_1$ be <code>$HOME</code>.</p></div>'
    >>> mark_math(cell).split("<p>")[1]
    'Let <span class="arithmatex">\\(x_1\\)</span> be <code>$HOME</code>.</p></div>'
    """
    out = []
    pos = 0
    for start in RE_MARKDOWN_CELL.finditer(html_text):
        if start.start() < pos:
            continue  # nested inside a cell already handled
        end = _div_end(html_text, start.start())
        out.append(html_text[pos : start.end()])
        out.append(_math_to_arithmatex(html_text[start.end() : end]))
        pos = end
    out.append(html_text[pos:])
    return "".join(out)


def place_figures(html_text: str, page_src: str, page_url: str) -> str:
    """Put each ``fig:<id>`` cell's numbered figure block in place of the cell's outputs."""
    out = []
    pos = 0
    for cell in RE_FIGURE_CELL.finditer(html_text):
        if cell.start() < pos:
            continue  # an element inside a cell already handled
        cell_end = _div_end(html_text, cell.start())
        wrapper = RE_OUTPUT_WRAPPER.search(html_text, cell.end(), cell_end)
        if wrapper is None:
            raise PluginError(f"{page_src}: the cell tagged fig:{cell['id']} shows no output")
        try:
            block = figure_html(cell["id"], page_src, page_url)
        except BuildError as err:
            raise PluginError(str(err)) from err
        out.append(html_text[pos : wrapper.start()])
        out.append(f'<div class="jp-Cell-outputWrapper">\n{block}\n</div>\n')
        pos = cell_end  # every output of the cell is replaced
    out.append(html_text[pos:])
    return "".join(out)


def downloads_html(stem: str) -> str:
    """The download links shown at the top of a notebook page."""
    name = html.escape(stem)
    return (
        '<p class="notebook-downloads">Download this notebook: '
        f'<a href="{name}.ipynb" download>{name}.ipynb</a> (Jupyter) or '
        f'<a href="{name}.py" download>{name}.py</a> (jupytext percent script; '
        "<code>jupytext --to notebook</code> converts it). It needs the "
        "<code>rope_explained</code> package and numpy.</p>\n"
    )


def html_classes(html_text: str) -> set[str]:
    """Every class name that an element of ``html_text`` carries."""
    names = set()
    for m in RE_CLASS_ATTR.finditer(html_text):
        names.update((m.group(1) or m.group(2) or m.group(3) or "").split())
    return names


def _selector_kept(selector: str, classes: set[str]) -> bool:
    """Whether a selector can match: every class it requires (outside ``:not()``) occurs in
    ``classes`` (the theme's own ``md-`` classes, which its scripts add, always count)."""
    if re.search(r":(?:is|where|has|matches)\(", selector):
        return True  # alternatives inside: kept whole
    required = RE_SELECTOR_CLASS.findall(RE_NEGATION.sub("", selector))
    return all(c in classes or c.startswith("md-") for c in required)


def split_selectors(prelude: str) -> list[str]:
    """The selectors of a selector list (commas inside ``:is(...)`` and the like stay).

    >>> split_selectors(".a, .b :is(.c, .d)")
    ['.a', '.b :is(.c, .d)']
    """
    out, depth, start = [], 0, 0
    for i, char in enumerate(prelude):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            out.append(prelude[start:i].strip())
            start = i + 1
    out.append(prelude[start:].strip())
    return out


def _declarations(tokens) -> list[tuple[str, str]]:
    """``(name, value)`` pairs of a rule's declarations (``!important`` kept in the value)."""
    out = []
    for decl in tinycss2.parse_blocks_contents(tokens, skip_comments=True, skip_whitespace=True):
        if decl.type != "declaration":
            continue
        value = tinycss2.serialize(decl.value).strip()
        name = decl.name if decl.name.startswith("--") else decl.lower_name
        out.append((name, value + (" !important" if decl.important else "")))
    return out


def _kept_rules(rules, classes: set[str]) -> list[tuple]:
    """The rules that can match, as ``("rule", selectors, declarations)``, ``("block",
    "@media ...", nested)`` and ``("keyframes", "@keyframes name", text)``."""
    out: list[tuple] = []
    for rule in rules:
        if rule.type == "qualified-rule":
            selectors = split_selectors(tinycss2.serialize(rule.prelude))
            kept = [s for s in selectors if s and _selector_kept(s, classes)]
            if kept:
                out.append(("rule", ",".join(kept), _declarations(rule.content)))
            continue
        if rule.type != "at-rule":
            continue
        prelude = f"@{rule.at_keyword} {tinycss2.serialize(rule.prelude).strip()}"
        if rule.lower_at_keyword in {"media", "supports"}:
            inner = tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True)
            nested = _kept_rules(inner, classes)
            if nested:
                out.append(("block", prelude, nested))
        elif rule.lower_at_keyword.endswith("keyframes"):
            out.append(("keyframes", prelude, "{" + tinycss2.serialize(rule.content).strip() + "}"))
    return out


def _walk_declarations(kept: list[tuple]):
    for kind, _, body in kept:
        if kind == "block":
            yield from _walk_declarations(body)
        elif kind == "rule":
            yield from body


def slim_css(css: str, classes: set[str], elsewhere: str = "") -> str:
    """``css`` with only what a page whose elements carry ``classes`` can use.

    A style rule is kept when one of its selectors can match (:func:`_selector_kept`); a custom
    property (``--x: ...``) is kept when a kept declaration, another kept custom property or the
    text ``elsewhere`` (the theme's CSS) reads it with ``var(--x)``; a ``@keyframes`` block when
    a kept declaration names it. The result is deterministic and has no comments.

    >>> slim_css(".a{color:red}.b{color:blue}.a .c{--x:1;--y:2;width:var(--x)}", {"a", "c"})
    '.a{color:red}\\n.a .c{--x:1;width:var(--x)}\\n'
    """
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    kept = _kept_rules(rules, classes)
    declarations = list(_walk_declarations(kept))
    plain = [value for name, value in declarations if not name.startswith("--")]
    defined: dict[str, list[str]] = {}
    for name, value in declarations:
        if name.startswith("--"):
            defined.setdefault(name, []).append(value)
    used = set(RE_VAR_USE.findall(elsewhere))
    for value in plain:
        used.update(RE_VAR_USE.findall(value))
    todo = list(used)
    while todo:  # what the used properties read in turn
        for value in defined.get(todo.pop(), ()):
            for name in RE_VAR_USE.findall(value):
                if name not in used:
                    used.add(name)
                    todo.append(name)
    values = " ".join(plain)

    def write(items: list[tuple]) -> str:
        lines = []
        for kind, prelude, body in items:
            if kind == "keyframes":
                name = prelude.split(None, 1)[-1]
                if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", values):
                    lines.append(prelude + body + "\n")
            elif kind == "block":
                inner = write(body)
                if inner:
                    lines.append(prelude + "{\n" + inner + "}\n")
            else:
                decls = [f"{n}:{v}" for n, v in body if not n.startswith("--") or n in used]
                if decls:
                    lines.append(prelude + "{" + ";".join(decls) + "}\n")
        return "".join(lines)

    return write(kept)


def extract_styles(html_text: str, href: str) -> str:
    """Take nbconvert's ``<style>`` blocks out of a notebook page (those before the notebook
    itself, and one after it) into :data:`_styles`, and link the shared style sheet at ``href``
    instead."""
    head_end = html_text.find(NOTEBOOK_WRAPPER)
    if head_end < 0:
        raise PluginError("a notebook page without nbconvert's notebook wrapper")
    head = html_text[:head_end]
    for css in RE_TEMPLATE_STYLE.findall(head):
        if css not in _styles:
            _styles.append(css)
    head = RE_TEMPLATE_STYLE.sub("", head)
    tail = html_text[head_end:]
    end = RE_TRAILING_STYLE.search(tail)  # what nbconvert adds after an .ipynb's page
    if end is not None:
        if end[1] not in _styles:
            _styles.append(end[1])
        tail = tail[: end.start()]
    link = f'<link rel="stylesheet" href="{html.escape(href)}">\n'
    return head + link + tail


@event_priority(50)  # before the math is marked (typeset.py, priority 10)
def on_page_content(html_text, page, config, files, **kwargs):
    if not is_notebook(page):
        return None
    html_text = RE_NBCONVERT_MATHJAX.sub("", html_text)
    html_text = extract_styles(html_text, relative_url(NOTEBOOK_CSS, page.url))
    _notebook_pages.append(page.file.abs_dest_path)
    html_text = RE_MERMAID.sub("", html_text)
    html_text = mark_math(html_text)
    html_text = place_figures(html_text, page.file.src_uri, page.url)
    # jupytext gives each cell a random id: number them instead, so two builds are identical
    counter = iter(range(10**6))
    html_text = RE_CELL_ID.sub(lambda m: f"cell-{next(counter)}", html_text)
    # a code cell wider than the page scrolls: keyboard users must be able to reach it
    html_text = RE_CODE_AREA.sub(r'\g<0> tabindex="0"', html_text)
    m = RE_EXTERNAL_SCRIPT.search(html_text)
    if m:
        around = html_text[max(0, m.start() - 80) : m.end() + 120]
        raise PluginError(f"{page.file.src_uri}: a script loads from another host: {around!r}")
    links = downloads_html(Path(page.file.src_uri).stem)
    end_h1 = html_text.find("</h1>")
    if end_h1 < 0:
        return links + html_text
    end_h1 += len("</h1>")
    return html_text[:end_h1] + "\n" + links + html_text[end_h1:]


def on_pre_build(config, **kwargs):
    _styles.clear()
    _notebook_pages.clear()


def write_notebook_css(site: Path) -> None:
    """Write the notebook pages' shared style sheet, slimmed to what they use."""
    if not _styles:
        return
    classes: set[str] = set()
    for page in [*_notebook_pages, site / "print_page" / "index.html"]:
        if Path(page).is_file():
            classes.update(html_classes(Path(page).read_text(encoding="utf-8")))
    theme_css = "".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted((site / "assets" / "stylesheets").glob("*.css"))
        + sorted((site / "stylesheets").glob("*.css"))
        if p.name != Path(NOTEBOOK_CSS).name
    )
    # slimming takes seconds: the result is kept, keyed by what it depends on
    k = cache.key(Path(__file__).read_bytes(), *_styles, " ".join(sorted(classes)), theme_css)
    data = cache.read("notebook-css", "notebook", k, "css")
    if data is None:
        slim = '@charset "UTF-8";\n' + slim_css("\n".join(_styles), classes, theme_css)
        data = slim.encode("utf-8")
        cache.write("notebook-css", "notebook", k, "css", data)
    dest = site / NOTEBOOK_CSS
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    total = sum(len(css.encode()) for css in _styles)
    kept = dest.stat().st_size // 1000
    log.info("notebooks: style sheet %d KB (of nbconvert's %d KB)", kept, total // 1000)


def on_post_build(config, **kwargs):
    """Write the notebook pages' style sheet, and each notebook as ``.ipynb`` next to its page
    (beside the copied ``.py``)."""
    site = Path(config.site_dir)
    write_notebook_css(site)
    for src_uri, path in sorted(_notebooks.items()):
        stem = Path(src_uri).stem
        dest_dir = site / Path(src_uri).parent / stem  # directory URLs: <dir>/<stem>/index.html
        if not config.use_directory_urls:
            dest_dir = site / Path(src_uri).parent
        dest_dir.mkdir(parents=True, exist_ok=True)
        nb = jupytext.read(path)
        nb.metadata.get("jupytext", {}).pop("formats", None)  # the .ipynb stands alone
        for k, cell in enumerate(nb.cells):
            cell["id"] = f"cell-{k}"  # stable ids: two builds write the same file
        jupytext.write(nb, dest_dir / f"{stem}.ipynb", fmt="ipynb")
        shutil.copyfile(path, dest_dir / f"{stem}.py")
    if _notebooks:
        log.info("notebooks: wrote %d .ipynb downloads", len(_notebooks))
