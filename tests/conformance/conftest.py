"""The conformance group: every test here runs a real library against the package.

Each test is marked ``conformance``. The group needs torch and transformers at the versions
pinned in ``requirements/conformance.in`` (the versions the pages state, from
``rope_explained.sources``); outside the group's environment, collection stops with an error
rather than skipping, so that no check is counted as passed without having run.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.conformance)
