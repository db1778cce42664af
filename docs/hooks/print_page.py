r"""MkDocs hook: the one-page edition of the site (``print_page/``), printed by ``make pdf`` as
the handout.

The print page is a page of the site like any other (``print_page.md``, generated in
``on_files``, out of the navigation and, by its front matter, out of the search index), rendered
by the theme with the relative base URL of an ordinary page, so it works wherever the site is
served (``mkdocs serve``, a loopback port, a version folder of ``mike``). Once every page has
its content (``on_page_context``, after autorefs resolved the cross-references in ``on_env``)
the hook gives it: a cover (``overrides/print-cover.html``, with the version's address), a
table of contents (with an empty box for each entry's page, which ``make pdf`` fills), then
every page of the navigation but the API reference (:data:`LEFT_OUT`) in order, each as
``<section class="print-page" id="KEY">`` where ``KEY`` is the page's address
(``equations/rope/`` -> ``equations-rope``, the home page -> ``index``), each section of the
navigation as a titled ``<section class="print-page md-section">``. Its print style is
``overrides/assets/stylesheets/print-page.css``; it needs no script.

* **Links that land where the page's own link lands.** A page's finished content
  (``page.content``, exactly as the page shows it) is rewritten by one rule: every id of a page
  becomes ``KEY-id``, and every link is resolved against the page's address, then ``#x`` ->
  ``#KEY-x``, ``../previous-token-head/#eq-x`` -> ``#equations-previous-token-head-eq-x``,
  ``../rope/`` -> ``#equations-rope``; a link to another file (the API reference, a figure's
  SVG, a notebook download) goes to it at the version's address, where a reader of the
  printed handout finds it, and what the page loads (``src``) becomes relative to
  ``print_page/``.
* **Answers at the end.** Each chapter's exercise answers, collapsed under their questions on
  the site, are gathered in a closing section *Answers* (:func:`gather_answers`).
* **Running heads.** Each page and part is a named page of its own, whose margin boxes carry
  its title, the version's address and the page number (:func:`running_heads_css`, a style
  in the page's head through ``overrides/main.html``).
* **One document.** A plugin's ``on_page_content`` may hand back a whole document
  (``<html><head></head><body>...``): the sections keep only the content.

The hook checks the content it made: every id is unique and every in-page link (``href="#..."``)
names one of them; a problem is a warning, which fails ``mkdocs build --strict``. (The page's
math is typeset by ``typeset.py`` once it is written, like any page's.)
"""

from __future__ import annotations

import logging
import posixpath
import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, InclusionLevel

log = logging.getLogger("mkdocs.hooks.print_page")

#: The print page's source (generated: no file in docs/) and what its front matter says.
SRC = "print_page.md"
TITLE = "The handout"
FRONT_MATTER = f"""---
title: {TITLE}
search:
  exclude: true
hide:
  - navigation
---
"""
#: The cover's template (Jinja, given ``config``), relative to mkdocs.yml.
COVER = "overrides/print-cover.html"
#: Levels of the printed table of contents.
TOC_DEPTH = 2
#: Pages left out of the handout: the API reference, online at the version's address (the
#: handout's links to it go there).
LEFT_OUT = ("reference/",)
#: An exercise's answer on a page: a collapsed block right after the question.
RE_ANSWER = re.compile(
    r'<details class="example">\s*<summary>Answer</summary>(?P<body>.*?)</details>\s*', re.S
)
#: An exercise's number, in bold at the start of its question (``**1.**``).
RE_EXERCISE = re.compile(r"<strong>(\d+)\.</strong>")
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


def in_handout(url: str) -> bool:
    """Whether the page at ``url`` is printed in the handout (every page but :data:`LEFT_OUT`).

    >>> in_handout("equations/rope/"), in_handout(""), in_handout("reference/rope/")
    (True, True, False)
    """
    return not url.startswith(LEFT_OUT)


