r"""Figures of the page on the KV cache, incremental decoding, padding and packing
(real-models/decoding.md).

Every number comes from ``rope_explained.decoding``: the steps of [`decode`][], and the
traces of [`pad_left`][] and [`pack`][].
"""

from __future__ import annotations

import functools

import numpy as np

from ...decoding import decode, document_starts, pack, pad_left
from ...examples import FORWARD_PASS_PROMPT
from ...model import DEFAULT, forward
from ...sources import source_link
from .. import below, register, setting_text, times_ten, value
from ..style import attention_heatmap, new_figure

HALF = "thequickbrownfxjmpsv"
"""The decoding text: twenty distinct letters, twice. Once the first copy is read, an induction
head predicts every letter of the second copy."""
TEXT = HALF + HALF
PADS = 4
"""The padding example: the site's running prompt behind four pad tokens."""
DOCS = ("acorns", FORWARD_PASS_PROMPT)
"""The packing example: the running prompt after a text in which "c" is followed by "o"."""
MODES = (None, "rotate-again", "restart")
MODE_TITLES = {None: "correct cache", "rotate-again": "cached keys rotated again",
               "restart": "positions restart at 0"}  # fmt: skip


@functools.cache
def steps(fault: str | None, text: str = TEXT, prefill: int = len(HALF)):
    """The decoding of ``text``: the first ``prefill`` letters correctly, the rest with
    ``fault``."""
    return tuple(decode(text, fault=fault, prefill=prefill if fault else 0))


def _pattern(run) -> np.ndarray:
    """The layer-0 rows of every step, stacked into a (T, T) lower-triangular pattern."""
    T = len(run)
    A = np.zeros((T, T))
    for m, step in enumerate(run):
        A[m, : m + 1] = step.attention0
    return A


def _faulty(fault, text: str = TEXT, prefill: int = len(HALF)) -> range:
    """The steps a fault acts on (after the start token and the prefill)."""
    return range(1 + prefill, len(text) + 1)


@register(
    "decoding-layer0-steps",
    caption=(
        r"The previous-token head of layer 0 while the model decodes "
        r"thequickbrownfxjmpsv twice, one letter per step: each row is the new query's "
        r'attention over everything cached. The first {{ value("decoding-prefill") }} letters '
        r"are read correctly in every "
        r"panel; from the dotted line on, the middle panel rotates the cached keys again at "
        r"every step and the right one puts each new letter at position 0. With a correct "
        r"cache the rows equal those of the full forward pass; with either fault the band "
        r"on \(m-1\) is gone."
    ),
    alt=(
        "Three square heatmaps, query step down and key position across, upper triangle grey. "
        "Left: one bright cell per row just below the diagonal all the way down. Middle and "
        "right: the same band for the first rows, then below a dotted line the weight sits "
        "on the diagonal with a few scattered cells (middle), or is spread thinly over the "
        "first column and the recent letters (right)."
    ),
)
def layer0_steps():
    """Layer-0 rows of the three decodings, with the start of the faulty steps marked."""
    fig, axes = new_figure(1, 3, width=7.2, height=2.9, layout="constrained")
    T = len(TEXT) + 1
    causal = np.tri(T, dtype=bool)
    for ax, mode in zip(axes, MODES, strict=True):
        im = attention_heatmap(ax, _pattern(steps(mode)), causal, tick_every=10)
        ax.set_title(MODE_TITLES[mode], fontsize=10)
        if mode is not None:
            ax.axhline(len(HALF) + 0.5, color="white", ls="--", lw=1.2)
            ax.axhline(len(HALF) + 0.5, color="black", ls=":", lw=1.2)
        ax.set_xlabel(r"key $n$")
        ax.set_ylabel("")
    axes[0].set_ylabel(r"step (query position $m$)")
    cbar = fig.colorbar(im, ax=list(axes), shrink=0.8)
    cbar.set_label(r"$A^{(0)}_{m,n}$")
    return fig


