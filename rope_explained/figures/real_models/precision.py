r"""Figures of the page on RoPE in low precision (real-models/precision.md).

Every curve comes from ``rope_explained.precision``, sampled at about four positions per
factor of ten from 1 to one million (float16 stops at 65,504, the largest number it holds).
"""

from __future__ import annotations

import functools

import numpy as np

from ...model import DEFAULT, Config, build_weights
from ...precision import (
    DTYPES,
    PIPELINES,
    angle_error,
    angles,
    cos_sin_error,
    first_failure,
    log_positions,
    previous_token_attention,
    score_drift,
)
from ...rope import apply_rope, frequencies
from ...sources import source_link
from .. import register, setting_text, thousands, times_ten, value
from ..style import COLORS, legend_columns, new_figure

FP16_MAX = 65504
STYLES = {
    "float64": (COLORS[7], "-", "o"),
    "float32": (COLORS[0], "-", "s"),
    "bfloat16 storage": (COLORS[2], "--", "^"),
    "float16 storage": (COLORS[4], "--", "v"),
    "bfloat16": (COLORS[5], "-", "D"),
    "float16": (COLORS[1], "-", "P"),
    "bfloat16, float32 rotation": (COLORS[2], ":", "x"),
    "float16, float32 rotation": (COLORS[4], ":", "+"),
}
LABELS = {
    "float64": "float64",
    "float32": "float32",
    "bfloat16 storage": "bf16 storage, fp32 angles",
    "float16 storage": "fp16 storage, fp32 angles",
    "bfloat16": "bf16 throughout",
    "float16": "fp16 throughout",
    "bfloat16, float32 rotation": "bf16, fp32 rotation, cast back",
    "float16, float32 rotation": "fp16, fp32 rotation, cast back",
}
SIX = ("float64", "float32", "bfloat16 storage", "float16 storage", "bfloat16", "float16")
"""The recipes that rotate in their storage format (the previous-token figure draws these;
the two that rotate in float32 and cast back lie on the storage curves there)."""


def positions_for(name: str) -> np.ndarray:
    """The sample positions of a pipeline or dtype: float16 stops below 65,505."""
    p = log_positions()
    return p[p <= FP16_MAX] if name.startswith("float16") else p


def _plot(ax, name: str, x: np.ndarray, y: np.ndarray, label: str | None = None) -> None:
    color, ls, marker = STYLES[name]
    ax.plot(x, y, ls=ls, marker=marker, color=color, ms=4, lw=1.4, label=label or LABELS[name])


