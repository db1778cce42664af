"""Every number a page states comes with the call that reproduces it, and that call gives it.

``docs/hooks/reproduce.py`` puts a collapsed "Reproduce" block under each paragraph, table, list
or box whose text holds value macros. Here every page is put through that hook as the build does
(with the values computed by the package), and each block's code is run as a reader would paste
it: each call must return exactly the text the page prints.
"""

from __future__ import annotations

import re

import pytest
import reproduce  # docs/hooks/, put on sys.path by conftest.py
from mkdocs.utils.meta import get_data
from pages import DOCS, MARKDOWN_PAGES, value

RE_BLOCK = re.compile(
    r'^\?\?\? info rope-reproduce "Reproduce"\n    ```python\n(?P<code>(?:    .*\n)+?)    ```', re.M
)
PAGES_WITH_VALUES = [
    src for src in MARKDOWN_PAGES if "{{ value(" in (DOCS / src).read_text(encoding="utf-8")
]


def transformed(src: str, monkeypatch) -> tuple[str, str]:
    """The page's Markdown before and after the hook."""
    monkeypatch.setattr(reproduce, "value_text", value)
    text, _ = get_data((DOCS / src).read_text(encoding="utf-8"))
    return text, reproduce.with_reproduce_blocks(text)


@pytest.mark.parametrize("src", PAGES_WITH_VALUES)
def test_every_stated_value_has_a_call_that_gives_it(src, monkeypatch):
    from rope_explained import figures

    by_call = {(s.func.__module__, s.call): s.id for s in figures.load_values().values()}
    before, after = transformed(src, monkeypatch)
    found: set[str] = set()
    for block in RE_BLOCK.finditer(after + "\n"):
        code = [line[4:] for line in block.group("code").splitlines()]
        scope: dict = {}
        exec("\n".join(c for c in code if c.startswith("from ")), scope)  # noqa: S102
        for line in (c for c in code if not c.startswith("from ")):
            call, printed = line.split("  # ", 1)
            got = eval(call, scope)  # noqa: S307 (the page's own listing)
            value_id = by_call[(scope[call.split("(", 1)[0]].__module__, call)]
            assert got == printed == value(value_id), (src, call, got, printed)
            found.add(value_id)
    # every value the page's text states is reproduced under the block that states it
    stated = {i for i in reproduce.value_ids(before) if reproduce.reproducible(i)}
    assert stated <= found, sorted(stated - found)


def test_blocks_split_the_page_at_its_top_level():
    lines = [
        "Para {{ value('a') }}",
        "goes on.",
        "",
        "!!! what",
        "    box {{ value('b') }}",
        "",
        "    more",
        "",
        "1. one",
        "",
        "2. two {{ value('c') }}",
        "",
        "```python",
        "",
        "x = 1",
        "```",
        "# Heading",
    ]
    assert reproduce.blocks(lines) == [(0, 2), (3, 7), (8, 11), (12, 16), (16, 17)]