@register(
    "decoding-padding",
    caption=(
        r"Layer 1 (the induction head) on thecatsatonthec behind "
        r'{{ value("padding-pads") }} pad tokens (the first rows and columns). Left: pads '
        r"counted in the positions and hidden from "
        r"attention; middle: the text numbered from 0 and the pads hidden, as Hugging Face's "
        r"generation code does; right: pads counted but visible. Left and middle give the "
        r"text the same patterns and prediction as the unpadded run; on the right the "
        r"queries that had nothing to copy spread their weight over the pads and the start "
        r"token instead of the start token alone."
    ),
    alt=(
        "Three square heatmaps, query down and key across. Left and middle: "
        "below the pad rows the pad columns are grey (hidden; each pad row sees only "
        "itself) and the remaining triangle shows a few bright cells, identical in both. "
        "Right: the pad columns are visible and the first rows of the text spread their "
        "weight over those pad columns."
    ),
)
def padding_patterns():
    """Layer-1 patterns of the padded row in three settings."""
    cases = ((True, True, "pads counted, masked"), (False, True, "text from 0, masked"),
             (True, False, "pads counted, visible"))  # fmt: skip
    fig, axes = new_figure(1, 3, width=7.2, height=2.9, layout="constrained")
    for ax, (count, masked, title) in zip(axes, cases, strict=True):
        tr = pad_left(FORWARD_PASS_PROMPT, PADS, count_pads=count, mask_pads=masked)
        im = attention_heatmap(ax, tr.A1, tr.mask, tick_every=5)
        ax.set_title(f"{title}: {tr.prediction}", fontsize=10)
        ax.set_ylabel("")
    axes[0].set_ylabel(r"query position $m$")
    cbar = fig.colorbar(im, ax=list(axes), shrink=0.8)
    cbar.set_label(r"$A^{(1)}_{m,n}$")
    return fig


@register(
    "decoding-packing",
    caption=(
        r"Layer 1 on two texts packed into one sequence, acorns and then thecatsatonthec "
        r"(dotted lines: where the second begins), in the four combinations of positions "
        r"(running on, or reset to 0 at the second text) and mask (causal only, or each text "
        r"to itself). The title of each panel gives the model's prediction after the last "
        r"c; alone, the second text predicts a."
    ),
    alt=(
        "Four square heatmaps in a two by two grid, query down and key across. Top row, "
        "causal mask only: in the last rows bright cells fall in the block of the first text. "
        "Bottom row, document mask: that block is grey and every row's weight stays inside "
        "the second text's own triangle."
    ),
)
def packing_patterns():
    """Layer-1 patterns of the packed sequence, positions by mask."""
    start = int(document_starts(list(DOCS))[1])
    fig, axes = new_figure(2, 2, width=6.4, height=6.6, layout="constrained", narrow=(1, 2.9))
    for i, masked in enumerate((False, True)):
        for j, reset in enumerate((False, True)):
            ax = axes[i, j]
            tr = pack(list(DOCS), reset_positions=reset, mask_documents=masked)
            im = attention_heatmap(ax, tr.A1, tr.mask, tick_every=5)
            for line in (ax.axhline, ax.axvline):
                line(start - 0.5, color="0.35", ls=":", lw=1.2)
            where = "reset" if reset else "running on"
            mask = "document mask" if masked else "causal only"
            ax.set_title(f"positions {where}, {mask}: {tr.prediction}", fontsize=9.5)
            if j:
                ax.set_ylabel("")
            if not i:
                ax.set_xlabel("")
    cbar = fig.colorbar(im, ax=list(axes.ravel()), shrink=0.6)
    cbar.set_label(r"$A^{(1)}_{m,n}$")
    return fig


# Values the page states --------------------------------------------------------------------


@functools.cache
def _decode_vs_forward() -> tuple[float, float, float, bool]:
    """Largest differences between the correct decoding and forward: layer 0, layer 1 rows,
    probabilities; and whether every prediction agrees."""
    tr = forward(TEXT)
    run = steps(None)
    e0 = max(np.abs(s.attention0 - tr.A0[m, : m + 1]).max() for m, s in enumerate(run))
    e1 = max(np.abs(s.attention1 - tr.A1[m, : m + 1]).max() for m, s in enumerate(run))
    ep = max(np.abs(s.probs - tr.probs[m]).max() for m, s in enumerate(run))
    same = all(s.prediction == tr.vocab[int(np.argmax(tr.probs[m]))] for m, s in enumerate(run))
    return float(e0), float(e1), float(ep), same


@value("decoding-attention-difference")
def decoding_attention_difference() -> str:
    """A bound on the difference between any decoded attention row (either layer) and the
    forward pass's (TeX): zero in exact arithmetic, round-off here (about 1e-13)."""
    e0, e1, _, _ = _decode_vs_forward()
    return below(max(e0, e1), 1e-12)


@value("decoding-steps")
def decoding_steps() -> str:
    """How many steps the decoding takes (letters plus the start token)."""
    return str(len(steps(None)))


def _copied(fault) -> float:
    """Share of the faulty steps (second copy, last step excluded) whose prediction is the
    letter that follows in the text."""
    run = steps(fault)
    idx = [m for m in _faulty(fault) if m < len(TEXT)]
    return float(np.mean([run[m].prediction == TEXT[m] for m in idx]))


def _previous_weight(fault) -> float:
    """Mean layer-0 weight on m - 1 over the faulty steps."""
    run = steps(fault)
    return float(np.mean([run[m].attention0[m - 1] for m in _faulty(fault)]))


