"""The numbers the pages state, and the claims the pages make about them.

A page never types a number the package computes: it writes a ``{{ value("id") }}`` macro, and
the build fills in the text of the value function registered under that id
(``rope_explained.figures``). So this file checks three things, and never the pages' wording:

* **Structure.** Every macro on a page (or in the caption or alt text of one of its figures)
  names a registered value of that page's own module, and every registered value is stated on
  its page.
* **Values.** Every value function returns one line that parses, and agrees with an
  independent computation (another route through the package, or the formula the page gives)
  to the last digit it prints.
* **Claims.** What the prose says about the numbers ("near certainty", "almost half", "the
  same probability", "no offset comes closer", "every query ranks the keys the same way") is
  tested as a property of the package, with an assertion that fails if the claim is false.
"""

from __future__ import annotations

import dataclasses
import re

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import numpy as np
import pytest
from pages import (  # noqa: F401  (shared with the other page tests)
    DOCS,
    MARKDOWN_PAGES,
    NOTEBOOK_PAGES,
    ROOT,
    VALUES,
    agrees,
    induction_target,
    last_digit,
    number,
    page_index,
    previous_row_weights,
    value,
    value_kwargs,
)

from rope_explained import figures
from rope_explained.embedding import (
    BOS,
    VOCAB,
    embed_index,
    embedding_matrix,
    letter_angle,
    plane_basis,
    plane_reader,
)
from rope_explained.examples import FORWARD_PASS_PROMPT, LONG_PROMPT
from rope_explained.experiments import (
    induction_prompts,
    pair_horizons,
    previous_token_experiment,
    previous_token_scores,
    semantic_head_inputs,
    semantic_recency,
)
from rope_explained.model import Config, forward
from rope_explained.rope import apply_rope, frequencies, rotation_matrix
from rope_explained.sources import source_link

# --- structure: every macro names a value of its page, every value is stated -----------------


@pytest.mark.parametrize("src", MARKDOWN_PAGES)
def test_a_page_states_only_values_of_its_own_module(src):
    index = page_index(src)
    for value_id, where in index.values.items():
        assert value_id in VALUES, f"{where}: unknown value {value_id!r}"
        assert VALUES[value_id].page == hooklib.page_stem(src), (where, VALUES[value_id].page)


@pytest.mark.parametrize("src", NOTEBOOK_PAGES)
def test_a_notebook_states_values_in_figure_texts_only(src):
    """A notebook's cells cannot hold macros (its .ipynb download stays plain): its own cells
    print their numbers; only the captions and alt texts of its figures state values."""
    assert "{{ value(" not in (DOCS / src).read_text(encoding="utf-8")
    test_a_page_states_only_values_of_its_own_module(src)


def test_every_value_is_stated_on_its_page():
    stated = {v for src in MARKDOWN_PAGES + NOTEBOOK_PAGES for v in page_index(src).values}
    assert sorted(set(VALUES) - stated) == []


@pytest.mark.parametrize("value_id", sorted(VALUES))
def test_every_value_is_one_line_that_parses(value_id):
    text = value(value_id)
    assert text == text.strip() and "\n" not in text and "{{" not in text
    if value_id.endswith("-prediction") or "-prediction-" in value_id:
        assert text in VOCAB
    elif value_id.startswith("ctx-cell-") and value_id.endswith("-horizon"):
        assert re.fullmatch(r"none|\d{1,3}(,\d{3})*\+?", text)  # the table's notation
    elif value_id.startswith("embedding-slot-"):
        assert re.fullmatch(r"\d+(–\d+)?", text)
    elif value_id == "ctx-rope-types":  # names as code, comma-separated
        assert re.fullmatch(r"`[a-z0-9]+`(, `[a-z0-9]+`)+", text)
    elif re.fullmatch(r"ctx-refused-\d+", value_id):  # a name in bold, then its sentence
        assert re.fullmatch(r"\*\*[^*]+\*\*: [^*`]+", text)
    elif "-src-" in value_id:  # a cited source: the link at the pinned version (test_sources.py)
        assert text == source_link(value_id.split("-src-", 1)[1])
    elif "–" in text:  # a range (over seeds, say): two numbers, the lower first
        lo, hi = map(number, text.split("–"))
        assert lo < hi
    elif " and " in text:  # a list of integers: "3 and 4", "0, 1 and 4"
        assert re.fullmatch(r"\d+(, \d+)* and \d+", text)
    else:
        assert np.isfinite(number(text))


def test_value_ids_and_functions_follow_the_registry_rules(monkeypatch):
    monkeypatch.setattr(figures, "VALUES", dict(figures.VALUES))

    def f(x: int = 1) -> str:
        return str(x)

    with pytest.raises(ValueError, match="live under"):  # not in a figure module
        figures.value("fine-id")(f)
    f.__module__ = "rope_explained.figures.home"
    for bad in ("Bad_Id", "a b", "-a", ""):
        with pytest.raises(ValueError, match="kebab-case"):
            figures.value(bad)
    with pytest.raises(ValueError, match="already the id of a figure"):
        figures.value("home-circuit")(f)
    with pytest.raises(ValueError, match="cannot take"):
        figures.value("fine-id", y=2)(f)

    def g(x, /) -> str:
        return str(x)

    g.__module__ = f.__module__
    with pytest.raises(ValueError, match="keyword arguments only"):
        figures.value("fine-id")(g)
    figures.value("fine-id", x=3)(f)
    spec = figures.get_value("fine-id")
    assert spec.page == "index" and spec.compute() == "3"
    for bad_text in (3, "", "two\nlines"):
        h = dataclasses.replace(spec, func=lambda bad_text=bad_text, **_: bad_text)
        with pytest.raises(TypeError, match="one-line str"):
            h.compute()
    with pytest.raises(ValueError, match="unknown value_id 'fine-ld'; did you mean 'fine-id'"):
        figures.get_value("fine-ld")


# --- forward-pass/index.md and the home page -------------------------------------------------


