r"""The two-layer RoPE transformer and its forward pass.

One path from text to prediction, each line an equation of the site:

$$
\begin{aligned}
h^{(0)}_m &= [1;\; E[t_m];\; 0;\; 0] \\
k^{(0)}_n &= R_{\Theta,n} W_k h^{(0)}_n = R_{\Theta,n}\,c, \qquad
q^{(0)}_m = R_{\Theta,m} W_q h^{(0)}_m = \alpha R_{\Theta,m-1}\,c \\
A^{(0)}_{m,n} &= \mathrm{softmax}_{n \le m}\big(q^{(0)T}_m k^{(0)}_n\big), \qquad
o^{(0)}_m = \sum_n A^{(0)}_{m,n}\, V^{(0)} h^{(0)}_n, \qquad h^{(1)} = h^{(0)} + o^{(0)} \\
A^{(1)}_{m,n} &= \mathrm{softmax}_{n \le m}\big(q^{(1)T}_m k^{(1)}_n\big), \qquad
o^{(1)}_m = \sum_n A^{(1)}_{m,n}\, V^{(1)} h^{(1)}_n, \qquad h^{(2)} = h^{(1)} + o^{(1)} \\
\mathrm{logits}_m &= W_\mathrm{out} h^{(2)}_m + b_\mathrm{out}, \qquad
P(\cdot \mid t_{\le m}) = \mathrm{softmax}(\mathrm{logits}_m)
\end{aligned}
$$

Scores are used as the document writes them, without the \(1/\sqrt{d}\) of trained models
(the sharpness lives in \(\alpha\) and \(\beta\)).

**Rows, not columns.** The pages write vectors as columns, \(k_n = R_{\Theta,n} W_k h_n\).
The code keeps one row per position: ``h`` is ``(T, D)``, so the same map reads
``k = apply_rope(h @ W_k.T, n)``, and the \((T, T)\) score matrix is ``q @ k.T``, whose entry
``[m, n]`` is \(q_m^T k_n\). This is the only place the two conventions meet.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from . import _checks
from ._checks import (
    MAX_ARRAY_SIZE,
    MAX_BASE,
    MAX_CONTEXT,
    MAX_MODEL_DIM,
    MAX_MODEL_WIDTH,
    MAX_SHARPNESS,
    check_array,
    check_base,
    check_bool,
    check_choice,
    check_int_range,
    check_model_dims,
    check_real,
    check_sharpness,
    check_text,
    show,
)
from .conventions import interleaved_to_half
from .embedding import BOS, PAD, VOCAB, embedding_matrix, tokenize
from .heads import (
    HEADS,
    HeadWeights,
    Slots,
    Weights,
    induction_weights,
    previous_token_weights,
    readout_weights,
)
from .rope import (
    LAYOUTS,
    MAX_FACTOR,
    SCALING_METHODS,
    _rotate_pairs,
    frequencies,
    scaled_frequencies,
)

MAX_LETTERS = _checks.MAX_LETTERS
"""The longest text [`forward`][] accepts, 8,192 letters. The trace holds four T x T float64
matrices (the scores and patterns of both layers, T = letters + 1 with the start token): at
8,192 letters that is 2.1 GB, and the pass peaks at about 2.2 GiB. Longer texts are refused
before anything is computed. (The playground's own, lower limit is
[`rope_explained.examples.HEATMAP_MAX_LETTERS`][].)"""

CONFIG_MAX = {
    "d": MAX_MODEL_DIM,
    "D": MAX_MODEL_WIDTH,
    "base": MAX_BASE,
    "alpha": MAX_SHARPNESS,
    "beta": MAX_SHARPNESS,
    "gamma": MAX_SHARPNESS,
    "offset": MAX_LETTERS,
    "factor": MAX_FACTOR,
    "original_max_position": MAX_CONTEXT,
}
"""The largest value of each numeric setting of [`Config`][] (the comments on its fields give
the lower limits), for code that checks settings before it calls the package (the
playground's JavaScript)."""


@dataclass(frozen=True)
class Config:
    """Settings of the model; the defaults are the ones every page of the site uses.

    Each setting is checked when a ``Config`` is made, and a value outside its range (the
    comments below) is refused with a ``ValueError`` naming it. The upper limits keep every
    score finite and the trace in memory: with ``alpha``, ``beta``, ``gamma`` at most 1e6 no
    score, logit or probability overflows, and with ``D`` at most 2,048 and at most
    [`MAX_LETTERS`][] (8,192) letters the trace stays under about 3 GB.
    """

    d: int = 64  # head dimension, even, in [2, 512]; also the width of each residual slot
    D: int = 256  # residual-stream width, in [3d + 1, 2048] (bias, tok, prev, out)
    base: float = 10000.0  # RoPE frequency base, in (1, 1e12]; RoFormer's 10000
    alpha: float = 10.0  # previous-token sharpness, in (0, 1e6]: W_q = alpha R_{-offset} W_k
    offset: int = 1  # how far back layer 0 looks, in [0, 8192] (1: the previous token)
    head: str = "induction"  # layer-1 head: "induction" (works) or "rank1" (the document's)
    beta: float = 1000.0  # sharpness of the layer-1 head (scales its queries), in (0, 1e6]
    gamma: float = 100.0  # readout sharpness, in (0, 1e6]: logit of v is gamma cos(a_v - a_B)
    bos: bool = True  # put the start token <s> (zero embedding) at position 0: True or False
    # RoPE as real models run it (the pages under real-models/). The heads are written for
    # interleaved pairs; with layout "half" W_q and W_k are reordered by interleaved_to_half.
    # weights_layout names the layout the weights were reordered for: the other one runs them
    # under the wrong convention, the bug of loading weights from the other codebase.
    layout: str = "interleaved"  # "interleaved": pairs (2i, 2i+1); "half": pairs (i, i + r/2)
    weights_layout: str | None = None  # layout the weights were written for; None: layout
    rotary_pct: float = 1.0  # in (0, 1]: the first r = int(d * rotary_pct) coordinates rotate
    # Context extension. The weights stay as built; only the rotation (and, for "yarn", the
    # attention logits) changes. factor and original_max_position go with a scaling.
    scaling: str | None = None  # None or one of rope.SCALING_METHODS
    factor: float | None = None  # the extension s, in [1, 1e6]
    original_max_position: int | None = None  # L, the context built for, in [1, 10**9]
    # Ablations (the page on context extension). The weights stay as built; pairs of the
    # rotary part stop turning (theta_i = 0 in both layers), or layer 1 stops turning at all.
    unrotated_fast: int = 0  # the fastest k rotary pairs do not turn, k in [0, r/2]
    unrotated_slow: int = 0  # the slowest k rotary pairs do not turn, k in [0, r/2]
    layer1_rotary: bool = True  # False: layer 1 runs without RoPE (layer 0 keeps it)

    def __post_init__(self) -> None:
        check_model_dims(self.d, self.D)
        check_base(self.base)
        check_sharpness("alpha", self.alpha)
        check_int_range("offset", self.offset, 0, MAX_LETTERS)
        check_choice("head", self.head, HEADS)
        check_sharpness("beta", self.beta)
        check_sharpness("gamma", self.gamma)
        check_bool("bos", self.bos)
        check_choice("layout", self.layout, LAYOUTS)
        if self.weights_layout is not None:
            check_choice("weights_layout", self.weights_layout, LAYOUTS)
        pct = check_real("rotary_pct", self.rotary_pct, 0.0, 1.0, lo_open=True)
        r = int(self.d * pct)
        if r < 2 or r % 2:
            raise ValueError(
                f"rotary_pct must make int(d * rotary_pct) an even number >= 2; got "
                f"rotary_pct={self.rotary_pct!r} with d={self.d} ({r} coordinates)"
            )
        half = r // 2
        check_int_range("unrotated_fast", self.unrotated_fast, 0, half)
        check_int_range("unrotated_slow", self.unrotated_slow, 0, half)
        if self.unrotated_fast + self.unrotated_slow > half:
            raise ValueError(
                f"unrotated_fast + unrotated_slow must be at most the {half} rotary pairs; got "
                f"{self.unrotated_fast} + {self.unrotated_slow}"
            )
        check_bool("layer1_rotary", self.layer1_rotary)
        if self.scaling is None:
            for name in ("factor", "original_max_position"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} has an effect only with a scaling; got scaling=None")
            return
        check_choice("scaling", self.scaling, SCALING_METHODS)
        for name in ("factor", "original_max_position"):
            if getattr(self, name) is None:
                raise ValueError(f"scaling={self.scaling!r} needs {name}")
        check_real("factor", self.factor, 1.0, MAX_FACTOR)
        check_int_range("original_max_position", self.original_max_position, 1, MAX_CONTEXT)
        scaled_frequencies(  # refuses what the method cannot take (ntk with d < 4, ...)
            r, base=self.base, method=self.scaling, factor=self.factor,
            original_max_position=self.original_max_position, seq_len=1,
        )  # fmt: skip

    @property
    def rotary_dims(self) -> int:
        """How many leading coordinates of each head rotate: ``int(d * rotary_pct)``."""
        return int(self.d * self.rotary_pct)


DEFAULT = Config()
"""The model every page runs, ``Config()``. A default elsewhere in the package that means "the
model's value" names its field (``d: int = DEFAULT.d``) instead of restating the number."""


def make_config(**config) -> Config:
    """A [`Config`][] from keyword settings, refusing unknown names with a ``ValueError``."""
    known = [f.name for f in dataclasses.fields(Config)]
    unknown = sorted(set(config) - set(known))
    if unknown:
        names = ", ".join(show(name) for name in unknown[:3])
        more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        raise ValueError(f"unknown setting(s) {names}{more}; allowed: {', '.join(known)}")
    return Config(**config)


@dataclass(frozen=True)
class Trace:
    r"""Every intermediate of one forward pass, named after the equations.

    ``T`` is the number of positions (letters, plus the start token when ``config.bos``),
    ``D`` the residual width, ``d`` the head dimension, ``V = 26``.

    | name | shape | equation |
    |---|---|---|
    | `tokens` | T | the tokens, `"<s>"` first when `config.bos` |
    | `positions` | (T,) | the position of each token, \(m = 0, 1, \ldots, T-1\) unless given |
    | `mask` | (T, T) | True where query \(m\) may see key \(n\) (causal: \(n \le m\)) |
    | `theta` | (r/2,) | rotary frequencies (layer 1 turns by 0 if not `layer1_rotary`) |
    | `attention_factor` | | the factor on queries and keys (YaRN's, else 1) |
    | `weights` | | the [`Weights`][rope_explained.heads.Weights] (`L0`, `L1`, `readout`) |
    | `h0` | (T, D) | \(h^{(0)}_m = [1; E[t_m]; 0; 0]\) |
    | `k0_pre`, `q0_pre` | (T, d) | \(W_k h_n\), \(W_q h_m\): layer-0 keys and queries before RoPE |
    | `k0` | (T, d) | \(k^{(0)}_n = R_{\Theta,n} W_k h_n\) |
    | `q0` | (T, d) | \(q^{(0)}_m = R_{\Theta,m} W_q h_m\) |
    | `scores0` | (T, T) | \(q^{(0)T}_m k^{(0)}_n\) for every pair (no mask) |
    | `A0` | (T, T) | softmax of `scores0` over the keys `mask` lets each query see |
    | `v0` | (T, d) | \(V^{(0)} h^{(0)}_n\) (before the output map) |
    | `o0` | (T, D) | \(o^{(0)}_m = \sum_n A^{(0)}_{m,n} W_o v_n\) |
    | `h1` | (T, D) | \(h^{(0)} + o^{(0)}\) |
    | `k1_pre`, `q1_pre` | (T, d) | layer-1 keys and queries before RoPE |
    | `k1`, `q1` | (T, d) | layer-1 keys and queries, after RoPE |
    | `scores1`, `A1` | (T, T) | layer-1 scores and pattern |
    | `v1`, `o1` | (T, d), (T, D) | layer-1 values and output |
    | `h2` | (T, D) | \(h^{(1)} + o^{(1)}\) |
    | `logits` | (T, V) | \(W_\mathrm{out} h^{(2)} + b_\mathrm{out}\) |
    | `probs` | (T, V) | softmax of `logits`: \(P(\text{next letter} \mid t_{\le m})\) |

    [`forward_tokens`][] makes it from checked settings; it is a record of that pass, not an
    entry point, and checks nothing itself.
    """

    config: Config
    tokens: list[str]
    vocab: list[str]
    positions: np.ndarray
    mask: np.ndarray = field(repr=False)
    theta: np.ndarray = field(repr=False)
    attention_factor: float
    weights: Weights = field(repr=False)
    h0: np.ndarray = field(repr=False)
    k0_pre: np.ndarray = field(repr=False)
    q0_pre: np.ndarray = field(repr=False)
    k0: np.ndarray = field(repr=False)
    q0: np.ndarray = field(repr=False)
    scores0: np.ndarray = field(repr=False)
    A0: np.ndarray = field(repr=False)
    v0: np.ndarray = field(repr=False)
    o0: np.ndarray = field(repr=False)
    h1: np.ndarray = field(repr=False)
    k1_pre: np.ndarray = field(repr=False)
    q1_pre: np.ndarray = field(repr=False)
    k1: np.ndarray = field(repr=False)
    q1: np.ndarray = field(repr=False)
    scores1: np.ndarray = field(repr=False)
    A1: np.ndarray = field(repr=False)
    v1: np.ndarray = field(repr=False)
    o1: np.ndarray = field(repr=False)
    h2: np.ndarray = field(repr=False)
    logits: np.ndarray = field(repr=False)
    probs: np.ndarray = field(repr=False)

    @property
    def attention(self) -> tuple[np.ndarray, np.ndarray]:
        """The two attention patterns, layer 0 first, each ``(T, T)``."""
        return (self.A0, self.A1)

    @property
    def slots(self) -> Slots:
        """The residual stream's slots (bias, tok, prev, out)."""
        return Slots(self.config.d)

    @property
    def prediction(self) -> str:
        """The most probable next letter after the last position."""
        return self.vocab[int(np.argmax(self.probs[-1]))]


def _check_tokens(tokens: list[str]) -> None:
    for pos, t in enumerate(tokens):
        if not (isinstance(t, str) and (t in VOCAB or t in (BOS, PAD))):
            raise ValueError(
                f"tokens must be letters a-z, {BOS!r} or {PAD!r}; got {show(t)} at position {pos}"
            )


def causal_softmax(scores: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    r"""\(A_{m,n} = e^{s_{m,n}} / \sum_{n' \le m} e^{s_{m,n'}}\) for \(n \le m\), else 0.

    Stable for any finite scores: each row is shifted by its largest visible score first.
    ``scores`` is an array of shape ``(..., T, T)`` with at most ``(MAX_LETTERS + 1) ** 2``
    entries. Entries above the diagonal are not read; those on and below it must be finite or
    ``-inf`` (weight 0), with a finite one in every row. The result is float64 and is the only
    ``(..., T, T)`` float array the function allocates: the mask, the shift, the exponential
    and the division work in place.

    ``mask``, a bool array of shape ``(T, T)``, hides more keys than causality does (padding,
    a second document in the same sequence): query \(m\) sees key \(n\) only where
    ``mask[m, n]``. It must be causal (nothing above the diagonal) and let every query see
    itself (the diagonal all True).

    Examples:
        >>> causal_softmax(np.zeros((3, 3)))[2]
        array([0.33333333, 0.33333333, 0.33333333])
    """
    scores = check_array(
        "scores", scores, ndim=(2, 32), max_size=(MAX_LETTERS + 1) ** 2, finite=False
    )
    if scores.shape[-1] != scores.shape[-2]:
        raise ValueError(f"scores must have shape (..., T, T); got shape {scores.shape}")
    T = scores.shape[-1]
    if mask is not None:
        mask = check_mask(mask, T)
    with np.errstate(invalid="ignore"):  # a NaN, +inf or a row of -inf gives NaN weights
        A = _causal_softmax(scores, mask)
    if not np.isfinite(A.sum()):
        raise ValueError(
            "scores must be finite on and below the diagonal (-inf allowed, but not a whole "
            "row); got NaN or +inf there, or a row of -inf"
        )
    return A


def _causal_softmax(scores: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """[`causal_softmax`][] for scores and a mask it has checked (or the package's own)."""
    T = scores.shape[-1]
    A = np.array(scores, dtype=np.float64)  # a copy: the caller's scores are kept
    if mask is None:
        for m in range(T - 1):
            A[..., m, m + 1 :] = -np.inf  # key n > m is not visible to query m
    else:
        np.copyto(A, -np.inf, where=~mask)
    A -= A.max(axis=-1, keepdims=True)  # each row's largest visible score
    np.exp(A, out=A)
    A /= A.sum(axis=-1, keepdims=True)
    return A


def check_mask(mask: object, T: int) -> np.ndarray:
    """An attention mask: a causal bool array of shape ``(T, T)`` with a True diagonal, for
    ``T`` in ``[1, MAX_LETTERS + 1]``."""
    T = check_int_range("T", T, 1, MAX_LETTERS + 1)
    if not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (T, T):
        raise ValueError(f"mask must be a bool array of shape ({T}, {T}); got {show(mask)}")
    if np.triu(mask, 1).any():
        raise ValueError("mask must be causal: no key after its query (nothing above the diagonal)")
    if not mask.diagonal().all():
        raise ValueError("mask must let every query see itself (its diagonal all True)")
    return mask


def softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, shifted by the maximum for stability.

    ``logits`` is a non-empty array of finite numbers with at most ``2**25`` entries.

    Examples:
        >>> softmax(np.array([0.0, np.log(3.0)]))
        array([0.25, 0.75])
    """
    logits = check_array("logits", logits, ndim=(1, 32), max_size=MAX_ARRAY_SIZE)
    return _softmax(logits)


def _softmax(logits: np.ndarray) -> np.ndarray:
    """[`softmax`][] of finite logits (checked by it, or the package's own)."""
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def build_weights(config: Config) -> Weights:
    r"""All weights of the model for ``config`` (a [`Config`][]): layer 0, layer 1 and the
    readout.

    The heads are written for interleaved pairs and for the model's rotary width; when the
    weights are meant for the "half" layout (``config.weights_layout``, which defaults to
    ``config.layout``), the rows of each head's \(W_q\) and \(W_k\) that rotate are reordered
    by [`interleaved_to_half`][rope_explained.conventions.interleaved_to_half].
    """
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config (see make_config); got {show(config)}")
    c = config
    L0 = previous_token_weights(c.d, c.D, c.base, c.alpha, c.offset, c.rotary_dims)
    L1 = induction_weights(c.d, c.D, c.beta, c.head)
    if (c.weights_layout or c.layout) == "half":
        L0, L1 = _to_half(L0, c.rotary_dims), _to_half(L1, c.rotary_dims)
    return Weights(L0=L0, L1=L1, readout=readout_weights(c.d, c.D, c.gamma))


def _to_half(head: HeadWeights, r: int) -> HeadWeights:
    """The head with the rotating rows of W_q and W_k reordered for rotate-half pairs."""
    W_q, W_k = np.array(head.W_q), np.array(head.W_k)
    W_q[:r], W_k[:r] = interleaved_to_half(W_q[:r]), interleaved_to_half(W_k[:r])
    return dataclasses.replace(head, W_q=W_q, W_k=W_k)


def rope_frequencies(config: Config, seq_len: int) -> tuple[np.ndarray, float]:
    """The frequencies the rotary part of each head turns by, for a text of ``seq_len``
    positions, and the factor on queries and keys: ``(theta, attention_factor)``.

    Without a scaling these are ``frequencies(rotary_dims, base)`` and 1; with one, what
    [`scaled_frequencies`][rope_explained.rope.scaled_frequencies] gives (``"dynamic-ntk"``
    depends on ``seq_len``). The ``unrotated_fast`` fastest and ``unrotated_slow`` slowest pairs
    then get frequency 0: they do not turn.
    """
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config (see make_config); got {show(config)}")
    seq_len = check_int_range("seq_len", seq_len, 1, MAX_CONTEXT)
    c = config
    if c.scaling is None:
        theta, af = frequencies(c.rotary_dims, c.base), 1.0
    else:
        theta, af = scaled_frequencies(
            c.rotary_dims, base=c.base, method=c.scaling, factor=c.factor,
            original_max_position=c.original_max_position, seq_len=seq_len,
        )  # fmt: skip
    if c.unrotated_fast or c.unrotated_slow:
        theta = np.array(theta)
        theta[: c.unrotated_fast] = 0.0
        theta[theta.size - c.unrotated_slow :] = 0.0
    return theta, af


def _layer1_theta(config: Config, theta: np.ndarray) -> np.ndarray:
    """The frequencies layer 1 turns by: ``theta``, or zeros when ``layer1_rotary`` is False."""
    return theta if config.layer1_rotary else np.zeros_like(theta)


def _rotate(x: np.ndarray, positions: np.ndarray, config: Config, theta: np.ndarray) -> np.ndarray:
    r"""\(R_{\Theta,m}\,x_m\) for every row of ``x`` (``(T, d)``) at its position: the first
    ``rotary_dims`` coordinates turn by ``theta`` (``(rotary_dims / 2,)``) in
    ``config.layout``, the rest stay. For the package's own passes, whose arguments
    [`Config`][] and the public entry points have checked."""
    r = config.rotary_dims
    if r == x.shape[-1]:
        return _rotate_pairs(x, positions, theta, config.layout)
    out = np.array(x)  # (T, d)
    out[..., :r] = _rotate_pairs(x[..., :r], positions, theta, config.layout)
    return out


def embed(tokens: list[str], config: Config) -> np.ndarray:
    r"""The initial residual stream \(h^{(0)}\), shape ``(T, D)``: bias 1, then \(E[t]\).

    ``tokens`` is a list of 1 to ``MAX_LETTERS + 1`` tokens, letters a-z, ``"<s>"`` or
    ``"<pad>"`` (both embed as zero); ``config`` a [`Config`][].
    """
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config (see make_config); got {show(config)}")
    if not isinstance(tokens, list | tuple) or not 1 <= len(tokens) <= MAX_LETTERS + 1:
        raise ValueError(
            f"tokens must be a list of 1 to {MAX_LETTERS + 1} tokens; got {show(tokens)}"
        )
    _check_tokens(tokens)
    s = Slots(config.d)
    E = embedding_matrix(config.d)  # (26, d)
    h = np.zeros((len(tokens), config.D))  # (T, D)
    h[:, s.bias] = 1.0
    for m, t in enumerate(tokens):
        if t in VOCAB:
            h[m, s.tok] = E[VOCAB.index(t)]
    return h


def forward(text: str, **config) -> Trace:
    r"""Run the two-layer RoPE transformer on ``text`` and return its [`Trace`][].

    ``text`` is a string of 1 to [`MAX_LETTERS`][] (8,192) letters a-z (upper case is folded
    to lower case); ``config`` overrides the [`Config`][] defaults, each within the range
    that [`Config`][] documents. A longer text is refused: the trace holds four T x T
    float64 matrices (T = letters + 1), 2.1 GB at 8,192 letters, and the whole pass peaks at
    about 2.2 GiB there. The start token comes first when ``bos`` is True; positions count
    from 0 and every query sees the keys up to its own ([`forward_tokens`][] takes other
    positions and masks).

    Examples:
        >>> trace = forward("abcab")
        >>> trace.tokens
        ['<s>', 'a', 'b', 'c', 'a', 'b']
        >>> trace.prediction  # "...ab" continues as it did before: "c"
        'c'
    """
    cfg = make_config(**config)
    if isinstance(text, str) and len(text) > MAX_LETTERS:
        T = len(text) + cfg.bos
        why = f" (MAX_LETTERS): its trace holds four T x T matrices, {32 * T * T / 1e9:,.1f} GB"
        check_text("text", text, MAX_LETTERS, unit="letters", who="forward", why=why)
    tokens = ([BOS] if cfg.bos else []) + tokenize(text)
    return forward_tokens(tokens, cfg)


# --8<-- [start:forward]
def forward_tokens(
    tokens: list[str],
    config: Config,
    positions: np.ndarray | None = None,
    mask: np.ndarray | None = None,
) -> Trace:
    r"""The forward pass itself: ``tokens`` at ``positions``, attending as ``mask`` allows.

    ``tokens`` are letters a-z, ``"<s>"`` or ``"<pad>"`` (1 to ``MAX_LETTERS + 1`` of them);
    ``positions`` (default \(0, 1, \ldots, T-1\)) are the finite numbers RoPE rotates each
    token by; ``mask`` (default causal) is a causal ``(T, T)`` bool array with a True diagonal
    that says which keys each query sees. [`forward`][] is this with the defaults.
    """
    if not isinstance(config, Config):
        raise ValueError(f"config must be a Config (see make_config); got {show(config)}")
    cfg = config
    if not isinstance(tokens, list) or not 1 <= len(tokens) <= MAX_LETTERS + 1:
        raise ValueError(
            f"tokens must be a list of 1 to {MAX_LETTERS + 1} tokens; got {show(tokens)}"
        )
    T = len(tokens)
    if positions is None:
        positions = np.arange(T, dtype=np.float64)
    positions = check_array("positions", positions, shape=(T,), max_abs=1e12)
    mask = np.tri(T, dtype=bool) if mask is None else check_mask(mask, T)
    m = n = positions  # (T,) the positions of the queries (m) and of the keys (n)
    W = build_weights(cfg)
    L0, L1, out = W.L0, W.L1, W.readout
    theta, af = rope_frequencies(cfg, seq_len=T)  # (r/2,), YaRN's factor (else 1)

    h0 = embed(tokens, cfg)  # (T, D)
    # Layer 0: previous-token head
    k0_pre = h0 @ L0.W_k.T  # (T, d)  W_k h_n = c
    q0_pre = h0 @ L0.W_q.T  # (T, d)  W_q h_m = alpha R_{-1} c
    k0 = af * _rotate(k0_pre, n, cfg, theta)  # (T, d)  k_n = R_n W_k h_n
    q0 = af * _rotate(q0_pre, m, cfg, theta)  # (T, d)  q_m = R_m W_q h_m
    scores0 = q0 @ k0.T  # (T, T)  [m, n] = q_m^T k_n
    A0 = _causal_softmax(scores0, mask)  # (T, T)  softmax over the visible n <= m
    v0 = h0 @ L0.W_v.T  # (T, d)  V h_n
    o0 = (A0 @ v0) @ L0.W_o.T  # (T, D)  o_m = W_o sum_n A_mn v_n
    h1 = h0 + o0  # (T, D)  residual add
    # Layer 1: induction head (or the rank-1 construction)
    k1_pre = h1 @ L1.W_k.T  # (T, d)
    q1_pre = h1 @ L1.W_q.T  # (T, d)
    theta1 = _layer1_theta(cfg, theta)  # theta, or zeros when layer 1 has no RoPE
    k1 = af * _rotate(k1_pre, n, cfg, theta1)  # (T, d)
    q1 = af * _rotate(q1_pre, m, cfg, theta1)  # (T, d)
    scores1 = q1 @ k1.T  # (T, T)
    A1 = _causal_softmax(scores1, mask)  # (T, T)
    v1 = h1 @ L1.W_v.T  # (T, d)
    o1 = (A1 @ v1) @ L1.W_o.T  # (T, D)
    h2 = h1 + o1  # (T, D)  residual add
    # Readout
    logits = h2 @ out.W_out.T + out.b_out  # (T, V)
    probs = _softmax(logits)  # (T, V)

    return Trace(
        config=cfg, tokens=list(tokens), vocab=list(VOCAB), positions=m, mask=mask,
        theta=theta, attention_factor=af, weights=W,
        h0=h0, k0_pre=k0_pre, q0_pre=q0_pre, k0=k0, q0=q0, scores0=scores0, A0=A0, v0=v0,
        o0=o0, h1=h1, k1_pre=k1_pre, q1_pre=q1_pre, k1=k1, q1=q1, scores1=scores1, A1=A1,
        v1=v1, o1=o1, h2=h2, logits=logits, probs=probs,
    )  # fmt: skip


# --8<-- [end:forward]


def predict_next(text: str, **config) -> str:
    """The model's most probable next letter after ``text`` (a one-letter str).

    ``text`` and ``config`` as for [`forward`][].

    Examples:
        >>> predict_next("qxzqx")
        'z'
    """
    return forward(text, **config).prediction


@dataclass(frozen=True)
class LastPosition:
    r"""What the model predicts after the last letter, with the attention that led there, from
    [`predict_last`][] (no ``(T, T)`` array kept).

    | name | shape | what |
    |---|---|---|
    | `tokens` | T | the tokens, `"<s>"` first when `config.bos` |
    | `probs` | (V,) | \(P(\text{next letter} \mid t_{\le T-1})\), the last row of `Trace.probs` |
    | `attention1` | (T,) | the last query's layer-1 attention, the last row of `Trace.A1` |
    | `previous` | (T-1,) | layer 0: \(A^{(0)}_{m,m-1}\), the weight on the key one step back |
    | `peak` | (T,) | layer 0: each query's favourite key, \(\arg\max_n A^{(0)}_{m,n}\) |
    """

    config: Config
    tokens: list[str]
    probs: np.ndarray = field(repr=False)
    attention1: np.ndarray = field(repr=False)
    previous: np.ndarray = field(repr=False)
    peak: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.config, Config):
            raise ValueError(f"config must be a Config; got {show(self.config)}")
        if not isinstance(self.tokens, list) or not 1 <= len(self.tokens) <= MAX_LETTERS + 1:
            raise ValueError(
                f"tokens must be a list of 1 to {MAX_LETTERS + 1} tokens; got {show(self.tokens)}"
            )
        _check_tokens(self.tokens)
        T = len(self.tokens)
        for name, shape in (("probs", (len(VOCAB),)), ("attention1", (T,)), ("previous", (T - 1,))):
            object.__setattr__(
                self, name, check_array(name, getattr(self, name), shape=shape, min_size=0)
            )
        peak = self.peak
        if not isinstance(peak, np.ndarray) or peak.dtype.kind != "i" or peak.shape != (T,):
            raise ValueError(f"peak must be an integer array of shape ({T},); got {show(peak)}")

    @property
    def prediction(self) -> str:
        """The most probable next letter."""
        return VOCAB[int(np.argmax(self.probs))]


ROWS = 256
"""Query rows of layer 0 that [`predict_last`][] scores at once: ``(ROWS, T)`` at a time."""


# --8<-- [start:predict_last]
def predict_last(text: str, **config) -> LastPosition:
    r"""The prediction after ``text``, computing only what it needs.

    The same model as [`forward`][], with the same arguments and limits, and the same numbers
    (to rounding), but no ``(T, T)`` pattern is ever held: layer 0 is computed
    [`ROWS`][] queries at a time (every position needs its previous letter), and layer 1
    and the readout only for the last query, the one whose prediction is asked for. Memory
    grows as \(T\) instead of \(T^2\), which is what sweeps over thousands of tokens need.

    Examples:
        >>> predict_last("abcab").prediction == forward("abcab").prediction
        True
    """
    cfg = make_config(**config)
    if isinstance(text, str) and len(text) > MAX_LETTERS:
        check_text("text", text, MAX_LETTERS, unit="letters", who="predict_last")
    tokens = ([BOS] if cfg.bos else []) + tokenize(text)
    T = len(tokens)
    m = n = np.arange(T, dtype=np.float64)  # positions of the queries (m) and the keys (n)
    W = build_weights(cfg)
    L0, L1, out = W.L0, W.L1, W.readout
    theta, af = rope_frequencies(cfg, seq_len=T)

    h0 = embed(tokens, cfg)  # (T, D)
    # Layer 0, ROWS queries at a time: the scores of a block of rows against every key
    k0 = af * _rotate(h0 @ L0.W_k.T, n, cfg, theta)  # (T, d)
    q0 = af * _rotate(h0 @ L0.W_q.T, m, cfg, theta)  # (T, d)
    v0 = h0 @ L0.W_v.T  # (T, d)
    o0 = np.empty_like(v0)  # (T, d): sum_n A_mn v_n, before W_o
    previous, peak = np.zeros(T - 1), np.empty(T, dtype=np.int64)
    for start in range(0, T, ROWS):
        rows = slice(start, min(T, start + ROWS))
        A = _causal_softmax_rows(q0[rows] @ k0.T, start)  # (B, T) rows of A^(0)
        o0[rows] = A @ v0
        peak[rows] = np.argmax(A, axis=1)
        queries = np.arange(max(start, 1), rows.stop)  # the block's queries that have an m - 1
        previous[queries - 1] = A[queries - start, queries - 1]
    h1 = h0 + o0 @ L0.W_o.T  # (T, D)
    # Layer 1 and the readout: the last query only
    theta1 = _layer1_theta(cfg, theta)
    k1 = af * _rotate(h1 @ L1.W_k.T, n, cfg, theta1)  # (T, d)
    q1 = af * _rotate(h1[-1:] @ L1.W_q.T, m[-1:], cfg, theta1)  # (1, d)
    A1 = _causal_softmax_rows(q1 @ k1.T, T - 1)[0]  # (T,) the last row of A^(1)
    h2 = h1[-1] + (A1 @ (h1 @ L1.W_v.T)) @ L1.W_o.T  # (D,)
    probs = _softmax(h2 @ out.W_out.T + out.b_out)  # (V,)
    return LastPosition(cfg, tokens, probs, A1, previous, peak)


# --8<-- [end:predict_last]


def _causal_softmax_rows(scores: np.ndarray, first: int) -> np.ndarray:
    """Rows ``first, first + 1, ...`` of [`causal_softmax`][] for scores of shape ``(B, T)``:
    row ``b`` is query ``first + b`` and sees the keys up to it."""
    B, T = scores.shape
    A = np.array(scores, dtype=np.float64)
    for b in range(B):
        A[b, first + b + 1 :] = -np.inf
    A -= A.max(axis=1, keepdims=True)
    np.exp(A, out=A)
    A /= A.sum(axis=1, keepdims=True)
    return A