@value("decoding-copied-correct", fault=None)
@value("decoding-copied-rotate", fault="rotate-again")
@value("decoding-copied-restart", fault="restart")
def decoding_copied(fault: str | None = None) -> str:
    """How many of the 19 predictable letters of the second copy the model predicts."""
    idx = [m for m in _faulty(fault) if m < len(TEXT)]
    return str(round(_copied(fault) * len(idx)))


@value("decoding-predictable")
def decoding_predictable() -> str:
    """How many letters of the second copy have a next letter to predict."""
    return str(len([m for m in _faulty(None) if m < len(TEXT)]))


@value("decoding-previous-correct", fault=None, decimals=5)
@value("decoding-previous-restart", fault="restart", decimals=3)
def decoding_previous(fault: str | None = None, decimals: int = 3) -> str:
    """Mean layer-0 weight on m - 1 over the steps of the second copy."""
    return f"{_previous_weight(fault):.{decimals}f}"


@value("decoding-previous-rotate")
def decoding_previous_rotate() -> str:
    """Mean layer-0 weight on m - 1 over the steps of the second copy with the cached keys
    rotated again, in TeX (it is tiny)."""
    return times_ten(_previous_weight("rotate-again"), 0)


@functools.cache
def _padded(count: bool, masked: bool):
    return pad_left(FORWARD_PASS_PROMPT, PADS, count_pads=count, mask_pads=masked)


@value("padding-shift-difference")
def padding_shift_difference() -> str:
    """A bound on the difference between the text's patterns (both layers) behind counted,
    masked pads and without pads (TeX): zero in exact arithmetic, round-off here (about
    1e-13)."""
    return below(_padding_shift_top(), 1e-12)


@functools.cache
def _padding_shift_top() -> float:
    """The largest difference that `padding_shift_difference` bounds."""
    ref, tr = forward(FORWARD_PASS_PROMPT), _padded(True, True)
    body = slice(PADS, None)
    return float(
        max(np.abs(tr.A0[body, body] - ref.A0).max(), np.abs(tr.A1[body, body] - ref.A1).max())
    )


@value("padding-pad-weight-layer0")
def padding_pad_weight_layer0() -> str:
    """Layer 0 with visible pads: the start token's weight on the pad before it."""
    tr = _padded(True, False)
    return f"{tr.A0[PADS, PADS - 1]:.3f}"


@value("padding-pad-rows-layer1")
def padding_pad_rows_layer1() -> str:
    """Layer 1 with visible pads: how many of the text's rows put most of their weight on pads."""
    tr = _padded(True, False)
    return str(int((tr.A1[PADS:, :PADS].sum(axis=1) > 0.5).sum()))


@functools.cache
def _bos_free(count: bool, masked: bool, text: str = "abcdeab"):
    return forward(text, bos=False), pad_left(
        text, PADS, count_pads=count, mask_pads=masked, bos=False
    )


@value("padding-nobos-changed")
def padding_nobos_changed(text: str = "abcdeab") -> str:
    """Without the start token, visible counted pads: how many of the text's rows change their
    prediction."""
    ref, tr = _bos_free(True, False, text)
    ref_pred = ref.probs.argmax(axis=1)
    return str(int((tr.probs[PADS:].argmax(axis=1) != ref_pred).sum()))


@value("packing-cross-weight-running")
def packing_cross_weight_running() -> str:
    """Positions running on, causal mask only: the last query's layer-1 weight on the first
    text."""
    start = int(document_starts(list(DOCS))[1])
    tr = pack(list(DOCS), reset_positions=False, mask_documents=False)
    return f"{tr.A1[-1, :start].sum():.2f}"


@value("packing-cross-weight-reset")
def packing_cross_weight_reset() -> str:
    """Positions reset, causal mask only: the last query's layer-1 weight on the first text."""
    start = int(document_starts(list(DOCS))[1])
    tr = pack(list(DOCS), reset_positions=True, mask_documents=False)
    return f"{tr.A1[-1, :start].sum():.2f}"


@value("packing-previous-reset")
def packing_previous_reset() -> str:
    """Positions reset, causal mask only: the mean layer-0 weight on m - 1 over the second
    text's letters."""
    start = int(document_starts(list(DOCS))[1])
    tr = pack(list(DOCS), reset_positions=True, mask_documents=False)
    rows = range(start + 1, len(tr.tokens))
    return f"{np.mean([tr.A0[m, m - 1] for m in rows]):.2f}"


