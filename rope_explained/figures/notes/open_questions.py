r"""Figures of the research-notes page on the RoPE bottleneck and open questions.

Each figure reads the arrays of ``rope_explained.experiments``; nothing here recomputes an
experiment.
"""

from __future__ import annotations

import numpy as np

from ...experiments import (
    pair_horizons,
    stable_pair_count,
)
from ...model import DEFAULT
from ...sources import source_link
from .. import register, setting_text, value
from ..style import COLORS, new_figure

_D0_LABELS = (r"$d_0 = 0$", r"$d_0 = d/2$", r"$d_0 = d - d/4$", r"$d_0 = d - d/8$", r"$d_0 = d-2$")


@register(
    "notes-rope-bottleneck",
    caption=(
        r"The RoPE bottleneck in numbers. Left: for each pair \(i\) of a "
        r'\(d = {{ value("questions-setting-d") }}\) head '
        r"(base 10000), the largest distance \(N_i = \arccos(0.9)/\theta_i\) over which its "
        r"factor \(\cos(\delta\theta_i)\) stays at least 0.9. Right: how many coordinates "
        r"(twice the number of such pairs) stay within that tolerance over a whole window of "
        r"\(N\) tokens, for this site's head and for head sizes and bases like those of "
        r"Llama 2 (\(d = 128\), base \(10^4\)) and Llama 3 (\(d = 128\), base \(5\cdot10^5\))."
    ),
    alt=(
        "Two panels. Left: bar chart on a log scale, pair index 0 to 31 across, horizon in "
        "tokens up, rising from about 0.45 for pair 0 to about 3400 for pair 31, with "
        "dashed lines at 100, 1000 and 10000 tokens. Right: step curves of usable "
        "coordinates against window length from 1 to 100000 tokens (log axis), all falling "
        'as the window grows; for d = {{ value("questions-setting-d") }} they are '
        '{{ value("bottleneck-d64-b1e4-l100") }} at 100 tokens, '
        '{{ value("bottleneck-d64-b1e4-l1000") }} at 1000 and '
        '{{ value("bottleneck-d64-b1e4-l10000") }} at 10000 tokens.'
    ),
    d=DEFAULT.d,
    base=DEFAULT.base,
    min_cos=0.9,
)
def rope_bottleneck(d=DEFAULT.d, base=DEFAULT.base, min_cos=0.9):
    """Per-pair horizons and the number of position-blind coordinates per window length."""
    horizons = pair_horizons(d, base, min_cos)
    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.6, layout="constrained")
    i = np.arange(d // 2)
    ax0.bar(i, horizons, color=COLORS[0], width=0.8)
    ax0.set_yscale("log")
    for L in (100, 1000, 10000):
        ax0.axhline(L, color="0.35", lw=0.9, ls="--")
        ax0.text(0.5, L * 1.15, f"{L:,} tokens", fontsize=11, color="0.25")
    ax0.set_ylim(0.1, 3e4)
    ax0.set_xlabel(r"pair $i$ (slowest on the right)")
    ax0.set_ylabel(r"horizon $N_i$ (tokens)")

    lengths = np.unique(np.round(np.logspace(0, 5, 400)))
    setups = (
        (d, base, rf"$d = {d}$, base $10^4$ (this site)"),
        (128, 10000.0, r"$d = 128$, base $10^4$"),
        (128, 500000.0, r"$d = 128$, base $5\cdot 10^5$"),
    )
    for color, (dd, bb, label) in zip(COLORS, setups, strict=False):
        count = 2 * stable_pair_count(lengths, d=dd, base=bb, min_cos=min_cos)
        ax1.step(lengths, count, where="post", color=color, lw=1.8, label=label)
    ax1.set_xscale("log")
    ax1.set_xlim(1, 1e5)
    ax1.set_ylim(-3, 175)
    ax1.set_yticks(np.arange(0, 121, 20))
    ax1.set_xlabel(r"window $N$ (tokens)")
    ax1.set_ylabel(r"usable coordinates $d_\mathrm{semantic}$")
    ax1.legend(fontsize=11, loc="upper right")
    ax1.grid(alpha=0.3)
    return fig


# Values the page states ------------------------------------------------------------------------


@value("notes-horizon-numerator")
def notes_horizon_numerator(min_cos: float = 0.9) -> str:
    """arccos of the tolerance: a pair's horizon times its frequency."""
    return f"{np.arccos(min_cos):.3f}"


@value("bottleneck-d64-b1e4-l100", d=DEFAULT.d, base=DEFAULT.base, length=100)
@value("bottleneck-d64-b1e4-l1000", d=DEFAULT.d, base=DEFAULT.base, length=1000)
@value("bottleneck-d64-b1e4-l10000", d=DEFAULT.d, base=DEFAULT.base, length=10000)
@value("bottleneck-d128-b1e4-l100", d=128, base=1e4, length=100)
@value("bottleneck-d128-b1e4-l1000", d=128, base=1e4, length=1000)
@value("bottleneck-d128-b1e4-l10000", d=128, base=1e4, length=10000)
@value("bottleneck-d128-b5e5-l100", d=128, base=5e5, length=100)
@value("bottleneck-d128-b5e5-l1000", d=128, base=5e5, length=1000)
@value("bottleneck-d128-b5e5-l10000", d=128, base=5e5, length=10000)
def bottleneck_coordinates(
    d: int = DEFAULT.d, base: float = DEFAULT.base, length: int = 100, min_cos: float = 0.9
) -> str:
    """d_semantic(L): the coordinates whose pairs stay within the tolerance over ``length``."""
    return str(2 * int(stable_pair_count(np.array([float(length)]), d, base, min_cos)[0]))


@value("notes-slowest-horizon")
def notes_slowest_horizon(
    d: int = DEFAULT.d, base: float = DEFAULT.base, min_cos: float = 0.9
) -> str:
    """The horizon of the slowest pair, in tokens, to the nearest hundred."""
    return f"{round(pair_horizons(d, base, min_cos)[-1], -2):.0f}"


# Values of the exercises -------------------------------------------------------------------------

EXERCISE_TARGET = {"d": 128, "coordinates": 8, "length": 32_000, "min_cos": 0.9}
"""The exercise's requirement: ``coordinates`` usable coordinates of a head of ``d`` over
``length`` tokens at the tolerance ``min_cos``."""


def _needed_base(d: int, coordinates: int, length: int, min_cos: float) -> float:
    """The smallest base at which ``coordinates / 2`` pairs have a horizon of ``length``: the
    pair ``d/2 - coordinates/2`` must turn at most arccos(min_cos) / length per token."""
    i = d // 2 - coordinates // 2
    return float((length / np.arccos(min_cos)) ** (d / (2 * i)))


@value("notes-ex-open-base")
def ex_open_base() -> str:
    """That base, rounded up to two significant digits (TeX)."""
    from .. import times_ten

    b = _needed_base(**EXERCISE_TARGET)
    scale = 10.0 ** (np.floor(np.log10(b)) - 1)
    return times_ten(np.ceil(b / scale) * scale, 1)


@value("notes-ex-open-length")
def ex_open_length() -> str:
    return f"{EXERCISE_TARGET['length']:,}"


@value("notes-ex-open-coordinates")
def ex_open_coordinates() -> str:
    return str(EXERCISE_TARGET["coordinates"])


@value("notes-ex-open-loose", min_cos=0.5)
def ex_open_loose(
    d: int = DEFAULT.d, base: float = DEFAULT.base, length: int = 1000, min_cos: float = 0.5
) -> str:
    """d_semantic(1000) of this site's head at the looser tolerance ``min_cos``."""
    return str(2 * int(stable_pair_count(np.array([float(length)]), d, base, min_cos)[0]))


@value("notes-ex-open-loose-tolerance")
def ex_open_loose_tolerance() -> str:
    return "0.5"


@value("notes-ex-open-half-first", half=0)
@value("notes-ex-open-half-second", half=1)
def ex_open_half(half: int = 0, d: int = DEFAULT.d, pairs: int = 4) -> str:
    """Under rotate-half, the lowest coordinate that the ``pairs`` slowest pairs occupy in the
    first (``half=0``) or second half of the head."""
    from ...conventions import interleaved_to_half

    P = interleaved_to_half(np.eye(d))  # (P x)[j] = x[old row of j]
    slow = np.arange(d - 2 * pairs, d)  # interleaved coordinates of the slowest pairs
    rows = sorted(int(np.flatnonzero(P[:, c])[0]) for c in slow)
    return str(rows[0] if half == 0 else rows[pairs])


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = ("hf-permute-for-rope", "meta-apply-rotary-emb", "hf-rotate-half")
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``questions-src-KEY``."""
for _key in CITED:
    value(f"questions-src-{_key}", key=_key)(_cited)


@value("questions-setting-d", name="d")
def questions_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
