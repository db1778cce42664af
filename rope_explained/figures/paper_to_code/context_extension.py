r"""Figures and values of the page on context extension.

Every number comes from ``rope_explained.extension`` at build time. The sweeps share one
computation per build ([`study`][]), cached in the process, and each figure and value goes
through the figure and value caches like every other.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ... import hf
from ...embedding import VOCAB
from ...extension import (
    distance_prompts,
    horizon_reached,
    induction_curve,
    predict_last_many,
    predicted_horizon,
    previous_token_profile,
    recency_accuracy,
    sweep_distances,
)
from ...model import Config
from ...rope import ROPE_TYPES, frequencies, scaled_frequencies, yarn_keep
from ...sources import source_link
from .. import register, value
from ..style import COLORS, legend_columns, new_figure

L = 1024
"""The context the model is taken to have been built for: the power of two just past the
measured horizon, so that factor 8 reaches 8,192 letters, the longest text it reads."""
METHODS = ("linear", "ntk", "dynamic-ntk", "yarn", "llama3")
LABELS = {
    None: "no scaling",
    "linear": "linear (PI)",
    "ntk": "NTK-aware",
    "dynamic-ntk": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
}
FACTORS = (2.0, 4.0, 8.0)
LOW, HIGH, COUNT, PER_DISTANCE, SEED = 100, 8000, 12, 6, 0
"""The sweep: log-spaced distances between the two A's, prompts per distance, seed."""
PREVIOUS_AT = 4 * L
"""Length of the text whose last query the table's previous-token column reads."""
BANDS = (0, 1, 2, 3, 4, 8, 16)
"""Bands of pairs the ablation stops, fastest or slowest."""
ABLATION_DISTANCES = (300, 2000)


def settings(method: str | None, factor: float | None) -> dict:
    """The Config settings of a method at a factor (``{}`` without scaling)."""
    if method is None:
        return {}
    return {"scaling": method, "factor": float(factor), "original_max_position": L}


def distances() -> list[int]:
    """The sweep's distances, with 2x and 4x the predicted original horizon among them, and one
    between that horizon and L (where dynamic NTK still changes nothing)."""
    fixed = [*table_distances(), inside_distance()]
    sweep = [
        g for g in sweep_distances(LOW, HIGH, COUNT) if min(abs(g / t - 1) for t in fixed) > 0.03
    ]
    return sorted({*sweep, *fixed})


def inside_distance() -> int:
    """Halfway between the unscaled model's predicted failure point and L."""
    return (round(original_horizon()) + L) // 2


def table_distances() -> list[int]:
    return [round(2 * original_horizon()), round(4 * original_horizon())]


def original_horizon() -> float:
    return predicted_horizon()


@functools.lru_cache(maxsize=1)
def study() -> dict:
    """Every sweep of the page, computed once per build process."""
    D = distances()
    table_at = table_distances()
    rows = {}
    for method in (None, *METHODS):
        for s in (None,) if method is None else FACTORS:
            cfg = settings(method, s)
            curve = induction_curve(D, PER_DISTANCE, SEED, **cfg)
            previous, back = previous_token_profile(PREVIOUS_AT, **cfg)
            rows[method, s] = {
                "curve": curve,
                "horizon": horizon_reached(D, curve),
                "previous": float(previous[-1]),
                "back": int(back[-1]),
                "at": [float(curve[D.index(g)]) for g in table_at],
            }
    return {"distances": D, "table_at": table_at, "rows": rows}


# --- 1. the horizon without scaling -------------------------------------------------------------


def _curve_axes(ax):
    ax.set_xscale("log")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("distance between the two A's (tokens)")
    ax.axvline(L, color="0.5", linewidth=0.8, linestyle=":")


@register(
    "ctx-horizon",
    caption=(
        r"Induction accuracy of the unscaled model against the distance between the two "
        r"\(A\)'s, {{ value('ctx-per-distance') }} seeded prompts per distance. The dashed line is "
        r"the predicted failure point \(\pi/(26\,\theta_{d/2-1}) \approx "
        r"{{ value('ctx-predicted-horizon') }}\) tokens; the dotted one the original context "
        r"\(L = {{ value('ctx-original') }}\). Right: a finer sweep across the edge, "
        r"{{ value('ctx-fine-prompts') }} other prompts at distances ten tokens apart; the grey "
        r"line marks half right."
    ),
    alt=(
        "Two line plots of accuracy from 0 to 1. Left: distance from 100 to 8000 tokens on a "
        "log axis; the accuracy is 1 up to about 750 tokens and 0 at about 970, past the "
        "dashed line near 900 tokens, staying near 0 to 8000. Right: distances 800 to 960; "
        "the accuracy falls from 1 to below one half between 860 and 870, before the dashed "
        "line at 906, and to about 0.1 by 900."
    ),
)
def horizon():
    st = study()
    D, row = st["distances"], st["rows"][None, None]
    fig, (ax, zoom) = new_figure(1, 2, width=7.2, height=3.4, sharey=True,
                                 gridspec_kw={"width_ratios": (3, 2)})  # fmt: skip
    ax.plot(D, row["curve"], "o-", color=COLORS[0], label="measured")
    ax.axvline(original_horizon(), color=COLORS[5], linestyle="--", label="predicted")
    _curve_axes(ax)
    ax.set_ylabel("accuracy")
    ax.legend(loc="upper right", fontsize=8)
    grid, fine = fine_curve()
    zoom.plot(grid, fine, "s-", markersize=3.5, color=COLORS[2], label="finer sweep")
    zoom.axvline(original_horizon(), color=COLORS[5], linestyle="--")
    zoom.axhline(0.5, color="0.6", linewidth=0.8)
    zoom.set_xlabel("distance (tokens), finer sweep")
    zoom.legend(loc="upper right", fontsize=8)
    return fig