def version_root(site_url: str, version: str | None) -> str:
    """The address of this version of the site, ending in ``/``.

    Under ``mike deploy`` (``MIKE_DOCS_VERSION`` set, so ``version`` given) mike's plugin has
    already appended the version to ``site_url``; a plain build is the development version.

    >>> version_root("https://x.io/r/0.1.0", "0.1.0"), version_root("https://x.io/r/dev", "dev")
    ('https://x.io/r/0.1.0/', 'https://x.io/r/dev/')
    >>> version_root("https://x.io/r/", None)
    'https://x.io/r/dev/'
    """
    if version:
        return site_url.rstrip("/") + "/"
    return site_url.rstrip("/") + "/dev/"


def config_root(config) -> str:
    """:func:`version_root` of a loaded MkDocs ``config`` (after the plugins' ``on_config``)."""
    citation = config.extra.get("citation") or {}
    return version_root(config.site_url or "", citation.get("version"))


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


def print_url(
    url: str, page_url: str, keys: dict[str, str], print_page_url: str, root: str = ""
) -> str:
    """Where a link of the page at ``page_url`` points on the print page.

    Args:
        url: The link as the page has it (relative to the page, or absolute, or ``#x``).
        page_url: The page's address in the site (``equations/rope/``; ``""`` for the home).
        keys: Address -> section id of every page on the print page.
        print_page_url: The print page's own address (``print_page/``).
        root: The version's address (:func:`version_root`); if given, a link to another file
            of the site is made absolute to it, so that it works from the printed handout.

    Returns:
        ``#KEY-fragment`` (or ``#KEY``) for a page on the print page; the address relative to
        the print page (or under ``root``) for another file of the site; ``url`` itself for an
        external address.

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
    >>> print_url("../../reference/rope/#f", "equations/rope/", keys, "print_page/", "https://r/dev/")
    'https://r/dev/reference/rope/#f'
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
    if root:
        out = root + path
    else:
        out = get_relative_url(path or ".", print_page_url)
        if path.endswith("/") and not out.endswith("/"):
            out += "/"
    if resolved.query:
        out += "?" + resolved.query
    if resolved.fragment:
        out += "#" + resolved.fragment
    return out


def print_section_html(
    content: str, page_url: str, keys: dict[str, str], print_page_url: str, root: str = ""
) -> str:
    """A page's content as a section of the print page: ids, id references and URLs rewritten.

    Every ``id`` (and the ``name`` of radio buttons and anchors) gets the page's key as prefix,
    so ids stay unique on the print page; attributes that name ids (``for``,
    ``aria-labelledby``, ...) follow; URLs go through :func:`print_url`, the links
    (``<a href>``) with the version's address ``root``, what the page loads (``src``) without.
    The tags of a whole document (``<html>``, ``<head>``, ``<body>``) are dropped.

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
                base = root if tag == "a" and name == "href" else ""
                new = print_url(value, page_url, keys, print_page_url, base)
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
# The print page, assembled from the other pages (MkDocs' events only)
# --------------------------------------------------------------------------------------------


def cover_html(config) -> str:
    """The cover: :data:`COVER` rendered with the site's ``config``, its version and that
    version's address (:func:`config_root`)."""
    import jinja2

    template = (Path(config.config_file_path).parent / COVER).read_text(encoding="utf-8")
    version = (config.extra.get("citation") or {}).get("version") or "dev"
    cover = jinja2.Template(template).render(
        config=config, version=version, address=config_root(config)
    )
    return f'<section id="print-site-cover-page">{cover}</section>'


def toc_html(links: list, depth: int = TOC_DEPTH) -> str:
    """The printed table of contents: the sections and pages, ``depth`` levels deep.

    ``links`` are ``AnchorLink``-like objects (``title``, ``id``, ``children``). Each entry
    ends in an empty ``<span class="print-page-toc-number">`` of a fixed width, which ``make
    pdf`` fills with the page the entry starts on (``tools/print_pdf.py``), so that the
    numbers never change the contents' length.
    """

    def items(links, level):
        if not links or level > depth:
            return ""
        return (
            "<ul>"
            + "".join(
                f'<li><a href="#{link.id}"><span class="print-page-toc-title">'
                f'{escape(link.title)}</span><span class="print-page-toc-number"></span></a>'
                f"{items(link.children, level + 1)}</li>"
                for link in links
            )
            + "</ul>"
        )

    return (
        '<section class="print-page"><div id="print-page-toc">'
        '<nav class="print-page-toc-nav"><h1 class="print-page-toc-title">Table of Contents</h1>'
        f"{items(links, 1)}</nav></div></section>"
    )


