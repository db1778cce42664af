r"""Figures and values of the chapter on the trained model (``trained/index.md``).

Every number comes from the committed weights (``rope_explained/data/``) run by
[`rope_explained.trained.evaluate`][] and its kin: the measurements are made once per build process
([`study`][]) and each figure and value goes through the figure and value caches. The weights'
SHA-256 are part of ``rope_explained/trained.py`` ([`HASHES`][rope_explained.trained.HASHES]), so
new weights change the cache keys.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..embedding import VOCAB
from ..rope import frequencies, scaled_frequencies
from ..task import SEGMENT, batch
from ..trained import (
    EVAL_SEED,
    PROMPTS,
    SEEDS,
    evaluate,
    forward_ids,
    hand_built,
    load,
    offset_profile,
    pair_contributions,
    record,
    wavelength_pair,
)
from . import ceil_to, floor_to, register, value
from .style import COLORS, SEQUENTIAL, attention_heatmap, new_figure

FACTOR = 4.0
"""The context extension measured: four times the training length."""
LONG_PROMPTS = 32
"""Clean prompts of four times the training length per measurement."""
METHODS = (None, "linear", "ntk", "yarn")
LABELS = {
    None: "no scaling",
    "linear": "Position Interpolation",
    "ntk": "NTK-aware",
    "yarn": "YaRN",
}
ABLATIONS = {
    "l0-no-fast8": {0: range(8)},
    "l1-no-fast16": {1: range(16)},
    "l1-no-slow16": {1: range(16, 32)},
    "l0-only-fast8": {0: range(8, 32)},
}
"""The band ablations of the table: pairs zeroed in one layer's queries and keys."""
MODELS = (*(f"seed-{s}" for s in SEEDS), "hand-built")


def ablation_prompt() -> str:
    """The prompt the playground's band-ablation buttons load: the first of the clean prompts
    the table's accuracies are measured on ([`evaluate`][rope_explained.trained.evaluate]'s,
    at the training length), as letters."""
    ids = batch(EVAL_SEED, PROMPTS, length(), clean=True).tokens[0]
    return "".join(VOCAB[i - 1] for i in ids[1:].tolist())


GHOST_FROM = 64
"""Offsets the ghost is looked for at: those a training sequence never has (64 and more)."""


def weights_of(name: str):
    if name == "hand-built":
        return hand_built()
    run, seed = name.rsplit("-", 1)
    return load(int(seed), warmup=run == "seed")


def length() -> int:
    return load(SEEDS[0]).length


def extension_options(method: str | None) -> dict:
    if method is None:
        return {}
    return {"scaling": method, "factor": FACTOR, "original_max_position": length()}


@functools.lru_cache(maxsize=1)
def study() -> dict:
    """Every measurement of the page, computed once per build process."""
    L = length()
    out: dict = {
        "base": {},
        "ablation": {},
        "cut": {},
        "pairs": {},
        "ext": {},
        "profile": {},
        "pi_profile": {},
    }
    for name in MODELS:
        w = weights_of(name)
        out["base"][name] = evaluate(w)
        out["ablation"][name] = {k: evaluate(w, zero_pairs=z) for k, z in ABLATIONS.items()}
        out["cut"][name] = {c: evaluate(w, cut=c) for c in ("keys", "queries")}
        out["pairs"][name] = [pair_contributions(w, layer) for layer in (0, 1)]
        out["ext"][name] = {
            m: evaluate(w, length=int(FACTOR * L), prompts=LONG_PROMPTS, **extension_options(m))
            for m in METHODS
        }
        out["profile"][name] = offset_profile(w, length=int(FACTOR * L), prompts=8)
        out["pi_profile"][name] = offset_profile(
            w, length=int(FACTOR * L), prompts=8, **extension_options("linear")
        )
    out["nowarmup"] = {s: nowarmup_run(s) for s in SEEDS}
    return out


