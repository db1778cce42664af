"""Accessibility: axe-core on every page in both palettes, readable math, described figures.

axe-core comes bundled with axe-playwright-python (no download). Each page is checked, its
math typeset at build time, in the light (``default``) and the dark (``slate``) palette, which
Material picks from the reader's ``prefers-color-scheme``. The two palettes differ only in
colour (the DOM is the same but for the ``data-md-color-scheme`` attribute), so every rule runs
in the light palette and the rules that judge colours run again in the dark one, on the same
page after the reader's click on the palette toggle. The one-page
print edition (``print_page/``) repeats the other pages and is left out.
"""

from __future__ import annotations

import asyncio

import pytest
from conftest import background, job_result

from tools.browser import chromium_options

SCHEMES = {"light": "default", "dark": "slate"}
BLOCKING = ("serious", "critical")
#: The axe rules whose outcome depends on the palette's colours.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
#: KaTeX writes each formula twice: MathML, which screen readers read and axe checks, and an
#: aria-hidden visual copy whose every glyph is a span in the colour of the surrounding text,
#: whose contrast axe checks on that text. Leaving the copy out halves the colour checks.
AXE_CONTEXT = {"exclude": [[".katex-html"]]}
AXE_OPTIONS = {
    "light": {"resultTypes": ["violations"]},
    "dark": {"resultTypes": ["violations"], "runOnly": {"type": "rule", "values": COLOUR_RULES}},
}

PALETTE = r"""
async () => {
  const containers = [...document.querySelectorAll('.arithmatex .katex')];
  return {
    scheme: document.body.getAttribute('data-md-color-scheme'),
    math: containers.length,

  };
}
"""


def _pages(site_pages):
    return [p for p in site_pages if not p.startswith("print_page")]


#: Material's palette switch to the dark palette: the radio button that the header's toggle
#: ("Switch to dark mode") is the label of. It is clicked through the page's script, as the
#: label passes its click on, whether or not the header shows the toggle at that width.
TO_DARK = "document.querySelector('input.md-option[data-md-color-scheme=\"slate\"]').click()"
SETTLED = "Promise.all(document.getAnimations().map(a => a.finished))"


async def _axe_pages(site_url: str, paths: list[str], workers: int) -> dict:
    """Run axe on each page in both palettes, ``workers`` pages at a time (each in its own
    renderer process); ``{(palette, path): (scheme, violations)}``.

    Each page is opened once, by a reader whose system prefers the light palette: axe runs
    every rule, then the reader switches to the dark palette with Material's toggle (the same
    attributes on ``<body>`` as a dark preference gives, see
    :func:`test_a_dark_preference_and_the_toggle_give_the_same_palette`) and axe runs the
    colour rules again. axe is injected once per page."""
    from axe_playwright_python.async_playwright import Axe
    from playwright.async_api import async_playwright

    axe_script, queue, out = Axe().axe_script, asyncio.Queue(), {}
    for path in paths:
        queue.put_nowait(path)
    async with async_playwright() as pw:

        async def worker():  # one browser each: its pages render in a process of their own
            browser = await pw.chromium.launch(**chromium_options())
            try:
                while not queue.empty():
                    path = queue.get_nowait()
                    # a context per page: Material keeps the reader's palette choice in storage
                    context = await browser.new_context(
                        color_scheme="light", viewport={"width": 1280, "height": 900}
                    )
                    page = await context.new_page()
                    await page.goto(site_url + path)
                    await page.evaluate(axe_script)
                    for palette in ("light", "dark"):
                        if palette == "dark":
                            await page.evaluate(TO_DARK)
                            await page.wait_for_function(
                                f"document.body.dataset.mdColorScheme === {SCHEMES['dark']!r}"
                            )
                            await page.evaluate(SETTLED)
                        seen = await page.evaluate(PALETTE)
                        result = await page.evaluate(
                            "([c, o]) => axe.run(c, o)", [AXE_CONTEXT, AXE_OPTIONS[palette]]
                        )
                        out[palette, path] = (seen["scheme"], result["violations"])
                    await context.close()
            finally:
                await browser.close()

        await asyncio.gather(*(worker() for _ in range(workers)))
    return out