# --- 2. the methods -----------------------------------------------------------------------------


def frequency_ratios(factor: float = 4.0, seq_len: int = 4 * L) -> dict:
    """theta'_i / theta_i per pair for each method (dynamic NTK at ``seq_len``)."""
    cfg = Config()
    theta = frequencies(cfg.d, cfg.base)
    out = {}
    for method in METHODS:
        scaled, _ = scaled_frequencies(
            cfg.d, base=cfg.base, method=method, factor=factor, original_max_position=L,
            seq_len=seq_len,
        )  # fmt: skip
        out[method] = scaled / theta
    keep = yarn_keep(cfg.d, base=cfg.base, original_max_position=L, ramp="paper")
    out["yarn-paper"] = (1 - keep) / factor + keep
    return out


@register(
    "ctx-frequencies",
    caption=(
        r"Which pairs each method changes, at factor \(s = 4\) and \(L = "
        r"{{ value('ctx-original') }}\): the new frequency over the old, \(\theta'_i/\theta_i\), "
        r"for each of the 32 pairs of the head (pair 0 turns fastest). Dynamic NTK is shown at a "
        r"text of \(4L\) tokens. The dotted YaRN line is the paper's ramp (linear in turns), the "
        r"solid one the reference code's (linear in the pair index), which the package uses. "
        r"Layer 0 relies on the fast pairs; layer 1 lives in pair 31."
    ),
    alt=(
        "Line plot, pair index 0 to 31 across, ratio of new to old frequency from about 0.07 "
        "to 1 on a log axis. Linear is flat at 0.25. NTK-aware falls smoothly from 1 at pair "
        "0 to 0.25 at pair 31; dynamic NTK falls further, to about 0.08. YaRN and Llama 3.1 "
        "stay at 1 for the first pairs, fall over a band of middle pairs and are 0.25 for "
        "the slowest ones."
    ),
)
def frequency_figure():
    r = frequency_ratios()
    i = np.arange(r["linear"].size)
    fig, ax = new_figure(width=7.2, height=3.6)
    for k, method in enumerate(METHODS):
        ax.plot(i, r[method], "-", marker="os^vD"[k], markersize=3.5, color=COLORS[k],
                label=LABELS[method])  # fmt: skip
    ax.plot(i, r["yarn-paper"], ":", color=COLORS[3], label="YaRN, paper's ramp")
    ax.set_yscale("log")
    ax.set_xlabel(r"pair $i$ (fast $\rightarrow$ slow)")
    ax.set_ylabel(r"$\theta'_i / \theta_i$")
    ax.legend(loc="lower left", fontsize=8, ncols=legend_columns(2))
    return fig


@register(
    "ctx-methods",
    caption=(
        r"Induction accuracy against distance under each method, at factors 2, 4 and 8 "
        r"(\(L = {{ value('ctx-original') }}\)); dashed lines: the predicted failure points "
        r"\(\pi/(26\,\theta'_{d/2-1})\), at \(s\) times {{ value('ctx-predicted-horizon') }} "
        r"tokens, for the three methods that have a fixed one; dotted: \(L\). Linear scaling "
        r"fails at every distance; dynamic NTK's frequencies depend on the length of the text, "
        r"so it has no fixed failure point."
    ),
    alt=(
        "Five small line plots, one per method, accuracy against distance from 100 to 8000 "
        "tokens on log axes, one line per factor 2, 4 and 8. Linear: near 0 everywhere. "
        "NTK-aware, YaRN and Llama 3.1: accuracy 1 up to about 1600, 2400 and 5400 tokens for "
        "factors 2, 4 and 8, then near 0 from about 1800, 3600 and 8000. Dynamic NTK: 1 "
        "everywhere except at about 970 tokens, where all three factors fail, and at about "
        "1090, where factor 2 fails and factor 4 gets half right."
    ),
)
def methods_figure():
    st = study()
    D = st["distances"]
    fig, axes = new_figure(3, 2, width=7.2, height=7.6, sharex=True, sharey=True)
    axes = axes.ravel()
    for a, method in enumerate(METHODS):
        ax = axes[a]
        for k, s in enumerate(FACTORS):
            ax.plot(D, st["rows"][method, s]["curve"], "o-", markersize=3, color=COLORS[k],
                    label=f"s = {s:g}")  # fmt: skip
            if method not in ("dynamic-ntk", "linear"):
                ax.axvline(s * original_horizon(), color=COLORS[k], linestyle="--", lw=0.8)
        _curve_axes(ax)
        ax.set_title(LABELS[method], fontsize=10)
    axes[0].legend(loc="center left", fontsize=8)
    for ax in axes[0::2]:
        ax.set_ylabel("accuracy")
    axes[-1].axis("off")
    for ax in axes[:3]:
        ax.set_xlabel("")
    for ax in axes[3:5]:
        ax.xaxis.set_tick_params(labelbottom=True)
        ax.set_xlabel("distance between the A's (tokens)")
    return fig


