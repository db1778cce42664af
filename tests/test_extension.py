"""Context extension: the fast paths against forward, and the page's numbers recomputed.

The page (docs/paper-to-code/context-extension.md) reads its numbers from
rope_explained.figures.paper_to_code.context_extension, which computes them through
rope_explained.extension (a distance kernel and an FFT for layer 0). Here they are computed
again another way: through predict_last and forward (which hold layer 0 as rows of a pattern),
or from the formulas in numpy.
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path

import numpy as np
import pytest
from configs import configs, rounding_bound
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pages import value

from rope_explained import extension as X
from rope_explained import hf
from rope_explained.embedding import VOCAB
from rope_explained.figures.paper_to_code import context_extension as page
from rope_explained.model import Config, forward, predict_last, rope_frequencies
from rope_explained.rope import frequencies, scaled_frequencies

L = page.L
ROOT = Path(__file__).resolve().parent.parent
SETTINGS = [
    {},
    {"scaling": "linear", "factor": 2.0, "original_max_position": 64},
    {"scaling": "ntk", "factor": 4.0, "original_max_position": 64},
    {"scaling": "dynamic-ntk", "factor": 4.0, "original_max_position": 64},
    {"scaling": "yarn", "factor": 8.0, "original_max_position": 64},
    {"scaling": "llama3", "factor": 8.0, "original_max_position": 64},
    {"unrotated_fast": 2},
    {"unrotated_slow": 3, "scaling": "yarn", "factor": 2.0, "original_max_position": 32},
    {"layer1_rotary": False},
    {"layout": "half", "rotary_pct": 0.5, "alpha": 3.0},
]


@functools.cache
def last(text: str, items: tuple) -> object:
    return predict_last(text, **dict(items))


# --- the prediction paths agree -------------------------------------------------------------


@pytest.mark.parametrize("config", SETTINGS, ids=lambda c: ",".join(map(str, c.values())) or "none")
def test_fast_paths_agree_with_forward(config):
    texts = [p.text for p in X.distance_prompts(150, n=2, seed=3)]
    probs, A1 = X.predict_last_many(texts, **config)
    previous, back = X.previous_token_profile(len(texts[0]) + 1, **config)
    for p, text in enumerate(texts):
        tr = forward(text, **config)
        lp = predict_last(text, **config)
        # predict_last against forward, to 1e-12
        np.testing.assert_allclose(lp.probs, tr.probs[-1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(lp.attention1, tr.A1[-1], rtol=0, atol=1e-12)
        T = len(tr.tokens)
        np.testing.assert_allclose(
            lp.previous, tr.A0[np.arange(1, T), np.arange(T - 1)], atol=1e-12
        )
        np.testing.assert_array_equal(lp.peak, np.argmax(tr.A0, axis=1))
        # the kernel path against both
        np.testing.assert_allclose(probs[p], tr.probs[-1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(A1[p], tr.A1[-1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(previous, lp.previous, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(back, np.arange(T) - lp.peak)


@pytest.mark.parametrize("config", SETTINGS, ids=lambda c: ",".join(map(str, c.values())) or "none")
def test_given_frequencies_are_the_configured_ones(config):
    """predict_last_at with the frequencies a setting gives is that setting's prediction, and
    its layer-0 weight one step back is the last query's."""
    texts = [p.text for p in X.distance_prompts(150, n=2, seed=3)]
    T = len(texts[0]) + 1
    cfg = Config(**config)
    theta, af = rope_frequencies(cfg, T)
    bare = {
        k: v
        for k, v in config.items()
        if k
        not in ("scaling", "factor", "original_max_position", "unrotated_fast", "unrotated_slow")
    }
    probs, A1 = X.predict_last_many(texts, **config)
    got, got_A1, previous = X.predict_last_at(texts, theta, af, **bare)
    np.testing.assert_allclose(got, probs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_A1, A1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(previous, predict_last(texts[0], **config).previous[-1], atol=1e-12)


def test_kernel_path_agrees_with_predict_last_past_the_original_context():
    """At 1,200 letters every method of the page scales (dynamic NTK too: 1,201 > L)."""
    texts = [p.text for p in X.distance_prompts(1200, n=1, seed=5)]
    for method in ("dynamic-ntk", "yarn"):
        cfg = page.settings(method, 4.0)
        probs, A1 = X.predict_last_many(texts, **cfg)
        for p, text in enumerate(texts):
            lp = last(text, tuple(cfg.items()))
            np.testing.assert_allclose(probs[p], lp.probs, rtol=0, atol=1e-12)
            np.testing.assert_allclose(A1[p], lp.attention1, rtol=0, atol=1e-12)


def test_layer0_kernel_is_the_sum_of_cosines():
    """f(delta) = kappa^2 alpha sum_i cos(delta theta'_i - theta_i), from the frequencies."""
    cfg = Config()
    theta = frequencies(cfg.d, cfg.base)
    for method in (None, *page.METHODS):
        settings = page.settings(method, 4.0)
        T = 3000
        if method is None:
            new, kappa = theta, 1.0
        else:
            new, kappa = scaled_frequencies(
                cfg.d, method=method, factor=4.0, original_max_position=L, seq_len=T
            )
        delta = np.arange(T)[:, None]
        want = kappa**2 * cfg.alpha * np.cos(delta * new - theta).sum(axis=1)
        np.testing.assert_allclose(X.layer0_kernel(T, **settings), want, rtol=0, atol=1e-9)


# --- section 1: the horizon -----------------------------------------------------------------


def test_predicted_horizon_from_the_formula():
    theta_last = 10000.0 ** (-62 / 64)
    assert value("ctx-predicted-horizon") == f"{math.pi / 26 / theta_last:.0f}"
    # the induction-head page's number, computed there by another function
    assert value("ctx-predicted-horizon") == value("layer1-distance-limit").replace(",", "")
    # no turn, no predicted failure
    assert X.predicted_horizon(layer1_rotary=False) is None
    assert X.predicted_horizon(unrotated_slow=1) is None


def test_measured_horizon_through_predict_last():
    D, curve = page.distances(), page.study()["rows"][None, None]["curve"]
    reached = int(value("ctx-measured-horizon").replace(",", ""))
    first_failure = int(value("ctx-first-failure").replace(",", ""))
    assert D[D.index(reached) + 1] == first_failure
    for g, ok in ((reached, True), (first_failure, False)):
        prompts = X.distance_prompts(g, page.PER_DISTANCE, page.SEED)
        hits = [last(p.text, ()).prediction == p.answer for p in prompts]
        assert bool(np.mean(hits) >= 0.5) is ok
    # "right up to the horizon, nearly none from the next sampled distance on"
    assert np.all(curve[: D.index(reached) + 1] == 1.0)
    assert np.all(curve[D.index(first_failure) :] <= 1 / 3)


# --- section 2 and 4: the methods -----------------------------------------------------------


def _numpy_previous(method, s, T=page.PREVIOUS_AT):
    """Layer 0's last row from the sum of cosines, softmax in numpy."""
    cfg = Config()
    theta = frequencies(cfg.d, cfg.base)
    if method is None:
        new, kappa = theta, 1.0
    else:
        new, kappa = scaled_frequencies(
            cfg.d, method=method, factor=s, original_max_position=L, seq_len=T
        )
    f = kappa**2 * cfg.alpha * np.cos(np.arange(T)[:, None] * new - theta).sum(axis=1)
    w = np.exp(f - f.max())
    return w[1] / w.sum(), int(np.flatnonzero(f == f.max()).max())  # ties: the earliest key


@pytest.mark.parametrize("method", [None, *page.METHODS])
def test_table_previous_token_columns(method):
    for s in (None,) if method is None else page.FACTORS:
        name = "none-0" if method is None else f"{method}-{s:g}"
        weight, back = _numpy_previous(method, s)
        assert value(f"ctx-cell-{name}-previous") == f"{weight:.3f}"
        assert value(f"ctx-cell-{name}-back") == str(back)
        # the page: linear looks s steps back, every other method one step
        assert back == (int(s) if method == "linear" else 1)


@pytest.mark.parametrize(
    "method, s, column", [("yarn", 4.0, 0), ("linear", 2.0, 0), ("llama3", 2.0, 0)]
)
def test_table_accuracies_through_predict_last(method, s, column):
    g = page.table_distances()[column]
    cfg = page.settings(method, s)
    prompts = X.distance_prompts(g, page.PER_DISTANCE, page.SEED)
    acc = np.mean([last(p.text, tuple(cfg.items())).prediction == p.answer for p in prompts])
    cell = value(f"ctx-cell-{method}-{s:g}-{('at2', 'at4')[column]}")
    assert cell == f"{acc:.2f}"


def test_table_distances_are_twice_and_four_times_the_prediction():
    h = math.pi / 26 / 10000.0 ** (-62 / 64)
    assert value("ctx-at-2x") == f"{round(2 * h):,}"
    assert value("ctx-at-4x") == f"{round(4 * h):,}"


def test_methods_that_keep_fast_pairs_fail_where_the_slowest_pair_predicts():
    """NTK-aware, YaRN and Llama 3.1: right well below s x 906, wrong from about s x 906 on;
    linear scaling wrong everywhere; horizon cells are what the curves say."""
    st = page.study()
    D = np.array(st["distances"])
    h = page.original_horizon()
    for (method, s), row in st["rows"].items():
        curve = row["curve"]
        if method in ("ntk", "yarn", "llama3"):
            assert np.all(curve[D < 0.95 * s * h] == 1.0), (method, s)  # every prompt right
            assert np.all(curve[D >= 0.99 * s * h] < 0.5), (method, s)
        if method == "linear":
            assert curve.max() <= 1 / 3
            assert value(f"ctx-cell-linear-{s:g}-horizon") == "none"
        reached = row["horizon"]
        assert reached == 0 or np.all(curve[D <= reached] >= 0.5)
        assert reached == D[-1] or curve[np.searchsorted(D, reached, side="right")] < 0.5


def test_dynamic_ntk_stumbles_just_past_the_original_context_and_recovers():
    st = page.study()
    D = st["distances"]
    g = int(value("ctx-dynamic-2-failure").replace(",", ""))
    curve = st["rows"]["dynamic-ntk", 2.0]["curve"]
    assert L < g and np.all(curve[D.index(g) + 1 :] == 1.0)
    # at that length the predicted failure point is below the text, past it above
    assert page.dynamic_horizon(2.0, np.array([g + 2]))[0] < g
    assert page.dynamic_horizon(2.0, np.array([D[D.index(g) + 1] + 2]))[0] > D[D.index(g) + 1]
    # inside L nothing changes: every factor fails where the unscaled model does
    inside = int(value("ctx-inside-distance").replace(",", ""))
    assert page.original_horizon() < inside < L
    for s in (2.0, 4.0, 8.0):
        curve = st["rows"]["dynamic-ntk", s]["curve"]
        assert curve[D.index(inside)] < 0.5
        assert value(f"ctx-cell-dynamic-ntk-{s:g}-horizon") == value("ctx-measured-horizon")
        if s > 2:  # past L, at least half right at every sampled distance
            assert np.all(curve[np.array(D) > L] >= 0.5)


def test_yarn_factor_is_a_sharpness_and_leaves_the_horizon():
    """Dividing alpha and beta by kappa^2 undoes YaRN's factor exactly; the horizon reached is
    the same without it; at the edge the factor keeps more weight on the match."""
    s = 4.0
    kappa = 0.1 * math.log(s) + 1
    assert value("ctx-yarn-factor-4") == f"{kappa**2:.2f}"
    cfg = page.settings("yarn", s)
    text = X.distance_prompts(40, 1, 0)[0].text
    undone = forward(text, **cfg, alpha=10 / kappa**2, beta=1000 / kappa**2)
    theta = frequencies(64)
    new, _ = scaled_frequencies(64, method="yarn", factor=s, original_max_position=L)
    T = len(undone.tokens)
    delta = np.arange(T)[:, None] - np.arange(T)[None, :]
    want = 10 * np.cos(delta[..., None] * new - theta).sum(axis=-1)  # no kappa
    np.testing.assert_allclose(undone.scores0, want, atol=1e-9)
    D = page.distances()
    for f in page.FACTORS:
        k2 = (0.1 * math.log(f) + 1) ** 2
        without = X.induction_curve(
            D, page.PER_DISTANCE, page.SEED, **page.settings("yarn", f), alpha=10 / k2,
            beta=1000 / k2,
        )  # fmt: skip
        assert X.horizon_reached(D, without) == page.study()["rows"]["yarn", f]["horizon"]
    with_f, without_f = page.match_weight(s, True), page.match_weight(s, False)
    edge = (without_f < 0.9) & (without_f > 0.01)
    assert edge.any() and np.all(with_f[edge] > without_f[edge])


# --- section 3: ablations -------------------------------------------------------------------


def test_stopping_fast_pairs_breaks_layer0_and_the_circuit_at_the_threshold():
    threshold = 2 / (3 - math.cos(math.pi / 13))
    assert value("ctx-ablation-threshold") == f"{threshold:.3f}"
    g = page.ABLATION_DISTANCES[0]
    prompts = X.distance_prompts(g, page.PER_DISTANCE, page.SEED)
    for k, works in ((1, True), (2, False)):
        text = "ab" * (L // 2 - 1) + "a"  # L - 1 letters: L positions, as the figure
        weight = predict_last(text, unrotated_fast=k).previous[-1]
        assert value(f"ctx-ablation-fast-{k}") == f"{weight:.3f}"
        assert bool(weight > threshold) is works
        acc = np.mean(
            [last(p.text, (("unrotated_fast", k),)).prediction == p.answer for p in prompts]
        )
        assert bool(acc == 1.0) is works and bool(acc == 0.0) is not works
    assert float(value("ctx-ablation-fast-4")) < float(value("ctx-ablation-fast-2"))
    assert page.ablation()["fast", 0][0] > 0.9995  # "falls from 1"
    # "with hundreds of keys some come close to the worst case": at k = 2 every prompt fails
    assert np.all(page.ablation()["fast", 2][1] == 0.0)


def test_stopping_slow_pairs_removes_the_horizon():
    ab = page.ablation()
    for k in page.BANDS[1:]:
        assert ab["slow", k][0] > 0.999
        assert np.all(ab["slow", k][1] == 1.0)
    g = page.ABLATION_DISTANCES[1]
    assert g > 2 * page.original_horizon()
    p = X.distance_prompts(g, 1, page.SEED)[0]
    assert last(p.text, (("unrotated_slow", 1),)).prediction == p.answer


def test_layer1_without_rope_has_no_horizon_and_no_order():
    assert float(value("ctx-norope-min")) == 1.0
    g = 2421
    for p in X.distance_prompts(g, 2, page.SEED):
        assert last(p.text, (("layer1_rotary", False),)).prediction == p.answer
    # recency: the counts the page states, through predict_last
    for far, rot, vid in (
        (800, True, "rot-800"),
        (800, False, "norot-800"),
        (400, True, "rot-400"),
    ):
        prompts = X.recency_prompts(page.RECENCY_NEAR, far, page.RECENCY_PROMPTS, page.SEED)
        c = sum(
            last(text, (("layer1_rotary", rot),)).prediction == nearer
            for text, nearer, _ in prompts
        )
        assert value(f"ctx-recency-{vid}") == str(c)
    # without RoPE the two copies nearly tie: the last query splits its weight between them
    text, _, _ = X.recency_prompts(50, 400, 1, 0)[0]
    A1 = last(text, (("layer1_rotary", False),)).attention1
    first, second = 2, 400 - 50 + 2  # keys after each earlier A (<s> is position 0)
    assert abs(A1[first] - A1[second]) < 0.01 and A1[first] + A1[second] > 0.99


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "settings, name",
    [
        ({"scaling": "ntk"}, "factor"),
        ({"scaling": "ntk", "factor": 2.0}, "original_max_position"),
        ({"scaling": "yarn", "factor": 0.5, "original_max_position": 8}, "factor"),
        ({"scaling": "yarn", "factor": float("nan"), "original_max_position": 8}, "factor"),
        ({"scaling": "linear", "factor": 2.0, "original_max_position": 0}, "original_max_position"),
        ({"scaling": "linear", "factor": 2.0, "original_max_position": 8.5}, "original_max_pos"),
        ({"factor": 2.0}, "factor"),
        ({"unrotated_fast": 33}, "unrotated_fast"),
        ({"unrotated_slow": -1}, "unrotated_slow"),
        ({"unrotated_fast": 20, "unrotated_slow": 20}, "unrotated_fast"),
        ({"layer1_rotary": "no"}, "layer1_rotary"),
    ],
)
def test_bad_settings_name_the_setting(settings, name):
    with pytest.raises(ValueError, match=name):
        Config(**settings)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: X.previous_token_profile(1), "T"),
        (lambda: X.predict_last_many(["ab", "abc"]), "texts"),
        (lambda: X.predict_last_many([]), "texts"),
        (lambda: X.distance_prompts(1), "distance"),
        (lambda: X.sweep_distances(100, 50), "high"),
        (lambda: X.induction_curve([5, 2.5]), "distances"),
        (lambda: X.horizon_reached([5, 3], [1.0, 1.0]), "increase"),
        (lambda: X.horizon_reached([3, 5], [1.0, 2.0]), "accuracy"),
        (lambda: X.recency_prompts(50, 51), "far"),
        (lambda: X.predicted_horizon(scaling="ntk"), "factor"),
        (lambda: X.predict_last_at(["ab"], np.ones(31)), "inv_freq"),
        (lambda: X.predict_last_at(["ab"], -np.ones(32)), "inv_freq"),
        (lambda: X.predict_last_at(["ab"], np.full(32, np.nan)), "inv_freq"),
        (lambda: X.predict_last_at(["ab"], np.ones(32), 0.0), "attention_factor"),
        (lambda: X.predict_last_at(["ab"], np.ones(32), unrotated_fast=1), "unrotated_fast"),
        (
            lambda: X.predict_last_at(
                ["ab"], np.ones(32), scaling="linear", factor=2.0, original_max_position=8
            ),
            "scaling",
        ),
    ],
)
def test_bad_arguments_name_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_page_values_are_the_letters_the_readout_names():
    """Sanity of the prompt generator the page describes: A first and last, B second."""
    for p in X.distance_prompts(30, 4, 1):
        assert p.text[0] == p.text[-1] and p.text.count(p.text[0]) == 2 and p.answer == p.text[1]
        assert set(p.text) <= set(VOCAB)


