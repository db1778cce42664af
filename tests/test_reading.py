"""Reading comfort, measured in Chromium on every page by the phone (360 px) and desktop
(1280 px) readers of tests/readers.py: the explanation boxes at the size of the text around
them, display equations without a blank band under them and with their copy button inside their
own box, and the site's title whole in a phone's header even beside the version selector."""

from __future__ import annotations

import pytest

WIDTHS = (360, 1280)
#: Pages with every kind of explanation box and many display equations.
PAGES = ("equations/rope/", "equations/induction-head/", "real-models/precision/")
#: Layout rounds to the device pixel; a box may differ from another by less than this.
PX = 1.0

#: The reader that measures each width (tests/readers.py).
READER = {360: "phone", 1280: "desktop"}


@pytest.fixture(scope="module")
def measured(views) -> dict:
    """What the reader of each width saw of every page, ``{width: {path: record}}``: the
    reading text (``record["reading"]``, readers.READING) and the versioned header
    (``record["versioned_header"]``, readers.VERSIONED_HEADER)."""
    return {width: views[reader] for width, reader in READER.items()}


@pytest.mark.parametrize("width", WIDTHS)
def test_explanation_boxes_are_set_at_body_size(measured, width):
    """On every page, and on each of :data:`PAGES`, which has boxes of every kind."""
    assert set(PAGES) <= set(measured[width])
    for path, record in measured[width].items():
        seen = record["reading"]
        if path in PAGES:
            assert seen["boxes"], f"{path}: no What / Why / What-if box found"
        if seen["boxes"]:
            assert seen["body"], f"{path}: explanation boxes but no body text"
        assert all(abs(size - seen["body"]) < 0.01 for size in seen["boxes"]), (path, seen)


@pytest.mark.parametrize("width", WIDTHS)
def test_display_equations_leave_no_band_and_keep_their_copy_button(measured, width):
    """On every page; each of :data:`PAGES` has display equations."""
    for path, record in measured[width].items():
        equations = record["reading"]["equations"]
        if path in PAGES:
            assert equations, path
        for eq in equations:
            where = f"{path}#{eq['id']} at {width} px"
            assert eq["band"] <= PX, f"{where}: {eq['band']:.1f} px under the formula"
            assert eq["button"], f"{where}: no copy button"
            # the button sits at the equation's top right, inside its box
            assert abs(eq["top"]) <= PX and eq["left"] >= 0 and eq["right"] >= 0, (where, eq)
            assert eq["right"] < 8, f"{where}: the button is not at the right edge ({eq})"


def test_the_phone_header_shows_the_whole_title_beside_the_version(measured):
    """On every page at 360 px, with the version selector a versioned site adds."""
    assert measured[360]
    for path, record in measured[360].items():
        header = record["versioned_header"]
        assert header["versionWidth"] > 0 and header["inHeader"], (path, header)
        assert header["needed"] <= header["shown"], f"{path}: title cut: {header}"
