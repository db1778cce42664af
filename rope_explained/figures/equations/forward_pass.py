r"""Figures of the complete-forward-pass page (equations/forward-pass.md).

All three read one [`Trace`][rope_explained.model.Trace] of
[`forward`][rope_explained.model.forward] (the rank-1 comparison reads a second one).
"""

from __future__ import annotations

import numpy as np

from ...examples import FORWARD_PASS_PROMPT
from ...model import DEFAULT, forward
from .. import floor_to, register, setting_text, value
from ..style import (
    COLORS,
    DIVERGING,
    attention_heatmap,
    centred_norm,
    new_figure,
    token_ticks,
)
from .induction_head import benchmark_hits

PROMPT = FORWARD_PASS_PROMPT
"""The site's running example (the same prompt as the step-by-step page and the home page)."""


@register(
    "complete-residual",
    caption=(
        r"The residual stream of the prompt thecatsatonthec before and after each layer, one "
        r"row per position and one column per coordinate (the first \(3d + 1 = 193\) of "
        r"\(D = 256\); the rest stay zero). \(h^{(0)}\): the bias coordinate and the letter's "
        r"own embedding. \(h^{(1)}\): layer 0 has filled the prev slot with the previous "
        r"letter's embedding (the tok pattern shifted down one row). \(h^{(2)}\): layer 1 has "
        r"filled the out slot; in the last row it holds the embedding of a, the letter that "
        r"followed the earlier c."
    ),
    alt="Three stacked heatmaps, rows are positions from <s> to the final c, columns are "
    "residual coordinates split by vertical lines into bias, tok, prev and out slots. Top: "
    "only bias and tok are coloured. Middle: prev now shows the tok stripes shifted down one "
    "row. Bottom: out is coloured too. Red positive, blue negative, white zero.",
    prompt=PROMPT,
)
def residual(prompt: str = PROMPT):
    """h0, h1, h2 as position by coordinate heatmaps, from ``forward(prompt)``."""
    tr = forward(prompt)
    s = tr.slots
    used = s.out.stop  # 3d + 1 columns carry something
    stages = ((r"$h^{(0)}$", tr.h0), (r"$h^{(1)} = h^{(0)} + o^{(0)}$", tr.h1),
              (r"$h^{(2)} = h^{(1)} + o^{(1)}$", tr.h2))  # fmt: skip
    norm = centred_norm(np.concatenate([h[:, :used] for _, h in stages]))
    fig, axes = new_figure(3, 1, width=7.2, height=7.6, sharex=True)
    for ax, (name, h) in zip(axes, stages, strict=True):
        im = ax.imshow(h[:, :used], cmap=DIVERGING, norm=norm, aspect="auto",
                       interpolation="nearest")  # fmt: skip
        token_ticks(ax, tr.tokens, axis="y")
        ax.tick_params(axis="y", labelsize=10)
        ax.set_ylabel("position")
        ax.set_title(name, fontsize=12, loc="left")
        for edge in (s.tok.start, s.prev.start, s.out.start):
            ax.axvline(edge - 0.5, color="0.2", lw=1.0)
    centres = [0, (s.tok.start + s.tok.stop - 1) / 2, (s.prev.start + s.prev.stop - 1) / 2,
               (s.out.start + s.out.stop - 1) / 2]  # fmt: skip
    names = [
        "bias\n0",
        f"tok\n{s.tok.start}-{s.tok.stop - 1}",
        f"prev\n{s.prev.start}-{s.prev.stop - 1}",
        f"out\n{s.out.start}-{s.out.stop - 1}",
    ]
    axes[-1].set_xticks(centres, names)  # fmt: skip
    axes[-1].set_xlabel("residual coordinate, by slot")
    fig.colorbar(im, ax=axes, label="value", shrink=0.5)
    return fig


