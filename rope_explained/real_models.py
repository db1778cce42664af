r"""Experiments on RoPE as released models run it, measured on the hand-built model.

* [`convention_experiment`][]: the weights written for one pairing convention, run under
  the other (the bug of loading a checkpoint into code that pairs its coordinates
  differently, without the conversion's permutation).
* [`rotary_frequencies`][] and [`partial_rotary_sweep`][]: only part of each head
  rotates. ``"neox"`` is GPT-NeoX's partial rotary (the first ``r`` coordinates rotate, with a
  frequency ladder computed for an ``r``-dimensional head); ``"fastest"`` keeps the ``r/2``
  fastest pairs of the full head at their own frequencies and stops the others.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._checks import check_base, check_choice, check_head_dim, check_text, show
from .experiments import InductionPrompt
from .model import DEFAULT, MAX_LETTERS, forward, make_config, predict_last
from .rope import LAYOUTS, frequencies

MAX_EXPERIMENT_PROMPTS = 1000
"""Most prompts one call of [`convention_experiment`][] or [`partial_rotary_sweep`][] runs."""
PARTIAL_VARIANTS = ("neox", "fastest")
"""The two ways of rotating part of a head ([`rotary_frequencies`][])."""
MAX_FRACTIONS = 16
"""Most fractions one [`partial_rotary_sweep`][] runs."""


def other_layout(layout: str) -> str:
    """The pairing convention that is not ``layout`` (``"interleaved"`` or ``"half"``).

    Examples:
        >>> other_layout("half")
        'interleaved'
    """
    layout = check_choice("layout", layout, LAYOUTS)
    return LAYOUTS[1 - LAYOUTS.index(layout)]


def _check_prompts(prompts: object) -> list[InductionPrompt]:
    if not isinstance(prompts, list | tuple) or not 1 <= len(prompts) <= MAX_EXPERIMENT_PROMPTS:
        raise ValueError(
            f"prompts must be a list of 1 to {MAX_EXPERIMENT_PROMPTS} InductionPrompt; "
            f"got {show(prompts)}"
        )
    for i, p in enumerate(prompts):
        if not isinstance(p, InductionPrompt):
            raise ValueError(f"prompts[{i}] must be an InductionPrompt; got {show(p)}")
    return list(prompts)


def _measure(prompts: list[InductionPrompt], text: str, config: dict) -> dict[str, float]:
    """Layer 0 on ``text`` and the predictions on ``prompts`` under one ``config``."""
    A0 = forward(text, **config).A0  # (T, T)
    preds = [predict_last(p.text, **config).prediction for p in prompts]
    previous = np.diag(A0, -1)  # (T-1,) A0[m, m-1]
    return {
        "previous": float(previous.mean()),
        "previous_min": float(previous.min()),
        "itself": float(np.diag(A0)[1:].mean()),
        "accuracy": float(np.mean([q == p.answer for q, p in zip(preds, prompts, strict=True)])),
        "echo": float(np.mean([q == p.text[-1] for q, p in zip(preds, prompts, strict=True)])),
    }


def convention_experiment(prompts: list, text: str, layout: str = "half") -> dict[str, float]:
    r"""The model run under ``layout`` with the weights written for the other convention.

    Measured twice, with the wrong weights and with the right ones (reordered by
    [`interleaved_to_half`][rope_explained.conventions.interleaved_to_half] when ``layout`` is
    ``"half"``):

    * on ``text`` (1 to 8,192 letters, at least two): the previous-token head's mean attention
      on the key one step back, \(A^{(0)}_{m,m-1}\) (``previous``; its smallest value
      ``previous_min``), and on the query's own key, \(A^{(0)}_{m,m}\) (``itself``), over the
      positions \(m \ge 1\);
    * on ``prompts`` (1 to [`MAX_EXPERIMENT_PROMPTS`][] induction prompts): the fraction
      whose top prediction is the right letter ``B`` (``accuracy``) and the fraction whose top
      prediction is the prompt's own last letter (``echo``).

    Returns:
        Those five keys for the wrong weights, and the same five with the suffix ``_right`` for
        the right ones; every value a float in ``[0, 1]``.

    Examples:
        >>> from rope_explained.experiments import induction_prompts
        >>> r = convention_experiment(induction_prompts(2, max_len=20), "abcabc")
        >>> r["accuracy_right"], r["accuracy"]
        (1.0, 0.0)
    """
    layout = check_choice("layout", layout, LAYOUTS)
    _check_text(text, "convention_experiment")
    prompts = _check_prompts(prompts)
    out: dict[str, float] = {}
    for suffix, weights in (("", other_layout(layout)), ("_right", layout)):
        measured = _measure(prompts, text, {"layout": layout, "weights_layout": weights})
        out.update({key + suffix: v for key, v in measured.items()})
    return out


def _check_text(text: object, who: str) -> str:
    text = check_text("text", text, MAX_LETTERS, unit="letters", who=who)
    if len(text) < 2:
        raise ValueError(f"text must have at least 2 letters (a previous token); got {text!r}")
    return text


def _rotary_dims(fraction: object, d: int, name: str = "fraction") -> int:
    """``int(d * fraction)`` for a fraction in ``(0, 1]`` that makes it even and at least 2."""
    ok = isinstance(fraction, numbers.Real) and not isinstance(fraction, bool)
    r = int(d * float(fraction)) if ok and 0.0 < float(fraction) <= 1.0 else -1
    if r < 2 or r % 2:
        raise ValueError(
            f"{name} must be a number in (0, 1] with int({d} * {name}) even and at least 2; "
            f"got {show(fraction)}"
        )
    return r


def _partial_config(fraction: float, variant: str, d: int, base: float) -> dict:
    """The model settings of one partial-rotary head (see [`rotary_frequencies`][])."""
    r = _rotary_dims(fraction, d)
    pct = r / d
    # "fastest": an r-dimensional ladder with base**(r/d) is base**(-2i/d), i < r/2: the
    # full head's r/2 fastest frequencies, unchanged.
    return {"d": d, "rotary_pct": pct, "base": base**pct if variant == "fastest" else base}


def rotary_frequencies(
    fraction: float, variant: str = "neox", d: int = DEFAULT.d, base: float = DEFAULT.base
) -> np.ndarray:
    r"""The frequency each pair of a head turns at when only a ``fraction`` of it rotates.

    \(r = \mathrm{int}(d \cdot \mathtt{fraction})\) coordinates rotate (even, at least 2); the
    other \(d - r\) never turn, frequency 0. ``variant`` says at which frequencies:

    * ``"neox"`` (GPT-NeoX, Pythia, Hugging Face's ``partial_rotary_factor``): the first
      \(r\) coordinates form a head of their own, \(\theta_i = \mathrm{base}^{-2i/r}\) for
      \(i < r/2\): the same span from 1 down to almost \(1/\mathrm{base}\), in fewer steps;
    * ``"fastest"``: the \(r/2\) fastest pairs of the full head keep their frequencies
      \(\mathrm{base}^{-2i/d}\), \(i < r/2\), and the slow ones stop.

    Args:
        fraction: in ``(0, 1]``.
        variant: one of [`PARTIAL_VARIANTS`][].
        d: head dimension, even, in ``[2, 4096]``.
        base: frequency base, in ``(1, 1e12]``.

    Returns:
        Array of shape ``(d/2,)``: the rotating pairs first, fastest first, then zeros.

    Examples:
        >>> rotary_frequencies(0.5, "neox", d=8)
        array([1.  , 0.01, 0.  , 0.  ])
        >>> rotary_frequencies(0.5, "fastest", d=8)
        array([1. , 0.1, 0. , 0. ])
    """
    d = check_head_dim(d)
    base = check_base(base)
    variant = check_choice("variant", variant, PARTIAL_VARIANTS)
    r = _rotary_dims(fraction, d)
    theta = np.zeros(d // 2)
    theta[: r // 2] = frequencies(r, base) if variant == "neox" else frequencies(d, base)[: r // 2]
    return theta


def partial_rotary_sweep(
    prompts: list, text: str, fractions=(1.0, 0.5, 0.25, 0.125, 0.0625), variant: str = "neox"
) -> dict[str, np.ndarray]:
    r"""The model with only part of each head rotating, for each of ``fractions``.

    Each fraction (in ``(0, 1]``, with ``int(64 * fraction)`` even and at least 2; 1 to
    [`MAX_FRACTIONS`][] of them) builds the site's model (``d = 64``) whose heads rotate
    \(r = \mathrm{int}(64 \cdot \mathtt{fraction})\) coordinates at the frequencies of
    [`rotary_frequencies`][] for ``variant``; the hand-built heads are written for that
    rotation. Measured: the previous-token head's attention on the key one step back over
    ``text`` (1 to 8,192 letters, at least two), its mean and its minimum, and the induction
    accuracy on ``prompts`` (1 to [`MAX_EXPERIMENT_PROMPTS`][] induction prompts).

    Returns:
        ``{"rotary_dims", "previous", "previous_min", "accuracy"}``, arrays of shape
        ``(len(fractions),)`` (``rotary_dims`` of integers).
    """
    variant = check_choice("variant", variant, PARTIAL_VARIANTS)
    _check_text(text, "partial_rotary_sweep")
    prompts = _check_prompts(prompts)
    if not isinstance(fractions, list | tuple) or not 1 <= len(fractions) <= MAX_FRACTIONS:
        raise ValueError(
            f"fractions must be a list of 1 to {MAX_FRACTIONS} numbers in (0, 1]; "
            f"got {show(fractions)}"
        )
    dims = [_rotary_dims(f, 64, f"fractions[{i}]") for i, f in enumerate(fractions)]
    rows = []
    for r in dims:
        config = _partial_config(r / 64, variant, 64, 10000.0)
        make_config(**config)
        rows.append(_measure(prompts, text, config))
    return {
        "rotary_dims": np.array(dims),
        **{key: np.array([row[key] for row in rows]) for key in ("previous", "previous_min")},
        "accuracy": np.array([row["accuracy"] for row in rows]),
    }
