"""Every registered figure renders, deterministically, with real alt text and a caption; every
figure is shown by exactly one page, the page its module is named after. (The build's cache of
figures is tested with the build, in test_docs_build.py.)"""

from __future__ import annotations

import io
import re
from pathlib import Path
from xml.etree import ElementTree

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from rope_explained import figures

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REGISTRY = figures.load_all()
IDS = sorted(REGISTRY)


def page_references() -> dict[str, list[str]]:
    """Figure id -> the docs pages that insert it (Markdown pages and notebook pages)."""
    refs: dict[str, list[str]] = {}
    for path in sorted(DOCS.rglob("*")):
        src = path.relative_to(DOCS).as_posix()
        if path.suffix == ".md":
            lines = path.read_text(encoding="utf-8").split("\n")
            for _, line in hooklib._outside_code(lines):
                for m in hooklib.RE_MACRO.finditer(line):
                    if m.group("name") == "figure":
                        refs.setdefault(m.group("arg"), []).append(src)
        elif path.suffix == ".py" and src.startswith("paper-to-code/"):
            # notebook pages show a figure in a code cell tagged fig:<id>
            for m in hooklib.RE_NOTEBOOK_FIGURE.finditer(path.read_text(encoding="utf-8")):
                refs.setdefault(m.group("id"), []).append(src)
    return refs


#: The tallest a figure may be for its width: a desktop's at most two page-wide panels stacked;
#: a phone's (panels one under the other) at most about one screen of a 360 x 760 phone.
MAX_ASPECT = {"wide": 2.0, "narrow": 3.2}
#: matplotlib writes a glyph's scale with six decimals (its SVG writer's number format), so a
#: size read back may fall short of the one set by up to 5e-7 x 100 points per em.
SIZE_ROUNDING_PT = 1e-4


@pytest.mark.parametrize("width", sorted(figures.COLUMNS))
@pytest.mark.parametrize("fig_id", IDS)
def test_figure_renders_deterministically(fig_id, width, site_dir, other_process_svgs):
    """The build's SVG (drawn in the MkDocs process) equals one drawn by another process, for
    the desktop and for the phone."""
    name = figures.file_stem(fig_id, width) + ".svg"
    data = (site_dir / "figures" / name).read_bytes()
    assert len(data) > 2000, f"{name}: SVG of only {len(data)} bytes"
    root = ElementTree.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    svg_width = float(root.get("width").removesuffix("pt"))
    height = float(root.get("height").removesuffix("pt"))
    column = figures.COLUMNS[width] * 72
    assert 3 * 72 <= svg_width <= column + 0.5, f"{name}: {svg_width} pt wide"
    aspect = height / svg_width
    assert 0.25 <= aspect <= MAX_ASPECT[width], f"{name}: aspect height/width = {aspect:.2f}"
    assert b"<dc:date>" not in data, "the SVG carries a date"
    _, sizes = figures.svg_text_sizes(data)
    assert min(sizes) >= figures.MIN_TEXT_PT - SIZE_ROUNDING_PT, f"{name}: {min(sizes)} pt text"
    other = (other_process_svgs / name).read_bytes()
    if data != other:
        first = next(
            (i for i, (a, b) in enumerate(zip(data, other, strict=False)) if a != b),
            min(len(data), len(other)),
        )
        pytest.fail(f"{name}: two renders differ (first difference at byte {first})")


@pytest.mark.parametrize("fig_id", IDS)
def test_alt_text_and_caption(fig_id):
    spec = REGISTRY[fig_id]
    alt, caption = spec.alt.strip(), spec.caption.strip()
    assert len(alt.split()) >= 10, f"{fig_id}: alt text too short to describe the plot: {alt!r}"
    assert len(caption.split()) >= 8, f"{fig_id}: caption too short: {caption!r}"
    assert alt != caption
    assert not re.match(r"(?i)(figure|image|picture|plot) (of|showing)\b", alt), alt
    assert caption.rstrip(")").endswith((".", "!", "?")), (
        f"{fig_id}: caption ends {caption[-20:]!r}"
    )
    assert spec.source().lstrip().startswith("@register("), "source() should show the decorator"


def test_every_figure_is_shown_on_its_page_exactly_once():
    refs = page_references()
    problems = []
    for fig_id in IDS:
        pages = [hooklib.page_stem(src) for src in refs.get(fig_id, [])]
        if pages != [REGISTRY[fig_id].page]:
            problems.append(f"{fig_id} (page {REGISTRY[fig_id].page}) is inserted on {pages}")
    unknown = sorted(set(refs) - set(REGISTRY))
    assert not unknown, f"pages insert unregistered figures: {unknown}"
    assert not problems, "\n".join(problems)