def layer0_rows(factor: float = 4.0, T: int = 4 * L, back: int = 10) -> dict:
    r"""The last query's layer-0 weights on the keys \(0, \ldots,\) ``back`` steps back."""
    from ...extension import layer0_kernel

    out = {}
    for method in (None, *METHODS):
        f = layer0_kernel(T, **settings(method, factor))
        w = np.exp(f - f.max())
        out[method] = w[: back + 1] / w.sum()
    return out


@register(
    "ctx-previous",
    caption=(
        r"The previous-token head under each method at \(s = 4\): the last query's layer-0 "
        r"attention on the keys 0 to 10 steps back, in a text of \(4L\) tokens. Only linear "
        r"scaling moves the peak, to 4 steps back, and flattens it: "
        r"{{ value('ctx-linear-peak-4') }} there and {{ value('ctx-linear-side-4') }} on each "
        r"neighbour. The others keep it one step back."
    ),
    alt=(
        "Line plot, steps back from 0 to 10 across, attention weight from 0 to 1 up. Every "
        "method except linear puts weight about 1 on one step back. Linear puts about half on "
        "four steps back and about a quarter on each of three and five steps back."
    ),
)
def previous_figure():
    rows = layer0_rows()
    fig, ax = new_figure(width=7.2, height=3.2)
    delta = np.arange(11)
    for k, method in enumerate((None, *METHODS)):
        ax.plot(delta + (k - 2.5) * 0.06, rows[method], "o-", markersize=4,
                color=COLORS[(k - 1) % len(COLORS)] if method else "0.3",
                label=LABELS[method])  # fmt: skip
    ax.set_xticks(delta)
    ax.set_xlabel(r"steps back, $m - n$")
    ax.set_ylabel(r"$A^{(0)}_{m,n}$")
    ax.legend(fontsize=8, ncols=legend_columns(2), loc="center right")
    return fig


# --- YaRN's attention factor and dynamic NTK ----------------------------------------------------


def yarn_factor(factor: float) -> float:
    return scaled_frequencies(2, method="yarn", factor=factor, original_max_position=L)[1]


def edge_distances(factor: float = 4.0) -> list[int]:
    """Distances every 50 tokens across YaRN's edge at ``factor``: from 80% to 102% of the
    predicted failure point factor x 906, in whole hundreds."""
    h = factor * original_horizon()
    return list(range(int(round(0.8 * h, -2)), int(round(1.02 * h, -2)) + 1, 50))


def match_weight(factor: float = 4.0, with_factor: bool = True, n: int = PER_DISTANCE):
    """Mean layer-1 weight of the last query on the true match (the key after the first A)
    at the [`edge_distances`][], YaRN at ``factor``; without the factor, alpha and beta are
    divided by its square, which undoes it exactly (scores are bilinear in q and k)."""
    cfg = settings("yarn", factor)
    if not with_factor:
        a2 = yarn_factor(factor) ** 2
        cfg |= {"alpha": Config().alpha / a2, "beta": Config().beta / a2}
    out = []
    for g in edge_distances(factor):
        _, A1 = predict_last_many([p.text for p in distance_prompts(g, n, SEED)], **cfg)
        out.append(float(A1[:, 2].mean()))  # key 2 = the letter after the first A (<s> is 0)
    return np.array(out)


def dynamic_horizon(factor: float, lengths: np.ndarray) -> np.ndarray:
    """The predicted failure point of dynamic NTK at each text length."""
    step = 2 * math.pi / len(VOCAB)
    cfg = Config()
    out = []
    for ell in lengths:
        theta, _ = scaled_frequencies(
            cfg.d, base=cfg.base, method="dynamic-ntk", factor=factor,
            original_max_position=L, seq_len=int(ell),
        )  # fmt: skip
        out.append(step / 2 / theta[-1])
    return np.array(out)