def nowarmup_run(seed: int) -> dict:
    r"""What the run of ``seed`` without the warm-up learned: its evaluation, layer 0's weight
    by offset, the pair shares, and how its layer 1 uses layer 0's favourite offset
    \(\delta\) (the largest weight at a non-zero offset): the mean weight layer 1 puts on the
    key \(\delta\) after the earlier occurrence, and the accuracy where that key exists (the
    copy at least \(\delta\) after the first) and where it does not."""
    L = length()
    w = load(seed, warmup=False)
    weight, _ = offset_profile(w, length=L, prompts=16)
    fav = int(np.argmax(weight[1:])) + 1
    b = batch(EVAL_SEED, PROMPTS, L, clean=True)
    tr = forward_ids(w, b.tokens)
    bi, mi = np.nonzero(b.mask)
    src = b.source[bi, mi]
    right = tr.probs[bi, mi].argmax(-1) == b.targets[bi, mi]
    far = mi - src >= fav
    return {
        "eval": evaluate(w),
        "profile": (weight, None),
        "pairs": [pair_contributions(w, layer) for layer in (0, 1)],
        "offset": fav,
        "offset_weight": float(weight[fav]),
        "layer1_at_offset": float(tr.A1[bi[far], mi[far], (src + fav)[far]].mean()),
        "far_share": float(far.mean()),
        "far_accuracy": float(right[far].mean()),
        "near_accuracy": float(right[~far].mean()) if (~far).any() else float("nan"),
    }


# --- the task and the training ------------------------------------------------------------------


@register(
    "trained-task",
    caption=r"Three training sequences of {{ value('trained-length') }} positions (one row each, "
    r"the start token first). Green: the segment and its copy; dark: filler. The dots mark the "
    r"positions that carry a loss: inside the copy, where the current letter occurs exactly once "
    r"before.",
    alt="Three horizontal strips of 64 cells. In each, a run of green cells (the segment) is "
    "followed after some dark filler cells by a second green run of the same length that ends at "
    "the right edge; dots sit on most cells of the second run, not on its last cell and not "
    "where the letter also occurs in the filler.",
)
def task_figure():
    L = length()
    b = batch(3, 3, L)
    fig, ax = new_figure(width=7.2, height=1.9)
    for row in range(3):
        seg = int(b.segment[row])
        tokens = b.tokens[row]
        second = np.arange(L) >= L - seg
        first = np.zeros(L, dtype=bool)
        # the first copy: where the segment's letters start it, one position each
        start = next(
            i for i in range(1, L - 2 * seg + 1) if (tokens[i : i + seg] == tokens[L - seg :]).all()
        )
        first[start : start + seg] = True
        colour = np.where(first | second, 0.8, 0.15)
        colour[0] = 0.45
        ax.scatter(np.arange(L), np.full(L, -row), c=colour, cmap=SEQUENTIAL, vmin=0, vmax=1,
                   marker="s", s=36)  # fmt: skip
        m = np.nonzero(b.mask[row])[0]
        ax.plot(m, np.full(m.size, -row + 0.38), ".", color="k", ms=4)
    ax.set_yticks([0, -1, -2], ["1", "2", "3"])
    ax.set_ylabel("sequence")
    ax.set_xlabel("position")
    ax.set_ylim(-2.6, 0.7)
    return fig


@register(
    "trained-loss",
    caption=r"Training loss (mean over {{ value('trained-log-every') }} steps) of the three "
    r"seeds, with the warm-up of {{ value('trained-warmup-steps') }} steps at "
    r"{{ value('trained-warmup-length') }} positions (solid) and without it (dashed); a mean "
    r"below \(10^{-4}\) is drawn at \(10^{-4}\).",
    alt="Loss against training step on a log axis, six curves. The three solid curves fall "
    "from about 3 to near zero, the warm-up ones first dropping sharply before step 1000. The "
    "dashed curves fall more slowly and not all of them reach the bottom.",
)
def loss_figure():
    fig, ax = new_figure(width=7.2, height=3.8)
    for s in SEEDS:
        for warm, ls in ((True, "-"), (False, "--")):
            curve = np.array(record(s, warmup=warm)["loss_curve"])
            ax.plot(curve[:, 0], np.maximum(curve[:, 1], 1e-4), ls, color=COLORS[s],
                    label=f"seed {s}" + ("" if warm else ", no warm-up"))  # fmt: skip
    ax.axvline(record(0)["settings"]["warmup_steps"], color="0.5", lw=0.8, ls=":")
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("masked cross-entropy (nats)")
    fig.legend(loc="outside upper center", ncols=3, fontsize=9)
    return fig


