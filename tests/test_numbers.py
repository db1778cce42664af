"""Numbers a teacher can cite: one number per chapter, shown in its title; every equation and
figure number a link to itself, reachable by number (``#eq-4.11``, ``#fig-4.5``); one page that
lists them all."""

from __future__ import annotations

import re

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import notebooks  # docs/hooks/
import pytest
from conftest import page_path
from mkdocs.utils.meta import get_data
from pages import DOCS, MARKDOWN_PAGES, NOTEBOOK_PAGES

RE_ALIAS = re.compile(r'<span class="rope-alias" id="(?P<kind>eq|fig)-(?P<n>\d+\.\d+)"></span>')


def chapter_numbers() -> dict[str, int]:
    numbers = {}
    for src in MARKDOWN_PAGES:
        meta = get_data((DOCS / src).read_text(encoding="utf-8"))[1]
        if meta.get("number") is not None:
            numbers[src] = meta["number"]
    for src in NOTEBOOK_PAGES:
        numbers[src] = notebooks.notebook_meta(DOCS / src)["number"]
    return numbers


def test_no_two_pages_share_a_chapter_number():
    numbers = chapter_numbers()
    assert len(set(numbers.values())) == len(numbers), numbers
    import numbering

    assert numbering.duplicate_numbers({**numbers, "copy.md": numbers["equations/rope.md"]})


@pytest.mark.site
def test_titles_show_their_chapter_number_and_numbers_are_unique(site_dir):
    seen: dict[str, str] = {}
    for src, number in chapter_numbers().items():
        html = (site_dir / page_path(src) / "index.html").read_text(encoding="utf-8")
        if number:  # the home page is chapter 0, and its title stays the site's name
            title = re.search(r"<title>(.*?)</title>", html).group(1)
            assert title.startswith(f"{number} \u00b7 "), (src, title)
            h1 = re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1)
            assert f'<span class="rope-chapter">{number} \u00b7</span>' in h1, src
        for m in RE_ALIAS.finditer(html):
            key = f"{m['kind']}-{m['n']}"
            assert key not in seen, f"{key} on {src} and {seen[key]}"
            assert m["n"].split(".")[0] == str(number), (src, key)
            seen[key] = src
    # every numbered equation and figure got its alias, so the counts match the index
    assert sum(k.startswith("fig-") for k in seen) == len(load_registry_figures_on_pages())


def load_registry_figures_on_pages() -> set[str]:
    figures = set()
    for src in MARKDOWN_PAGES:
        text, meta = get_data((DOCS / src).read_text(encoding="utf-8"))
        index, _ = hooklib.scan_page(src, text, meta)
        figures |= set(index.figures)
    for src in NOTEBOOK_PAGES:
        figures |= {m["id"] for m in hooklib.RE_NOTEBOOK_FIGURE.finditer((DOCS / src).read_text())}
    return figures


@pytest.mark.site
def test_every_number_links_to_itself(site_dir):
    for src in [*MARKDOWN_PAGES, *NOTEBOOK_PAGES]:
        path = site_dir / page_path(src) / "index.html"
        html = path.read_text(encoding="utf-8")
        for m in re.finditer(r'<div class="arithmatex" id="eq-([a-z0-9-]+)"', html):
            block = html[m.start() : html.index("</div>", html.index("katex-display", m.start()))]
            assert 'class="katex-tag"' not in block, (src, m[1])  # KaTeX's number replaced
        links = re.findall(r'<a class="rope-eq-number" href="#eq-([a-z0-9-]+)"', html)
        ids = re.findall(r'<div class="arithmatex" id="eq-([a-z0-9-]+)"', html)
        assert links == ids, src
        figures = re.findall(r'<figure class="rope-figure" id="fig-([a-z0-9-]+)"', html)
        fig_links = re.findall(r'<a class="rope-figure__number" href="#fig-([a-z0-9-]+)"', html)
        assert fig_links == figures, src


@pytest.mark.site
def test_number_aliases_land_on_the_equation_and_the_figure(site_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        for fragment, selector in (
            ("equations/induction-head/#eq-4.3", "div.arithmatex"),
            ("equations/rope/#fig-2.1", "figure.rope-figure"),
        ):
            page.goto(site_url + fragment, wait_until="load")
            got = page.evaluate(
                """(selector) => {
                    const alias = document.getElementById(location.hash.slice(1));
                    const target = alias.nextElementSibling;
                    const box = target.getBoundingClientRect();
                    return {
                        matches: target.matches(selector) && target.textContent.includes(
                            location.hash.split("-")[1]),
                        visible: box.top >= 0 && box.top < innerHeight,
                        highlighted: getComputedStyle(target).backgroundColor,
                    };
                }""",
                selector,
            )
            assert got["matches"] and got["visible"], (fragment, got)
            assert got["highlighted"] not in ("rgba(0, 0, 0, 0)", "transparent"), got
    finally:
        page.close()


@pytest.mark.site
def test_the_list_page_links_every_figure_and_equation(site_dir):
    html = (site_dir / "figures-and-equations" / "index.html").read_text(encoding="utf-8")
    for fig_id in load_registry_figures_on_pages() - {"home-circuit"}:  # the chapters' figures
        assert f'#fig-{fig_id}"' in html, fig_id
    listed = set(re.findall(r"<strong>Equation \((\d+\.\d+)\)</strong>", html))
    numbered = set()
    for src in [*MARKDOWN_PAGES, *NOTEBOOK_PAGES]:
        page = (site_dir / page_path(src) / "index.html").read_text(encoding="utf-8")
        numbered |= {m["n"] for m in RE_ALIAS.finditer(page) if m["kind"] == "eq"}
    assert listed == {n for n in numbered if not n.startswith("0.")} and len(listed) > 80
