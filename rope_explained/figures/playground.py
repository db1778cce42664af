r"""Figures of the playground page (playground.md).

The page computes its panels in the reader's browser; the figure here is the package's own
answer for the prompt the page opens with, drawn at build time, so the reader can check the
live panels against it.
"""

from __future__ import annotations

import functools

import matplotlib
import numpy as np

from ..embedding import VOCAB, letter_angle
from ..examples import FACTOR, LONG_MODE_PROMPT, OPENING_PROMPT, ORIGINAL_MAX_POSITION
from ..extension import layer0_kernel
from ..model import Config, forward, predict_last
from ..rope import SCALING_METHODS, frequencies
from ..sources import source_link
from ..trained import SEEDS
from ..trained import forward as trained_forward
from . import ceil_to, floor_to, register, value
from .style import SEQUENTIAL, attention_heatmap, new_figure
from .trained import ABLATIONS, ablation_prompt, weights_of

SCORE_GAP_FLOOR = -40.0
"""The layer-0 score panel shows each row of scores minus the row's best visible score, on
[`SCORE_GAP_CMAP`][] from this floor (and below) to 0, like the layer-0 page's figure of the
pattern; the site build passes it to the live panel too (docs/hooks/playground.py)."""
SCORE_GAP_CMAP = "cividis"
"""The colour map of that panel (sequential: the gap runs one way, from the floor to 0)."""


def score_gap(trace) -> np.ndarray:
    r"""\(q_m^{(0)T} k_n^{(0)} - \max_{n' \le m} q_m^{(0)T} k_{n'}^{(0)}\), shape ``(T, T)``.

    The row maximum runs over the keys the causal mask lets query ``m`` see; the masked cells
    (``n > m``) are measured from the same maximum.
    """
    visible = np.where(trace.mask, trace.scores0, -np.inf)
    return trace.scores0 - visible.max(axis=1, keepdims=True)


@register(
    "playground-opening",
    caption=(
        r"What the playground shows when it opens, computed by the package while the site "
        r"builds: `forward('inductionheadsinductionhe')` with the default settings "
        r"(\(\alpha = 10\), base 10000, the working layer-1 head); the axes count positions, "
        r"0 being the start token, and the cells the causal mask hides (\(n > m\)) are grey "
        r"and hatched. "
        r"Top left, the layer-0 scores \(q_m^{(0)T} k_n^{(0)}\) minus the best score of their "
        r"row, what the softmax sees, from "
        + f"\\({SCORE_GAP_FLOOR:g}\\)"
        + r" (and below) to 0 as in "
        r"{{ fig('layer0-pattern') }}: only the key one step back reaches 0, the diagonal and "
        r"the key two back trail by about 10.8; top right, their causal softmax \(A^{(0)}\), "
        r"a band just below the diagonal; bottom left, the layer-1 pattern \(A^{(1)}\), whose "
        r"last row points at the letter after the earlier `he`; bottom right, the next-letter "
        r"probabilities, highest for `a`."
    ),
    alt="Four panels. Top left: a 26 by 26 heatmap of each layer-0 score minus its row's best, "
    "the upper triangle grey and hatched: a bright yellow line just below the diagonal (0), "
    "grey-blue "
    "cells on the diagonal and two below it (about -11), dark blue everywhere further left "
    f"({SCORE_GAP_FLOOR:g} and below). Top right: the layer-0 attention, a single bright "
    "yellow line just below the diagonal on a dark background, the upper triangle grey and "
    "hatched. "
    "Bottom left: "
    "the layer-1 attention, bright cells scattered off the diagonal, the last row bright at the "
    "column of the letter a. Bottom right: a bar chart over the 26 letters with one tall bar "
    "of about 0.9 at a and two small bars at its neighbours z and b.",
    text=OPENING_PROMPT,
)
def opening(text: str = OPENING_PROMPT):
    """The playground's four panels for its opening prompt, from one ``forward`` call."""
    tr = forward(text)
    fig, axes = new_figure(2, 2, width=7.2, height=7.4, narrow=(1, 3.0))
    (ax_s, ax_a0), (ax_a1, ax_p) = axes
    # positions on the axes, as the live panels label them
    im = attention_heatmap(
        ax_s, score_gap(tr), tr.mask, cmap=SCORE_GAP_CMAP, vmin=SCORE_GAP_FLOOR, vmax=0.0
    )
    fig.colorbar(im, ax=ax_s, label="score minus the row's best", shrink=0.8, extend="min")
    for ax, A, label in ((ax_a0, tr.A0, r"$A^{(0)}_{m,n}$"), (ax_a1, tr.A1, r"$A^{(1)}_{m,n}$")):
        im = attention_heatmap(ax, A, tr.mask)
        fig.colorbar(im, ax=ax, label=label, shrink=0.8)
    ax_s.set_title("layer-0 scores \u2212 row's best", fontsize=11)
    ax_a0.set_title("layer-0 attention", fontsize=11)
    ax_a1.set_title("layer-1 attention", fontsize=11)

    p = tr.probs[-1]
    best = int(np.argmax(p))
    colors = matplotlib.colormaps[SEQUENTIAL](p)  # the probability's own colour
    bars = ax_p.bar(np.arange(26), p, color=colors, edgecolor="none")
    bars[best].set_edgecolor("black")
    bars[best].set_linewidth(1.8)
    ax_p.annotate(
        f"{VOCAB[best]}  {p[best]:.3f}",
        (best, p[best]),
        xytext=(8, -4),
        textcoords="offset points",
        fontsize=11,
        fontweight="bold",
    )
    ax_p.set_xticks(np.arange(26), list(VOCAB), fontsize=8)
    ax_p.set_ylim(0, 1)
    ax_p.set_xlabel("next letter")
    ax_p.set_ylabel(r"$P(\cdot \mid$ text$)$")
    ax_p.set_title("next-letter probabilities", fontsize=11)
    return fig


