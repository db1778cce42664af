r"""Figures of the partial-rotary page (``real-models/partial-rotary.md``).

Which frequencies a partly rotating head keeps
([`rotary_frequencies`][rope_explained.real_models.rotary_frequencies]) and what that does to the
hand-built heads ([`partial_rotary_sweep`][rope_explained.real_models.partial_rotary_sweep]).
"""

from __future__ import annotations

import functools

import numpy as np

from ...examples import LONG_PROMPT
from ...experiments import induction_prompts
from ...model import DEFAULT
from ...real_models import PARTIAL_VARIANTS, partial_rotary_sweep, rotary_frequencies
from ...sources import source_link
from .. import floor_to, register, setting_text, value
from ..style import COLORS, new_figure

FRACTIONS = (1.0, 0.5, 0.25, 0.125, 0.0625)
"""The fractions of the sweep: 64, 32, 16, 8 and 4 of the 64 coordinates rotate."""
N_PROMPTS = 24
"""How many of the benchmark's prompts (the first ones of ``induction_prompts(1000)``) are run."""
TEXT = LONG_PROMPT
"""The text the previous-token head is measured on (256 letters)."""
NAMES = {"neox": "GPT-NeoX: first r coordinates, own ladder", "fastest": "fastest r/2 pairs kept"}


@functools.cache
def sweep(variant: str) -> dict[str, np.ndarray]:
    """The sweep for one variant, computed once per process (full rotation, the same model
    in both variants, only once)."""
    prompts = induction_prompts(N_PROMPTS)
    if variant == "neox":
        return partial_rotary_sweep(prompts, TEXT, FRACTIONS, variant)
    full = sweep("neox")
    rest = partial_rotary_sweep(prompts, TEXT, FRACTIONS[1:], variant)
    return {key: np.r_[full[key][:1], rest[key]] for key in rest}


@register(
    "partial-frequencies",
    caption=r'Which frequencies a head of \(d = {{ value("partial-setting-d") }}\) keeps when a '
    r"quarter of it rotates "
    r"(\(r = 16\) coordinates, 8 pairs). Top: full rotation, 32 pairs from "
    r"\(\theta_0 = 1\) down to \(10000^{-62/64}\). Middle: GPT-NeoX's partial rotary; "
    r"the 8 rotating pairs get a ladder of their own, \(10000^{-2i/16}\), which spans "
    r"almost the same range in coarser steps. Bottom: the 8 fastest pairs keep their own "
    r"frequencies. Crosses: pairs that never turn.",
    alt="Three rows of dots on a logarithmic frequency axis from 1e-4 to 1. Top row: 32 dots "
    "evenly spread from 1 to about 1e-4. Middle row: 8 dots spread over the same range, "
    "farther apart. Bottom row: 8 dots between 1 and about 0.13. In the middle and bottom "
    "rows, 24 crosses at the left edge mark the pairs that do not turn.",
    fraction=0.25,
)
def frequencies_figure(fraction: float = 0.25):
    """The frequency of every pair for full rotation and the two partial variants."""
    rows = [("full rotation", rotary_frequencies(1.0))]
    rows += [(NAMES[v], rotary_frequencies(fraction, v)) for v in PARTIAL_VARIANTS]
    fig, ax = new_figure(width=7.2, height=3.2)
    floor = 5e-5  # where the pairs of frequency 0 are drawn
    for j, (name, theta) in enumerate(rows):
        y = np.full(theta.size, -j, dtype=float)
        turning = theta > 0
        ax.plot(theta[turning], y[turning], "o", color=COLORS[j], ms=6)
        if (~turning).any():
            jitter = np.linspace(-0.18, 0.18, int((~turning).sum()))
            ax.plot(np.full(jitter.size, floor), y[~turning] + jitter, "x", color="0.45", ms=4)
        ax.text(1.6, -j + 0.28, f"{name} ({int(turning.sum())} pairs turn)", fontsize=10,
                ha="right", va="bottom")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlim(3e-5, 2.0)
    ax.set_ylim(-len(rows) + 0.5, 0.75)
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.set_xlabel(r"frequency $\theta_i$ (radians per position); crosses: 0")
    return fig