# --- claims the prose makes from the formulas ---------------------------------------------------


def test_score_equation_sign_and_size():
    """ctx-score: the last query's layer-1 score is beta cos(a_m - a_{n-1} + (m - n) theta_31),
    up to layer 0's leak; with the opposite sign of the distance term it is far off."""
    from rope_explained.embedding import letter_angle

    text = "qwertyuiopasdfghjklzxcvbnm" * 4 + "q"
    tr = forward(text)
    theta, beta = frequencies(64)[-1], Config().beta
    m = len(tr.tokens) - 1
    n = np.arange(2, m + 1)
    diff = np.array([letter_angle(tr.tokens[m]) - letter_angle(tr.tokens[j - 1]) for j in n])
    err = np.abs(tr.scores1[m, n] - beta * np.cos(diff + (m - n) * theta)).max()
    wrong = np.abs(tr.scores1[m, n] - beta * np.cos(diff - (m - n) * theta)).max()
    assert err < 0.1 < 10 < wrong


def test_fine_edge_lies_a_little_before_the_prediction():
    right, wrong = (int(value(f"ctx-fine-{w}").replace(",", "")) for w in ("right", "wrong"))
    assert wrong - right == page.FINE_STEP
    h = page.original_horizon()
    assert 0.9 * h < right < wrong < h  # "a little before the prediction"
    # between the sampled distances that bracket it
    assert int(value("ctx-measured-horizon")) < right and wrong < int(
        value("ctx-first-failure").replace(",", "")
    )
    # recomputed: at least half right at `right`, and below half at `wrong`, and from `wrong`
    # to the end of the fine grid never back to half or more at two distances running
    for g, ok in ((right, True), (wrong, False)):
        texts = [p.text for p in X.distance_prompts(g, page.FINE_PROMPTS, page.FINE_SEED)]
        probs, _ = X.predict_last_many(texts)
        hits = [VOCAB[int(i)] == t[1] for i, t in zip(probs.argmax(axis=1), texts, strict=True)]
        assert bool(np.mean(hits) >= 0.5) is ok