# Values the page states ------------------------------------------------------------------------


@value("playground-letter-step-1000", base=1000.0)
@value("playground-letter-step-10000", base=10000.0)
def playground_letter_step(base: float | None = None, d: int | None = None) -> str:
    """How many positions the slowest pair needs, at ``base``, to turn through the angle
    between two neighbouring letters (``None``: the model's base and head dimension)."""
    c = Config()
    step = letter_angle("b") - letter_angle("a")
    return f"{step / frequencies(d or c.d, base or c.base)[-1]:.0f}"


@functools.cache
def long_mode_results(text: str = LONG_MODE_PROMPT) -> dict:
    """``predict_last`` on the playground's 4,096-letter prompt, without scaling (key ``None``)
    and under every method at the playground's starting factor and original context."""
    out = {None: predict_last(text)}
    for method in SCALING_METHODS:
        out[method] = predict_last(
            text, scaling=method, factor=FACTOR, original_max_position=ORIGINAL_MAX_POSITION
        )
    return out


def long_mode_answer(text: str = LONG_MODE_PROMPT) -> tuple[str, int]:
    """The letter an induction head should copy on ``text`` and the key holding it (a
    position counted with the start token). ``text`` is a string of letters whose last letter
    occurred before."""
    if not isinstance(text, str) or len(text) < 2 or text[-1] not in text[:-1]:
        got = repr(text[-20:]) if isinstance(text, str) else type(text).__name__
        raise ValueError(
            f"text must be a string whose last letter occurred before (... A B ... A); got {got}"
        )
    first = text.index(text[-1])
    return text[first + 1], first + 2


@value("playground-long-distance")
def playground_long_distance() -> str:
    """How far back the last letter of the 4,096-letter prompt occurred before."""
    t = LONG_MODE_PROMPT
    return f"{len(t) - 1 - t.index(t[-1]):,}"


@value("playground-long-linear-previous")
def playground_long_linear_previous() -> str:
    """Under linear scaling, the weight the last query puts on the key one step back."""
    return f"{long_mode_results()['linear'].previous[-1]:.1g}"