@register(
    "partial-sweep",
    caption=r"The hand-built model with only \(r\) of the 64 coordinates of each head "
    r"rotating. Left: the previous-token head's smallest attention on the key one step back "
    r"over a 256-letter text. Right: induction accuracy on the first "
    r'{{ value("partial-n-prompts") }} prompts of the benchmark. '
    r"Solid: GPT-NeoX's partial rotary; dashed: the fastest \(r/2\) pairs kept at their "
    r"own frequencies.",
    alt="Two line plots against the number of rotating coordinates r, from 64 on the left down "
    "to 4 on the right. Left: attention on the previous token stays near 1 down to r = 16 for "
    "both variants, then the GPT-NeoX curve drops at r = 8 while the fastest-pairs curve "
    "drops only at r = 4. Right: induction accuracy follows the same shape, 100 percent while "
    "the left curve is near 1, then far lower.",
)
def sweep_figure():
    """Previous-token attention and induction accuracy against the rotating width."""
    fig, axes = new_figure(1, 2, width=7.2, height=3.5, sharex=True)
    for j, variant in enumerate(PARTIAL_VARIANTS):
        s = sweep(variant)
        style = {"color": COLORS[j], "ls": "-" if j == 0 else "--", "marker": "o", "ms": 5}
        axes[0].plot(s["rotary_dims"], s["previous_min"], label=NAMES[variant], **style)
        axes[1].plot(s["rotary_dims"], 100 * s["accuracy"], **style)
    axes[0].set_ylabel(r"$\min_m A^{(0)}_{m,m-1}$")
    axes[1].set_ylabel("induction accuracy (%)")
    axes[0].set_ylim(-0.05, 1.05)
    axes[1].set_ylim(-5, 105)
    axes[0].set_xscale("log", base=2)
    axes[0].set_xticks([64, 32, 16, 8, 4], ["64", "32", "16", "8", "4"])
    axes[0].invert_xaxis()  # shared: both panels run from full rotation down
    for ax in axes:
        ax.set_xlabel(r"rotating coordinates $r$")
    fig.legend(loc="outside upper center", ncols=1, fontsize=10)
    return fig


# Values the page states ------------------------------------------------------------------------


@value("partial-n-prompts")
def n_prompts() -> str:
    return str(N_PROMPTS)


def _at(variant: str, r: int, key: str) -> float:
    s = sweep(variant)
    return float(s[key][list(s["rotary_dims"]).index(r)])


@value("partial-neox-16-previous", variant="neox", r=16)
@value("partial-neox-8-previous", variant="neox", r=8)
@value("partial-fastest-8-previous", variant="fastest", r=8)
@value("partial-fastest-4-previous", variant="fastest", r=4)
def previous_value(variant: str = "neox", r: int = 16) -> str:
    """The previous-token head's smallest attention one step back, rounded down to two
    decimals (the page says "at least")."""
    return floor_to(_at(variant, r, "previous_min"), 2)


@value("partial-neox-16-accuracy", variant="neox", r=16)
@value("partial-neox-8-accuracy", variant="neox", r=8)
@value("partial-fastest-8-accuracy", variant="fastest", r=8)
@value("partial-fastest-4-accuracy", variant="fastest", r=4)
def accuracy_value(variant: str = "neox", r: int = 16) -> str:
    """Induction accuracy in percent."""
    return f"{100 * _at(variant, r, 'accuracy'):.0f}"


# Values of the exercises -------------------------------------------------------------------------

EXERCISE_PROMPTS = 8
"""How many prompts the exercise runs at that distance."""
EXERCISE_FAR = 3000
"""The distance between the two A's of the exercise's prompts, well past the distance at which
the full head's slowest pair has turned by half a letter step."""


@value("partial-ex-gptj-step", d=256, fraction=0.25)
@value("partial-ex-full-step", d=256, fraction=1.0)
def ex_ladder_step(d: int = 256, fraction: float = 0.25) -> str:
    """The ratio between neighbouring rotating frequencies of a ``d``-wide head of which
    ``fraction`` rotates (GPT-NeoX's ladder)."""
    theta = rotary_frequencies(fraction, "neox", d=d)
    theta = theta[theta > 0]
    return f"{theta[0] / theta[1]:.3f}"


@value("partial-ex-lead-neox-8", variant="neox")
@value("partial-ex-lead-fastest-8", variant="fastest")
@value("partial-ex-lead-full", r=64)
def ex_lead(
    variant: str = "neox", r: int = 8, d: int = DEFAULT.d, alpha: float = DEFAULT.alpha
) -> str:
    """How far the previous-token head's best score leads the keys next to it,
    alpha sum_i (1 - cos theta_i) over the rotating pairs, with ``r`` of ``d`` rotating."""
    theta = rotary_frequencies(r / d, variant, d=d)
    return f"{alpha * (1 - np.cos(theta)).sum():.1f}"


@value("partial-ex-far-accuracy", rotary_pct=0.25)
@value("partial-ex-far-accuracy-full", rotary_pct=1.0)
def ex_far_accuracy(
    rotary_pct: float = 0.25, distance: int = EXERCISE_FAR, n: int = EXERCISE_PROMPTS
) -> str:
    """Induction accuracy in percent on ``n`` prompts whose A's lie ``distance`` apart."""
    from ...extension import induction_curve

    return f"{100 * induction_curve([distance], n=n, rotary_pct=rotary_pct)[0]:.0f}"


@value("partial-ex-far-distance")
def ex_far_distance() -> str:
    """The exercise's distance, with a thousands separator."""
    return f"{EXERCISE_FAR:,}"


@value("partial-ex-far-prompts")
def ex_far_prompts() -> str:
    return str(EXERCISE_PROMPTS)


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = ("hf-partial-rotary",)
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``partial-src-KEY``."""
for _key in CITED:
    value(f"partial-src-{_key}", key=_key)(_cited)


@value("partial-setting-d", name="d")
@value("partial-setting-alpha", name="alpha")
def partial_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
