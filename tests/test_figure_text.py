"""Every figure's smallest text, as a reader sees it: at least 9 CSS px on a 360 px phone and
11 px in a 1280 px desktop window, in both palettes.

Each page that shows figures is opened in Chromium at both widths (in the background, with a
browser of its own, from the moment the site is served). For every figure the browser
reports which file it chose (the phone's ``<id>.narrow.svg`` or the wide ``<id>.svg``) and how
wide it shows the drawing (the image's box less its padding and border); the SVG's glyphs give
the size each piece of text is drawn at (``figures.svg_text_sizes``), and the shown size is that
times the ratio of the shown width to the SVG's own width.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from conftest import background, job_result
from readers import SETTLED, SHOWS_SCHEME, TIMEOUT_MS, TO_SCHEME

from rope_explained import figures
from tools.browser import launch_chromium

#: Window width (CSS px) -> the smallest text every figure must keep there, in CSS px.
THRESHOLDS = {360: 9.0, 1280: 11.0}
PALETTES = {"light": "default", "dark": "slate"}

FIGURE_BOXES = r"""
async () => {
  const settled = img => img.complete ? null : new Promise(done => {
    img.addEventListener('load', done);
    img.addEventListener('error', done);
  });
  await Promise.all([...document.images].map(settled));
  return [...document.querySelectorAll('figure.rope-figure[id^="fig-"]')].map(figure => {
    const img = figure.querySelector('img');
    const s = getComputedStyle(img);
    const box = img.getBoundingClientRect();
    const inner = box.width - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)
                  - parseFloat(s.borderLeftWidth) - parseFloat(s.borderRightWidth);
    return {id: figure.id.slice(4), src: img.currentSrc, shown: inner,
            loaded: img.complete && img.naturalWidth > 0};
  });
}
"""


def _pages_with_figures(site_dir) -> list[str]:
    pages = []
    for path in sorted(site_dir.rglob("index.html")):
        rel = path.parent.relative_to(site_dir).as_posix()
        if rel.startswith("print_page") or 'class="rope-figure"' not in path.read_text("utf-8"):
            continue
        pages.append("" if rel == "." else rel + "/")
    return pages


@background("smallest_text", after=("site_build", "site_server"))
def _measure_figure_text(site_build, site_server) -> dict:
    """``{(width, palette): {figure id: (smallest text in CSS px, file shown)}}``, measured in
    the background (a browser of its own) once the site is served."""
    from playwright.sync_api import sync_playwright

    site_dir, site_url = site_build[0], site_server
    svgs: dict[str, tuple[float, float]] = {}  # file -> (SVG width in pt, smallest glyph in pt)
    out: dict = {}
    with sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            for width in THRESHOLDS:
                context = browser.new_context(viewport={"width": width, "height": 900})
                context.set_default_timeout(TIMEOUT_MS)
                page = context.new_page()
                try:
                    for path in _pages_with_figures(site_dir):
                        page.goto(site_url + path, wait_until="load")
                        for palette, scheme in PALETTES.items():
                            page.evaluate(TO_SCHEME, scheme)
                            page.wait_for_function(SHOWS_SCHEME, arg=scheme)
                            page.evaluate(SETTLED)
                            for fig in page.evaluate(FIGURE_BOXES):
                                assert fig["loaded"], f"{path}: {fig['src']} did not load"
                                file = urlparse(fig["src"]).path.removeprefix("/")
                                if file not in svgs:
                                    svg_width, sizes = figures.svg_text_sizes(
                                        (site_dir / file).read_bytes()
                                    )
                                    assert sizes, f"{file}: no text found"
                                    svgs[file] = (svg_width, min(sizes))
                                svg_width, smallest = svgs[file]
                                px = smallest * fig["shown"] / svg_width
                                out.setdefault((width, palette), {})[fig["id"]] = (px, file)
                        page.evaluate(TO_SCHEME, PALETTES["light"])  # the next page, as a reader's
                finally:
                    context.close()
        finally:
            browser.close()
    return out


@pytest.fixture(scope="module")
def smallest_text(site_url, summary) -> dict:
    """``{(width, palette): {figure id: (smallest text in CSS px, file shown)}}``."""
    out = job_result("smallest_text")
    for (width, palette), seen in sorted(out.items()):
        worst = min(seen, key=lambda f: seen[f][0])
        summary.append(
            f"figure text at {width} px, {palette}: smallest {seen[worst][0]:.2f} px "
            f"({worst}), over {len(seen)} figures"
        )
    return out


def test_every_figure_is_measured_at_both_widths_in_both_palettes(smallest_text):
    registered = set(figures.load_all())
    for key in [(w, p) for w in THRESHOLDS for p in PALETTES]:
        assert set(smallest_text.get(key, {})) == registered, key


@pytest.mark.parametrize("width", sorted(THRESHOLDS))
def test_smallest_text_of_every_figure(smallest_text, width):
    floor = THRESHOLDS[width]
    small = [
        f"{fig_id} ({palette}, {file}): {px:.2f} px"
        for palette in PALETTES
        for fig_id, (px, file) in sorted(smallest_text[width, palette].items())
        if px < floor
    ]
    assert not small, f"figure text below {floor} px at {width} px:\n" + "\n".join(small)


def test_a_phone_is_served_the_figures_drawn_for_its_column(smallest_text):
    """The narrow drawing on the phone, the wide one on the desktop (a phone that received the
    wide drawing would show its text at about half the size)."""
    for palette in PALETTES:
        phone = smallest_text[360, palette]
        desktop = smallest_text[1280, palette]
        assert all(file.endswith(".narrow.svg") for _, file in phone.values()), palette
        assert not any(file.endswith(".narrow.svg") for _, file in desktop.values()), palette
