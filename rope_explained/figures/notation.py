r"""Figure of the notation page: the offset convention read off one query of the running
example, whose two heads look \(\delta = 1\) and \(\delta = 10\) steps back."""

from __future__ import annotations

import numpy as np

from ..examples import FORWARD_PASS_PROMPT
from ..model import forward
from ..sources import source_link
from . import register, value
from .style import COLORS, new_figure


@register(
    "notation-offsets",
    caption=(
        r"The offset convention on the running example: the attention of the last query "
        r"(position \(m\), the second c of thecatsatonthec) on every key \(n \le m\), drawn "
        r"against the offset \(\Delta = n - m\) (bottom axis) and the steps back "
        r"\(\delta = m - n\) (top axis). Layer 0 puts its weight on \(\Delta = -1\), the "
        r"previous token; layer 1 on the key after the earlier c. Keys with \(\Delta > 0\) "
        r"lie in the future and are masked."
    ),
    alt=(
        "Stem plot of attention weight from 0 to 1 against the offset Delta from -15 to 0, "
        "with a second axis on top running from 15 to 0 steps back. Layer 0's stems are "
        "zero except a stem of height 1 at Delta = -1; layer 1's are zero except a stem of "
        "height 1 at Delta = -10, the key after the earlier c."
    ),
    prompt=FORWARD_PASS_PROMPT,
)
def offsets(prompt: str = FORWARD_PASS_PROMPT):
    """Both layers' attention rows of the last query, against Delta = n - m."""
    tr = forward(prompt)
    m = len(tr.tokens) - 1
    delta = np.arange(m + 1) - m  # Delta = n - m for the keys n = 0..m
    fig, ax = new_figure(width=7.2, height=3.2)
    for k, (name, A, shift) in enumerate((("layer 0", tr.A0, -0.12), ("layer 1", tr.A1, 0.12))):
        ax.vlines(delta + shift, 0, A[m], color=COLORS[2 * k], lw=2)
        ax.plot(delta + shift, A[m], "o", color=COLORS[2 * k], ms=5, label=name)
    ax.set_xticks(np.arange(0, delta[0] - 1, -3))
    ax.set_xlim(delta[0] - 0.8, 0.8)
    ax.set_ylim(-0.05, 1.1)
    ax.set_xlabel(r"offset $\Delta = n - m$")
    ax.set_ylabel(r"attention of query $m$ on key $n$")
    top = ax.secondary_xaxis("top", functions=(np.negative, np.negative))
    top.set_xlabel(r"steps back $\delta = m - n$")
    ax.legend(loc="upper left", fontsize=9)
    return fig


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = ("hf-llama-rotary-forward",)
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``notation-src-KEY``."""
for _key in CITED:
    value(f"notation-src-{_key}", key=_key)(_cited)


# Exercises -------------------------------------------------------------------------------------

EXERCISE_QUERY, EXERCISE_KEY = 7, 4
"""The query's and the key's positions in the offsets exercise."""


@value("notation-ex-m", which="m")
@value("notation-ex-n", which="n")
@value("notation-ex-offset", which="offset")
@value("notation-ex-back", which="back")
def notation_exercise(which: str = "offset") -> str:
    """The exercise's positions, its offset Delta = n - m and its steps back delta = m - n."""
    m, n = EXERCISE_QUERY, EXERCISE_KEY
    return str({"m": m, "n": n, "offset": n - m, "back": m - n}[which])
