r"""MkDocs hook: numbered equations and figures, their anchors and cross-references, and the
values the pages state.

Pages opt in with ``number:`` in their front matter; the conventions are in ``hooklib.py``.
Every page's equations and figures are numbered before any page renders (``on_files``), so a
reference can point forward or to another page. Figures are drawn by the package's registry
(:mod:`rope_explained.figures`) through the build's cache (``cache.py``); this hook places them
on the pages and writes their files into ``site/figures/``. A ``{{ value("id") }}`` becomes the
text the value function registered under that id computes (cached the same way).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from hooklib import (
    BUILD,
    FIGURES_DEST,
    LABEL,
    PLACEHOLDER,
    RE_LABEL_LINE,
    RE_MACRO,
    RE_PLACEHOLDER_P,
    BuildError,
    _outside_code,
    add_page,
    figure_html,
    figure_svg,
    load_figures,
    one_blas_thread,
    prepare_pages,
    ref_link,
    ref_target,
    scan_page,
    substitute_values,
    value_text,
)
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.utils.meta import get_data

log = logging.getLogger("mkdocs.hooks.numbering")

_current_tags: dict[str, str] = {}  # "N.k" -> label, on the page being converted
_titles: dict[str, str] = {}  # src -> the chapter's numbered title, from the navigation


class _AnchorTreeprocessor(Treeprocessor):
    """Give numbered equation blocks and figure placeholders their ``id`` (before MkDocs
    collects the page's anchors, so links to them validate)."""

    def run(self, root):
        for el in root.iter():
            cls = el.get("class") or ""
            text = el.text or ""
            if el.tag == "div" and "arithmatex" in cls.split():
                m = re.search(r"\\tag\{([0-9]+\.[0-9]+)\}\s*\\\]\s*$", text)
                if m and m.group(1) in _current_tags:
                    el.set("id", f"eq-{_current_tags[m.group(1)]}")
            elif el.tag == "p" and len(el) == 0:
                m = re.fullmatch(rf"\s*{PLACEHOLDER}({LABEL})\s*", text)
                if m:
                    el.set("id", f"fig-{m.group(1)}")


class _AnchorExtension(Extension):
    def extendMarkdown(self, md):  # noqa: N802 (Markdown's API)
        md.treeprocessors.register(_AnchorTreeprocessor(md), "rope_explained_anchors", 6)


def duplicate_numbers(numbers: dict[str, int | None]) -> list[str]:
    """Problems with the pages' chapter numbers (``src -> number``): two pages sharing one.

    >>> duplicate_numbers({"a.md": 1, "b.md": 2, "c.md": 1, "d.md": None})
    ['chapter 1 is the number of a.md and c.md']
    """
    pages: dict[int, list[str]] = {}
    for src, number in numbers.items():
        if number is not None:
            pages.setdefault(number, []).append(src)
    return [
        f"chapter {n} is the number of {' and '.join(sorted(srcs))}"
        for n, srcs in sorted(pages.items())
        if len(srcs) > 1
    ]


def numbered_title(number: int, title: str) -> str:
    """A chapter's title as the navigation and the page show it.

    >>> numbered_title(4, "Layer 1: induction head")
    '4 · Layer 1: induction head'
    """
    return f"{number} \u00b7 {title}"


RE_H1 = re.compile(r"<h1(?P<attrs>[^>]*)>")
# an equation's id: eq-LABEL, or on the print page KEY-eq-LABEL (the page's key in front)
RE_EQ_DIV = re.compile(
    rf'<div class="arithmatex" id="(?P<prefix>[a-z0-9-]*?)eq-(?P<label>{LABEL})"[^>]*>'
)
RE_ELEMENT = {tag: re.compile(rf"<{tag}\b|</{tag}>") for tag in ("div", "span")}


def element_end(text: str, start: int, tag: str) -> int:
    """The index just after the end tag of the ``tag`` element whose start tag is at ``start``.

    >>> text = '<div a><div></div><span>x</span></div>tail'
    >>> text[element_end(text, 0, "div"):]
    'tail'
    """
    depth = 0
    for m in RE_ELEMENT[tag].finditer(text, start):
        depth += 1 if m.group().startswith("<") and m.group()[1] != "/" else -1
        if depth == 0:
            return m.end()
    raise ValueError(f"<{tag}> at {start} is not closed")


def equation_number_links(html_text: str) -> str:
    """Each numbered display equation, once KaTeX has typeset it: its number becomes a link to
    the equation itself, and an anchor named after the number (``#eq-4.11``) stands before it.

    KaTeX draws the number inside its visual HTML, which screen readers skip (the MathML beside
    it reads the tag); a link there could not be reached. So KaTeX's own number is replaced by
    a link after the formula (the stylesheet sets the two side by side, the formula scrolling on
    its own when it is wider than the column)."""
    out, pos = [], 0
    for m in RE_EQ_DIV.finditer(html_text):
        if m.start() < pos:
            continue  # nested in an equation already done
        end = element_end(html_text, m.start(), "div")
        block = html_text[m.start() : end]
        tag_at = block.find('<span class="katex-tag">')
        if tag_at < 0:
            continue
        tag_end = element_end(block, tag_at, "span")
        number = re.search(r"\((\d+\.\d+)\)", re.sub(r"<[^>]+>", "", block[tag_at:tag_end]))
        if number is None:
            continue
        n, label, prefix = number.group(1), m.group("label"), m.group("prefix")
        link = (
            f'<a class="rope-eq-number" href="#{prefix}eq-{label}" '
            f'title="Link to equation ({n})">({n})</a>'
        )
        block = block[:tag_at] + block[tag_end:]
        block = block[: -len("</div>")] + link + "</div>"
        alias = f'<span class="rope-alias" id="{prefix}eq-{n}"></span>'
        out += [html_text[pos : m.start()], alias, block]
        pos = end
    return "".join(out + [html_text[pos:]])


def chapter_heading(html_text: str, number: int) -> str:
    """The page's first ``<h1>`` with the chapter number in front of its title."""
    return RE_H1.sub(
        lambda m: f'<h1{m.group("attrs")}><span class="rope-chapter">{number} \u00b7</span> ',
        html_text,
        count=1,
    )


LIST_PAGE = "figures-and-equations.md"
"""The page that lists every numbered figure and equation of the site, with links."""
RE_NOTEBOOK_EQ = re.compile(
    rf'^# <a id="eq-(?P<label>{LABEL})"></a>\n#\n# \$\$\n(?P<body>(?:# .*\n)+?)# \$\$$', re.M
)
RE_TAG = re.compile(r"\s*\\tag\{[^}]*\}")


def equation_bodies(src: str, text: str) -> dict[str, str]:
    r"""``label -> TeX`` of the numbered display equations of a page's source (Markdown, or a
    jupytext notebook whose equations carry their own ``\tag``), without the tag.

    >>> equation_bodies("a.md", "x\n$$\n% eq: sum\na + b\n$$\n")
    {'sum': 'a + b'}
    """
    if src.endswith(".py"):
        return {
            m.group("label"): RE_TAG.sub("", "\n".join(x[2:] for x in m.group("body").splitlines()))
            for m in RE_NOTEBOOK_EQ.finditer(text)
        }
    bodies: dict[str, str] = {}
    lines = text.split("\n")
    code_free = dict(_outside_code(lines))
    for i, line in code_free.items():
        if (
            line.strip() == "$$"
            and i + 1 < len(lines)
            and RE_LABEL_LINE.match(lines[i + 1].strip())
        ):
            end = next(j for j in range(i + 2, len(lines)) if lines[j].strip() == "$$")
            label = RE_LABEL_LINE.match(lines[i + 1].strip()).group("label")
            bodies[label] = "\n".join(x.strip() for x in lines[i + 2 : end])
    return bodies


def list_page_markdown(titles: dict[str, str], sources: dict[str, str]) -> str:
    """The list of every chapter's figures (number, link, caption) and numbered equations
    (number, link, the label that names it), chapter by chapter, for ``LIST_PAGE`` (at the
    root of the docs, so a page's source path is the link to it). The equations are not drawn
    again: the page would weigh as much as the rest of the site's formulas."""
    figures = load_figures()
    out: list[str] = []
    chapters = sorted((i for i in BUILD.pages.values() if i.number), key=lambda i: i.number)
    for index in chapters:
        out += ["", f"## {titles.get(index.src, index.src)} {{ #chapter-{index.number} }}", ""]
        out += [f"[Read chapter {index.number}]({index.src})", ""]
        for fig_id in index.figures:

            def caption_ref(m, src=index.src):
                if m.group("name") == "value":
                    return value_text(m.group("arg"))
                target, key = ref_target(m.group("name"), m.group("arg"), src)
                if m.group("name") == "eq":
                    return f"[({target.eq_number(key)})]({target.src}#eq-{key})"
                return f"[Figure&nbsp;{target.fig_number(key)}]({target.src}#fig-{key})"

            caption = " ".join(RE_MACRO.sub(caption_ref, figures.get(fig_id).caption).split())
            number = index.fig_number(fig_id)
            out.append(f"- [**Figure {number}**]({index.src}#fig-{fig_id}): {caption}")
        if index.figures:
            out.append("")
        bodies = equation_bodies(index.src, sources.get(index.src, ""))
        for k, label in enumerate(bodies, start=1):
            number = index.eq_number(label) if label in index.equations else f"{index.number}.{k}"
            words = label.replace("-", " ")  # the label, which names what the equation is
            out.append(f"- [**Equation ({number})**]({index.src}#eq-{label}): {words}")
        out.append("")
    return "\n".join(out)


def on_config(config, **kwargs):
    load_figures()
    one_blas_thread()  # the build's own numpy: no thread spinning beside the figure processes
    names = [ext for ext in config.markdown_extensions if isinstance(ext, str)]
    BUILD.md_config = (names, dict(config.mdx_configs))
    config.markdown_extensions.append(_AnchorExtension())
    if "MIKE_DOCS_VERSION" not in os.environ:
        # Only a `mike deploy` has a versions.json beside the site: a plain build (make site,
        # make serve) shows no version selector instead of asking for a file that is not there.
        config.extra.pop("version", None)
    return config


def on_files(files, config, **kwargs):
    """Number every Markdown page's equations and figures before any page renders."""
    md_config = BUILD.md_config
    BUILD.reset()
    BUILD.md_config = md_config
    registry = load_figures().REGISTRY
    problems: list[str] = []
    for file in files.documentation_pages():
        BUILD.page_urls[file.src_uri] = file.url
        if not file.src_uri.endswith(".md"):
            continue
        raw = Path(file.abs_src_path).read_text(encoding="utf-8")
        text, meta = get_data(raw)
        offset = raw.count("\n") - text.count("\n")  # lines taken by the front matter
        index, page_problems = scan_page(file.src_uri, text, meta, offset)
        problems += page_problems + add_page(index, registry)
    if problems:
        raise PluginError("Numbered content problems:\n  " + "\n  ".join(problems))
    return files


def on_nav(nav, config, files, **kwargs):
    """Once all pages (the notebooks' too, whose hook numbers them in its ``on_files``) are
    indexed: compute every value the pages state and render every figure the cache lacks,
    pages side by side in worker processes, each page's values and figures in one process (a
    figure and the values of its page often share one expensive run, cached per process)."""
    problems = duplicate_numbers({src: index.number for src, index in BUILD.pages.items()})
    if problems:
        raise PluginError("Chapter numbers must be unique:\n  " + "\n  ".join(problems))
    for page in nav.pages:
        index = BUILD.pages.get(page.file.src_uri)
        if index is not None and index.number and page.title:
            page.title = numbered_title(index.number, page.title)
            _titles[page.file.src_uri] = page.title
    pages = [(list(index.values), list(index.figures)) for index in BUILD.pages.values()]
    try:
        prepare_pages(pages)
    except ValueError as err:  # an unknown value id (add_page reports those first)
        raise PluginError(str(err)) from err
    if BUILD.rendered:
        log.info("figures: %d rendered in parallel", BUILD.rendered)
    return nav


def on_page_markdown(markdown_text, page, config, files, **kwargs):
    src = page.file.src_uri
    if src == LIST_PAGE:
        docs = Path(config.docs_dir)
        sources = {src: (docs / src).read_text(encoding="utf-8") for src in BUILD.pages}
        listing = list_page_markdown(_titles, sources)
        return markdown_text.replace("<!-- every figure and equation -->", listing)
    index = BUILD.pages.get(src)
    _current_tags.clear()
    if index is None or not src.endswith(".md"):
        return None
    if "{{" not in markdown_text and "$$" not in markdown_text:
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
            _current_tags[tag] = label
            indent = line[: len(line) - len(line.lstrip())]
            try:
                body = [substitute_values(x) for x in lines[i + 2 : end]]
            except BuildError as err:
                raise PluginError(str(err)) from err
            # blank lines around the block: arithmatex only sees a $$ that starts a block
            out.extend(["", line, *body, f"{indent}\\tag{{{tag}}}", lines[end], ""])
            i = end + 1
            continue
        if i in code_free and "{{" in line:

            def replace(m):
                if m.group("name") == "figure":
                    return PLACEHOLDER + m.group("arg")
                try:
                    if m.group("name") == "value":
                        return value_text(m.group("arg"))
                    return ref_link(m.group("name"), m.group("arg"), src)
                except BuildError as err:
                    raise PluginError(str(err)) from err

            line = RE_MACRO.sub(replace, line)
        out.append(line)
        i += 1
    for fig_id in index.figures:
        figure_svg(fig_id)
    return "\n".join(out)


@event_priority(50)  # before the math is marked (typeset.py) and code left out of search
def on_page_content(html_text, page, config, files, **kwargs):
    src = page.file.src_uri
    index = BUILD.pages.get(src)
    if index is None:
        return None
    if PLACEHOLDER in html_text:

        def replace(m):
            try:
                return figure_html(m.group("id"), src, page.url)
            except BuildError as err:
                raise PluginError(str(err)) from err

        html_text = RE_PLACEHOLDER_P.sub(replace, html_text)
        if PLACEHOLDER in html_text:
            where = html_text[html_text.index(PLACEHOLDER) :].split("<")[0]
            raise PluginError(
                f"{src}: a {{{{ figure(...) }}}} must stand alone in its own paragraph "
                f"(found {where!r} inside other text)"
            )
    if index.number:
        html_text = chapter_heading(html_text, index.number)
        # the title as the other plugins left it (a notebook's comes from its front matter)
        title = page.meta.get("title") or page.title
        if title and not title.startswith(numbered_title(index.number, "")):
            page.title = _titles[src] = numbered_title(index.number, title)
            if page.meta.get("title"):
                page.meta["title"] = page.title
    return html_text


@event_priority(-50)  # after typeset.py has drawn the formulas
def on_post_page(output, page, config, **kwargs):
    if 'class="katex-tag"' not in output:  # numbered equations (the print page's too)
        return None
    return equation_number_links(output)


def on_post_build(config, **kwargs):
    out = Path(config.site_dir) / FIGURES_DEST
    out.mkdir(parents=True, exist_ok=True)
    for fig_id, data in sorted(BUILD.svgs.items()):
        (out / f"{fig_id}.svg").write_bytes(data)
    log.info("figures: %d rendered, %d from cache", BUILD.rendered, BUILD.cached)
    log.info("values: %d computed, %d from cache", BUILD.values_computed, BUILD.values_cached)
