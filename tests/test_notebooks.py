"""The paper-to-code notebooks: they run, their six sanity checks pass and can fail, the
exercise's stub raises, and the pages built from them are complete and self-contained.

The notebooks are jupytext percent scripts (``docs/paper-to-code/*.py``). The tests execute
their code cells in order in one namespace, as Jupyter would, then examine that namespace.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import jupytext
import matplotlib.pyplot as plt
import notebooks as hook  # docs/hooks/notebooks.py
import numpy as np
import pytest

import rope_explained
from rope_explained.figures import load_all

ROOT = Path(__file__).resolve().parent.parent
NB_DIR = ROOT / "docs" / "paper-to-code"
SOLUTION = NB_DIR / "roformer.py"
EXERCISE = NB_DIR / "roformer-exercise.py"
CHECK_NAMES = [
    "check_norm_preserved",
    "check_position_zero",
    "check_shift_invariance",
    "check_shape",
    "check_offsets_differ",
    "check_composition",
]


def code_cells(path: Path) -> list[str]:
    return [c.source for c in jupytext.read(path).cells if c.cell_type == "code"]


def markdown_text(path: Path) -> str:
    return "\n".join(c.source for c in jupytext.read(path).cells if c.cell_type == "markdown")


def run_cells(cells: list[str], name: str) -> tuple[dict, list[str]]:
    """Execute code cells in order in one namespace; return it and each cell's stdout.

    IPython magics (``%matplotlib inline``) are Jupyter's business and are skipped.
    """
    ns: dict = {"__name__": "__notebook__"}
    printed = []
    for i, source in enumerate(cells):
        code = "\n".join("" if line.startswith("%") else line for line in source.split("\n"))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, f"{name}[cell {i}]", "exec"), ns)  # noqa: S102
        printed.append(buf.getvalue())
    plt.close("all")
    return ns, printed


@pytest.fixture(scope="module")
def solution():
    return run_cells(code_cells(SOLUTION), SOLUTION.name)


@pytest.fixture(scope="module")
def exercise():
    return run_cells(code_cells(EXERCISE), EXERCISE.name)


# --- broken implementations, each violating one property --------------------------------------


def _identity(x, positions, base=10000.0):
    return np.array(x, dtype=float)


def _stretched(x, positions, base=10000.0):
    return 1.01 * rope_explained.apply_rope(x, positions, base)


def _off_by_one(x, positions, base=10000.0):
    return rope_explained.apply_rope(x, np.asarray(positions, dtype=float) + 1.0, base)


def _quadratic(x, positions, base=10000.0):
    p = np.asarray(positions, dtype=float)
    return rope_explained.apply_rope(x, p * np.abs(p), base)


def _flattened(x, positions, base=10000.0):
    out = rope_explained.apply_rope(x, positions, base)
    return out.reshape(-1, out.shape[-1])


#: broken implementation -> the check that must reject it
BROKEN = {
    _stretched: "check_norm_preserved",
    _off_by_one: "check_position_zero",
    _quadratic: "check_shift_invariance",
    _flattened: "check_shape",
    _identity: "check_offsets_differ",
}


# --- the solution notebook ---------------------------------------------------------------------


def test_solution_runs_all_six_checks(solution):
    ns, printed = solution
    assert [c.__name__ for c in ns["SANITY_CHECKS"]] == CHECK_NAMES
    for check in ns["SANITY_CHECKS"]:  # run them again here: they return, they do not raise
        assert isinstance(check(ns["apply_rope"]), str)
        assert isinstance(check(rope_explained.apply_rope), str)
    ok_lines = [line for out in printed for line in out.splitlines() if " OK: " in line]
    assert [line.split(" OK")[0] for line in ok_lines] == [f"check {i}" for i in range(1, 7)]


@pytest.mark.parametrize("broken", list(BROKEN), ids=lambda f: f.__name__.strip("_"))
def test_checks_reject_broken_implementations(solution, broken):
    ns, _ = solution
    checks = {c.__name__: c for c in ns["SANITY_CHECKS"]}
    with pytest.raises(AssertionError):
        checks[BROKEN[broken]](broken)


def test_composition_check_rejects_a_non_additive_rope(solution):
    ns, _ = solution
    checks = {c.__name__: c for c in ns["SANITY_CHECKS"]}
    with pytest.raises(AssertionError):
        checks["check_composition"](_quadratic)
    with pytest.raises(AssertionError):
        checks["check_composition"](_off_by_one)


def test_notebook_apply_rope_equals_the_package(solution):
    ns, _ = solution
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 5, 12))
    pos = np.array([0.0, 3.0, -2.0, 7.5, 1000.0])
    np.testing.assert_allclose(
        ns["apply_rope"](x, pos), rope_explained.apply_rope(x, pos), rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        ns["apply_rope"](x, pos), rope_explained.apply_rope_matrix(x, pos), rtol=0, atol=1e-12
    )
    with pytest.raises(ValueError, match="even"):
        ns["apply_rope"](np.ones((2, 3)), [0, 1])


def test_shift_demo_is_invariant(solution):
    ns, printed = solution
    assert len(ns["diffs"]) == 6
    assert max(ns["diffs"]) < 1e-9
    assert any("largest absolute difference across shifts" in out for out in printed)


def test_layouts_differ_by_a_fixed_permutation(solution):
    ns, _ = solution
    np.testing.assert_allclose(
        ns["half_then_permute"], ns["permute_then_interleaved"], rtol=0, atol=1e-12
    )
    # the same weights under the other layout: equal at offset 0 only
    assert abs(ns["as_trained"][0] - ns["wrong_layout"][0]) < 1e-9
    assert np.max(np.abs(ns["as_trained"] - ns["wrong_layout"])) > 1.0
    np.testing.assert_allclose(ns["as_trained"], ns["converted"], rtol=0, atol=1e-9)


def test_decay_bound_holds(solution):
    ns, _ = solution
    assert np.all(np.abs(ns["real_scores"]) <= ns["bound"])
    d = ns["d"]
    # at distance 0 every S_j = j, so the average of |S_j| is (d/2 + 1) / 2
    assert ns["decay_factor"][0] / (d // 2) == pytest.approx((d // 2 + 1) / 2)


def test_context_extension_numbers_in_the_prose(solution):
    """The numbers the prose quotes about PI, NTK and YaRN are the ones the code computes."""
    ns, _ = solution
    s, L, theta, slow = ns["s"], ns["L"], ns["theta"], ns["slow"]
    overshoot = {
        method: (s * L * inv_freq[slow]) / (L * theta[slow])
        for method, (inv_freq, _) in ns["rows"].items()
    }
    n_unseen = int(np.sum(overshoot["original"] > 1 + 1e-12))
    text = " ".join(markdown_text(SOLUTION).split())
    assert f"drives {n_unseen} slow pairs up to four times" in text
    assert overshoot["original"].max() == pytest.approx(4.0)
    assert np.max(overshoot["linear"]) == pytest.approx(1.0)
    assert np.max(overshoot["yarn"]) == pytest.approx(1.0)
    ntk = f"{overshoot['ntk'].max():.1f}"
    assert f"worst overshoot from 4 to about {ntk}" in text
    step = ns["rows"]["linear"][0][0]
    assert f"from 1 to {step:.2f} radians" in text
    assert ns["rows"]["yarn"][1] ** 2 == pytest.approx((0.1 * np.log(s) + 1) ** 2)


# --- the exercise notebook ---------------------------------------------------------------------


def test_exercise_stub_raises_not_implemented(exercise):
    ns, printed = exercise
    with pytest.raises(NotImplementedError):
        ns["apply_rope"](np.ones((1, 4)), [0])
    # with the stub in place, the checks ran against the reference, and the page says so
    assert ns["rope_under_test"] is rope_explained.apply_rope
    assert any("still a stub" in out and "reference solution" in out for out in printed)
    ok_lines = [line for out in printed for line in out.splitlines() if " OK: " in line]
    assert len(ok_lines) == 6


def test_exercise_has_the_same_checks(solution, exercise):
    def check_cell(path):
        (cell,) = [c for c in code_cells(path) if "SANITY_CHECKS = [" in c]
        body, last = cell.rstrip().rsplit("\n", 1)
        assert last.startswith("run_checks(")  # the cell ends by running the checks
        return body

    assert check_cell(EXERCISE) == check_cell(SOLUTION)
    ns_ex, _ = exercise
    ns_sol, _ = solution
    for check in ns_ex["SANITY_CHECKS"]:  # the solution's function passes the exercise's checks
        assert isinstance(check(ns_sol["apply_rope"]), str)
    for broken, name in BROKEN.items():  # and they reject what they should
        (check,) = [c for c in ns_ex["SANITY_CHECKS"] if c.__name__ == name]
        with pytest.raises(AssertionError):
            check(broken)


def test_exercise_tests_the_students_code_once_written():
    """Replace the stub by the solution's function: the checks now test that function."""
    solution_cell = next(c for c in code_cells(SOLUTION) if c.startswith("def apply_rope("))
    cells = [solution_cell if c.startswith("def apply_rope(") else c for c in code_cells(EXERCISE)]
    ns, printed = run_cells(cells, "exercise with a solution")
    assert ns["rope_under_test"] is ns["apply_rope"]
    assert ns["rope_under_test"] is not rope_explained.apply_rope
    assert any("Your apply_rope runs" in out for out in printed)
    assert sum(" OK: " in line for out in printed for line in out.splitlines()) == 6
    assert ns["gap"] < 1e-12