def test_forward_pass_layer0_values_and_claims():
    tr = forward(FORWARD_PASS_PROMPT)
    cfg, T = tr.config, len(tr.tokens)
    rows = np.arange(1, T)
    # "the best score in each row is exactly alpha d/2, on the key one step back"
    assert np.all(np.argmax(np.where(tr.mask, tr.scores0, -np.inf)[1:], axis=1) == rows - 1)
    assert np.all(tr.scores0[rows, rows - 1] == pytest.approx(cfg.alpha * cfg.d / 2, abs=1e-9))
    assert value("fp-best-score") == f"{cfg.alpha * cfg.d / 2:.0f}"
    # "the keys on either side reach <side>": the query's own key and the key two back
    side = cfg.alpha * previous_token_scores(np.array([1.0]), d=cfg.d)[0]
    assert np.allclose(tr.scores0[rows, rows], side)
    assert np.allclose(tr.scores0[rows[1:], rows[1:] - 2], side)
    agrees("fp-side-score", side)
    agrees("fp-score-lead", cfg.alpha * cfg.d / 2 - side)
    # "and the scores keep falling with distance": the nearest offsets in order, and no key
    # farther away comes back up to the neighbours
    for m in rows:
        dist = np.abs(np.arange(m + 1) - (m - 1))
        row = tr.scores0[m, : m + 1]
        near = [row[dist == k].max() for k in range(min(5, dist.max() + 1))]
        assert all(a > b for a, b in zip(near, near[1:], strict=False))
        assert np.all(row[dist >= 2] < side - 1)
    # "every diagonal of the triangle carries a single value"
    for k in range(T):
        assert np.ptp(np.diagonal(tr.scores0, offset=-k)) < 1e-9
    # "at least <min> of its weight on position m - 1" (near certainty)
    weights = np.array([previous_row_weights(m, cfg.alpha)[m - 1] for m in rows])
    agrees("fp-min-previous-weight", weights.min(), "down")
    assert np.allclose(tr.A0[rows, rows - 1], weights)
    assert number(value("fp-min-previous-weight")) > 0.9999
    assert tr.A0[0, 0] == 1.0  # the start token attends to itself


def test_forward_pass_induction_values_and_claims():
    tr = forward(FORWARD_PASS_PROMPT)
    n = induction_target(FORWARD_PASS_PROMPT)
    # the last row puts its weight on the key after the first copy of its letter
    assert int(np.argmax(tr.A1[-1])) == n
    agrees("fp-induction-weight", tr.A1[-1, n])
    assert tr.A1[-1, n] > 0.999
    # the rows of the second "h" and "e" do the same one step earlier
    assert int(np.argmax(tr.A1[-2])) == n - 1 and tr.A1[-2, n - 1] > 0.9995
    assert int(np.argmax(tr.A1[-3])) == n - 2 and tr.A1[-3, n - 2] > 0.9995
    # the prediction is the letter the induction head should copy
    target = FORWARD_PASS_PROMPT[n - 1]
    assert tr.prediction == target
    p = dict(zip(tr.vocab, tr.probs[-1], strict=True))
    agrees("fp-top-probability", p[target])
    # the rest goes to the two neighbours on the letter circle, the same to each
    i = VOCAB.index(target)
    neighbours = [VOCAB[(i - 1) % 26], VOCAB[(i + 1) % 26]]
    for v in neighbours:
        agrees("fp-neighbour-probability", p[v])
    assert 1 - p[target] - sum(p[v] for v in neighbours) < 1e-3


def test_forward_pass_unseen_last_letter():
    prompt = value_kwargs("fp-unseen-prediction")["text"]
    assert prompt[:-1] == FORWARD_PASS_PROMPT[:-1] and prompt[-1] not in prompt[:-1]
    tr = forward(prompt)
    assert value("fp-unseen-prediction") == tr.prediction
    agrees("fp-unseen-top-probability", tr.probs[-1].max())
    # "with the same probability" as the induction case
    assert value("fp-unseen-top-probability") == value("fp-top-probability")


def test_forward_pass_induction_rows_find_their_matches():
    """Step 9 and the home figure: a row whose letter occurred before puts its weight on the keys
    that follow the earlier copies (shared when there are several); other rows have no match."""
    tr = forward(FORWARD_PASS_PROMPT)
    toks = tr.tokens
    for m in range(1, len(toks)):
        matches = [n for n in range(1, m + 1) if toks[n - 1] == toks[m]]
        seen_before = toks[m] in toks[1:m]
        assert bool(matches) == seen_before
        if len(matches) == 1:
            assert tr.A1[m, matches[0]] > 0.999
        elif matches:
            assert tr.A1[m, matches].sum() > 0.99
            assert tr.A1[m, matches].max() < 0.9  # really shared, not one winner


def test_forward_pass_pages_show_one_prompt():
    """The eleven panels and the home page's circuit all read the same forward pass."""
    for fig_id, spec in figures.REGISTRY.items():
        if spec.page in ("forward-pass", "index"):
            assert spec.kwargs == {"text": FORWARD_PASS_PROMPT}, fig_id


def test_home_page_circuit_story():
    """The last letter looks at the key after its earlier copy, which holds the answer and
    remembers, through layer 0, the letter before it: the last letter itself."""
    tr = forward(FORWARD_PASS_PROMPT)
    n = induction_target(FORWARD_PASS_PROMPT)
    assert int(np.argmax(tr.A1[-1])) == n and tr.tokens[n] == tr.prediction
    assert int(np.argmax(tr.A0[n])) == n - 1 and tr.tokens[n - 1] == tr.tokens[-1]
    # the only such key: no other key's previous letter is the last letter
    assert [k for k in range(1, len(tr.tokens) - 1) if tr.tokens[k - 1] == tr.tokens[-1]] == [n]


# --- equations/token-embedding.md ----------------------------------------------------------------


