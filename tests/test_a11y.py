"""Accessibility: axe-core on every page in both palettes, readable math, described figures.

axe-core comes bundled with axe-playwright-python (no download). Each page is checked, its
math typeset at build time, in the light (``default``) and the dark (``slate``) palette, which
Material picks from the reader's ``prefers-color-scheme``. The two palettes differ only in
colour (the DOM is the same but for the ``data-md-color-scheme`` attribute), so every rule runs
in the light palette and the rules that judge colours run again in the dark one, on the same
page after the reader's click on the palette toggle, on the desktop reader's visit of
tests/readers.py. Code tokens are checked for colour once per look (colour, size, weight,
opacity, background), which a test below shows still catches a token of a look of its own. The
one-page print edition (``print_page/``) repeats the other pages and is left out.
"""

from __future__ import annotations

import pytest
from readers import (
    AXE_RUNS,
    COLOUR_CONTEXT,
    COLOUR_RULES,
    MARK_SAME_LOOK,
    SCHEMES,
    SETTLED,
    SHOWS_SCHEME,
    TO_SCHEME,
    is_print_page,
)

BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def axe_results(views) -> dict:
    """What axe found on each page in each palette, on the desktop reader's visit
    (tests/readers.py): ``{(palette, path): (scheme, violations)}``."""
    return {
        (palette, path): seen["axe"][palette]
        for path, seen in views["desktop"].items()
        if not is_print_page(path)
        for palette in AXE_RUNS
    }


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
            page.evaluate(TO_SCHEME, SCHEMES["dark"])
            page.wait_for_function(SHOWS_SCHEME, arg=SCHEMES["dark"])
            page.evaluate(SETTLED)
            seen["toggled"] = page.evaluate(probe)
        context.close()
    assert seen["light"][0] == SCHEMES["light"] and seen["dark"][0] == SCHEMES["dark"]
    assert seen["toggled"] == seen["dark"] != seen["light"]


def test_a_code_token_of_a_look_of_its_own_is_checked(browser, site_url, views):
    """The colour rules skip a code listing only when each of its visible tokens looks like one
    in a listing checked before it: a token given a colour of its own (pale grey on the
    listing's background) is still checked and axe reports its contrast; so does a token of a
    common class on a background of its own."""
    from axe_playwright_python.sync_playwright import Axe

    marked = sum(v["same_look"]["light"]["marked"] for v in views["desktop"].values() if "axe" in v)
    assert marked > 1000, "code tokens are deduplicated on the pages with listings"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(site_url + "reference/rope/")
    page.evaluate(Axe().axe_script)
    colour_only = AXE_RUNS["dark"][0][1]  # the colour rules
    assert colour_only["runOnly"]["values"] == COLOUR_RULES
    before = page.evaluate(MARK_SAME_LOOK)
    assert before["marked"] > 0
    clean = page.evaluate("([c, o]) => axe.run(c, o)", [COLOUR_CONTEXT, colour_only])
    assert not [v for v in clean["violations"] if v["impact"] in BLOCKING]
    # two tokens that looked like an earlier one (and so were skipped), given looks of their own
    page.evaluate(
        """() => {
          const [a, b] = [...document.querySelectorAll('.highlight code[data-axe-same-look] span')]
            .filter(s => /[a-z]{3}/i.test(s.textContent) && s.getBoundingClientRect().right < 900);
          a.style.color = '#d8d8d8';
          b.style.background = '#e8e8e8';
          b.style.color = '#f4f4f4';
        }"""
    )
    page.evaluate(MARK_SAME_LOOK)
    found = page.evaluate("([c, o]) => axe.run(c, o)", [COLOUR_CONTEXT, colour_only])
    contrast = next(v for v in found["violations"] if v["id"] == "color-contrast")
    styles = [n["html"] for n in contrast["nodes"]]
    assert any("#d8d8d8" in h or "216, 216, 216" in h for h in styles), styles
    assert any("#f4f4f4" in h or "244, 244, 244" in h for h in styles), styles
    page.close()


def test_math_is_readable_and_figures_are_described(views):
    """Every formula has MathML with text in it, and every figure an alt text that says what
    it shows (on every page as a desktop browser opened it)."""
    n_math = n_fig = 0
    for path, seen in views["desktop"].items():
        if is_print_page(path):
            continue
        assert seen["unspoken"] == 0, f"{path}: formulas without MathML to read"
        n_math += seen["formulas"]
        for alt in seen["alts"]:
            words = alt.split()
            assert len(words) >= 8, f"{path}: figure alt text says too little: {alt!r}"
            assert alt.lower() not in {"figure", "image", "plot", "chart"}, path
        n_fig += len(seen["alts"])
    assert n_math > 100 and n_fig > 10, (n_math, n_fig)