@value("playground-long-linear-peak")
def playground_long_linear_peak() -> str:
    """Under linear scaling, how far back the last query's layer-0 favourite key lies."""
    r = long_mode_results()["linear"]
    return f"{len(r.tokens) - 1 - int(r.peak[-1])}"


def long_mode_linear_row(factor: float = FACTOR) -> np.ndarray:
    """Under linear scaling by ``factor`` (the playground's original context), the last query's
    layer-0 weights on the 4,096-letter prompt, on the keys 0, 1, 2, ... steps back: the
    causal softmax of the distance kernel."""
    T = len(LONG_MODE_PROMPT) + Config().bos
    cfg = {"scaling": "linear", "factor": factor, "original_max_position": ORIGINAL_MAX_POSITION}
    f = layer0_kernel(T, **cfg)  # (T,) score against the distance
    return np.exp(f - np.logaddexp.reduce(f))


@value("playground-long-linear-peak-weight")
def playground_long_linear_peak_weight() -> str:
    """Under linear scaling, the last query's layer-0 weight on its favourite key."""
    return f"{long_mode_linear_row().max():.2f}"


@value("playground-long-linear-neighbour-weight")
def playground_long_linear_neighbour_weight() -> str:
    """Under linear scaling, the last query's layer-0 weight on each neighbour of its
    favourite key (the two are equal: the kernel is symmetric about the peak)."""
    w = long_mode_linear_row()
    k = int(np.argmax(w))
    return f"{w[k - 1]:.2f}"


@value("playground-half-step-horizon")
def playground_half_step_horizon(base: float | None = None, d: int | None = None) -> str:
    """How many positions the slowest pair needs, at ``base``, to turn through half the angle
    between two neighbouring letters (``None``: the model's base and head dimension)."""
    c = Config()
    step = letter_angle("b") - letter_angle("a")
    return f"{step / 2 / frequencies(d or c.d, base or c.base)[-1]:.0f}"


@value("playground-long-unscaled-top")
def playground_long_unscaled_top() -> str:
    """Without scaling, the largest weight the last query puts on any key."""
    return ceil_to(long_mode_results()[None].attention1.max(), 2)  # "none gets more than"


@value("playground-long-right-least")
def playground_long_right_least() -> str:
    """The smallest weight on the key to copy among the methods that copy the right letter."""
    answer, key = long_mode_answer()
    weights = [r.attention1[key] for r in long_mode_results().values() if r.prediction == answer]
    return floor_to(min(weights), 2)  # "with a weight of at least"


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = ("hf-dynamic-ntk",)
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``playground-src-KEY``."""
for _key in CITED:
    value(f"playground-src-{_key}", key=_key)(_cited)


# Exercises -------------------------------------------------------------------------------------

EXERCISE_ALPHAS = (1.0, 0.3)
"""The two layer-0 sharpnesses of the first exercise."""
EXERCISE_BASE = 100.0
"""The base of the third exercise."""


@functools.cache
def _opening(**config) -> tuple[str, float]:
    """The prediction after the opening prompt, and the smallest weight layer 0 puts on the
    previous letter over all its queries, under ``config``."""
    tr = forward(OPENING_PROMPT, **config)
    T = len(tr.tokens)
    return tr.prediction, float(min(tr.A0[m, m - 1] for m in range(1, T)))


@value("playground-ex-alpha-high", alpha=EXERCISE_ALPHAS[0])
@value("playground-ex-alpha-low", alpha=EXERCISE_ALPHAS[1])
def playground_ex_alpha(alpha: float = 1.0) -> str:
    """The setting of the first exercise, as the slider shows it."""
    return f"{alpha:g}"


@value("playground-ex-previous-high", alpha=EXERCISE_ALPHAS[0])
@value("playground-ex-previous-low", alpha=EXERCISE_ALPHAS[1])
def playground_ex_previous(alpha: float = 1.0) -> str:
    """Layer 0's smallest weight on the previous letter over the opening prompt, at ``alpha``."""
    return f"{_opening(alpha=alpha)[1]:.3f}"


