r"""The two-layer model as a generator runs it: a KV cache, one token per step; and the two ways
batches are laid out for it, left padding and packing.

**The cache.** When a new token arrives at position \(p\), each layer computes its key
\(k_p = R_{\Theta,p} W_k h_p\) once, at its own position, and appends it (and its value) to the
cache; the new query \(q_p = R_{\Theta,p} W_q h_p\) is rotated at \(p\) and scored against
everything cached. Nothing cached is rotated again: the score of query \(p\) and key \(n\) then
depends on \(p - n\) only, exactly as in [`forward`][rope_explained.model.forward], which computes
the whole \((T, T)\) pattern at once. [`decode`][] feeds a text through
[`decode_step`][] and returns every step, so the two can be compared row by row.

Two faults of real generation loops can be switched on ([`FAULTS`][]): ``"rotate-again"``
runs every cached key through RoPE again at each step (the rotation applied to the whole
key tensor after the new key was concatenated to the cache), and ``"restart"`` puts each new
token at position 0 (the position counted from the start of the chunk instead of the start of
the text).

**Padding and packing.** [`pad_left`][] runs one text behind pad tokens, with or without
the pads counted in the positions and hidden from attention; [`pack`][] runs several texts
in one sequence, with positions continuing or reset at each text, and with or without a mask
that keeps each text to itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._checks import (
    MAX_LETTERS,
    check_array,
    check_bool,
    check_choice,
    check_int_range,
    check_real,
    check_text,
    show,
)
from .embedding import BOS, PAD, VOCAB, tokenize
from .heads import Weights
from .model import (
    Config,
    Trace,
    _rotate,
    build_weights,
    embed,
    forward_tokens,
    make_config,
    rope_frequencies,
    softmax,
)

FAULTS = ("rotate-again", "restart")
"""Faults of a generation loop that [`decode_step`][] can reproduce."""
MAX_TEXTS = 64
"""Most texts [`pack`][] puts in one sequence."""


@dataclass(frozen=True)
class KVCache:
    r"""What a generator keeps between steps: per layer, the keys (already rotated, each at its
    own position) and the values of every token seen so far.

    | name | shape | what |
    |---|---|---|
    | `config` | | the [`Config`][rope_explained.model.Config] of the model |
    | `tokens` | T | the tokens seen so far |
    | `positions` | (T,) | the position each token was rotated at |
    | `weights` | | the model's [`Weights`][rope_explained.heads.Weights] (built once) |
    | `k0`, `v0` | (T, d) | layer 0: keys \(R_{\Theta,n} W_k h^{(0)}_n\), values \(W_v h^{(0)}_n\) |
    | `k1`, `v1` | (T, d) | layer 1: the same for \(h^{(1)}_n\) |

    [`new_cache`][] makes an empty one and [`decode_step`][] a longer one; made by hand,
    every field is checked (arrays finite, of the shapes above, at most ``MAX_LETTERS + 1``
    tokens).
    """

    config: Config
    tokens: list[str]
    positions: np.ndarray = field(repr=False)
    weights: Weights = field(repr=False)
    k0: np.ndarray = field(repr=False)
    v0: np.ndarray = field(repr=False)
    k1: np.ndarray = field(repr=False)
    v1: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        c = self.config
        if not isinstance(c, Config):
            raise ValueError(f"config must be a Config (see make_config); got {show(c)}")
        _check_decodable(c)
        tokens = self.tokens
        if not isinstance(tokens, list) or len(tokens) > MAX_LETTERS + 1:
            raise ValueError(
                f"tokens must be a list of at most {MAX_LETTERS + 1} tokens; got {show(tokens)}"
            )
        for i, t in enumerate(tokens):
            if not (isinstance(t, str) and (t in VOCAB or t == BOS)):
                raise ValueError(f"tokens must be letters a-z or {BOS!r}; got {show(t)} at {i}")
        if not isinstance(self.weights, Weights) or self.weights.L0.W_q.shape != (c.d, c.D):
            raise ValueError(
                f"weights must be the Weights of a model with d={c.d}, D={c.D}; "
                f"got {show(self.weights)}"
            )
        T = len(tokens)
        positions = check_array("positions", self.positions, shape=(T,), min_size=0, max_abs=1e12)
        object.__setattr__(self, "positions", positions)
        for name in ("k0", "v0", "k1", "v1"):
            arr = check_array(name, getattr(self, name), shape=(T, c.d), min_size=0, max_abs=1e150)
            object.__setattr__(self, name, arr)

    def __len__(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class DecodeStep:
    r"""One step of [`decode_step`][]: the token fed, where it was rotated, what its query
    saw and what the model predicts next.

    | name | shape | what |
    |---|---|---|
    | `cache` | | the [`KVCache`][] after the step (the new token appended) |
    | `token` | | the token fed |
    | `position` | | the position its key and query were rotated at |
    | `attention0` | (T,) | layer 0: the new query's weights on every cached key (itself last) |
    | `attention1` | (T,) | layer 1: the same |
    | `probs` | (V,) | \(P(\text{next letter})\) after the token |
    """

    cache: KVCache
    token: str
    position: float
    attention0: np.ndarray = field(repr=False)
    attention1: np.ndarray = field(repr=False)
    probs: np.ndarray = field(repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.cache, KVCache) or len(self.cache) == 0:
            raise ValueError(f"cache must be a non-empty KVCache; got {show(self.cache)}")
        if self.token != self.cache.tokens[-1]:
            raise ValueError(f"token must be the cache's last token; got {show(self.token)}")
        object.__setattr__(self, "position", check_real("position", self.position, -1e12, 1e12))
        T = len(self.cache)
        for name, shape in (("attention0", (T,)), ("attention1", (T,)), ("probs", (len(VOCAB),))):
            object.__setattr__(self, name, check_array(name, getattr(self, name), shape=shape))

    @property
    def prediction(self) -> str:
        """The most probable next letter."""
        return VOCAB[int(np.argmax(self.probs))]


def _check_decodable(config: Config) -> None:
    if config.scaling == "dynamic-ntk":
        raise ValueError(
            "scaling='dynamic-ntk' cannot be decoded with a KV cache: its frequencies depend on "
            "the length of the whole text, which grows at every step, so keys cached at earlier "
            "lengths were rotated with other frequencies; use forward, or another scaling"
        )


def new_cache(**config) -> KVCache:
    """An empty cache for the model with the settings ``config`` (as for
    [`forward`][rope_explained.model.forward]).

    Every setting the model has can be decoded except ``scaling="dynamic-ntk"``, whose
    frequencies depend on the final length of the text: it is refused with a ``ValueError``.
    """
    cfg = make_config(**config)
    _check_decodable(cfg)
    empty = np.zeros((0, cfg.d))
    return KVCache(cfg, [], np.zeros(0), build_weights(cfg), empty, empty, empty, empty)


# --8<-- [start:decode_step]
def decode_step(
    cache: KVCache, token: str, position: float | None = None, fault: str | None = None
) -> DecodeStep:
    r"""Feed one token to the model: rotate its key and query at ``position``, append its key
    and value to the cache, and read the prediction after it.

    ``cache`` is a [`KVCache`][] ([`new_cache`][] for the first token); ``token`` one
    letter a-z or ``"<s>"``; ``position`` a finite number (default: the next one,
    ``len(cache)``). ``fault`` (None, or one of [`FAULTS`][]) reproduces a bug:
    ``"rotate-again"`` rotates every cached key again by its position before scoring (and
    keeps the result), ``"restart"`` puts the token at position 0 (``position`` must then be
    None). Returns a [`DecodeStep`][]; the cache passed in is not changed.
    """
    if not isinstance(cache, KVCache):
        raise ValueError(f"cache must be a KVCache (see new_cache); got {show(cache)}")
    if not (isinstance(token, str) and (token in VOCAB or token == BOS)):
        raise ValueError(f"token must be one letter a-z or {BOS!r}; got {show(token)}")
    if fault is not None:
        check_choice("fault", fault, FAULTS)
    if len(cache) >= MAX_LETTERS + 1:
        raise ValueError(f"cache is full: it holds at most {MAX_LETTERS + 1} tokens")
    if fault == "restart" and position is not None:
        raise ValueError("position must be None with fault='restart' (the token goes to 0)")
    if position is None:
        position = 0.0 if fault == "restart" else float(len(cache))
    p = np.array([check_real("position", position, -1e12, 1e12)])  # (1,)
    cfg, W = cache.config, cache.weights
    theta, af = rope_frequencies(cfg, seq_len=1)  # fixed frequencies: dynamic-ntk is refused
    n = cache.positions
    k0, k1 = cache.k0, cache.k1
    if fault == "rotate-again":  # the bug: the cached (already rotated) keys turn once more
        k0, k1 = af * _rotate(k0, n, cfg, theta), af * _rotate(k1, n, cfg, theta)

    h0 = embed([token], cfg)  # (1, D)
    # Layer 0: rotate the new key and query at p; the cached keys are used as they are
    k0 = np.vstack([k0, af * _rotate(h0 @ W.L0.W_k.T, p, cfg, theta)])  # (T, d)
    v0 = np.vstack([cache.v0, h0 @ W.L0.W_v.T])  # (T, d)
    q0 = af * _rotate(h0 @ W.L0.W_q.T, p, cfg, theta)  # (1, d)
    A0 = softmax((q0 @ k0.T)[0])  # (T,)  the new row of A^(0)
    h1 = h0 + (A0 @ v0) @ W.L0.W_o.T  # (1, D)
    # Layer 1
    k1 = np.vstack([k1, af * _rotate(h1 @ W.L1.W_k.T, p, cfg, theta)])  # (T, d)
    v1 = np.vstack([cache.v1, h1 @ W.L1.W_v.T])  # (T, d)
    q1 = af * _rotate(h1 @ W.L1.W_q.T, p, cfg, theta)  # (1, d)
    A1 = softmax((q1 @ k1.T)[0])  # (T,)
    h2 = h1 + (A1 @ v1) @ W.L1.W_o.T  # (1, D)
    probs = softmax(h2[0] @ W.readout.W_out.T + W.readout.b_out)  # (V,)

    positions = np.concatenate([n, p])
    new = KVCache(cfg, [*cache.tokens, token], positions, W, k0, v0, k1, v1)
    return DecodeStep(new, token, float(p[0]), A0, A1, probs)


# --8<-- [end:decode_step]


def decode(text: str, fault: str | None = None, prefill: int = 0, **config) -> list[DecodeStep]:
    """Feed ``text`` to the model one token at a time, the start token first (when
    ``config`` has ``bos``), and return every step.

    ``text`` as for [`forward`][rope_explained.model.forward] (1 to 8,192 letters a-z); ``fault``
    None or one of [`FAULTS`][], applied to every step after the start token and the first
    ``prefill`` letters (an integer from 0 to the number of letters), which are decoded
    correctly, as a prompt read in one pass would be. Step ``m`` corresponds to row ``m`` of
    [`forward`][rope_explained.model.forward]'s trace.
    """
    cache = new_cache(**config)
    if fault is not None:
        check_choice("fault", fault, FAULTS)
    if isinstance(text, str) and len(text) > MAX_LETTERS:
        check_text("text", text, MAX_LETTERS, unit="letters", who="decode")
    letters = tokenize(text)
    prefill = check_int_range("prefill", prefill, 0, len(letters))
    tokens = ([BOS] if cache.config.bos else []) + letters
    first_fault = len(tokens) - len(letters) + prefill
    steps = []
    for i, token in enumerate(tokens):
        step = decode_step(cache, token, fault=fault if i >= first_fault else None)
        steps.append(step)
        cache = step.cache
    return steps


# --- padding and packing -----------------------------------------------------------------------


def pad_left(
    text: str, pads: int, count_pads: bool = True, mask_pads: bool = True, **config
) -> Trace:
    """Run ``text`` behind ``pads`` pad tokens, as one row of a left-padded batch.

    ``pads`` is an integer in ``[0, 8192]`` (text and pads at most 8,193 tokens with the start
    token). ``count_pads``: the pads take positions ``0 .. pads - 1`` and the text starts at
    ``pads`` (True), or the text starts at 0 and every pad gets position 0 too, as the
    generation code of transformers 5.x numbers a left-padded row,
    ``attention_mask.cumsum(-1) - 1`` with the pads then set to 0 (False; transformers 4.x set
    them to 1, which no unmasked score sees either). ``mask_pads``: no query sees a pad key
    (True), or the causal mask only (False). ``text`` and ``config`` as for
    [`forward`][rope_explained.model.forward]. Returns the [`Trace`][rope_explained.model.Trace]
    of the whole row; the text's rows and columns are the last ones.
    """
    cfg = make_config(**config)
    pads = check_int_range("pads", pads, 0, MAX_LETTERS)
    check_bool("count_pads", count_pads)
    check_bool("mask_pads", mask_pads)
    check_text("text", text, MAX_LETTERS, unit="letters", who="pad_left")
    body = ([BOS] if cfg.bos else []) + tokenize(text)
    T = pads + len(body)
    if T > MAX_LETTERS + 1:
        raise ValueError(
            f"pads plus the text's tokens must be at most {MAX_LETTERS + 1}; got {pads} pads "
            f"and {len(body)} tokens"
        )
    if count_pads:
        positions = np.arange(T, dtype=np.float64)
    else:
        positions = np.concatenate([np.zeros(pads), np.arange(len(body), dtype=np.float64)])
    mask = np.tri(T, dtype=bool)
    if mask_pads:
        mask[:, :pads] = False
        mask[np.arange(T), np.arange(T)] = True  # a pad's query sees itself only
    return forward_tokens([PAD] * pads + body, cfg, positions=positions, mask=mask)


def pack(
    texts: list[str], reset_positions: bool = False, mask_documents: bool = True, **config
) -> Trace:
    """Run several texts in one sequence, one after the other, each after its own start token
    (when ``config`` has ``bos``).

    ``texts`` is a list of 1 to [`MAX_TEXTS`][] texts of letters a-z, at most 8,192 letters
    with their start tokens in all. ``reset_positions``: each text counts its positions from 0
    (True), or the positions run on through the whole sequence (False). ``mask_documents``:
    each token sees only the earlier tokens of its own text (True), or every earlier token
    (False). ``config`` as for [`forward`][rope_explained.model.forward]. Returns the
    [`Trace`][rope_explained.model.Trace] of the sequence.
    """
    cfg = make_config(**config)
    check_bool("reset_positions", reset_positions)
    check_bool("mask_documents", mask_documents)
    if not isinstance(texts, list | tuple) or not 1 <= len(texts) <= MAX_TEXTS:
        raise ValueError(f"texts must be a list of 1 to {MAX_TEXTS} texts; got {show(texts)}")
    docs = []
    for i, text in enumerate(texts):
        check_text(f"texts[{i}]", text, MAX_LETTERS, unit="letters", who="pack")
        docs.append(([BOS] if cfg.bos else []) + tokenize(text))
    lengths = [len(doc) for doc in docs]
    T = sum(lengths)
    if T > MAX_LETTERS + 1:
        raise ValueError(f"texts must have at most {MAX_LETTERS + 1} tokens in all; got {T}")
    doc_id = np.repeat(np.arange(len(docs)), lengths)  # (T,)
    if reset_positions:
        positions = np.concatenate([np.arange(n, dtype=np.float64) for n in lengths])
    else:
        positions = np.arange(T, dtype=np.float64)
    mask = np.tri(T, dtype=bool)
    if mask_documents:
        mask &= doc_id[:, None] == doc_id[None, :]
    tokens = [t for doc in docs for t in doc]
    return forward_tokens(tokens, cfg, positions=positions, mask=mask)


def document_starts(texts: list[str], bos: bool = True) -> np.ndarray:
    """Where each text begins in the sequence [`pack`][] makes of ``texts`` (with its start
    token when ``bos``): an integer array of ``len(texts)`` indices, the first 0.

    Examples:
        >>> document_starts(["abc", "de"]).tolist()
        [0, 4]
    """
    check_bool("bos", bos)
    if not isinstance(texts, list | tuple) or not 1 <= len(texts) <= MAX_TEXTS:
        raise ValueError(f"texts must be a list of 1 to {MAX_TEXTS} texts; got {show(texts)}")
    lengths = []
    for i, text in enumerate(texts):
        check_text(f"texts[{i}]", text, MAX_LETTERS, unit="letters", who="document_starts")
        lengths.append(len(tokenize(text)) + bos)
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)


__all__ = [
    "FAULTS",
    "MAX_TEXTS",
    "DecodeStep",
    "KVCache",
    "decode",
    "decode_step",
    "document_starts",
    "new_cache",
    "pack",
    "pad_left",
]
