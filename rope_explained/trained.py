r"""The trained two-layer RoPE transformer, run by the package's own numpy code.

``training/train.py`` (outside the package, with JAX) trains a model of the same shape as the
hand-built one on the induction task of [`rope_explained.task.batch`][] and writes its weights into
``rope_explained/data/``. This module reads them and runs them:

$$
\begin{aligned}
h^{(0)}_m &= E[t_m] \\
q^{(l)}_m &= R_{\Theta,m} W_q^{(l)} h^{(l)}_m, \qquad
k^{(l)}_n = R_{\Theta,n} W_k^{(l)} h^{(l)}_n \\
A^{(l)}_{m,n} &= \mathrm{softmax}_{n \le m}\big(q^{(l)T}_m k^{(l)}_n\big), \qquad
h^{(l+1)}_m = h^{(l)}_m + W_o^{(l)} \textstyle\sum_n A^{(l)}_{m,n} W_v^{(l)} h^{(l)}_n \\
P(\cdot \mid t_{\le m}) &= \mathrm{softmax}\big(W_\mathrm{out} h^{(2)}_m + b_\mathrm{out}\big)
\end{aligned}
$$

which is the hand-built model's forward pass with its fixed embedding \([1; E[t]; 0; 0]\)
replaced by a table with one row per token. So one forward runs both: [`hand_built`][] writes
the hand-built weights in this form, and [`forward`][] on them gives the pattern and the
probabilities of [`rope_explained.model.forward`][]. The trained model scaled its scores by
\(1/\sqrt{d}\) while it learned; that factor (\(1/8\), a power of two, so exactly) is folded
into the stored \(W_q\), and the scores here are plain dot products as in the hand-built model.

The rotation is [`rope_explained.rope.apply_rope`][] (interleaved pairs) with frequencies from
[`rope_explained.rope.frequencies`][] or [`rope_explained.rope.scaled_frequencies`][], and the
patterns come from [`rope_explained.model.causal_softmax`][].
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from . import task
from ._checks import (
    MAX_ARRAY_SIZE,
    MAX_LETTERS,
    check_array,
    check_choice,
    check_int_range,
    check_real,
    check_text,
    show,
)
from .embedding import BOS, VOCAB, tokenize
from .heads import HeadWeights, Readout, Weights
from .model import causal_softmax, softmax
from .rope import MAX_FACTOR, SCALING_METHODS, apply_rope, frequencies, scaled_frequencies

SEEDS = (0, 1, 2)
"""The seeds whose weights are committed."""
RUNS = ("seed", "nowarmup")
"""The two training recipes: ``"seed"`` with the short warm-up, ``"nowarmup"`` without it."""
CUTS = ("keys", "queries", "values")
r"""What [`forward`][]'s ``cut`` can cut from layer 0's output: layer 1's keys, queries or
values then read the embedding \(h^{(0)}\) instead of \(h^{(1)}\)."""
EVAL_SEED = 20241008
"""Seed of the clean prompts the trained models are measured on (no training run uses it)."""
HASHES = {
    "nowarmup-0": "ce1fd1ea97d362652d03d3c87d689ee3a1eb21571ed283f6e203955bcb3071ef",
    "nowarmup-1": "b5441c5a28d340cdaa4f9ac429a403de6ead254c43173c5407cbe9e6992a748f",
    "nowarmup-2": "97c4aff9a7125bc2a330fd4da821365b58bb73f84682b552b9d23c66e872f28c",
    "seed-0": "14a98753e4282d281fb9496092216357af1085b4b3a9183672b32105f081065d",
    "seed-1": "830d8437da03f34b24cb6366173566ea76d076e5940160dabce3dd805105734e",
    "seed-2": "a43faff67c5ba0f182c64e23b2780d2927f431c75596211cb72f2b452b8e2d91",
}
"""The SHA-256 ([`array_hash`][]) of the committed weights of each run, as its record states.
They are part of the source so that new weights change what depends on this module (the site's
figure and value caches are keyed on the source); ``tests/test_trained.py`` checks that the
records say the same, and ``training/check.py`` whether a retrained run reproduced them."""
MAX_TOKENS = MAX_LETTERS + 1
"""Most positions [`forward_ids`][] accepts (start token included)."""


def array_hash(arrays: Mapping[str, np.ndarray]) -> str:
    """SHA-256 of named arrays: each name, dtype, shape and little-endian bytes, names sorted.

    The training script records it for the arrays it writes; [`load`][] checks it.

    Examples:
        >>> array_hash({"a": np.zeros(2, dtype=np.float32)})[:12]
        'd023464e6914'
    """
    if not isinstance(arrays, Mapping) or not all(isinstance(k, str) for k in arrays):
        raise TypeError(f"arrays must map names (str) to arrays; got {show(arrays)}")
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


@dataclass(frozen=True)
class TrainedWeights:
    r"""Every weight of a two-layer model in the trained model's form, read-only.

    | name | shape | what |
    |---|---|---|
    | `embedding` | (27, D) | \(E\): row 0 the start token, row `1 + idx(t)` the letter `t` |
    | `weights` | | the heads and the readout, a [`Weights`][rope_explained.heads.Weights] |
    | `base` | | the RoPE frequency base |
    | `length` | | positions of a training sequence (start token included); None: not trained |
    | `name` | | `"seed-0"`, `"nowarmup-1"`, `"hand-built"`, ... |
    | `sha256` | | [`array_hash`][] of the stored arrays ("" when not loaded from a file) |
    """

    embedding: np.ndarray = field(repr=False)
    weights: Weights = field(repr=False)
    base: float = 10000.0
    length: int | None = None
    name: str = ""
    sha256: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.weights, Weights):
            raise ValueError(f"weights must be a heads.Weights; got {show(self.weights)}")
        d, D = self.weights.L0.W_q.shape
        if d % 2:
            raise ValueError(f"the heads' dimension d must be even (RoPE pairs); got d={d}")
        E = check_array("embedding", self.embedding, shape=(len(VOCAB) + 1, D))
        E = np.array(E, dtype=np.float64)
        E.flags.writeable = False
        object.__setattr__(self, "embedding", E)
        check_real("base", self.base, 1.0, 1e12, lo_open=True)
        if self.length is not None:
            check_int_range("length", self.length, 2, MAX_TOKENS)
        for name in ("name", "sha256"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a str; got {show(getattr(self, name))}")

    @property
    def d(self) -> int:
        """The head dimension."""
        return self.weights.L0.W_q.shape[0]

    @property
    def D(self) -> int:
        """The residual width."""
        return self.weights.L0.W_q.shape[1]

    @property
    def pairs(self) -> int:
        """The number of RoPE pairs of a head, ``d / 2``."""
        return self.d // 2

    def arrays(self) -> dict[str, np.ndarray]:
        """The weights as named float arrays (the names of the stored file), for serialising."""
        out = {"embedding": self.embedding, "W_out": self.weights.readout.W_out}
        for layer, head in ((0, self.weights.L0), (1, self.weights.L1)):
            for name in ("W_q", "W_k", "W_v", "W_o"):
                out[f"L{layer}.{name}"] = getattr(head, name)
        return out


def _check_run(seed: object, warmup: object) -> str:
    seed = check_int_range("seed", seed, min(SEEDS), max(SEEDS))
    if not isinstance(warmup, bool):
        raise ValueError(f"warmup must be True or False; got {show(warmup)}")
    return f"{'seed' if warmup else 'nowarmup'}-{seed}"


def record(seed: int, *, warmup: bool = True) -> dict:
    """The training record of a committed run: its settings, loss curve (``[step, mean loss]``
    every 50 steps), library versions, timing and the SHA-256 of its arrays.

    ``seed`` is one of [`SEEDS`][]; ``warmup`` False reads the run trained without the warm-up.
    Returns a new dict on every call.
    """
    return json.loads(_read(f"trained-{_check_run(seed, warmup)}.json").decode())


def _read(name: str) -> bytes:
    return resources.files(__package__).joinpath("data", name).read_bytes()


@functools.lru_cache(maxsize=8)
def _load(name: str) -> TrainedWeights:
    import io

    info = json.loads(_read(f"trained-{name}.json").decode())
    with np.load(io.BytesIO(_read(f"trained-{name}.npz")), allow_pickle=False) as npz:
        arrays = {key: npz[key] for key in npz.files}
    digest = array_hash(arrays)
    if digest != info["sha256"]:
        raise ValueError(
            f"the stored weights of {name} do not match their record: SHA-256 {digest[:12]}..., "
            f"recorded {info['sha256'][:12]}... (retrain with `make train`)"
        )
    D = arrays["embedding"].shape[1]
    heads = [
        HeadWeights(**{w: arrays[f"L{layer}.{w}"] for w in ("W_q", "W_k", "W_v", "W_o")})
        for layer in (0, 1)
    ]
    readout = Readout(W_out=arrays["W_out"], b_out=np.zeros(len(VOCAB)))
    settings = info["settings"]
    if arrays["L0.W_q"].shape != (settings["head_dim"], D):
        raise ValueError(f"the stored weights of {name} do not have the recorded shapes")
    return TrainedWeights(
        embedding=arrays["embedding"],
        weights=Weights(L0=heads[0], L1=heads[1], readout=readout),
        base=float(settings["base"]),
        length=int(settings["length"]),
        name=name,
        sha256=digest,
    )


def load(seed: int, *, warmup: bool = True) -> TrainedWeights:
    """The committed weights of the model trained with ``seed`` (one of [`SEEDS`][]).

    ``warmup`` False loads the run trained at full length from the first step. The arrays are
    checked against the SHA-256 of the training record, and are the same read-only object on
    every call.

    Examples:
        >>> w = load(0)
        >>> w.name, w.d, w.D, w.length
        ('seed-0', 64, 64, 64)
    """
    return _load(_check_run(seed, warmup))


def hand_built(**config) -> TrainedWeights:
    """The hand-built model's weights in the trained model's form.

    ``config`` are settings of [`rope_explained.model.Config`][] that change the weights
    (``d``, ``D``, ``base``, ``alpha``, ``offset``, ``head``, ``beta``, ``gamma``); the
    settings of how the model is run (layout, partial rotary, scaling, ablations, no start
    token) are [`forward`][]'s arguments here or are not modelled, and are refused. The
    embedding table's rows are [`rope_explained.model.embed`][]'s \\([1; E[t]; 0; 0]\\), the
    start token's \\([1; 0; 0; 0]\\).

    Examples:
        >>> from rope_explained.model import forward as hand_forward
        >>> text = "qxzqx"
        >>> bool(np.allclose(forward(hand_built(), text).probs, hand_forward(text).probs))
        True
    """
    from .model import build_weights, embed, make_config

    allowed = ("d", "D", "base", "alpha", "offset", "head", "beta", "gamma")
    refused = sorted(set(config) - set(allowed))
    if refused:
        raise ValueError(
            f"hand_built takes only the settings that make the weights ({', '.join(allowed)}); "
            f"got {', '.join(map(show, refused))}"
        )
    cfg = make_config(**config)
    E = embed([BOS, *VOCAB], cfg)  # (27, D)
    return TrainedWeights(embedding=E, weights=build_weights(cfg), base=cfg.base, name="hand-built")


@dataclass(frozen=True)
class Trace:
    r"""Every intermediate of [`forward`][] or [`forward_ids`][], named as in
    [`rope_explained.model.Trace`][]. ``...`` are the leading axes of the token ids (none for a
    text).

    | name | shape | what |
    |---|---|---|
    | `ids` | (..., T) | the token ids, 0 the start token, `1 + idx(t)` a letter |
    | `theta` | (d/2,) | the frequencies the heads turn at |
    | `attention_factor` | | the factor on queries and keys (YaRN's, else 1) |
    | `keep0`, `keep1` | (d,) | layer 0's (1's) q and k coordinates: 1 kept, 0 zeroed |
    | `h0` | (..., T, D) | \(E[t_m]\) |
    | `q0`, `k0`, `v0` | (..., T, d) | layer-0 queries and keys after RoPE, values |
    | `scores0`, `A0` | (..., T, T) | layer-0 scores and pattern |
    | `h1` | (..., T, D) | \(h^{(0)} + o^{(0)}\) |
    | `q1`, `k1`, `v1` | (..., T, d) | layer 1's |
    | `scores1`, `A1` | (..., T, T) | layer-1 scores and pattern |
    | `h2` | (..., T, D) | \(h^{(1)} + o^{(1)}\) |
    | `logits`, `probs` | (..., T, 26) | the readout and \(P(\text{next letter} \mid t_{\le m})\) |
    """

    ids: np.ndarray = field(repr=False)
    theta: np.ndarray = field(repr=False)
    attention_factor: float
    keep0: np.ndarray = field(repr=False)
    keep1: np.ndarray = field(repr=False)
    h0: np.ndarray = field(repr=False)
    q0: np.ndarray = field(repr=False)
    k0: np.ndarray = field(repr=False)
    v0: np.ndarray = field(repr=False)
    scores0: np.ndarray = field(repr=False)
    A0: np.ndarray = field(repr=False)
    h1: np.ndarray = field(repr=False)
    q1: np.ndarray = field(repr=False)
    k1: np.ndarray = field(repr=False)
    v1: np.ndarray = field(repr=False)
    scores1: np.ndarray = field(repr=False)
    A1: np.ndarray = field(repr=False)
    h2: np.ndarray = field(repr=False)
    logits: np.ndarray = field(repr=False)
    probs: np.ndarray = field(repr=False)

    @property
    def tokens(self) -> list[str]:
        """The tokens of a single sequence (``ids`` of one axis)."""
        if self.ids.ndim != 1:
            raise ValueError(f"tokens needs a single sequence; ids has shape {self.ids.shape}")
        return [BOS if i == 0 else VOCAB[i - 1] for i in self.ids.tolist()]

    @property
    def prediction(self) -> str:
        """The most probable next letter after the last position of a single sequence."""
        if self.ids.ndim != 1:
            raise ValueError(f"prediction needs a single sequence; ids has shape {self.ids.shape}")
        return VOCAB[int(np.argmax(self.probs[-1]))]


def _check_weights(weights: object) -> TrainedWeights:
    if not isinstance(weights, TrainedWeights):
        raise TypeError(
            f"weights must be a TrainedWeights (from load or hand_built); got {show(weights)}"
        )
    return weights


def _keep(zero_pairs: object, pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """The 0/1 masks of layer 0's and layer 1's q and k coordinates."""
    keep = [np.ones(2 * pairs), np.ones(2 * pairs)]
    if zero_pairs is None:
        return keep[0], keep[1]
    if not isinstance(zero_pairs, Mapping):
        raise TypeError(
            f"zero_pairs must map a layer (0 or 1) to the pair indices to zero; got "
            f"{show(zero_pairs)}"
        )
    for layer, indices in zero_pairs.items():
        check_int_range("zero_pairs' layer", layer, 0, 1)
        if isinstance(indices, str | bytes) or not isinstance(indices, Iterable | range):
            raise TypeError(
                f"zero_pairs[{layer}] must be an iterable of pair indices in [0, {pairs - 1}]; "
                f"got {show(indices)}"
            )
        for i in indices:
            if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < pairs:
                raise ValueError(
                    f"zero_pairs[{layer}] must hold pair indices in [0, {pairs - 1}]; got {show(i)}"
                )
            keep[layer][2 * int(i) : 2 * int(i) + 2] = 0.0
    return keep[0], keep[1]


def _frequencies(
    w: TrainedWeights, T: int, scaling: object, factor: object, original_max_position: object
) -> tuple[np.ndarray, float]:
    if scaling is None:
        for name, v in (("factor", factor), ("original_max_position", original_max_position)):
            if v is not None:
                raise ValueError(f"{name} has an effect only with a scaling; got scaling=None")
        return frequencies(w.d, w.base), 1.0
    scaling = check_choice("scaling", scaling, SCALING_METHODS)
    if factor is None:
        raise ValueError(f"scaling={scaling!r} needs factor, a number in [1, {MAX_FACTOR:g}]")
    if original_max_position is None:
        if w.length is None:
            raise ValueError(
                f"scaling={scaling!r} needs original_max_position, an integer in [1, 10**9] "
                f"(the weights {w.name!r} have no training length to default to)"
            )
        original_max_position = w.length
    return scaled_frequencies(
        w.d, base=w.base, method=scaling, factor=factor,
        original_max_position=original_max_position, seq_len=T,
    )  # fmt: skip


def forward_ids(
    weights: TrainedWeights,
    ids: np.ndarray,
    *,
    zero_pairs: Mapping[int, Iterable[int]] | None = None,
    scaling: str | None = None,
    factor: float | None = None,
    original_max_position: int | None = None,
    cut: str | None = None,
) -> Trace:
    """[`forward`][] on token ids of shape ``(..., T)`` (integers in ``[0, 26]``, 0 the start
    token), all sequences at once; positions count from 0 in every row.

    ``T`` is in ``[1, MAX_TOKENS]`` and the batch holds at most ``2**25`` score entries
    (``ids.size * T``). The other arguments are [`forward`][]'s.
    """
    w = _check_weights(weights)
    if isinstance(ids, str | bytes) or ids is None:
        raise TypeError(f"ids must be an integer array of token ids; got {show(ids)}")
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu" or ids.ndim < 1 or ids.shape[-1] < 1:
        raise ValueError(f"ids must be an integer array of shape (..., T), T >= 1; got {show(ids)}")
    T = ids.shape[-1]
    check_int_range("ids.shape[-1] (positions)", T, 1, MAX_TOKENS)
    if ids.size * T > MAX_ARRAY_SIZE:
        raise ValueError(
            f"ids.size x T = {ids.size * T:,} score entries is more than the "
            f"{MAX_ARRAY_SIZE:,} this package builds at once; pass fewer or shorter sequences"
        )
    if ids.size and (ids.min() < 0 or ids.max() > len(VOCAB)):
        raise ValueError(f"ids must be token ids in [0, {len(VOCAB)}]; got {show(ids)}")
    if cut is not None:
        check_choice("cut", cut, CUTS)
    keep0, keep1 = _keep(zero_pairs, w.pairs)
    theta, af = _frequencies(w, T, scaling, factor, original_max_position)
    L0, L1, out = w.weights.L0, w.weights.L1, w.weights.readout
    pos = np.arange(T, dtype=np.float64)  # (T,) positions m of the queries, n of the keys

    h0 = w.embedding[ids]  # (..., T, D)
    # Layer 0
    q0 = af * keep0 * apply_rope(h0 @ L0.W_q.T, pos, inv_freq=theta)  # (..., T, d)
    k0 = af * keep0 * apply_rope(h0 @ L0.W_k.T, pos, inv_freq=theta)  # (..., T, d)
    v0 = h0 @ L0.W_v.T  # (..., T, d)
    scores0 = q0 @ np.swapaxes(k0, -1, -2)  # (..., T, T)  [m, n] = q_m^T k_n
    A0 = causal_softmax(scores0)  # (..., T, T)
    h1 = h0 + (A0 @ v0) @ L0.W_o.T  # (..., T, D)
    # Layer 1: its keys, queries or values read h0 instead of h1 when cut says so
    hq, hk, hv = (h0 if cut == c else h1 for c in ("queries", "keys", "values"))
    q1 = af * keep1 * apply_rope(hq @ L1.W_q.T, pos, inv_freq=theta)  # (..., T, d)
    k1 = af * keep1 * apply_rope(hk @ L1.W_k.T, pos, inv_freq=theta)  # (..., T, d)
    v1 = hv @ L1.W_v.T  # (..., T, d)
    scores1 = q1 @ np.swapaxes(k1, -1, -2)  # (..., T, T)
    A1 = causal_softmax(scores1)  # (..., T, T)
    h2 = h1 + (A1 @ v1) @ L1.W_o.T  # (..., T, D)
    logits = h2 @ out.W_out.T + out.b_out  # (..., T, 26)
    probs = softmax(logits)  # (..., T, 26)
    return Trace(
        ids=ids, theta=theta, attention_factor=af, keep0=keep0, keep1=keep1,
        h0=h0, q0=q0, k0=k0, v0=v0, scores0=scores0, A0=A0, h1=h1,
        q1=q1, k1=k1, v1=v1, scores1=scores1, A1=A1, h2=h2, logits=logits, probs=probs,
    )  # fmt: skip


def forward(
    weights: TrainedWeights,
    text: str,
    *,
    zero_pairs: Mapping[int, Iterable[int]] | None = None,
    scaling: str | None = None,
    factor: float | None = None,
    original_max_position: int | None = None,
    cut: str | None = None,
) -> Trace:
    """Run the two-layer model with ``weights`` on ``text`` (the start token at position 0).

    Args:
        weights: a [`TrainedWeights`][], from [`load`][] or [`hand_built`][].
        text: 1 to 8,192 letters a-z (upper case folded).
        zero_pairs: maps a layer (0 or 1) to the pair indices (in ``[0, d/2 - 1]``, 0 the
            fastest) whose coordinates are zeroed in that layer's queries and keys.
        scaling: None or one of [`SCALING_METHODS`][rope_explained.rope.SCALING_METHODS]:
            the frequencies of [`scaled_frequencies`][rope_explained.rope.scaled_frequencies].
        factor: the extension \\(s\\) in ``[1, 1e6]``, with a scaling.
        original_max_position: \\(L\\), an integer in ``[1, 10**9]``, with a scaling; default
            the training length of the weights.
        cut: None or one of [`CUTS`][]: layer 1's keys, queries or values read the embedding
            instead of the residual stream that layer 0 wrote into.

    Returns:
        The [`Trace`][] of the pass, with ``A0``, ``A1`` of shape ``(T, T)`` and ``probs`` of
        shape ``(T, 26)``, ``T`` the letters plus one.

    Examples:
        >>> forward(load(0), "abcdefghijklmnopabcdefghijk").prediction
        'l'
    """
    text = check_text("text", text, MAX_LETTERS, unit="letters", who="forward")
    ids = task.token_ids([BOS, *tokenize(text)])
    return forward_ids(
        weights, ids, zero_pairs=zero_pairs, scaling=scaling, factor=factor,
        original_max_position=original_max_position, cut=cut,
    )  # fmt: skip


# --- measurements ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """What [`evaluate`][] measures on clean induction prompts.

    | name | what |
    |---|---|
    | `accuracy` | the share of the scored positions whose most probable letter is right |
    | `previous` | layer 0's mean weight one step back, \\(A^{(0)}_{m,m-1}\\) (\\(m \\ge 1\\)) |
    | `induction` | layer 1's mean weight on the key after the earlier occurrence (scored) |
    | `scored` | how many positions were scored |
    """

    accuracy: float
    previous: float
    induction: float
    scored: int


PROMPTS = 128
"""Clean prompts [`evaluate`][] uses unless told."""
CHUNK = 32
"""Prompts run at once by [`evaluate`][] (a chunk's four T x T arrays at T = 256: 67 MB)."""


def evaluate(
    weights: TrainedWeights,
    *,
    length: int | None = None,
    prompts: int = PROMPTS,
    seed: int = EVAL_SEED,
    **options,
) -> Evaluation:
    """Accuracy and attention of ``weights`` on ``prompts`` clean induction prompts.

    ``length`` is the positions of a prompt (start token included), default the training
    length (64 for the hand-built weights), in ``[33, 4096]``; ``prompts`` in ``[1, 4096]``;
    ``seed`` of [`rope_explained.task.batch`][]; ``options`` are [`forward`][]'s keyword
    arguments (``zero_pairs``, ``scaling``, ``factor``, ``original_max_position``, ``cut``).
    """
    w = _check_weights(weights)
    length = (w.length or 64) if length is None else length
    length = check_int_range("length", length, 2 * task.CLEAN_SEGMENT[0] + 13, task.MAX_LENGTH)
    prompts = check_int_range("prompts", prompts, 1, task.MAX_BATCH)
    b = task.batch(seed, prompts, length, clean=True)
    right = previous = induction = 0.0
    scored = 0
    for start in range(0, prompts, CHUNK):
        rows = slice(start, start + CHUNK)
        tr = forward_ids(w, b.tokens[rows], **options)
        mask, source = b.mask[rows], b.source[rows]
        where = np.nonzero(mask)
        right += float((tr.probs[where].argmax(-1) == b.targets[rows][where]).sum())
        m = np.arange(1, length)
        previous += float(tr.A0[:, m, m - 1].sum())
        induction += float(tr.A1[where[0], where[1], source[where] + 1].sum())
        scored += int(mask.sum())
    return Evaluation(
        accuracy=right / scored,
        previous=previous / (prompts * (length - 1)),
        induction=induction / scored,
        scored=scored,
    )


def pair_contributions(
    weights: TrainedWeights, layer: int, *, prompts: int = 64, seed: int = EVAL_SEED
) -> np.ndarray:
    r"""How much each RoPE pair adds to a layer's preference for its target key, as fractions.

    A score is a sum over pairs, \(q_m^T k_n = \sum_i s_i(m, n)\) with
    \(s_i(m, n) = q_{m,2i} k_{n,2i} + q_{m,2i+1} k_{n,2i+1}\). For each query the *advantage*
    of pair \(i\) is \(s_i\) at the target key minus its mean over the other keys the query
    sees; the result is each pair's advantage, averaged over queries and prompts, divided by
    the sum over pairs (so the entries add up to 1; a negative one works against the target).
    Layer 0's target is the key one step back (every query \(m \ge 2\)); layer 1's the key after
    the letter's earlier occurrence (the scored positions). Clean prompts at the training length.

    Returns an array of shape ``(d/2,)``, pair 0 (the fastest) first.
    """
    w = _check_weights(weights)
    layer = check_int_range("layer", layer, 0, 1)
    prompts = check_int_range("prompts", prompts, 1, 512)
    length = w.length or 64
    b = task.batch(seed, prompts, length, clean=True)
    total = np.zeros(w.pairs)
    for start in range(0, prompts, CHUNK):
        rows = slice(start, start + CHUNK)
        tr = forward_ids(w, b.tokens[rows])
        q, k = (tr.q0, tr.k0) if layer == 0 else (tr.q1, tr.k1)
        B, T = q.shape[0], q.shape[1]
        qp = q.reshape(B, T, w.pairs, 2)
        kp = k.reshape(B, T, w.pairs, 2)
        s = np.einsum("bmic,bnic->bimn", qp, kp)  # (B, pairs, T, T) per-pair scores
        if layer == 0:
            bq, mq = np.nonzero(np.broadcast_to(np.arange(T) >= 2, (B, T)))
            target = mq - 1
        else:
            bq, mq = np.nonzero(b.mask[rows])
            target = b.source[rows][bq, mq] + 1
        rows_s = s[bq, :, mq, :]  # (Q, pairs, T)
        visible = np.arange(T)[None, :] <= mq[:, None]  # (Q, T)
        visible[np.arange(mq.size), target] = False
        at_target = rows_s[np.arange(mq.size), :, target]  # (Q, pairs)
        others = (rows_s * visible[:, None, :]).sum(-1) / visible.sum(-1)[:, None]
        total += (at_target - others).sum(0)
    return total / total.sum()


def offset_profile(
    weights: TrainedWeights, *, length: int, prompts: int = 16, seed: int = EVAL_SEED, **options
) -> tuple[np.ndarray, np.ndarray]:
    """Layer 0's mean weight and mean score at each offset \\(m - n\\), on clean prompts.

    For every offset ``0 .. length - 1`` the mean, over the queries \\(m \\ge\\) offset of
    ``prompts`` prompts of ``length`` positions, of \\(A^{(0)}_{m, m - \\text{offset}}\\) and
    of the score there. ``options`` are [`forward`][]'s. Returns ``(weight, score)``, each of
    shape ``(length,)``.
    """
    w = _check_weights(weights)
    length = check_int_range("length", length, 2 * task.CLEAN_SEGMENT[0] + 13, task.MAX_LENGTH)
    prompts = check_int_range("prompts", prompts, 1, 512)
    b = task.batch(seed, prompts, length, clean=True)
    weight, score = np.zeros(length), np.zeros(length)
    for start in range(0, prompts, CHUNK):
        tr = forward_ids(w, b.tokens[start : start + CHUNK], **options)
        for delta in range(length):
            m = np.arange(delta, length)
            weight[delta] += tr.A0[:, m, m - delta].sum()
            score[delta] += tr.scores0[:, m, m - delta].sum()
    count = prompts * (length - np.arange(length))
    return weight / count, score / count


def wavelength_pair(length: int, d: int = 64, base: float = 10000.0) -> float:
    r"""The (fractional) pair index whose wavelength \(2\pi/\theta_i\) equals ``length``:
    pairs above it turn less than once over a sequence of that many positions.

    Examples:
        >>> round(wavelength_pair(64), 2)
        8.06
    """
    length = check_real("length", length, 0.0, 1e12, lo_open=True)
    theta = 2 * math.pi / length
    return math.log(theta) / math.log(frequencies(d, base)[1])
