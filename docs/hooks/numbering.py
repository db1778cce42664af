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
    if src not in BUILD.pages or PLACEHOLDER not in html_text:
        return None

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
    return html_text


def on_post_build(config, **kwargs):
    out = Path(config.site_dir) / FIGURES_DEST
    out.mkdir(parents=True, exist_ok=True)
    for fig_id, data in sorted(BUILD.svgs.items()):
        (out / f"{fig_id}.svg").write_bytes(data)
    log.info("figures: %d rendered, %d from cache", BUILD.rendered, BUILD.cached)
    log.info("values: %d computed, %d from cache", BUILD.values_computed, BUILD.values_cached)
