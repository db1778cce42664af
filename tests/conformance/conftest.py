"""The conformance group: every test here runs a real library against the package.

Each test is marked ``conformance``. The group needs torch and transformers at the versions
pinned in ``requirements/conformance.in`` (the versions the pages state, from
``rope_explained.sources``); outside the group's environment, collection stops with an error
rather than skipping, so that no check is counted as passed without having run.

The modules:

* ``test_scaling.py``, ``test_layouts.py``, ``test_positions.py``: the package's functions
  against transformers' on the same inputs (the five context-extension schedules, the
  rotate-half code and the weight permutation, the positions of left padding and the document
  mask of packing);
* ``test_sources.py``: the installed versions are the stated ones, and every line range the
  pages cite still holds its code;
* ``hf_config.py`` and ``test_hf_config.py``: a transformers configuration read by
  ``rope_explained.hf.from_config``, the entry point through which tests written against
  transformers run the package, on every rope type and setting of transformers 5;
* ``test_released_configs.py``: the released configurations the package ships, read by the
  models' own configuration classes and rotary modules; ``test_rope_modules.py``: dynamic
  NTK's memory and partial rotary as the modules apply them; ``test_refused.py``: what
  transformers does with each input ``rope_explained.hf.REFUSED`` lists;
* ``test_hf_rope_utils.py``: Hugging Face's own RoPE tests, ported case by case with their
  inputs and tolerances, each run on the package and on transformers. A port of further
  Hugging Face tests goes beside it, one module per test file of theirs, named after it.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.conformance)