@value("trained-length")
def length_value() -> str:
    return str(length())


@value("trained-warmup-length")
def warmup_length_value() -> str:
    return str(record(0)["settings"]["warmup_length"])


@value("trained-warmup-steps")
def warmup_steps_value() -> str:
    return f"{record(0)['settings']['warmup_steps']:,}"


@value("trained-steps")
def steps_value() -> str:
    return f"{record(0)['settings']['steps']:,}"


@value("trained-batch")
def batch_value() -> str:
    return str(record(0)["settings"]["batch"])


@value("trained-learning-rate")
def learning_rate_value() -> str:
    lr = record(0)["settings"]["learning_rate"]
    mantissa, exponent = f"{lr:.0e}".split("e")
    return rf"{mantissa} \times 10^{{{int(exponent)}}}"


@value("trained-log-every")
def log_every_value() -> str:
    return str(record(0)["settings"]["log_every"])


@value("trained-parameters")
def parameters_value() -> str:
    return f"{record(0)['parameters']:,}"


@value("trained-kilobytes")
def kilobytes_value() -> str:
    return f"{4 * record(0)['parameters'] / 1000:.0f}"


@value("trained-segment-min")
def segment_min_value() -> str:
    return str(SEGMENT[0])


@value("trained-segment-max")
def segment_max_value() -> str:
    return str(SEGMENT[1])


@value("trained-cpu-min")
def cpu_min_value() -> str:
    return f"{min(record(s)['timing']['cpu_seconds'] for s in SEEDS):.0f}"


@value("trained-cpu-max")
def cpu_max_value() -> str:
    return f"{max(record(s)['timing']['cpu_seconds'] for s in SEEDS):.0f}"


@value("trained-ms-per-step")
def ms_per_step_value() -> str:
    steps = record(0)["settings"]["steps"]
    mean = np.mean([record(s)["timing"]["cpu_seconds"] for s in SEEDS])
    return f"{1000 * mean / steps:.0f}"


@value("trained-prompts")
def prompts_value() -> str:
    return str(PROMPTS)


@value("trained-scored")
def scored_value() -> str:
    return f"{study()['base']['seed-0'].scored:,}"


# --- the trained heads beside the hand-built ones ------------------------------------------------


def _range(values, digits: int = 3, floor: bool = False) -> str:
    lo, hi = min(values), max(values)
    show = (lambda x: floor_to(x, digits)) if floor else (lambda x: f"{x:.{digits}f}")
    a, b = show(lo), show(hi)
    return a if a == b else f"{a}–{b}"


def _seeds(key) -> list[float]:
    return [key(f"seed-{s}") for s in SEEDS]


@value("trained-accuracy", field="accuracy")
@value("trained-previous", field="previous")
@value("trained-induction", field="induction")
def base_range(field: str = "accuracy") -> str:
    """The range over the three seeds (rounded down: the page says "at least")."""
    return _range(_seeds(lambda n: getattr(study()["base"][n], field)), floor=True)


@value("trained-hand-accuracy", field="accuracy")
@value("trained-hand-previous", field="previous")
def hand_value(field: str = "accuracy") -> str:
    return floor_to(getattr(study()["base"]["hand-built"], field), 3)


PATTERN_SEED = 7
"""Seed of the clean prompt the patterns are drawn for."""


@register(
    "trained-patterns",
    caption=r"Attention patterns on one clean prompt of {{ value('trained-length') }} positions. "
    r"Top: the trained model (seed 0); bottom: the hand-built one. Left: layer 0; right: "
    r"layer 1. The orange line marks the first query of the second copy of the segment.",
    alt="Four heat maps of attention, query position down, key position across. Both layer-0 "
    "maps are a bright line just below the diagonal: every query attends to the key one step "
    "back. Both layer-1 maps have scattered bright cells in the upper rows; in the bottom rows "
    "each query of the second copy attends to one key of the first copy, a bright line "
    "parallel to the diagonal.",
)
def patterns_figure():
    L = length()
    b = batch(PATTERN_SEED, 1, L, clean=True)
    seg = int(b.segment[0])
    fig, axes = new_figure(2, 2, width=7.2, height=7.0)
    mask = np.tri(L, dtype=bool)
    for row, name in enumerate(("seed-0", "hand-built")):
        tr = forward_ids(weights_of(name), b.tokens[0])
        for col, A in enumerate((tr.A0, tr.A1)):
            ax = axes[row, col]
            attention_heatmap(ax, A, mask, tick_every=16)
            ax.set_title(f"{'trained, seed 0' if row == 0 else 'hand-built'}: layer {col}",
                         fontsize=11)  # fmt: skip
            ax.axhline(L - seg - 0.5, color=COLORS[5], lw=1.2)
    return fig