@register(
    "ctx-yarn-dynamic",
    caption=(
        r"Left: YaRN at \(s = 4\) across its edge (dashed: the predicted failure point, 4 "
        r"times {{ value('ctx-predicted-horizon') }} tokens), the last query's layer-1 weight on "
        r"the true match (the key after the first \(A\)), averaged over "
        r"{{ value('ctx-per-distance') }} prompts every 50 tokens, with and without the "
        r"attention factor \((0.1\ln s + 1)^2\) on the scores. Right: dynamic NTK's "
        r"predicted failure point \(\pi/(26\,\theta'_{d/2-1})\) against the length \(\ell\) of "
        r"the text; the model can complete a prompt of length \(\ell\) where the curve lies "
        r"above the line \(\ell - 2\) (grey), the distance between the prompt's two \(A\)'s."
    ),
    alt=(
        "Two panels. Left: weight on the match against distance from 2900 to 3700 tokens; "
        "both lines fall from near 1 to near 0 across the dashed line at about 3600, the line "
        "with the factor above the one without all the way, by up to about 0.2. Right: "
        "failure point against text length, both on log axes from 100 to 8000; three curves "
        "for factors 2, 4, 8 flat at about 900 up to 1024, then rising steeply and crossing "
        "above the grey diagonal."
    ),
)
def yarn_dynamic_figure():
    D = edge_distances()
    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.4)
    ax0.axvline(4 * original_horizon(), color="0.5", linestyle="--", linewidth=0.8)
    ax0.plot(D, match_weight(with_factor=True), "o-", markersize=3, color=COLORS[3],
             label="with factor")  # fmt: skip
    ax0.plot(D, match_weight(with_factor=False), "s--", markersize=3, color=COLORS[0],
             label="without")  # fmt: skip
    ax0.set_ylim(-0.05, 1.05)
    ax0.set_xlabel("distance (tokens)")
    ax0.set_ylabel("weight on the match")
    ax0.legend(fontsize=8, loc="lower left")
    ells = np.geomspace(LOW, HIGH, 60)
    for k, s in enumerate(FACTORS):
        ax1.plot(ells, dynamic_horizon(s, ells), color=COLORS[k], label=f"s = {s:g}")
    ax1.plot(ells, ells - BOS_AND_LAST, color="0.6", linewidth=1)
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel(r"text length $\ell$")
    ax1.set_ylabel("failure point (tokens)")
    ax1.legend(fontsize=8, loc="upper left")
    return fig


# --- 3. ablations -------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def ablation() -> dict:
    """For each band size k, fastest and slowest: layer 0's weight one step back (last query
    of a text of L tokens) and the induction accuracy at the ablation's distances."""
    out = {}
    for side in ("fast", "slow"):
        for k in BANDS:
            cfg = {f"unrotated_{side}": k}
            previous, _ = previous_token_profile(L, **cfg)
            acc = induction_curve(list(ABLATION_DISTANCES), PER_DISTANCE, SEED, **cfg)
            out[side, k] = (float(previous[-1]), acc)
    return out


@register(
    "ctx-ablation",
    caption=(
        r"Stopping bands of pairs (frequency set to 0, in both layers, weights unchanged). "
        r"Left: the previous-token head's weight one step back (last query of \(L\) tokens). "
        r"Right: induction accuracy with the two \(A\)'s {{ value('ctx-ablation-near') }} and "
        r"{{ value('ctx-ablation-far') }} tokens apart. Stopping the fastest pairs breaks layer "
        r"0 and with it the circuit; stopping the slowest ones removes layer 1's horizon."
    ),
    alt=(
        "Two panels, band size K from 0 to 16 across. Left: weight one step back; stopping "
        "the slowest K pairs keeps it at 1, stopping the fastest K pairs drops it, to about "
        "0.6 at K = 4 and 0.04 at K = 16. Right: accuracy; slowest-K lines are at 1 at both "
        "distances for every K of at least 1; fastest-K lines drop to near 0 from K = 2."
    ),
)
def ablation_figure():
    ab = ablation()
    k = np.array(BANDS)
    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.4)
    for c, side in enumerate(("fast", "slow")):
        ax0.plot(k, [ab[side, j][0] for j in BANDS], "o-", color=COLORS[c],
                 label=f"{side}est K stopped")  # fmt: skip
        for t, g in enumerate(ABLATION_DISTANCES):
            ax1.plot(k, [ab[side, j][1][t] for j in BANDS], "os"[t] + "-:"[t], color=COLORS[c],
                     label=f"{side}est K, {g} apart")  # fmt: skip
    ax0.set_xlabel("pairs stopped, K")
    ax0.set_ylabel(r"$A^{(0)}_{m,m-1}$")
    ax0.legend(fontsize=8)
    ax1.set_xlabel("pairs stopped, K")
    ax1.set_ylabel("induction accuracy")
    ax1.legend(fontsize=7, loc="center right")
    for ax in (ax0, ax1):
        ax.set_ylim(-0.05, 1.05)
    return fig


RECENCY_NEAR = 50
RECENCY_FAR = (100, 200, 400, 600, 800)
RECENCY_PROMPTS = 16


@functools.lru_cache(maxsize=1)
def recency() -> dict:
    """Fractions of ``... A B ... A C ... A`` continued with C (nearer) and B, per far
    distance, with layer 1 rotating and without RoPE."""
    out = {}
    for rot in (True, False):
        out[rot] = np.array(
            [
                recency_accuracy(RECENCY_NEAR, far, RECENCY_PROMPTS, SEED, layer1_rotary=rot)
                for far in RECENCY_FAR
            ]
        )
    return out