def test_dynamic_ntk_crossings_and_the_distance_past_L():
    """The text length at which dynamic NTK's predicted failure point first exceeds the distance
    between the prompt's A's, l - 2 (the page's criterion), from the closed form
    h (s l / L - s + 1) > l - 2, and the prompts right at the first sampled distance past L
    (recomputed through predict_last at s = 4)."""
    h = math.pi / 26 / 10000.0 ** (-62 / 64)
    for s in page.FACTORS:
        want = math.floor((h * (s - 1) - 2) / (h * s / L - 1)) + 1  # smallest l strictly above
        assert value(f"ctx-dynamic-cross-{s:g}") == f"{want:,}"
        # the figure's grey line and the crossing use the same criterion
        assert page.completes(s, want) and not page.completes(s, want - 1)
        assert page.dynamic_horizon(s, np.array([want]))[0] > want - 2
    crossings = [int(value(f"ctx-dynamic-cross-{s:g}").replace(",", "")) for s in page.FACTORS]
    assert L < crossings[2] < crossings[1] < crossings[0]  # longest at s = 2
    g = int(value("ctx-dynamic-2-failure").replace(",", ""))
    st = page.study()
    D = st["distances"]
    assert g == min(d for d in D if d > L)
    right = [int(value(f"ctx-dynamic-past-{s:g}")) for s in page.FACTORS]
    assert right[0] == 0 and 0 < right[1] < page.PER_DISTANCE and right[2] == page.PER_DISTANCE
    cfg = page.settings("dynamic-ntk", 4.0)
    prompts = X.distance_prompts(g, page.PER_DISTANCE, page.SEED)
    assert right[1] == sum(last(p.text, tuple(cfg.items())).prediction == p.answer for p in prompts)
    for s in page.FACTORS:  # "from the next sampled distance on it gets every prompt right"
        assert np.all(st["rows"]["dynamic-ntk", s]["curve"][D.index(g) + 1 :] == 1.0)