# --- which pairs each layer uses ------------------------------------------------------------


@register(
    "trained-pairs",
    caption=r"Each pair's share of the trained heads' score advantage for their target key, "
    r"three seeds; pair 0 turns fastest. The dashed line is where a pair's wavelength "
    r"\(2\pi/\theta_i\) equals the training length, {{ value('trained-length') }}: pairs to its "
    r"right turn less than once over a training sequence.",
    alt="Two bar charts of share against pair index 0 to 31. Layer 0: nearly all of the share "
    "sits in the first four pairs, pair 0 the largest with about half. Layer 1: almost nothing "
    "in pairs 0 to 7, then a few percent in each pair to the right of the dashed line near "
    "pair 8, spread over all the slow pairs.",
)
def pairs_figure():
    st = study()
    fig, axes = new_figure(2, 1, width=7.2, height=5.2, sharex=True)
    i = np.arange(32)
    width = 0.27
    for layer, ax in enumerate(axes):
        for k, s in enumerate(SEEDS):
            share = st["pairs"][f"seed-{s}"][layer]
            ax.bar(i + (k - 1) * width, share, width, color=COLORS[k], label=f"seed {s}")
        ax.axvline(wavelength_pair(length()), color="0.3", ls="--", lw=1)
        ax.set_ylabel(f"layer {layer}: share")
        ax.axhline(0, color="0.6", lw=0.6)
    axes[0].legend(fontsize=9)
    axes[1].set_xlabel(r"pair $i$ ($\theta_i = 10000^{-2i/64}$)")
    return fig


def _share(name: str, layer: int, lo: int, hi: int) -> float:
    return float(study()["pairs"][name][layer][lo:hi].sum())


@value("trained-l0-pair0", layer=0, lo=0, hi=1)
@value("trained-l0-pairs0-3", layer=0, lo=0, hi=4)
@value("trained-l0-pairs0-7", layer=0, lo=0, hi=8)
@value("trained-l1-pairs0-7", layer=1, lo=0, hi=8)
@value("trained-l1-pairs16-31", layer=1, lo=16, hi=32)
@value("trained-l1-pair31", layer=1, lo=31, hi=32)
def share_value(layer: int = 0, lo: int = 0, hi: int = 1) -> str:
    """A band's share of the advantage in percent, the range over the seeds."""
    shares = [100 * _share(f"seed-{s}", layer, lo, hi) for s in SEEDS]
    a, b = f"{min(shares):.0f}", f"{max(shares):.0f}"
    return a if a == b else f"{a}–{b}"


@value("trained-l1-slow-share")
def beyond_share_value() -> str:
    """Layer 1's share in the pairs whose wavelength exceeds the training length."""
    lo = math.floor(wavelength_pair(length())) + 1
    shares = [100 * _share(f"seed-{s}", 1, lo, 32) for s in SEEDS]
    a, b = f"{min(shares):.0f}", f"{max(shares):.0f}"
    return a if a == b else f"{a}–{b}"


@value("trained-wavelength-pair")
def wavelength_pair_value() -> str:
    return f"{wavelength_pair(length()):.2f}"


@value("trained-first-slow-pair")
def first_slow_pair_value() -> str:
    return str(math.floor(wavelength_pair(length())) + 1)


@value("trained-pair8-wavelength")
def pair8_wavelength_value() -> str:
    return f"{2 * math.pi / frequencies(64)[8]:.1f}"


# --- band ablation and K-composition -------------------------------------------------------------


