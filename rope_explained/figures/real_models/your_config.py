r"""Figures and values of the page "Paste your model's config" (``real-models/your-config.md``).

The page's own numbers are computed in the reader's browser; these are the ones it states in
its text: the circuit's settings, and the dynamic-NTK pitfall measured on the circuit. A
stateful dynamic-NTK module (transformers' ``LlamaRotaryEmbedding``) keeps the frequencies of
the longest text it has read until a text shorter than \(L\) resets them
([`DynamicNTKState`][rope_explained.rope.DynamicNTKState]); the stateless function
([`scaled_frequencies`][rope_explained.rope.scaled_frequencies]) recomputes them from each
text's own length. The same prompts are run both ways after
a short and after a long earlier text, through
[`predict_last_at`][rope_explained.extension.predict_last_at].
"""

from __future__ import annotations

import functools

import numpy as np

from ...embedding import VOCAB
from ...examples import CONFIG_DISTANCE_SHARE, CONFIG_PROMPTS, ORIGINAL_MAX_POSITION
from ...extension import distance_prompts, predict_last_at, recency_prompts
from ...hf import from_config, released_configs
from ...model import MAX_LETTERS, Config
from ...rope import DynamicNTKState, scaled_frequencies
from ...sources import source_link
from .. import register, value
from ..style import COLORS, new_figure

