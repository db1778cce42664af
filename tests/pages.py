"""What the page tests share: the values pages state, read as numbers, and each page's index.

A page never types a number the package computes: it writes a ``{{ value("id") }}`` macro, which
the build fills in from the value function registered under that id. The tests of each page read
those texts back here, once per session.
"""

from __future__ import annotations

import functools
import inspect
import re
from pathlib import Path

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import numpy as np
from mkdocs.utils.meta import get_data

from rope_explained import figures
from rope_explained.experiments import previous_token_scores

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
VALUES = figures.load_values()
MARKDOWN_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
NOTEBOOK_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.glob("paper-to-code/*.py"))


@functools.cache
def value(value_id: str) -> str:
    """The text a value function computes (once per session)."""
    return figures.get_value(value_id).compute()


RE_TIMES_TEN = re.compile(r"(?P<m>-?[0-9.]+) \\times 10\^\{(?P<e>-?\d+)\}")


def number(text: str) -> float:
    r"""A value's text as a number: ``0.901``, ``47,117``, ``47{,}117``, ``-0.06``,
    ``1.8 \times 10^{-47}`` or ``10^{-14}``."""
    plain = text.replace("{,}", "").replace(",", "")
    if m := RE_TIMES_TEN.fullmatch(plain):
        return float(m.group("m")) * 10.0 ** int(m.group("e"))
    if m := re.fullmatch(r"10\^\{(-?\d+)\}", plain):
        return 10.0 ** int(m.group(1))
    return float(plain)


def value_kwargs(value_id: str) -> dict:
    """The arguments a value function is called with, its defaults included."""
    spec = figures.get_value(value_id)
    bound = inspect.signature(spec.func).bind(**spec.kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def last_digit(text: str) -> float:
    """The size of one unit in the last digit a value prints."""
    plain = text.replace("{,}", "").replace(",", "")
    m = RE_TIMES_TEN.fullmatch(plain)
    mantissa, scale = (m.group("m"), 10.0 ** int(m.group("e"))) if m else (plain, 1.0)
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0**-decimals * scale


def agrees(value_id: str, x: float, rounding: str = "nearest") -> None:
    """Assert that the value prints ``x``: rounded to its last digit, or rounded ``"down"``
    (for "at least ...") or ``"up"`` (for "within ...")."""
    text = value(value_id)
    v, unit = number(text), last_digit(text)
    slack = 1e-9 * max(abs(v), unit)
    if rounding == "nearest":
        ok = abs(v - x) <= unit / 2 + slack
    elif rounding == "down":
        ok = v - slack <= x < v + unit + slack
    else:
        ok = v - unit - slack < x <= v + slack
    assert ok, f"{value_id} prints {text!r}, but the independent computation gives {x!r}"


def page_index(src: str) -> hooklib.PageIndex:
    """The page's index, with the values its figures' captions and alt texts state."""
    raw = (DOCS / src).read_text(encoding="utf-8")
    if src.endswith(".py"):  # a notebook: its figures are the cells tagged fig:<id>
        index = hooklib.scan_notebook(src, raw, 0)
    else:
        text, meta = get_data(raw)
        index, problems = hooklib.scan_page(src, text, meta)
        assert problems == [], problems
    for fig_id in index.figures:
        spec = figures.get(fig_id)
        for part in (spec.caption, spec.alt):
            for m in hooklib.RE_MACRO.finditer(part):
                if m.group("name") == "value":
                    index.values.setdefault(m.group("arg"), f"{src}: {fig_id}")
    return index


def previous_row_weights(m: int, alpha: float, d: int = 64) -> np.ndarray:
    """Layer-0 attention of query m over keys 0..m, from the score formula alone:
    softmax of alpha sum_i cos((n - m + 1) theta_i)."""
    scores = alpha * previous_token_scores(np.arange(m + 1) - m + 1.0, d=d)
    w = np.exp(scores - scores.max())
    return w / w.sum()


def induction_target(text: str) -> int:
    """The key position (with the start token at 0) an induction head should attend to: the one
    after the earlier copy of the last letter."""
    return text.index(text[-1]) + 2
