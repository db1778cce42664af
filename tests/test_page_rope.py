"""The RoPE page (``equations/rope.md``): its newer values and claims, and its code listing.

Each value is recomputed another way (from the formula of the page, not through the value
function), and each claim the prose makes about it is asserted as a property.
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import numpy as np
from pages import DOCS, agrees, number, page_index, value

from rope_explained import figures
from rope_explained import rope as rope_module
from rope_explained.rope import apply_rope, frequencies, rotation_matrix

PAGE = (DOCS / "equations/rope.md").read_text(encoding="utf-8")


def test_c_and_alpha_are_not_used_before_they_are_introduced():
    before = PAGE.split("## Rotation matrix at position m")[0]
    first_c = before.index("c^T R_{\\Theta,\\Delta}")
    assert "\\(c = (1, 0, 1, 0" in before[:first_c]
    # alpha appears only as "the previous-token head calls that factor alpha"
    assert before.count("\\alpha") == 1 and "calls that factor \\(\\alpha\\)" in before


def test_the_page_says_why_there_is_no_square_root_of_d():
    assert "1/\\sqrt{d}" in PAGE and "arXiv:1706.03762" in PAGE
    # stated where scores first appear: before the relative-score equation's Why
    assert PAGE.index("No \\(1/\\sqrt{d}\\)") < PAGE.index('!!! why "Why this matters"')


def test_llama_layouts_are_attributed_correctly():
    for text in (PAGE, inspect.getdoc(rope_module), inspect.getdoc(rope_module.apply_rope)):
        assert "Meta" in text and "Hugging Face" in text
    assert "LLaMA)" not in PAGE.replace("Hugging Face LLaMA)", "").replace("Meta's LLaMA)", "")


def test_rope_code_listing_shows_the_real_rotating_lines():
    src = Path(rope_module.__file__).read_text(encoding="utf-8")
    sections = ("apply_rope", "apply_rope_signature", "apply_rope_call", "rotate_pairs")
    for name in sections:
        assert src.count(f"# --8<-- [start:{name}]") == 1
        assert src.count(f"# --8<-- [end:{name}]") == 1
    for name in sections[1:]:
        assert f'--8<-- "rope_explained/rope.py:{name}"' in PAGE

    def section(name):
        body = src.split(f"# --8<-- [start:{name}]\n")[1].split(f"# --8<-- [end:{name}]")[0]
        return [ln for ln in body.splitlines() if "--8<--" not in ln]

    # the full sections are the functions themselves (marker lines aside)
    for name, function in (
        ("apply_rope", rope_module.apply_rope),
        ("rotate_pairs", rope_module._rotate_pairs),
    ):
        own = [ln for ln in inspect.getsource(function).splitlines() if "--8<--" not in ln]
        assert "\n".join(section(name)).strip() == "\n".join(own).strip()
    shown = section("apply_rope_signature") + section("apply_rope_call")
    assert len(shown) < 20 and shown[0].startswith("def apply_rope(")
    assert [ln.strip() for ln in shown if ln.strip()][-1] == (
        "return _rotate_pairs(x, positions, theta, layout)"
    )
    rotating = section("rotate_pairs")
    assert any("a * cos - b * sin" in ln for ln in rotating)
    shown += rotating
    assert not any("check_" in ln or "raise" in ln for ln in shown)  # no validation shown
    # the listing and the elision line form valid Python
    code = "\n".join(
        section("apply_rope_signature") + ["    ..."] + section("apply_rope_call") + rotating
    )
    compile(code, "listing", "exec")


def test_relative_score_figure_scores_and_sign():
    spec = figures.get("rope-relative-score")
    d, T, seed = spec.kwargs["d"], spec.kwargs["T"], spec.kwargs["seed"]
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, d))
    theta = frequencies(d)
    S = np.array([[q @ rotation_matrix(n - m, d) @ k for n in range(T)] for m in range(0, T, 7)])
    # "for this pair every score happens to be negative" (so a sequential map fits) ...
    assert S.max() < 0
    # ... "with -k in place of k every score would change sign"
    assert np.allclose(
        [[q @ rotation_matrix(n - m, d) @ -k for n in range(T)] for m in range(0, T, 7)], -S
    )
    assert theta.size == d // 2


def test_larger_base_wavelengths():
    d = 64
    agrees("rope-slowest-wavelength-500k", 2 * math.pi * 500000 ** ((d - 2) / d))
    for base in (100.0, 10000.0, 500000.0):  # the fastest wavelength is 2 pi for every base
        assert frequencies(d, base)[0] == 1.0
    # "every pair in between is slowed by a factor that grows with i"
    ratio = frequencies(d) / frequencies(d, 500000.0)
    assert np.all(np.diff(ratio) > 0) and ratio[0] == 1.0


def test_spiral_what_if():
    d, rho = 8, 0.9
    S = {m: rho**m * rotation_matrix(m, d) for m in (-2, 1, 3, 4, 7)}
    assert np.allclose(S[3] @ S[4], S[7])  # steps still add
    assert np.allclose(S[3].T @ S[4], rho**7 * rotation_matrix(1, d))  # S_m^T S_n
    # the score at the same offset now depends on where the two vectors are
    assert not np.isclose(np.linalg.norm(S[1].T @ S[-2]), np.linalg.norm(S[3].T @ S[4]))
    v = np.ones(d)
    assert np.isclose(np.linalg.norm(S[3] @ v), rho**3 * np.linalg.norm(v))


def test_exercise_block_product():
    assert "exercise-block-product" in page_index("equations/rope.md").equations
    rng = np.random.default_rng(3)
    for a, b in rng.uniform(-50, 50, (5, 2)):
        Ra = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        Rb = np.array([[np.cos(b), -np.sin(b)], [np.sin(b), np.cos(b)]])
        Rba = np.array([[np.cos(b - a), -np.sin(b - a)], [np.sin(b - a), np.cos(b - a)]])
        assert np.allclose(Ra.T @ Rb, Rba)


def test_exercise_first_return_of_a_pair():
    theta = frequencies(64)
    assert np.isclose(theta[8], theta[0] / 10, rtol=1e-14, atol=0)
    for pair, turns in ((0, 53), (8, 6)):
        delta = np.arange(1, 2000)
        # distance of Delta theta_i to the nearest multiple of 2 pi, with math.remainder
        dist = np.array([abs(math.remainder(k * theta[pair], 2 * math.pi)) for k in delta])
        first = int(delta[np.argmax(dist < 0.01)])
        assert number(value(f"rope-return-pair-{pair}")) == first
        assert round(first * theta[pair] / (2 * math.pi)) == turns  # "close to turns 2 pi"


def test_exercise_one_degree_of_the_slowest_pair():
    lam = 2 * math.pi * 10000 ** (62 / 64)
    assert number(value("rope-slowest-degree")) == math.ceil(lam / 360)


def test_exercise_which_coordinates_form_pair_two():
    d, i = 8, 2
    assert [number(value(f"rope-layout-interleaved-{w}")) for w in "ab"] == [2 * i, 2 * i + 1]
    assert [number(value(f"rope-layout-half-{w}")) for w in "ab"] == [i, i + d // 2]
    # and apply_rope really turns those coordinates together in each layout
    for layout, (a, b) in (("interleaved", (4, 5)), ("half", (2, 6))):
        x = np.zeros((1, d))
        x[0, a] = 1.0
        y = apply_rope(x, [1.0], layout=layout)[0]
        assert set(np.flatnonzero(np.abs(y) > 1e-12)) == {a, b}
