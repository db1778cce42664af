r"""Print the built site's one-page edition to a PDF handout, and cut it into chapters.

The site build writes every page of the handout, in the order of the navigation, onto one page
(``site/print_page/``; the API reference stays online). This module serves the built site on a
loopback port, opens that page in headless Chromium, waits until the fonts of the math (typeset
when the site was built) and every image have loaded, and prints it with Chromium's own PDF
writer: a tagged PDF whose bookmarks are the headings, with running heads (the page's CSS),
printed twice so that its contents can give the page of each entry. pypdf then cuts one PDF per
chapter out of it (``pdf/ID.pdf`` beside the handout: the addresses the site links them at, see
``docs/hooks/handout.py``). It needs no MkDocs, only Playwright's Python package, pypdf and a
Chromium binary (``CHROMIUM``, default :data:`tools.browser.CHROMIUM_DEFAULTS`; no browser
download).

Usage::

    python -m tools.print_pdf SITE_DIR OUT.pdf [--chapters DIR]   (from the repository's root)
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tools.browser import launch_chromium, serve

PRINT_PAGE = "print_page/"
#: Where the chapters' PDFs go, beside the handout (the same folder in the published site).
CHAPTERS = "pdf"
#: Longest run of prints until the contents' page numbers stay put (they settle in two).
MAX_PASSES = 3
#: Resolves once every web font the page uses (KaTeX's among them) has loaded; returns the
#: number of typeset formulas.
FONTS_READY = """async () => {
  await document.fonts.ready;
  return document.querySelectorAll(".arithmatex .katex").length;
}"""
#: The print page's parts and pages in document order: ``{id, part, title}`` of each
#: ``section.print-page`` (a part of the navigation is ``md-section``).
SECTIONS = """() => [...document.querySelectorAll("#print-site-page section.print-page[id]")]
  .map((s) => ({id: s.id, part: s.classList.contains("md-section"),
                title: (s.querySelector("h1")?.innerText || "").replace("\u00b6", "").trim()}))"""
#: A style that paints nothing and lays out everything as the print does.
LAYOUT_ONLY = "html, html * { visibility: hidden !important; }"
#: Writes each contents entry's page (``{id: page}``) into its number box.
FILL_CONTENTS = """(pages) => {
  for (const a of document.querySelectorAll("#print-page-toc a")) {
    const id = decodeURIComponent(a.hash.slice(1));
    a.querySelector(".print-page-toc-number").textContent = pages[id] ?? "";
  }
}"""
#: The ids the contents link to.
CONTENTS_IDS = """() => [...document.querySelectorAll("#print-page-toc a")]
  .map((a) => decodeURIComponent(a.hash.slice(1)))"""


@dataclass
class Handout:
    """What :func:`print_open_page` printed.

    Attributes:
        n_math: The number of typeset formulas (KaTeX's ``.katex`` elements) on the page.
        pages: The handout's number of pages.
        starts: The page (from 1) each part and page of the print page starts on, by id, as
            the contents list them.
        passes: How many times the page was printed until its contents' numbers settled.
        chapters: ``(id, title, first page, last page, PDF)`` of each chapter's PDF, in order.
    """

    n_math: int
    pages: int
    starts: dict[str, int]
    passes: int
    chapters: list[tuple[str, str, int, int, Path]] = field(default_factory=list)


def start_pages(pdf: bytes, ids: list[str]) -> dict[str, int]:
    """The page (from 1) of each of ``ids`` in ``pdf``, from its named destinations (Chromium
    names one after each element an in-document link points to).

    Raises:
        ValueError: If an id has no destination.
    """
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(pdf))
    dests = {
        name.lstrip("/"): reader.get_destination_page_number(dest) + 1
        for name, dest in reader.named_destinations.items()
    }
    missing = [i for i in ids if i not in dests]
    if missing:
        raise ValueError(f"the PDF has no destination for {missing[:5]} (of {len(missing)})")
    return {i: dests[i] for i in ids}


def split_chapters(pdf: Path, sections: list[dict], starts: dict[str, int], folder: Path):
    """Cut one PDF per page of the print page (not the home page, not a part's title sheet)
    out of the handout ``pdf``, with its bookmarks and the handout's page numbers as its page
    labels, into ``folder/ID.pdf``. Returns ``(id, title, first, last, path)`` of each."""
    import pypdf

    reader = pypdf.PdfReader(pdf)
    n_pages = len(reader.pages)
    folder.mkdir(parents=True, exist_ok=True)
    bounds = [starts[s["id"]] for s in sections] + [n_pages + 1]
    out = []
    for section, first, following in zip(sections, bounds, bounds[1:], strict=False):
        if section["part"] or section["id"] == "index":
            continue
        last = following - 1
        writer = pypdf.PdfWriter()
        writer.append(reader, pages=(first - 1, last))
        writer.set_page_label(0, last - first, style="/D", start=first)
        handout = reader.metadata.title if reader.metadata else None
        title = f"{section['title']} ({handout})" if handout else section["title"]
        writer.add_metadata({"/Title": title})
        path = folder / f"{section['id']}.pdf"
        with open(path, "wb") as f:
            writer.write(f)
        out.append((section["id"], section["title"], first, last, path))
    return out


def print_open_page(page, out: str | Path, chapters: str | Path | None = None) -> Handout:
    """Print the print page, loaded in ``page``, to the handout ``out`` once its fonts and
    images have loaded: with bookmarks (Chromium's outline of the headings, a tagged PDF),
    its contents' page numbers, and, if ``chapters`` names a folder, one PDF per chapter there.

    The page is printed once, painting nothing (:data:`LAYOUT_ONLY`), to learn where each part
    and page starts (the named destinations of the contents' links); the numbers are written
    into the contents' boxes of fixed width, and it is printed again, for good; that print must
    find every start where the first did (else it prints again, at most :data:`MAX_PASSES`
    prints in all).

    Args:
        page: A Playwright page (sync API) of ``print_page/`` after its ``load`` event.
        out: Path of the PDF to write.
        chapters: Folder for the chapters' PDFs (``ID.pdf``), or None for none.

    Returns:
        What was printed (:class:`Handout`).

    Raises:
        RuntimeError: If the contents' page numbers do not settle.
    """
    page.emulate_media(media="print")
    n_math = page.evaluate(FONTS_READY)
    page.wait_for_function("Array.from(document.images).every((img) => img.complete)")
    ids = page.evaluate(CONTENTS_IDS)
    options = dict(print_background=True, prefer_css_page_size=True, outline=True, tagged=True)
    # The first print is for the layout only: nothing visible is painted (visibility never
    # changes a layout), which takes less than half the time of a whole print.
    hidden = page.add_style_tag(content=LAYOUT_ONLY)
    starts = start_pages(page.pdf(prefer_css_page_size=True), ids)
    hidden.evaluate("(style) => style.remove()")
    passes = 1
    while True:
        page.evaluate(FILL_CONTENTS, starts)
        pdf = page.pdf(**options)
        passes += 1
        settled = start_pages(pdf, ids)
        if settled == starts:
            break
        if passes == MAX_PASSES:
            raise RuntimeError(f"the contents' page numbers changed in each of {passes} prints")
        starts = settled
    out = Path(out)
    out.write_bytes(pdf)
    import pypdf

    handout = Handout(n_math, len(pypdf.PdfReader(out).pages), starts, passes)
    if chapters is not None:
        handout.chapters = split_chapters(out, page.evaluate(SECTIONS), starts, Path(chapters))
    return handout


def _print_page(browser, url: str, out: Path, chapters, timeout_s: float) -> Handout:
    page = browser.new_page()
    try:
        page.set_default_timeout(timeout_s * 1000)
        page.goto(url, wait_until="load")
        return print_open_page(page, out, chapters)
    finally:
        page.close()


def print_url(
    url: str,
    out: str | Path,
    chapters: str | Path | None = None,
    *,
    timeout_s: float = 300.0,
    browser=None,
) -> Handout:
    """Print the page at ``url`` to the PDF ``out`` (:func:`print_open_page`).

    Args:
        url: Address of the page (usually the site's ``print_page/``).
        out: Path of the PDF to write; its folder is created if needed.
        chapters: Folder for the chapters' PDFs, or None for none.
        timeout_s: Longest wait for the page, its fonts and images, in seconds (> 0).
        browser: A Playwright Chromium browser to print with; by default one is launched
            (see :func:`launch_chromium`) and closed afterwards.

    Returns:
        What was printed (:class:`Handout`).

    Raises:
        ValueError: If ``timeout_s`` is not positive.
    """
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0 seconds; got {timeout_s!r}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if browser is not None:
        return _print_page(browser, url, out, chapters, timeout_s)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            return _print_page(browser, url, out, chapters, timeout_s)
        finally:
            browser.close()


def print_site(
    site_dir: str | Path,
    out: str | Path,
    chapters: str | Path | None = None,
    *,
    timeout_s: float = 300.0,
    browser=None,
) -> Handout:
    """Print the one-page edition of the built site in ``site_dir`` to the handout ``out``
    and, if ``chapters`` names a folder, each chapter's PDF there.

    Args:
        site_dir: A built site (``mkdocs build``) holding ``print_page/index.html``.
        out: Path of the PDF to write.
        chapters: Folder for the chapters' PDFs, or None for none.
        timeout_s: Longest wait for the page, its fonts and images, in seconds (> 0).
        browser: A Playwright Chromium browser to print with (default: launch one).

    Returns:
        What was printed (:class:`Handout`).

    Raises:
        ValueError: If ``site_dir`` holds no print page.
    """
    site_dir = Path(site_dir)
    if not (site_dir / PRINT_PAGE / "index.html").is_file():
        raise ValueError(
            f"site_dir must be a built site with {PRINT_PAGE}index.html; got {str(site_dir)!r} "
            f"(run `mkdocs build` first)"
        )
    with serve(site_dir) as base:
        return print_url(base + PRINT_PAGE, out, chapters, timeout_s=timeout_s, browser=browser)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m tools.print_pdf [SITE_DIR] [OUT.pdf] [--chapters DIR]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "site_dir", help="the built site (default: site)", nargs="?", default="site"
    )
    parser.add_argument("out", help="the PDF to write", nargs="?", default="rope-explained.pdf")
    parser.add_argument(
        "--chapters",
        help=f"folder for the chapters' PDFs (default: {CHAPTERS}/ beside OUT)",
        default=None,
    )
    args = parser.parse_args(argv)
    chapters = Path(args.chapters) if args.chapters else Path(args.out).parent / CHAPTERS
    handout = print_site(args.site_dir, args.out, chapters)
    size = Path(args.out).stat().st_size
    print(
        f"{args.out}: {handout.pages} pages, {size / 1e6:.1f} MB, {handout.n_math} typeset "
        f"equations, contents settled after {handout.passes} prints"
    )
    for _, title, first, last, path in handout.chapters:
        print(f"  {path}: pages {first}-{last} ({last - first + 1}), {title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
