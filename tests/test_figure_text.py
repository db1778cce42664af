"""Every figure's smallest text, as a reader sees it: at least 9 CSS px on a 360 px phone and
11 px in a 1280 px desktop window, in both palettes.

The readers' visits (tests/readers.py) measure the figures: the desktop reader at 1280 px,
the phone at 360 px, each page with figures in both palettes. For every figure the browser
reports which file it chose (the phone's ``<id>.narrow.svg`` or the wide ``<id>.svg``) and how
wide it shows the drawing (the image's box less its padding and border); the SVG's glyphs give
the size each piece of text is drawn at (``figures.svg_text_sizes``), and the shown size is that
times the ratio of the shown width to the SVG's own width.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from readers import SCHEMES, VIEWS

from rope_explained import figures

#: Window width (CSS px) -> the smallest text every figure must keep there, in CSS px.
THRESHOLDS = {360: 9.0, 1280: 11.0}
PALETTES = tuple(SCHEMES)
#: The reader whose visit measures the figures at each width.
READER = {360: "phone", 1280: "desktop"}


@pytest.fixture(scope="module")
def smallest_text(views, site_dir, summary) -> dict:
    """``{(width, palette): {figure id: (smallest text in CSS px, file shown)}}``."""
    svgs: dict[str, tuple[float, float]] = {}  # file -> (SVG width in pt, smallest glyph in pt)
    out: dict = {}
    for width, reader in READER.items():
        assert VIEWS[reader]["viewport"]["width"] == width, reader
        for path, seen in sorted(views[reader].items()):
            for palette, boxes in seen.get("figure_boxes", {}).items():
                for fig in boxes:
                    assert fig["loaded"], f"{path}: {fig['src']} did not load"
                    file = urlparse(fig["src"]).path.removeprefix("/")
                    if file not in svgs:
                        svg_width, sizes = figures.svg_text_sizes((site_dir / file).read_bytes())
                        assert sizes, f"{file}: no text found"
                        svgs[file] = (svg_width, min(sizes))
                    svg_width, smallest = svgs[file]
                    px = smallest * fig["shown"] / svg_width
                    out.setdefault((width, palette), {})[fig["id"]] = (px, file)
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