def gather_answers(body: str, key: str) -> str:
    """A page's section with the answers of its exercises gathered at its end.

    Each collapsed answer (``??? example "Answer"``) leaves its place to a line that links to
    it, and joins a closing section *Answers*, titled with the number of its exercise (the
    bold ``N.`` that starts the question before it).

    >>> out = gather_answers("<p><strong>3.</strong> Why?</p>"
    ...     '<details class="example"><summary>Answer</summary><p>Because.</p></details>', "k")
    >>> out.split("</p>", 1)[1].split("<section")[0].replace('class="print-answer-', "")
    '<p ref" id="k-answer-1-question">Answer: <a link" href="#k-answer-1">at the end of...</a>.</p>'
    >>> "Exercise 3</a></p><p>Because.</p></div></section>" in out
    True
    """
    answers: list[str] = []
    out: list[str] = []
    pos, number = 0, 0
    for m in RE_ANSWER.finditer(body):
        if "<details" in m.group("body"):
            raise PluginError(f"print page: an answer on {key} holds a collapsed block itself")
        numbers = RE_EXERCISE.findall(body, pos, m.start())
        number = int(numbers[-1]) if numbers else number + 1
        aid = f"{key}-answer-{len(answers) + 1}"
        out += [
            body[pos : m.start()],
            f'<p class="print-answer-ref" id="{aid}-question">Answer: '
            f'<a class="print-answer-link" href="#{aid}">at the end of the chapter</a>.</p>',
        ]
        answers.append(
            f'<div class="admonition example print-answer" id="{aid}">'
            f'<p class="admonition-title"><a class="print-answer-link" href="#{aid}-question">'
            f"Exercise {number}</a></p>{m.group('body').strip()}</div>"
        )
        pos = m.end()
    if not answers:
        return body
    out.append(body[pos:])
    return (
        "".join(out) + f'<section class="print-answers" id="{key}-answers">'
        f'<h2 id="{key}-answers-title">Answers</h2>{"".join(answers)}</section>'
    )


def combined(items, print_page_url: str, root: str = "") -> tuple[str, list]:
    """The print page's sections and its table of contents, from the navigation ``items``.

    Each page in the handout (:func:`in_handout`) becomes ``<section class="print-page"
    id="KEY">`` holding its finished content (:func:`print_section_html`, links to other files
    absolute to the version's address ``root``), its exercises' answers gathered at its end
    (:func:`gather_answers`); a section of the navigation with a page in the handout becomes a
    titled ``<section class="print-page md-section">`` around its pages. Items are read through
    the attributes MkDocs' navigation has: ``is_page``, ``is_section``, ``url``, ``title``,
    ``content``, ``children``. Returns the HTML and the table of contents as ``AnchorLink``s.
    """
    from mkdocs.structure.toc import AnchorLink

    keys: dict[str, str] = {}

    def collect(items):
        for item in items:
            if item.is_page and item.url != print_page_url and in_handout(item.url):
                keys.setdefault(item.url, page_key(item.url))
            elif item.is_section:
                collect(item.children)

    collect(items)
    if len(set(keys.values())) != len(keys):
        raise PluginError(f"print page: two pages share a section id: {sorted(keys.items())}")
    done: set[str] = set()

    def walk(items, parts, level=0, prefix=""):
        links = []
        for i, item in enumerate(items):
            number = f"{prefix}{i + 1}"
            if item.is_page:
                if item.url not in keys:
                    continue
                key = keys[item.url]
                links.append(AnchorLink(item.title, key, level))
                if item.url in done or not item.content:
                    continue  # a page listed twice is printed once: its ids would repeat
                done.add(item.url)
                content = item.content
                if "<h1" not in content:
                    content = f"<h1>{escape(item.title)}</h1>{content}"
                body = print_section_html(content, item.url, keys, print_page_url, root)
                body = gather_answers(body, key)
                parts.append(f'<section class="print-page" id="{key}">{body}</section>')
            elif item.is_section:
                sid = "section-" + number.replace(".", "-")
                inner: list[str] = []
                children = walk(item.children, inner, level + 1, number + ".")
                if not children:
                    continue  # a part without a page in the handout (the API reference)
                parts.append(
                    f'<section class="print-page md-section" id="{sid}"><h1>{escape(item.title)}'
                    f'<a class="headerlink" href="#{sid}" title="Permanent link"></a></h1>'
                )
                parts += [*inner, "</section>"]
                link = AnchorLink(item.title, sid, level)
                link.children = children
                links.append(link)
        return links

    parts: list[str] = []
    links = walk(items, parts)
    return "".join(parts), links