@value("playground-ex-prediction-default")
@value("playground-ex-prediction-high", alpha=EXERCISE_ALPHAS[0])
@value("playground-ex-prediction-low", alpha=EXERCISE_ALPHAS[1])
@value("playground-ex-prediction-rank1", head="rank1")
def playground_ex_prediction(**config) -> str:
    """The model's prediction after the opening prompt under ``config``."""
    return _opening(**config)[0]


@value("playground-ex-base")
def playground_ex_base() -> str:
    """The base of the third exercise."""
    return f"{EXERCISE_BASE:g}"


@value("playground-ex-base-horizon")
def playground_ex_base_horizon() -> str:
    """The half-step horizon of the slowest pair at the exercise's base."""
    return playground_half_step_horizon(base=EXERCISE_BASE)


# --- the trained weights and the band ablations ----------------------------------------------


def copy_score(trace) -> tuple[int, int]:
    """How often a trace (of [`rope_explained.model.forward`][] or
    [`rope_explained.trained.forward`][]) predicts what copying gives, as the page counts it:
    over the positions whose letter occurred exactly once before (the start token aside), how
    many have as most probable next letter the one that followed that occurrence. Returns
    ``(right, positions)``."""
    t = trace.tokens
    right = positions = 0
    for m in range(1, len(t)):
        earlier = [n for n in range(1, m) if t[n] == t[m]]
        if len(earlier) != 1:
            continue
        positions += 1
        right += VOCAB[int(np.argmax(trace.probs[m]))] == t[earlier[0] + 1]
    return right, positions


@functools.cache
def band_copy_score(weights: str, ablation: str | None) -> tuple[int, int]:
    """[`copy_score`][] of the weights called ``weights`` (``"seed-0"``, ``"hand-built"``) on
    the band-ablation prompt, with the ablation ``ablation`` of the chapter's table (None: no
    pair zeroed)."""
    zero = None if ablation is None else ABLATIONS[ablation]
    return copy_score(trained_forward(weights_of(weights), ablation_prompt(), zero_pairs=zero))


@value("playground-band-seed")
def playground_band_seed() -> str:
    """The seed the page's recipe text follows: the first committed one."""
    return str(SEEDS[0])


@value("playground-band-positions")
def playground_band_positions() -> str:
    """The positions of the band-ablation prompt whose letter occurred exactly once before."""
    return str(band_copy_score(f"seed-{SEEDS[0]}", None)[1])


@value("playground-band-copy-none", ablation=None)
@value("playground-band-copy-l0-no-fast8", ablation="l0-no-fast8")
@value("playground-band-copy-l0-only-fast8", ablation="l0-only-fast8")
@value("playground-band-copy-l1-no-fast16", ablation="l1-no-fast16")
@value("playground-band-copy-l1-no-slow16", ablation="l1-no-slow16")
def playground_band_copy(ablation: str | None = None) -> str:
    """How many of those positions the first seed copies right, with ``ablation``."""
    return str(band_copy_score(f"seed-{SEEDS[0]}", ablation)[0])


@value("playground-band-copy-hand-l1-no-slow16", ablation="l1-no-slow16")
def playground_band_copy_hand(ablation: str | None = None) -> str:
    """How many the hand-built circuit copies right, with ``ablation``."""
    return str(band_copy_score("hand-built", ablation)[0])


@value("playground-band-previous-none", ablation=None)
@value("playground-band-previous-l0-no-fast8", ablation="l0-no-fast8")
def playground_band_previous(ablation: str | None = None) -> str:
    """The first seed's mean layer-0 weight on the key one step back, over the queries of the
    band-ablation prompt, with ``ablation``."""
    zero = None if ablation is None else ABLATIONS[ablation]
    tr = trained_forward(weights_of(f"seed-{SEEDS[0]}"), ablation_prompt(), zero_pairs=zero)
    m = np.arange(1, len(tr.tokens))
    return f"{tr.A0[m, m - 1].mean():.2f}"
