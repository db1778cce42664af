r"""MkDocs hook for the notebook pages that mkdocs-jupyter renders (``docs/paper-to-code/*.py``).

mkdocs-jupyter executes each notebook and converts it with nbconvert. This hook adds what the
site needs around that, and nothing else:

* **Front matter.** A notebook keeps its ``title`` and ``number`` (the chapter number) in its
  jupytext header, under ``jupyter: rope_explained:``; they become ``page.meta``, as the front
  matter of a Markdown page does.
* **No third-party scripts.** nbconvert's page template carries a MathJax 2 loader (empty
  unless ``custom_mathjax_url`` is set) and a Mermaid loader that imports from a CDN when a
  notebook holds a diagram. Both are removed: the site's own MathJax typesets the notebooks.
  The build stops if any script from another host is left.
* **Math.** Jupyter's ``$...$`` and ``$$...$$`` in Markdown cells become the markup that
  ``pymdownx.arithmatex`` writes on the Markdown pages (``<span class="arithmatex">\(...\)``
  and ``<div class="arithmatex">\[...\]``), so the site's MathJax configuration, which
  typesets only ``arithmatex`` elements, handles both kinds of page alike. An anchor
  ``<a id="eq-label"></a>`` alone in a paragraph right before a display equation becomes the
  equation's ``id``, as on the Markdown pages.
* **Downloads.** Links to the notebook as ``.ipynb`` (written at build time from the ``.py``
  source, without outputs) and as the jupytext ``.py`` script (copied by mkdocs-jupyter's
  ``include_source``), placed under the page's title.
"""

from __future__ import annotations

import base64
import html
import logging
import re
from pathlib import Path

import jupytext
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.utils import get_relative_url

from rope_explained.figures.paper import FIGURES_URL

log = logging.getLogger("mkdocs.hooks.rope_explained.notebooks")

NOTEBOOK_DIR = "paper-to-code/"
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
RE_DIV_TAG = re.compile(r"<div\b[^>]*>|</div>")
RE_VERBATIM = re.compile(r"(<(pre|code|script|style)\b.*?</\2>)", re.DOTALL | re.IGNORECASE)
RE_DISPLAY = re.compile(
    r'(?:<p>\s*<a id="(?P<anchor>eq-[a-z0-9]+(?:-[a-z0-9]+)*)">\s*</a>\s*</p>\s*)?'
    r"(?P<p><p>\s*)?\$\$(?P<tex>.+?)\$\$(?(p)\s*</p>)",
    re.DOTALL,
)
# $...$ on one line or across lines, not $$, not an escaped \$, no space before the closing $
RE_INLINE = re.compile(r"(?<![\\$])\$(?P<tex>[^$]+?)(?<![\\\s])\$(?!\$)")

_notebooks: dict[str, Path] = {}  # page src_uri -> source path, for on_post_build
_figure_svgs: dict[str, bytes] = {}  # figure id -> SVG shown on a notebook page, for on_post_build
RE_DATA_FIGURE = re.compile(
    r'<figure class="rope-figure" id="fig-(?P<id>[a-z0-9-]+)">\s*'
    r'<img [^>]*?src="data:image/svg\+xml;base64,(?P<data>[A-Za-z0-9+/=]+)"'
)


def is_notebook(page) -> bool:
    """Whether ``page`` is one of the notebooks (jupytext ``.py`` files in paper-to-code/)."""
    src = page.file.src_uri
    return src.startswith(NOTEBOOK_DIR) and src.endswith(".py")


def notebook_meta(path: str | Path) -> dict:
    """The ``title``/``number`` a notebook declares in its jupytext header.

    Raises:
        ValueError: when the header has no ``rope_explained`` section or its ``number`` is not
            a non-negative integer.
    """
    nb = jupytext.read(path)
    meta = dict(nb.metadata.get("rope_explained") or {})
    number = meta.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 0:
        raise ValueError(
            f"{path}: the jupytext header needs 'rope_explained: number:' with an integer >= 0; "
            f"got {number!r}"
        )
    return meta


def on_pre_build(config, **kwargs):
    _notebooks.clear()


def on_page_markdown(markdown, page, config, files, **kwargs):
    if not is_notebook(page):
        return None
    try:
        page.meta.update(notebook_meta(page.file.abs_src_path))
    except ValueError as err:
        raise PluginError(str(err)) from err
    _notebooks[page.file.src_uri] = Path(page.file.abs_src_path)
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
        depth, end = 0, None
        for tag in RE_DIV_TAG.finditer(html_text, start.start()):
            depth += 1 if tag.group().startswith("<div") else -1
            if depth == 0:
                end = tag.start()
                break
        if end is None:
            raise PluginError("unbalanced <div> in a notebook's rendered Markdown")
        out.append(html_text[pos : start.end()])
        out.append(_math_to_arithmatex(html_text[start.end() : end]))
        pos = end
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


@event_priority(50)  # before other plugins (print-site keeps a copy of each page's content)
def on_page_content(html_text, page, config, files, **kwargs):
    if not is_notebook(page):
        return None
    html_text = RE_NBCONVERT_MATHJAX.sub("", html_text)
    html_text = RE_MERMAID.sub("", html_text)
    html_text = mark_math(html_text)
    for fig in RE_DATA_FIGURE.finditer(html_text):
        _figure_svgs[fig["id"]] = base64.b64decode(fig["data"])
    figures_url = get_relative_url("figures", page.url.rstrip("/") + "/index.html")
    html_text = html_text.replace(FIGURES_URL, figures_url)
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


def on_post_build(config, **kwargs):
    """Write each notebook as ``.ipynb`` next to its page (beside the copied ``.py``)."""
    site = Path(config.site_dir)
    for src_uri, path in sorted(_notebooks.items()):
        stem = Path(src_uri).stem
        dest_dir = site / Path(src_uri).parent / stem  # directory URLs: <dir>/<stem>/index.html
        if not config.use_directory_urls:
            dest_dir = site / Path(src_uri).parent
        dest_dir.mkdir(parents=True, exist_ok=True)
        nb = jupytext.read(path)
        nb.metadata.get("jupytext", {}).pop("formats", None)  # the .ipynb stands alone
        jupytext.write(nb, dest_dir / f"{stem}.ipynb", fmt="ipynb")
    if _notebooks:
        log.info("notebooks: wrote %d .ipynb downloads", len(_notebooks))
    figures = site / "figures"
    for fig_id, data in sorted(_figure_svgs.items()):  # the notebook figures' download targets
        figures.mkdir(parents=True, exist_ok=True)
        (figures / f"{fig_id}.svg").write_bytes(data)
