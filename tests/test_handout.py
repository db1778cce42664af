"""The handout's PDFs on the site: their links, the placeholders of a build without them, and the
address the handout's cover gives for each version.

* The header links the whole handout on every page (beside the repository; in the drawer on a
  phone), the home page links it, and each chapter's page links its own PDF, a link that print
  hides (``docs/hooks/handout.py``, ``overrides/``).
* A build without ``make pdf``'s PDFs (this one) serves in their place a one-page PDF that says
  so, so no link is broken.
* The cover names the version's address once: at the root (a plain build, the development
  version), under ``mike deploy`` of a release and of ``dev``.

What the PDFs hold is tested with the handout itself (``tests/test_print.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What a reader finds of the handout, on a page at a width: ``[href, shown]`` of each link to
#: a PDF of the site, in the header, the drawer, the article.
PDF_LINKS = """() => {
  const shown = (el) => el.getClientRects().length > 0 &&
                        getComputedStyle(el).visibility !== "hidden";
  const where = (a) => a.closest(".md-header") ? "header" : a.closest(".md-nav") ? "drawer"
                       : a.closest("article") ? "article" : "other";
  return [...document.querySelectorAll('a[href$=".pdf"]')].map((a) => ({
    href: a.href, where: where(a), shown: shown(a), name: a.getAttribute("aria-label") ||
    a.getAttribute("title") || a.textContent.trim()}));
}"""


def _handout_pages(site_dir: Path) -> list[str]:
    """Site paths of the pages printed in the handout: the print page's sections."""
    import print_page  # docs/hooks/ (tests/conftest.py puts it on sys.path)

    text = (site_dir / "print_page" / "index.html").read_text(encoding="utf-8")
    keys = re.findall(r'<section class="print-page" id="([^"]+)">', text)
    pages = {}
    for index in site_dir.rglob("index.html"):
        rel = index.parent.relative_to(site_dir).as_posix()
        path = "" if rel == "." else rel + "/"
        pages[print_page.page_key(path)] = path
    return [pages[k] for k in keys]


@pytest.mark.parametrize("version", [None, "0.1.0", "dev"])
def test_cover_names_the_versions_address_once(version, monkeypatch):
    """The cover's address under a plain build and under ``mike deploy`` (whose plugin has
    already put the version into ``site_url``), as CI builds it (``MIKE_DOCS_VERSION``)."""
    import print_page
    from mkdocs.config import load_config

    monkeypatch.delenv("SITE_URL", raising=False)
    if version is None:
        monkeypatch.delenv("MIKE_DOCS_VERSION", raising=False)
    else:
        monkeypatch.setenv("MIKE_DOCS_VERSION", version)
    config = load_config(str(ROOT / "mkdocs.yml"))
    site_url = config.site_url
    config.plugins["mike"].on_config(config)
    cover = print_page.cover_html(config)
    expected = site_url + (version or "dev") + "/"
    addresses = re.findall(r"https?://[^\s\"<]+", cover)
    assert f'href="{expected}">{expected}</a>' in cover, cover
    assert f"Version {version or 'dev'}" in cover
    ours = [a for a in addresses if a.startswith(site_url)]
    assert ours.count(expected) == 2 and all(a.startswith(expected) for a in ours), ours


def test_placeholder_is_a_pdf_that_says_why():
    import io

    import handout
    import pypdf

    text = ["No handout (make pdf)", "https://example.org/r/dev/rope-explained.pdf"]
    pdf = pypdf.PdfReader(io.BytesIO(handout.placeholder_pdf(text)))
    assert len(pdf.pages) == 1
    assert pdf.pages[0].extract_text().splitlines() == text


def test_the_site_has_every_pdf_it_links(site_dir):
    """The handout and a PDF of each chapter are files of the site: here, without ``make
    pdf``, placeholders that say where each published version keeps its own."""
    import handout
    import pypdfium2 as pdfium

    chapters = [p for p in _handout_pages(site_dir) if p]
    assert len(chapters) > 10
    paths = [handout.HANDOUT] + [handout.chapter_pdf(p) for p in chapters]
    for path in paths:
        file = site_dir / path
        assert file.is_file(), f"the site links {path} and has no such file"
        pdf = pdfium.PdfDocument(str(file))
        text = pdf[0].get_textpage().get_text_bounded()
        pdf.close()
        assert "make pdf" in text and text.rstrip().endswith(path), text
    # every page of the handout but the home page links its own PDF, and only those
    for index in sorted(site_dir.rglob("index.html")):
        rel = index.parent.relative_to(site_dir).as_posix()
        path = "" if rel == "." else rel + "/"
        links = re.findall(
            r'class="md-content__button rope-chapter-pdf" href="([^"]+)"',
            index.read_text(encoding="utf-8"),
        )
        if path in chapters:
            assert len(links) == 1, path
            assert (index.parent / links[0]).resolve() == (
                site_dir / handout.chapter_pdf(path)
            ).resolve()
        else:
            assert links == [], f"{path or 'home'} links a chapter PDF"


@pytest.mark.parametrize("width", [1280, 360])
def test_handout_links_in_the_header_on_the_home_page_and_on_each_chapter(width, site_url, browser):
    page = browser.new_page(viewport={"width": width, "height": 800})
    try:
        page.goto(site_url)
        home = page.evaluate(PDF_LINKS)
        page.goto(site_url + "equations/rope/")
        chapter = page.evaluate(PDF_LINKS)
        page.emulate_media(media="print")
        printed = page.evaluate(PDF_LINKS)
        status = page.request.get(site_url + "pdf/equations-rope.pdf")
        assert status.ok and status.body()[:5] == b"%PDF-"
    finally:
        page.close()
    handout = site_url + "rope-explained.pdf"
    # the home page: a button in the article, at any width
    assert any(x["href"] == handout and x["where"] == "article" and x["shown"] for x in home)
    # the header on a wide screen; the drawer (the same partial) on a phone
    place = "header" if width > 1000 else "drawer"
    assert any(x["href"] == handout and x["where"] == place for x in chapter), chapter
    if place == "header":
        assert any(x["href"] == handout and x["where"] == "header" and x["shown"] for x in chapter)
    # the chapter's own PDF, named for what it does, shown on screen and not in print
    own = [x for x in chapter if x["href"] == site_url + "pdf/equations-rope.pdf"]
    assert own and own[0]["shown"] and own[0]["name"] == "Download this chapter as PDF"
    assert not [x for x in printed if x["shown"]], f"PDF links printed: {printed}"


def test_a_deploy_without_the_pdfs_fails():
    """With ``SITE_PDF`` set (``extra.citation.pdf``: the deploy copies the PDFs into docs/), a
    missing PDF is an error, not a placeholder (the placeholders of a plain build are tested
    on the built site)."""
    import types

    import handout
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError

    class Files(list):
        def get_file_from_path(self, path):
            return next((f for f in self if f.src_uri == path), None)

    config = load_config(str(ROOT / "mkdocs.yml"))
    config.extra["citation"]["pdf"] = "rope-explained.pdf"
    nav = types.SimpleNamespace(pages=[])
    with pytest.raises(PluginError, match="rope-explained.pdf"):
        handout.on_nav(nav, config, Files())
