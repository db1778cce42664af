"""The paper-to-code notebooks (chapter 10): YaRN's two ramps, the letters of the YaRN section,
the LLaMA layouts, and the credits of the drill the notebooks follow.

The ramps are recomputed here from the YaRN paper's formula and from the reference code's
(floor/ceil of the inverse turn-count formula), in numpy, and compared with the package, with
Fig. 12.4 and with what the notebook says about them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import jupytext
import numpy as np
import pytest
from pages import value

from rope_explained import conventions, figures
from rope_explained.rope import frequencies, scaled_frequencies, yarn_keep

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "docs" / "paper-to-code"
SOLUTION = NB_DIR / "roformer.py"
EXERCISE = NB_DIR / "roformer-exercise.py"
d, base, L, s = 128, 10000.0, 2048, 4.0  # the notebook's setting
R_FAST, R_SLOW = 32.0, 1.0


def markdown(path: Path) -> str:
    cells = jupytext.read(path).cells
    return " ".join(" ".join(c.source for c in cells if c.cell_type == "markdown").split())


def code(path: Path) -> str:
    return "\n".join(c.source for c in jupytext.read(path).cells if c.cell_type == "code")


def paper_ramp() -> np.ndarray:
    """(12.7): linear in the turns r_i = L theta_i / 2 pi, clipped to [0, 1]."""
    r = L * base ** (-2 * np.arange(d // 2) / d) / (2 * math.pi)
    return np.clip((r - R_SLOW) / (R_FAST - R_SLOW), 0, 1)


def code_ramp() -> np.ndarray:
    """(12.8): linear in the pair index between floor(i(r_fast)) and ceil(i(r_slow))."""

    def index(r):  # the pair index at which pair i turns r times within L
        return d * math.log(L / (2 * math.pi * r)) / (2 * math.log(base))

    lo, hi = math.floor(index(R_FAST)), math.ceil(index(R_SLOW))
    return 1 - np.clip((np.arange(d // 2) - lo) / (hi - lo), 0, 1)


def test_yarn_two_ramps_from_their_formulas():
    kw = {"base": base, "original_max_position": L}
    assert np.allclose(yarn_keep(d, ramp="paper", **kw), paper_ramp(), atol=1e-12)
    assert np.allclose(yarn_keep(d, ramp="code", **kw), code_ramp(), atol=1e-12)
    gap = np.abs(code_ramp() - paper_ramp())
    assert value("paper-yarn-ramp-gap") == f"{gap.max():.2f}"
    assert value("paper-yarn-ramp-gap-pair") == str(int(np.argmax(gap)))
    assert 0.35 < gap.max() < 0.45  # "differ by up to about 0.4"
    assert code_ramp()[29] == pytest.approx(0.48) and paper_ramp()[29] == pytest.approx(
        0.13, abs=5e-3
    )


def test_package_and_figure_10_4_use_the_code_ramp():
    import matplotlib.pyplot as plt

    theta = frequencies(d, base)
    expected = (1 - code_ramp()) * theta / s + code_ramp() * theta
    paper = (1 - paper_ramp()) * theta / s + paper_ramp() * theta
    inv, _ = scaled_frequencies(d, base=base, method="yarn", factor=s, original_max_position=L)
    assert np.allclose(inv, expected, rtol=1e-12) and not np.allclose(inv, paper, rtol=1e-3)
    fig = figures.get("paper-context-wavelengths").func()
    try:
        (yarn_line,) = [ln for ln in fig.axes[2].get_lines() if ln.get_label() == "YaRN"]
        assert np.allclose(yarn_line.get_ydata(), 2 * np.pi / expected, rtol=1e-12)
    finally:
        plt.close(fig)


def test_yarn_ramp_claims():
    code_w, paper_w = code_ramp(), paper_ramp()
    inner = lambda w: set(np.flatnonzero((w > 0) & (w < 1)))  # noqa: E731
    # "both ramps run over the same pairs"
    assert inner(code_w) == inner(paper_w)
    ramp = sorted(inner(code_w))
    # "between the ends the code keeps every pair closer to its own frequency"
    assert np.all(code_w[ramp] > paper_w[ramp])
    # "where the paper's weight has fallen to about a half, the code's is still about 0.8"
    half = ramp[int(np.argmin(np.abs(paper_w[ramp] - 0.5)))]
    assert abs(paper_w[half] - 0.5) < 0.05 and abs(code_w[half] - 0.8) < 0.05
    # "(12.8) is linear in log r_i", "(12.7) linear in r_i"
    r = L * frequencies(d, base) / (2 * math.pi)
    assert np.allclose(np.diff(code_w[ramp]), np.diff(code_w[ramp])[0])
    slope = np.diff(paper_w[ramp]) / np.diff(r[ramp])
    assert np.allclose(slope, 1 / (R_FAST - R_SLOW))
    # the figure: both ramps, one line each, in both panels
    text = markdown(SOLUTION)
    assert '"fig:paper-yarn-ramps"' in SOLUTION.read_text() or "paper-yarn-ramps" in code(SOLUTION)
    assert (
        "`rope_explained.scaled_frequencies` uses [(12.8)](#eq-yarn-code), and so does Figure 12.4"
        in text
    )


def test_yarn_section_does_not_reuse_the_models_letters():
    """alpha, beta and gamma name the hand-built model's sharpness settings: the YaRN section
    uses rho, r_slow and r_fast, and mentions the paper's letters only to say so."""
    text = markdown(SOLUTION)
    section = text[text.index("**YaRN**") : text.index("## What to take away")]
    note = re.search(r"\(The paper calls the weight .*?\)", section)
    assert note, "the note on the paper's letters"
    rest = section.replace(note.group(0), "")
    assert not re.search(r"\\(alpha|beta|gamma)\b", rest)
    assert r"\rho_i" in rest and r"r_\text{fast}" in rest and r"r_\text{slow}" in rest
    for fig_id in ("paper-yarn-ramps", "paper-context-wavelengths"):
        spec = figures.get(fig_id)
        assert not re.search(r"\\(alpha|beta|gamma)\b", spec.caption + spec.alt)


