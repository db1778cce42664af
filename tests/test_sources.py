"""Statements about libraries are tied to a version: the versions in ``rope_explained.sources``
are the ones the project installs (the conformance group's pins, ``uv.lock``), every cited range
is a permalink at that version's tag, the pages link it through the value macros (no version or
library address typed into a page), and every paragraph that says what a library's code does
carries at least one such link. (That each range still holds its code is checked against the
installed library by the conformance group, tests/conformance/test_sources.py.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import ml_dtypes
import pytest
from pages import value

from rope_explained import figures
from rope_explained.sources import LIBRARIES, SOURCES, library_version, source_link

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "reference" not in p.parts)
RE_SRC_VALUE = re.compile(
    r"\{\{\s*value\(\s*\"(?P<id>[a-z0-9-]+-src-(?P<key>[a-z0-9-]+))\"\s*\)\s*\}\}"
)

figures.load_all()


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;\\]+)", line)
        if m:
            pins[m.group(1).lower().replace("_", "-")] = m.group(2)
    return pins


def test_the_stated_versions_are_the_pinned_ones():
    for lock in ("conformance.in", "conformance.txt"):
        pins = _pins(ROOT / "requirements" / lock)
        assert pins["transformers"] == library_version("transformers"), lock
        assert pins["torch"].split("+")[0] == library_version("torch"), lock
        assert pins["torch"].endswith("+cpu"), f"{lock}: the CPU build of torch"
        assert pins["ml-dtypes"] == library_version("ml_dtypes"), lock
    locked = tomllib.loads((ROOT / "uv.lock").read_text())["package"]
    assert {p["version"] for p in locked if p["name"] == "ml-dtypes"} == {
        library_version("ml_dtypes")
    }
    assert ml_dtypes.__version__ == library_version("ml_dtypes")
    for key, lib in LIBRARIES.items():
        # a version's tag, or the commit of a repository without tags
        assert lib.tag in (lib.version, f"v{lib.version}") or re.fullmatch(
            r"[0-9a-f]{40}", lib.tag
        ), key
        if re.fullmatch(r"[0-9a-f]{40}", lib.tag):
            assert lib.version == f"commit {lib.tag[:7]}", key


@pytest.mark.parametrize("key", sorted(SOURCES))
def test_each_source_is_a_permalink_with_its_lines(key):
    src = SOURCES[key]
    lib = LIBRARIES[src.library]
    assert 1 <= src.first <= src.last and src.holds.strip()
    lines = f"L{src.first}" + ("" if src.first == src.last else f"-L{src.last}")
    assert src.url == f"https://github.com/{lib.repo}/blob/{lib.tag}/{src.path}#{lines}"
    text = source_link(key)
    assert text.endswith(f"]({src.url})") and f"{lib.name} {lib.version}," in text


def test_source_link_refuses_unknown_keys_and_empty_labels():
    with pytest.raises(ValueError, match="key"):
        source_link("no-such-source")
    with pytest.raises(ValueError, match="label"):
        source_link("hf-rotate-half", label=" ")
    with pytest.raises(ValueError, match="key"):
        library_version("numpy")


def test_the_pages_link_each_source_through_its_value():
    seen = set()
    for page in PAGES:
        for m in RE_SRC_VALUE.finditer(page.read_text()):
            assert value(m.group("id")) == source_link(m.group("key")), m.group("id")
            seen.add(m.group("key"))
    # the sources kept for the record only: none
    assert seen == set(SOURCES) - {"hf4-pad-positions"}


RE_TYPED = re.compile(
    r"github\.com/(?:"
    + "|".join(re.escape(lib.repo) for lib in LIBRARIES.values())
    + r")|\b(?:transformers|torch|PyTorch|ml_dtypes)\s+v?\d+\.\d+"
)


def test_no_page_types_a_library_version_or_address():
    for page in [*PAGES, *DOCS.rglob("*.py")]:
        if "hooks" in page.parts:
            continue
        for n, line in enumerate(page.read_text().splitlines(), 1):
            assert not RE_TYPED.search(line), f"{page.relative_to(ROOT)}:{n}: {line.strip()}"


# A paragraph that says what a library's code does names the code by one of these.
RE_LIBRARY_CODE = re.compile(
    r"Hugging Face's (?:generation|port|script|Llama|`)|Hugging Face port|"
    r"Meta's reference|Meta's `|Meta upcasts|`transformers`|transformers'"
)
# History, cited by its pull request or issue number (no version's code is described).
RE_HISTORY = re.compile(r"PR #\d+|issue #\d+")


def _paragraphs(text: str):
    """The paragraphs of a page: blocks between blank lines, each list item and each table row
    on its own."""
    block: list[str] = []
    lines = [*text.splitlines(), ""]
    for i, line in enumerate(lines):
        is_row = line.lstrip().startswith("|")
        if is_row and i + 1 < len(lines) and re.fullmatch(r"\s*\|[\s|:-]+\|\s*", lines[i + 1]):
            continue  # a table's header names its columns; it states nothing
        if re.match(r"\s*(?:[*-]|\d+\.)\s", line) and block:
            yield " ".join(block)
            block = []
        if not line.strip() or is_row:
            if block:
                yield " ".join(block)
                block = []
            if is_row:
                yield line
        else:
            block.append(line.strip())


def test_every_paragraph_about_a_librarys_code_links_its_source():
    missing = []
    for page in PAGES:
        for para in _paragraphs(page.read_text()):
            if RE_LIBRARY_CODE.search(para) and not RE_SRC_VALUE.search(para):
                if RE_HISTORY.search(para):
                    continue
                missing.append(f"{page.relative_to(ROOT)}: {para[:100]}")
    assert not missing, "\n".join(missing)


def test_the_paragraph_check_finds_an_unlinked_statement():
    text = (
        'Intro.\n\n* Meta\'s reference code does X.\n* Other, with a link {{ value("a-src-b") }}.\n'
    )
    paras = list(_paragraphs(text))
    assert paras == [
        "Intro.",
        "* Meta's reference code does X.",
        '* Other, with a link {{ value("a-src-b") }}.',
    ]
    flagged = [p for p in paras if RE_LIBRARY_CODE.search(p) and not RE_SRC_VALUE.search(p)]
    assert flagged == ["* Meta's reference code does X."]


def test_make_test_leaves_the_conformance_group_out():
    """`make test` runs pytest with pyproject.toml's options, which recurse into tests/ but
    ignore tests/conformance/ (its modules import torch and transformers, which only the
    group's own environment has); `make conformance` runs it with its own configuration."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "tests" in options["testpaths"]
    assert "--ignore=tests/conformance" in options["addopts"].split()
    group = ROOT / "tests" / "conformance"
    assert (group / "pytest.ini").is_file()
    makefile = (ROOT / "Makefile").read_text()
    assert "pytest -c tests/conformance/pytest.ini" in makefile
    for module in group.glob("test_*.py"):
        text = module.read_text()
        assert re.search(r"^import (torch|transformers)$", text, re.M), module.name
    # the CI job of its own installs the same lock and runs the same target
    ci = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "make conformance TORCH_INDEX=https://download.pytorch.org/whl/cpu" in ci
