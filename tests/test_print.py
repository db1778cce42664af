"""Printing: the one-page edition of the site, the print style of every page, and the PDF.

* ``print_page/`` holds every page of the navigation, with all its equations and figures.
* In print, a page shows no navigation chrome, keeps its typeset math and its figures, and
  spells out the address of each link that leaves the document.
* ``make pdf`` (``tools/print_pdf.py``) prints the one-page edition: at least one PDF page
  per site page, every chapter starting on its own page, math typeset as vector glyphs (no TeX
  left in the text).
"""

from __future__ import annotations

import html
import re
import subprocess
from pathlib import Path

import pytest

from tools import print_pdf

ROOT = Path(__file__).resolve().parent.parent
RAW_TEX = ("\\frac", "\\theta", "\\tag", "\\mathrm", "\\left", "$$", "\\(", "\\[")


def _print_html(site_dir: Path) -> str:
    return (site_dir / "print_page" / "index.html").read_text(encoding="utf-8")


def _chapters(print_html: str) -> list[tuple[str, str, int, int]]:
    """``(section id, title, display equations, figures)`` of each page on the print page."""
    parts = re.split(r'(<section class="print-page" id="[^"]+"[^>]*>)', print_html)
    out = []
    for head, body in zip(parts[1::2], parts[2::2], strict=True):
        sid = re.search(r'id="([^"]+)"', head).group(1)
        h1 = re.search(r"<h1[^>]*>(.*?)<a class=\"headerlink\"", body, re.S)
        title = html.unescape(re.sub(r"<[^>]+>", "", h1.group(1))).strip() if h1 else ""
        out.append((sid, title, body.count('<div class="arithmatex"'), body.count("<figure")))
    return out


def test_print_page_holds_every_page_with_its_math_and_figures(site_dir, content_pages):
    print_html = _print_html(site_dir)
    assert "ROPE-FIGURE-PLACEHOLDER" not in print_html, "figures missing on the print page"
    chapters = {sid: (n_eq, n_fig) for sid, _, n_eq, n_fig in _chapters(print_html)}
    for path in content_pages:
        key = path.strip("/").replace("/", "-") or "index"
        assert key in chapters, f"{path or 'home'} is not on the print page"
        page_html = (site_dir / path / "index.html").read_text(encoding="utf-8")
        article = page_html.split('<article class="md-content__inner md-typeset">', 1)[1]
        article = article.split('<section class="rope-cite"', 1)[0]
        n_eq = article.count('<div class="arithmatex"')
        n_fig = article.count("<figure")
        assert chapters[key] == (n_eq, n_fig), f"{path}: equations, figures {chapters[key]}"
    assert sum(n_fig for _, n_fig in chapters.values()) > 0
    assert 'class="rope-cite"' not in print_html, "the cite blocks belong to the single pages"
    cover = re.search(r'<section id="print-site-cover-page">(.*?)</section>', print_html, re.S)
    assert cover and "Version dev" in cover.group(1) and "CC BY 4.0" in cover.group(1)


def _code_text(page_html: str) -> str:
    """The text of every code block and inline code of a page."""
    blocks = re.findall(r"<pre\b[^>]*>.*?</pre>", page_html, re.S)
    rest = re.sub(r"<pre\b[^>]*>.*?</pre>", "", page_html, flags=re.S)
    blocks += re.findall(r"<code\b[^>]*>.*?</code>", rest, re.S)
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", b)) for b in blocks)


PRINT_PROBE = r"""
async () => {
  if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; }
  const shown = (el) => !!el && getComputedStyle(el).display !== 'none' &&
                        el.getBoundingClientRect().height > 0;
  const after = (a) => getComputedStyle(a, '::after').content;
  const article = document.querySelector('article');
  const external = [...article.querySelectorAll('a[href^="http"]')]
      .filter(a => !a.closest('.md-header, .md-footer') && new URL(a.href).host !== location.host);
  return {
    chrome: ['.md-header', '.md-sidebar--primary', '.md-sidebar--secondary', '.md-footer',
             '.md-tabs', '.md-search'].filter(s => shown(document.querySelector(s))),
    math: document.querySelectorAll('article mjx-container').length,
    mathShown: [...document.querySelectorAll('article mjx-container svg')].filter(shown).length,
    arithmatex: article.querySelectorAll('.arithmatex').length,
    figures: [...article.querySelectorAll('figure.rope-figure img')]
        .map(img => shown(img) && img.naturalWidth > 0),
    external: external.map(a => [a.getAttribute('href'), after(a)]),
    refs: [...article.querySelectorAll('a.eq-ref, a.fig-ref')].map(after),
    cite: shown(document.querySelector('.rope-cite')),
  };
}
"""