def test_embedding_period_26():
    k = np.arange(-30, 60)
    assert np.allclose(embed_index(k + 26, 64), embed_index(k, 64), atol=1e-12)
    # 26 distinct vectors, one per letter; index 26 and 52 return to the vector of "a"
    E = embedding_matrix(64)
    dist = np.linalg.norm(E[:, None, :] - E[None, :, :], axis=-1)
    assert dist[~np.eye(len(E), dtype=bool)].min() > 0.5
    ks = np.arange(1, 79)
    back = ks[np.linalg.norm(embed_index(ks, 64) - embed_index(0, 64), axis=1) < 1e-12]
    assert back.tolist() == [26, 52, 78]


def test_embedding_singular_values():
    E = embedding_matrix(64)
    eig = np.sort(np.linalg.eigvalsh(E @ E.T))[::-1]  # squares of the singular values
    agrees("embedding-sigma-1", np.sqrt(eig[0]))
    agrees("embedding-sigma-2", np.sqrt(eig[1]))
    s = np.linalg.svd(E, compute_uv=False)
    bound = number(value("embedding-rounding-bound"))
    # "the other 24 are below 10^e, which is floating-point rounding": every one is below the
    # stated bound, which is itself rounding-sized (under numpy's rank threshold)
    tol = s.max() * max(E.shape) * np.finfo(E.dtype).eps
    assert s.size == 26 and np.all(s[2:] < bound) and bound < tol and s[1] > 1.0
    for d in (2, 4, 16, 64, 256):  # "the rank of E is 2 for every d >= 2"
        assert np.linalg.matrix_rank(embedding_matrix(d)) == 2


def test_embedding_plane_and_similarity():
    E, B, P = embedding_matrix(64), plane_basis(64), plane_reader(64)
    a = np.array([letter_angle(t) for t in VOCAB])
    # E[t] = 1/2 (cos a_t S + sin a_t C), and P reads (cos a_t, sin a_t)
    assert np.allclose(E, 0.5 * (np.cos(a)[:, None] * B[0] + np.sin(a)[:, None] * B[1]))
    assert np.allclose(E @ P.T, np.stack([np.cos(a), np.sin(a)], axis=1))
    assert np.allclose(P @ B.T, 2 * np.eye(2))
    agrees("embedding-neighbour-cosine", np.cos(np.pi / 13))
    assert np.allclose(E[VOCAB.index("n")], -E[0], atol=1e-15)  # "n" is exactly -E[a]
    # the raw cosine similarity strays from cos(a_s - a_t) by a real but small amount
    n = np.linalg.norm(E, axis=1)
    dev = np.abs((E @ E.T) / np.outer(n, n) - np.cos(a[:, None] - a[None, :])).max()
    agrees("embedding-similarity-deviation", dev, "up")
    assert 0.001 < dev and number(value("embedding-similarity-deviation")) <= 0.05
    # |S| and |C| from their definitions S_j = sin(0.1 j), C_j = cos(0.1 j)
    j = np.arange(64)
    agrees("embedding-norm-s", np.sqrt(np.sum(np.sin(0.1 * j) ** 2)))
    agrees("embedding-norm-c", np.sqrt(np.sum(np.cos(0.1 * j) ** 2)))
    # "not quite orthogonal and not quite equal in length"
    assert 0 < abs(B[0] @ B[1]) < 0.2 * np.linalg.norm(B[0]) ** 2
    assert value("embedding-norm-s") != value("embedding-norm-c")


# --- equations/rope.md ----------------------------------------------------------------------------


def test_rope_frequency_schedule():
    d = 64
    theta = frequencies(d)
    agrees("rope-frequency-ratio", 10000 ** (2 / d))
    assert np.allclose(theta[:-1] / theta[1:], 10000 ** (2 / d))  # a geometric sequence
    agrees("rope-slowest-frequency", 10000 ** (-(d - 2) / d))
    assert np.allclose(theta[:-8] / theta[8:], 10.0)  # eight pairs down: ten times slower
    agrees("rope-fastest-wavelength", 2 * np.pi)
    agrees("rope-fastest-wavelength-short", 2 * np.pi)
    agrees("rope-slowest-wavelength", 2 * np.pi * 10000 ** ((d - 2) / d))
    assert value("rope-slowest-wavelength").replace("{,}", ",") == value(
        "rope-slowest-wavelength-text"
    )
    # "Pair 0 has gone round almost four times after 24 positions, pair 31 has hardly moved"
    m_max = figures.get("rope-turning").kwargs["m_max"]
    assert 3.5 < m_max * theta[0] / (2 * np.pi) < 4.0
    assert m_max * theta[-1] < 0.01
    # "Base 100 makes the slowest pair repeat after a few hundred positions"
    assert 200 < 2 * np.pi / frequencies(d, 100.0)[-1] < 1000