@value("trained-ablation-l0-no-fast8", key="l0-no-fast8")
@value("trained-ablation-l1-no-fast16", key="l1-no-fast16")
@value("trained-ablation-l1-no-slow16", key="l1-no-slow16")
@value("trained-ablation-l0-only-fast8", key="l0-only-fast8")
def ablation_range(key: str = "l0-no-fast8") -> str:
    return _range(_seeds(lambda n: study()["ablation"][n][key].accuracy), digits=2)


@value("trained-ablation-hand-l0-no-fast8", key="l0-no-fast8")
@value("trained-ablation-hand-l1-no-fast16", key="l1-no-fast16")
@value("trained-ablation-hand-l1-no-slow16", key="l1-no-slow16")
@value("trained-ablation-hand-l0-only-fast8", key="l0-only-fast8")
def ablation_hand(key: str = "l0-no-fast8") -> str:
    return f"{study()['ablation']['hand-built'][key].accuracy:.2f}"


@value("trained-cut-keys", cut="keys", field="accuracy")
@value("trained-cut-keys-induction", cut="keys", field="induction")
@value("trained-cut-queries", cut="queries", field="accuracy")
@value("trained-hand-cut-keys", cut="keys", field="accuracy", name="hand-built")
@value("trained-hand-cut-queries", cut="queries", field="accuracy", name="hand-built")
def cut_value(cut: str = "keys", field: str = "accuracy", name: str = "") -> str:
    if name:
        return f"{getattr(study()['cut'][name][cut], field):.2f}"
    return _range(_seeds(lambda n: getattr(study()["cut"][n][cut], field)), digits=2)


# --- context extension ----------------------------------------------------------------------


@register(
    "trained-extension",
    caption=r"Four times the training length ({{ value('trained-long') }} positions, "
    r"{{ value('trained-long-prompts') }} clean prompts): induction accuracy (left) and layer "
    r"0's mean weight on the key one step back (right) for each method, trained seeds and the "
    r"hand-built model.",
    alt="Two grouped bar charts, four groups each (no scaling, Position Interpolation, "
    "NTK-aware, YaRN), four bars per group (three seeds and the hand-built model). Position "
    "Interpolation's bars are near zero in both panels; the hand-built bars are at 1 in every "
    "other group, the trained ones lower without scaling and higher with NTK-aware and YaRN.",
)
def extension_figure():
    st = study()
    fig, axes = new_figure(1, 2, width=7.2, height=3.6, sharey=True)
    x = np.arange(len(METHODS))
    width = 0.2
    for k, name in enumerate(MODELS):
        rows = [st["ext"][name][m] for m in METHODS]
        label = name.replace("seed-", "seed ")
        axes[0].bar(x + (k - 1.5) * width, [r.accuracy for r in rows], width, color=COLORS[k],
                    label=label)  # fmt: skip
        axes[1].bar(x + (k - 1.5) * width, [r.previous for r in rows], width, color=COLORS[k])
    for ax, title in zip(axes, ("accuracy", r"layer 0: weight on $m-1$"), strict=True):
        ax.set_xticks(x, [LABELS[m].replace(" ", "\n", 1) for m in METHODS], fontsize=9)
        ax.set_title(title, fontsize=11)
        ax.set_ylim(0, 1.05)
    fig.legend(loc="outside upper center", ncols=4, fontsize=9)
    return fig


@value("trained-long")
def long_value() -> str:
    return str(int(FACTOR * length()))


@value("trained-long-prompts")
def long_prompts_value() -> str:
    return str(LONG_PROMPTS)


@value("trained-factor")
def factor_value() -> str:
    return f"{FACTOR:g}"


@value("trained-ext-none", method="none", field="accuracy")
@value("trained-ext-linear", method="linear", field="accuracy")
@value("trained-ext-ntk", method="ntk", field="accuracy")
@value("trained-ext-yarn", method="yarn", field="accuracy")
@value("trained-ext-none-previous", method="none", field="previous")
@value("trained-ext-linear-previous", method="linear", field="previous")
@value("trained-ext-ntk-previous", method="ntk", field="previous")
@value("trained-ext-yarn-previous", method="yarn", field="previous")
def ext_value(method: str = "none", field: str = "accuracy") -> str:
    m = None if method == "none" else method
    return _range(_seeds(lambda n: getattr(study()["ext"][n][m], field)), digits=2)


