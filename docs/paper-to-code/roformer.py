# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   rope_explained:
#     title: RoFormer, from paper to code
#     number: 12
# ---

# %% [markdown]
# # RoFormer, from paper to code
#
# This notebook turns the central idea of **RoFormer: Enhanced Transformer with Rotary Position
# Embedding** (Jianlin Su, Yu Lu, Shengfeng Pan, Ahmed Murtadha, Bo Wen and Yunfeng Liu, 2021,
# [arXiv:2104.09864](https://arxiv.org/abs/2104.09864)) into a dozen lines of numpy, then
# checks that the code really has the properties the paper claims. Everything runs on a laptop
# CPU in a few seconds, and every number and plot below was computed when this page was built.
#
# The plan:
#
# 1. write `apply_rope` and compare it with the package's version;
# 2. show that the attention score depends only on the offset between two positions;
# 3. run six sanity checks that any correct implementation must pass;
# 4. compare the two memory layouts used in practice (interleaved and rotate-half);
# 5. look at the paper's long-term decay argument next to real scores;
# 6. see how three follow-up methods stretch RoPE past the context it was trained on.
#
# A version with `apply_rope` left for you to write is the
# [exercise notebook](../roformer-exercise/). Both can be downloaded as `.ipynb` or as the
# `.py` script they are stored as.
#
# **To run it yourself.** The notebook imports this site's package, `rope_explained` (it needs
# only numpy, matplotlib and `ml_dtypes`). Install it from a clone of the repository, then open
# the downloaded notebook in Jupyter:
#
# ```sh
# git clone https://github.com/rope-explained/rope-explained
# cd rope-explained
# pip install -e .
# ```

# %%
# %matplotlib inline
import numpy as np
from IPython.display import Markdown

import rope_explained
from rope_explained.figures.paper_to_code import roformer as roformer_figures
from rope_explained.sources import source_link

rng = np.random.default_rng(0)

# %% [markdown]
# ## The idea in two equations
#
# A transformer's attention compares a query $q$ at position $m$ with a key $k$ at position $n$
# through the dot product $q^\top k$. Nothing in that product knows where the two tokens are.
# RoFormer's answer is to **rotate** both vectors by an angle proportional to their own position
# before taking the product.
#
# Split a head's $d$ coordinates into $d/2$ pairs. Pair $i$ turns at its own frequency
# $\theta_i = 10000^{-2i/d}$, for $i = 0, \ldots, d/2 - 1$ (the paper counts from 1), so at
# position $m$ the pair $(x_{2i}, x_{2i+1})$ is turned by the angle $m\theta_i$:
#
# <a id="eq-pair-rotation"></a>
#
# $$
# \begin{pmatrix} x'_{2i} \\ x'_{2i+1} \end{pmatrix}
# = \begin{pmatrix} \cos m\theta_i & -\sin m\theta_i \\ \sin m\theta_i & \cos m\theta_i
# \end{pmatrix}
# \begin{pmatrix} x_{2i} \\ x_{2i+1} \end{pmatrix} . \tag{12.1}
# $$
#
# Stacking the $d/2$ little rotations gives a block-diagonal orthogonal matrix $R_{\Theta,m}$.
# Rotations compose by adding angles, and the transpose of a rotation turns backwards, so
# $R_{\Theta,m}^\top R_{\Theta,n} = R_{\Theta,n-m}$ and
#
# <a id="eq-relative-score"></a>
#
# $$
# \left(R_{\Theta,m}\, q\right)^\top \left(R_{\Theta,n}\, k\right)
# = q^\top R_{\Theta,n-m}\, k . \tag{12.2}
# $$
#
# Each token is encoded by its **absolute** position, yet the score sees only the **relative**
# offset $n - m$. There is nothing to learn: $R_{\Theta,m}$ is fixed, and the only setting is
# the base 10000. RoPE is applied to queries and keys, never to values, because the score is
# the only place where position needs to act.

# %% [markdown]
# ## The rotation in a few lines of numpy
#
# Equation [(12.1)](#eq-pair-rotation) never needs the $d \times d$ matrix. With
# $a = x_{2i}$ and $b = x_{2i+1}$ the rotated pair is
# $(a\cos m\theta_i - b\sin m\theta_i,\; a\sin m\theta_i + b\cos m\theta_i)$: two
# element-wise products per coordinate. The function below takes `x` of shape
# `(..., seq, d)` and one position per row.