@value("packing-alone-prediction", reset=None, masked=None)
@value("packing-running-prediction", reset=False, masked=False)
@value("packing-reset-prediction", reset=True, masked=False)
@value("packing-masked-prediction", reset=False, masked=True)
def packing_prediction(reset: bool | None = None, masked: bool | None = None) -> str:
    """The prediction after the packed sequence (None: the second text run alone)."""
    if reset is None:
        return forward(DOCS[1]).prediction
    return pack(list(DOCS), reset_positions=reset, mask_documents=masked).prediction


@value("decoding-copied-restart-early")
def decoding_copied_restart_early() -> str:
    """Positions restarting from the first letter on (nothing prefilled): how many of the 19
    predictable letters of the second copy are still predicted."""
    run = steps("restart", prefill=0)
    idx = [m for m in _faulty(None) if m < len(TEXT)]
    return str(sum(run[m].prediction == TEXT[m] for m in idx))


@value("padding-nobos-rows")
def padding_nobos_rows(text: str = "abcdeab") -> str:
    """How many rows (letters) the start-token-free padding example has."""
    return str(len(text))


@value("decoding-letters", what="letters")
@value("decoding-prefill", what="prefill")
@value("padding-pads", what="pads")
def decoding_sizes(what: str = "letters") -> str:
    """The sizes of the examples: letters decoded, letters read before a fault, pads."""
    return str({"letters": len(TEXT), "prefill": len(HALF), "pads": PADS}[what])


# Values of the exercises -------------------------------------------------------------------------


@functools.cache
def _shifted_decode(text: str = FORWARD_PASS_PROMPT, shift: float = 1.0) -> float:
    """Largest difference between a decode that rotates token ``p`` at ``p + shift`` and the
    full pass: attention rows of both layers and the probabilities."""
    from ...decoding import decode_step, new_cache

    full = forward(text)
    cache, worst = new_cache(), 0.0
    for p, token in enumerate(full.tokens):
        step = decode_step(cache, token, position=p + shift)
        cache = step.cache
        for got, want in ((step.attention0, full.A0), (step.attention1, full.A1)):
            worst = max(worst, float(np.abs(got - want[p, : p + 1]).max()))
        worst = max(worst, float(np.abs(step.probs - full.probs[p]).max()))
    return worst


@value("decoding-ex-shifted")
def ex_shifted() -> str:
    """A bound on how far a decode whose positions start at 1 is from the full pass (TeX):
    zero in exact arithmetic, round-off of the angles here (about 1e-12)."""
    return below(_shifted_decode(), 1e-11)


@value("decoding-ex-pad-position")
def ex_pad_position(text: str = FORWARD_PASS_PROMPT, pads: int = PADS) -> str:
    """A bound on how far the text's rows move when the masked pads are numbered 1 instead of
    counted (TeX): zero in exact arithmetic, round-off here (about 3e-13)."""
    a = pad_left(text, pads)
    b = pad_left(text, pads, count_pads=False)
    T = len(a.tokens) - pads
    worst = max(float(np.abs(getattr(a, n)[-T:, -T:] - getattr(b, n)[-T:, -T:]).max())
                for n in ("A0", "A1"))  # fmt: skip
    worst = max(worst, float(np.abs(a.probs[-T:] - b.probs[-T:]).max()))
    return below(worst, 1e-11)


@value("decoding-ex-cache-numbers", what="all")
@value("decoding-ex-cache-per-token", what="per-token")
def ex_cache_numbers(what: str = "all", text: str = FORWARD_PASS_PROMPT) -> str:
    """How many numbers the cache holds after decoding ``text`` (start token included), or
    how many one token adds, with a thousands separator."""
    cache = decode(text)[-1].cache
    arrays = (cache.k0, cache.v0, cache.k1, cache.v1)
    total = sum(a.size for a in arrays)
    n = total if what == "all" else total // len(cache)
    return f"{n:,}"


@value("decoding-ex-cache-tokens")
def ex_cache_tokens(text: str = FORWARD_PASS_PROMPT) -> str:
    """How many tokens the cache holds after decoding ``text``."""
    return str(len(decode(text)[-1].cache))


# --- the source lines this page cites, at the pinned versions (rope_explained.sources) ---


def _cited(key: str) -> str:
    """A link to the source lines ``key`` the page cites (``rope_explained.sources.SOURCES``):
    the library, its pinned version, the file and the lines, at the version's tag."""
    return source_link(key)


CITED = (
    "meta-start-pos",
    "hf-pad-positions",
    "hf-flattening-collator",
    "hf-flash-packed",
    "hf-packed-indices",
    "hf-packed-when",
)
"""The keys of ``rope_explained.sources.SOURCES`` this page links, each the value
``decoding-src-KEY``."""
for _key in CITED:
    value(f"decoding-src-{_key}", key=_key)(_cited)


@value("decoding-setting-d", name="d")
def decoding_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
