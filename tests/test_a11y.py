"""Accessibility: axe-core on every page in both palettes, readable math, described figures.

axe-core comes bundled with axe-playwright-python (no download). Each page is checked after
MathJax has typeset it, in the light (``default``) and the dark (``slate``) palette, which
Material picks from the reader's ``prefers-color-scheme``. The two palettes differ only in
colour (the DOM is the same but for the ``data-md-color-scheme`` attribute), so every rule runs
in the light palette and the rules that judge colours run again in the dark one. The one-page
print edition (``print_page/``) repeats the other pages and is left out.
"""

from __future__ import annotations

import pytest

SCHEMES = {"light": "default", "dark": "slate"}
BLOCKING = ("serious", "critical")
#: The axe rules whose outcome depends on the palette's colours.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
AXE_OPTIONS = {
    "light": {"resultTypes": ["violations"]},
    "dark": {"resultTypes": ["violations"], "runOnly": {"type": "rule", "values": COLOUR_RULES}},
}

MATH_AND_FIGURES = r"""
async () => {
  if (window.MathJax && MathJax.startup) { await MathJax.startup.promise; }
  const containers = [...document.querySelectorAll('mjx-container')];
  return {
    scheme: document.body.getAttribute('data-md-color-scheme'),
    math: containers.length,
    unspoken: containers.filter(c => {
      const mml = c.querySelector('mjx-assistive-mml math');
      return !mml || !mml.textContent.trim();
    }).length,
    figures: [...document.querySelectorAll('article figure img')].map(img => img.alt || ''),
  };
}
"""


@pytest.fixture(scope="module")
def axe():
    from axe_playwright_python.sync_playwright import Axe

    return Axe()


def _pages(site_pages):
    return [p for p in site_pages if not p.startswith("print_page")]


@pytest.mark.parametrize("palette", sorted(SCHEMES))
def test_axe_finds_no_serious_violation(palette, site_url, site_pages, browser, axe, summary):
    context = browser.new_context(color_scheme=palette, viewport={"width": 1280, "height": 900})
    problems = []
    checked = 0
    try:
        page = context.new_page()
        for path in _pages(site_pages):
            page.goto(site_url + path)
            seen = page.evaluate(MATH_AND_FIGURES)
            assert seen["scheme"] == SCHEMES[palette], f"{path}: palette {seen['scheme']}"
            results = axe.run(page, options=AXE_OPTIONS[palette]).response
            for v in results["violations"]:
                if v["impact"] in BLOCKING:
                    targets = [" ".join(map(str, n["target"])) for n in v["nodes"][:3]]
                    problems.append(f"{path or 'home'}: {v['id']} ({v['impact']}) at {targets}")
            checked += 1
    finally:
        context.close()
    rules = "every rule" if palette == "light" else "the colour rules"
    summary.append(
        f"axe ({palette} palette, {rules}): {checked} pages, {len(problems)} serious/critical"
    )
    assert checked >= 10
    assert not problems, "\n".join(problems)


def test_math_is_readable_and_figures_are_described(site_url, site_pages, browser):
    page = browser.new_page()
    n_math = n_fig = 0
    try:
        for path in _pages(site_pages):
            page.goto(site_url + path)
            seen = page.evaluate(MATH_AND_FIGURES)
            assert seen["unspoken"] == 0, f"{path}: formulas without assistive MathML"
            n_math += seen["math"]
            for alt in seen["figures"]:
                words = alt.split()
                assert len(words) >= 8, f"{path}: figure alt text says too little: {alt!r}"
                assert alt.lower() not in {"figure", "image", "plot", "chart"}, path
            n_fig += len(seen["figures"])
    finally:
        page.close()
    assert n_math > 100 and n_fig > 10, (n_math, n_fig)