# %%
def apply_rope(x, positions, base=10000.0):
    """Turn pair (2i, 2i+1) of each row of x by position * theta_i."""
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(
            f"the last axis of x must have even length d; got d={d}"
        )
    # (d/2,): one frequency per pair
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    angle = np.asarray(positions, dtype=float)[:, None] * theta  # (seq, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    # first and second coordinate of every pair
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


# %% [markdown]
# Compare it with the package's fast path `rope_explained.apply_rope` and with
# `rope_explained.apply_rope_matrix`, which builds the matrices $R_{\Theta,m}$ explicitly, on a
# batch of 3 sequences of 10 vectors with $d = 64$ at scattered positions:

# %%
x = rng.standard_normal((3, 10, 64))
positions = np.array([0, 1, 2, 5, 17, 100, 999, 4096, -3, 12.5])
ours = apply_rope(x, positions)
print(
    "largest difference from rope_explained.apply_rope:       ",
    np.max(np.abs(ours - rope_explained.apply_rope(x, positions))),
)
print(
    "largest difference from rope_explained.apply_rope_matrix:",
    np.max(np.abs(ours - rope_explained.apply_rope_matrix(x, positions))),
)

# %% [markdown]
# Both differences are zero or at the level of floating-point rounding (about $10^{-13}$ at
# most): three independent routes give the same rotation.
#
# ## Relative position falls out
#
# Equation [(12.2)](#eq-relative-score) is the claim to test. Fix the *content* of a query and a
# key, put the query at $m = 5$ and the key at $n = 2$, then shift both positions by the same
# amount $s$. The offset stays $3$, so the score must not move.

# %%
d = 64
q = rng.standard_normal(d)  # content of the query
k = rng.standard_normal(d)  # content of the key


def score(rope, q, k, m, n):
    """Score of content q at position m with content k at position n."""
    return float(rope(q[None, :], [m])[0] @ rope(k[None, :], [n])[0])


m, n = 5, 2
reference = score(apply_rope, q, k, m, n)
print(f"score(q at {m}, k at {n}) = {reference:+.12f}   offset {m - n}")
diffs = []
for s in (1, 3, 7, 50, 123, 10_000):
    value = score(apply_rope, q, k, m + s, n + s)
    diffs.append(abs(value - reference))
    print(f"score(q at {m + s}, k at {n + s}) = {value:+.12f}   shift {s}")
print(f"largest absolute difference across shifts: {max(diffs):.1e}")

# %% [markdown]
# Moving both tokens as far as 10,000 places along changes nothing but the last digits: what
# differs is rounding in the cosines of large angles. Figure 12.1 shows the same fact for
# every pair of positions at once: a score matrix that is constant along its diagonals (a
# Toeplitz matrix).

# %% tags=["fig:paper-score-diagonals"]
fig = roformer_figures.score_diagonals()

# %% [markdown]
# ## Six sanity checks
#
# A plot can look right while the code is wrong. These six checks each test one property that
# any correct RoPE must have. The list, its order and the small numbers the checks use (the
# query at 5 and the key at 2, the shift by 17, the offsets 3 and 5, the rotations by 3 and
# 4, a batch of shape `(2, 6, 10)`) are taken from the paper-to-code drill on RoFormer this
# notebook follows, as are the shifts 1, 3, 7, 50 and 123 of the demo above; the code here
# is numpy instead of the drill's PyTorch. Each check is a function of the implementation
# `rope`, so the same checks can test the function above, the package's version, or your own
# in the [exercise](../roformer-exercise/).
#
# 1. **Norm preserved.** Each $R_{\Theta,m}$ is orthogonal, so $\lVert R_{\Theta,m} x\rVert =
#    \lVert x \rVert$. A RoPE that changes lengths is not a rotation.
# 2. **Position 0 is the identity.** All angles are $0 \cdot \theta_i = 0$.
# 3. **Shift invariance.** Equation [(12.2)](#eq-relative-score): equal shifts of both
#    positions leave the score unchanged. This is the property the paper is about.
# 4. **Shape preserved**, for a batch of shape `(batch, seq, d)`.
# 5. **Different offsets give different scores.** Without this, checks 1 to 4 would be passed
#    by a function that does nothing at all.
# 6. **Composition.** Rotating by $a$ and then by $b$ equals rotating by $a + b$, also for
#    fractional and negative positions.

# %%
TOL = 1e-10  # float64: exact up to rounding


