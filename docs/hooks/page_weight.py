"""MkDocs hook: each page loads only what it uses, and the search index leaves out code.

* **Style sheets where they are used.** mkdocstrings adds its style sheet to every page; it
  styles the API reference (and the one-page print edition, which holds it) only. Other pages
  drop the link.
* **Code out of the search index.** Code blocks (listings, notebook cells, docstring examples,
  signatures and mkdocstrings' source listings) are marked ``data-search-exclude``: the index,
  which every page downloads, holds the prose, headings and API documentation, and a search
  for a function's name finds its reference entry and the text that explains it. (The hidden
  copy of each notebook cell that the cell's copy button reads is marked too, but Material's
  search parser still indexes it.)
* **The site's own style sheet without its comments.** ``docs/stylesheets/extra.css`` explains
  itself in comments, a quarter of its bytes; the copy in the site drops them and the spaces
  around braces, semicolons and commas.
"""

from __future__ import annotations

import re
from pathlib import Path

#: The opening tag of a code block (``highlight`` is pymdownx's and mkdocstrings' class,
#: ``highlight-ipynb`` nbconvert's for a notebook cell's code), of the hidden copy of a
#: notebook cell's code that its copy button reads, or of mkdocstrings' "Source code in ..."
#: block. (A notebook's Markdown cells, whose input area holds their prose, stay searchable.)
RE_CODE_BLOCK = re.compile(
    r'<(?:div class="(?:[^"]*\s)?'
    r'(?:highlight(?:-ipynb)?|clipboard-copy-txt)(?:\s[^"]*)?"'
    r'|details class="mkdocstrings-source")(?![^>]*data-search-exclude)(?=[\s>])'
)
#: The link to mkdocstrings' style sheet, with the name the plugin gives it.
RE_MKDOCSTRINGS_CSS = re.compile(
    r'<link rel="stylesheet" href="[^"]*assets/_mkdocstrings\.css">\s*'
)
API_MARK = 'class="doc doc-'
OWN_CSS = "stylesheets/extra.css"
#: A quoted string (kept as it is), a comment, spaces around ``{ } ; ,``, or other spaces.
RE_CSS_TOKEN = re.compile(
    r"""(?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
    r"|(?P<comment>/\*.*?\*/)|\s*(?P<punct>[{};,])\s*|(?P<space>\s+)",
    re.S,
)


def compact_css(css: str) -> str:
    r"""A style sheet without comments, and without the spaces around ``{ } ; ,`` (quoted
    strings, such as the SVG of a ``data:`` URL, are left as they are).

    >>> compact_css("/* note */\na, b {\n  color: red;\n  content: 'a, b';\n}\n")
    "a,b{color: red;content: 'a, b';}"
    """

    def token(m: re.Match) -> str:
        if m["string"]:
            return m["string"]
        if m["comment"]:
            return ""
        return m["punct"] or " "

    return RE_CSS_TOKEN.sub(token, css).strip()


def on_page_content(html_text, page, config, files, **kwargs):
    return RE_CODE_BLOCK.sub(lambda m: m.group() + " data-search-exclude", html_text)


def on_post_page(output, page, config, **kwargs):
    head, end, body = output.partition("</head>")  # the style sheets are linked in the head
    if API_MARK not in body:
        head = RE_MKDOCSTRINGS_CSS.sub("", head)
    return head + end + body


def on_post_build(config, **kwargs):
    path = Path(config.site_dir) / OWN_CSS
    if path.is_file():
        path.write_text(compact_css(path.read_text(encoding="utf-8")), encoding="utf-8")
