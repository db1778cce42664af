r"""MkDocs hook: the one-page edition of the site (``print_page/``, printed by ``make pdf``).

mkdocs-print-site-plugin (the last plugin in ``mkdocs.yml``) writes ``print_page/index.html`` in
its ``on_post_build``: a cover, a table of contents, then every page of the navigation in order,
each as ``<section class="print-page" id="KEY">`` where ``KEY`` is the page's address
(``equations/rope/`` -> ``equations-rope``, the home page -> ``index``). This hook keeps the
plugin's page and its layout, and gives the page what the plugin gets wrong:

* **Links that land where the page's own link lands.** The sections are built from each page's
  finished content (``page.content``: API cross-references already resolved by autorefs, exactly
  as the page shows them), rewritten by one rule: every id of a page becomes ``KEY-id``, and
  every link is resolved against the page's address, then ``#x`` -> ``#KEY-x``,
  ``../previous-token-head/#eq-x`` -> ``#equations-previous-token-head-eq-x``, ``../rope/`` ->
  ``#equations-rope``; a link to a file (a figure's SVG, a notebook download) becomes relative
  to ``print_page/``. The plugin renames the ids of headings only (so the equations and figures
  that links point at keep their bare ids) and resolves API references by substring over a set
  (``str`` landed on a figure, ``int`` on the table of contents, differently from run to run).
* **Relative addresses.** The plugin renders the page with the template context of
  ``404.html``, whose base URL is the absolute path of ``site_url``; served anywhere else
  (``mkdocs serve``, a loopback port, a version folder of ``mike``) the page asked for the
  sitemap, the search index and ``versions.json`` at the wrong address. The hook gives it the
  relative base URL of an ordinary page (``..``).
* **Out of the search index.** The page repeats the whole site: it is not indexed.
* **One document.** A plugin's ``on_page_content`` may hand back a whole document
  (``<html><head></head><body>...``); inside the print page those wrappers made the plugin insert
  its start-up script once per page. The sections keep only the content.

After the plugin has written the page, the hook checks it: every id is unique and every
in-page link (``href="#..."``) names one of them; a problem is a warning, which fails
``mkdocs build --strict``.

Both steps are functions of their input alone: a section is kept for the next build keyed by
the page's content, its address and the sections' keys, and the check's findings by the
written page (:class:`hooklib.Memo`, salted with this file), so a build with nothing changed
parses neither again.
"""

from __future__ import annotations

import functools
import json
import logging
import posixpath
import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from hooklib import Memo, source_of
from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority

log = logging.getLogger("mkdocs.hooks.print_page")

PLUGIN = "print-site"
#: Attributes that hold a list of ids of the same document.
ID_LIST_ATTRS = frozenset(
    {
        "for",
        "headers",
        "list",
        "form",
        "aria-activedescendant",
        "aria-controls",
        "aria-describedby",
        "aria-details",
        "aria-errormessage",
        "aria-flowto",
        "aria-labelledby",
        "aria-owns",
    }
)
#: Attributes that hold one URL.
URL_ATTRS = frozenset({"href", "src", "xlink:href", "poster", "data"})
#: Tags of a whole document, dropped from a page's content.
DOCUMENT_TAGS = frozenset({"html", "head", "body"})


def page_key(url: str) -> str:
    """The id of a page's section on the print page (the plugin's scheme).

    >>> page_key("equations/rope/"), page_key(""), page_key("reference/index.html")
    ('equations-rope', 'index', 'reference-index')
    """
    key = url.lower().strip().rstrip("/").replace(".html", "").replace("/", "-").lstrip("-")
    return key or "index"


# --------------------------------------------------------------------------------------------
# One page's content, rewritten for the print page (no MkDocs needed)
# --------------------------------------------------------------------------------------------


class _TagEditor(HTMLParser):
    """Find the start and end tags of an HTML text; collect ``(start, end, new text)`` edits."""

    def __init__(self, text: str, edit_start, drop_end):
        super().__init__(convert_charrefs=False)
        self.text = text
        self.edits: list[tuple[int, int, str]] = []
        self._edit_start = edit_start
        self._drop_end = drop_end
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]

    def _offset(self) -> int:
        line, col = self.getpos()
        return self._lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        raw = self.get_starttag_text()
        start = self._offset()
        new = self._edit_start(tag, attrs, raw)
        if new != raw:
            self.edits.append((start, start + len(raw), new))

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if self._drop_end(tag):
            start = self._offset()
            end = self.text.index(">", start) + 1
            self.edits.append((start, end, ""))


