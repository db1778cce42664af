"""Claims of the two forward-pass pages (equations/forward-pass.md, chapter 5, and
forward-pass/index.md, chapter 6) and the home page: one running example, numbering in reading
order, the What-if boxes and the worked exercises of chapter 5.

Expected figures come from the page's formulas (numpy on letter angles) or from the package by
another route than the value function's.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from pages import value

from rope_explained import figures
from rope_explained.embedding import VOCAB, letter_angle, plane_reader
from rope_explained.examples import FORWARD_PASS_PROMPT
from rope_explained.experiments import previous_token_scores
from rope_explained.model import Config, forward

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ("equations/forward-pass.md", "forward-pass/index.md", "index.md")


def close(value_id: str, x: float) -> None:
    text = value(value_id)
    decimals = len(text.split(".")[1]) if "." in text else 0
    assert abs(float(text) - x) <= 0.5 * 10.0**-decimals * (1 + 1e-9), (value_id, text, x)


def readout_probs(letter: str, gamma: float) -> np.ndarray:
    """The page's readout for a cleanly copied letter: softmax of gamma cos(a_v - a_B)."""
    angles = np.array([letter_angle(v) for v in VOCAB])
    logits = gamma * np.cos(angles - letter_angle(letter))
    p = np.exp(logits - logits.max())
    return p / p.sum()


def test_one_running_example_everywhere():
    """Chapters 5 and 6 and the home page all use examples.FORWARD_PASS_PROMPT, in their
    figures and in their prose."""
    for fig_id, spec in figures.REGISTRY.items():
        if spec.page in ("equations/forward-pass", "forward-pass", "index"):
            prompt = spec.kwargs.get("prompt", spec.kwargs.get("text"))
            assert prompt == FORWARD_PASS_PROMPT, fig_id
    for page in PAGES:
        text = (DOCS / page).read_text(encoding="utf-8")
        named = set(re.findall(r"thecat[a-z]*", text))
        # the what-if of ch 6 and exercise 1 of ch 5 change or drop the last letter on purpose,
        # and so does exercise 3 of ch 6 (a last letter seen four times before)
        allowed = {FORWARD_PASS_PROMPT, FORWARD_PASS_PROMPT[:-1]}
        allowed |= {FORWARD_PASS_PROMPT[:-1] + last for last in "xt"}
        assert named - allowed == set(), page
    ch5 = (DOCS / "equations/forward-pass.md").read_text(encoding="utf-8")
    assert f"**{FORWARD_PASS_PROMPT}**" in ch5


def test_numbered_equations_are_never_hidden_in_tabs():
    """A numbered equation inside a content tab is hidden until the tab is chosen, so the
    visible numbering would jump: no tab block on these pages holds one."""
    for page in PAGES:
        lines = (DOCS / page).read_text(encoding="utf-8").split("\n")
        in_tab = False
        for line in lines:
            if line.startswith("=== "):
                in_tab = True
            elif line and not line.startswith(" "):
                in_tab = False
            assert not (in_tab and "% eq:" in line), (page, line)


def test_the_roles_of_the_two_pages_are_stated_first():
    ch5 = (DOCS / "equations/forward-pass.md").read_text(encoding="utf-8")
    ch6 = (DOCS / "forward-pass/index.md").read_text(encoding="utf-8")
    first5 = ch5.split("\n## ")[0]
    first6 = ch6.split("\n## ")[0]
    assert "every equation of one forward pass" in first5 and "forward-pass/index.md" in first5
    assert "every intermediate" in first6 and "equations/forward-pass.md" in first6


def test_blunt_layers():
    cfg = Config()
    m = len(FORWARD_PASS_PROMPT)  # the last query (the start token is position 0)
    # alpha = 1: the softmax of alpha sum_i cos((n - m + 1) theta_i), from the formula
    scores = 1.0 * previous_token_scores(np.arange(m + 1) - m + 1.0, d=cfg.d)
    w = np.exp(scores - scores.max())
    close("complete-alpha1-weight", (w / w.sum())[m - 1])
    # beta = 10: the right key keeps less than half, and the prediction moves off a
    match = FORWARD_PASS_PROMPT.index(FORWARD_PASS_PROMPT[-1]) + 2
    tr = forward(FORWARD_PASS_PROMPT, beta=10.0)
    close("complete-beta10-weight", tr.A1[-1, match])
    assert tr.A1[-1, match] < 0.5
    target = FORWARD_PASS_PROMPT[match - 1]
    assert value("complete-beta10-prediction") == tr.prediction != target
    # "the letter nearest to the blend": the readout of the copied out slot's direction
    x, y = plane_reader(cfg.d) @ tr.h2[-1, tr.slots.out]  # the blend as a point of the plane
    angles = np.array([letter_angle(v) for v in VOCAB])
    gaps = np.abs(np.angle(np.exp(1j * (angles - np.arctan2(y, x)))))
    assert tr.prediction == VOCAB[int(np.argmin(gaps))]


def test_exercise_answers():
    # 1: thecatsatonthe -> c, with the readout's probability for a clean copy
    text = FORWARD_PASS_PROMPT[:-1]
    follower = text[text.index(text[-1]) + 1]
    assert value("complete-ex-next-prediction") == follower
    close("complete-ex-next-probability", readout_probs(follower, Config().gamma).max())
    assert value("complete-ex-next-probability") == value("complete-top-probability")
    # 2: gamma = 200, from the formula
    close("complete-ex-gamma200", readout_probs("a", 200.0).max())
    p100, p200 = readout_probs("a", 100.0), readout_probs("a", 200.0)
    i = VOCAB.index("b")
    assert np.isclose(p200[i] / p200.max(), (p100[i] / p100.max()) ** 2)  # "the square"
    # 3: alpha = 1 keeps the prediction and its probability, and the right key takes the whole
    # of the last row's attention to double precision
    tr = forward(FORWARD_PASS_PROMPT, alpha=1.0)
    match = FORWARD_PASS_PROMPT.index(FORWARD_PASS_PROMPT[-1]) + 2
    assert tr.prediction == FORWARD_PASS_PROMPT[match - 1]
    assert 1 - tr.A1[-1, match] < 1e-12
    close("complete-ex-alpha1-probability", readout_probs("a", Config().gamma).max())
    assert tr.A0[-1, -2] < 0.6


def test_swapped_layers_would_see_empty_keys():
    """The what-if of 5.16: before layer 0 the prev slot is empty, so layer 1's keys are 0."""
    tr = forward(FORWARD_PASS_PROMPT)
    k_before = tr.h0 @ tr.weights.L1.W_k.T
    assert np.all(k_before == 0)