def test_pairs_each_method_keeps_and_divides():
    """YaRN's code ramp and Llama 3.1's thresholds at L = 1024, from their formulas."""
    d, b = 64, 10000.0
    theta = frequencies(d, b)

    def correction_dim(r):  # the pair index at which the pair turns r times over L
        return d * math.log(L / (r * 2 * math.pi)) / (2 * math.log(b))

    assert value("ctx-kept-yarn") == str(math.floor(correction_dim(32)) + 1)
    assert value("ctx-full-yarn") == str(math.ceil(correction_dim(1)))
    wavelength = 2 * math.pi / theta
    assert value("ctx-kept-llama3") == str(int(np.sum(wavelength < L / 4)))
    assert page.interpolated_from("llama3") == int(np.argmax(wavelength > L))
    assert page.kept_pairs("ntk") == 1
    assert value("ctx-slowest-turns") == f"{L * theta[-1] / (2 * math.pi):.2f}"
    assert abs(int(value("ctx-slowest-wavelength").replace(",", "")) - wavelength[-1]) <= 500


def test_yarn_factor_is_the_same_as_scaling_alpha_and_beta():
    """Both heads' query weights are linear in their sharpness, so kappa^2 on the scores is
    kappa^2 alpha and kappa^2 beta."""
    from rope_explained.model import build_weights

    W1, W2 = build_weights(Config()), build_weights(Config(alpha=30.0, beta=3000.0))
    np.testing.assert_allclose(W2.L0.W_q, 3 * W1.L0.W_q, rtol=1e-14, atol=0)
    np.testing.assert_allclose(W2.L1.W_q, 3 * W1.L1.W_q, rtol=1e-14, atol=0)
    np.testing.assert_array_equal(W2.L0.W_k, W1.L0.W_k)
    np.testing.assert_array_equal(W2.L1.W_k, W1.L1.W_k)