@pytest.mark.parametrize("path", ["equations/rope/", "notes/semantic-heads/"])
def test_a_page_prints_without_chrome_with_math_figures_and_link_addresses(path, site_url, browser):
    page = browser.new_page()
    try:
        page.emulate_media(media="print")
        page.goto(site_url + path)
        seen = page.evaluate(PRINT_PROBE)
    finally:
        page.close()
    assert seen["chrome"] == [], f"{path}: shown in print: {seen['chrome']}"
    assert seen["math"] >= seen["arithmatex"] > 0 and seen["mathShown"] >= seen["arithmatex"]
    assert seen["figures"] and all(seen["figures"]), f"{path}: a figure does not print"
    assert seen["external"], f"{path}: no external link to check"
    for href, content in seen["external"]:
        assert href in content, f"{path}: the address of {href} is not printed ({content})"
    assert all(c == "none" for c in seen["refs"]), "equation/figure numbers need no address"
    assert seen["cite"], "the citation prints with the page"


@pytest.fixture(scope="module")
def site_pdf(site_dir, browser, tmp_path_factory) -> tuple[Path, int]:
    """The PDF of the whole site, made as ``make pdf`` makes it."""
    out = tmp_path_factory.mktemp("pdf") / "rope-explained.pdf"
    n_math = print_pdf.print_site(site_dir, out, timeout_s=600, browser=browser)
    return out, n_math


def test_make_pdf_runs_the_print_module():
    proc = subprocess.run(
        ["make", "-n", "pdf", "BIN=.venv/bin"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "-m tools.print_pdf site rope-explained.pdf" in proc.stdout


def test_pdf_of_the_whole_site(site_pdf, site_dir, content_pages, summary):
    from pypdf import PdfReader

    path, n_math = site_pdf
    assert path.is_file() and path.read_bytes()[:5] == b"%PDF-"
    print_html = _print_html(site_dir)
    n_marked = len(re.findall(r'<(?:div|span) class="arithmatex"', print_html))
    assert n_math >= n_marked > 0, "all math typeset before printing"
    reader = PdfReader(path)
    texts = [p.extract_text() or "" for p in reader.pages]
    assert len(texts) >= len(content_pages)
    # TeX shows only where the site shows source code (docstrings keep their TeX there).
    code = _code_text(print_html)
    everything = "\n".join(texts)
    for tex in RAW_TEX:
        assert everything.count(tex) <= code.count(tex), f"the PDF shows raw TeX {tex!r}"
    # Each chapter starts on a page of its own, in navigation order.
    toc_end = max(i for i, t in enumerate(texts[:10]) if "Table of Contents" in t)
    start = toc_end + 1
    first_pages = []
    for sid, title, n_eq, _ in _chapters(print_html):
        if not title:
            continue
        found = next(
            (i for i in range(start, len(texts)) if title in texts[i].splitlines()[:4]), None
        )
        assert found is not None, f"chapter {title!r} ({sid}) not found after PDF page {start}"
        first_pages.append((found, title, n_eq))
        start = found + 1
    assert len(first_pages) >= len(content_pages)
    # Math is drawn as vector glyphs: the pages of a chapter with equations hold curves.
    bounds = [p for p, _, _ in first_pages] + [len(texts)]
    for (first, title, n_eq), end in zip(first_pages, bounds[1:], strict=True):
        if n_eq:
            curves = sum(
                reader.pages[i].get_contents().get_data().count(b" c\n") for i in range(first, end)
            )
            assert curves >= 20 * n_eq, f"{title}: {curves} curves for {n_eq} equations"
    summary.append(
        f"PDF: {len(texts)} pages, {len(first_pages)} chapters, {n_math} typeset formulas, "
        f"{path.stat().st_size / 1e6:.1f} MB"
    )