@register(
    "complete-attention",
    caption=(
        r"The two attention patterns of the same forward pass, side by side: layer 0 puts "
        r"each row on the previous position; layer 1 sends the last query (the second c) to "
        r"the position after the first c, where the a sits. Rows of queries with no earlier "
        r"match spread their weight or settle on the closest letter, which matters only for "
        r"predictions at those positions."
    ),
    alt="Two attention heatmaps, query position down, key position across. Left, layer 0: "
    "a bright sub-diagonal. Right, layer 1: scattered bright cells; in the last row the bright "
    "cell is at the key a in cat, right after the first c. The masked upper triangles are grey "
    "and hatched.",
    prompt=PROMPT,
)
def attention(prompt: str = PROMPT):
    """A0 and A1 of ``forward(prompt)``, with the last row's favourite key circled."""
    tr = forward(prompt)
    fig, axes = new_figure(1, 2, width=7.2, height=4.1)
    for ax, (name, A) in zip(axes, ((r"layer 0: $A^{(0)}$", tr.A0), (r"layer 1: $A^{(1)}$", tr.A1)),
                             strict=True):  # fmt: skip
        im = attention_heatmap(ax, A, tr.mask, tokens=tr.tokens)
        ax.tick_params(labelsize=10)
        ax.set_title(name, fontsize=12)
    last = len(tr.tokens) - 1
    best = int(np.argmax(tr.A1[last]))
    axes[1].plot([best], [last], "o", ms=13, mfc="none", mec=COLORS[5], mew=2)
    axes[0].set_ylabel(r"query position $m$")
    fig.colorbar(im, ax=axes, label="attention weight", shrink=0.8)
    return fig


@register(
    "complete-prediction",
    caption=(
        r"\(P(\text{next letter} \mid \text{thecatsatonthec})\), the softmax of the last "
        r"position's logits, for the working head (top) and the document's rank-1 head "
        r"(bottom). The working head puts most of the mass on a, the rest on its neighbours b "
        r"and z on the embedding circle (the readout scores letter \(v\) by "
        r"\(\gamma\cos(a_v - a_B)\)); the rank-1 head copies the wrong letter."
    ),
    alt="Two bar charts over the 26 letters. Top, working head: one tall bar at a, about 0.90, "
    "and two small bars at b and z. Bottom, rank-1 head: the tall bar is at t instead.",
    prompt=PROMPT,
)
def prediction(prompt: str = PROMPT):
    """Next-letter probabilities at the last position for both heads, from ``forward``."""
    fig, axes = new_figure(2, 1, width=7.2, height=4.6, sharex=True, sharey=True)
    names = {"induction": "working head", "rank1": "rank-1 head"}
    for ax, head in zip(axes, ("induction", "rank1"), strict=True):
        tr = forward(prompt, head=head)
        p = tr.probs[-1]
        top = int(np.argmax(p))
        colours = [COLORS[5] if i == top else COLORS[0] for i in range(len(p))]
        ax.bar(np.arange(len(p)), p, color=colours)
        ax.annotate(f"{tr.vocab[top]}: {p[top]:.2f}", xy=(top, p[top]), xytext=(0, 3),
                    textcoords="offset points", fontsize=11, ha="center", va="bottom")  # fmt: skip
        ax.set_ylabel("probability")
        ax.set_title(names[head], fontsize=12, loc="left")
        ax.set_ylim(0, 1.15)
    axes[-1].set_xticks(np.arange(26), tr.vocab)
    axes[-1].set_xlabel("next letter")
    return fig


# Values the page states ------------------------------------------------------------------------


@value("complete-spare-coordinates")
def complete_spare_coordinates(prompt: str = PROMPT) -> str:
    """How many coordinates of the residual stream come after the out slot, D - 3d - 1."""
    tr = forward(prompt)
    return str(tr.h0.shape[1] - tr.slots.out.stop)


@value("complete-min-previous-weight")
def complete_min_previous_weight(prompt: str = PROMPT) -> str:
    """The smallest layer-0 weight on position m - 1, rounded down (the page says "at least")."""
    return floor_to(np.diag(forward(prompt).A0, k=-1).min(), 5)