def check_norm_preserved(rope):
    x = np.random.default_rng(1).standard_normal((6, 8))
    gap = np.max(
        np.abs(
            np.linalg.norm(rope(x, np.arange(6)), axis=-1)
            - np.linalg.norm(x, axis=-1)
        )
    )
    assert gap < TOL, f"norms changed by up to {gap:.2e}"
    return f"norm preserved (largest change {gap:.1e})"


def check_position_zero(rope):
    x0 = np.random.default_rng(2).standard_normal((1, 8))
    gap = np.max(np.abs(rope(x0, [0]) - x0))
    assert gap < TOL, f"position 0 moved the vector by up to {gap:.2e}"
    return f"position 0 is the identity (largest change {gap:.1e})"


def check_shift_invariance(rope):
    q, k = np.random.default_rng(3).standard_normal((2, 8))
    gaps = [
        abs(score(rope, q, k, 5 + s, 2 + s) - score(rope, q, k, 5, 2))
        for s in (1, 17, 400)
    ]
    assert max(gaps) < 1e-9, (
        f"an equal shift changed the score by {max(gaps):.2e}"
    )
    return f"score unchanged by equal shifts (largest change {max(gaps):.1e})"


def check_shape(rope):
    # (batch, seq, d)
    big = np.random.default_rng(4).standard_normal((2, 6, 10))
    out = np.asarray(rope(big, np.arange(6)))
    assert out.shape == big.shape, f"shape {big.shape} became {out.shape}"
    return f"shape preserved {out.shape}"


def check_offsets_differ(rope):
    q, k = np.random.default_rng(3).standard_normal((2, 8))
    s3, s5 = score(rope, q, k, 5, 2), score(rope, q, k, 5, 0)
    assert abs(s3 - s5) > 1e-3, f"offsets 3 and 5 gave the same score {s3:.4f}"
    return f"offset 3 gives {s3:+.4f}, offset 5 gives {s5:+.4f}"


def check_composition(rope):
    x0 = np.random.default_rng(5).standard_normal((1, 8))
    gaps = [
        np.max(np.abs(rope(rope(x0, [a]), [b]) - rope(x0, [a + b])))
        for a, b in ((3.0, 4.0), (2.5, -7.25), (-1.0, 1.0))
    ]
    assert max(gaps) < TOL, (
        f"rotate(a) then rotate(b) differs from rotate(a+b) by {max(gaps):.2e}"
    )
    return f"rotate(a) then rotate(b) == rotate(a + b) (gap {max(gaps):.1e})"


SANITY_CHECKS = [
    check_norm_preserved,
    check_position_zero,
    check_shift_invariance,
    check_shape,
    check_offsets_differ,
    check_composition,
]


def run_checks(rope):
    for number, check in enumerate(SANITY_CHECKS, start=1):
        print(f"check {number} OK: {check(rope)}")


run_checks(apply_rope)

# %% [markdown]
# All six pass. Read together: norm, position 0 and composition establish that the function
# rotates; shift invariance, that the score sees only the offset; shape and different offsets,
# that it does something at all to a batch.
#
# ## Interleaved versus rotate-half
#
# RoFormer pairs neighbouring coordinates $(2i, 2i+1)$, as the code above does; GPT-J does the
# same, and so does Meta's reference code for LLaMA, which views each neighbouring pair as one
# complex number and multiplies it by $e^{\mathrm{i} m\theta_i}$. GPT-NeoX instead pairs
# coordinate $i$ with coordinate $i + d/2$ (the "rotate half" layout), which needs no strided
# indexing, and so does the Hugging Face port of LLaMA. Figure 12.2 shows which coordinates
# turn together in each layout; the cell below links the code of both, at the versions this
# site checked.

# %%
Markdown(
    f"Meta's complex form: {source_link('meta-apply-rotary-emb')}. "
    f"Hugging Face's rotate-half form: {source_link('hf-apply-rotary')}."
)

# %% tags=["fig:paper-layouts"]
fig = roformer_figures.layouts()

# %% [markdown]
# The two layouts perform the same rotation on differently ordered coordinates. Let $\Pi$ be the
# permutation of the [RoPE page](../../equations/rope/#which-coordinates-form-a-pair) that lists
# the coordinates as $0, \tfrac{d}{2}, 1, \tfrac{d}{2}+1, \ldots$; it moves
# the rotate-half pair $(i, i + d/2)$ to the interleaved slots $(2i, 2i + 1)$. Then rotating
# $x$ with rotate-half and reordering the result equals reordering $x$ first and rotating it with
# the interleaved layout:

