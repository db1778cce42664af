r"""Figures of the layer-1 page (equations/induction-head.md).

Each figure compares the explained-equations document's rank-1 head (``head="rank1"``) with
the working induction head the site uses (``head="induction"``, the default). Everything
plotted is read from [`forward`][rope_explained.model.forward] traces, the induction benchmark of
``experiments``, or the package's frequency schedule.
"""

from __future__ import annotations

import functools

import numpy as np

from ...embedding import VOCAB, letter_angle
from ...experiments import induction_hits, induction_prompts
from ...model import DEFAULT, Config, forward
from ...rope import frequencies
from .. import register, setting_text, times_ten, value
from ..style import (
    COLORS,
    DIVERGING,
    attention_heatmap,
    centred_norm,
    legend_columns,
    new_figure,
    token_ticks,
)

HEAD_NAMES = {"rank1": "rank-1 head (the document's)", "induction": "working head (this site's)"}
PROMPT = "jumpfoxjumpfox"
"""A prompt whose second half repeats its first half: the textbook induction case."""
ALPHABET = "".join(VOCAB)


def preference_matrix(head: str) -> np.ndarray:
    r"""Layer-1 score per unit \(\beta\) of query letter \(a\) (rows) against a key whose
    previous letter is \(b\) (columns), read from one forward pass over the alphabet twice.

    In ``"abc...zabc...z"`` (with the start token at position 0) the query at position
    ``27 + i`` holds letter ``i``, and the key at position ``2 + j`` follows letter ``j``.
    """
    tr = forward(ALPHABET * 2, head=head)
    beta = tr.config.beta
    rows = 27 + np.arange(26)
    cols = 2 + np.arange(26)
    return tr.scores1[np.ix_(rows, cols)] / beta  # (26, 26)


@register(
    "layer1-preference",
    caption=(
        r"Which key each query prefers. Each row is a query letter \(t_m\), each column the "
        r"letter \(t_{n-1}\) written into a key by layer 0; colour is the layer-1 score per "
        r"unit \(\beta\), read from one forward pass over the alphabet written twice; the "
        r"dot marks each row's favourite. Left, the rank-1 head: every row is a multiple of "
        r"the same row (up to the slowest pair's slight turn between the rows' positions), so "
        r"all favourites sit in column a or column n. Right, the working "
        r"head: a diagonal band, every letter prefers the key that follows itself."
    ),
    alt="Two 26 by 26 heatmaps, query letter down, previous letter of the key across, red "
    "positive and blue negative. Left, rank-1: a plaid pattern of red and blue blocks, the "
    "row favourites all in the first column (a) or the middle column (n). Right, working head: "
    "a red diagonal band with the favourites exactly on the diagonal, blue far from it.",
)
def preference():
    """Query letter by key letter score maps of both heads, from ``forward``."""
    fig, axes = new_figure(1, 2, width=7.2, height=4.3)
    for ax, head in zip(axes, ("rank1", "induction"), strict=True):
        M = preference_matrix(head)
        im = ax.imshow(M, cmap=DIVERGING, norm=centred_norm(M))
        best = M.argmax(axis=1)
        ax.plot(best, np.arange(26), "o", color="black", ms=3.5, mfc="white", mew=1.0)
        ticks = np.arange(0, 26, 2)
        ax.set_xticks(ticks, [VOCAB[i] for i in ticks], fontsize=10)
        ax.set_yticks(ticks, [VOCAB[i] for i in ticks], fontsize=10)
        ax.set_xlabel(r"key's previous letter $t_{n-1}$")
        ax.set_title(HEAD_NAMES[head], fontsize=12)
    axes[0].set_ylabel(r"query letter $t_m$")
    fig.colorbar(im, ax=axes, label=r"$q_m^{(1)T} k_n^{(1)} / \beta$", shrink=0.75)
    return fig


ROW_QUERIES = (14, 12, 10, 8)
"""The queries drawn in the rank-1 rows figure: the second half's x, f, m and j (positions 14,
12, 10, 8), two with a positive scalar cos a_t and two with a negative one."""