# --- figures and the notebook hook ------------------------------------------------------------


def _tagged_figures(path: Path) -> list[str]:
    return [m.group("id") for m in hooklib.RE_NOTEBOOK_FIGURE.finditer(path.read_text())]


def test_paper_figures_are_shown_by_the_notebook_pages():
    """Each figure of the paper-to-code modules is shown by a tagged cell of its notebook, and
    each notebook numbers its chapter's figures 1, 2, ... once each."""
    registry = load_all()
    shown = {path: _tagged_figures(path) for path in (SOLUTION, EXERCISE)}
    for path, ids in shown.items():
        assert ids, f"{path.name} shows no figure"
        assert hook.notebook_meta(path).get("first_figure", 1) == 1
        for fig_id in ids:
            assert registry[fig_id].page == f"paper-to-code/{path.stem}", fig_id
        assert len(set(ids)) == len(ids)
    pages = {f"paper-to-code/{path.stem}" for path in shown}
    ids = {i for i in registry if registry[i].page in pages}
    assert ids == {i for v in shown.values() for i in v}


def test_figure_cells_call_the_registered_function():
    """The cell tagged fig:<id> runs exactly the function registered under <id>, so the plot a
    reader sees in Jupyter is the one the site shows."""
    registry = load_all()
    for path in (SOLUTION, EXERCISE):
        for cell in jupytext.read(path).cells:
            tags = [t for t in cell.metadata.get("tags", []) if t.startswith("fig:")]
            if not tags:
                continue
            spec = registry[tags[0].removeprefix("fig:")]
            assert cell.source.strip().endswith(f".{spec.func.__name__}()"), cell.source