def test_rope_aliasing_and_runner_up():
    from rope_explained.heads import constant_key_vector

    d = 64
    c = constant_key_vector(d)
    period = figures.get("rope-aliasing").kwargs["period"]
    delta = np.arange(0, 4 * period + 1, dtype=float)
    same = np.full(d // 2, 2 * np.pi / period)
    score = apply_rope(np.tile(c, (delta.size, 1)), delta, inv_freq=same) @ c
    assert np.allclose(score, d / 2 * np.cos(delta * 2 * np.pi / period))  # the equation
    assert np.isclose(score[period], d / 2) and np.isclose(score[0], d / 2)
    # the RoPE spectrum: the maximum at 0 only, the runner-up at Delta = 1
    runner_up = np.cos(frequencies(d)).mean()
    agrees("rope-runner-up-score", runner_up)
    K = apply_rope(np.tile(c, (51, 1)), np.arange(51.0))
    assert np.allclose(K @ c / (d / 2), np.cos(np.arange(51.0)[:, None] * frequencies(d)).mean(1))


def test_no_offset_comes_closer_than_the_neighbours():
    """RoPE page: "no offset from 1 to 20,000 comes closer"; layer-0 page: "over the first 10^5
    offsets no Delta != 0 comes closer to 32 than Delta = +-1"."""
    side = previous_token_scores(np.array([1.0]))[0]
    assert side < 32 - 1
    for start in range(2, 100_001, 20_000):
        far = previous_token_scores(np.arange(start, min(start + 20_000, 100_001), dtype=float))
        assert far.max() < side


def test_rope_identities_hold():
    equations = page_index("equations/rope.md").equations
    for label in ("norm-preservation", "rotation-sum", "composition", "relative-score",
                  "layout-permutation"):  # fmt: skip
        assert label in equations
    d = 16
    rng = np.random.default_rng(1)
    v = rng.standard_normal(d)
    for a, b in [(0, 0), (3, 5), (-7, 2), (100, -98), (2.5, 0.25)]:
        Ra, Rb = rotation_matrix(a, d), rotation_matrix(b, d)
        assert np.isclose(np.linalg.norm(Ra @ v), np.linalg.norm(v))
        assert np.allclose(Ra @ Rb, rotation_matrix(a + b, d), atol=1e-12)
        assert np.allclose(Ra.T @ Rb, rotation_matrix(b - a, d), atol=1e-12)
        assert np.allclose(Ra.T, rotation_matrix(-a, d), atol=1e-12)
    assert np.allclose(rotation_matrix(0, d), np.eye(d))
    # q at 5 vs k at 3 sees what q at 100 sees vs k at 98
    q, k = rng.standard_normal((2, d))
    s1 = apply_rope(q[None], [5.0]) @ apply_rope(k[None], [3.0]).T
    s2 = apply_rope(q[None], [100.0]) @ apply_rope(k[None], [98.0]).T
    assert np.isclose(s1, s2)
    # layouts: rope_half(x) = Pi^T rope_interleaved(Pi x), (Pi x)_2i = x_i, (Pi x)_2i+1 = x_i+d/2
    Pi = np.zeros((d, d))
    i = np.arange(d // 2)
    Pi[2 * i, i] = 1.0
    Pi[2 * i + 1, i + d // 2] = 1.0
    X = rng.standard_normal((6, d))
    pos = np.array([0.0, 1.0, 2.0, 7.0, 50.0, -3.0])
    half = apply_rope(X, pos, layout="half")
    assert np.allclose(half, apply_rope(X @ Pi.T, pos, layout="interleaved") @ Pi)
    assert not np.allclose(half, apply_rope(X, pos, layout="interleaved"))


# --- equations/previous-token-head.md ----------------------------------------------------------


def test_layer0_peak_and_nearest_rivals():
    theta = frequencies(64)
    agrees("layer0-slowest-frequency", theta[-1])
    side = np.cos(theta).sum()  # Delta = +-1: every pair turned by theta_i
    agrees("layer0-neighbour-score", side)
    agrees("layer0-score-gap", 32 - side)
    agrees("layer0-fastest-pair-gap", 1 - np.cos(theta[0]))
    # "of which the fastest pair supplies almost half"
    assert 0.4 < (1 - np.cos(theta[0])) / (32 - side) < 0.5
    # the forward pass scores exactly alpha d/2 on the previous key, its row's maximum
    tr = forward(figures.get("layer0-pattern").kwargs["prompt"])
    for q in range(1, len(tr.tokens)):
        assert tr.scores0[q, q - 1] == pytest.approx(tr.config.alpha * 32, abs=1e-9)
        assert int(np.argmax(tr.scores0[q, : q + 1])) == q - 1
    # the caption: the query's own key sits alpha x gap below the best score
    agrees("layer0-row-gap", tr.config.alpha * (32 - side))


def test_layer0_fewer_pairs_smaller_gap():
    gaps = [d / 2 - previous_token_scores(np.array([1]), d=d)[0] for d in (8, 16, 32, 64, 128)]
    assert all(a < b for a, b in zip(gaps[:-1], gaps[1:], strict=True))


def test_layer0_alpha_values():
    prompt = value_kwargs("layer0-min-weight-alpha-1")["prompt"]
    assert figures.get("layer0-alpha-sweep").kwargs["prompt"] == prompt  # the figure's prompt
    T = len(prompt) + 1

    def worst(alpha):
        rows = [previous_row_weights(m, alpha) for m in range(1, T)]
        on_prev = min(w[m - 1] for m, w in enumerate(rows, start=1))
        off = max(np.delete(w, m - 1).sum() for m, w in enumerate(rows, start=1))
        return on_prev, off

    agrees("layer0-min-weight-alpha-1", worst(1.0)[0])
    agrees("layer0-min-weight-alpha-5", worst(5.0)[0])
    agrees("layer0-min-weight-alpha-10", worst(10.0)[0])
    off = worst(100.0)[1]
    assert abs(number(value("layer0-other-weight-alpha-100")) / off - 1) < 0.03
    # the claims: soft at 1, already sharp at 5, "a hard switch in all but name" at 100
    assert number(value("layer0-min-weight-alpha-1")) < 0.7
    assert number(value("layer0-min-weight-alpha-5")) > 0.99 and off < 1e-40
    # each rival gets about e^{-gap alpha} of the winner's weight
    A = forward(prompt, alpha=10.0).A0
    gap = number(value("layer0-score-gap"))
    assert np.log(A[10, 10] / A[10, 9]) == pytest.approx(-10 * gap, abs=0.05)


def test_layer0_first_row_and_output_copy():
    tr = forward("thequickbrownfox")
    s = tr.slots
    assert tr.tokens[0] == BOS and tr.A0[0, 0] == 1.0
    # o_m ~ v_{m-1}: the error is at most the weight that went elsewhere times the spread
    err = np.abs(tr.h1[1:, s.prev] - tr.h0[:-1, s.tok]).max()
    miss = max(1 - tr.A0[m, m - 1] for m in range(1, len(tr.tokens)))
    spread = np.abs(tr.h0[:, s.tok][:, None] - tr.h0[:, s.tok][None, :]).max()
    assert err <= miss * spread + 1e-12
    assert err < 1e-4


def test_layer0_offset_setting_moves_the_band():
    tr = forward("thequickbrownfox", offset=2)
    T = len(tr.tokens)
    assert all(int(np.argmax(tr.A0[m])) == m - 2 for m in range(2, T))
    assert int(np.argmax(tr.A0[1])) == 0


# --- equations/induction-head.md ---------------------------------------------------------------


def test_layer1_benchmark_values(induction_hits):
    for head in ("induction", "rank1"):
        agrees(f"layer1-accuracy-{head}", 100 * induction_hits[head].mean())
    hits, letters = induction_hits["rank1"], induction_hits["letter"]
    # the two letters at the ends of the rank-1 scalar cos a_t are a and n
    cos_a = np.cos([letter_angle(t) for t in VOCAB])
    ends = {VOCAB[int(np.argmax(cos_a))], VOCAB[int(np.argmin(cos_a))]}
    assert ends == {"a", "n"}
    for letter in ("a", "n"):
        sel = letters == letter
        assert value(f"layer1-rank1-hits-{letter}") == str(int(hits[sel].sum()))
        assert value(f"layer1-prompts-{letter}") == str(int(sel.sum()))
        # "it solves every prompt whose A is a or n"
        assert value(f"layer1-rank1-hits-{letter}") == value(f"layer1-prompts-{letter}")
    rest = ~np.isin(letters, sorted(ends))
    assert value("layer1-rank1-hits-other") == str(int(hits[rest].sum()))
    assert value("layer1-prompts-other") == str(int(rest.sum()))
    agrees("layer1-rank1-rate-other", 100 * hits[rest].mean())
    assert abs(hits[rest].mean() - 1 / 26) < 0.01  # "about the 1-in-26 of chance"
    assert figures.get("layer1-accuracy").kwargs["n"] == len(hits)  # the figure's benchmark


def test_layer1_rank1_favourites_and_near_collapse():
    from rope_explained.figures.equations.induction_head import PROMPT, preference_matrix

    best = set(np.argmax(preference_matrix("rank1"), axis=1).tolist())
    assert best <= {VOCAB.index("a"), VOCAB.index("n")}  # columns a and n only
    working = preference_matrix("induction")
    assert np.array_equal(np.argmax(working, axis=1), np.arange(26))
    # Not "every query ranks the keys in the same order" (false with RoPE: the position
    # factor depends on n - m; tests/test_page_induction_head.py shows layer 0 breaking it).
    # What holds: each row divided by its query scalar is the key scalar times
    # cos((n - m) theta_31), so the rows of this prompt coincide to within the drift of that
    # factor (plus layer 0's leak of the query's own letter into its own key, left out).
    tr = forward(PROMPT, head="rank1")
    qs = tr.q1_pre[:, tr.config.d - 2]
    ks = tr.k1_pre[:, tr.config.d - 2]
    T = len(tr.tokens)
    drift = 1 - np.cos((T - 1) * frequencies(64)[-1])
    for m in range(2, T):
        row = tr.scores1[m, :m] / qs[m]
        assert np.all(np.abs(row - ks[:m]) <= drift * np.abs(ks[:m]) + 1e-9)
    assert drift < 1e-5


def test_layer1_two_earlier_copies_example():
    text = value_kwargs("layer1-two-copies-prediction")["text"]
    tr = forward(text)
    follow = {text[i + 1] for i in range(len(text) - 1) if text[i] == text[-1]}
    assert len(follow) == 2  # the last letter occurred twice before, with two followers
    assert value("layer1-two-copies-prediction") == tr.prediction
    # "a letter that never follows k"
    assert tr.prediction not in follow
    agrees("layer1-two-copies-probability", tr.probs[-1].max())
    # the two matching keys split the attention
    keys = [n for n in range(1, len(tr.tokens) - 1) if tr.tokens[n - 1] == text[-1]]
    assert len(keys) == 2 and tr.A1[-1, keys].sum() > 0.99 and tr.A1[-1, keys].max() < 0.9


def test_layer1_working_head_values():
    th = frequencies(64)[-1]
    agrees("layer1-slowest-frequency", 10000 ** (-62 / 64))
    agrees("layer1-distance-limit", np.pi / 26 / th)
    agrees("layer1-neighbour-cosine", np.cos(np.pi / 13))
    agrees("layer1-neighbour-exponent", Config().beta * (1 - np.cos(np.pi / 13)))
    # the forward pass really scores beta cos(a_m - a_{n-1} + (m - n) theta_31)
    tr = forward("kbxfmqkbz", alpha=100.0)  # alpha = 100: layer 0 copies the letter exactly
    beta = tr.config.beta
    for q in (5, 9):
        for n in range(2, q + 1):
            want = beta * np.cos(
                letter_angle(tr.tokens[q]) - letter_angle(tr.tokens[n - 1]) + (q - n) * th
            )
            assert tr.scores1[q, n] == pytest.approx(want, abs=1e-6)


def _spaced_prompts(gap: int, n: int, seed: int):
    """Prompts of gap + 1 letters with A at both ends, the rest uniform over the other 25."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        a = int(rng.integers(26))
        others = [VOCAB[i] for i in range(26) if i != a]
        letters = [others[j] for j in rng.integers(25, size=gap + 1)]
        letters[0] = letters[-1] = VOCAB[a]
        out.append(("".join(letters), letters[1]))
    return out


def test_layer1_distance_limit_in_predictions():
    got = {}
    for gap in (800, 900, 1300):
        kwargs = value_kwargs(f"layer1-spaced-hits-{gap}")
        assert (kwargs["gap"], kwargs["n"], kwargs["seed"]) == (gap, 10, 0)  # as the page says
        prompts = _spaced_prompts(kwargs["gap"], kwargs["n"], kwargs["seed"])
        assert all(t[0] == t[-1] and t[-1] not in t[1:-1] for t, _ in prompts)
        got[gap] = sum(forward(t).prediction == b for t, b in prompts)
        assert value(f"layer1-spaced-hits-{gap}") == str(got[gap])
    # "right every time" well inside the limit, never far beyond it, and the edge comes a
    # little before the limit
    limit = number(value("layer1-distance-limit"))
    assert got[800] == 10 and got[1300] == 0 and got[900] < 10 and 900 < limit


def test_layer1_no_earlier_copy_falls_back_to_nearest_letter():
    for prompt in ("abcdefg", "qwertyu", "thequick"):
        tr = forward(prompt)
        q = len(tr.tokens) - 1
        n = int(np.argmax(tr.A1[q]))
        a = letter_angle(tr.tokens[q])
        dist = [abs(np.angle(np.exp(1j * (a - letter_angle(tr.tokens[k - 1])))))
                for k in range(2, q + 1)]  # fmt: skip
        assert n - 2 == int(np.argmin(dist))
        assert tr.prediction == tr.tokens[n]


# --- equations/forward-pass.md -------------------------------------------------------------------


def test_complete_page_example(induction_hits):
    from rope_explained.figures.equations.forward_pass import PROMPT

    tr = forward(PROMPT)
    cfg = tr.config
    n = induction_target(PROMPT)
    target = PROMPT[n - 1]
    assert tr.prediction == target and int(np.argmax(tr.A1[-1])) == n
    # the last D - 3d - 1 coordinates stay zero
    assert value("complete-spare-coordinates") == str(cfg.D - 3 * cfg.d - 1)
    assert np.all(tr.h2[:, 3 * cfg.d + 1 :] == 0) and np.any(tr.h2[:, 3 * cfg.d] != 0)
    rows = np.arange(1, len(tr.tokens))
    weights = [previous_row_weights(m, cfg.alpha)[m - 1] for m in rows]
    agrees("complete-min-previous-weight", min(weights), "down")
    # the rank-1 head attends to the wrong key and predicts another letter
    rank1 = forward(PROMPT, head="rank1")
    assert value("complete-rank1-prediction") == rank1.prediction != target
    assert int(np.argmax(rank1.A1[-1])) != n
    # the same benchmark numbers as the layer-1 page, to the digits this page prints
    agrees("complete-accuracy-rank1", 100 * induction_hits["rank1"].mean())
    agrees("complete-accuracy-induction", 100 * induction_hits["induction"].mean())
    assert number(value("complete-accuracy-rank1")) == number(value("layer1-accuracy-rank1"))


def test_complete_readout_values():
    from rope_explained.figures.equations.forward_pass import PROMPT

    tr = forward(PROMPT)
    gap = tr.config.gamma * (1 - np.cos(np.pi / 13))  # the page's formula
    agrees("complete-neighbour-logit-gap", gap)
    logits = np.sort(tr.logits[-1])
    assert logits[-1] - logits[-2] == pytest.approx(gap, rel=1e-3)
    agrees("complete-neighbour-ratio", np.exp(-gap))
    probs = tr.probs[-1]
    agrees("complete-top-probability", probs.max())
    # "most of the rest to" the two neighbours of the prediction on the circle
    i = int(np.argmax(probs))
    assert probs[[(i - 1) % 26, (i + 1) % 26]].sum() > 0.9 * (1 - probs.max())


def test_complete_code_listing_and_table():
    from rope_explained.model import Trace

    source = (ROOT / "rope_explained" / "model.py").read_text(encoding="utf-8")
    start = source.index("# --8<-- [start:forward]\n")
    end = source.index("# --8<-- [end:forward]")
    section = source[start:end]
    assert section.count("\ndef forward_tokens(") == 1 and "return Trace(" in section
    text = (DOCS / "equations/forward-pass.md").read_text(encoding="utf-8")
    assert '--8<-- "rope_explained/model.py:forward"' in text
    rows = re.findall(r"\n\| (`[^\n]*?) \| ([^|\n]+) \| ([^|\n]+) \|", text)
    fields = {f.name for f in dataclasses.fields(Trace)}
    named = set()
    for code, trace_names, eqs in rows:
        for snippet in re.findall(r"`([^`]+)`", code):
            assert snippet in section, snippet  # the line really is in forward()
        named |= set(re.findall(r"`(\w+)`", trace_names))
        assert re.search(r'\{\{ eq\("[a-z0-9-]+"\) \}\}', eqs)
    arrays = {"h0", "k0_pre", "q0_pre", "k0", "q0", "scores0", "A0", "v0", "o0", "h1",
              "k1_pre", "q1_pre", "k1", "q1", "scores1", "A1", "v1", "o1", "h2", "logits",
              "probs"}  # fmt: skip
    assert arrays <= fields and named == arrays


# --- notes/position-only-heads.md ----------------------------------------------------------------


def test_notes_credit_wendler_and_mark_open_items():
    notes = {p: (DOCS / "notes" / p).read_text(encoding="utf-8") for p in (
        "position-only-heads.md", "semantic-heads.md", "open-questions.md")}  # fmt: skip
    for text in notes.values():
        assert "Chris Wendler" in text
    assert "Jakob Heiss" in notes["position-only-heads.md"]
    opened = [m for t in notes.values() for m in re.findall(r'!!! question "Open: ([^,"]+)', t)]
    assert sorted(opened) == [
        "Experiment 2", "Experiment 4", "Experiment 5", "Experiment 6", "Question 1",
        "Question 2"]  # fmt: skip


def test_notes_score_gap_values():
    theta = frequencies(64)
    gap = 32 - np.cos(theta).sum()
    agrees("notes-neighbour-score", np.cos(theta).sum())
    agrees("notes-score-gap", gap)
    agrees("notes-gap-exponent-10", 10 * gap)
    agrees("notes-gap-exponent-100", 100 * gap)
    estimate = 2 * np.exp(-10 * gap)
    assert abs(number(value("notes-two-neighbours-estimate")) / estimate - 1) < 0.5


def test_notes_experiment_1_table():
    spec = figures.get("notes-previous-token-patterns")
    out = previous_token_experiment(**spec.kwargs)  # the setting of the figure and the values
    default = previous_token_experiment()  # the setting of the values
    assert all(np.array_equal(out[a], default[a]) for a in default) and out.keys() == default.keys()
    assert sorted(out) == [1.0, 10.0, 100.0]
    T = spec.kwargs["T"]
    # "the content of the tokens plays no part": the pattern is the score formula's softmax
    for alpha, A in out.items():
        for m in range(1, T):
            assert np.allclose(A[m, : m + 1], previous_row_weights(m, alpha), atol=1e-12)
    for alpha in (1, 10):
        agrees(f"notes-mean-weight-{alpha}", np.diag(out[float(alpha)], k=-1).mean())
    # alpha = 1: symmetric about m - 1, "about 0.20 each for late queries"
    A1 = out[1.0]
    for m in range(T // 2, T):
        assert A1[m, m] == pytest.approx(A1[m, m - 2], rel=1e-12)
        agrees("notes-spill-1", A1[m, m])
    # alpha = 10: what is left, and "the estimate holds up"
    rest = 1 - np.diag(out[10.0], k=-1).mean()
    assert abs(number(value("notes-left-weight-10")) / rest - 1) < 0.15
    assert value("notes-left-weight-10") == value("notes-two-neighbours-estimate")
    # alpha = 100: "1.0 to double precision"
    assert 1.0 - np.diag(out[100.0], k=-1).mean() < 1e-15


def test_notes_layer0_of_the_model_is_at_least_as_sharp():
    bound = number(value("notes-model-min-weight"))
    for text in ("abcabdefghijklmnopqrstuvwxyzab", FORWARD_PASS_PROMPT, LONG_PROMPT):
        assert np.diag(forward(text).A0, k=-1).min() >= bound
    # "at least ... as well": the same number as Experiment 1 at alpha = 10
    assert value("notes-model-min-weight") == value("notes-mean-weight-10")


# --- notes/semantic-heads.md --------------------------------------------------------------------


def test_notes_recency_values():
    T, d = 1000, 64
    x = np.random.default_rng(0).standard_normal(d)  # the seed of semantic_recency
    theta = frequencies(d)
    dist = np.arange(T)

    def normalised(d0):  # the formula: sum_i cos(dist theta_i) (x_2i^2 + x_2i+1^2), / dist 0
        keep = x.copy()
        keep[:d0] = 0
        w = keep[0::2] ** 2 + keep[1::2] ** 2
        s = np.cos(dist[:, None] * theta) @ w
        return s / s[0]

    r = normalised(0)
    assert np.allclose(r, (lambda s: (s / s[-1])[::-1])(semantic_recency(T=T, d=d)))
    agrees("notes-recency-at-10", r[10])
    agrees("notes-recency-min", r[10:].min())
    agrees("notes-recency-max", r[10:].max())
    assert r[10:].max() < 1.0  # "never coming back to 1"
    for d0 in (56, 62):
        agrees(f"notes-recency-loss-{d0}", 100 * (1 - normalised(d0)[-1]))


def test_notes_slowest_pair_values():
    th = 10000 ** (-62 / 64)
    agrees("notes-slowest-frequency", th)
    agrees("notes-slowest-turn", 999 * th)
    agrees("notes-slowest-cos", np.cos(999 * th))
    agrees("notes-slowest-drop", 100 * (1 - np.cos(999 * th)))
    # "small, but not zero": a faint recency bias
    assert 0 < number(value("notes-slowest-drop")) < 1


def test_notes_experiment_3_flatness():
    from rope_explained.experiments import d0_sweep_values

    T, d = 1000, 64
    _, s = semantic_head_inputs(T=T, d=d)
    delta = np.arange(T - 1) - (T - 1.0)  # keys 0..T-2, the query at T-1
    flat = []
    for d0 in d0_sweep_values(d):
        keep = s.copy()
        keep[:d0] = 0
        scores = np.cos(delta[:, None] * frequencies(d)) @ (keep[0::2] ** 2 + keep[1::2] ** 2)
        flat.append(np.ptp(scores) / scores.max())
        agrees(f"notes-flatness-{d0}", flat[-1])
    # "the spread falls steadily"; "with the four slowest pairs, close to position-blind"
    assert all(b < a for a, b in zip(flat, flat[1:], strict=False))
    assert flat[-2] < 0.02


def test_notes_induction_head_margin():
    lengths = [len(p.text) for p in induction_prompts()]
    th = frequencies(Config().d)[-1]
    assert value("notes-benchmark-max-length") == str(max(lengths))
    assert value("notes-benchmark-max-distance") == str(max(lengths) - 1)
    agrees("notes-benchmark-max-turn", (max(lengths) - 1) * th)
    agrees("notes-half-letter-gap", np.pi / 26)
    assert letter_angle("b") - letter_angle("a") == pytest.approx(np.pi / 13)
    # "well under half the gap between neighbouring letters"
    assert (max(lengths) - 1) * th < np.pi / 26 / 2
    agrees("notes-distance-limit", np.pi / 26 / th)
    assert value("notes-distance-limit") == value("layer1-distance-limit")
    # "had the head used the fastest pair, one token would turn the angle by a full radian"
    assert frequencies(Config().d)[0] == 1.0


# --- notes/open-questions.md ---------------------------------------------------------------------


def test_notes_bottleneck_table():
    agrees("notes-horizon-numerator", np.arccos(0.9))
    table = {}
    for d, base, tag in ((64, 1e4, "d64-b1e4"), (128, 1e4, "d128-b1e4"), (128, 5e5, "d128-b5e5")):
        theta = frequencies(d, base)
        for L in (100, 1000, 10000):
            # brute force: the pairs whose cosine stays >= 0.9 at every distance up to L
            ok = np.all(np.cos(np.arange(L + 1)[:, None] * theta) >= 0.9, axis=0)
            assert value(f"bottleneck-{tag}-l{L}") == str(2 * int(ok.sum()))
            table[tag, L] = int(ok.sum())
    for tag in ("d64-b1e4", "d128-b1e4", "d128-b5e5"):  # the count shrinks as the window grows
        assert table[tag, 100] > table[tag, 1000] >= table[tag, 10000]
    for L in (100, 1000, 10000):  # a larger base widens the slot
        assert table["d128-b5e5", L] >= table["d128-b1e4", L]
    # "no coordinate at all stays within 10 % over 10 000 tokens" at base 10^4
    assert table["d64-b1e4", 10000] == 0
    horizon = np.arccos(0.9) / frequencies(64)[-1]
    assert value("notes-slowest-horizon") == f"{round(horizon, -2):.0f}"
    assert pair_horizons(64, 1e4, 0.9)[-1] == pytest.approx(horizon) and horizon < 10000


# --- playground.md -------------------------------------------------------------------------------


def test_playground_slow_pair_turns_a_letter_step():
    from rope_explained.examples import HEATMAP_MAX_LETTERS

    steps = {}
    for base in (1000, 10000):
        th = base ** (-62 / 64)
        agrees(f"playground-letter-step-{base}", (np.pi / 13) / th)
        steps[base] = number(value(f"playground-letter-step-{base}"))
    assert steps[10000] > HEATMAP_MAX_LETTERS > steps[1000]  # "longer than any text here"
    # the 256-letter prompt: its last letter appeared once before; at base 1000 the prediction
    # goes wrong although layer 0 still looks perfect
    last = LONG_PROMPT[-1]
    assert LONG_PROMPT[:-1].count(last) == 1
    answer = LONG_PROMPT[LONG_PROMPT.index(last) + 1]
    assert forward(LONG_PROMPT).prediction == answer
    tr = forward(LONG_PROMPT, base=1000.0)
    assert tr.prediction != answer and np.diag(tr.A0, k=-1).min() > 0.999


def test_playground_reference_set_spans_the_sliders():
    """The parity cases span one letter to the longest text, both heads, and the whole range
    of the alpha and base sliders."""
    from playground_cases import reference_cases

    from rope_explained.examples import ALPHA_RANGE, BASE_RANGE, HEATMAP_MAX_LETTERS

    cases = reference_cases()
    lengths = [len(c["text"]) for c in cases]
    alphas = [c["config"].get("alpha", 10.0) for c in cases]
    bases = [c["config"].get("base", 10000.0) for c in cases]
    assert (min(lengths), max(lengths)) == (1, HEATMAP_MAX_LETTERS)
    assert (min(alphas), max(alphas)) == ALPHA_RANGE
    assert (min(bases), max(bases)) == BASE_RANGE
    assert {c["config"].get("head", "induction") for c in cases} == {"induction", "rank1"}


def test_playground_alpha_band_is_saturated_from_ten():
    """'from about 10 on it is already as sharp as the colour map can show' (256 colours), and
    'on the opening prompt the prediction stops being a' towards alpha = 0.1."""
    from rope_explained.examples import ALPHA_RANGE, OPENING_PROMPT

    def band(alpha):
        tr = forward(OPENING_PROMPT, alpha=alpha)
        return np.array([tr.A0[m, m - 1] for m in range(1, len(tr.tokens))])

    assert np.all(np.floor(band(10.0) * 256) >= 255)  # the top colour of the map
    assert not np.all(np.floor(band(3.0) * 256) >= 255)
    target = OPENING_PROMPT[induction_target(OPENING_PROMPT) - 1]
    assert forward(OPENING_PROMPT).prediction == target
    assert forward(OPENING_PROMPT, alpha=ALPHA_RANGE[0]).prediction != target


def test_playground_never_seen_letter_example():
    """'after abcdez it picks the b that follows an a' (z and a are neighbours)."""
    tr = forward("abcdez")
    n = int(np.argmax(tr.A1[-1]))
    assert tr.tokens[n] == "b" and tr.tokens[n - 1] == "a"
    assert abs(letter_angle("z") - letter_angle("a")) % (2 * np.pi) == pytest.approx(
        2 * np.pi - np.pi / 13
    )


# --- paper-to-code/roformer.py (a notebook: its numbers are printed by its own cells) -----------


def _notebook_cells(path: str):
    import jupytext

    return jupytext.read(DOCS / path).cells


def test_paper_context_extension_claims():
    from rope_explained import scaled_frequencies

    d, L, s = 128, 2048, 4.0
    theta = frequencies(d)
    slow = 2 * np.pi / theta > L
    inv, over = {}, {}
    for method in ("linear", "ntk", "yarn"):
        inv[method], _ = scaled_frequencies(d, method=method, factor=s, original_max_position=L)
        over[method] = (s * inv[method][slow]) / theta[slow]
    # vanilla RoPE: every slow pair goes s times past its trained angle
    # PI: no unseen angle, but the fastest pair's step shrinks from 1 to 1/s
    assert over["linear"].max() == pytest.approx(1.0) and inv["linear"][0] == 1 / s
    # NTK: the fast pair intact, the worst overshoot cut but not removed
    assert inv["ntk"][0] == theta[0] and 1.0 < over["ntk"].max() < s
    # YaRN: the fast pair intact and no unseen angle
    assert inv["yarn"][0] == theta[0] and over["yarn"].max() == pytest.approx(1.0)
    # the prose after the table quotes the numbers the table cell prints
    cells = _notebook_cells("paper-to-code/roformer.py")
    k = next(i for i, c in enumerate(cells) if "scaled_frequencies(" in c.source)
    prose = cells[k + 1].source
    assert cells[k + 1].cell_type == "markdown"
    for quoted in (str(int(slow.sum())), f"{inv['linear'][0]:.2f}", f"{over['ntk'].max():.1f}"):
        assert re.search(rf"(?<![\d.]){re.escape(quoted)}(?![\d])", prose), quoted


def test_paper_decay_caption_claims():
    theta = frequencies(128)
    r = np.arange(513)
    expected = np.cos(r[:, None] * theta).mean(axis=1)  # E[score(k = q)] / score at 0
    assert 0.45 < expected[50] < 0.6  # "about half of their score at distance 50"
    assert 0.2 < expected[450:].mean() < 0.3  # "about a quarter, with ripples, near 500"
    assert expected[450:].std() > 0.01
    # the alt text: the bound factor (1/(d/2)) sum_j |S_j|, summed term by term
    j = np.arange(1, 65)
    for distance, value_id in ((0, "paper-decay-bound-start"), (100, "paper-decay-bound-100")):
        S = [abs(sum(np.exp(1j * distance * theta[:k]))) for k in j]
        agrees(value_id, np.mean(S))
