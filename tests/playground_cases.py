"""Reference traces for the playground's parity tests.

The playground recomputes the forward pass of :func:`rope_explained.model.forward` in the
reader's browser. This module says what it must reproduce: a set of prompts and settings
(:func:`reference_cases`) and, for each, the package's own attention patterns, scores and
next-letter probabilities (:func:`reference_trace`), written to JSON by
:func:`export_reference`. The tests run the page's JavaScript on the same cases in Chromium and
require agreement to 1e-9. The playground's last-position view is checked the same way against
:func:`rope_explained.model.predict_last` on :func:`last_position_cases`.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np

from rope_explained.examples import (
    ALPHA_RANGE,
    BASE_RANGE,
    FACTOR,
    FACTOR_RANGE,
    HEATMAP_MAX_LETTERS,
    LAST_POSITION_MAX_LETTERS,
    LONG_MODE_PROMPT,
    LONG_PROMPT,
    OPENING_PROMPT,
    ORIGINAL_MAX_POSITION,
    ORIGINAL_MAX_POSITION_RANGE,
    RANK1_FAILS_PROMPT,
)
from rope_explained.heads import HEADS
from rope_explained.model import forward
from rope_explained.rope import SCALING_METHODS

#: Settings every short prompt is checked under: both heads, and alpha and base at both ends of
#: the playground's sliders and in between.
ALPHAS = (ALPHA_RANGE[0], 1.0, 10.0, ALPHA_RANGE[1])
BASES = (BASE_RANGE[0], 10000.0, BASE_RANGE[1])
#: Factors every context-extension method is checked at: both ends of the playground's slider,
#: its starting value and one that is not a power of two.
FACTORS = (FACTOR_RANGE[0], 2.5, FACTOR, FACTOR_RANGE[1])


def scaled(method: str, factor: float, original_max_position: int) -> dict:
    """The settings of one context extension."""
    return {"scaling": method, "factor": factor, "original_max_position": original_max_position}


def _random_letters(n: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    return "".join(chr(97 + int(i)) for i in rng.integers(0, 26, size=n))


def reference_prompts() -> list[str]:
    """The prompts of the reference set, from one letter to :data:`HEATMAP_MAX_LETTERS` letters."""
    return [
        OPENING_PROMPT,
        RANK1_FAILS_PROMPT,
        "a",
        "abcab",
        "zzzzzzzz",
        "mississippimississip",
        _random_letters(64, seed=1),
        LONG_PROMPT,
        _random_letters(HEATMAP_MAX_LETTERS, seed=2),
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
    return cases + scaling_cases()


def scaling_cases() -> list[dict]:
    """Every method of :data:`~rope_explained.rope.SCALING_METHODS` at every factor of
    :data:`FACTORS`, on a short prompt with a context ``L`` shorter than it (so that dynamic
    NTK acts), on the 256-letter prompt with the smallest ``L`` of the playground's slider
    (and, at the starting factor, the largest), under both heads and at the ends of the alpha
    and base sliders."""
    cases = []
    for method, factor in itertools.product(SCALING_METHODS, FACTORS):
        cases.append({"text": OPENING_PROMPT, "config": scaled(method, factor, 8)})
        for L in ORIGINAL_MAX_POSITION_RANGE:
            if L == ORIGINAL_MAX_POSITION_RANGE[0] or factor == FACTOR:
                cases.append({"text": LONG_PROMPT, "config": scaled(method, factor, L)})
        cases.append(
            {
                "text": RANK1_FAILS_PROMPT,
                "config": {"head": "rank1", "alpha": ALPHA_RANGE[1], "base": BASE_RANGE[0]}
                | scaled(method, factor, 4),
            }
        )
        cases.append(
            {
                "text": "mississippimississip",
                "config": {"alpha": ALPHA_RANGE[0], "base": BASE_RANGE[1]}
                | scaled(method, factor, 16),
            }
        )
    return cases


def last_position_cases() -> list[dict]:
    """Cases of the last-position view (``predict_last``): the 4,096-letter prompt with no
    scaling and with every method at the playground's starting factor and context, and at low
    alpha (where the page's script takes its FFT path); every method
    at both ends of the factor slider on a 600-letter text (beyond the smallest context); the
    ends of the alpha and base sliders under both heads; and short texts."""
    cases = [{"text": LONG_MODE_PROMPT, "config": {}}]
    for method in SCALING_METHODS:
        cases.append(
            {"text": LONG_MODE_PROMPT, "config": scaled(method, FACTOR, ORIGINAL_MAX_POSITION)}
        )
    # low alpha: many layer-0 weights count, and the JavaScript sums them by FFT
    cases.append({"text": LONG_MODE_PROMPT, "config": {"alpha": ALPHA_RANGE[0]}})
    cases.append({"text": LONG_MODE_PROMPT, "config": {"alpha": 1.0} | scaled("yarn", FACTOR, 512)})
    text = LONG_MODE_PROMPT[-600:]
    for method, factor in itertools.product(SCALING_METHODS, (FACTOR_RANGE[0], FACTOR_RANGE[1])):
        cases.append(
            {"text": text, "config": scaled(method, factor, ORIGINAL_MAX_POSITION_RANGE[0])}
        )
    for head in HEADS:
        for alpha, base in ((ALPHA_RANGE[0], BASE_RANGE[0]), (ALPHA_RANGE[1], BASE_RANGE[1])):
            cases.append({"text": text, "config": {"head": head, "alpha": alpha, "base": base}})
    cases += [
        {"text": "a", "config": {}},
        {"text": OPENING_PROMPT, "config": scaled("yarn", 2.5, 8)},
        {"text": "qxzqx", "config": {"bos": False, "offset": 2}},
    ]
    if max(len(c["text"]) for c in cases) != LAST_POSITION_MAX_LETTERS:
        raise AssertionError("the last-position cases must reach the playground's longest text")
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
    which keeps the file near ten megabytes while still covering the long prompts.

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