def test_recency_gap_is_the_attention_ratio():
    """The two copies' keys differ in score by about the stated gap: the log of the ratio of
    their attention weights, through predict_last."""
    theta, beta = frequencies(64)[-1], Config().beta
    near, far = page.RECENCY_NEAR, 400
    gap = beta * (math.cos((near - 1) * theta) - math.cos((far - 1) * theta))
    assert value("ctx-recency-gap-400") == f"{gap:.1f}"
    text, _, _ = X.recency_prompts(near, far, 1, page.SEED)[0]
    A1 = last(text, ()).attention1
    assert abs(math.log(A1[far - near + 2] / A1[2]) - gap) < 0.1


def test_playground_methods_keep_the_fast_pairs_nearly_as_built():
    """The playground's 'Stretch the context': at its starting factor and L, on its 4,096-letter
    prompt, every method but linear leaves pair 0 as built and slows the next fast pairs far
    less than linear scaling's factor."""
    from rope_explained.examples import FACTOR, LONG_MODE_PROMPT, ORIGINAL_MAX_POSITION
    from rope_explained.model import rope_frequencies
    from rope_explained.rope import SCALING_METHODS

    T = len(LONG_MODE_PROMPT) + 1
    theta = frequencies(64)
    for method in SCALING_METHODS:
        cfg = Config(scaling=method, factor=FACTOR, original_max_position=ORIGINAL_MAX_POSITION)
        slowed = theta / rope_frequencies(cfg, T)[0]
        if method == "linear":
            np.testing.assert_allclose(slowed, FACTOR)
        else:
            assert slowed[0] == 1.0 and np.all(slowed[1:6] < FACTOR / 2), method