def edit_tags(text: str, edit_start, drop_end=lambda tag: False) -> str:
    """Rewrite the start tags of ``text`` and drop some end tags, leaving all else as it is.

    ``edit_start(tag, attrs, raw)`` returns the new text of a start tag (``raw`` to keep it);
    ``drop_end(tag)`` says whether to drop an end tag. Script and style contents, comments and
    text are never touched.
    """
    parser = _TagEditor(text, edit_start, drop_end)
    parser.feed(text)
    parser.close()
    out, pos = [], 0
    for start, end, new in parser.edits:
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


RE_ATTR = re.compile(r"""([^\s"'>/=]+)(\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?""")


def set_attrs(raw: str, changes: dict[str, str]) -> str:
    """The start tag ``raw`` with the values of some of its attributes replaced.

    >>> set_attrs('<a title="id=x" id=x href=#x>', {"id": "p-x", "href": "#p-x"})
    '<a title="id=x" id="p-x" href="#p-x">'
    """
    name_end = re.match(r"<[^\s/>]+", raw).end()
    out, pos = [raw[:name_end]], name_end
    for m in RE_ATTR.finditer(raw, name_end):
        name = m.group(1).lower()
        if name in changes and m.group(2):
            out += [raw[pos : m.start()], f'{m.group(1)}="{escape(changes.pop(name))}"']
            pos = m.end()
    if changes:
        raise ValueError(f"attributes {sorted(changes)} not found in the tag {raw[:80]!r}")
    out.append(raw[pos:])
    return "".join(out)


def print_url(url: str, page_url: str, keys: dict[str, str], print_page_url: str) -> str:
    """Where a link of the page at ``page_url`` points on the print page.

    Args:
        url: The link as the page has it (relative to the page, or absolute, or ``#x``).
        page_url: The page's address in the site (``equations/rope/``; ``""`` for the home).
        keys: Address -> section id of every page on the print page.
        print_page_url: The print page's own address (``print_page/``).

    Returns:
        ``#KEY-fragment`` (or ``#KEY``) for a page on the print page; the address relative to
        the print page for another file of the site; ``url`` itself for an external address.

    >>> keys = {"equations/rope/": "equations-rope", "": "index"}
    >>> print_url("../rope/#eq-x", "equations/other/", keys, "print_page/")
    '#equations-rope-eq-x'
    >>> print_url("#intro", "", keys, "print_page/")
    '#index-intro'
    >>> print_url("../..", "equations/rope/", keys, "print_page/")
    '#index'
    >>> print_url("../../figures/a.svg", "equations/rope/", keys, "print_page/")
    '../figures/a.svg'
    >>> print_url("https://example.org/#x", "", keys, "print_page/")
    'https://example.org/#x'
    """
    from mkdocs.utils import get_relative_url

    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith("//") or not url:
        return url
    resolved = urlsplit(urljoin("/" + page_url, url))
    path = resolved.path.lstrip("/")
    if path.endswith("index.html"):
        path = path[: -len("index.html")]
    if path in keys:
        key = keys[path]
        return f"#{key}-{resolved.fragment}" if resolved.fragment else f"#{key}"
    if path + "/" in keys and not posixpath.splitext(path)[1]:
        key = keys[path + "/"]
        return f"#{key}-{resolved.fragment}" if resolved.fragment else f"#{key}"
    out = get_relative_url(path or ".", print_page_url)
    if path.endswith("/") and not out.endswith("/"):
        out += "/"
    if resolved.query:
        out += "?" + resolved.query
    if resolved.fragment:
        out += "#" + resolved.fragment
    return out