def test_notebook_front_matter():
    numbers = [hook.notebook_meta(path)["number"] for path in (SOLUTION, EXERCISE)]
    assert numbers[1] == numbers[0] + 1  # the exercise version follows the worked notebook
    assert all(hook.notebook_meta(path)["title"] for path in (SOLUTION, EXERCISE))


def test_mark_math_matches_arithmatex_markup():
    cell = (
        '<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput">'
        "<p>Let $x_1 &lt; y$ cost <code>$5</code>.</p>\n"
        '<p><a id="eq-sum"></a></p>\n<p>$$\na + b \\tag{10.1}\n$$</p></div>'
        "<div><p>outside $z$</p></div>"
    )
    out = hook.mark_math(cell)
    assert '<span class="arithmatex">\\(x_1 &lt; y\\)</span>' in out
    assert "<code>$5</code>" in out
    assert '<div class="arithmatex" id="eq-sum">\\[\na + b \\tag{10.1}\n\\]</div>' in out
    assert "outside $z$" in out  # only Markdown cells are touched


# --- the built pages ---------------------------------------------------------------------------


@pytest.mark.parametrize("stem", ["roformer", "roformer-exercise"])
def test_built_notebook_page(site_dir, stem):
    page_dir = site_dir / "paper-to-code" / stem
    html = (page_dir / "index.html").read_text(encoding="utf-8")
    # downloads: the jupytext source and an .ipynb that Jupyter can open
    assert f'href="{stem}.ipynb"' in html and f'href="{stem}.py"' in html
    assert (page_dir / f"{stem}.py").read_text() == (NB_DIR / f"{stem}.py").read_text()
    nb = json.loads((page_dir / f"{stem}.ipynb").read_text())
    assert nb["nbformat"] == 4 and nb["metadata"]["kernelspec"]["language"] == "python"
    ipynb_code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert ipynb_code == code_cells(NB_DIR / f"{stem}.py")
    assert [c["id"] for c in nb["cells"]] == [f"cell-{k}" for k in range(len(nb["cells"]))]
    # no script from another host, and nbconvert's loaders are gone
    assert not re.search(r"<script[^>]*src=[\"']?(https?:)?//", html)
    assert "cdnjs" not in html and "text/x-mathjax-config" not in html
    # every display equation of the notebook is anchored and numbered (N.k) in its chapter N
    number = hook.notebook_meta(NB_DIR / f"{stem}.py")["number"]
    labels = re.findall(r'<a id="(eq-[a-z0-9-]+)"></a>', (NB_DIR / f"{stem}.py").read_text())
    for k, label in enumerate(labels, start=1):
        m = re.search(rf'<div class="arithmatex" id="{label}"[^>]*>(.*?)</div>', html, re.DOTALL)
        assert m and f"\\tag{{{number}.{k}}}" in m.group(1), label
    # figures: anchored, with alt text and a numbered caption, drawn from a file (no inline image)
    path = NB_DIR / f"{stem}.py"
    first = hook.notebook_meta(path).get("first_figure", 1)
    for k, fig_id in enumerate(_tagged_figures(path)):
        m = re.search(rf'<figure class="rope-figure" id="fig-{fig_id}">(.*?)</figure>', html, re.S)
        assert m, fig_id
        assert re.search(rf'<img src="../../figures/{fig_id}.svg" alt="[^"]{{40,}}"', m.group(1))
        assert f"Figure {number}.{first + k}." in m.group(1)
        assert (site_dir / "figures" / f"{fig_id}.svg").is_file()
    assert "data:image/png;base64,iVBOR" not in html.split("</style>")[-1], "an inline image"
    # two builds write the same page: no random cell ids
    assert not re.search(r'id="cell-id=[0-9a-f]{8}"', html)