@register(
    "layer1-rank1-rows",
    caption=(
        r"The rank-1 head on the prompt jumpfoxjumpfox, whose second half repeats the first. "
        r"Each line is the score row of one query \(m\) of the second half (the letter in the "
        r"legend) over the keys it may see. Left: the raw rows \(q_m^{(1)T} k_n^{(1)}\): they "
        r"differ in size and sign. Right: the same rows divided by each query's own scalar "
        r"\(\beta\, v_q^T h^{(1)}_m\): they fall on one curve, the key scalar "
        r"\(v_k^T h^{(1)}_n\) times a position factor that stays within "
        r"\({{ value('layer1-rank1-position-drift') }}\) of 1 on this prompt. The query's "
        r"letter only scales that curve, or flips it when its scalar is negative, so it "
        r"cannot move the favourite key."
    ),
    alt="Two line plots over key position, four lines each for the queries x, f, m and j. "
    "Left: zig-zag lines of different heights, two of them upside down. Right: after dividing "
    "each by its query's scalar the four lines lie on top of each other, one zig-zag between "
    "-1 and 1.",
    prompt=PROMPT,
    queries=ROW_QUERIES,
)
def rank1_rows(prompt: str = PROMPT, queries: tuple[int, ...] = ROW_QUERIES):
    """Rows of the rank-1 score matrix and their collapse, from ``forward(head="rank1")``."""
    tr = forward(prompt, head="rank1")
    q_scalar = tr.q1_pre[:, tr.config.d - 2]  # beta v_q^T h_m, before RoPE
    T = len(tr.tokens)
    if not all(isinstance(m, int) and 1 <= m < T for m in queries):
        raise ValueError(f"queries must be positions 1 to {T - 1} of the prompt; got {queries!r}")
    fig, (ax0, ax1) = new_figure(1, 2, width=7.2, height=3.7, sharex=True)
    markers = ("o", "s", "^", "D", "v", "P")
    for k, m in enumerate(queries):
        n = np.arange(m + 1)  # the keys query m can see
        style = dict(color=COLORS[k % len(COLORS)], lw=1.3, marker=markers[k % len(markers)],
                     ms=6 - k, label=f"{tr.tokens[m]} (m = {m})")  # fmt: skip
        ax0.plot(n, tr.scores1[m, : m + 1], **style)
        ax1.plot(n, tr.scores1[m, : m + 1] / q_scalar[m], **style)
    ax0.set_ylabel(r"$q_m^{(1)T} k_n^{(1)}$")
    ax1.set_ylabel(r"$q_m^{(1)T} k_n^{(1)} \,/\, (\beta\, v_q^T h^{(1)}_m)$")
    for ax in (ax0, ax1):
        ax.set_xlabel(r"key position $n$")
        token_ticks(ax, tr.tokens, axis="x")
        ax.tick_params(axis="x", labelrotation=90)
        ax.axhline(0, color="0.6", lw=0.8)
    ax0.legend(title="query", fontsize=10, title_fontsize=10, loc="lower left",
               ncols=legend_columns(2), bbox_to_anchor=(0.0, 1.0), frameon=False)  # fmt: skip
    return fig


@register(
    "layer1-patterns",
    caption=(
        r"Layer-1 attention on jumpfoxjumpfox, the prompt of {{ fig('layer1-rank1-rows') }}. "
        r"Left, the rank-1 head: whatever "
        r"the query letter, the rows pile onto the same few keys, those whose previous letter "
        r"has the most extreme scalar. Right, the working head: in the second copy each query "
        r"attends to the key just after its letter's first occurrence (the induction "
        r"stripe), so the value it copies is the letter that came next last time."
    ),
    alt="Two attention heatmaps, query position down, key position across, tokens as labels. "
    "Left, rank-1: bright cells stacked in a few columns. Right, working head: in the lower "
    "half a bright diagonal stripe offset to the left by six positions, the induction stripe. "
    "The masked upper triangles are grey and hatched.",
    prompt=PROMPT,
)
def patterns(prompt: str = PROMPT):
    """Layer-1 patterns of both heads on the same prompt, from two forward passes."""
    fig, axes = new_figure(1, 2, width=7.2, height=4.2)
    for ax, head in zip(axes, ("rank1", "induction"), strict=True):
        tr = forward(prompt, head=head)
        im = attention_heatmap(ax, tr.A1, tr.mask, tokens=tr.tokens)
        ax.tick_params(labelsize=10)
        ax.set_title(HEAD_NAMES[head], fontsize=12)
    axes[1].set_ylabel("")
    fig.colorbar(im, ax=axes, label=r"$A^{(1)}_{m,n}$", shrink=0.8)
    return fig