def print_section_html(
    content: str, page_url: str, keys: dict[str, str], print_page_url: str
) -> str:
    """A page's content as a section of the print page: ids, id references and URLs rewritten.

    Every ``id`` (and the ``name`` of radio buttons and anchors) gets the page's key as prefix,
    so ids stay unique on the print page; attributes that name ids (``for``,
    ``aria-labelledby``, ...) follow; URLs go through :func:`print_url`. The tags of a whole
    document (``<html>``, ``<head>``, ``<body>``) are dropped.

    >>> keys = {"a/": "a", "b/": "b"}
    >>> print_section_html('<h2 id="x">X</h2><a href="../b/#y">y</a>', "a/", keys, "print_page/")
    '<h2 id="a-x">X</h2><a href="#b-y">y</a>'
    """
    key = keys[page_url]

    def edit_start(tag, attrs, raw):
        if tag in DOCUMENT_TAGS:
            return ""
        changes = {}
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag in ("input", "a")):
                changes[name] = f"{key}-{value}"
            elif name in ID_LIST_ATTRS:
                changes[name] = " ".join(f"{key}-{v}" for v in value.split())
            elif name in URL_ATTRS:
                new = print_url(value, page_url, keys, print_page_url)
                if new != value:
                    changes[name] = new
            elif name == "srcset":
                changes[name] = ", ".join(
                    " ".join([print_url(u, page_url, keys, print_page_url), *rest])
                    for u, *rest in (c.split() for c in value.split(",") if c.strip())
                )
        return set_attrs(raw, changes) if changes else raw

    return edit_tags(content, edit_start, lambda tag: tag in DOCUMENT_TAGS)


# --------------------------------------------------------------------------------------------
# The print page's body, in place of the plugin's (mkdocs_print_site_plugin.renderer)
# --------------------------------------------------------------------------------------------


def _combined(plugin, print_page_url: str):
    """What ``Renderer.write_combined`` returns: ``(html, TableOfContents)``, built from each
    page's finished content with the links rewritten by :func:`print_section_html`."""
    from mkdocs.structure.toc import AnchorLink, TableOfContents
    from mkdocs_print_site_plugin.exclude import exclude

    renderer = plugin.renderer
    options = plugin.config
    excluded = options.get("exclude", [])
    items = renderer._get_items()

    keys: dict[str, str] = {}

    def collect(items):
        for item in items:
            if item.is_page and not exclude(item.file.src_path, excluded):
                keys.setdefault(item.url, page_key(item.url))
            elif item.is_section:
                collect(item.children)

    collect(items)
    if len(set(keys.values())) != len(keys):
        raise PluginError(f"print page: two pages share a section id: {sorted(keys.items())}")

    classes = [
        name
        for option, name in (
            ("add_full_urls", "print-site-add-full-url"),
            ("enumerate_headings", "print-site-enumerate-headings"),
            ("enumerate_figures", "print-site-enumerate-figures"),
        )
        if options.get(option)
    ]
    parts = [f'<div id="print-site-page" class="{" ".join(classes)}">']
    if options.get("add_cover_page"):
        parts.append(renderer._cover_page())
    if options.get("add_print_site_banner"):
        parts.append(renderer._print_site_banner())
    if options.get("add_table_of_contents"):
        parts.append(renderer._toc())
    styles: list[str] = []
    done: set[str] = set()
    all_keys = json.dumps(keys, sort_keys=True)

    def walk(items, level=0, prefix=""):
        links = []
        for i, item in enumerate(items):
            number = f"{prefix}{i + 1}"
            title = f"{number} {item.title}" if options.get("enumerate_headings") else item.title
            if item.is_page:
                if item.url not in keys:
                    continue
                key = keys[item.url]
                links.append(AnchorLink(title, key, level))
                if item.url in done or not item.content:
                    continue  # a page listed twice is printed once: its ids would repeat
                done.add(item.url)
                content = item.content
                if "<h1" not in content:
                    content = f"<h1>{escape(item.title)}</h1>{content}"
                body = SECTIONS(
                    SECTIONS.key(content, item.url, all_keys, print_page_url),
                    lambda text=content, url=item.url: print_section_html(
                        text, url, keys, print_page_url
                    ),
                )
                parts.append(
                    f'<section class="print-page" id="{key}" heading-number="{number}">'
                    f"{body}</section>"
                )
                styles.append(
                    f".print-site-enumerate-headings #{key} > h1:before {{ content: '{number} ' }}"
                )
                styles.append(renderer._set_inner_heading_styles(key, number, level))
            elif item.is_section:
                sid = "section-" + number.replace(".", "-")
                parts.append(
                    f'<section class="print-page md-section" id="{sid}" '
                    f'heading-number="{number}"><h1>{escape(item.title)}'
                    f'<a class="headerlink" href="#{sid}" title="Permanent link"></a></h1>'
                )
                styles.append(
                    f".print-site-enumerate-headings #{sid} > h1:before {{ content: '{number} ' }}"
                )
                link = AnchorLink(title, sid, level)
                link.children = walk(item.children, level + 1, number + ".")
                links.append(link)
                parts.append("</section>")
        return links

    anchor_links = walk(items)
    parts.append("</div>")
    if options.get("enumerate_headings"):
        parts.append("<style>" + "\n".join(styles) + "</style>")
    return "".join(parts), TableOfContents(anchor_links)