RE_PRINTED = re.compile(
    r'<section class="print-page(?: md-section)?" id="(?P<id>[^"]+)">.*?<h1[^>]*>(?P<h1>.*?)</h1>',
    re.S,
)


def css_string(text: str) -> str:
    r"""``text`` as a CSS string.

    >>> print(css_string('a "b" \\ </style>'))
    "a \"b\" \\ \3c /style>"
    """
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\3c ")
    return '"' + " ".join(text.split()) + '"'


def heading_text(html: str) -> str:
    """The text a heading shows: its tags and its permanent link's pilcrow dropped.

    >>> heading_text('<span class="c">2 ·</span> RoPE<a class="headerlink" href="#r">&para;</a>')
    '2 · RoPE'
    """
    from html import unescape

    text = unescape(re.sub(r"<[^>]+>", "", html)).replace("\u00b6", "")
    return " ".join(text.split())


def running_heads_css(body: str, address: str) -> str:
    """The handout's running heads, as CSS for Chromium's page margin boxes: one named page per
    part and page of the print page (``page: print-ID``, given to everything a page holds:
    Chromium names a sheet after its first box, which may sit in a flex container, such as a
    notebook's cell) and one for the contents, each sheet
    with the title of its chapter (top right), the version's ``address`` (bottom left) and its
    number (bottom right). The cover, on the unnamed first page, has none. ``body`` is the
    print page's HTML (:func:`combined`)."""
    heads = [("print-page-toc", "Table of Contents", "*")] + [
        (m.group("id"), heading_text(m.group("h1")), "> h1" if "md-section" in m.group(0) else "*")
        for m in RE_PRINTED.finditer(body)
    ]
    rules = []
    for ident, title, inside in heads:
        rules += [
            f"#{ident}, #{ident} {inside} {{ page: print-{ident}; }}",
            f"@page print-{ident} {{ @top-right {{ content: {css_string(title)}; }} "
            f"@bottom-left {{ content: {css_string(address)}; }} "
            "@bottom-right { content: counter(page); } }",
        ]
    return "\n".join(rules) + "\n"


def on_files(files, config, **kwargs):
    """Add the print page: a page of its own, out of the navigation and the search index."""
    files.append(
        File.generated(config, SRC, content=FRONT_MATTER, inclusion=InclusionLevel.NOT_IN_NAV)
    )
    return files


def on_page_markdown(markdown, page, config, files, **kwargs):
    if page.file.src_uri == SRC:
        return ""  # its content is put together once every other page has its own
    return None


@event_priority(-100)  # after other hooks changed the context
def on_page_context(context, page, config, nav, **kwargs):
    """Give the print page its content: the cover, the table of contents and every page of the
    navigation, as each page's content stands once every page is rendered and autorefs has
    resolved its cross-references (``on_env``, before any page is written)."""
    if page.file.src_uri != SRC:
        return context
    from mkdocs.structure.toc import TableOfContents

    root = config_root(config)
    body, links = combined(nav.items, page.url, root)
    page.content = f'<div id="print-site-page">{cover_html(config)}{toc_html(links)}{body}</div>'
    page.toc = TableOfContents(links)
    context["print_page_css"] = running_heads_css(body, root)  # overrides/main.html
    return context


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