@register(
    "ctx-recency",
    caption=(
        r"Two earlier copies: prompts \(\ldots A B \ldots A C \ldots A\) with the second \(A\) "
        r"{{ value('ctx-recency-near') }} tokens back and the first one further back (across), "
        r"{{ value('ctx-recency-prompts') }} prompts each. How often the model continues with "
        r"\(C\), the nearer copy's successor (solid), or \(B\) (dotted), with layer 1 rotating "
        r"as built and without RoPE."
    ),
    alt=(
        "Line plot, distance of the first copy from 100 to 800 across, fraction from 0 to 1 "
        "up. With rotation, the C line stays at or below 0.2 up to 400 and is 1 at 600 and "
        "800, and the B line is 0. Without rotation both lines stay at or below about 0.1 at "
        "every distance."
    ),
)
def recency_figure():
    rec = recency()
    fig, ax = new_figure(width=7.2, height=3.2)
    for c, rot in enumerate((True, False)):
        name = "rotating" if rot else "no RoPE"
        ax.plot(RECENCY_FAR, rec[rot][:, 0], "o-", color=COLORS[c], label=f"{name}: C")
        ax.plot(RECENCY_FAR, rec[rot][:, 1], "s:", color=COLORS[c], label=f"{name}: B")
    ax.set_xlabel("distance of the first copy (tokens)")
    ax.set_ylabel("fraction of prompts")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize=8, loc="upper left")
    return fig


# --- values -------------------------------------------------------------------------------------


@value("ctx-original")
def ctx_original() -> str:
    return f"{L:,}"


@value("ctx-predicted-horizon")
def ctx_predicted_horizon() -> str:
    """pi/26 over the slowest pair's frequency (the induction-head page's 906)."""
    return f"{original_horizon():.0f}"


@value("ctx-slowest-frequency")
def ctx_slowest_frequency() -> str:
    return f"{frequencies(Config().d, Config().base)[-1]:.3e}".replace("e-04", r" \times 10^{-4}")


@value("ctx-per-distance")
def ctx_per_distance() -> str:
    return str(PER_DISTANCE)


@value("ctx-distance-count")
def ctx_distance_count() -> str:
    return str(len(distances()))


@value("ctx-inside-distance")
def ctx_inside_distance() -> str:
    """The sampled distance between the predicted failure point and L."""
    return f"{inside_distance():,}"


@value("ctx-measured-horizon")
def ctx_measured_horizon() -> str:
    return f"{study()['rows'][None, None]['horizon']:,}"


@value("ctx-first-failure")
def ctx_first_failure() -> str:
    """The first sampled distance at which the unscaled model fails."""
    st = study()
    D, curve = st["distances"], st["rows"][None, None]["curve"]
    return f"{next(g for g, a in zip(D, curve, strict=True) if a < 0.5):,}"


@value("ctx-previous-at")
def ctx_previous_at() -> str:
    return f"{PREVIOUS_AT:,}"


@value("ctx-at-2x")
def ctx_at_2x() -> str:
    return f"{study()['table_at'][0]:,}"


@value("ctx-at-4x")
def ctx_at_4x() -> str:
    return f"{study()['table_at'][1]:,}"


def table_cell(method: str = "none", factor: float = 0.0, column: str = "previous") -> str:
    """One cell of the summary table."""
    key = (None, None) if method == "none" else (method, factor)
    row = study()["rows"][key]
    if column == "previous":
        return f"{row['previous']:.3f}"
    if column == "back":
        return str(row["back"])
    if column == "horizon":
        h = row["horizon"]
        return "none" if h == 0 else (f"{h:,}+" if h == study()["distances"][-1] else f"{h:,}")
    if column == "at2":
        return f"{row['at'][0]:.2f}"
    return f"{row['at'][1]:.2f}"


for _m in ("none", *METHODS):
    for _s in (0.0,) if _m == "none" else FACTORS:
        for _c in ("previous", "back", "horizon", "at2", "at4"):
            value(f"ctx-cell-{_m}-{_s:g}-{_c}", method=_m, factor=_s, column=_c)(table_cell)


@value("ctx-yarn-factor-2", factor=2.0)
@value("ctx-yarn-factor-4", factor=4.0)
@value("ctx-yarn-factor-8", factor=8.0)
def ctx_yarn_factor(factor: float = 4.0) -> str:
    """YaRN's factor on the scores, (0.1 ln s + 1)^2."""
    return f"{yarn_factor(factor) ** 2:.2f}"


@functools.lru_cache(maxsize=1)
def unrotated_layer1() -> np.ndarray:
    """Induction accuracy at the sweep's distances with layer 1 running without RoPE."""
    return induction_curve(distances(), PER_DISTANCE, SEED, layer1_rotary=False)


@value("ctx-norope-min")
def ctx_norope_min() -> str:
    """The lowest accuracy of the no-RoPE layer 1 over the sweep."""
    return f"{unrotated_layer1().min():.2f}"


FINE_LOW, FINE_HIGH, FINE_STEP, FINE_PROMPTS, FINE_SEED = 800, 960, 10, 32, 1
"""The finer sweep near the unscaled model's edge: distances, step, prompts per distance, seed."""