def _plugin(config):
    plugin = config.plugins.get(PLUGIN)
    if plugin is None or not plugin.config.get("enabled"):
        return None
    for attr in ("renderer", "print_page", "context"):
        if not hasattr(plugin, attr):
            raise PluginError(
                f"docs/hooks/print_page.py: the {PLUGIN} plugin has no {attr!r}; this hook "
                f"follows mkdocs-print-site-plugin 2.x"
            )
    return plugin


SECTIONS = Memo("print-sections")
CHECKED = Memo("print-links")


def on_pre_build(config, **kwargs):
    salt = source_of(Path(__file__).resolve())
    SECTIONS.begin(config, salt)
    CHECKED.begin(config, salt)


def on_config(config, **kwargs):
    """Build the print page's body with this hook's renderer (after the plugin's on_config)."""
    plugin = _plugin(config)
    if plugin is not None:
        url = plugin.print_page.file.url
        plugin.renderer.write_combined = functools.partial(_combined, plugin, url)


@event_priority(100)  # before the search plugin indexes the page
def on_page_context(context, page, config, nav, **kwargs):
    """Keep the print page out of the search index: it repeats every page, so each search
    would find every hit twice, and the index would be twice as large."""
    plugin = _plugin(config)
    if plugin is not None and page is plugin.print_page:
        page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    return context


@event_priority(100)  # before the plugin renders the print page
def _relative_base(config, **kwargs):
    """Give the print page the relative base URL of an ordinary page (``..``)."""
    from mkdocs.utils import get_relative_url

    plugin = _plugin(config)
    if plugin is not None and plugin.context:
        plugin.context["base_url"] = get_relative_url(".", plugin.print_page.file.url)


@event_priority(-100)  # after the plugin wrote the print page
def _check_links(config, **kwargs):
    """Warn about repeated ids and in-page links that name no id on the written print page."""
    plugin = _plugin(config)
    if plugin is None:
        return
    path = Path(plugin.print_page.file.abs_dest_path)
    if not path.is_file():
        raise PluginError(f"print page: {path} was not written")
    text = path.read_text(encoding="utf-8")
    problems = CHECKED(CHECKED.key(text), lambda: link_problems(text))
    SECTIONS.save()
    CHECKED.save()
    for problem in problems[:20]:
        log.warning("print page: %s", problem)
    if len(problems) > 20:
        log.warning("print page: %d more link problems", len(problems) - 20)


on_post_build = CombinedEvent(_relative_base, _check_links)


# --------------------------------------------------------------------------------------------
# The written page, checked
# --------------------------------------------------------------------------------------------


class _Anchors(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" and value is not None:
                self.ids.append(value)
            elif name == "href" and tag == "a" and value and value.startswith("#"):
                self.hrefs.append(value)


def link_problems(text: str) -> list[str]:
    """Repeated ids and in-page links (``href="#x"``) that name no id, in an HTML page.

    >>> link_problems('<p id="a"></p><a href="#a"></a><a href="#b"></a><i id="a"></i>')
    ['id "a" appears 2 times', 'link "#b" names no id']
    """
    parser = _Anchors()
    parser.feed(text)
    parser.close()
    seen: dict[str, int] = {}
    for i in parser.ids:
        seen[i] = seen.get(i, 0) + 1
    problems = [f'id "{i}" appears {n} times' for i, n in seen.items() if n > 1]
    for href in dict.fromkeys(parser.hrefs):
        if href != "#" and unquote(href[1:]) not in seen:
            problems.append(f'link "{href}" names no id')
    return problems
