"""Every registered figure renders, deterministically, with real alt text and a caption; every
figure is shown by exactly one page, the page its module is named after. (The build's cache of
figures is tested with the build, in test_docs_build.py.)"""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import pytest

from rope_explained import figures

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REGISTRY = figures.load_all()
IDS = sorted(REGISTRY)
#: The style's page width (7.2 in = 518.4 pt): a wider figure would be shrunk on the page and
#: its text with it.
PAGE_WIDTH_PT = 7.2 * 72


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


@pytest.mark.parametrize("fig_id", IDS)
def test_figure_renders_deterministically(fig_id, site_dir, other_process_svgs):
    """The build's SVG (drawn in the MkDocs process) equals one drawn by another process."""
    data = (site_dir / "figures" / f"{fig_id}.svg").read_bytes()
    assert len(data) > 2000, f"{fig_id}: SVG of only {len(data)} bytes"
    root = ElementTree.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    width = float(root.get("width").removesuffix("pt"))
    height = float(root.get("height").removesuffix("pt"))
    assert 3 * 72 <= width <= PAGE_WIDTH_PT + 0.5, f"{fig_id}: {width} pt wide"
    # at most two panels stacked (each as wide as the page, so labels stay legible on a phone)
    assert 0.25 <= height / width <= 2.0, f"{fig_id}: aspect height/width = {height / width:.2f}"
    assert b"<dc:date>" not in data, "the SVG carries a date"
    other = (other_process_svgs / f"{fig_id}.svg").read_bytes()
    if data != other:
        first = next(
            (i for i, (a, b) in enumerate(zip(data, other, strict=False)) if a != b),
            min(len(data), len(other)),
        )
        pytest.fail(f"{fig_id}: two renders differ (first difference at byte {first})")


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