@functools.lru_cache(maxsize=1)
def fine_curve() -> tuple[list[int], np.ndarray]:
    """The unscaled model's accuracy on a 10-token grid across its edge, 32 fresh prompts
    per distance."""
    grid = list(range(FINE_LOW, FINE_HIGH + 1, FINE_STEP))
    return grid, induction_curve(grid, FINE_PROMPTS, FINE_SEED)


def fine_edge() -> tuple[int, int]:
    """The last distance of [`fine_curve`][]'s grid at which at least half the prompts are
    right, before the first at which fewer are, and that next one."""
    grid, curve = fine_curve()
    first_wrong = next(i for i, a in enumerate(curve) if a < 0.5)
    return grid[first_wrong - 1], grid[first_wrong]


@value("ctx-fine-right", which=0)
@value("ctx-fine-wrong", which=1)
def ctx_fine_edge(which: int = 0) -> str:
    """The finer sweep's last distance with at least half right (0) and the next one (1)."""
    return f"{fine_edge()[which]:,}"


@value("ctx-fine-prompts")
def ctx_fine_prompts() -> str:
    return str(FINE_PROMPTS)


BOS_AND_LAST = 2
"""A prompt whose two A's lie g letters apart is a text of g + 2 positions (the start token and
g + 1 letters): the distance the failure point must exceed is the length less 2."""


def completes(factor: float, ell: int) -> bool:
    """Whether dynamic NTK's predicted failure point, in a text of ``ell`` positions, exceeds
    the distance between the two A's of a prompt of that length, ``ell - 2``: the one criterion
    the page's text, the crossings and the diagonal of its figure use."""
    return bool(dynamic_horizon(factor, np.array([ell]))[0] > ell - BOS_AND_LAST)


def dynamic_crossing(factor: float) -> int:
    """The shortest text (positions, start token included) longer than L whose prompt dynamic
    NTK is predicted to complete ([`completes`][]), found by bisection: the failure point
    grows faster than the text past L."""
    lo, hi = L, 4 * L  # fails at L (906 < 1022); completes at 4L for every factor >= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if completes(factor, mid) else (mid, hi)
    return hi


@value("ctx-dynamic-cross-2", factor=2.0)
@value("ctx-dynamic-cross-4", factor=4.0)
@value("ctx-dynamic-cross-8", factor=8.0)
def ctx_dynamic_cross(factor: float = 2.0) -> str:
    return f"{dynamic_crossing(factor):,}"


@value("ctx-dynamic-past-2", factor=2.0)
@value("ctx-dynamic-past-4", factor=4.0)
@value("ctx-dynamic-past-8", factor=8.0)
def ctx_dynamic_past(factor: float = 2.0) -> str:
    """How many of the prompts dynamic NTK gets right at the first sampled distance past L."""
    st = study()
    i = next(j for j, g in enumerate(st["distances"]) if g > L)
    return f"{round(st['rows']['dynamic-ntk', factor]['curve'][i] * PER_DISTANCE)}"


@value("ctx-recency-gap-400", far=400)
def ctx_recency_gap(far: int = 400) -> str:
    r"""How much higher the rotating head scores the key after the nearer copy than the key
    after the farther one, \(\beta(\cos((\text{near}-1)\theta_{31}) -
    \cos((\text{far}-1)\theta_{31}))\) (each key sits one step after its copy of A)."""
    cfg = Config()
    theta = frequencies(cfg.d, cfg.base)[-1]
    near, far_key = (RECENCY_NEAR - 1) * theta, (far - 1) * theta
    return f"{cfg.beta * (math.cos(near) - math.cos(far_key)):.1f}"


@value("ctx-dynamic-2-failure")
def ctx_dynamic_2_failure() -> str:
    """The first sampled distance beyond L at which dynamic NTK at factor 2 fails."""
    st = study()
    curve = st["rows"]["dynamic-ntk", 2.0]["curve"]
    pairs = zip(st["distances"], curve, strict=True)
    return f"{next(g for g, a in pairs if g > L and a < 0.5):,}"


@value("ctx-ablation-threshold")
def ctx_ablation_threshold() -> str:
    """The weight one step back below which a rival key can win: 2 / (3 - cos(pi/13))."""
    return f"{2 / (3 - math.cos(2 * math.pi / len(VOCAB))):.3f}"


@value("ctx-max-distance")
def ctx_max_distance() -> str:
    return f"{distances()[-1]:,}"


@value("ctx-ablation-near")
def ctx_ablation_near() -> str:
    return f"{ABLATION_DISTANCES[0]:,}"


@value("ctx-ablation-far")
def ctx_ablation_far() -> str:
    return f"{ABLATION_DISTANCES[1]:,}"


@value("ctx-ablation-fast-1", k=1)
@value("ctx-ablation-fast-2", k=2)
@value("ctx-ablation-fast-4", k=4)
def ctx_ablation_fast(k: int = 1) -> str:
    """Layer 0's weight one step back with the fastest k pairs stopped."""
    return f"{ablation()['fast', k][0]:.3f}"


@value("ctx-recency-near")
def ctx_recency_near() -> str:
    return str(RECENCY_NEAR)