L = ORIGINAL_MAX_POSITION
"""The circuit's original context, as on the playground."""
FACTOR = 2.0
r"""The dynamic-NTK factor \(s\) of the pitfall: the factor at which the stateless circuit fails
longest past \(L\) (the context-extension page)."""
SHORT = L // 8
r"""The earlier text that leaves the module as built: shorter than \(L\)."""
LONG = 8 * L
"""The earlier long text: eight times the original context."""
ONE_COPY_DISTANCE = L + L // 40
r"""Prompts ``A B ... A`` whose two A's lie just past \(L\) apart (stateless dynamic NTK has
barely begun to scale there)."""
NEAR, FAR = 50, L + L // 16
"""Prompts ``A B ... A C ... A``: the nearer A ``NEAR`` letters back, the farther ``FAR``."""
N = 16
"""Prompts of each kind."""
SWEEP = tuple(range(L + L // 64, 2 * L + 1, L // 16))
"""The prompt lengths of the figure (distances between the first and the last A)."""
STATES = ("short", "long")
MODES = ("module", "stateless")


def frequencies_for(seq_len: int) -> np.ndarray:
    """Dynamic NTK's frequencies on the circuit's head for a text of ``seq_len`` positions,
    computed from that length alone (the stateless function)."""
    cfg = Config()
    return scaled_frequencies(
        cfg.d, base=cfg.base, method="dynamic", factor=FACTOR,
        original_max_position=L, seq_len=seq_len,
    )[0]  # fmt: skip


def frequencies_after(T: int, before: int) -> dict[str, np.ndarray]:
    """The frequencies a text of ``T`` positions is read with right after one of ``before``:
    by the stateful module (which has read both) and by the stateless function."""
    cfg = Config()
    state = DynamicNTKState(cfg.d, base=cfg.base, factor=FACTOR, original_max_position=L)
    state.inv_freq(before)
    return {"module": state.inv_freq(T), "stateless": frequencies_for(T)}


def _fractions(texts: list[str], wanted: list[str], T: int, before: int) -> dict[str, float]:
    out = {}
    for mode, theta in frequencies_after(T, before).items():
        probs, _, _ = predict_last_at(texts, theta)
        guess = [VOCAB[i] for i in probs.argmax(axis=1)]
        out[mode] = float(np.mean([g == w for g, w in zip(guess, wanted, strict=True)]))
    return out


@functools.cache
def one_copy(distance: int = ONE_COPY_DISTANCE) -> dict[str, dict[str, float]]:
    """Fraction of the ``A B ... A`` prompts completed with B, by earlier text and way."""
    prompts = distance_prompts(distance, N)
    texts, wanted = [p.text for p in prompts], [p.answer for p in prompts]
    T = distance + 2
    return {state: _fractions(texts, wanted, T, _before(state)) for state in STATES}


@functools.cache
def two_copies(far: int = FAR) -> dict[str, dict[str, float]]:
    """Fraction of the ``A B ... A C ... A`` prompts completed with C, the nearer copy's
    successor, by earlier text and way."""
    prompts = recency_prompts(NEAR, far, N)
    texts, wanted = [t for t, _, _ in prompts], [c for _, c, _ in prompts]
    T = far + 2
    return {state: _fractions(texts, wanted, T, _before(state)) for state in STATES}


def _before(state: str) -> int:
    return {"short": SHORT, "long": LONG}[state]


def _count(x: float) -> str:
    """How many of the N prompts a fraction x of them is."""
    return f"{round(x * N)}"


@value("yc-circuit-d", what="d")
@value("yc-circuit-base", what="base")
def yc_circuit(what: str = "d") -> str:
    cfg = Config()
    return f"{cfg.d}" if what == "d" else f"{cfg.base:,.0f}"


@value("yc-circuit-original")
def yc_circuit_original() -> str:
    return f"{L:,}"


@value("yc-circuit-longest")
def yc_circuit_longest() -> str:
    return f"{MAX_LETTERS + Config().bos:,}"


@value("yc-prompts")
def yc_prompts() -> str:
    return f"{CONFIG_PROMPTS}"


@value("yc-distance-share")
def yc_distance_share() -> str:
    """The share as a percentage (the page writes the % sign)."""
    return f"{CONFIG_DISTANCE_SHARE * 100:.0f}"


EXAMPLE_MODEL = "Llama 3.1 8B Instruct"
"""The released configuration whose base and original context the page compares with the
circuit's."""


@value("yc-example-base", what="base")
@value("yc-example-original", what="original")
def yc_example(what: str = "base") -> str:
    config = next(m["config"] for m in released_configs() if m["name"] == EXAMPLE_MODEL)
    rope = from_config(config)
    return f"{rope.base:,.0f}" if what == "base" else f"{rope.original_max_position:,}"


@value("yc-src-hf-rope-parameters", key="hf-rope-parameters")
@value("yc-src-hf-dynamic-update", key="hf-dynamic-update")
@value("yc-src-hf-llama-rotary-max", key="hf-llama-rotary-max")
@value("yc-src-hf-dynamic-ntk", key="hf-dynamic-ntk")
def yc_source(key: str = "hf-dynamic-update") -> str:
    return source_link(key)


@value("yc-dyn-factor")
def yc_dyn_factor() -> str:
    return f"{FACTOR:g}"


@value("yc-dyn-short", which="short")
@value("yc-dyn-long", which="long")
@value("yc-dyn-one-distance", which="one")
@value("yc-dyn-near", which="near")
@value("yc-dyn-far", which="far")
@value("yc-dyn-n", which="n")
def yc_dyn_setting(which: str = "short") -> str:
    n = {"short": SHORT, "long": LONG, "one": ONE_COPY_DISTANCE, "near": NEAR, "far": FAR, "n": N}
    return f"{n[which]:,}"


@value("yc-dyn-one-positions", which="one")
@value("yc-dyn-two-positions", which="two")
def yc_dyn_positions(which: str = "one") -> str:
    return f"{(ONE_COPY_DISTANCE if which == 'one' else FAR) + 2:,}"


@value("yc-dyn-scale-stateless", seq_len=ONE_COPY_DISTANCE + 2)
@value("yc-dyn-scale-long", seq_len=LONG)
def yc_dyn_scale(seq_len: int = LONG) -> str:
    r"""The factor dynamic NTK grows the base by, \(s\,\ell/L - (s - 1)\), at length \(\ell\)."""
    return f"{FACTOR * seq_len / L - (FACTOR - 1):.2f}"


@value("yc-dyn-one-short-module", kind="one", state="short", mode="module")
@value("yc-dyn-one-short-stateless", kind="one", state="short", mode="stateless")
@value("yc-dyn-one-long-module", kind="one", state="long", mode="module")
@value("yc-dyn-one-long-stateless", kind="one", state="long", mode="stateless")
@value("yc-dyn-two-short-module", kind="two", state="short", mode="module")
@value("yc-dyn-two-short-stateless", kind="two", state="short", mode="stateless")
@value("yc-dyn-two-long-module", kind="two", state="long", mode="module")
@value("yc-dyn-two-long-stateless", kind="two", state="long", mode="stateless")
def yc_dyn_cell(kind: str = "one", state: str = "short", mode: str = "module") -> str:
    table = one_copy() if kind == "one" else two_copies()
    return _count(table[state][mode])


@functools.cache
def sweep() -> dict[str, np.ndarray]:
    """Both prompt kinds at every length of [`SWEEP`][], stateless and after a long text."""
    out = {}
    for kind, run in (("one", one_copy), ("two", two_copies)):
        rows = [run(g) for g in SWEEP]
        for mode in ("stateless", "module"):
            out[kind, mode] = np.array([r["long"][mode] for r in rows])
    return out


@register(
    "yc-dynamic-state",
    caption=(
        r"Dynamic NTK at \(s = {{ value('yc-dyn-factor') }}\) on the circuit "
        r"(\(L\) = {{ value('yc-circuit-original') }}), {{ value('yc-dyn-n') }} prompts at each "
        r"length, read right after a text of {{ value('yc-dyn-long') }} positions. Stateless: "
        r"the frequencies computed from the prompt's own length (which is also what the module "
        r"does after a text shorter than \(L\)). Module: transformers' rotary module, which keeps "
        r"the frequencies of the longer earlier text. Left: prompts \(A\,B \ldots A\), the share "
        r"completed with \(B\). Right: prompts \(A\,B \ldots A\,C \ldots A\) with the nearer "
        r"\(A\) {{ value('yc-dyn-near') }} letters back, the share completed with \(C\)."
    ),
    alt=(
        "Two line plots of a share from 0 to 1 against the distance between the first and the "
        "last A, from 1040 to 2000 tokens. Left: the stateless line starts near 0, rises "
        "between about 1170 and 1300 and stays near 1 from there; the module line is at 1 "
        "throughout. Right: the stateless line is at 1 throughout; the module line stays near "
        "0, never above one in eight."
    ),
)
def dynamic_state_figure():
    sw = sweep()
    fig, axes = new_figure(1, 2, width=7.2, height=3.2, sharey=True)
    for ax, kind, title in zip(axes, ("one", "two"), ("one earlier A: B", "two earlier A's: C"),
                               strict=True):  # fmt: skip
        ax.plot(SWEEP, sw[kind, "stateless"], "o-", color=COLORS[0], label="stateless")
        ax.plot(SWEEP, sw[kind, "module"], "s--", color=COLORS[5], label="module")
        ax.set_title(title)
        ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel("distance between first and last A")
    axes[0].set_ylabel("share of prompts")
    axes[0].legend(loc="center right")
    return fig
