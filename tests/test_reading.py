"""Reading comfort, measured in Chromium at a phone's 360 px and a desktop's 1280 px: the
explanation boxes at the size of the text around them, display equations without a blank band
under them and with their copy button inside their own box, and the site's title whole in a
phone's header even beside the version selector."""

from __future__ import annotations

import pytest
from readers import TIMEOUT_MS

WIDTHS = (360, 1280)
#: Pages with every kind of explanation box and many display equations.
PAGES = ("equations/rope/", "equations/induction-head/", "real-models/precision/")
#: Layout rounds to the device pixel; a box may differ from another by less than this.
PX = 1.0

MEASURE = r"""
() => {
  const body = parseFloat(getComputedStyle(document.querySelector('article p')).fontSize);
  const boxes = [...document.querySelectorAll(
    'article .admonition.what, article .admonition.why, article .admonition.whatif, ' +
    'article details.what, article details.why, article details.whatif')];
  const box = el => el.getBoundingClientRect();
  const equations = [...document.querySelectorAll('article div.arithmatex')]
    .filter(el => el.querySelector(':scope > .katex-display'))
    .map(el => {
      const formula = box(el.querySelector(':scope > .katex-display'));
      const button = box(el.querySelector(':scope > .rope-copy-tex'));
      const own = box(el);
      return {id: el.id, band: own.height - formula.height, top: button.top - own.top,
              left: button.left - own.left, right: own.right - button.right,
              bottom: own.bottom - button.top};
    });
  return {body, boxes: boxes.map(el => parseFloat(getComputedStyle(el).fontSize)), equations};
}
"""

#: What the theme adds to the header for a versioned site (mike's versions.json): a version
#: selector after the site's title. A plain build has no versions, so the test adds the same
#: markup and lets the page's style sheets lay it out.
VERSIONED_HEADER = r"""
() => {
  const topic = document.querySelector('.md-header__topic');
  topic.insertAdjacentHTML('beforeend',
    '<div class="md-version"><button class="md-version__current" ' +
    'aria-label="Select version">0.1.0</button><ul class="md-version__list">' +
    '<li class="md-version__item"><a class="md-version__link" href="#">0.1.0</a></li>' +
    '</ul></div>');
  const title = topic.querySelector('.md-ellipsis');
  const version = topic.querySelector('.md-version').getBoundingClientRect();
  const header = document.querySelector('.md-header').getBoundingClientRect();
  return {shown: title.clientWidth, needed: title.scrollWidth, versionWidth: version.width,
          inHeader: version.bottom <= header.bottom};
}
"""


@pytest.fixture(scope="module")
def measured(browser, site_url) -> dict:
    out = {}
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        try:
            for path in PAGES:
                page.goto(site_url + path, wait_until="load")
                out[width, path] = page.evaluate(MEASURE)
            page.goto(site_url + PAGES[0], wait_until="load")
            out[width, "header"] = page.evaluate(VERSIONED_HEADER)
        finally:
            context.close()
    return out


@pytest.mark.parametrize("width", WIDTHS)
def test_explanation_boxes_are_set_at_body_size(measured, width):
    for path in PAGES:
        seen = measured[width, path]
        assert seen["boxes"], f"{path}: no What / Why / What-if box found"
        assert all(abs(size - seen["body"]) < 0.01 for size in seen["boxes"]), (path, seen)


@pytest.mark.parametrize("width", WIDTHS)
def test_display_equations_leave_no_band_and_keep_their_copy_button(measured, width):
    for path in PAGES:
        equations = measured[width, path]["equations"]
        assert equations, path
        for eq in equations:
            where = f"{path}#{eq['id']} at {width} px"
            assert eq["band"] <= PX, f"{where}: {eq['band']:.1f} px under the formula"
            # the button sits at the equation's top right, inside its box
            assert abs(eq["top"]) <= PX and eq["left"] >= 0 and eq["right"] >= 0, (where, eq)
            assert eq["right"] < 8, f"{where}: the button is not at the right edge ({eq})"


def test_the_phone_header_shows_the_whole_title_beside_the_version(measured):
    header = measured[360, "header"]
    assert header["versionWidth"] > 0 and header["inHeader"], header
    assert header["needed"] <= header["shown"], f"title cut: {header}"