@value("ctx-recency-prompts")
def ctx_recency_prompts() -> str:
    return str(RECENCY_PROMPTS)


@value("ctx-recency-rot-800", far=800, rot=True)
@value("ctx-recency-norot-800", far=800, rot=False)
@value("ctx-recency-rot-400", far=400, rot=True)
def ctx_recency(far: int = 800, rot: bool = True) -> str:
    """How many of the recency prompts end in C (the nearer copy's successor)."""
    c = recency()[rot][RECENCY_FAR.index(far), 0]
    return f"{round(c * RECENCY_PROMPTS)}"


@value("ctx-slowest-turns")
def ctx_slowest_turns() -> str:
    """How many turns the slowest pair makes over L tokens, L theta_31 / 2 pi."""
    return f"{L * frequencies(Config().d, Config().base)[-1] / (2 * math.pi):.2f}"


@value("ctx-slowest-wavelength")
def ctx_slowest_wavelength() -> str:
    """The slowest pair's wavelength 2 pi / theta_31, to the nearest thousand tokens."""
    return f"{round(2 * math.pi / frequencies(Config().d, Config().base)[-1], -3):,.0f}"


def kept_pairs(method: str) -> int:
    """How many of the fastest pairs a method leaves exactly as built (at factor 4)."""
    cfg = Config()
    theta = frequencies(cfg.d, cfg.base)
    new, _ = scaled_frequencies(
        cfg.d, base=cfg.base, method=method, factor=4.0, original_max_position=L, seq_len=4 * L
    )
    return int(np.argmin(new == theta)) if np.any(new != theta) else theta.size


@value("ctx-kept-yarn", method="yarn")
@value("ctx-kept-llama3", method="llama3")
def ctx_kept(method: str = "yarn") -> str:
    return str(kept_pairs(method))


def interpolated_from(method: str) -> int:
    """The first pair from which a method divides every frequency by the full factor."""
    cfg = Config()
    theta = frequencies(cfg.d, cfg.base)
    new, _ = scaled_frequencies(
        cfg.d, base=cfg.base, method=method, factor=4.0, original_max_position=L
    )
    full = np.isclose(new, theta / 4.0, rtol=1e-12, atol=0)
    return int(np.flatnonzero(~full).max()) + 1


@value("ctx-full-yarn", method="yarn")
def ctx_full(method: str = "yarn") -> str:
    return str(interpolated_from(method))


# --- linear scaling on layer 0 ------------------------------------------------------------------

LINEAR_SHORTEST = 6
"""How many of the sweep's shortest distances the count of shifted copies reads."""


def linear_layer0(factor: float) -> dict:
    r"""Layer 0 under linear scaling at ``factor`` (an integer s): the last query's weight on
    the key \(s\) steps back (``peak``), the larger of its weights on the keys \(s \pm 1\) back
    (``side``), and how many times smaller the score's lead of \(\delta = s\) over
    \(\delta = s \pm 1\) is than the unscaled lead of \(\delta = 1\) over \(\delta = 0, 2\)
    (``shrink``). The text has [`PREVIOUS_AT`][] tokens; the kernel is the same at any length."""
    s = int(factor)
    f = layer0_kernel_at(PREVIOUS_AT, "linear", factor)
    w = np.exp(f - f.max())
    w /= w.sum()
    f0 = layer0_kernel_at(PREVIOUS_AT, None, None)
    lead = f[s] - max(f[s - 1], f[s + 1])
    lead0 = f0[1] - max(f0[0], f0[2])
    return {"peak": float(w[s]), "side": float(max(w[s - 1], w[s + 1])), "shrink": lead0 / lead}


def layer0_kernel_at(T: int, method: str | None, factor: float | None) -> np.ndarray:
    from ...extension import layer0_kernel

    return layer0_kernel(T, **settings(method, factor))


@functools.lru_cache(maxsize=4)
def linear_copies(factor: float) -> tuple[int, int, int]:
    r"""Under linear scaling at ``factor`` (an integer s), over the prompts at the sweep's
    [`LINEAR_SHORTEST`][] shortest distances: how many the model completes with the letter
    \(s\) places after the first \(A\) (what a head looking exactly \(s\) steps back would
    make layer 1 copy), how many with the right \(B\), and how many prompts there are."""
    s = int(factor)
    shifted = right = total = 0
    for g in distances()[:LINEAR_SHORTEST]:
        prompts = distance_prompts(g, PER_DISTANCE, SEED)
        probs, _ = predict_last_many([p.text for p in prompts], **settings("linear", factor))
        for p, i in zip(prompts, probs.argmax(axis=1), strict=True):
            shifted += VOCAB[int(i)] == p.text[s]
            right += VOCAB[int(i)] == p.answer
            total += 1
    return shifted, right, total


@value("ctx-linear-peak-2", factor=2.0, what="peak")
@value("ctx-linear-peak-4", factor=4.0, what="peak")
@value("ctx-linear-peak-8", factor=8.0, what="peak")
@value("ctx-linear-side-2", factor=2.0, what="side")
@value("ctx-linear-side-4", factor=4.0, what="side")
@value("ctx-linear-side-8", factor=8.0, what="side")
def ctx_linear_layer0(factor: float = 2.0, what: str = "peak") -> str:
    """Layer 0's weight s steps back under linear scaling (peak), and on a neighbour (side)."""
    return f"{linear_layer0(factor)[what]:.3f}"


