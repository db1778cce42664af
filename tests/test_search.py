"""Search finds the page that explains: for a concept, the explanation ranks first, above the API
entries and the pages that only use it; a Hugging Face config key finds the page that maps it to
the site's names; an equation or figure number finds where it is listed.

Each query is typed into Material's search box in Chromium, as a reader would, against the
search index the build wrote.
"""

from __future__ import annotations

import re
import time

import pytest

#: query -> the page its first result must be (site path, fragment and highlight dropped), or
#: the pages any of which may be
QUERIES = {
    "YaRN": "paper-to-code/context-extension/",
    "Position Interpolation": "paper-to-code/context-extension/",
    "rotate_half": "real-models/conventions/",
    "theta": "equations/rope/",
    "\u03b8": "equations/rope/",
    "induction head": "equations/induction-head/",
    "KV cache": "real-models/decoding/",
    "bfloat16": "real-models/precision/",
    "partial rotary": "real-models/partial-rotary/",
    "Wendler": "notes/",  # any of the notes' pages
    "4.11": "figures-and-equations/",
    "Figure 4.5": "figures-and-equations/",
    # a Hugging Face config key: a page with the table that maps it to the site's names
    "rope_theta": ("paper-to-code/context-extension/", "real-models/conventions/"),
    "rope_scaling": ("paper-to-code/context-extension/", "real-models/conventions/"),
    "original_max_position_embeddings": "paper-to-code/context-extension/",
}


RESULT_LINKS = ".md-search-result__item > a"


def first_results(page, query: str) -> list[str]:
    """The addresses of the first results for ``query``, once Material's search has answered,
    typed into the search box of the open page (its answer to the query before cleared
    first: an empty box shows no results)."""
    box = page.locator("input.md-search__input")
    box.fill("")
    box.press("Backspace")
    page.wait_for_function(f"!document.querySelector({RESULT_LINKS!r})")
    # Material reads the query on keyup (and shortly after focus), not on the input event that
    # fill() sends: a key press after filling is what a reader's last keystroke does
    box.fill(query)
    box.press("End")
    deadline, seen = time.monotonic() + 20, None
    while time.monotonic() < deadline:
        links = page.eval_on_selector_all(
            RESULT_LINKS, "els => els.map(e => e.getAttribute('href'))"
        )
        if links and links == seen:  # the same answer twice in a row: the search has settled
            break
        if not links:
            box.press("End")  # typed before the search index was ready: type again
        seen = links
        page.wait_for_timeout(150)
    paths = [re.sub(r"^https?://[^/]+/|\?h=[^#]*|#.*$", "", h) for h in seen or []]
    return paths


@pytest.mark.site
def test_concept_queries_find_the_explaining_page_first(site_url, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(site_url, wait_until="load")
        wrong = {}
        for query, expected in QUERIES.items():
            got = first_results(page, query)
            if not got or not got[0].startswith(expected):  # str.startswith takes a tuple
                wrong[query] = got[:3]
        assert wrong == {}, wrong
    finally:
        page.close()