@value("trained-hand-ext-none", method="none")
@value("trained-hand-ext-linear", method="linear")
@value("trained-hand-ext-ntk", method="ntk")
@value("trained-hand-ext-yarn", method="yarn")
def hand_ext_value(method: str = "none") -> str:
    m = None if method == "none" else method
    return f"{study()['ext']['hand-built'][m].accuracy:.2f}"


@value("trained-linear-pair0")
def linear_pair0_value() -> str:
    """Pair 0's frequency under Position Interpolation at the page's factor."""
    f, _ = scaled_frequencies(64, method="linear", factor=FACTOR, original_max_position=length())
    return f"{f[0]:.2f}"


def ghost(name: str) -> tuple[int, float]:
    """The offset of at least ``GHOST_FROM`` where layer 0 puts the most weight, and that weight."""
    weight, _ = study()["profile"][name]
    far = np.arange(GHOST_FROM, weight.size)
    k = int(far[np.argmax(weight[far])])
    return k, float(weight[k])


def ghost_seed() -> str:
    return max((f"seed-{s}" for s in SEEDS), key=lambda n: ghost(n)[1])


@register(
    "trained-ghost",
    caption=r"Layer 0 at four times the training length without scaling: the mean weight each "
    r"query puts on the key at each offset \(m - n\) (log scale), trained seeds and the "
    r"hand-built model. Offsets right of the dotted line never occur in a training sequence.",
    alt="Mean attention weight against offset 0 to 255 on a log axis. Every curve peaks at "
    "offset 1 near 1. The trained curves show narrow spikes at larger offsets, the highest of "
    "them past the dotted line at 64 near a tenth; the hand-built curve drops below the axis "
    "after the first few offsets.",
)
def ghost_figure():
    st = study()
    fig, ax = new_figure(width=7.2, height=3.4)
    for k, name in enumerate(MODELS):
        weight, _ = st["profile"][name]
        ax.plot(np.arange(1, weight.size), np.maximum(weight[1:], 1e-8), color=COLORS[k],
                lw=1, label=name.replace("seed-", "seed "))  # fmt: skip
    ax.axvline(GHOST_FROM, color="0.4", ls=":", lw=1)
    ax.set_yscale("log")
    ax.set_ylim(1e-6, 2)
    ax.set_xlabel(r"offset $m - n$")
    ax.set_ylabel("mean weight")
    ax.legend(fontsize=9, ncols=4)
    return fig


@value("trained-ghost-seed")
def ghost_seed_value() -> str:
    return ghost_seed().split("-")[1]


@value("trained-ghost-offset")
def ghost_offset_value() -> str:
    return str(ghost(ghost_seed())[0])


@value("trained-ghost-weight")
def ghost_weight_value() -> str:
    return f"{100 * ghost(ghost_seed())[1]:.1f}"


@value("trained-ghost-pairs")
def ghost_pairs_value() -> str:
    """The fast pairs (0-7) that are within 0.5 rad of where they were one step back at the
    ghost's offset: \\((\\Delta - 1)\\theta_i\\) close to a multiple of \\(2\\pi\\)."""
    offset = ghost(ghost_seed())[0]
    theta = frequencies(64)[:8]
    phase = np.remainder((offset - 1) * theta + math.pi, 2 * math.pi) - math.pi
    pairs = [str(i) for i in np.nonzero(np.abs(phase) < 0.5)[0]]
    return ", ".join(pairs[:-1]) + " and " + pairs[-1] if len(pairs) > 1 else "".join(pairs)


@value("trained-hand-ghost-weight")
def hand_ghost_weight_value() -> str:
    """The hand-built head's largest mean weight past the training length, in percent, rounded
    up (the page says "below")."""
    return ceil_to(100 * ghost("hand-built")[1], 3)


# --- without the warm-up -------------------------------------------------------------------


