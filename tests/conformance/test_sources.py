"""The libraries installed here are the versions the pages state, and every range of lines
the pages cite from an installed library holds the code it is cited for (the line numbers of
an installed file are those of the file at the version's tag)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import transformers

from rope_explained.sources import LIBRARIES, SOURCES


def test_the_installed_versions_are_the_stated_ones():
    assert transformers.__version__ == LIBRARIES["transformers"].version
    assert torch.__version__.split("+")[0] == LIBRARIES["torch"].version
    assert torch.__version__.endswith("+cpu")  # the CPU build: no CUDA libraries installed
    assert LIBRARIES["transformers"].tag == f"v{transformers.__version__}"


@pytest.mark.parametrize("key", [k for k, s in SOURCES.items() if s.library == "transformers"])
def test_each_cited_range_of_transformers_holds_its_code(key):
    src = SOURCES[key]
    assert src.path.startswith("src/transformers/")
    root = Path(transformers.__file__).parent
    lines = (root / src.path.removeprefix("src/transformers/")).read_text().splitlines()
    assert 1 <= src.first <= src.last <= len(lines)
    cited = " ".join(line.strip() for line in lines[src.first - 1 : src.last])
    assert src.holds in cited, f"{key}: lines {src.first}-{src.last} no longer hold {src.holds!r}"
    # the range is tight: it starts and ends on code, not on blank lines
    assert lines[src.first - 1].strip() and lines[src.last - 1].strip()
