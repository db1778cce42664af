"""MkDocs hook: under every paragraph, table or box that states a computed number, a collapsed
"Reproduce" block with the call that computes it.

A page states a number through a value macro, ``{{ value("id") }}``; the package's registry knows
the function and the arguments behind each id (``ValueSpec.call``). After each top-level block of
the page's Markdown (a paragraph, a table, a list, an admonition with its body, a display
equation) that holds value macros, this hook inserts::

    ??? info rope-reproduce "Reproduce"
        ```python
        from rope_explained.figures.real_models.decoding import decoding_steps
        decoding_steps()  # 21
        ```

one line per value, in the order the block states them, each with the text the page prints. A
lecturer can paste it into Python to rerun the number before citing it; ``tests/test_reproduce.py``
runs every such call. It runs before ``numbering.py`` replaces the macros with their texts; pages
that are not Markdown (the notebooks) are left alone.
"""

from __future__ import annotations

import re

from hooklib import RE_FENCE, RE_MACRO, load_figures, value_text
from mkdocs.plugins import event_priority

RE_LIST_ITEM = re.compile(r"(?:[-*+]|\d+[.)])\s")


def value_ids(text: str) -> list[str]:
    """The value ids the macros of ``text`` name, in order, each once.

    >>> value_ids('a {{ value("x-y") }} b {{ fig("f") }} {{ value("z") }} {{ value("x-y") }}')
    ['x-y', 'z']
    """
    ids = [m.group("arg") for m in RE_MACRO.finditer(text) if m.group("name") == "value"]
    return list(dict.fromkeys(ids))


def reproducible(value_id: str) -> bool:
    """Whether a value states a number to reproduce: not one of the links to the library source
    lines a page cites (the ``<page>-src-<key>`` values, from ``rope_explained.sources``), nor
    one of the model's settings a page states (the ``<page>-setting-<name>`` values, fields of
    ``Config``: nothing is computed).

    >>> reproducible("decoding-steps"), reproducible("decoding-src-hf-pad-positions")
    (True, False)
    >>> reproducible("fp-setting-alpha")
    False
    """
    return "-src-" not in value_id and "-setting-" not in value_id


def blocks(lines: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` line ranges of the top-level blocks of a Markdown page: a block starts at
    an unindented line and takes every line up to the next unindented line that follows a blank
    line or a closing fence, or that is a heading, except the next item of a list. Fenced code
    inside a block stays in it.

    >>> blocks(["a", "b", "", "| t |", "", "- x", "", "- y", "    z", "", "# h"])
    [(0, 2), (3, 4), (5, 9), (10, 11)]
    """
    out: list[tuple[int, int]] = []
    start: int | None = None
    fence: str | None = None
    blank_before = True
    for i, line in enumerate(lines):
        m = RE_FENCE.match(line)
        if fence is not None:
            closes = m and m.group("fence")[0] == fence[0] and len(m.group("fence")) >= len(fence)
            fence = None if closes else fence
            blank_before = bool(closes and not line[0].isspace())  # a top-level fence ends here
            continue
        top = bool(line.strip()) and not line[0].isspace()
        listing = (
            start is not None and RE_LIST_ITEM.match(lines[start]) and RE_LIST_ITEM.match(line)
        )
        if top and (blank_before or line.startswith("#")) and not listing:
            if start is not None:
                out.append((start, _trim(lines, start, i)))
            start = i
        if m:
            fence = m.group("fence")
        blank_before = not line.strip()
    if start is not None:
        out.append((start, _trim(lines, start, len(lines))))
    return out


def _trim(lines: list[str], start: int, end: int) -> int:
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def reproduce_block(ids: list[str]) -> list[str]:
    """The collapsed block for the values ``ids``: their imports, then one call each."""
    figures = load_figures()  # the package as this build loaded it
    specs = [figures.get_value(i) for i in ids]
    modules: dict[str, list[str]] = {}
    for spec in specs:
        names = modules.setdefault(spec.func.__module__, [])
        if spec.func.__name__ not in names:
            names.append(spec.func.__name__)
    code = [f"from {module} import {', '.join(names)}" for module, names in modules.items()]
    code += [f"{spec.call}  # {value_text(spec.id)}" for spec in specs]
    head = '??? info rope-reproduce "Reproduce"'
    return [head, "    ```python", *("    " + c for c in code), "    ```"]


def with_reproduce_blocks(markdown: str) -> str:
    """``markdown`` with a reproduce block after each top-level block that states values."""
    lines = markdown.split("\n")
    out: list[str] = []
    pos = 0
    for start, end in blocks(lines):
        ids = [i for i in value_ids("\n".join(lines[start:end])) if reproducible(i)]
        if not ids or lines[start].lstrip().startswith(("#", "{{ figure(")):
            continue
        out += lines[pos:end] + ["", *reproduce_block(ids), ""]
        pos = end
    return "\n".join(out + lines[pos:])


@event_priority(10)  # before numbering.py replaces the value macros with their texts
def on_page_markdown(markdown, page, config, files, **kwargs):
    if not page.file.src_uri.endswith(".md") or "{{" not in markdown:
        return None
    return with_reproduce_blocks(markdown)
