"""Every registered figure renders, deterministically, with real alt text and a caption; every
figure is shown by exactly one page; the build's figure cache renders only what changed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from rope_explained import docs_build, figures

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REGISTRY = figures.load_all()
IDS = sorted(REGISTRY)
#: The style's page width (7.2 in = 518.4 pt): a wider figure would be shrunk on the page and
#: its text with it.
PAGE_WIDTH_PT = 7.2 * 72
RE_SHOW = re.compile(r"""\bshow\(\s*["']([a-z0-9-]+)["']""")


def page_references() -> dict[str, list[str]]:
    """Figure id -> the docs pages that insert it (Markdown pages and notebook pages)."""
    refs: dict[str, list[str]] = {}
    for path in sorted(DOCS.rglob("*")):
        src = path.relative_to(DOCS).as_posix()
        if path.suffix == ".md":
            lines = path.read_text(encoding="utf-8").split("\n")
            for _, line in docs_build._outside_code(lines):
                for m in docs_build.RE_MACRO.finditer(line):
                    if m.group("name") == "figure":
                        refs.setdefault(m.group("arg"), []).append(src)
        elif path.suffix == ".py" and src.startswith("paper-to-code/"):
            # notebook pages show figures with rope_explained.figures.paper.show("id", k)
            for fig_id in RE_SHOW.findall(path.read_text(encoding="utf-8")):
                refs.setdefault(fig_id, []).append(src)
    return refs


@pytest.fixture(scope="module")
def other_process_svgs(tmp_path_factory) -> Path:
    """Every figure rendered by a separate Python process with another hash seed."""
    out = tmp_path_factory.mktemp("figures-other-process")
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, "-m", "rope_explained.figures", "--out", str(out)],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=1800,
    )
    return out


@pytest.mark.parametrize("fig_id", IDS)
def test_figure_renders_deterministically(fig_id, other_process_svgs):
    data = figures.render_bytes(fig_id, "svg")
    assert len(data) > 2000, f"{fig_id}: SVG of only {len(data)} bytes"
    root = ElementTree.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    width = float(root.get("width").removesuffix("pt"))
    height = float(root.get("height").removesuffix("pt"))
    assert 3 * 72 <= width <= PAGE_WIDTH_PT + 0.5, f"{fig_id}: {width} pt wide"
    assert 0.25 <= height / width <= 1.5, f"{fig_id}: aspect height/width = {height / width:.2f}"
    assert b"<dc:date>" not in data, "the SVG carries a date"
    other = (other_process_svgs / f"{fig_id}.svg").read_bytes()
    assert data == other, (
        f"{fig_id}: two renders differ (first difference at byte "
        + str(
            next(i for i, (a, b) in enumerate(zip(data, other, strict=False)) if a != b)
            if any(a != b for a, b in zip(data, other, strict=False))
            else min(len(data), len(other))
        )
        + ")"
    )


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
        pages = refs.get(fig_id, [])
        if pages != [REGISTRY[fig_id].page]:
            problems.append(f"{fig_id} (page={REGISTRY[fig_id].page}) is inserted on {pages}")
    unknown = sorted(set(refs) - set(REGISTRY))
    assert not unknown, f"pages insert unregistered figures: {unknown}"
    assert not problems, "\n".join(problems)


@pytest.fixture
def cheapest_figure() -> str:
    return min(IDS, key=lambda i: (len(repr(REGISTRY[i].kwargs)), i))


def test_cache_renders_once_and_again_after_a_change(tmp_path, cheapest_figure):
    fig_id = cheapest_figure
    pkg = figures.package_hash()
    data1, rendered1 = docs_build.render_figure_cached(fig_id, tmp_path, pkg)
    data2, rendered2 = docs_build.render_figure_cached(fig_id, tmp_path, pkg)
    assert (rendered1, rendered2) == (True, False)
    assert data1 == data2
    assert len(list(tmp_path.glob(f"{fig_id}-*.svg"))) == 1
    changed = "0" * len(pkg) if pkg != "0" * len(pkg) else "1" * len(pkg)
    data3, rendered3 = docs_build.render_figure_cached(fig_id, tmp_path, changed)
    assert rendered3 and data3 == data1
    files = list(tmp_path.glob(f"{fig_id}-*.svg"))
    assert len(files) == 1, f"stale cache entries kept: {files}"
    assert files[0].name == f"{fig_id}-{figures.cache_key(REGISTRY[fig_id], changed)}.svg"


def test_package_hash_follows_the_source(tmp_path, monkeypatch, cheapest_figure):
    copy = tmp_path / "rope_explained"
    shutil.copytree(figures.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(figures, "PACKAGE_DIR", copy)
    before = figures.package_hash()
    assert figures.package_hash() == before
    key_before = figures.cache_key(REGISTRY[cheapest_figure])
    rope = copy / "rope.py"
    rope.write_text(rope.read_text() + "\n# changed\n")
    assert figures.package_hash() != before
    assert figures.cache_key(REGISTRY[cheapest_figure]) != key_before
    (copy / "figures" / "notes.txt").write_text("not source")
    rope.write_text(rope.read_text().removesuffix("\n# changed\n"))
    assert figures.package_hash() == before, "only .py and .mplstyle files count"