@background("axe_results", after=("site_build", "site_server"))
def _run_axe(site_build, site_server) -> dict:
    """axe on every page in both palettes, in the background (Playwright's async API, in a
    thread of its own, with a browser of its own per worker)."""
    site, _ = site_build
    pages = sorted(p.parent.relative_to(site).as_posix() for p in site.rglob("index.html"))
    pages = [("" if p == "." else p + "/") for p in pages]
    return asyncio.run(_axe_pages(site_server, _pages(pages), workers=1))


@pytest.fixture(scope="module")
def axe_results(site_url) -> dict:
    """What axe found on each page in each palette: ``{(palette, path): (scheme, violations)}``."""
    return job_result("axe_results")


@pytest.mark.parametrize("palette", sorted(SCHEMES))
def test_axe_finds_no_serious_violation(palette, axe_results, summary):
    problems = []
    checked = 0
    for (pal, path), (scheme, violations) in sorted(axe_results.items()):
        if pal != palette:
            continue
        assert scheme == SCHEMES[palette], f"{path}: palette {scheme}"
        for v in violations:
            if v["impact"] in BLOCKING:
                targets = [" ".join(map(str, n["target"])) for n in v["nodes"][:3]]
                problems.append(f"{path or 'home'}: {v['id']} ({v['impact']}) at {targets}")
        checked += 1
    rules = "every rule" if palette == "light" else "the colour rules"
    summary.append(
        f"axe ({palette} palette, {rules}): {checked} pages, {len(problems)} serious/critical"
    )
    assert checked >= 10
    assert not problems, "\n".join(problems)


def test_a_dark_preference_and_the_toggle_give_the_same_palette(browser, site_url):
    """Material picks the palette from the reader's ``prefers-color-scheme``; switching with
    the toggle gives the same palette (what the axe run relies on for its dark pass)."""
    probe = (
        "() => [document.body.dataset.mdColorScheme, document.body.dataset.mdColorPrimary, "
        "document.body.dataset.mdColorAccent, getComputedStyle(document.body).backgroundColor, "
        "getComputedStyle(document.querySelector('.md-typeset')).color]"
    )
    seen = {}
    for preference in ("light", "dark"):
        context = browser.new_context(color_scheme=preference)
        page = context.new_page()
        page.goto(site_url + "equations/rope/")
        seen[preference] = page.evaluate(probe)
        if preference == "light":
            page.evaluate(TO_DARK)
            page.wait_for_function(f"document.body.dataset.mdColorScheme === {SCHEMES['dark']!r}")
            page.evaluate(SETTLED)
            seen["toggled"] = page.evaluate(probe)
        context.close()
    assert seen["light"][0] == SCHEMES["light"] and seen["dark"][0] == SCHEMES["dark"]
    assert seen["toggled"] == seen["dark"] != seen["light"]


def test_math_is_readable_and_figures_are_described(views):
    """Every formula has MathML with text in it, and every figure an alt text that says what
    it shows (on every page as a desktop browser opened it)."""
    n_math = n_fig = 0
    for path, seen in views["desktop"].items():
        if path.startswith("print_page"):
            continue
        assert seen["unspoken"] == 0, f"{path}: formulas without MathML to read"
        n_math += seen["formulas"]
        for alt in seen["alts"]:
            words = alt.split()
            assert len(words) >= 8, f"{path}: figure alt text says too little: {alt!r}"
            assert alt.lower() not in {"figure", "image", "plot", "chart"}, path
        n_fig += len(seen["alts"])
    assert n_math > 100 and n_fig > 10, (n_math, n_fig)