@value("complete-rank1-prediction")
def complete_rank1_prediction(prompt: str = PROMPT) -> str:
    """What the rank-1 head predicts on the example."""
    return forward(prompt, head="rank1").prediction


@value("complete-accuracy-rank1", head="rank1", decimals=1)
@value("complete-accuracy-induction", head="induction", decimals=0)
def complete_accuracy(head: str = "rank1", decimals: int = 1, n: int = 1000) -> str:
    """A head's accuracy on the induction benchmark of the layer-1 page, in percent."""
    return f"{100 * benchmark_hits(n)[head].mean():.{decimals}f}"


def _logit_gap(prompt: str) -> float:
    logits = np.sort(forward(prompt).logits[-1])
    return float(logits[-1] - logits[-2])


@value("complete-neighbour-logit-gap")
def complete_neighbour_logit_gap(prompt: str = PROMPT) -> str:
    """How far the runners-up trail the predicted letter in logit."""
    return f"{_logit_gap(prompt):.1f}"


@value("complete-neighbour-ratio")
def complete_neighbour_ratio(prompt: str = PROMPT) -> str:
    """The probability of a runner-up as a share of the prediction's (e^-gap)."""
    p = np.sort(forward(prompt).probs[-1])
    return f"{p[-2] / p[-1]:.2f}"


@value("complete-top-probability")
def complete_top_probability(prompt: str = PROMPT) -> str:
    """The probability of the predicted letter."""
    return f"{forward(prompt).probs[-1].max():.2f}"


@value("complete-alpha1-weight")
def complete_alpha1_weight(prompt: str = PROMPT, alpha: float = 1.0) -> str:
    """The last row's layer-0 weight on m - 1 with a blunt layer 0."""
    return f"{forward(prompt, alpha=alpha).A0[-1, -2]:.2f}"


def _match(prompt: str) -> int:
    """The key after the earlier copy of the last letter (with the start token at 0)."""
    return prompt.index(prompt[-1]) + 2


@value("complete-beta10-weight")
def complete_beta10_weight(prompt: str = PROMPT, beta: float = 10.0) -> str:
    """The last row's layer-1 weight on the right key with a blunt layer 1."""
    return f"{forward(prompt, beta=beta).A1[-1, _match(prompt)]:.2f}"


@value("complete-beta10-prediction")
def complete_beta10_prediction(prompt: str = PROMPT, beta: float = 10.0) -> str:
    """What the model predicts with a blunt layer 1."""
    return forward(prompt, beta=beta).prediction


@value("complete-ex-next-prediction")
def complete_ex_next_prediction(prompt: str = PROMPT[:-1]) -> str:
    """Exercise 1: the prediction after the example without its last letter."""
    return forward(prompt).prediction


@value("complete-ex-next-probability")
def complete_ex_next_probability(prompt: str = PROMPT[:-1]) -> str:
    """Exercise 1: its probability."""
    return f"{forward(prompt).probs[-1].max():.2f}"


@value("complete-ex-gamma200")
def complete_ex_gamma200(prompt: str = PROMPT, gamma: float = 200.0) -> str:
    """Exercise 2: the probability of the prediction with a sharper readout."""
    return f"{forward(prompt, gamma=gamma).probs[-1].max():.3f}"


@value("complete-ex-alpha1-probability")
def complete_ex_alpha1_probability(prompt: str = PROMPT, alpha: float = 1.0) -> str:
    """Exercise 3: the probability of the prediction with a blunt layer 0."""
    return f"{forward(prompt, alpha=alpha).probs[-1].max():.2f}"


@value("complete-setting-d", name="d")
@value("complete-setting-width", name="D")
@value("complete-setting-alpha", name="alpha")
@value("complete-setting-beta", name="beta")
@value("complete-setting-gamma", name="gamma")
def complete_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