FFT_TOL = 1e-10


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=configs(),
    length=st.integers(1, 300),
    seed=st.integers(0, 2**32 - 1),
)
def test_kernel_path_is_forwards_last_row_over_every_setting(config, length, seed):
    """predict_last_many (the distance kernel and the FFT) against forward_tokens (through
    forward) over every setting of Config, on two random texts of one length: to FFT_TOL, or to
    the rounding bound of forward's own numbers where that is larger (tests/configs.py). The
    FFT rounds each row's sum against the row's total, so near the sharpness limits (1e5 and
    more) the difference grows to about 2e-7, still far below that bound."""
    rng = np.random.default_rng(seed)
    texts = ["".join(rng.choice(list("abcdefghij"), size=length)) for _ in range(2)]
    probs, A1 = X.predict_last_many(texts, **config)
    for p, text in enumerate(texts):
        tr = forward(text, **config)
        bound = rounding_bound(tr)
        # FFT_TOL: the FFT's own rounding, which grows like n log2(n) eps of a row's largest
        # term (5e-13 at 300 letters; up to 1.3e-12 seen), with a margin
        np.testing.assert_allclose(
            probs[p], tr.probs[-1], rtol=0, atol=max(FFT_TOL, bound["probs"])
        )
        np.testing.assert_allclose(A1[p], tr.A1[-1], rtol=0, atol=max(FFT_TOL, bound["A1"]))