def test_browser_typesets_notebook_math(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        for stem in ("roformer", "roformer-exercise"):
            page = context.new_page()
            requests = []
            page.on("request", lambda r, out=requests: out.append(r.url))
            page.goto(f"{site_url}paper-to-code/{stem}/", wait_until="load")
            result = page.evaluate(
                """() => {
                  const cells = [...document.querySelectorAll('.jp-RenderedMarkdown')];
                  const raw = cells.filter(c => {
                    const t = c.cloneNode(true);
                    t.querySelectorAll('code, pre, .katex-mathml').forEach(e => e.remove());
                    return /\\$|\\\\\\(|\\\\\\[/.test(t.textContent);
                  }).length;
                  return {typeset: document.querySelectorAll(
                            '.jp-RenderedMarkdown .katex').length,
                          raw, errors: document.querySelectorAll('.katex-error').length,
                          figures: [...document.querySelectorAll('figure.rope-figure img')]
                            .map(i => i.naturalWidth > 0 && i.alt.length > 40)};
                }"""
            )
            assert result["typeset"] > 10, result
            assert result["raw"] == 0 and result["errors"] == 0, result
            assert result["figures"] and all(result["figures"]), result
            own = [u for u in requests if u.startswith(site_url) or u.startswith("data:")]
            scripts = [u for u in requests if u not in own and u.endswith((".js", ".mjs"))]
            assert not scripts, scripts
            page.close()
    finally:
        context.close()


def test_failing_cell_fails_the_build(tmp_path):
    """With the site's mkdocs-jupyter settings and the notebook hook, which executes the
    notebooks, an exception in a cell stops the build."""
    import yaml

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !!python/name etc.
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)
    (entry,) = [p for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p]
    settings = entry["mkdocs-jupyter"]
    assert settings["allow_errors"] is False
    docs = tmp_path / "docs" / "paper-to-code"
    docs.mkdir(parents=True)
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (docs / "broken.py").write_text(
        textwrap.dedent(
            """\
            # ---
            # jupyter:
            #   kernelspec:
            #     display_name: Python 3
            #     language: python
            #     name: python3
            #   rope_explained:
            #     title: Broken
            #     number: 1
            # ---

            # %% [markdown]
            # # Broken

            # %%
            raise RuntimeError("this cell fails on purpose")
            """
        )
    )
    minimal = {
        "site_name": "notebook failure",
        "docs_dir": str(tmp_path / "docs"),
        "site_dir": str(tmp_path / "site"),
        "nav": [{"Home": "index.md"}, {"Broken": "paper-to-code/broken.py"}],
        "plugins": [{"mkdocs-jupyter": settings}],
        "hooks": [str(ROOT / "docs" / "hooks" / "notebooks.py")],
    }
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(minimal))
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(tmp_path / "mkdocs.yml")],
        cwd=tmp_path,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode != 0
    assert "paper-to-code/broken.py: a cell failed" in proc.stderr
    assert "this cell fails on purpose" in proc.stderr