@register(
    "trained-nowarmup",
    caption=r"The runs without the warm-up: layer 0's mean weight at each offset \(m - n\) on "
    r"clean prompts of the training length (left) and each pair's share of layer 0's score "
    r"advantage for the key one step back (right).",
    alt="Left: mean attention weight against offset 0 to 63 for three runs. Two runs peak at "
    "offset 1 near 0.9 with smaller bumps near offsets 51 and 58; the third has almost nothing "
    "at offset 1 and peaks at offsets 21 and 22. Right: bar chart of layer 0's share against "
    "pair index for the same runs, nearly all of it in pairs 0 to 10.",
)
def nowarmup_figure():
    st = study()["nowarmup"]
    fig, (ax, bx) = new_figure(1, 2, width=7.2, height=3.4)
    for s in SEEDS:
        weight, _ = st[s]["profile"]
        ax.plot(np.arange(weight.size), weight, "o-", ms=3, lw=1, color=COLORS[s],
                label=f"seed {s}")  # fmt: skip
        bx.bar(np.arange(32) + (s - 1) * 0.27, st[s]["pairs"][0], 0.27, color=COLORS[s])
    ax.set_xlabel(r"offset $m - n$")
    ax.set_ylabel("layer 0: mean weight")
    ax.legend(fontsize=9)
    bx.set_xlabel("pair $i$")
    bx.set_ylabel("layer 0: share")
    return fig


@value("trained-nowarmup-accuracy-0", seed=0, field="accuracy")
@value("trained-nowarmup-previous-0", seed=0, field="previous")
@value("trained-nowarmup-induction-0", seed=0, field="induction")
@value("trained-nowarmup-accuracy-1", seed=1, field="accuracy")
@value("trained-nowarmup-previous-1", seed=1, field="previous")
@value("trained-nowarmup-induction-1", seed=1, field="induction")
@value("trained-nowarmup-accuracy-2", seed=2, field="accuracy")
@value("trained-nowarmup-previous-2", seed=2, field="previous")
@value("trained-nowarmup-induction-2", seed=2, field="induction")
def nowarmup_value(seed: int = 0, field: str = "accuracy") -> str:
    return f"{getattr(study()['nowarmup'][seed]['eval'], field):.2f}"


@value("trained-nowarmup-offset-0", seed=0)
@value("trained-nowarmup-offset-1", seed=1)
@value("trained-nowarmup-offset-2", seed=2)
def nowarmup_offset_value(seed: int = 0) -> str:
    """Layer 0's favourite non-zero offset in the run without the warm-up."""
    return str(study()["nowarmup"][seed]["offset"])


def fixed_offset_seed() -> int:
    """The run without the warm-up whose layer 0 looks furthest back (its favourite offset)."""
    runs = study()["nowarmup"]
    return max(SEEDS, key=lambda s: runs[s]["offset"])


@value("trained-fixed-seed")
def fixed_seed_value() -> str:
    return str(fixed_offset_seed())


@value("trained-fixed-offset")
def fixed_offset_value() -> str:
    return str(study()["nowarmup"][fixed_offset_seed()]["offset"])


@value("trained-fixed-offset-before")
def fixed_offset_before_value() -> str:
    return str(study()["nowarmup"][fixed_offset_seed()]["offset"] - 1)


@value("trained-fixed-weight", back=0)
@value("trained-fixed-weight-before", back=1)
def fixed_weight_value(back: int = 0) -> str:
    run = study()["nowarmup"][fixed_offset_seed()]
    weight, _ = run["profile"]
    return f"{weight[run['offset'] - back]:.2f}"


@value("trained-fixed-layer1", key="layer1_at_offset", percent=False)
@value("trained-fixed-far", key="far_accuracy", percent=False)
@value("trained-fixed-near", key="near_accuracy", percent=False)
@value("trained-fixed-far-share", key="far_share", percent=True)
def fixed_value(key: str = "far_accuracy", percent: bool = False) -> str:
    x = study()["nowarmup"][fixed_offset_seed()][key]
    return f"{100 * x:.0f}" if percent else f"{x:.2f}"


@value("trained-pi-peak")
def pi_peak_value() -> str:
    """The offsets where layer 0's mean weight peaks under Position Interpolation, over the
    seeds ("3 and 4", or one number when they agree)."""
    peaks = sorted({int(np.argmax(study()["pi_profile"][f"seed-{s}"][0])) for s in SEEDS})
    return " and ".join(map(str, peaks)) if len(peaks) <= 2 else ", ".join(map(str, peaks))


@value("trained-eval-seed")
def eval_seed_value() -> str:
    return str(EVAL_SEED)
