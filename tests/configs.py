"""Hypothesis strategies over the model's settings, for the tests that check a faster path of the
model (predict_last, the FFT sweep, the playground's JavaScript) against forward_tokens.

:func:`configs` draws every setting of :class:`rope_explained.model.Config`, each over its
whole documented range (sizes bounded so that a test stays quick, see ``max_d``), and keeps
only the combinations ``Config`` accepts; :func:`texts` draws letters a-z. The strategies
are shrinkable, so a failure is reported on the simplest settings that show it.
:func:`rounding_bound` says how closely two correct computations of one model can agree.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from rope_explained.heads import HEADS
from rope_explained.model import CONFIG_MAX, Config
from rope_explained.rope import LAYOUTS, SCALING_METHODS


def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Numbers in ``[lo, hi]`` spread evenly in their logarithm, both ends included."""
    exponents = st.floats(math.log10(lo), math.log10(hi))
    return st.one_of(st.sampled_from([lo, hi]), exponents.map(lambda e: min(hi, max(lo, 10**e))))


@st.composite
def configs(
    draw,
    max_d: int = 64,
    max_offset: int = CONFIG_MAX["offset"],
    sharpness: tuple[float, float] | None = None,
) -> dict:
    """Keyword settings of a valid ``Config``: every field drawn (``None``-valued ones may be
    left out), ``d`` up to ``max_d`` (the model takes 512; the cost grows as ``d``),
    ``D`` over its whole range, ``offset`` up to ``max_offset`` (default: ``Config``'s limit),
    ``alpha``, ``beta``, ``gamma`` over ``sharpness`` (default: from 1e-6, where every pattern
    is uniform, to the largest ``Config`` takes)."""
    lo, hi = sharpness or (1e-6, CONFIG_MAX["alpha"])
    d = 2 * draw(st.integers(1, max_d // 2))
    r = 2 * draw(st.integers(1, d // 2))
    rotary_pct = r / d
    if int(d * rotary_pct) != r:  # r/d * d may round below r
        rotary_pct = math.nextafter(rotary_pct, 2.0)
    layout = draw(st.sampled_from(LAYOUTS))
    fast = draw(st.integers(0, r // 2))
    config = {
        "d": d,
        "D": draw(
            st.one_of(st.integers(3 * d + 1, 3 * d + 8), st.integers(3 * d + 1, CONFIG_MAX["D"]))
        ),
        "base": draw(log_uniform(1.0 + 1e-9, CONFIG_MAX["base"])),
        "alpha": draw(log_uniform(lo, hi)),
        "offset": draw(st.integers(0, max_offset)),
        "head": draw(st.sampled_from(HEADS)),
        "beta": draw(log_uniform(lo, hi)),
        "gamma": draw(log_uniform(lo, hi)),
        "bos": draw(st.booleans()),
        "layout": layout,
        "weights_layout": draw(st.sampled_from([None, *LAYOUTS])),
        "rotary_pct": rotary_pct,
        "unrotated_fast": fast,
        "unrotated_slow": draw(st.integers(0, r // 2 - fast)),
        "layer1_rotary": draw(st.booleans()),
    }
    scaling = draw(st.sampled_from([None, *SCALING_METHODS]))
    if scaling is not None:
        config["scaling"] = scaling
        config["factor"] = draw(log_uniform(1.0, CONFIG_MAX["factor"]))
        config["original_max_position"] = int(
            draw(log_uniform(1.0, CONFIG_MAX["original_max_position"]))
        )
    try:
        Config(**config)
    except ValueError:  # ntk and dynamic-ntk with fewer than 4 rotary coordinates
        assume(False)
    return config


def texts(min_size: int = 1, max_size: int = 40) -> st.SearchStrategy[str]:
    """Texts of letters a-z, few distinct letters more often than not (so that letters repeat
    and the induction head has something to copy)."""
    few = st.text(alphabet="abcd", min_size=min_size, max_size=max_size)
    any_letters = st.text(
        alphabet="abcdefghijklmnopqrstuvwxyz", min_size=min_size, max_size=max_size
    )
    return st.one_of(few, any_letters)


def rounding_bound(ref, config=None) -> dict[str, float]:
    """How far rounding alone can move the package's own scores, patterns and probabilities:
    the bound two correct float64 computations of the same model must agree to. ``ref`` is a
    trace of ``forward``, or of ``trained.forward`` on ``trained.hand_built(**c)`` with
    ``config`` the ``Config(**c)`` it was built from (a trained trace holds no config).

    A score that is a sum of up to d terms of size S is known to about ``d eps S`` times the
    largest angle its terms turn by (plus one). A softmax whose scores each move by at most s
    moves its weights by at most 2s in all (``sum |dp_i| = sum p_i |ds_i - mean ds| <= 2s``),
    so a weighted mean of unit vectors moves by at most 2s: layer 1's scores move by
    ``beta af^2`` times that of a key's previous letter (layer 0's weights over the letters),
    the logits by ``gamma`` times that of the copied letters (layer 1's). Where the sharpness
    is moderate this is far below TOL; near the limits of alpha, beta and gamma the package's
    own numbers are only this accurate, and nothing can agree with them more closely.
    """
    c, T, eps = config or ref.config, len(ref.tokens), np.finfo(np.float64).eps
    af2 = ref.attention_factor**2
    # An angle is known to eps times its size, and so is each term's cosine: layer 0 turns by
    # up to (offset + T) theta_i, layer 1 by up to T theta_i, and every theta_i is at most 1
    # (theta_0 = 1, and a scaling never speeds a pair up). One computation may form the angle
    # (n - m + offset) theta_i as one number, another turn twice, and agree only to this.
    turn0, turn1 = 1 + c.offset + T, 1 + T
    s0 = c.d * eps * float(np.max(np.abs(ref.scores0))) * turn0
    s1 = c.d * eps * float(np.max(np.abs(ref.scores1))) * turn1 + c.beta * af2 * 2 * s0
    logits = c.d * eps * float(np.max(np.abs(ref.logits))) + c.gamma * 2 * s1
    return {"scores0": s0, "A0": 2 * s0, "scores1": s1, "A1": 2 * s1, "probs": 2 * logits}
