r"""Print the built site's one-page edition to a PDF for handouts.

The site build writes every page, in the order of the navigation, onto one page
(``site/print_page/``). This module serves the built site on a loopback port, opens that page in
headless Chromium, waits until the fonts of the math (typeset when the site was built) and every
image have loaded, and prints it with Chromium's own PDF writer. It needs no MkDocs, only
Playwright's Python package and a Chromium binary
(``CHROMIUM``, default ``/usr/bin/chromium``; no browser download).

Usage::

    python -m tools.print_pdf SITE_DIR OUT.pdf   (from the repository's root)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.browser import launch_chromium, serve

PRINT_PAGE = "print_page/"
#: Resolves once every web font the page uses (KaTeX's among them) has loaded; returns the
#: number of typeset formulas.
FONTS_READY = """async () => {
  await document.fonts.ready;
  return document.querySelectorAll(".arithmatex .katex").length;
}"""


def print_open_page(page, out: str | Path) -> int:
    """Print a page that has loaded to the PDF ``out`` once its fonts and images have loaded.

    Args:
        page: A Playwright page (sync API) after its ``load`` event.
        out: Path of the PDF to write.

    Returns:
        The number of typeset formulas (KaTeX's ``.katex`` elements) on the page.
    """
    page.emulate_media(media="print")
    n_math = page.evaluate(FONTS_READY)
    page.wait_for_function("Array.from(document.images).every((img) => img.complete)")
    page.pdf(path=str(out), print_background=True, prefer_css_page_size=True)
    return n_math


def _print_page(browser, url: str, out: Path, timeout_s: float) -> int:
    page = browser.new_page()
    try:
        page.set_default_timeout(timeout_s * 1000)
        page.goto(url, wait_until="load")
        return print_open_page(page, out)
    finally:
        page.close()


def print_url(url: str, out: str | Path, *, timeout_s: float = 120.0, browser=None) -> int:
    """Print the page at ``url`` to the PDF ``out`` once its fonts and images have loaded.

    Args:
        url: Address of the page (usually the site's ``print_page/``).
        out: Path of the PDF to write; its folder is created if needed.
        timeout_s: Longest wait for the page, its fonts and images, in seconds (> 0).
        browser: A Playwright Chromium browser to print with; by default one is launched
            (see :func:`launch_chromium`) and closed afterwards.

    Returns:
        The number of typeset formulas (KaTeX's ``.katex`` elements) on the page.

    Raises:
        ValueError: If ``timeout_s`` is not positive.
    """
    if not timeout_s > 0:
        raise ValueError(f"timeout_s must be > 0 seconds; got {timeout_s!r}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if browser is not None:
        return _print_page(browser, url, out, timeout_s)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            return _print_page(browser, url, out, timeout_s)
        finally:
            browser.close()


def print_site(
    site_dir: str | Path, out: str | Path, *, timeout_s: float = 120.0, browser=None
) -> int:
    """Print the one-page edition of the built site in ``site_dir`` to the PDF ``out``.

    Args:
        site_dir: A built site (``mkdocs build``) holding ``print_page/index.html``.
        out: Path of the PDF to write.
        timeout_s: Longest wait for the page, its fonts and images, in seconds (> 0).
        browser: A Playwright Chromium browser to print with (default: launch one).

    Returns:
        The number of typeset formulas on the printed page.

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
        return print_url(base + PRINT_PAGE, out, timeout_s=timeout_s, browser=browser)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m tools.print_pdf [SITE_DIR] [OUT.pdf]``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "site_dir", help="the built site (default: site)", nargs="?", default="site"
    )
    parser.add_argument("out", help="the PDF to write", nargs="?", default="rope-explained.pdf")
    args = parser.parse_args(argv)
    n_math = print_site(args.site_dir, args.out)
    size = Path(args.out).stat().st_size
    print(f"{args.out}: {size / 1e6:.1f} MB, {n_math} typeset equations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
