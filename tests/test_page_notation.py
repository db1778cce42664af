"""The notation page (docs/notation.md): every symbol its table lists appears, in TeX, on the
page it names as the place of definition (and an equation it names exists there); no symbol is
listed twice; the page is in the navigation with a chapter number of its own."""

from __future__ import annotations

import re

import pytest
import yaml
from mkdocs.utils.meta import get_data
from pages import DOCS, MARKDOWN_PAGES, NOTEBOOK_PAGES

PAGE = DOCS / "notation.md"
RE_ROW = re.compile(r"^\| \\\((?P<sym>.+?)\\\) \| (?P<meaning>[^|]+) \| (?P<where>[^|]+) \|", re.M)
RE_EQ = re.compile(r'\{\{ eq\("(?P<page>[^"#]+)#(?P<label>[^"]+)"\) \}\}')
RE_LINK = re.compile(r"\]\((?P<page>[^)#]+\.md)(?:#[^)]*)?\)")
RE_MATH = re.compile(r"\\\((.+?)\\\)|\$\$(.+?)\$\$", re.S)


def rows() -> list[tuple[str, str, str]]:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("## The symbols", 1)[1].split("\n## ", 1)[0]
    return [(m["sym"], m["meaning"].strip(), m["where"].strip()) for m in RE_ROW.finditer(table)]


def math_of(page: str) -> str:
    """Every formula of a page's source, inline and display, joined."""
    text = (DOCS / page).read_text(encoding="utf-8")
    return "\n".join(a or b for a, b in RE_MATH.findall(text))


def occurs(symbol: str, tex: str) -> bool:
    """``symbol`` appears in ``tex`` as a whole: not as part of a longer name (``p`` is not found
    in ``\\phi`` or ``p_m``'s neighbour ``\\mathrm{PE}``)."""
    before = r"(?<![A-Za-z\\])" if symbol[0].isalpha() else ""
    after = r"(?![A-Za-z])" if symbol[-1].isalpha() else ""
    return re.search(before + re.escape(symbol) + after, tex) is not None


def test_the_table_lists_symbols_once():
    found = rows()
    assert len(found) >= 30
    symbols = [s for s, _, _ in found]
    assert len(symbols) == len(set(symbols)), "a symbol listed twice"


@pytest.mark.parametrize("symbol, meaning, where", rows(), ids=lambda v: str(v)[:24])
def test_each_symbol_appears_where_the_page_says_it_is_defined(symbol, meaning, where):
    if m := RE_EQ.search(where):
        page, label = m["page"], m["label"]
        source = (DOCS / page).read_text(encoding="utf-8")
        assert f"% eq: {label}" in source, f"{page} has no equation {label}"
    else:
        m = RE_LINK.search(where)
        assert m, f"{symbol}: no equation or page named in {where!r}"
        page = m["page"]
    assert page in MARKDOWN_PAGES or page in NOTEBOOK_PAGES, page
    assert occurs(symbol, math_of(page)), f"\\({symbol}\\) is not in the TeX of {page}"


def test_the_occurs_check_can_fail():
    """The check is not vacuous: a letter inside a longer name does not count."""
    assert not occurs("p", r"\mathrm{PE}_m + \phi")
    assert occurs("p", r"k_p = R_{\Theta,p}")
    assert not occurs(r"\Pi", r"\Pia")


def test_notation_is_in_the_navigation_with_its_own_number():
    config = yaml.load(
        (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader
    )
    nav = config["nav"]
    assert {"Notation": "notation.md"} in nav
    number = get_data(PAGE.read_text(encoding="utf-8"))[1]["number"]
    others = [
        get_data((DOCS / p).read_text(encoding="utf-8"))[1].get("number")
        for p in MARKDOWN_PAGES
        if p != "notation.md"
    ]
    assert number not in others


def test_exercise_answers():
    """The offsets exercise through RoPE itself, and the names the other two read off the table."""
    import numpy as np
    from pages import value

    from rope_explained.rope import apply_rope, rotation_matrix

    m, n = int(value("notation-ex-m")), int(value("notation-ex-n"))
    offset, back = int(value("notation-ex-offset")), int(value("notation-ex-back"))
    assert back == -offset > 0  # the key is behind the query
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal(8), rng.standard_normal(8)
    score = apply_rope(q[None], [m])[0] @ apply_rope(k[None], [n])[0]
    assert abs(score - q @ rotation_matrix(offset, 8) @ k) < 1e-12  # R_{m}^T R_{n} = R_{Delta}
    assert abs(score - q @ rotation_matrix(back, 8) @ k) > 1e-6  # not R_{delta}
    hf = {sym: line.rsplit("|", 2)[-2].strip() for sym, line in _table_lines().items()}
    assert hf["\\theta_i"] == "`inv_freq`" and hf["\\theta'_i"] == "`inv_freq` after scaling"
    assert hf["d"] == "`head_dim`" and hf["D"] == "`hidden_size`"


def _table_lines() -> dict[str, str]:
    """``symbol -> its whole row`` of the symbol table."""
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("## The symbols", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in table.splitlines():
        m = re.match(r"\| \\\((?P<sym>.+?)\\\) \|", line)
        if m:
            out[m["sym"]] = line
    return out