@value("ctx-linear-shrink-2", factor=2.0)
@value("ctx-linear-shrink-4", factor=4.0)
@value("ctx-linear-shrink-8", factor=8.0)
def ctx_linear_shrink(factor: float = 2.0) -> str:
    """How many times smaller layer 0's lead at its peak is under linear scaling."""
    return f"{linear_layer0(factor)['shrink']:.1f}"


@value("ctx-linear-shifted-2", factor=2.0, which=0)
@value("ctx-linear-shifted-4", factor=4.0, which=0)
@value("ctx-linear-shifted-8", factor=8.0, which=0)
@value("ctx-linear-right-2", factor=2.0, which=1)
@value("ctx-linear-right-4", factor=4.0, which=1)
@value("ctx-linear-right-8", factor=8.0, which=1)
@value("ctx-linear-prompts", factor=2.0, which=2)
def ctx_linear_copies(factor: float = 2.0, which: int = 0) -> str:
    """Counts of [`linear_copies`][]: the shifted letter (0), the right B (1), prompts (2)."""
    return str(linear_copies(factor)[which])


@value("ctx-linear-first", which=0)
@value("ctx-linear-shortest", which=LINEAR_SHORTEST - 1)
def ctx_linear_shortest(which: int = LINEAR_SHORTEST - 1) -> str:
    """The first (0) and the last of the sweep's distances the count of shifted copies reads."""
    return f"{distances()[which]:,}"


# Values of the exercises -------------------------------------------------------------------------


def _linear_row(factor: float, T: int = L) -> np.ndarray:
    """The last query's layer-0 weights on the keys 0, 1, 2, ... steps back under linear
    scaling by ``factor``, in a text of ``T`` positions."""
    from ...extension import layer0_kernel

    f = layer0_kernel(T, **settings("linear", factor))
    w = np.exp(f - f.max())
    return w / w.sum()


@value("ctx-ex-linear-1-5-back-1", factor=1.5, back=1)
@value("ctx-ex-linear-1-5-back-2", factor=1.5, back=2)
@value("ctx-ex-linear-1-25-back-1", factor=1.25, back=1)
def ex_linear_weight(factor: float = 1.5, back: int = 1) -> str:
    """Under linear scaling by ``factor``, the last query's layer-0 weight on the key ``back``
    steps back, in a text of L positions."""
    return f"{_linear_row(factor)[back]:.3f}"


@value("ctx-ex-ntk-pair1")
def ex_ntk_pair1(factor: float = 8.0, d: int = 64) -> str:
    """By how much NTK-aware scaling by ``factor`` slows pair 1."""
    theta = frequencies(d)
    new, _ = scaled_frequencies(d, method="ntk", factor=factor, original_max_position=L)
    return f"{theta[1] / new[1]:.3f}"


@value("ctx-ex-dynamic-length")
def ex_dynamic_length(factor: float = 4.0) -> str:
    """The length at which dynamic NTK's effective factor s l / L - (s - 1) reaches ``factor``
    itself, with a thousands separator."""
    return f"{L * (2 * factor - 1) / factor:,.0f}"


@value("ctx-ex-dynamic-factor")
def ex_dynamic_factor(factor: float = 4.0, length: int = 4 * L) -> str:
    """Dynamic NTK's effective factor s l / L - (s - 1) at ``length``."""
    return f"{factor * length / L - (factor - 1):.0f}"


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = (
    "hf-dynamic-ntk",
    "yarn-ramp",
    "hf-yarn-ramp",
    "meta-apply-scaling",
    "hf-llama3",
    "hf-rope-init-functions",
    "hf-rope-parameters",
    "hf-original-max-position",
    "hf-partial-rotary",
)
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``ctx-src-KEY``."""
for _key in CITED:
    value(f"ctx-src-{_key}", key=_key)(_cited)


@value("ctx-rope-types")
def ctx_rope_types() -> str:
    """transformers' rope types (``rope_explained.rope.ROPE_TYPES``), as code, comma-separated."""
    return ", ".join(f"`{t}`" for t in ROPE_TYPES)


@value("ctx-released-count")
def ctx_released_count() -> str:
    """How many released configurations the package ships (``hf.released_configs``)."""
    return str(len(hf.released_configs()))


@value("ctx-refused-count")
def ctx_refused_count() -> str:
    """How many inputs transformers accepts and ``rope_explained.hf.from_config`` refuses."""
    return str(len(hf.REFUSED))


def ctx_refused(index: int = 0) -> str:
    """Entry ``index`` of ``rope_explained.hf.REFUSED``: its name in bold, then what
    transformers does with the input and why the package refuses it."""
    name = list(hf.REFUSED)[index]
    return f"**{name}**: {hf.REFUSED[name]}"


for _index in range(len(hf.REFUSED)):
    value(f"ctx-refused-{_index}", index=_index)(ctx_refused)
