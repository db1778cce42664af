"""The print page's visit and the handout's printing, for tests/test_print.py's background job.

``python tests/print_visit.py SITE_URL OUT.pdf [BASE_URL ...]``: in a process of its own
(tests/test_print.py's job ``site_pdf``), open the print page of the site served at
``SITE_URL``, record the visit, print the handout to ``OUT.pdf`` and its chapters' PDFs to the
folder ``pdf`` beside it (as ``make pdf`` does); then visit the print page of the same site
served at each ``BASE_URL`` (``visit["elsewhere"]``); and write the visit, with what was
printed and the controls that print, to ``OUT.json``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from tools import print_pdf

#: The site's controls, none of which is of use on paper: buttons, the code of a figure and the
#: call under a stated number (collapsed blocks), an answer where its question is, the source
#: code of an API object, copy buttons, downloads, the playground's controls, the notebooks'
#: toolbars and heading links, the chapter's PDF, the header, navigation, search and footer.
CONTROLS = (
    ".md-button",
    "figure.rope-figure details",
    "details.rope-reproduce",
    "details.example",
    "details.mkdocstrings-source",
    ".md-clipboard",
    ".md-code__nav",
    "a.rope-figure__download",
    ".rope-playground",
    ".zeroclipboard-container",
    ".celltoolbar",
    ".anchor-link",
    ".headerlink",
    ".rope-chapter-pdf",
    ".md-header",
    ".md-sidebar",
    ".md-search",
    ".md-footer",
    ".md-source",
)
#: The selectors of :data:`CONTROLS` that a page shows (in print media, once printed).
CONTROLS_SHOWN = f"""() => {json.dumps(CONTROLS)}.filter((sel) =>
  [...document.querySelectorAll(sel)].some((el) =>
    getComputedStyle(el).display !== "none" && el.getClientRects().length > 0))"""


def open_print_page(browser, url: str, then=None) -> dict:
    """Open the print page at ``url`` and record its requests, failures and errors; then, if
    given, call ``then(page)`` on the page and keep what it returns as ``seen["then"]``."""
    context = browser.new_context()
    # the whole site on one page, loaded (and printed) while every core is busy
    context.set_default_timeout(600_000)
    seen: dict = {"requests": [], "failed": [], "errors": []}
    context.on("request", lambda r: seen["requests"].append(r.url))
    context.on("requestfailed", lambda r: seen["failed"].append(f"{r.url} ({r.failure})"))
    context.on(
        "response", lambda r: r.status >= 400 and seen["failed"].append(f"{r.url} ({r.status})")
    )
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and seen["errors"].append(m.text))
    page.on("pageerror", lambda e: seen["errors"].append(f"page error: {e}"))
    try:
        page.goto(url, wait_until="load")
        seen["math"] = page.evaluate(print_pdf.FONTS_READY)
        page.wait_for_load_state("networkidle")
        seen["tocs"] = page.evaluate(
            "document.querySelectorAll('#print-page-toc .print-page-toc-nav > ul').length"
        )
        seen["toc_links"] = page.evaluate(
            "[...document.querySelectorAll('#print-page-toc a')].map(a => a.hash)"
        )
        seen["base"] = page.evaluate("new URL(__md_scope).pathname")
        if then is not None:
            seen["then"] = then(page)
    finally:
        context.close()
    return seen


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    from tools.browser import launch_chromium

    site_url, out, *elsewhere = argv if argv is not None else sys.argv[1:]
    out = Path(out)

    def then(page) -> list:
        handout = print_pdf.print_open_page(page, out, out.parent / "pdf")
        return [dataclasses.asdict(handout), page.evaluate(CONTROLS_SHOWN)]

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            visit = open_print_page(browser, site_url + print_pdf.PRINT_PAGE, then=then)
            visit["elsewhere"] = [
                open_print_page(browser, base + print_pdf.PRINT_PAGE) for base in elsewhere
            ]
        finally:
            browser.close()
    out.with_suffix(".json").write_text(json.dumps(visit, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