@pytest.mark.parametrize("s", page.FACTORS)
def test_linear_scaling_flattens_layer0_rather_than_shifting_it(s):
    """The page: under linear scaling layer 0's peak moves s steps back but its lead over the
    neighbours shrinks roughly by s^2, its weight there is far below the weight the circuit
    needs, and the model seldom predicts the letter s places after the first A. The weights
    from the sum of cosines in numpy; the lead's ratio bounded by (1 - cos x)/x^2 falling on
    [0, pi] (so the ratio lies between s^2 (1 - cos 1)/(1/2) and s^2); the counts through
    predict_last at the three shortest distances."""
    cfg = Config()
    theta = frequencies(cfg.d, cfg.base)
    k = int(s)
    delta = np.arange(page.PREVIOUS_AT)
    f = cfg.alpha * np.cos(delta[:, None] * theta / s - theta).sum(axis=1)
    w = np.exp(f - f.max())
    w /= w.sum()
    assert int(np.argmax(w)) == k
    assert value(f"ctx-linear-peak-{k}") == f"{w[k]:.3f}"
    assert value(f"ctx-linear-side-{k}") == f"{max(w[k - 1], w[k + 1]):.3f}"
    threshold = float(value("ctx-ablation-threshold"))
    assert w[k] < threshold and w[k] < 0.9  # "far below" the weight the circuit needs
    f0 = cfg.alpha * np.cos(delta[:3, None] * theta - theta).sum(axis=1)
    shrink = (f0[1] - f0[0]) / (f[k] - f[k - 1])
    assert float(value(f"ctx-linear-shrink-{k}")) == pytest.approx(shrink, abs=0.051)
    assert 2 * (1 - math.cos(1.0)) * s**2 < shrink <= s**2  # "roughly by s^2"
    shifted, right, total = page.linear_copies(s)
    assert total == int(value("ctx-linear-prompts")) == page.LINEAR_SHORTEST * page.PER_DISTANCE
    D = page.distances()
    assert value("ctx-linear-first") == f"{D[0]:,}"
    assert value("ctx-linear-shortest") == f"{D[page.LINEAR_SHORTEST - 1]:,}"
    assert shifted < total / 4 and right < total / 4  # neither the shifted letter nor B
    # predict_last (forward's rows) agrees with the fast path on the three shortest distances
    cfg_items = tuple(page.settings("linear", s).items())
    fast = slow = 0
    for g in page.distances()[:3]:
        prompts = X.distance_prompts(g, page.PER_DISTANCE, page.SEED)
        probs, _ = X.predict_last_many([p.text for p in prompts], **dict(cfg_items))
        for p, i in zip(prompts, probs.argmax(axis=1), strict=True):
            fast += VOCAB[int(i)] == p.text[k]
            slow += last(p.text, cfg_items).prediction == p.text[k]
    assert fast == slow <= shifted


def test_the_page_lists_every_refusal_once_in_order():
    """The section on what from_config refuses prints every entry of hf.REFUSED, and its
    stated count is that number."""
    text = (ROOT / "docs" / "paper-to-code" / "context-extension.md").read_text()
    listed = [int(i) for i in re.findall(r'\{\{ value\("ctx-refused-(\d+)"\) \}\}', text)]
    assert listed == list(range(len(hf.REFUSED)))
    assert value("ctx-refused-count") == str(len(hf.REFUSED))
    for i, name in enumerate(hf.REFUSED):
        assert value(f"ctx-refused-{i}") == f"**{name}**: {hf.REFUSED[name]}"