# %%
d = 16
perm = np.stack(
    [np.arange(d // 2), np.arange(d // 2) + d // 2], axis=1
).ravel()
print("Pi lists the coordinates in the order", perm)
x = rng.standard_normal((5, d))
pos = np.array([0, 3, 8, 21, 300])
half_then_permute = rope_explained.apply_rope(x, pos, layout="half")[..., perm]
permute_then_interleaved = rope_explained.apply_rope(
    x[..., perm], pos, layout="interleaved"
)
print(
    "largest difference:",
    np.max(np.abs(half_then_permute - permute_then_interleaved)),
)

# %% [markdown]
# So the layouts are equally good, but **weights are not portable** between them. A trained
# model's projection matrices $W_q$ and $W_k$ have learned to place in coordinates $i$ and
# $i + d/2$ the two halves of something that must turn together at frequency $\theta_i$. Run the
# same weights with the other layout and those halves land in different pairs, turning at
# unrelated frequencies. Nothing crashes; the scores are simply wrong. At offset 0 nothing is
# rotated, so the two layouts even agree there, which makes the mistake easy to miss in a quick
# test. Converting a checkpoint means permuting the rows of $W_q$ and $W_k$ by $\Pi$. That is
# what Hugging Face's `transformers` does, in the other direction, when it loads weights stored
# in Meta's layout: it reorders the rows of $W_q$ and $W_k$ of every head (by $\Pi^T$, the
# inverse of $\Pi$, leaving $W_v$ and $W_o$ alone) so that its rotate-half code gives the
# scores Meta's interleaved code gives (the cell below links the code).

# %%
Markdown(f"The reordering: {source_link('hf-permute-for-rope')}.")

# %%
D = 32  # width of the hidden state h that the head reads
# weights "trained" with the rotate-half layout
W_q, W_k = rng.standard_normal((2, d, D))
h_query, h_key = rng.standard_normal((2, D))
offsets = np.arange(64)


def scores_by_offset(Wq, Wk, layout):
    """Score of h_query at position t and h_key at position 0, for each t."""
    Q = rope_explained.apply_rope(
        np.tile(Wq @ h_query, (offsets.size, 1)), offsets, layout=layout
    )
    # at position 0
    K = rope_explained.apply_rope((Wk @ h_key)[None, :], [0], layout=layout)
    return Q @ K[0]


as_trained = scores_by_offset(W_q, W_k, "half")
wrong_layout = scores_by_offset(W_q, W_k, "interleaved")
converted = scores_by_offset(W_q[perm], W_k[perm], "interleaved")
print(
    f"same weights, other layout: difference at offset 0 = "
    f"{abs(as_trained[0] - wrong_layout[0]):.1e}, largest = "
    f"{np.max(np.abs(as_trained - wrong_layout)):.2f} "
    f"(scores range over +/-{np.max(np.abs(as_trained)):.1f})"
)
print(
    f"rows permuted by Pi:         largest difference = "
    f"{np.max(np.abs(as_trained - converted)):.1e}"
)

# %% [markdown]
# ## Long-term decay (RoFormer, section 3.4.3)
#
# The paper argues that RoPE makes the score between far-apart tokens tend to shrink. Read
# each pair as a complex number, $q_{[i]} = q_{2i} + \mathrm{i}\, q_{2i+1}$ and likewise for
# $k$. Rotation by $m\theta_i$ is multiplication by $e^{\mathrm{i} m\theta_i}$, and the score
# becomes
#
# <a id="eq-complex-score"></a>
#
# $$
# \left(R_{\Theta,m}\, q\right)^\top \left(R_{\Theta,n}\, k\right)
# = \mathrm{Re}\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}(m-n)\theta_i},
# \qquad h_i = q_{[i]}\, \overline{k_{[i]}} . \tag{12.3}
# $$
#
# Write $S_j = \sum_{i=0}^{j-1} e^{\mathrm{i}(m-n)\theta_i}$ for the partial sums (so
# $S_0 = 0$) and set $h_{d/2} = 0$. Summation by parts (an Abel transformation) turns the sum
# into $-\sum_{j} S_{j+1}(h_{j+1} - h_j)$, which gives the paper's bound
#
# <a id="eq-decay-bound"></a>
#
# $$
# \left|\sum_{i=0}^{d/2-1} h_i\, e^{\mathrm{i}(m-n)\theta_i}\right|
# \le \Bigl(\max_{i} \left|h_{i+1} - h_i\right|\Bigr) \sum_{j=1}^{d/2} \left|S_j\right| .
# \tag{12.4}
# $$
#
# The first factor depends only on the content; the second only on the distance $m - n$. The
# paper plots the average $\frac{1}{d/2}\sum_j |S_j|$ and observes that it decays as the
# distance grows. First a check that the bound really holds, for random $q$ and $k$ at many
# distances:

# %%
d = 128
theta = rope_explained.frequencies(d)
distances = np.arange(0, 2049)
# S_1 .. S_{d/2}
S = np.cumsum(np.exp(1j * distances[:, None] * theta[None, :]), axis=1)
decay_factor = np.abs(S).sum(axis=1)  # sum_j |S_j|, one value per distance

q, k = rng.standard_normal((2, d))
# h_i, i = 0 .. d/2-1
h = (q[0::2] + 1j * q[1::2]) * np.conj(k[0::2] + 1j * k[1::2])
# max_i |h_{i+1} - h_i|, h_{d/2} = 0
content_factor = np.max(np.abs(np.diff(np.append(h, 0))))
# q at m = distance
Q = rope_explained.apply_rope(np.tile(q, (distances.size, 1)), distances)
real_scores = Q @ k  # k at n = 0
bound = content_factor * decay_factor
print(
    f"bound holds at all {distances.size} distances:",
    bool(np.all(np.abs(real_scores) <= bound)),
)
print(f"largest |score| / bound: {np.max(np.abs(real_scores) / bound):.3f}")
for r in (0, 10, 100, 1000, 2048):
    print(
        f"distance {r:5d}: sum_j |S_j| / (d/2) = "
        f"{decay_factor[r] / (d // 2):6.2f}"
    )

# %% [markdown]
# The bound holds, though loosely: the real score stays far below it. Figure 12.3 shows the
# paper's curve on the left. The right panel asks what the decay means for actual scores.
# When the query and key carry the *same* content ($k = q$), every term of
# [(12.3)](#eq-complex-score) starts out positive and the terms drift out of phase as the
# distance grows, so the average score does fall with distance. For *independent* random
# $q$ and $k$ the score is a sum of terms with random phases at every distance, and its
# typical size does not change. The decay is a statement about similar queries and keys: RoPE
# makes matching content count less the farther apart it is, which is the bias the paper
# wanted.

# %% tags=["fig:paper-long-term-decay"]
fig = roformer_figures.long_term_decay()

# %% [markdown]
# ## Beyond the trained context: PI, NTK-aware scaling, YaRN
#
# A model trained on sequences of length $L$ has only ever seen angles $p\,\theta_i$ with
# $p < L$. For the fast pairs that is no limitation: they complete many turns within $L$, so
# every angle has been seen. The slow pairs are different: a pair whose wavelength
# $\lambda_i = 2\pi/\theta_i$ exceeds $L$ never completes a turn during training, and positions
# beyond $L$ give it angles the model has never met. Vanilla RoPE degrades there. Three
# follow-up methods change the frequencies to run a model at $s$ times its trained length.
#
# - **Position Interpolation** (PI; Shouyuan Chen, Sherman Wong, Liangjian Chen and Yuandong
#   Tian, 2023, [arXiv:2306.15595](https://arxiv.org/abs/2306.15595)) divides every frequency
#   by $s$, which is the same as squeezing positions $0 \ldots sL$ into $0 \ldots L$:
#
# <a id="eq-pi"></a>
#
# $$
# \theta_i' = \theta_i / s . \tag{12.5}
# $$
#
# - **NTK-aware scaling** (bloc97, 2023, in a public forum post) raises the base instead, so
#   the fastest pair keeps its frequency and the slowest is divided by exactly $s$:
#
# <a id="eq-ntk"></a>
#
# $$
# \theta_i' = \left(b\, s^{d/(d-2)}\right)^{-2i/d} . \tag{12.6}
# $$
#
# - **YaRN** (Bowen Peng, Jeffrey Quesnelle, Honglu Fan and Enrico Shippole, 2023,
#   [arXiv:2309.00071](https://arxiv.org/abs/2309.00071)) decides pair by pair from
#   $r_i = L/\lambda_i$, the number of turns pair $i$ makes within $L$. It blends the two
#   frequencies with a weight $\rho_i$ that is $1$ when $r_i > r_\text{fast}$ (32 by default),
#   $0$ when $r_i < r_\text{slow}$ (1 by default), and linear in $r_i$ in between:
#
# <a id="eq-yarn"></a>
#
# $$
# \begin{aligned}
# \theta_i' &= (1 - \rho_i)\,\frac{\theta_i}{s} + \rho_i\, \theta_i ,\\
# \rho_i &= \frac{r_i - r_\text{slow}}{r_\text{fast} - r_\text{slow}} ,
# \end{aligned} \tag{12.7}
# $$
#
#   and it also multiplies the attention logits by $(0.1 \ln s + 1)^2$. (The paper calls the
#   weight $\gamma$ and the two bounds $\alpha$ and $\beta$; on this site those letters
#   already name the sharpness settings of the hand-built model, hence $\rho$,
#   $r_\text{slow}$ and $r_\text{fast}$ here, after the code's `beta_slow` and `beta_fast`.)
#
# **What** [(12.7)](#eq-yarn) does: pairs that turn many times within $L$ keep their
# frequency, pairs that never complete a turn are interpolated as in PI, and the ones between
# get a mixture. **Why**: a fast pair has already met every angle during training, so stretching
# it only blurs local position, while a slow pair would meet new angles unless it is stretched.
# **What if** $r_\text{fast}$ and $r_\text{slow}$ were equal: the blend would become a hard
# switch, and the pairs on either side of it would be treated very differently.
#
# The weight $\rho_i$ is where the paper and the code part ways. The paper's
# [(12.7)](#eq-yarn) is linear in $r_i$. The YaRN reference code, and Hugging Face's
# `_compute_yarn_parameters` after it, is linear in the *pair index* instead: it finds the
# (fractional) index at which $r$ equals a given number of turns,
# $i(r) = d\,\ln\!\big(L/(2\pi r)\big) / (2\ln b)$, rounds the two ends outwards and ramps
# between them, clipping to the interval from 0 to 1:
#
# <a id="eq-yarn-code"></a>
#
# $$
# \begin{aligned}
# \rho_i &= 1 - \operatorname{clip}_{[0,1]}\!\left(
# \frac{i - i_\text{fast}}{i_\text{slow} - i_\text{fast}}\right),\\
# i_\text{fast} &= \lfloor i(r_\text{fast}) \rfloor,\\
# i_\text{slow} &= \lceil i(r_\text{slow}) \rceil .
# \end{aligned} \tag{12.8}
# $$
#
# Since $r_i$ falls geometrically with $i$, [(12.8)](#eq-yarn-code) is linear in $\log r_i$, not
# in $r_i$. Both readings keep the fastest pairs and interpolate the slowest; in between they
# differ. The package follows the code, as the models that ship YaRN do:
# `rope_explained.scaled_frequencies` uses [(12.8)](#eq-yarn-code), and so does Figure 12.4;
# `rope_explained.yarn_keep(..., ramp="paper")` gives the paper's weights for comparison
# (Figure 12.5 and the table after it). The cell below links the two codes' ramps.

# %%
Markdown(
    f"YaRN's reference code: {source_link('yarn-ramp')}. "
    f"Hugging Face: {source_link('hf-yarn-ramp')}."
)

# %% [markdown]
# `rope_explained.scaled_frequencies` implements all three. For $d = 128$, base 10000, $L = 2048$
# and $s = 4$, the table below lists: the angle step between neighbouring positions for the
# fastest pair ($\theta_0'$, in radians); how many of the slow pairs ($\lambda_i > L$) reach,
# somewhere in $0 \ldots sL$, an angle larger than any they saw in training; the worst such
# overshoot, $\max_i sL\,\theta_i' / (L\,\theta_i)$ over the slow pairs; and the factor on the
# attention logits.

# %%
d, base, L, s = 128, 10000.0, 2048, 4.0
theta = rope_explained.frequencies(d, base)
rows = {"original": (theta, 1.0)}
for method in ("linear", "ntk", "yarn"):  # the three schedules of this section
    rows[method] = rope_explained.scaled_frequencies(
        d, base=base, method=method, factor=s, original_max_position=L
    )
slow = 2 * np.pi / theta > L  # pairs that never complete a turn within L
print("method    step of pair 0  unseen pairs  worst overshoot  logit scale")
for method, (inv_freq, attention_factor) in rows.items():
    # largest angle reached within sL / largest angle seen within L; > 1 is new
    overshoot = (s * L * inv_freq[slow]) / (L * theta[slow])
    unseen = int(np.sum(overshoot > 1 + 1e-12))
    print(
        f"{method:<9} {inv_freq[0]:14.3f} {unseen:13d} "
        f"{overshoot.max():15.2f}x {attention_factor**2:12.3f}"
    )

# %% [markdown]
# Reading the table: vanilla RoPE run to $sL$ drives 23 slow pairs up to four times past the
# largest angle they were trained on. PI removes every unseen angle, but it also shrinks the
# step of the fastest pair from 1 to 0.25 radians, so neighbouring tokens look four times more
# alike to the high-frequency pairs that carry fine local position. NTK-aware scaling keeps the
# fast pairs intact and cuts the worst overshoot from 4 to about 1.6, without removing it. YaRN
# keeps the fast pairs exactly, interpolates the slow ones fully, blends in between, and adds a
# mild logit scale. Figure 12.4 draws the wavelengths
# for every pair, with the trained length $L$ and the target length $sL$ marked.

# %% tags=["fig:paper-context-wavelengths"]
fig = roformer_figures.context_wavelengths()

# %% [markdown]
# The two readings of YaRN's weight $\rho_i$, [(12.7)](#eq-yarn) and
# [(12.8)](#eq-yarn-code), side by side for the same head, for the pairs where either is strictly
# between 0 and 1. The last column is the factor $\theta_i'/\theta_i = \rho_i + (1 - \rho_i)/s$
# by which each reading scales the pair's frequency.

# %%
ramps = {
    ramp: rope_explained.yarn_keep(
        d, base=base, original_max_position=L, ramp=ramp
    )
    for ramp in ("code", "paper")
}
turns = L * theta / (2 * np.pi)  # r_i, the turns pair i makes within L
between = np.flatnonzero(
    ((ramps["code"] > 0) & (ramps["code"] < 1))
    | ((ramps["paper"] > 0) & (ramps["paper"] < 1))
)
print(
    " pair   turns r_i   rho (code)   rho (paper)   theta'/theta code / paper"
)
for i in between:
    code, paper = ramps["code"][i], ramps["paper"][i]
    print(
        f"{i:5d} {turns[i]:11.2f} {code:12.3f} {paper:13.3f}"
        f"   {code + (1 - code) / s:10.3f} / {paper + (1 - paper) / s:.3f}"
    )
gap = np.abs(ramps["code"] - ramps["paper"])
worst = int(np.argmax(gap))
print(
    f"largest difference: {gap[worst]:.3f} at pair {worst} "
    f"({ramps['code'][worst]:.3f} against {ramps['paper'][worst]:.3f})"
)

# %% [markdown]
# Both ramps run over the same pairs, but between the ends the code keeps every pair closer to
# its own frequency than the paper's formula does: where the paper's weight has fallen to about
# a half, the code's is still about 0.8. Figure 12.5 draws both. Every pair in the table gets a
# different frequency under the two readings, so an implementation that follows the paper's
# formula literally does not give the frequencies that YaRN models were fine-tuned with.

# %% tags=["fig:paper-yarn-ramps"]
fig = roformer_figures.yarn_ramps()

# %% [markdown]
# These methods change frequencies, not weights, so they can be switched on at inference time.
# Chen et al. report that a short fine-tuning run after interpolation restores quality, and the
# YaRN authors show that their method needs less of it; the numbers are in their papers.
#
# ## What to take away
#
# - RoPE rotates queries and keys by angles proportional to position; the score then depends on
#   the offset only, [(12.2)](#eq-relative-score). No parameters, no change of norm, values
#   untouched.
# - Six quick checks catch the usual implementation slips. Shift invariance is the one that
#   matters, and "different offsets give different scores" stops a do-nothing function from
#   passing.
# - Interleaved and rotate-half are the same rotation up to a fixed permutation; checkpoints need
#   their $W_q$, $W_k$ rows permuted to move between them.
# - The decay bound [(12.4)](#eq-decay-bound) is loose, and the decay it predicts shows up for
#   similar queries and keys, not for unrelated ones.
# - Past the trained context, PI, NTK-aware scaling and YaRN trade local resolution against
#   unseen angles in different ways. YaRN's ramp is linear in the number of turns in the paper
#   and linear in the pair index in the code that models ship with.
#
# **Credits.** RoPE and the decay argument: Su, Lu, Pan, Murtadha, Wen and Liu (2021).
# Position Interpolation: Chen, Wong, Chen and Tian (2023). NTK-aware scaling: bloc97 (2023).
# YaRN: Peng, Quesnelle, Fan and Shippole (2023); the code's reading of its ramp: the YaRN
# reference code and Hugging Face's `transformers`. The structure of this notebook (implement,
# demonstrate invariance, sanity-check, compare layouts, extend the context), the six sanity
# checks and the constants of the demos that exercise them (positions 5 and 2, the shifts, the
# offsets 3 and 5, the rotations by 3 and 4, the batch shape) follow the paper-to-code drill on
# RoFormer; the numpy code and the text are written for this site.

# %% [markdown]
# ## Exercises
#
# Each exercise asks for a prediction first; the cell after it computes the answer, and the text
# after that explains it.
#
# **1. Find the bug.** The function below is `apply_rope` with one line changed. Before running
# the cell, predict which of the six sanity checks it fails.


# %%
def apply_rope_changed(x, positions, base=10000.0):
    """apply_rope with one line changed."""
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    theta = base ** (-1.0 * np.arange(d // 2) / d)  # the changed line
    angle = np.asarray(positions, dtype=float)[:, None] * theta
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


verdicts = {}
for check in SANITY_CHECKS:
    try:
        check(apply_rope_changed)
        verdicts[check.__name__] = "passes"
    except AssertionError:
        verdicts[check.__name__] = "fails"
    print(f"{check.__name__:<24} {verdicts[check.__name__]}")
x1 = rng.standard_normal((10, 64))
p1 = np.arange(10) * 100.0
changed_gap = np.max(
    np.abs(apply_rope_changed(x1, p1) - rope_explained.apply_rope(x1, p1))
)
print(f"largest difference from rope_explained.apply_rope: {changed_gap:.2f}")
slowest = {
    "apply_rope": 10000.0 ** (-2 * 31 / 64),
    "apply_rope_changed": 10000.0 ** (-31 / 64),
}
for name, rate in slowest.items():
    print(f"slowest pair of d = 64 under {name}: {rate:.2e} radians per token")

# %% [markdown]
# The exponent lost its factor 2: pair $i$ turns at $10000^{-i/d}$ instead of
# $10000^{-2i/d}$, so the frequencies only run from 1 down to about $1/\sqrt{10000}$, and
# the slow pairs that should carry content over long distances turn far too fast. Yet every
# check passes. Each one tests a property that *any* rotation by position-proportional angles
# has, whatever the frequencies: norms, position 0, shifts, shapes, different offsets,
# composition. The checks catch slips in the rotation, not a wrong schedule. Only a comparison
# with a trusted implementation, like the first cell of this notebook, finds this one.
#
# **2. Long-term decay, for similar content.** Let $k = q$ with the content spread evenly over
# the pairs. Then the expected score $\delta$ steps apart, relative to $\delta = 0$, is the average
# $\frac{2}{d}\sum_i \cos(\delta\theta_i)$. For $d = 128$, at what distance does it first fall
# below one half? Once below, does it stay there?

# %%
decay_theta = rope_explained.frequencies(128)
# (2/d) sum_i cos(r theta_i): the expected score at distance r over the one at distance 0
expected = np.cos(np.outer(distances, decay_theta)).mean(axis=1)
first_half = int(distances[np.argmax(expected < 0.5)])
later_peak = float(expected[first_half:].max())
print(f"first distance below one half: {first_half}")
print(
    f"largest value after that, up to distance {distances[-1]}: {later_peak:.3f}"
)
print(
    f"smallest value: {expected.min():.3f} at distance {int(distances[np.argmin(expected)])}"
)

# %% [markdown]
# The fast pairs fall out of phase within a few dozen tokens, which takes the average below
# one half; the slow pairs hold the rest up. The decline is not monotone: the fast pairs come
# partly back into phase now and then, and the average rises above one half again before it
# sinks further. Over this range it never reaches far below zero, because the slowest pairs
# have hardly turned. The paper's decay is a trend of this kind, not a guarantee at every
# distance.
#
# **3. A larger base.** Meta-Llama-3-8B's configuration (`config.json`) gives heads of
# $d = 128$, the base 500,000 (`rope_theta`) and a context of 8,192 tokens
# (`max_position_embeddings`). How many of its 64 pairs never complete a turn within that
# context, compared with the head of the table above (base 10000, $L = 2048$)?

# %%
for b, length in ((10000.0, 2048), (500000.0, 8192), (10000.0, 8192)):
    waves = 2 * np.pi / rope_explained.frequencies(128, b)
    print(
        f"base {b:>9,.0f}, L = {length:>5,}: "
        f"{int(np.sum(waves > length))} of 64 pairs never complete a turn"
    )

# %% [markdown]
# Raising the base slows every pair but the first, so more pairs have wavelengths longer than
# the training length, even though that length grew fourfold. Those are the pairs that can
# compare content over long distances, and also the pairs that meet unseen angles when the
# model is run past its context, which PI, NTK-aware scaling and YaRN then have to treat.
