"""Every registered figure renders, deterministically, with real alt text and a caption; every
figure is shown by exactly one page, the page its module is named after; the figure cache
renders only what changed, and its key covers exactly the code a figure depends on."""

from __future__ import annotations

import re
import shutil
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


def test_cache_renders_once_and_again_after_a_change(tmp_path, cheapest_figure, monkeypatch):
    fig_id = cheapest_figure
    data1, rendered1 = figures.render_cached(fig_id, tmp_path)
    data2, rendered2 = figures.render_cached(fig_id, tmp_path)
    assert (rendered1, rendered2) == (True, False)
    assert data1 == data2
    assert len(list(tmp_path.glob(f"{fig_id}-*.svg"))) == 1
    monkeypatch.setattr(figures, "source_hash", lambda module: "changed")
    data3, rendered3 = figures.render_cached(fig_id, tmp_path)
    assert rendered3 and data3 == data1
    files = list(tmp_path.glob(f"{fig_id}-*.svg"))
    assert len(files) == 1, f"stale cache entries kept: {files}"
    assert files[0].name == f"{fig_id}-{figures.cache_key(REGISTRY[fig_id])}.svg"


def test_cache_key_covers_the_code_a_figure_depends_on(tmp_path, monkeypatch):
    """Editing the model changes the key of every figure that runs it; editing one page's
    figure module, or a module no figure imports, changes nothing else."""
    copy = tmp_path / "rope_explained"
    shutil.copytree(figures.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(figures, "PACKAGE_DIR", copy)
    keys = {i: figures.cache_key(REGISTRY[i]) for i in IDS}
    deps = {i: figures.module_dependencies(REGISTRY[i].func.__module__) for i in IDS}
    uses_model = {i for i in IDS if "rope_explained.model" in deps[i]}
    assert uses_model and uses_model != set(IDS), "some figures run the model, some do not"

    monkeypatch.setattr(figures, "SOURCE_HASH_FILE", tmp_path / "source-hashes.json")
    monkeypatch.setattr(figures, "_SOURCE_HASHES", {})
    keys = {i: figures.cache_key(REGISTRY[i]) for i in IDS}  # computed, and stored

    def edited(rel: str):
        path = copy / rel
        path.write_text(path.read_text() + "\n# edited\n")
        try:
            figures._SOURCE_HASHES.clear()  # as in a new process: only the stored hashes
            return {i for i in IDS if figures.cache_key(REGISTRY[i]) != keys[i]}
        finally:
            path.write_text(path.read_text().removesuffix("\n# edited\n"))

    assert edited("model.py") == uses_model
    page_module = REGISTRY["rope-frequencies"].func.__module__
    assert edited("figures/equations/rope.py") == {
        i for i in IDS if REGISTRY[i].func.__module__ == page_module
    }
    (copy / "unrelated.py").write_text("x = 1\n")
    assert {i for i in IDS if figures.cache_key(REGISTRY[i]) != keys[i]} == set()
    assert edited("figures/__init__.py") == set(IDS), "the registry and renderer count for all"
    # a new process with nothing edited since reads the stored hashes, not the import graph
    figures._SOURCE_HASHES.clear()
    assert {i: figures.cache_key(REGISTRY[i]) for i in IDS} == keys  # the edits undone
    figures._SOURCE_HASHES.clear()
    monkeypatch.setattr(figures, "module_dependencies", lambda module: 1 / 0)
    assert {i: figures.cache_key(REGISTRY[i]) for i in IDS} == keys
