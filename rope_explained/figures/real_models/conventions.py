r"""Figures of the conventions page (``real-models/conventions.md``).

The hand-built weights under both pairing conventions, from
[`forward`][rope_explained.model.forward] and
[`convention_experiment`][rope_explained.real_models.convention_experiment]; the two listings of
the page ([`rope_complex`][rope_explained.conventions.rope_complex],
[`rope_rotate_half`][rope_explained.conventions.rope_rotate_half]) are run here against
[`apply_rope`][rope_explained.rope.apply_rope].
"""

from __future__ import annotations

import functools

import numpy as np

from ...conventions import rope_complex, rope_rotate_half
from ...examples import LONG_PROMPT
from ...experiments import induction_prompts
from ...model import DEFAULT, forward
from ...real_models import convention_experiment
from ...rope import apply_rope
from ...sources import source_link
from .. import below, register, setting_text, value
from ..style import attention_heatmap, new_figure

PROMPT = "jumpfoxjumpfox"
"""A prompt that repeats itself: the induction case."""
N_PROMPTS = 50
"""How many of the benchmark's prompts (``induction_prompts(1000)``, the first ones) are run."""
TEXT = LONG_PROMPT
"""The text the previous-token head is measured on (256 letters)."""
LISTING = {"seq": 300, "d": 64, "seed": 0}
"""The letters of the listings' check: positions, head size, seed."""


def experiment(layout: str = "half") -> dict[str, float]:
    """The wrong-convention experiment under ``layout``, computed once per process: on the
    first [`N_PROMPTS`][] prompts of the benchmark under rotate-half, on 10 of them for
    the reverse direction (whose page states layer 0 only)."""
    return _experiment(layout, N_PROMPTS if layout == "half" else 10)


@functools.cache
def _experiment(layout: str, n: int) -> dict[str, float]:
    return convention_experiment(induction_prompts(n), TEXT, layout=layout)


ROWS = (
    ({"layout": "half"}, "converted"),
    ({"layout": "half", "weights_layout": "interleaved"}, "not converted"),
)


@register(
    "conventions-patterns",
    caption=r"Both heads on a prompt that repeats itself, run with the rotate-half "
    r"convention. Top: with \(W_q, W_k\) reordered by `interleaved_to_half`, the patterns are "
    r"those of the interleaved model: layer 0 looks one step back, layer 1 draws the induction "
    r"stripe. Bottom: the same weights without the reordering. Layer 0 now attends to the "
    r"query's own position, so the letter it writes as 'previous' is the current one, and "
    r"layer 1 finds the earlier copy of the current letter instead of the letter after it.",
    alt="Four attention heatmaps, query position down, key position across, tokens as labels. "
    "Top left: a bright line just below the diagonal. Top right: in the second half, a bright "
    "stripe six positions left of the diagonal. Bottom left: the bright line is on the "
    "diagonal itself. Bottom right: in the second half, weight split between the diagonal "
    "and a stripe seven positions left of it, one cell further left than the stripe above.",
    prompt=PROMPT,
)
def patterns(prompt: str = PROMPT):
    """Layer-0 and layer-1 patterns with the right and the wrong weights under rotate-half."""
    fig, axes = new_figure(2, 2, width=7.2, height=7.0, narrow=(1, 3.0))
    for row, (config, name) in zip(axes, ROWS, strict=True):
        tr = forward(prompt, **config)
        for ax, A, layer in zip(row, tr.attention, (0, 1), strict=True):
            im = attention_heatmap(ax, A, tr.mask, tokens=tr.tokens)
            ax.tick_params(labelsize=8)
            ax.set_title(f"layer {layer}, weights {name}", fontsize=10.5)
            ax.set_xlabel("key $n$", fontsize=10)
            ax.set_ylabel("query $m$", fontsize=10)
    fig.colorbar(im, ax=axes, label=r"attention $A_{m,n}$", shrink=0.6)
    return fig


# Values the page states ------------------------------------------------------------------------


@value("conventions-n-prompts")
def n_prompts() -> str:
    return str(N_PROMPTS)


def _percent(x: float) -> str:
    return f"{100 * x:.0f}"


@value("conventions-previous-wrong", key="previous")
@value("conventions-itself-wrong", key="itself")
@value("conventions-previous-right", key="previous_right")
def attention_value(key: str = "previous", layout: str = "half") -> str:
    """A layer-0 attention of the experiment, to three decimals."""
    return f"{experiment(layout)[key]:.3f}"


@value("conventions-previous-reverse", key="previous", layout="interleaved")
@value("conventions-itself-reverse", key="itself", layout="interleaved")
def reverse_value(key: str = "previous", layout: str = "interleaved") -> str:
    """The same measure in the other direction (weights for rotate-half, run interleaved)."""
    return f"{experiment(layout)[key]:.3f}"


@value("conventions-accuracy-wrong", key="accuracy")
@value("conventions-accuracy-right", key="accuracy_right")
@value("conventions-echo-wrong", key="echo")
def percent_value(key: str = "accuracy") -> str:
    """A fraction of the prompts, in percent."""
    return _percent(experiment()[key])