@register(
    "precision-angle-error",
    caption=(
        r"Left: the largest error, over the 32 pairs of a "
        r'\(d = {{ value("precision-setting-d") }}\) head, of the angle '
        r"\(m\theta_i\) formed in each format, against float64, for absolute positions \(m\) "
        r"from 1 to \(10^6\). Right: the error of \(\cos m\theta_i\) and \(\sin m\theta_i\) "
        r"for each recipe (angle format, then storage format). The float32 angle error grows "
        r"in proportion to \(m\); storing cosine and sine in bf16 adds a floor that is the "
        r"same at every position; angles formed in bf16 or fp16 are wrong by whole "
        r"radians long before \(10^6\)."
    ),
    alt=(
        "Two log-log line plots against position from 1 to one million. Left, angle error: "
        "float32 rises steadily from about 1e-8 to about 0.02; bfloat16 from about 4e-4 to "
        "above 1000; float16 from 1e-4 to 10 where its curve stops at 65504. Right, cosine "
        "and sine error: fp32 rises like the left curve, bf16 storage stays flat near 2e-3, "
        "fp16 storage flat near 2e-4, and bf16 and fp16 throughout climb to about 2."
    ),
)
def angle_errors():
    """Angle error per dtype (left) and cos/sin error per recipe (right)."""
    fig, (left, right) = new_figure(1, 2, width=7.2, height=3.4, layout="constrained")
    for name in ("float32", "bfloat16", "float16"):
        p = positions_for(name)
        _plot(left, name, p, angle_error(p, name), label=name)
    for name in ("float32", "bfloat16 storage", "float16 storage", "bfloat16", "float16"):
        p = positions_for(name)
        _plot(right, name, p, cos_sin_error(p, *PIPELINES[name]))
    for ax, what in ((left, r"error of $m\theta_i$ (rad)"), (right, r"error of $\cos, \sin$")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(r"absolute position $m$")
        ax.set_ylabel(what)
        ax.grid(alpha=0.3, which="major")
    left.legend(fontsize=7.5, loc="upper left")
    right.legend(fontsize=7.5, loc="lower right")
    return fig


@register(
    "precision-score-drift",
    caption=(
        r"How far the previous-token head's score of the previous token, "
        r'\(q_m^T k_{m-1}\) ({{ value("precision-peak-score") }} in exact arithmetic, at every '
        r"\(m\)), moves from its value "
        r"at \(m = 1\), per recipe. float64 stays at rounding level; float32 stays within one "
        r"unit of float32's last place until late in the range (exactly 0 here, in the "
        r"package's order of summation), then grows quickly; bf16 and fp16 storage add a "
        r"scatter that does not grow with the position, and so do the recipes that rotate in "
        r"float32 and cast \(q\) and \(k\) back to bf16 or fp16 (dotted); bf16 and fp16 "
        r"throughout lose the "
        r"relative property entirely. A drift of exactly 0 is drawn at \(10^{-16}\), where the "
        r"float64 and float32 curves overlap."
    ),
    alt=(
        "Log-log line plot of the absolute score drift against position from 1 to one "
        "million, eight curves. float64 stays below 1e-12, float32 rises to about 2e-3, bf16 "
        "and fp16 storage scatter between 1e-3 and 0.3, and the dotted curves of float32 "
        "rotation cast back to bf16 or fp16 scatter in the same band; bf16 and fp16 "
        "throughout rise past 1 to about 10."
    ),
)
def score_drifts():
    """Score drift per pipeline against the absolute position."""
    fig, ax = new_figure(height=4.0, layout="constrained")
    floor = 1e-16
    for name in PIPELINES:
        p = positions_for(name)[1:]  # m = 1 is the reference itself
        _plot(ax, name, p, np.maximum(score_drift(p, name), floor))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(floor / 3, 100)
    ax.set_xlabel(r"absolute position $m$")
    ax.set_ylabel(r"$|q_m^T k_{m-1} - q_1^T k_0|$")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncols=legend_columns(3), loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


@register(
    "precision-previous-token",
    caption=(
        r"The previous-token head's attention on \(m - 1\) against the absolute position "
        r"\(m\) of its query, one curve per recipe. Every recipe whose angles are formed in "
        r"float32 or float64 keeps it near 1 up to \(10^6\); with the angles in bf16 the head "
        r'first fails at position {{ value("precision-bf16-failure") }}, with the angles in '
        r'fp16 at position {{ value("precision-fp16-failure") }} (the first positions where '
        r"the head gives \(m - 1\) less than half its weight, found by testing every "
        r"position; the curves sample about four per factor of ten). The four curves with "
        r"float32 or float64 angles lie on top of each other at 1."
    ),
    alt=(
        "Line plot with a logarithmic position axis from 1 to one million and attention "
        "from 0 to 1. The float64, float32 and the two storage-only curves lie on top of "
        "each other at 1 across the whole range. The bf16-throughout curve falls below 0.5 "
        "after a few hundred and stays near 0 with jumps; the fp16-throughout curve falls "
        "after a few thousand and stops at 65504."
    ),
)
def previous_token_curves():
    """Attention on m - 1 per pipeline against the absolute position."""
    fig, ax = new_figure(height=4.0, layout="constrained")
    for name in SIX:
        p = positions_for(name)
        _plot(ax, name, p, attention(name))
    ax.axhline(0.5, color="0.5", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.05)
    ax.set_xlabel(r"absolute position $m$ of the query")
    ax.set_ylabel(r"$A^{(0)}_{m,m-1}$")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncols=legend_columns(3), loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


@functools.cache
def attention(name: str) -> np.ndarray:
    """The sampled attention-on-previous curve of a pipeline."""
    return previous_token_attention(positions_for(name), name)


# Values the page states --------------------------------------------------------------------


@value("precision-bf16-failure", pipeline="bfloat16", limit=4096)
@value("precision-fp16-failure", pipeline="float16", limit=4096)
def precision_failure(pipeline: str = "bfloat16", limit: int = 4096) -> str:
    """The first position where the head fails with the pipeline (thousands separators)."""
    return thousands(first_failure(pipeline, limit=limit))


@value("precision-fp32-angle-error", dtype="float32")
@value("precision-bf16-angle-error", dtype="bfloat16")
def precision_angle_error(dtype: str = "float32") -> str:
    """The angle error at the last sample position (10**6), in TeX."""
    return times_ten(angle_error(np.array([1e6]), dtype)[0], 0)


@value("precision-bf16-storage-cos-error", pipeline="bfloat16 storage", m=1.0)
@value("precision-fp32-cos-error-top", pipeline="float32", m=1e6)
def precision_cos_error(pipeline: str = "float32", m: float = 1e6) -> str:
    """The cos/sin error of a recipe at position m, in TeX."""
    return times_ten(cos_sin_error(np.array([m]), *PIPELINES[pipeline])[0], 0)


@value("precision-min-attention-fp32", pipeline="float32")
@value("precision-min-attention-bf16-storage", pipeline="bfloat16 storage")
def precision_min_attention(pipeline: str = "float32") -> str:
    """The lowest sampled attention on m - 1 of a pipeline, rounded down to four places."""
    return f"{np.floor(attention(pipeline).min() * 1e4) / 1e4:.4f}"


@value("precision-drift-fp32-top", pipeline="float32", decimals=1)
@value("precision-drift-bf16-storage-max", pipeline="bfloat16 storage", decimals=1)
def precision_drift(pipeline: str = "float32", decimals: int = 1) -> str:
    """The largest sampled score drift of a pipeline, in TeX, rounded up."""
    top = float(score_drift(positions_for(pipeline)[1:], pipeline).max())
    exponent = int(np.floor(np.log10(top)))
    mant = np.ceil(top / 10.0**exponent * 10**decimals) / 10**decimals
    return times_ten(mant * 10.0**exponent, decimals)


@value("precision-bf16-failure-rounded")
def precision_bf16_failure_rounded() -> str:
    """What bf16 makes of the position where the head first fails in bf16."""
    import ml_dtypes

    m = float(first_failure("bfloat16"))
    return thousands(float(np.array([m]).astype(ml_dtypes.bfloat16).astype(np.float64)[0]))


@value("precision-exact-float32", dtype="float32")
@value("precision-exact-bfloat16", dtype="bfloat16")
@value("precision-exact-float16", dtype="float16")
def precision_exact_integers(dtype: str = "bfloat16") -> str:
    """The largest n such that every integer up to n is exact in the format: 2 to the number of
    significand bits (the stored ones plus the implicit one)."""
    import ml_dtypes

    return thousands(2.0 ** (ml_dtypes.finfo(DTYPES[dtype]).nmant + 1))


@value("precision-bits-float32", dtype="float32")
@value("precision-bits-bfloat16", dtype="bfloat16")
@value("precision-bits-float16", dtype="float16")
def precision_bits(dtype: str = "bfloat16") -> str:
    """Significand bits of the format, the implicit one included."""
    import ml_dtypes

    return str(ml_dtypes.finfo(DTYPES[dtype]).nmant + 1)


@value("precision-float16-max", dtype="float16", tex=False)
@value("precision-max-float32", dtype="float32", tex=True)
@value("precision-max-bfloat16", dtype="bfloat16", tex=True)
def precision_max(dtype: str = "float16", tex: bool = False) -> str:
    """The largest finite number of the format (TeX in scientific notation, or with
    thousands separators)."""
    import ml_dtypes

    top = float(ml_dtypes.finfo(DTYPES[dtype]).max)
    return times_ten(top, 1) if tex else thousands(top)


@value("precision-peak-score")
def precision_peak_score() -> str:
    """The previous-token head's score of the previous token in exact arithmetic, alpha d/2."""
    L0 = build_weights(Config()).L0
    h = np.zeros(Config().D)
    h[0] = 1.0  # the bias coordinate, the only one the head reads
    q = apply_rope((L0.W_q @ h)[None], [1.0])[0]
    k = apply_rope((L0.W_k @ h)[None], [0.0])[0]
    return f"{float(np.dot(q, k)):.0f}"


@value("precision-fp32-exact-until")
def precision_fp32_exact_until() -> str:
    """The last sampled position up to which the float32 score drift is exactly zero."""
    p = positions_for("float32")[1:]
    drift = score_drift(p, "float32")
    return thousands(p[np.nonzero(drift)[0][0] - 1])


@value("precision-fp32-angle-worst-pair")
def precision_fp32_angle_worst_pair(m: float = 1e6) -> str:
    """The pair i whose float32 angle m theta_i is furthest from float64 at m = 10**6."""
    got = angles(np.array([m]), "float32")[0]
    return str(int(np.argmax(np.abs(got - m * frequencies(64)))))


@value("precision-fp32-angle-bound")
def precision_fp32_angle_bound(m: float = 1e6) -> str:
    """The bound 2 m theta_i 2^-24 on the float32 angle error (theta_i and the product each
    rounded once) at m = 10**6 and theta_0 = 1, in TeX."""
    return times_ten(2 * m * 2.0**-24, 0)


@value("precision-drift-bf16-cast-max", pipeline="bfloat16, float32 rotation", decimals=1)
@value("precision-drift-fp16-storage-max", pipeline="float16 storage", decimals=1)
@value("precision-drift-fp16-cast-max", pipeline="float16, float32 rotation", decimals=1)
def precision_drift_16(pipeline: str = "float16 storage", decimals: int = 1) -> str:
    """The largest sampled score drift of a 16-bit storage recipe, in TeX, rounded up."""
    return precision_drift(pipeline, decimals)


def fp32_ulp() -> float:
    """One unit in the last place of float32 at the exact peak score, alpha d / 2 = 320."""
    return float(np.spacing(np.float32(float(precision_peak_score()))))


@value("precision-fp32-ulp")
def precision_fp32_ulp() -> str:
    """One unit in the last place of float32 at 320 (2^-15), in TeX, to three digits."""
    return times_ten(fp32_ulp(), 2)


@functools.cache
def sequential_fp32_drift() -> tuple[np.ndarray, np.ndarray]:
    """The float32 recipe's score drift with the 64 products of the dot product added one after
    the other in float32 (``np.cumsum``, which adds in order), instead of in the order of the
    package's ``score_drift``, at the sampled positions up to where that drift is exactly 0.

    The rotated query and key are the package's (``rotate_in`` in float32): only the order of
    the sum differs. Returns the positions and the drifts."""
    from ...precision import rotate_in

    until = float(precision_fp32_exact_until().replace(",", ""))
    p = positions_for("float32")[1:]
    p = p[p <= until]
    L0 = build_weights(Config()).L0
    h = np.zeros(Config().D)
    h[0] = 1.0
    q_pre, k_pre = L0.W_q @ h, L0.W_k @ h

    def score(m: float) -> float:
        q = rotate_in(q_pre[None], np.array([m]), "float32", "float32")[0].astype(np.float32)
        k = rotate_in(k_pre[None], np.array([m - 1]), "float32", "float32")[0].astype(np.float32)
        return float(np.cumsum(q * k, dtype=np.float32)[-1])

    s1 = score(1.0)
    return p, np.array([abs(score(float(m)) - s1) for m in p])


@value("precision-fp32-sequential-count")
def precision_fp32_sequential_count() -> str:
    """At how many of the sampled positions up to the exact-zero limit the in-order sum drifts."""
    return str(int(np.count_nonzero(sequential_fp32_drift()[1])))


@value("precision-fp32-sequential-of")
def precision_fp32_sequential_of() -> str:
    """How many sampled positions that count is out of."""
    return str(sequential_fp32_drift()[0].size)


@value("precision-fp32-sequential-max-ulps")
def precision_fp32_sequential_max_ulps() -> str:
    """The in-order sum's largest drift there, in units of float32's last place at 320."""
    return f"{sequential_fp32_drift()[1].max() / fp32_ulp():.0f}"


# Values of the exercises -------------------------------------------------------------------------

EXERCISE_CONTEXT = 8192
"""The context of the exercise on distinct positions: positions 0 to 8,191."""


def _rounded(x, dtype: str) -> np.ndarray:
    """``x`` rounded to the format named ``dtype`` and read back as float64."""
    from ...precision import DTYPES

    return np.asarray(x, dtype=np.float64).astype(DTYPES[dtype]).astype(np.float64)


def _gap(x: float, dtype: str) -> float:
    """The distance from the representable number ``x`` to the next one up in ``dtype``."""
    from ...precision import DTYPES

    t = DTYPES[dtype].type
    return float(np.nextafter(t(x), t(np.inf))) - float(t(x))


@value("precision-ex-gap-1000", x=1000.0)
@value("precision-ex-gap-100000", x=100000.0)
def ex_bf16_gap(x: float = 1000.0) -> str:
    """The gap between neighbouring bfloat16 numbers at ``x`` (a number bf16 holds)."""
    return f"{_gap(float(_rounded(x, 'bfloat16')), 'bfloat16'):.0f}"


@value("precision-ex-rounds-1001", m=1001)
@value("precision-ex-rounds-1002", m=1002)
@value("precision-ex-rounds-1003", m=1003)
def ex_bf16_rounds(m: int = 1001) -> str:
    """The bfloat16 number the position ``m`` becomes."""
    return f"{_rounded(m, 'bfloat16'):.0f}"


@value("precision-ex-distinct-bfloat16", dtype="bfloat16")
@value("precision-ex-distinct-float16", dtype="float16")
def ex_distinct(dtype: str = "bfloat16", context: int = EXERCISE_CONTEXT) -> str:
    """How many different values the positions 0 .. context - 1 take in ``dtype``, with a
    thousands separator."""
    return thousands(len(np.unique(_rounded(np.arange(context), dtype))))


@value("precision-ex-context")
def ex_context() -> str:
    """The exercise's context, with a thousands separator."""
    return thousands(EXERCISE_CONTEXT)


@value("precision-ex-score-gap-bfloat16", dtype="bfloat16")
@value("precision-ex-score-gap-float16", dtype="float16")
def ex_score_gap(dtype: str = "bfloat16", alpha: float = DEFAULT.alpha, d: int = DEFAULT.d) -> str:
    """The gap between neighbouring numbers of ``dtype`` at the peak score alpha d/2."""
    return f"{_gap(alpha * d / 2, dtype):g}"


@value("precision-ex-side-score-bfloat16")
def ex_side_score_bfloat16(alpha: float = DEFAULT.alpha, d: int = DEFAULT.d) -> str:
    """The score of the previous token's neighbours, alpha sum_i cos(theta_i), rounded to
    bfloat16."""
    return f"{_rounded(alpha * np.cos(frequencies(d)).sum(), 'bfloat16'):.0f}"


@value("precision-ex-side-score")
def ex_side_score(alpha: float = DEFAULT.alpha, d: int = DEFAULT.d) -> str:
    """The same score unrounded, to two decimals."""
    return f"{alpha * np.cos(frequencies(d)).sum():.2f}"


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = (
    "meta-apply-rotary-emb",
    "hf-llama-rotary-forward",
    "hf4-llama-rotary-forward",
    "hf-gpt-neox-rotary-forward",
    "meta-precompute-freqs-cis",
    "ml-dtypes-bfloat16",
)
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``precision-src-KEY``."""
for _key in CITED:
    value(f"precision-src-{_key}", key=_key)(_cited)


@value("precision-setting-d", name="d")
@value("precision-setting-alpha", name="alpha")
def precision_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