@register(
    "layer1-accuracy",
    caption=(
        r"Induction accuracy of the two heads on the same 1000 seeded prompts "
        r"\(\ldots A\,B \ldots A\) (``induction_prompts(1000)``, lengths 8 to 256), overall and "
        r"by prompt length. A prompt counts as solved when the model's most probable next "
        r"letter is \(B\). Chance is 1 in 26, about 3.8%."
    ),
    alt="Grouped bar chart: accuracy in percent for five groups, all prompts and four length "
    "ranges. The working head's bars all reach 100 percent; the rank-1 head's bars are short, "
    "about 10 percent overall and highest for the shortest prompts. A dashed line marks chance.",
    n=1000,
)
def accuracy(n: int = 1000):
    """Accuracy of both heads, overall and by length, from [`benchmark_hits`][]."""
    prompts = induction_prompts(n)
    edges = (8, 65, 129, 193, 257)
    bins = list(zip(edges[:-1], edges[1:], strict=True))
    lengths = np.array([len(p.text) for p in prompts])
    groups = [(lo <= lengths) & (lengths < hi) for lo, hi in bins]
    labels = ["all"] + [f"{lo}-{hi - 1}" for lo, hi in bins]
    fig, ax = new_figure(width=7.2, height=3.6)
    x = np.arange(len(labels))
    for k, head in enumerate(("rank1", "induction")):
        hits = benchmark_hits(n)[head]  # the model's top prediction is B, prompt by prompt
        by_group = np.array([hits[g].mean() for g in groups])
        sizes = np.array([g.sum() for g in groups])
        overall = float((by_group * sizes).sum() / sizes.sum())
        values = 100 * np.r_[overall, by_group]
        bars = ax.bar(x + (k - 0.5) * 0.38, values, width=0.38, color=COLORS[2 * k],
                      label=HEAD_NAMES[head])  # fmt: skip
        ax.bar_label(bars, fmt="%.1f", fontsize=10, padding=2)
    ax.axhline(100 / 26, color="0.4", ls="--", lw=1)
    ax.text(len(labels) - 0.5, 100 / 26 + 2, "chance", ha="right", fontsize=10, color="0.3")
    ax.set_xticks(x, labels)
    ax.set_xlabel("prompt length (letters)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 118)
    ax.legend(loc="upper center", ncols=legend_columns(2), bbox_to_anchor=(0.5, 1.02))
    return fig


def _distance_prompt(length: int, letter: str, seed: int) -> str:
    """Uniform random letters, ending in ``letter`` (the query)."""
    rng = np.random.default_rng(seed)
    text = [VOCAB[i] for i in rng.integers(26, size=length)]
    text[-1] = letter
    return "".join(text)


@register(
    "layer1-distance",
    caption=(
        r"The limit of the working head. One forward pass over 2400 random letters ending "
        r"in k; each dot is the last query's score (per unit \(\beta\)) against an earlier "
        r"key, plotted at its distance \(m - n\), for the keys that follow a k (the exact "
        r"match), an l or a j (the neighbouring letters). The slowest RoPE pair still turns "
        r"the query by \(\theta_{31}\) per token, so the exact match fades while the "
        r"neighbour l gains, and they cross at \(\pi/26 \,/\, \theta_{31} \approx "
        r'{{ value("layer1-distance-limit") }}\) tokens (dashed line). The keys after j, '
        r"which the turn carries the other way, fall the fastest."
    ),
    alt="Scatter plot of score per unit beta against distance from 0 to 2400. Dots for keys "
    "after k fall slowly from 1 to about 0.95; dots for keys after l rise from about 0.97 to 1 "
    "near 1800; dots for keys after j fall from 0.97 to about 0.85. The k and l curves cross "
    "at a dashed vertical line "
    'near {{ value("layer1-distance-limit") }}.',
    length=2400,
    letter="k",
    seed=3,
)
def distance(length: int = 2400, letter: str = "k", seed: int = 3):
    """Last-query scores against distance by the key's previous letter, from ``forward``."""
    tr = forward(_distance_prompt(length, letter, seed))
    beta = tr.config.beta
    m = len(tr.tokens) - 1
    n = np.arange(1, m)  # keys with a letter before them
    prev = np.array(tr.tokens)[n - 1]
    dist = m - n
    i = VOCAB.index(letter)
    fig, ax = new_figure(width=7.2, height=3.8)
    for k, (shift, name) in enumerate(((0, "exact"), (1, "next"), (-1, "previous"))):
        other = VOCAB[(i + shift) % 26]
        sel = prev == other
        ax.plot(dist[sel], tr.scores1[m, n[sel]] / beta, "o", ms=3.5, color=COLORS[[0, 5, 2][k]],
                label=rf"after {other} ({name})")  # fmt: skip
    low = float(np.min(tr.scores1[m, n[np.isin(prev, [VOCAB[(i + s) % 26] for s in (-1, 0, 1)])]]))
    theta = frequencies(tr.config.d, tr.config.base)[-1]
    cross = np.pi / 26 / theta
    ax.axvline(cross, color="0.3", ls="--", lw=1)
    ax.text(
        cross - 30,
        low / beta,
        rf"$\pi/26\,/\,\theta_{{31}} \approx {cross:.0f}$",
        fontsize=11,
        ha="right",
    )
    ax.set_xlabel(r"distance $m - n$ (tokens)")
    ax.set_ylabel(r"$q_m^{(1)T} k_n^{(1)} / \beta$")
    ax.set_ylim(low / beta - 0.01, 1.008)  # every plotted series stays on the plot to the end
    ax.legend(
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncols=legend_columns(3),
        title="keys",
        title_fontsize=11,
        handletextpad=0.1,
        columnspacing=1.0,
    )
    return fig


# The induction benchmark, once per process ------------------------------------------------------


@functools.lru_cache(maxsize=2)
def benchmark_hits(n: int = 1000) -> dict[str, np.ndarray]:
    """Which of the prompts ``induction_prompts(n)`` each head solves, prompt by prompt.

    Returns ``{"induction": hits, "rank1": hits, "letter": A}``: two boolean arrays of shape
    ``(n,)`` (the model's top prediction is the right ``B``) and the repeated letter ``A`` of
    each prompt. Computed once per process (the arrays are read-only): the values of the
    layer-1 page and of the complete-forward-pass page share one run of the benchmark.
    """
    prompts = induction_prompts(n)
    out = {head: induction_hits(prompts, head=head) for head in ("induction", "rank1")}
    out["letter"] = np.array([p.text[-1] for p in prompts])
    for array in out.values():
        array.flags.writeable = False
    return out


def spaced_prompts(gap: int, n: int = 10, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` prompts of ``gap + 1`` letters with the same letter ``A`` at both ends and, in
    between, letters drawn uniformly from the other 25; each with the letter after the first
    ``A`` (what an induction head should predict)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        a = int(rng.integers(26))
        others = [VOCAB[i] for i in range(26) if i != a]
        letters = [others[j] for j in rng.integers(25, size=gap + 1)]
        letters[0] = letters[-1] = VOCAB[a]
        out.append(("".join(letters), letters[1]))
    return out


# Values the page states ------------------------------------------------------------------------


@value("layer1-accuracy-induction", head="induction")
@value("layer1-accuracy-rank1", head="rank1")
def layer1_accuracy(head: str = "induction", n: int = 1000) -> str:
    """A head's accuracy on the benchmark, in percent."""
    return f"{100 * benchmark_hits(n)[head].mean():.1f}"


def _letter_group(letter: str, n: int) -> np.ndarray:
    letters = benchmark_hits(n)["letter"]
    return ~np.isin(letters, ["a", "n"]) if letter == "other" else letters == letter


@value("layer1-rank1-hits-a", letter="a")
@value("layer1-rank1-hits-n", letter="n")
@value("layer1-rank1-hits-other", letter="other")
def layer1_rank1_hits(letter: str = "a", n: int = 1000) -> str:
    """How many benchmark prompts whose A is ``letter`` (or neither a nor n) rank-1 solves."""
    return str(int(benchmark_hits(n)["rank1"][_letter_group(letter, n)].sum()))


@value("layer1-prompts-a", letter="a")
@value("layer1-prompts-n", letter="n")
@value("layer1-prompts-other", letter="other")
def layer1_prompts(letter: str = "a", n: int = 1000) -> str:
    """How many benchmark prompts have ``letter`` as their A (or neither a nor n)."""
    return str(int(_letter_group(letter, n).sum()))


@value("layer1-rank1-rate-other")
def layer1_rank1_rate_other(n: int = 1000) -> str:
    """The rank-1 head's accuracy, in percent, on the prompts whose A is neither a nor n."""
    return f"{100 * benchmark_hits(n)['rank1'][_letter_group('other', n)].mean():.1f}"


@value("layer1-rank1-position-drift")
def layer1_rank1_position_drift(prompt: str = PROMPT) -> str:
    r"""How far the rank-1 head's position factor \(u_q^T R_{\Theta,n-m} u_k\) strays from 1 on
    ``prompt``: its smallest value over every query and visible key, subtracted from 1 (TeX).

    The factor is the score divided by the two scalars; for \(u = e_{d-2}\) it is
    \(\cos((n - m)\,\theta_{31})\)."""
    tr = forward(prompt, head="rank1")
    d = tr.config.d
    q, k = tr.q1_pre[:, d - 2], tr.k1_pre[:, d - 2]  # beta v_q^T h_m and v_k^T h_n
    both = np.outer(q, k)
    ok = tr.mask & (np.abs(both) > 1e-3 * tr.config.beta)  # letters only: no leak-sized scalars
    factor = tr.scores1[ok] / both[ok]
    return times_ten(1 - factor.min(), 1)


def rank1_favourites(prefix: str = PROMPT[:-1]) -> list[int]:
    """The rank-1 head's favourite key of the last query of ``prefix + t``, for each letter
    ``t`` of the alphabet in turn (26 forward passes)."""
    return [int(np.argmax(forward(prefix + t, head="rank1").scores1[-1])) for t in VOCAB]


@value("layer1-rank1-favourite-count")
def layer1_rank1_favourite_count(prefix: str = PROMPT[:-1]) -> str:
    """How many different favourite keys the last query of the rank-1 head picks as its
    letter runs through the alphabet."""
    return str(len(set(rank1_favourites(prefix))))


@value("layer1-two-copies-prediction")
def layer1_two_copies_prediction(text: str = "kbxkdqk") -> str:
    """The prediction after a letter that occurred twice before, with different followers."""
    return forward(text).prediction


@value("layer1-two-copies-probability")
def layer1_two_copies_probability(text: str = "kbxkdqk") -> str:
    """The probability of that prediction."""
    return f"{forward(text).probs[-1].max():.2f}"


TIE_PROMPT = "kbxkmdk"
"""Two earlier copies of k followed by b and m, whose average falls midway between g and h."""


@value("layer1-tie-h", letter="h")
@value("layer1-tie-g", letter="g")
def layer1_tie_probability(
    letter: str = "h", text: str = TIE_PROMPT, alpha: float = DEFAULT.alpha
) -> str:
    """The probability of ``letter`` after ``text``."""
    tr = forward(text, alpha=alpha)
    return f"{tr.probs[-1][tr.vocab.index(letter)]:.3f}"


def _tie_keys(text: str) -> list[int]:
    """The keys whose previous letter is the last letter (the exact matches)."""
    return [n for n in range(2, len(text) + 1) if text[n - 2] == text[-1]]


@value("layer1-tie-early", which=0)
@value("layer1-tie-late", which=1)
@value("layer1-tie-exact", which=1, alpha=100.0)
def layer1_tie_weight(which: int = 0, text: str = TIE_PROMPT, alpha: float = DEFAULT.alpha) -> str:
    """The last query's attention on the earlier (0) or later (1) exact match."""
    tr = forward(text, alpha=alpha)
    return f"{tr.A1[-1, _tie_keys(text)[which]]:.4f}"


@value("layer1-tie-leak")
def layer1_tie_leak(text: str = TIE_PROMPT) -> str:
    """The largest share of weight a matching key's layer-0 row puts off position n - 1 (TeX)."""
    tr = forward(text)
    return times_ten(max(1 - tr.A0[n, n - 1] for n in _tie_keys(text)), 0)


@value("layer1-tie-score-gap")
def layer1_tie_score_gap(text: str = TIE_PROMPT) -> str:
    """How much the later match outscores the earlier one (alpha = 10)."""
    tr = forward(text)
    early, late = _tie_keys(text)
    return f"{tr.scores1[-1, late] - tr.scores1[-1, early]:.4f}"


@value("layer1-tie-rope-gap")
def layer1_tie_rope_gap(text: str = TIE_PROMPT) -> str:
    r"""RoPE's share of that lead: \(\beta(\cos(d_\mathrm{late}\theta_{31}) -
    \cos(d_\mathrm{early}\theta_{31}))\) for the two matches' distances (TeX)."""
    cfg = Config()
    th = frequencies(cfg.d, cfg.base)[-1]
    early, late = _tie_keys(text)
    m = len(text)
    return times_ten(cfg.beta * (np.cos((m - late) * th) - np.cos((m - early) * th)), 1)


# Worked exercises ------------------------------------------------------------------------------

EXERCISE_RANK1 = "cabqnzc"
"""Exercise 1: what does the rank-1 head predict?"""
EXERCISE_TWO_AFTER = "kbqxyzk"
"""Exercise 2: the head that copies the letter two after the match."""


@value("layer1-ex-rank1-prediction", head="rank1")
@value("layer1-ex-working-prediction", head="induction")
def layer1_ex_prediction(head: str = "rank1", text: str = EXERCISE_RANK1) -> str:
    """What ``head`` predicts after the exercise's prompt."""
    return forward(text, head=head).prediction


@value("layer1-ex-two-after-prediction")
def layer1_ex_two_after(text: str = EXERCISE_TWO_AFTER, offset: int = 2) -> str:
    """What the model predicts when layer 0 looks ``offset`` positions back."""
    return forward(text, offset=offset).prediction


@value("layer1-ex-limit-llama", d=128, base=500000.0)
@value("layer1-ex-limit-128", d=128, base=DEFAULT.base)
def layer1_ex_limit(d: int = 128, base: float = DEFAULT.base) -> str:
    """The distance at which the slowest pair of a ``d``-dimensional head with ``base`` has
    turned by half a letter step, pi/26 (with thousands separators, TeX)."""
    half_step = (letter_angle("b") - letter_angle("a")) / 2
    return f"{half_step / frequencies(d, base)[-1]:,.0f}".replace(",", "{,}")


@value("layer1-slowest-frequency")
def layer1_slowest_frequency() -> str:
    """The frequency of the slowest pair, theta_31 (TeX)."""
    cfg = Config()
    return times_ten(frequencies(cfg.d, cfg.base)[-1], 2)


@value("layer1-distance-limit")
def layer1_distance_limit() -> str:
    """The distance at which the slowest pair has turned by half a letter step, pi/26."""
    cfg = Config()
    half_step = (letter_angle("b") - letter_angle("a")) / 2
    return f"{half_step / frequencies(cfg.d, cfg.base)[-1]:.0f}"


@value("layer1-neighbour-cosine")
def layer1_neighbour_cosine() -> str:
    """The score per unit beta of the next letter round the circle, cos(pi/13)."""
    return f"{np.cos(letter_angle('b') - letter_angle('a')):.3f}"


@value("layer1-neighbour-exponent")
def layer1_neighbour_exponent() -> str:
    """The score gap beta (1 - cos(pi/13)) between the match and the next letter."""
    step = letter_angle("b") - letter_angle("a")
    return f"{Config().beta * (1 - np.cos(step)):.0f}"


@value("layer1-spaced-hits-800", gap=800)
@value("layer1-spaced-hits-900", gap=900)
@value("layer1-spaced-hits-1300", gap=1300)
def layer1_spaced_hits(gap: int = 800, n: int = 10, seed: int = 0) -> str:
    """How many of the [`spaced_prompts`][] the model completes correctly."""
    return str(sum(forward(t).prediction == b for t, b in spaced_prompts(gap, n, seed)))


@value("layer1-setting-d", name="d")
@value("layer1-setting-beta", name="beta")
def layer1_setting(name: str) -> str:
    """The model's setting ``name`` (a field of ``Config``), as the page states it."""
    return setting_text(getattr(DEFAULT, name))