@functools.cache
def layout_difference(text: str = PROMPT) -> float:
    """Largest difference between the two layouts' attention weights and probabilities."""
    a, b = forward(text), forward(text, layout="half")
    names = ("A0", "A1", "probs")
    return max(float(np.abs(getattr(a, n) - getattr(b, n)).max()) for n in names)


@value("conventions-layout-difference")
def layout_difference_value() -> str:
    """A bound on the largest difference between the two layouts (TeX): zero in exact
    arithmetic, round-off here (about 1e-17)."""
    return below(layout_difference(), 1e-15)


@functools.cache
def listing_differences() -> dict[str, float]:
    """Largest difference of each listing from apply_rope in its layout."""
    rng = np.random.default_rng(LISTING["seed"])
    x = rng.standard_normal((LISTING["seq"], LISTING["d"]))
    pos = np.arange(LISTING["seq"], dtype=np.float64)
    return {
        "complex": float(np.abs(rope_complex(x, pos) - apply_rope(x, pos)).max()),
        "rotate_half": float(
            np.abs(rope_rotate_half(x, pos) - apply_rope(x, pos, layout="half")).max()
        ),
    }


@value("conventions-listing-complex", key="complex")
@value("conventions-listing-rotate-half", key="rotate_half")
def listing_value(key: str = "complex") -> str:
    """A bound on a listing's largest difference from apply_rope (TeX): the same rotation
    computed another way, so round-off only."""
    return below(listing_differences()[key], 1e-15)


@value("conventions-listing-positions")
def listing_positions() -> str:
    return str(LISTING["seq"])


# Values of the exercises -------------------------------------------------------------------------


@value("conventions-ex-moved-to", coordinate=5, d=8)
def ex_moved_to(coordinate: int = 5, d: int = 8) -> str:
    """Where [`interleaved_to_half`][rope_explained.conventions.interleaved_to_half] puts row
    ``coordinate`` of a single head of ``d`` rows."""
    from ...conventions import interleaved_to_half

    P = interleaved_to_half(np.eye(d))  # row j of P W is row order[j] of W
    return str(int(np.flatnonzero(P[:, coordinate])[0]))


@value("conventions-ex-smallest-d")
def ex_smallest_d(largest: int = 64) -> str:
    """The smallest head size for which the permutation differs from its inverse (below that,
    a conversion applied the wrong way round gives the same rows)."""
    from ...conventions import half_to_interleaved, interleaved_to_half

    for d in range(2, largest + 1, 2):
        eye = np.eye(d)
        if not np.array_equal(interleaved_to_half(eye), half_to_interleaved(eye)):
            return str(d)
    raise ValueError(f"the permutation is its own inverse for every d up to {largest}")


@functools.cache
def _wrong_scores(text: str = PROMPT) -> dict[str, np.ndarray]:
    """Each layer's scores with the weights converted and without."""
    a = forward(text, layout="half")
    b = forward(text, layout="half", weights_layout="interleaved")
    return {n: (getattr(a, n), getattr(b, n)) for n in ("scores0", "scores1")}


@value("conventions-ex-diagonal-layer0")
def ex_diagonal_layer0(text: str = PROMPT) -> str:
    """A bound on how far the unconverted weights move layer 0's diagonal scores (TeX): not at
    all in exact arithmetic (the rotation cancels at n = m), round-off of scores near 300 here
    (about 2e-13)."""
    right, wrong = _wrong_scores(text)["scores0"]
    return below(float(np.abs(np.diag(right) - np.diag(wrong)).max()), 1e-11)


@value("conventions-ex-offdiagonal-layer0")
def ex_offdiagonal_layer0(text: str = PROMPT) -> str:
    """The largest change of a layer-0 score off the diagonal (causal part)."""
    right, wrong = _wrong_scores(text)["scores0"]
    return f"{np.abs(np.tril(right - wrong, -1)).max():.0f}"


@value("conventions-ex-diagonal-layer1")
def ex_diagonal_layer1(text: str = PROMPT) -> str:
    """The largest change of a layer-1 score on the diagonal."""
    right, wrong = _wrong_scores(text)["scores1"]
    return f"{np.abs(np.diag(right) - np.diag(wrong)).max():.0f}"


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = (
    "meta-apply-rotary-emb",
    "hf-gptj-rotate-every-two",
    "hf-rotate-half",
    "hf-permute-for-rope",
    "hf-gguf-reverse-permute",
    "meta-precompute-freqs-cis",
    "hf-llama-rotary-forward",
    "hf-apply-rotary",
    "hf-roformer-rotary",
    "hf-roformer-rotary-value",
    "hf-partial-rotary",
)
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``conventions-src-KEY``."""
for _key in CITED:
    value(f"conventions-src-{_key}", key=_key)(_cited)


@value("conventions-setting-alpha", name="alpha")
def conventions_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