# --- the solution notebook's exercises ------------------------------------------------------------


def _printed_after(printed: list[str], marker: str) -> str:
    (out,) = [o for o in printed if marker in o]
    return out


def test_exercise_a_wrong_schedule_passes_every_check(solution):
    """Exercise 1: the six checks cannot see the frequencies; any rotation by positions passes,
    here the package's own with another base, so the cell's verdict is not a fluke of the
    changed function."""
    ns, printed = solution
    assert set(ns["verdicts"]) == set(CHECK_NAMES)
    assert set(ns["verdicts"].values()) == {"passes"}
    other_base = lambda x, p, base=10000.0: rope_explained.apply_rope(x, p, 37.0)  # noqa: E731
    for check in ns["SANITY_CHECKS"]:
        assert isinstance(check(other_base), str)
    # the changed line is the frequencies: pair i at 10000^(-i/d)
    turned = ns["apply_rope_changed"](np.eye(64)[[2]], [1.0])  # pair 1's first unit vector
    assert turned[0, 2] == pytest.approx(np.cos(10000.0 ** (-1 / 64)), abs=1e-12)
    assert ns["changed_gap"] > 1.0  # far from the reference
    out = _printed_after(printed, "under apply_rope_changed")
    assert f"rope_explained.apply_rope: {ns['changed_gap']:.2f}" in out
    for name, rate in (
        ("apply_rope", 10000.0 ** (-62 / 64)),
        ("apply_rope_changed", 10000.0 ** (-31 / 64)),
    ):
        assert f"under {name}: {rate:.2e} radians" in out
    assert " OK: " not in out  # the six-check lines stay those of the checks cell


def test_exercise_decay_for_similar_content(solution):
    """Exercise 2, recomputed with random q = k: the average of q^T R_r q / |q|^2 over many
    draws tends to (2/d) sum_i cos(r theta_i)."""
    ns, printed = solution
    d, r = 128, ns["distances"]
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    expected = np.array([np.mean(np.cos(t * theta)) for t in r])
    first = int(np.flatnonzero(expected < 0.5)[0])
    assert ns["first_half"] == first
    assert ns["later_peak"] == pytest.approx(expected[first:].max(), abs=1e-12)
    assert ns["later_peak"] > 0.5  # "rises above one half again"
    assert -0.1 < expected.min() < 0  # "never reaches far below zero"
    out = _printed_after(printed, "first distance below one half")
    assert f"first distance below one half: {first}" in out
    # Monte Carlo: identical random content, isotropic, at the first distance
    rng = np.random.default_rng(0)
    q = rng.standard_normal((4000, d))
    ratio = np.mean(
        np.einsum("nd,nd->n", rope_explained.apply_rope(q, np.full(4000, first)), q)
        / np.einsum("nd,nd->n", q, q)
    )
    assert ratio == pytest.approx(expected[first], abs=0.02)  # 4000 draws: sd about 0.003


def test_exercise_a_larger_base_leaves_more_pairs_unturned(solution):
    _, printed = solution
    out = _printed_after(printed, "never complete a turn")
    for base, length in ((10000.0, 2048), (500000.0, 8192), (10000.0, 8192)):
        count = sum(1 for i in range(64) if 2 * np.pi * base ** (2 * i / 128) > length)
        assert f"L = {length:>5,}: {count} of 64 pairs" in out
    counts = [int(re.search(r": (\d+) of 64", line).group(1)) for line in out.splitlines()]
    assert counts[1] > counts[0] > counts[2]  # more slow pairs with the larger base
