"""Reference traces for the playground's parity tests.

The playground recomputes the forward pass of :func:`rope_explained.model.forward` in the
reader's browser. This module says what it must reproduce: a set of prompts and settings
(:func:`reference_cases`) and, for each, the package's own attention patterns, scores and
next-letter probabilities (:func:`reference_trace`), written to JSON by
:func:`export_reference`. The tests run the page's JavaScript on the same cases in Chromium and
require agreement to 1e-9.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from rope_explained.examples import (
    ALPHA_RANGE,
    BASE_RANGE,
    LONG_PROMPT,
    MAX_LETTERS,
    OPENING_PROMPT,
    RANK1_FAILS_PROMPT,
)
from rope_explained.heads import HEADS
from rope_explained.model import forward

#: Settings every short prompt is checked under: both heads, and alpha and base at both ends of
#: the playground's sliders and in between.
ALPHAS = (ALPHA_RANGE[0], 1.0, 10.0, ALPHA_RANGE[1])
BASES = (BASE_RANGE[0], 10000.0, BASE_RANGE[1])


def _random_letters(n: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    return "".join(chr(97 + int(i)) for i in rng.integers(0, 26, size=n))


def reference_prompts() -> list[str]:
    """The prompts of the reference set, from one letter to :data:`MAX_LETTERS` letters."""
    return [
        OPENING_PROMPT,
        RANK1_FAILS_PROMPT,
        "a",
        "abcab",
        "zzzzzzzz",
        "mississippimississip",
        _random_letters(64, seed=1),
        LONG_PROMPT,
        _random_letters(MAX_LETTERS, seed=2),
    ]


def reference_cases() -> list[dict]:
    """Prompts times settings: ``[{"text": str, "config": dict}, ...]``.

    Prompts of up to 64 letters run under every combination of :data:`HEADS`,
    :data:`ALPHAS` and :data:`BASES`; the 256-letter prompts under both heads at the extreme
    pairs (the lowest alpha with the lowest base, the highest with the highest, and the
    defaults). A few cases change the settings the page does not expose (``d``, ``offset``,
    ``bos``, ``beta``, ``gamma``), so the JavaScript is checked as a function of every setting.
    """
    cases = []
    for text in reference_prompts():
        if len(text) <= 64:
            for head, alpha, base in itertools.product(HEADS, ALPHAS, BASES):
                cases.append({"text": text, "config": {"head": head, "alpha": alpha, "base": base}})
        else:
            for head in HEADS:
                for alpha, base in (
                    (ALPHA_RANGE[0], BASE_RANGE[0]),
                    (ALPHA_RANGE[1], BASE_RANGE[1]),
                    (10.0, 10000.0),
                ):
                    cases.append(
                        {"text": text, "config": {"head": head, "alpha": alpha, "base": base}}
                    )
    cases += [
        {"text": "abcabd", "config": {"d": 16, "D": 49, "alpha": 3.0}},
        {"text": "abcdeabcd", "config": {"offset": 2, "head": "rank1"}},
        {"text": "qxzqx", "config": {"bos": False}},
        {"text": "thecatthec", "config": {"beta": 10.0, "gamma": 5.0, "base": 500000.0}},
    ]
    return cases


def reference_trace(text: str, rows: list[int] | None = None, **config) -> dict:
    """The package's answer for one case, as plain lists ready for JSON.

    Args:
        text: the prompt (letters a-z).
        rows: query positions to keep in the ``(T, T)`` and ``(T, 26)`` arrays; ``None``
            keeps every row.
        **config: settings of :class:`~rope_explained.model.Config`.

    Returns:
        A dict with ``tokens``, ``rows``, ``prediction`` and the rows of ``scores0``, ``A0``,
        ``scores1``, ``A1`` and ``probs``.
    """
    trace = forward(text, **config)
    T = len(trace.tokens)
    keep = list(range(T)) if rows is None else [int(r) for r in rows]
    bad = [r for r in keep if not 0 <= r < T]
    if bad:
        raise ValueError(f"rows must lie in [0, {T - 1}]; got {bad}")
    return {
        "tokens": trace.tokens,
        "rows": keep,
        "prediction": trace.prediction,
        "scores0": trace.scores0[keep].tolist(),
        "A0": trace.A0[keep].tolist(),
        "scores1": trace.scores1[keep].tolist(),
        "A1": trace.A1[keep].tolist(),
        "probs": trace.probs[keep].tolist(),
    }


def export_reference(path: str | Path, max_full_rows: int = 18) -> Path:
    """Write every reference case with the package's trace to ``path`` as JSON.

    Traces with more than ``max_full_rows`` positions keep every 32nd row and the last two,
    which keeps the file near two megabytes while still covering the long prompts.

    Returns:
        The path written.
    """
    if int(max_full_rows) != max_full_rows or max_full_rows < 1:
        raise ValueError(f"max_full_rows must be a positive integer; got {max_full_rows!r}")
    out = []
    for case in reference_cases():
        T = len(case["text"]) + (1 if case["config"].get("bos", True) else 0)
        rows = None if T <= max_full_rows else sorted(set(range(0, T, 32)) | {T - 2, T - 1})
        out.append({**case, "trace": reference_trace(case["text"], rows=rows, **case["config"])})
    path = Path(path)
    path.write_text(json.dumps({"cases": out}, separators=(",", ":")))
    return path