def test_llama_layouts_are_stated_correctly():
    for path in (SOLUTION, EXERCISE):
        text = markdown(path)
        assert "GPT-NeoX and LLaMA" not in text and "LLaMA uses rotate" not in text
    text = markdown(SOLUTION)
    assert "Meta's reference code for LLaMA" in text and "Hugging Face port of LLaMA" in text
    caption = figures.get("paper-layouts").caption
    assert "Meta's reference LLaMA code" in caption and "Hugging Face port of LLaMA" in caption
    # "Hugging Face's script ... reorders the rows ... by the inverse of P"
    for dd in (8, 16):
        perm = np.stack([np.arange(dd // 2), np.arange(dd // 2) + dd // 2], axis=1).ravel()
        W = np.random.default_rng(0).standard_normal((dd, 5))
        assert np.array_equal(conventions.interleaved_to_half(W), W[np.argsort(perm)])


def test_drill_credited_for_checks_and_constants():
    text = markdown(SOLUTION)
    assert "the code and text here are new" not in text
    assert "stayed put" not in text and "ten thousand" not in text
    assert "paper-to-code drill on RoFormer" in text
    assert "paper-to-code drill on RoFormer" in markdown(EXERCISE)
    # the constants the credit lists are the ones the code uses
    src = code(SOLUTION)
    assert "m, n = 5, 2" in src and "for s in (1, 3, 7, 50, 123, 10_000)" in src
    assert "(1, 17, 400)" in src and "score(rope, q, k, 5, 2), score(rope, q, k, 5, 0)" in src
    assert "(3.0, 4.0)" in src and "(2, 6, 10)" in src
    for named in ("shifts 1, 3, 7, 50 and 123", "shift by 17", "offsets 3 and 5",
                  "rotations by 3 and 4", "`(2, 6, 10)`"):  # fmt: skip
        assert named in text, named
    # the papers are credited by name where they are used
    for who in ("Su, Lu, Pan, Murtadha, Wen and Liu", "Chen, Wong, Chen and Tian", "bloc97",
                "Peng, Quesnelle, Fan and Shippole"):  # fmt: skip
        assert who in text, who


def test_exercise_figure_numbering_follows_the_new_figure():
    ids = re.findall(r'tags=\["fig:([a-z0-9-]+)"\]', SOLUTION.read_text())
    assert ids[-1] == "paper-yarn-ramps" and len(ids) == 5
    text = markdown(EXERCISE)
    assert "Figure 13.1 shows" in text and "Figures 12.1 to 12.5" in text


def test_exercise_names_every_package_the_package_needs():
    """The exercise page says which packages pip brings: exactly the project's dependencies."""
    import tomllib

    root = Path(__file__).resolve().parent.parent
    deps = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    names = {re.split(r"[<>=!~ ;\[]", d, maxsplit=1)[0].replace("_", "-").lower() for d in deps}
    text = " ".join((root / "docs" / "paper-to-code" / "roformer-exercise.py").read_text().split())
    m = re.search(r"the (\w+) packages it needs: ([^)]*)\)", text.replace("# ", ""))
    assert m, "the exercise page names the packages it needs"
    named = {n.strip().replace("_", "-").lower() for n in re.split(r",| and ", m.group(2))}
    named.discard("")
    assert named == names
    assert m.group(1) == {1: "one", 2: "two", 3: "three", 4: "four"}[len(names)]
