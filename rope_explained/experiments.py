r"""Chris Wendler's experiments from his notes on RoPE, and the induction benchmark.

Every function is seeded and returns arrays; the figures of the research-notes pages read them.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._checks import (
    MAX_LETTERS,
    MAX_WIDTH,
    check_array,
    check_base,
    check_head_dim,
    check_int_range,
    check_seed,
    check_sharpness,
    check_size,
    show,
)
from .embedding import VOCAB
from .heads import constant_key_vector
from .model import DEFAULT, causal_softmax, make_config, predict_last
from .rope import apply_rope, frequencies

NOTES_D = 768
"""The residual width of the experiments of the research notes, as the notes give it; the
experiments keep it (the site's own model is narrower, ``Config().D``)."""
MAX_SWEEP = 64
"""Most values a sweep argument (``alphas``, ``d0_values``) may hold."""
MAX_PROMPT_LETTERS = 10_000_000
"""Most letters [`induction_prompts`][] writes in one call (``n * max_len``)."""
MAX_PROMPTS = 100_000
"""Most prompts [`induction_accuracy`][] scores in one call."""


def _check_sweep(name: str, values: object) -> list:
    """A list, tuple or 1-D array of 1 to [`MAX_SWEEP`][] values."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        values = values.tolist()
    if not isinstance(values, list | tuple) or not 1 <= len(values) <= MAX_SWEEP:
        raise ValueError(f"{name} must be a list of 1 to {MAX_SWEEP} numbers; got {show(values)}")
    return list(values)


def previous_token_experiment(
    alphas=(1.0, 10.0, 100.0),
    T: int = 20,
    D: int = NOTES_D,
    d: int = DEFAULT.d,
    base: float = DEFAULT.base,
    seed: int = 0,
    schedule: str = "standard",
) -> dict[float, np.ndarray]:
    r"""Experiment 1: the previous-token head built by hand on random residual vectors.

    The inputs \(x_1, \ldots, x_T \in \mathbb{R}^D\) are standard normal except for the
    bias coordinate \(x_{i,0} = 1\). \(W_k\) sends every \(x\) to
    \(c = (1,0,1,0,\ldots)^T\); \(W_q = \alpha R_{\Theta,-1} W_k\); keys and queries
    are rotated by RoPE and the pattern is \(\mathrm{softmax}_{n\le m}(q_m^T k_n)\).

    Args:
        alphas: 1 to 64 sharpnesses, each in ``(0, 1e6]``.
        T: number of positions, in ``[2, 4096]`` (``len(alphas) * T * T`` at most ``2**25``).
        D: residual width, in ``[1, 16384]`` (``T * D`` at most ``2**25``).
        d: head dimension, even, in ``[2, 4096]``.
        base: frequency base, in ``(1, 1e12]``.
        seed: random seed, an integer in ``[0, 2**63 - 1]``.
        schedule: the frequencies, one of [`SCHEDULES`][rope_explained.rope.SCHEDULES]:
            ``"standard"`` (RoFormer's, the site's) or ``"wendler"`` (the one Wendler's notes
            use, which needs ``d >= 4``); see [`frequencies`][rope_explained.rope.frequencies].

    Returns:
        ``{alpha: A}`` with each ``A`` of shape ``(T, T)``.

    Examples:
        >>> A = previous_token_experiment(alphas=(100.0,))[100.0]
        >>> bool(np.all(np.diag(A, k=-1) > 0.99))
        True
    """
    alphas = [
        check_sharpness(f"alphas[{i}]", a) for i, a in enumerate(_check_sweep("alphas", alphas))
    ]
    T = check_int_range("T", T, 2, 4096)
    d = check_head_dim(d)
    D = check_int_range("D", D, 1, MAX_WIDTH)
    base = check_base(base)
    seed = check_seed(seed)
    theta = frequencies(d, base, schedule)  # (d/2,)
    check_size("T x D", T * D)
    check_size("len(alphas) x T x T", len(alphas) * T * T)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, D))  # (T, D)
    x[:, 0] = 1.0  # the constant coordinate W_k reads
    c = constant_key_vector(d)
    W_k = np.zeros((d, D))
    W_k[:, 0] = c
    back = apply_rope(c[None, :], [-1.0], inv_freq=theta)[0]  # R_{Theta,-1} c
    m = np.arange(T, dtype=np.float64)
    out = {}
    for alpha in alphas:
        W_q = np.zeros((d, D))
        W_q[:, 0] = alpha * back  # W_q = alpha R_{Theta,-1} W_k
        k = apply_rope(x @ W_k.T, m, inv_freq=theta)  # (T, d)
        q = apply_rope(x @ W_q.T, m, inv_freq=theta)  # (T, d)
        out[alpha] = causal_softmax(q @ k.T)
    return out


def previous_token_scores(
    offsets: np.ndarray, d: int = DEFAULT.d, base: float = DEFAULT.base, schedule: str = "standard"
) -> np.ndarray:
    r"""The layer-0 score per unit \(\alpha\) as a function of the key's offset from the one
    step back, \(\Delta + 1\) with \(\Delta = n - m\):
    \(\sum_{i=0}^{d/2-1} \cos((\Delta + 1)\,\theta_i)\), which peaks at \(d/2\) for
    \(\Delta = -1\). ``offsets`` holds the values of \(\Delta + 1\), a 1-D array of numbers of
    magnitude at most 1e300; ``d``
    even, in ``[2, 4096]``; ``base`` in ``(1, 1e12]``; ``len(offsets) * d / 2`` at most
    ``2**25``; ``schedule`` one of [`SCHEDULES`][rope_explained.rope.SCHEDULES] (``"wendler"``
    needs ``d >= 4``).

    Examples:
        >>> float(previous_token_scores(np.array([0]), d=64)[0])
        32.0
    """
    theta = frequencies(d, base, schedule)
    offsets = _check_offsets(offsets)
    check_size("len(offsets) x d/2", offsets.size * theta.size)
    return np.cos(offsets[:, None] * theta[None, :]).sum(axis=1)


def _check_offsets(offsets: object, name: str = "offsets") -> np.ndarray:
    """A 1-D array of finite numbers of magnitude at most 1e300 (so that angles stay finite)."""
    return check_array(name, offsets, ndim=1, min_size=0, max_abs=1e300)


def semantic_recency(
    T: int = 1000,
    d: int = DEFAULT.d,
    base: float = DEFAULT.base,
    d0: int = 0,
    seed: int = 0,
    schedule: str = "standard",
) -> np.ndarray:
    r"""The recency bias of a semantic head: the same vector at every position.

    With \(x_1 = \cdots = x_T = x\) and \(W_Q = W_K\) keeping coordinates
    \(d_0, \ldots, d-1\) of \(x\), the last query's score against the key at
    position \(n\) is
    \(\sum_{i \ge d_0/2} \cos((n-m)\theta_i)\,(x_{2i}^2 + x_{2i+1}^2)\): largest for the
    query's own position and falling with distance, although every key carries the same content.

    ``T`` is at least 1 and ``T * d`` at most ``2**25``; ``d`` even, in ``[2, 4096]``;
    ``base`` in ``(1, 1e12]``; ``d0`` in ``[0, d - 2]``; ``seed`` in ``[0, 2**63 - 1]``;
    ``schedule`` one of [`SCHEDULES`][rope_explained.rope.SCHEDULES] (``"wendler"`` needs
    ``d >= 4``).

    Returns:
        Scores of shape ``(T,)`` of the query at position ``T-1`` against keys ``0..T-1``.

    Examples:
        >>> s = semantic_recency(T=50, d=8)
        >>> int(np.argmax(s))
        49
    """
    T = check_int_range("T", T, 1, 2**25)
    d = check_head_dim(d)
    base = check_base(base)
    check_int_range("d0", d0, 0, d - 2)
    seed = check_seed(seed)
    theta = frequencies(d, base, schedule)
    check_size("T x d", T * d)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(d)
    x[:d0] = 0.0  # the coordinates the head does not use
    X = np.repeat(x[None, :], T, axis=0)  # (T, d)
    m = np.arange(T, dtype=np.float64)
    q = apply_rope(X[-1:], m[-1:], inv_freq=theta)  # (1, d)
    k = apply_rope(X, m, inv_freq=theta)  # (T, d)
    return (q @ k.T)[0]


def semantic_offset_scores(
    offsets,
    d: int = DEFAULT.d,
    base: float = DEFAULT.base,
    d0: int = 0,
    seed: int = 0,
    schedule: str = "standard",
) -> np.ndarray:
    r"""The score \(x'^T R_{\Theta,\Delta}\, x'\) of the vector of ``semantic_recency``
    against itself at each relative offset \(\Delta = n - m\).

    The query sits at position 0 and the keys at positions ``offsets``, all rotated by RoPE,
    so the result is

    $$
    \sum_{i \ge d_0/2} \cos(\Delta\,\theta_i)\,(x_{2i}^2 + x_{2i+1}^2),
    $$

    even in \(\Delta\) and largest at \(\Delta = 0\). With the same ``seed``, ``d`` and
    ``d0``, ``semantic_recency(T)[n]`` equals ``semantic_offset_scores([n - (T-1)])[0]``.

    Args:
        offsets: 1-D array of relative positions \(n - m\), each of magnitude at most 1e300
            (``len(offsets) * d`` at most ``2**25``).
        d: head dimension, even, in ``[2, 4096]``.
        base: frequency base, in ``(1, 1e12]``.
        d0: the number of leading coordinates the head ignores, in ``[0, d-2]``.
        seed: seed of the random content vector, in ``[0, 2**63 - 1]``.
        schedule: the frequencies, one of [`SCHEDULES`][rope_explained.rope.SCHEDULES]
            (``"wendler"`` needs ``d >= 4``).

    Returns:
        Array of the shape of ``offsets``.

    Examples:
        >>> s = semantic_offset_scores(np.array([-5.0, 0.0, 5.0]), d=8)
        >>> bool(np.isclose(s[0], s[2]) and s[1] > s[0])
        True
    """
    d = check_head_dim(d)
    base = check_base(base)
    check_int_range("d0", d0, 0, d - 2)
    offsets = _check_offsets(offsets)
    seed = check_seed(seed)
    theta = frequencies(d, base, schedule)
    check_size("len(offsets) x d", offsets.size * d)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(d)  # the same draw as semantic_recency
    x[:d0] = 0.0
    q = apply_rope(x[None, :], [0.0], inv_freq=theta)  # (1, d): the query at position 0
    k = apply_rope(np.repeat(x[None, :], offsets.size, axis=0), offsets, inv_freq=theta)
    return (q @ k.T)[0]


def d0_sweep_values(d: int = DEFAULT.d) -> tuple[int, ...]:
    r"""The \(d_0\) values of Experiment 3: ``0, d/2, d - d/4, d - d/8, d - 2``.

    ``d`` must be a multiple of 16 and at least 32, so that the five values are distinct,
    even (no RoPE pair is cut in half) and at most ``d - 2``.

    Examples:
        >>> d0_sweep_values(64)
        (0, 32, 48, 56, 62)
    """
    d = check_head_dim(d)
    if d < 32 or d % 16:
        raise ValueError(f"d must be a multiple of 16 and >= 32 for the d0 sweep; got {d}")
    return (0, d // 2, d - d // 4, d - d // 8, d - 2)


def semantic_head_inputs(
    T: int = 1000, D: int = NOTES_D, d: int = DEFAULT.d, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    r"""The inputs of Experiment 3: \(T\) random vectors and the shared "meaning" \(s\).

    Every \(x_i \in \mathbb{R}^D\) is standard normal; then the last vector gets \(s\) in
    coordinates ``0..d-1`` and every other vector gets \(s\) in coordinates ``d..2d-1``.

    ``T`` is at least 2, ``d`` even in ``[2, 4096]``, ``D`` in ``[2d, 16384]``, ``T * D`` at
    most ``2**25``, ``seed`` in ``[0, 2**63 - 1]``.

    Returns:
        ``(x, s)`` of shapes ``(T, D)`` and ``(d,)``.

    Examples:
        >>> x, s = semantic_head_inputs(T=3, D=8, d=2)
        >>> bool(np.all(x[-1, :2] == s) and np.all(x[:-1, 2:4] == s))
        True
    """
    T = check_int_range("T", T, 2, 2**25)
    d = check_head_dim(d)
    D = check_int_range("D", D, 2 * d, MAX_WIDTH)
    seed = check_seed(seed)
    check_size("T x D", T * D)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, D))  # (T, D)
    s = rng.standard_normal(d)
    x[-1, :d] = s
    x[:-1, d : 2 * d] = s
    return x, s


def semantic_head_experiment(
    d0_values=None,
    T: int = 1000,
    D: int = NOTES_D,
    d: int = DEFAULT.d,
    base: float = DEFAULT.base,
    seed: int = 0,
    schedule: str = "standard",
) -> dict[int, np.ndarray]:
    r"""Experiment 3: a semantic head that should match every predecessor equally well.

    \(T\) random vectors \(x_i \in \mathbb{R}^D\) (standard normal) and a shared
    "meaning" \(s \in \mathbb{R}^d\): the last vector carries \(s\) in coordinates
    \(0..d-1\), every other vector carries it in coordinates \(d..2d-1\).
    \(W_Q = (\mathrm{diag}(0_{d_0}, 1_{d-d_0}) \mid 0)\) reads the first block,
    \(W_K = (0 \mid \mathrm{diag}(0_{d_0}, 1_{d-d_0}) \mid 0)\) the second, so without RoPE
    every earlier key would score \(\|s_{d_0:}\|^2\). RoPE turns that into
    \(\sum_{i \ge d_0/2} \cos((n-m)\theta_i)(s_{2i}^2 + s_{2i+1}^2)\).

    ``d0_values`` is None (the sweep of [`d0_sweep_values`][]) or 1 to 64 integers in
    ``[0, d - 2]``; the other arguments are those of [`semantic_head_inputs`][], ``base``
    is in ``(1, 1e12]`` and ``schedule`` one of [`SCHEDULES`][rope_explained.rope.SCHEDULES]
    (``"wendler"`` needs ``d >= 4``).

    Returns:
        ``{d0: scores}``, the last query's raw scores against keys ``0..T-2`` (its
        predecessors), each of shape ``(T-1,)``; [`semantic_head_weights`][] turns them into
        attention weights.

    Examples:
        >>> out = semantic_head_experiment(d0_values=(62,), T=100)
        >>> bool(np.ptp(out[62]) / out[62].max() < 1e-3)  # the slowest pair: nearly flat
        True
    """
    d = check_head_dim(d)
    base = check_base(base)
    theta = frequencies(d, base, schedule)
    if d0_values is None:
        d0_values = d0_sweep_values(d)
    d0_values = [
        check_int_range(f"d0_values[{i}]", d0, 0, d - 2)
        for i, d0 in enumerate(_check_sweep("d0_values", d0_values))
    ]
    x, _ = semantic_head_inputs(T, D, d, seed)
    m = np.arange(T, dtype=np.float64)
    out = {}
    for d0 in d0_values:
        keep = np.r_[np.zeros(d0), np.ones(d - d0)]
        W_Q = np.zeros((d, D))
        W_Q[:, :d] = np.diag(keep)
        W_K = np.zeros((d, D))
        W_K[:, d : 2 * d] = np.diag(keep)
        q = apply_rope(x[-1:] @ W_Q.T, m[-1:], inv_freq=theta)  # (1, d)
        k = apply_rope(x[:-1] @ W_K.T, m[:-1], inv_freq=theta)  # (T-1, d)
        out[d0] = (q @ k.T)[0]
    return out


def semantic_head_weights(
    d0_values=None,
    T: int = 1000,
    D: int = NOTES_D,
    d: int = DEFAULT.d,
    base: float = DEFAULT.base,
    seed: int = 0,
    schedule: str = "standard",
) -> dict[int, np.ndarray]:
    r"""Experiment 3 as attention weights: the softmax of [`semantic_head_experiment`][]'s
    scores over the last query's \(T - 1\) predecessors.

    An ideal semantic head would give each of them \(1/(T-1)\). The query's own key is left
    out: it reads coordinates \(d..2d-1\) of the last vector, which hold noise, not \(s\).
    The arguments are those of [`semantic_head_experiment`][].

    Returns:
        ``{d0: weights}``, each of shape ``(T-1,)``, non-negative and summing to 1.

    Examples:
        >>> w = semantic_head_weights(d0_values=(62,), T=100)[62]
        >>> bool(abs(w.sum() - 1) < 1e-12 and w.max() * 99 < 1.01)  # nearly uniform
        True
    """
    scores = semantic_head_experiment(d0_values, T, D, d, base, seed, schedule)
    out = {}
    for d0, s in scores.items():
        w = np.exp(s - s.max())  # (T-1,), largest entry 1: no overflow
        out[d0] = w / w.sum()
    return out


def _check_min_cos(min_cos: object) -> float:
    message = f"min_cos must be a number in (-1, 1); got {show(min_cos)}"
    if isinstance(min_cos, bool) or not isinstance(min_cos, numbers.Real):
        raise ValueError(message)
    try:
        value = float(min_cos)
    except OverflowError:
        raise ValueError(message) from None
    if not -1.0 < value < 1.0:  # NaN fails too
        raise ValueError(message)
    return value


def pair_horizons(
    d: int = DEFAULT.d, base: float = DEFAULT.base, min_cos: float = 0.9, schedule: str = "standard"
) -> np.ndarray:
    r"""For each RoPE pair, how far apart query and key may be before position shows.

    A semantic head that uses pair \(i\) sees its content score multiplied by
    \(\cos(\Delta\,\theta_i)\) at distance \(\Delta\). That factor stays at least
    \(c_{\min}\) (``min_cos``) for every \(0 \le \Delta \le L_i\) with

    $$
    L_i = \frac{\arccos(c_{\min})}{\theta_i} .
    $$

    Args:
        d: head dimension, even, in ``[2, 4096]``.
        base: frequency base, in ``(1, 1e12]``.
        min_cos: the tolerance \(c_{\min}\), a number in ``(-1, 1)``; 0.9 allows a 10 % drift.
        schedule: the frequencies, one of [`SCHEDULES`][rope_explained.rope.SCHEDULES]
            (``"wendler"`` needs ``d >= 4``).

    Returns:
        Array of shape ``(d/2,)``: \(L_i\) in tokens, growing with ``i``.

    Examples:
        >>> np.round(pair_horizons(d=4, base=100.0, min_cos=0.0), 2)
        array([ 1.57, 15.71])
    """
    min_cos = _check_min_cos(min_cos)
    return np.arccos(min_cos) / frequencies(d, base, schedule)


def stable_pair_count(
    distances,
    d: int = DEFAULT.d,
    base: float = DEFAULT.base,
    min_cos: float = 0.9,
    schedule: str = "standard",
) -> np.ndarray:
    r"""How many RoPE pairs keep \(\cos(\Delta\,\theta_i) \ge c_{\min}\) for every distance
    \(\Delta\) up to each entry of ``distances``.

    Those pairs are the ones a head can use to match content over that span without
    position getting in the way; twice the count is the number of coordinates
    (\(d_\text{semantic}\) in Wendler's notes, for this tolerance).

    Args:
        distances: 1-D array of non-negative distances in tokens, at most 1e300
            (``len(distances) * d / 2`` at most ``2**25``).
        d: head dimension, even, in ``[2, 4096]``.
        base: frequency base, in ``(1, 1e12]``.
        min_cos: the tolerance \(c_{\min}\), a number in ``(-1, 1)``.
        schedule: the frequencies, one of [`SCHEDULES`][rope_explained.rope.SCHEDULES]
            (``"wendler"`` needs ``d >= 4``).

    Returns:
        Integer array of the shape of ``distances``.

    Examples:
        >>> stable_pair_count(np.array([100, 1000, 10000]), d=64)
        array([13,  5,  0])
    """
    distances = _check_offsets(distances, "distances")
    if distances.size and distances.min() < 0:
        raise ValueError(f"distances must be >= 0; got minimum {distances.min()}")
    horizons = pair_horizons(d, base, min_cos, schedule)  # (d/2,)
    check_size("len(distances) x d/2", distances.size * horizons.size)
    return (distances[:, None] <= horizons[None, :]).sum(axis=1)


@dataclass(frozen=True)
class InductionPrompt:
    """A prompt ``... A B ... A`` and the letter that should follow it (``B``).

    ``text`` is 3 to [`MAX_LETTERS`][rope_explained.model.MAX_LETTERS] letters a-z whose last letter
    is the one at ``first`` (an integer in ``[0, len(text) - 3]``), and ``answer`` is the letter
    after it; anything else is refused with a ``ValueError``.
    """

    text: str
    answer: str
    first: int  # position (in the text) of the first A

    def __post_init__(self) -> None:
        text = self.text
        if not (isinstance(text, str) and 3 <= len(text) <= MAX_LETTERS and _letters(text)):
            raise ValueError(f"text must be 3 to {MAX_LETTERS} letters a-z; got {show(text)}")
        first = self.first
        if isinstance(first, bool) or not isinstance(first, numbers.Integral):
            raise ValueError(f"first must be an integer position in text; got {show(first)}")
        if not 0 <= first <= len(text) - 3:
            raise ValueError(
                f"first must be in [0, {len(text) - 3}] (text has {len(text)} letters); "
                f"got {show(first)}"
            )
        first = int(first)
        if text[first] != text[-1]:
            raise ValueError(
                f"first must be the position of the text's last letter {text[-1]!r} earlier on; "
                f"got {first}, where the text has {text[first]!r}"
            )
        if not isinstance(self.answer, str) or self.answer != text[first + 1]:
            raise ValueError(
                f"answer must be the letter after position first ({text[first + 1]!r}); "
                f"got {show(self.answer)}"
            )


def _letters(text: str) -> bool:
    """True if ``text`` holds only the letters a-z."""
    return text.isascii() and text.isalpha() and text.islower()


def induction_prompts(
    n: int = 1000, min_len: int = 8, max_len: int = 256, seed: int = 0
) -> list[InductionPrompt]:
    """Random prompts ``... A B ... A`` in which ``A`` occurs exactly twice.

    Each prompt's length is uniform in ``[min_len, max_len]``; the last letter is the second
    ``A``; the first ``A`` is at a uniform position with room for ``B`` after it; every other
    letter is uniform over the 25 letters other than ``A`` (so they may repeat).

    ``n`` is in ``[1, 100000]``, ``min_len`` in ``[3, 8192]``, ``max_len`` in
    ``[min_len, 8192]`` and ``n * max_len`` at most [`MAX_PROMPT_LETTERS`][] (ten million);
    ``seed`` in ``[0, 2**63 - 1]``.

    Examples:
        >>> p = induction_prompts(n=1, seed=1)[0]
        >>> p.text[p.first] == p.text[-1] and p.text[p.first + 1] == p.answer
        True
    """
    n = check_int_range("n", n, 1, MAX_PROMPTS)
    min_len = check_int_range("min_len", min_len, 3, MAX_LETTERS)
    max_len = check_int_range("max_len", max_len, min_len, MAX_LETTERS)
    seed = check_seed(seed)
    if n * max_len > MAX_PROMPT_LETTERS:
        raise ValueError(
            f"n x max_len = {n:,} x {max_len:,} letters is more than the "
            f"{MAX_PROMPT_LETTERS:,} induction_prompts writes at once; lower n or max_len"
        )
    rng = np.random.default_rng(seed)
    prompts = []
    for _ in range(n):
        L = int(rng.integers(min_len, max_len + 1))
        a = int(rng.integers(len(VOCAB)))
        others = [i for i in range(len(VOCAB)) if i != a]
        letters = [VOCAB[others[j]] for j in rng.integers(len(others), size=L)]
        first = int(rng.integers(0, L - 2))  # B at first+1 <= L-2, second A at L-1
        letters[first] = letters[-1] = VOCAB[a]
        prompts.append(InductionPrompt("".join(letters), letters[first + 1], first))
    return prompts


def induction_accuracy(prompts: list[InductionPrompt], **config) -> float:
    """Fraction of ``prompts`` for which the model's top prediction is the right ``B``.

    ``prompts`` is a list of 1 to 100,000 [`InductionPrompt`][]; ``config`` as for
    [`forward`][rope_explained.model.forward].

    Examples:
        >>> induction_accuracy(induction_prompts(n=20, max_len=32))
        1.0
    """
    return float(induction_hits(prompts, **config).mean())


def induction_hits(prompts: list[InductionPrompt], **config) -> np.ndarray:
    """For each of ``prompts``, whether the model's top prediction is the right ``B``.

    The arguments of [`induction_accuracy`][]; the model runs through
    [`predict_last`][rope_explained.model.predict_last], which computes the last prediction only.

    Returns:
        A boolean array of shape ``(len(prompts),)``.

    Examples:
        >>> induction_hits(induction_prompts(n=3, max_len=16), head="rank1").dtype
        dtype('bool')
    """
    make_config(**config)  # refuse bad settings before the loop
    if not isinstance(prompts, list | tuple) or not 1 <= len(prompts) <= MAX_PROMPTS:
        raise ValueError(
            f"prompts must be a list of 1 to {MAX_PROMPTS:,} InductionPrompt; got {show(prompts)}"
        )
    for i, p in enumerate(prompts):
        if not isinstance(p, InductionPrompt):
            raise ValueError(f"prompts[{i}] must be an InductionPrompt; got {show(p)}")
    return np.array([predict_last(p.text, **config).prediction == p.answer for p in prompts])
