r"""Context extension measured on the hand-built model: sweeps, ablations and a fast path.

The model's weights stay as built; a scaling (``scaling``, ``factor``,
``original_max_position``), an ablation (``unrotated_fast``, ``unrotated_slow``,
``layer1_rotary``) or any other [`Config`][rope_explained.model.Config] setting changes only how
the heads rotate. The page on context extension reads every number from here.

**Why the sweeps are cheap.** Layer 0 reads only the bias coordinate for its query and key,
so its score depends on the distance alone:

$$
q^{(0)T}_m k^{(0)}_n = f(m - n), \qquad
f(\delta) = \kappa^2\, (R_{\Theta',\delta}\, a)^T b ,
$$

with \(a = W_q e_0\), \(b = W_k e_0\), the frequencies \(\Theta'\) the scaling gives and
\(\kappa\) YaRN's attention factor (1 otherwise). Row \(m\) of the pattern is then
\(A^{(0)}_{m,m-\delta} = w(\delta)/Z(m)\) with \(w(\delta) = e^{f(\delta) - \max f}\) and
\(Z(m) = \sum_{\delta \le m} w(\delta)\): a causal convolution, computed here with the FFT
for every prompt of a length at once, \(O(T \log T)\) instead of \(O(T^2)\). Layer 1 and the
readout are needed only for the last query, and every map after layer 0 is linear in the
one-hot letters, so they are computed on 26 columns instead of the residual's \(D\).
[`predict_last_many`][] agrees with [`forward`][rope_explained.model.forward] to rounding.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._checks import (
    MAX_LETTERS,
    check_array,
    check_int_range,
    check_real,
    check_seed,
    show,
)
from .embedding import BOS, VOCAB
from .experiments import InductionPrompt
from .model import (
    Config,
    _layer1_theta,
    _rotate,
    build_weights,
    embed,
    make_config,
    rope_frequencies,
    softmax,
)

MAX_BATCH = 64
"""Most prompts [`predict_last_many`][] takes in one call."""
MAX_DISTANCES = 64
"""Most distances a sweep takes."""
MAX_PER_DISTANCE = 64
"""Most prompts per distance in a sweep."""


def _config(config: dict) -> Config:
    return make_config(**config)


def _check_layer0(cfg: Config, W) -> None:
    """Layer 0 must read only the bias coordinate for its query and key (it does as built)."""
    if np.any(W.L0.W_q[:, 1:]) or np.any(W.L0.W_k[:, 1:]):  # pragma: no cover - as built
        raise ValueError("layer 0's query and key must read only the bias coordinate")


def layer0_kernel(T: int, **config) -> np.ndarray:
    r"""Layer 0's score against the distance, \(f(\delta) = q^{(0)T}_m k^{(0)}_{m-\delta}\) for
    \(\delta = 0, \ldots, T-1\), in a text of ``T`` positions (start token included).

    ``T`` is an integer in ``[1, MAX_LETTERS + 1]``; ``config`` as for
    [`forward`][rope_explained.model.forward] (``"dynamic-ntk"`` depends on ``T``).

    Examples:
        >>> f = layer0_kernel(4)
        >>> int(np.argmax(f))  # the previous-token head scores one step back highest
        1
    """
    T = check_int_range("T", T, 1, MAX_LETTERS + 1)
    cfg = make_config(**config)
    return _kernel(cfg, T)


def _kernel(cfg: Config, T: int) -> np.ndarray:
    if cfg.scaling == "dynamic-ntk":  # the frequencies depend on the length
        return _kernel_at(cfg, T)
    # the same f(delta) at every length: computed for the next power of two, read up to T - 1
    return _kernel_at(cfg, min(max(1024, 1 << (T - 1).bit_length()), MAX_LETTERS + 1))[:T]


@functools.lru_cache(maxsize=32)
def _kernel_at(cfg: Config, T: int) -> np.ndarray:
    return _kernel_of(cfg, T, *rope_frequencies(cfg, seq_len=T))


def _kernel_of(cfg: Config, T: int, theta: np.ndarray, af: float) -> np.ndarray:
    """Layer 0's score against the distance for the frequencies ``theta`` and the attention
    factor ``af`` (see [`layer0_kernel`][])."""
    W = _weights(cfg)
    _check_layer0(cfg, W)
    a, b = W.L0.W_q[:, 0], W.L0.W_k[:, 0]  # (d,) query and key before rotation
    delta = np.arange(T, dtype=np.float64)
    qa = _rotate(np.broadcast_to(a, (T, a.size)), delta, cfg, theta)  # (T, d): R_delta a
    f = af * af * (qa @ b)  # (T,)
    f.flags.writeable = False
    return f


def previous_token_profile(T: int, **config) -> tuple[np.ndarray, np.ndarray]:
    r"""Layer 0 in a text of ``T`` positions without its ``(T, T)`` pattern: for every query
    \(m\), its weight on the key one step back, \(A^{(0)}_{m,m-1}\) (shape ``(T-1,)``, for
    \(m = 1, \ldots, T-1\)), and how far back its favourite key lies, \(m - \arg\max_n
    A^{(0)}_{m,n}\) (shape ``(T,)``).

    The same numbers as ``previous`` of [`LastPosition`][rope_explained.model.LastPosition] and
    ``m - LastPosition.peak``, from the distance kernel ([`layer0_kernel`][]). ``T`` in
    ``[2, MAX_LETTERS + 1]``.

    Examples:
        >>> previous, back = previous_token_profile(6)
        >>> bool(previous.min() > 0.99), back.tolist()
        (True, [0, 1, 1, 1, 1, 1])
    """
    T = check_int_range("T", T, 2, MAX_LETTERS + 1)
    cfg = make_config(**config)
    f = _kernel(cfg, T)
    lse = np.logaddexp.accumulate(f)  # (T,) log Z(m), stable for any scores
    previous = np.exp(f[1] - lse[1:])
    # favourite key of row m: the largest f(delta) for delta <= m (first on ties, as argmax over
    # n picks the smallest n, i.e. the largest delta: take the last maximum of the prefix)
    # the favourite key of row m is the largest f(delta) over delta <= m; on a tie argmax over n
    # takes the first key, the largest delta: a running maximum that moves on >=
    best = np.maximum.accumulate(f)  # (T,)
    where = np.where(f >= best, np.arange(T), 0)
    back = np.maximum.accumulate(where).astype(np.int64)
    return previous, back


def _layer0_mix(f: np.ndarray, U: np.ndarray) -> np.ndarray:
    r"""``A0 @ U`` for every text: ``out[p, m] = sum_{delta <= m} A0[m, m - delta] U[p, m - delta]``
    with \(A^{(0)}_{m, m-\delta} = e^{f(\delta)} / \sum_{\delta' \le m} e^{f(\delta')}\),
    for ``U`` of shape ``(P, T, k)``.

    Rows whose visible weights are all far below the largest weight (a peak further back than
    the row reaches) are computed directly; the others by one FFT convolution, whose rounding
    is then small against the row's total.
    """
    T = f.size
    lse = np.logaddexp.accumulate(f)  # (T,) log of each row's total
    w = np.exp(f - f.max())
    first = int(np.argmax(lse - f.max() > np.log(1e-3)))  # rows before it: direct
    out = np.empty(U.shape)
    for m in range(first):
        a = np.exp(f[: m + 1] - lse[m])  # (m+1,) weights on delta = 0..m
        out[:, m] = np.einsum("j,pjk->pk", a, U[:, m::-1])
    n = 1 << (2 * T - 1).bit_length()
    conv = np.fft.irfft(np.fft.rfft(U, n, axis=1) * np.fft.rfft(w, n)[None, :, None], n, axis=1)
    out[:, first:] = conv[:, first:T] / np.exp(lse[first:] - f.max())[None, :, None]
    return out


def predict_last_many(texts: list[str], **config) -> tuple[np.ndarray, np.ndarray]:
    r"""The last prediction and the last query's layer-1 attention for texts of one length.

    ``texts`` is a list of 1 to [`MAX_BATCH`][] strings of letters a-z, all of the same
    length (1 to ``MAX_LETTERS``); ``config`` as for [`forward`][rope_explained.model.forward].
    The numbers are those of [`predict_last`][rope_explained.model.predict_last]
    (see the module's docstring for how they are computed).

    Returns:
        ``(probs, attention1)``: shapes ``(P, 26)`` and ``(P, T)``, ``T = len(text) + 1`` (the
        start token included, unless ``bos`` is False).

    Examples:
        >>> probs, _ = predict_last_many(["abcab", "xyzxy"])
        >>> [VOCAB[i] for i in probs.argmax(axis=1)]
        ['c', 'z']
    """
    texts = _check_texts(texts)
    cfg = _config(config)
    return _predict(cfg, texts)


def _check_texts(texts: object) -> list[str]:
    """1 to [`MAX_BATCH`][] texts of letters a-z of one length, in lower case."""
    if not isinstance(texts, list | tuple) or not 1 <= len(texts) <= MAX_BATCH:
        raise ValueError(f"texts must be a list of 1 to {MAX_BATCH} strings; got {show(texts)}")
    for i, t in enumerate(texts):
        if not (
            isinstance(t, str)
            and 1 <= len(t) <= MAX_LETTERS
            and t.isascii()
            and t.isalpha()
            and len(t) == len(texts[0])
        ):
            raise ValueError(
                f"texts[{i}] must be 1 to {MAX_LETTERS} letters a-z, as long as texts[0]; "
                f"got {show(t)}"
            )
    return [t.lower() for t in texts]


MAX_ATTENTION_FACTOR = 1e3
"""Largest attention factor [`predict_last_at`][] takes."""


def predict_last_at(
    texts: list[str], inv_freq, attention_factor: float = 1.0, **config
) -> tuple[np.ndarray, np.ndarray, float]:
    r"""[`predict_last_many`][] with the rotary frequencies given instead of computed: both
    heads turn by ``inv_freq`` and their queries and keys are multiplied by
    ``attention_factor``, whatever produced them (a released model's scaling recipe applied to
    this model's head, or the frequencies a stateful module kept from an earlier text:
    [`DynamicNTKState`][rope_explained.rope.DynamicNTKState]).

    Args:
        texts: as for [`predict_last_many`][].
        inv_freq: the frequencies, shape ``(rotary_dims / 2,)``, each finite and in
            ``[0, 1e6]`` (0: the pair does not turn).
        attention_factor: the factor on queries and keys, in ``(0, 1e3]``.
        config: as for [`forward`][rope_explained.model.forward], without a ``scaling`` (the
            frequencies replace it) or an ablation (``unrotated_fast``, ``unrotated_slow``).

    Returns:
        ``(probs, attention1, previous)``: shapes ``(P, 26)`` and ``(P, T)`` as
        [`predict_last_many`][], and the last query's layer-0 weight one step back,
        \(A^{(0)}_{T-1,T-2}\), the same for every text (layer 0 reads positions only).

    Examples:
        >>> from rope_explained.rope import frequencies
        >>> probs, _, previous = predict_last_at(["abcab"], frequencies(64))
        >>> VOCAB[int(probs[0].argmax())], previous > 0.99
        ('c', True)
    """
    texts = _check_texts(texts)
    cfg = _config(config)
    if cfg.scaling is not None or cfg.unrotated_fast or cfg.unrotated_slow:
        raise ValueError(
            "predict_last_at takes the frequencies in inv_freq: give no scaling, "
            f"unrotated_fast or unrotated_slow; got scaling={cfg.scaling!r}, "
            f"unrotated_fast={cfg.unrotated_fast}, unrotated_slow={cfg.unrotated_slow}"
        )
    theta = check_array("inv_freq", inv_freq, shape=(cfg.rotary_dims // 2,), max_abs=1e6)
    if np.any(theta < 0):
        raise ValueError(f"inv_freq must hold frequencies >= 0; got {show(inv_freq)}")
    af = check_real("attention_factor", attention_factor, 0.0, MAX_ATTENTION_FACTOR, lo_open=True)
    T = len(texts[0]) + cfg.bos
    probs, A1 = _predict(cfg, texts, (theta, af))
    f = _kernel_of(cfg, T, theta, af)
    previous = float(np.exp(f[1] - np.logaddexp.reduce(f))) if T > 1 else 0.0
    return probs, A1, previous


def _predict(
    cfg: Config, texts: list[str], rope: tuple[np.ndarray, float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The last predictions of ``texts``, at the frequencies and attention factor ``rope``
    (default: those ``cfg`` gives for the texts' length)."""
    P, T = len(texts), len(texts[0]) + cfg.bos
    V = len(VOCAB)
    theta, af = rope_frequencies(cfg, seq_len=T) if rope is None else rope
    plan = _plan(cfg)
    L1, out, B = plan["L1"], plan["out"], plan["B"]
    h1_bias, h1_prev, tok = plan["h1_bias"], plan["h1_prev"], plan["tok"]
    kb, kt, kp, vb, vt, vp = (plan[k] for k in ("kb", "kt", "kp", "vb", "vt", "vp"))
    idx = np.zeros((P, T), dtype=np.int64)  # 0 for <s>, 1 + letter index
    for p, text in enumerate(texts):
        idx[p, cfg.bos :] = np.frombuffer(text.encode(), dtype=np.uint8) - ord("a") + 1
    zero = np.zeros((1, B.shape[1]))
    UB = np.vstack([zero, B])[idx]  # (P, T, r): onehot @ B, the start token 0
    f = _kernel(cfg, T) if rope is None else _kernel_of(cfg, T, theta, af)  # (T,)
    AUB = _layer0_mix(f, UB)  # (P, T, r): A0 @ onehot @ B
    gather = lambda M: np.vstack([np.zeros((1, M.shape[1])), M])  # noqa: E731
    h1_last = h1_bias + gather(tok)[idx[:, -1]] + AUB[:, -1] @ (B.T @ h1_prev)  # (P, D)
    q1_pre = h1_last @ L1.W_q.T  # (P, d)
    # Layer 1, last query: q^T R_{n-m} k summed over the pairs both the query and key can use
    ia, ib, plain = plan["ia"], plan["ib"], plan["plain"]
    th = _layer1_theta(cfg, theta)[plan["on"]]
    cols = np.concatenate([ia, ib, plain])
    k1 = kb[cols] + gather(kt[:, cols])[idx] + AUB @ (B.T @ kp[:, cols])  # (P, T, c)
    k_a, k_b, k_p = np.split(k1, [ia.size, 2 * ia.size], axis=2)
    q_a, q_b, q_p = q1_pre[:, ia], q1_pre[:, ib], q1_pre[:, plain]  # (P, pairs), (P, plain)
    angle = np.outer(np.arange(T, dtype=np.float64) - (T - 1), th)  # (T, pairs): (n - m) theta
    cos, sin = np.cos(angle), np.sin(angle)
    scores = (
        af
        * af
        * (
            np.einsum("ptj,tj->pt", q_a[:, None] * k_a + q_b[:, None] * k_b, cos)
            + np.einsum("ptj,tj->pt", q_b[:, None] * k_a - q_a[:, None] * k_b, sin)
            + np.einsum("ptj,pj->pt", k_p, q_p)
        )
    )  # (P, T)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    A1 = e / e.sum(axis=1, keepdims=True)
    # o1 = W_o1 sum_n A1_n v1_n with v1 = vb + vt[letter] + vp^T (A0 @ onehot)
    A1U = np.stack([np.bincount(idx[p], A1[p], V + 1)[1:] for p in range(P)])  # (P, 26)
    A1AUB = np.einsum("pt,ptr->pr", A1, AUB)  # (P, r)
    o1 = (vb + A1U @ vt + A1AUB @ (B.T @ vp)) @ L1.W_o.T  # (P, D)
    probs = softmax((h1_last + o1) @ out.W_out.T + out.b_out)  # (P, 26)
    return probs, A1


def _pairs(cfg: Config) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two coordinates of each rotary pair in ``cfg.layout``, and the coordinates that do
    not turn (past ``rotary_dims``)."""
    r, i = cfg.rotary_dims, np.arange(cfg.rotary_dims // 2)
    if cfg.layout == "interleaved":
        ia, ib = 2 * i, 2 * i + 1
    else:
        ia, ib = i, i + r // 2
    return ia, ib, np.arange(r, cfg.d)


@functools.lru_cache(maxsize=64)
def _plan(cfg: Config) -> dict:
    """What every text's prediction shares: the maps after layer 0 applied to the start token
    and to each letter, a basis of what layer 0's output feeds, and the pairs layer 1 uses."""
    W = _weights(cfg)
    L0, L1 = W.L0, W.L1
    H = embed([BOS, *VOCAB], cfg)  # (27, D): row 0 <s>, then a..z
    bias, tok = H[0], H[1:] - H[0]  # the bias part, and what each letter adds to it
    h1_bias = bias + L0.W_o @ (L0.W_v @ bias)  # (D,): rows of A0 sum to 1
    h1_prev = (tok @ L0.W_v.T) @ L0.W_o.T  # (26, D): what A0 @ onehot writes
    kb, kt, kp = L1.W_k @ h1_bias, tok @ L1.W_k.T, h1_prev @ L1.W_k.T  # (d,), (26, d) x2
    vb, vt, vp = L1.W_v @ h1_bias, tok @ L1.W_v.T, h1_prev @ L1.W_v.T
    # A0 @ onehot is needed only through kp, vp and h1_prev: convolve a basis of their columns
    basis, sv, _ = np.linalg.svd(np.hstack([kp, vp, h1_prev]), full_matrices=False)
    B = basis[:, sv > sv[0] * 1e-13] if sv[0] > 0 else basis[:, :0]  # (26, r)
    ia, ib, plain = _pairs(cfg)
    q_uses = np.any(L1.W_q != 0, axis=1)  # (d,) coordinates the query can fill
    k_uses = np.any(np.vstack([kb, kt, kp]) != 0, axis=0)  # (d,) ... and the key
    on = (q_uses[ia] | q_uses[ib]) & (k_uses[ia] | k_uses[ib])  # pairs that can score
    plain = plain[q_uses[plain] & k_uses[plain]]
    return {
        "L1": L1, "out": W.readout, "B": B, "h1_bias": h1_bias, "h1_prev": h1_prev, "tok": tok,
        "kb": kb, "kt": kt, "kp": kp, "vb": vb, "vt": vt, "vp": vp,
        "ia": ia[on], "ib": ib[on], "on": on, "plain": plain,
    }  # fmt: skip


@functools.lru_cache(maxsize=64)
def _weights(cfg: Config):
    return build_weights(cfg)


# --- prompts and sweeps -------------------------------------------------------------------------


def distance_prompts(distance: int, n: int = 8, seed: int = 0) -> list[InductionPrompt]:
    r"""``n`` seeded prompts ``A B ... A`` whose two ``A``'s lie ``distance`` letters apart.

    Each text has ``distance + 1`` letters: ``A`` first and last, every other letter uniform
    over the 25 others (NumPy ``default_rng(seed)``), so the answer is the second letter.
    ``distance`` is in ``[2, MAX_LETTERS - 1]``, ``n`` in ``[1, MAX_BATCH]``.

    Examples:
        >>> p = distance_prompts(5, n=1)[0]
        >>> len(p.text), p.text[0] == p.text[-1], p.answer == p.text[1]
        (6, True, True)
    """
    distance = check_int_range("distance", distance, 2, MAX_LETTERS - 1)
    n = check_int_range("n", n, 1, MAX_BATCH)
    seed = check_seed(seed)
    return list(_distance_prompts(distance, n, seed))


@functools.lru_cache(maxsize=256)
def _distance_prompts(distance: int, n: int, seed: int) -> tuple[InductionPrompt, ...]:
    rng = np.random.default_rng([seed, distance])
    prompts = []
    for _ in range(n):
        a = int(rng.integers(len(VOCAB)))
        letters = rng.integers(len(VOCAB) - 1, size=distance + 1)  # among the 25 others
        letters += letters >= a
        letters[0] = letters[-1] = a
        text = (letters.astype(np.uint8) + ord("a")).tobytes().decode()
        prompts.append(InductionPrompt(text, text[1], 0))
    return tuple(prompts)


def _check_distances(distances: object) -> list[int]:
    if isinstance(distances, np.ndarray):
        distances = distances.tolist()
    if not isinstance(distances, list | tuple) or not 1 <= len(distances) <= MAX_DISTANCES:
        raise ValueError(
            f"distances must be a list of 1 to {MAX_DISTANCES} integers; got {show(distances)}"
        )
    return [check_int_range("distances[i]", g, 2, MAX_LETTERS - 1) for g in distances]


def sweep_distances(low: int = 100, high: int = 8000, count: int = 16) -> list[int]:
    """``count`` distances spaced evenly on a log scale from ``low`` to ``high`` (rounded,
    distinct), ``2 <= low < high <= MAX_LETTERS - 1``, ``count`` in ``[2, MAX_DISTANCES]``.

    Examples:
        >>> sweep_distances(100, 800, 4)
        [100, 200, 400, 800]
    """
    low = check_int_range("low", low, 2, MAX_LETTERS - 2)
    high = check_int_range("high", high, low + 1, MAX_LETTERS - 1)
    count = check_int_range("count", count, 2, MAX_DISTANCES)
    return sorted({round(g) for g in np.geomspace(low, high, count)})


def induction_curve(distances, n: int = 8, seed: int = 0, **config) -> np.ndarray:
    """Induction accuracy at each distance between the two ``A``'s: the fraction of the ``n``
    [`distance_prompts`][] at that distance whose top prediction is the right ``B``.

    ``distances``: 1 to [`MAX_DISTANCES`][] integers in ``[2, MAX_LETTERS - 1]``; ``n`` in
    ``[1, MAX_BATCH]``; ``config`` as for [`predict_last_many`][].

    Examples:
        >>> induction_curve([50, 100], n=4).tolist()
        [1.0, 1.0]
    """
    distances = _check_distances(distances)
    n = check_int_range("n", n, 1, MAX_BATCH)
    seed = check_seed(seed)
    cfg = _config(config)
    acc = []
    for g in distances:
        prompts = distance_prompts(g, n, seed)
        probs, _ = _predict(cfg, [p.text for p in prompts])
        hits = [
            VOCAB[int(i)] == p.answer for i, p in zip(probs.argmax(axis=1), prompts, strict=True)
        ]
        acc.append(np.mean(hits))
    return np.array(acc)


def horizon_reached(distances, accuracy, threshold: float = 0.5) -> int:
    """The largest of ``distances`` (increasing) up to which every accuracy is at least
    ``threshold`` (in ``(0, 1]``); 0 if the first one is already below it.

    Examples:
        >>> horizon_reached([100, 200, 400], [1.0, 0.75, 0.25])
        200
    """
    distances = _check_distances(distances)
    acc = check_array("accuracy", accuracy, shape=(len(distances),))
    if not np.all((acc >= 0) & (acc <= 1)):
        raise ValueError(
            f"accuracy must hold {len(distances)} fractions in [0, 1]; got {show(accuracy)}"
        )
    if any(b <= a for a, b in zip(distances, distances[1:], strict=False)):
        raise ValueError(f"distances must increase; got {show(distances)}")
    threshold = check_real("threshold", threshold, 0.0, 1.0, lo_open=True)
    reached = 0
    for g, a in zip(distances, acc, strict=True):
        if a < threshold:
            break
        reached = g
    return reached


def predicted_horizon(**config) -> float | None:
    r"""Where the working induction head is predicted to fail: the distance at which its pair
    (the slowest) has turned by half the angle between neighbouring letters,
    \(\pi/26\,/\,\theta'_{d/2-1}\), with the frequency \(\theta'\) the configuration gives it
    (at the original length for ``"dynamic-ntk"``); ``None`` when that pair does not turn
    (layer 1 without RoPE, or the slowest pairs stopped), so that no failure is predicted.

    Examples:
        >>> round(predicted_horizon())
        906
    """
    cfg = make_config(**config)
    if not cfg.layer1_rotary:
        return None
    seq_len = cfg.original_max_position or 1
    slowest = float(rope_frequencies(cfg, seq_len)[0][-1])
    step = 2 * math.pi / len(VOCAB)
    return None if slowest == 0 else step / 2 / slowest


def recency_prompts(
    near: int = 50, far: int = 400, n: int = 16, seed: int = 0
) -> list[tuple[str, str, str]]:
    r"""Seeded prompts ``A B ... A C ... A`` with two earlier ``A``'s, as
    ``(text, C, B)``: ``C`` follows the nearer copy, ``B`` the farther one (``B != C``).

    The last ``A`` lies ``near`` letters after the second ``A`` and ``far`` letters after the
    first (``2 <= near``, ``near + 2 <= far <= MAX_LETTERS - 1``); every other letter is uniform
    over the 25 letters other than ``A``. ``n`` in ``[1, MAX_BATCH]``.

    Examples:
        >>> text, c, b = recency_prompts(3, 6, n=1)[0]
        >>> text[0] == text[3] == text[6], text[4] == c, text[1] == b, b != c
        (True, True, True, True)
    """
    near = check_int_range("near", near, 2, MAX_LETTERS - 3)
    far = check_int_range("far", far, near + 2, MAX_LETTERS - 1)
    n = check_int_range("n", n, 1, MAX_BATCH)
    seed = check_seed(seed)
    rng = np.random.default_rng([seed, near, far])
    out = []
    for _ in range(n):
        a = int(rng.integers(len(VOCAB)))
        others = [i for i in range(len(VOCAB)) if i != a]
        letters = [VOCAB[others[j]] for j in rng.integers(len(others), size=far + 1)]
        second = far - near
        while letters[second + 1] == letters[1]:
            letters[second + 1] = VOCAB[others[int(rng.integers(len(others)))]]
        letters[0] = letters[second] = letters[-1] = VOCAB[a]
        out.append(("".join(letters), letters[second + 1], letters[1]))
    return out


def recency_accuracy(
    near: int = 50, far: int = 400, n: int = 16, seed: int = 0, **config
) -> tuple[float, float]:
    r"""How often the model continues the [`recency_prompts`][] with ``C``, the nearer
    copy's successor, and how often with ``B``; the arguments as there, ``config`` as for
    [`predict_last_many`][].

    Returns:
        ``(fraction C, fraction B)``.

    Examples:
        >>> c, b = recency_accuracy(10, 40, n=4)
        >>> c + b <= 1.0
        True
    """
    prompts = recency_prompts(near, far, n, seed)
    cfg = _config(config)
    probs, _ = _predict(cfg, [t for t, _, _ in prompts])
    guess = [VOCAB[int(i)] for i in probs.argmax(axis=1)]
    c = np.mean([g == p[1] for g, p in zip(guess, prompts, strict=True)])
    b = np.mean([g == p[2] for g, p in zip(guess, prompts, strict=True)])
    return float(c), float(b)