def test_figure_modules_are_named_after_existing_pages():
    pages = {hooklib.page_stem(p.relative_to(DOCS).as_posix()) for p in DOCS.rglob("*.md")}
    pages |= {hooklib.page_stem(p.relative_to(DOCS).as_posix()) for p in DOCS.glob("*/*.py")}
    modules = {spec.func.__module__ for spec in REGISTRY.values()}
    assert modules == {f"rope_explained.figures.{m}" for m in figures.MODULES}
    orphans = sorted({spec.page for spec in REGISTRY.values()} - pages)
    assert not orphans, f"figure modules named after no page: {orphans}"


@pytest.fixture
def cheapest_figure() -> str:
    return min(IDS, key=lambda i: (len(repr(REGISTRY[i].kwargs)), i))


# The text of a figure: read back from its SVG, and kept readable -------------------------------


def _svg_of(fig) -> bytes:
    buf = io.BytesIO()
    with figures.style_context():
        fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    return buf.getvalue()


def test_svg_text_sizes_reads_the_size_of_every_glyph():
    """A label of 10 pt and one of 20 pt whose superscript mathtext draws at 0.7 of it."""
    fig = Figure(figsize=(4, 3))
    fig.text(0.1, 0.5, "ab", fontsize=10)
    fig.text(0.5, 0.5, r"$10^{2}$", fontsize=20)
    width, sizes = figures.svg_text_sizes(_svg_of(fig))
    assert width == pytest.approx(4 * 72)
    assert sorted({round(s, 6) for s in sizes}) == pytest.approx([10.0, 14.0, 20.0])
    assert len(sizes) == 2 + 3  # one glyph a character: "a", "b"; "1", "0", "2"


@pytest.mark.parametrize(
    "bad", [b"not xml", "<html/>", b'<svg xmlns="http://www.w3.org/2000/svg"/>', 3]
)
def test_svg_text_sizes_refuses_what_is_not_a_matplotlib_svg(bad):
    with pytest.raises(ValueError, match="svg must be"):
        figures.svg_text_sizes(bad)


def test_fit_text_enlarges_small_text_and_thins_crowded_ticks():
    labels = [f"t{i}" for i in range(40)]
    with figures.style_context(), figures.column("narrow"):
        fig, ax = figures.new_figure(width=7.2, height=4.0)
        ax.plot(range(40), range(40))
        ax.set_xticks(range(40), labels, fontsize=6)
        ax.set_title("a title long enough that it cannot fit on one line of a phone's figure")
        for i in range(40):
            ax.text(i, i, f"{i:.2f}", fontsize=5)  # numbers in cells that cannot fit
        figures.fit_text(fig)
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        shown = [t for t in ax.get_xticklabels() if t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in shown]
    assert fig.get_figwidth() == pytest.approx(figures.COLUMNS["narrow"])
    assert 2 <= len(shown) < 40
    assert all(b0.x1 <= b1.x0 for b0, b1 in zip(boxes, boxes[1:], strict=False)), "overlap"
    assert all(t.get_fontsize() >= figures.MIN_TEXT_PT for t in shown)
    assert not any(t.get_visible() for t in ax.texts), "crowded numbers in cells are hidden"
    assert "\n" in ax.get_title()
    _, sizes = figures.svg_text_sizes(_svg_of(fig))
    assert min(sizes) >= figures.MIN_TEXT_PT - SIZE_ROUNDING_PT


def test_fit_text_refuses_a_size_that_is_not_one():
    fig = Figure()
    for bad in (0, -1, 100, float("nan"), "9", True):
        with pytest.raises(ValueError, match="min_pt"):
            figures.fit_text(fig, bad)


@pytest.mark.parametrize(
    ("shape", "kwargs"),
    [((1, 2), {"sharey": True}), ((2, 2), {}), ((1, 4), {"sharex": "col"}), ((3, 1), {})],
)
def test_a_phone_figure_keeps_the_axes_its_function_asked_for(shape, kwargs):
    """Drawn for a phone, the panels are laid out anew but handed back in the same shape, and
    those asked to share an axis share it."""
    with figures.style_context():
        _, wide = figures.new_figure(*shape, **kwargs)
        with figures.column("narrow"):
            fig, narrow = figures.new_figure(*shape, **kwargs)
    assert np.shape(narrow) == np.shape(wide)
    assert fig.get_figwidth() == pytest.approx(figures.COLUMNS["narrow"])
    flat = np.ravel(narrow)
    if kwargs.get("sharey"):
        assert all(ax.get_shared_y_axes().joined(flat[0], ax) for ax in flat)
    if kwargs.get("sharex") == "col":
        assert not flat[0].get_shared_x_axes().joined(flat[0], flat[1])
    plt.close("all")


def test_new_figure_refuses_an_unknown_column():
    with pytest.raises(ValueError, match="width"), figures.column("phone"):
        pass
