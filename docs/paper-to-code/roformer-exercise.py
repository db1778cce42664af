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
#     title: "Exercise: write apply_rope yourself"
#     number: 13
# ---

# %% [markdown]
# # Exercise: write apply_rope yourself
#
# This is the companion exercise to [RoFormer, from paper to code](../roformer/). You write the
# one function at the heart of rotary position embedding (RoFormer; Su, Lu, Pan, Murtadha, Wen
# and Liu, 2021, [arXiv:2104.09864](https://arxiv.org/abs/2104.09864)), then run the same six
# sanity checks as the worked notebook against it.
#
# **How to use it.** Download the notebook (`.ipynb`, or the `.py` script it is stored as) with
# the links at the top of this page, install the package with `pip install -e .` from a clone
# of the repository (pip brings the three packages it needs: numpy, matplotlib and ml_dtypes),
# and open the notebook in Jupyter.
# Fill in `apply_rope`, then run all cells.
#
# **What you see on this page.** The page was built with `apply_rope` still a stub. So that the
# page still shows what the checks print, the cell after the stub notices the
# `NotImplementedError` and points the checks at the reference implementation,
# `rope_explained.apply_rope`. The message it prints says so. Once your function runs, the
# same cell points the checks at your code instead.
#
# Suggested time: 30 minutes for the function, 5 for the checks.

# %%
# %matplotlib inline
import numpy as np

import rope_explained
from rope_explained.figures.paper_to_code import roformer_exercise as exercise_figures

# %% [markdown]
# ## Your task
#
# Rotate every consecutive pair of coordinates $(x_{2i}, x_{2i+1})$ of a vector at position $m$
# by the angle $m\theta_i$, with $\theta_i = \text{base}^{-2i/d}$ for $i = 0, \ldots, d/2 - 1$:
# equation [(12.1)](../roformer/#eq-pair-rotation) of the worked notebook. With $a = x_{2i}$ and
# $b = x_{2i+1}$ the rotated pair is $(a\cos m\theta_i - b\sin m\theta_i,\;
# a\sin m\theta_i + b\cos m\theta_i)$.
#
# Hints: build `theta` once (shape `(d/2,)`); broadcast `positions[:, None] * theta[None, :]` to
# get one angle per position and pair; slice `x[..., 0::2]` and `x[..., 1::2]` for the two
# coordinates of every pair; write the results back into the same slices of a new array. No
# loops are needed, and no $d \times d$ matrix.
#
# Figure 13.1 shows the effect on one pair at a time: a fast pair and a slow one. (Figures
# 12.1 to 12.5 are in the worked notebook.)

# %% tags=["fig:paper-exercise-pair-rotation"]
fig = exercise_figures.exercise_pair_rotation()


# %%
def apply_rope(x, positions, base=10000.0):
    """Turn pair (2i, 2i+1) of each row of x by position * theta_i.

    Args:
        x: array of shape (..., seq, d) with d even.
        positions: seq numbers, the position of each row.
        base: the frequency base; theta_i = base ** (-2 i / d).

    Returns:
        An array with the shape of x.
    """
    raise NotImplementedError(
        "apply_rope is yours to write: replace this line with your code "
        "(see the hints above), then re-run the notebook"
    )


# %% [markdown]
# ## Which implementation the checks test
#
# This cell calls your function once. If it still raises `NotImplementedError`, the rest of the
# notebook uses the reference implementation instead, and says so.

# %%
try:
    apply_rope(np.zeros((1, 2)), [0])
except NotImplementedError:
    rope_under_test = rope_explained.apply_rope
    print(
        "apply_rope is still a stub (it raises NotImplementedError).\n"
        "The cells below therefore run against the reference solution,\n"
        "rope_explained.apply_rope.\n"
        "Write your apply_rope above and re-run the notebook to test your own."
    )
else:
    rope_under_test = apply_rope
    print("Your apply_rope runs: the cells below test it.")

# %% [markdown]
# ## The property that matters
#
# Fix the content of a query and a key, place them at positions $m = 5$ and $n = 2$, and shift
# both by the same amount (the positions and shifts of the drill's demo). A correct RoPE leaves the score unchanged, because the score depends
# only on the offset $m - n$ (equation [(12.2)](../roformer/#eq-relative-score) of the worked
# notebook).


# %%
def score(rope, q, k, m, n):
    """Score of content q at position m with content k at position n."""
    return float(rope(q[None, :], [m])[0] @ rope(k[None, :], [n])[0])


rng = np.random.default_rng(0)
q, k = rng.standard_normal((2, 64))
reference = score(rope_under_test, q, k, 5, 2)
diffs = [
    abs(score(rope_under_test, q, k, 5 + s, 2 + s) - reference)
    for s in (1, 3, 7, 50, 123)
]
print(f"score at offset 3: {reference:+.6f}")
print(
    f"largest difference across shifts: {max(diffs):.1e} (about 0 if correct)"
)

# %% [markdown]
# ## Six sanity checks
#
# The same six checks as in the worked notebook: norm preserved, position 0 is the identity,
# shift invariance, shape preserved, different offsets give different scores, and composition
# (rotating by $a$ then $b$ equals rotating by $a + b$). Each raises an `AssertionError` that
# says what went wrong. The checks, their order and their small constants come from the
# paper-to-code drill on RoFormer that the worked notebook follows (there in PyTorch, here in
# numpy).

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


run_checks(rope_under_test)

# %% [markdown]
# ## Compare with the reference
#
# Passing the checks means your function is *a* RoPE. This last cell asks whether it is *the*
# RoPE of RoFormer, with the same pairing and frequencies as the package, on a batch of random
# vectors at scattered positions.

# %%
x = rng.standard_normal((3, 10, 64))
positions = np.array([0, 1, 2, 5, 17, 100, 999, 4096, -3, 12.5])
gap = np.max(
    np.abs(
        rope_under_test(x, positions) - rope_explained.apply_rope(x, positions)
    )
)
print(
    f"largest difference from rope_explained.apply_rope: {gap:.1e} "
    "(1e-12 or less if yours matches)"
)

# %% [markdown]
# **If a check fails.** Norm changed: the two new coordinates of a pair probably mix the wrong
# inputs, or a sign is off so the matrix is not a rotation. Shift invariance fails: the angle
# is probably not *linear* in the position, or the query and key use different frequencies.
# Differences from the reference but all checks pass: you probably used another pairing (for
# example coordinates $i$ and $i + d/2$, the rotate-half layout) or another frequency formula;
# both give a valid RoPE, but not one that is compatible with weights trained for RoFormer's.
#
# The worked solution, with plots of what RoPE does, is in
# [RoFormer, from paper to code](../roformer/).
