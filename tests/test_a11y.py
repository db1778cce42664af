"""Accessibility: axe-core on every page in both palettes, readable math, described figures.

axe-core comes bundled with axe-playwright-python (no download). Each page is checked, its
math typeset at build time, in the light (``default``) and the dark (``slate``) palette, which
Material picks from the reader's ``prefers-color-scheme``. The two palettes differ only in
colour (the DOM is the same but for the ``data-md-color-scheme`` attribute and which label of
the toggle shows), so every rule runs in the palette a page opens in and the rules that judge
colours run again in the other, on the same page after the reader's click on the palette
toggle, on the desktop reader's visit of tests/readers.py (the reader's last choice is kept,
so the pages open in either palette by turns). The colour rules check a text or a link once
per look (colour, size, weight, opacity, background) on each reader's pages: one whose look
axe has judged on an earlier page is skipped, which a test below shows still catches a text or
a link of a look of its own. The one-page print edition (``print_page/``) repeats the other
pages and is left out.
"""

from __future__ import annotations

import pytest
from readers import (
    AXE_CONTEXT,
    COLOUR_CHECK,
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
        for palette in SCHEMES
    }


def test_every_rule_ran_once_on_every_page_in_both_palettes_by_turns(views):
    """Each page had every rule in one palette, the one it opened in, and the pages opened in
    both (so both labels of the palette toggle were checked)."""
    ran = {path: seen.get("every_rule") for path, seen in views["desktop"].items()}
    assert set(ran.values()) == set(SCHEMES), ran


@pytest.mark.parametrize("palette", sorted(SCHEMES))
def test_axe_finds_no_serious_violation(palette, views, axe_results, summary):
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
    every = sum(seen.get("every_rule") == palette for seen in views["desktop"].values())
    summary.append(
        f"axe ({palette} palette): {checked} pages, every rule on {every} of them and the "
        f"colour rules on all; {len(problems)} serious/critical"
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


def test_a_text_or_link_of_a_look_of_its_own_is_checked(browser, site_url, views):
    """The colour rules check a text or a link only when nothing of its look has been judged
    before (on the reader's earlier pages, in that palette): most texts of the site are
    skipped, yet a text given a colour of its own is checked and axe reports its contrast, so
    is a text of a common colour on a background of its own, and a link made to look like the
    text around it."""
    from axe_playwright_python.sync_playwright import Axe

    counts = [v["looks"][p] for v in views["desktop"].values() for p in v.get("looks", {})]
    texts, new = sum(c["texts"] for c in counts), sum(c["newTexts"] for c in counts)
    assert len(counts) == 2 * len(views["desktop"]) and new * 3 < texts, (new, texts)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(site_url + "reference/rope/")
    page.evaluate(Axe().axe_script)
    first = page.evaluate(COLOUR_CHECK, [AXE_CONTEXT, []])
    assert first["counts"]["newTexts"] == first["counts"]["texts"] > 100, first["counts"]
    assert not [v for v in first["violations"] if v["impact"] in BLOCKING]
    again = page.evaluate(COLOUR_CHECK, [AXE_CONTEXT, first["keys"]])
    assert again["counts"]["texts"] == first["counts"]["texts"]
    # left new: what axe could not judge (a text over another element, say), and the links
    # outside a text block, to which the rule does not apply
    assert again["counts"]["newTexts"] * 20 < again["counts"]["texts"], again["counts"]
    # two code tokens and a link in running text, skipped now, given looks of their own
    page.evaluate(
        """() => {
          const skipped = el => !el.hasAttribute('data-axe-fresh-look')
            && !el.hasAttribute('data-axe-fresh-link') && el.getBoundingClientRect().right < 900;
          const [a, b] = [...document.querySelectorAll('.highlight code span')]
            .filter(s => !s.children.length && /[a-z]{3}/i.test(s.textContent) && skipped(s));
          a.style.color = '#d8d8d8';
          b.style.background = '#e8e8e8';
          b.style.color = '#f4f4f4';
          // a paragraph of the page's look, whose link takes the colour of its text
          const p = document.createElement('p');
          p.innerHTML = 'Words before <a href="#" id="blended-link">a link</a> and after it.';
          document.querySelector('article h1').after(p);
          const link = p.querySelector('a');
          link.style.color = getComputedStyle(p).color;
          link.style.textDecoration = 'none';
        }"""
    )
    after = page.evaluate(COLOUR_CHECK, [AXE_CONTEXT, first["keys"] + again["keys"]])
    assert after["counts"]["newTexts"] >= again["counts"]["newTexts"] + 2, after["counts"]
    found = {v["id"]: [n["html"] for n in v["nodes"]] for v in after["violations"]}
    styles = found["color-contrast"]
    assert any("#d8d8d8" in h or "216, 216, 216" in h for h in styles), styles
    assert any("#f4f4f4" in h or "244, 244, 244" in h for h in styles), styles
    assert any('id="blended-link"' in h for h in found["link-in-text-block"]), found
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
