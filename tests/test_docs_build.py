"""The page conventions of the site's hooks (docs/hooks/numbering.py and hooklib.py): numbering,
anchors, references, figures, and the build failing on a broken page."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "docs" / "hooks" / "numbering.py"


def scan(text: str, number: int | None = 3):
    return hooklib.scan_page("p.md", textwrap.dedent(text), {"number": number})


def test_equations_are_numbered_in_page_order():
    index, problems = scan(
        """
        $$
        % eq: first
        a = b
        $$

        !!! what "What"
            $$
            % eq: second-one
            c = d
            $$

        ```
        $$
        not math in a code block
        $$
        ```
        """
    )
    assert problems == []
    assert index.equations == {"first": 1, "second-one": 2}
    assert index.eq_number("second-one") == "3.2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("$$\na = b\n$$\n", "without a label"),
        ("$$\n% eq: x\na\n$$\n\n$$\n% eq: x\nb\n$$\n", "duplicate equation label 'x'"),
        ("$$\n% eq: Bad_Label\na\n$$\n", "kebab-case"),
        ("$$ a = b $$\n", "alone on a line"),
        ("$$\n% eq: x\na\n", "never closed"),
        ("\\[\na\n\\]\n", "labelled '$$' block"),
        ('{{ figures("x") }}\n', "unknown macro 'figures'"),
        ('{{ figure("x") }}\n\n{{ figure("x") }}\n', "inserted twice"),
    ],
)
def test_problems_name_the_page_and_the_problem(text, message):
    _, problems = scan(text)
    assert problems, f"no problem found in {text!r}"
    assert any(p.startswith("p.md") and message in p for p in problems), problems


def test_numbered_content_needs_a_number():
    _, problems = scan("$$\n% eq: x\na\n$$\n", number=None)
    assert problems == [
        "p.md: has numbered equations or figures but no 'number:' in its front matter"
    ]
    _, problems = scan("no math here\n", number=None)
    assert problems == []


def _mini_site(tmp_path: Path, pages: dict[str, str]) -> subprocess.CompletedProcess:
    docs = tmp_path / "docs"
    for src, text in pages.items():
        (docs / src).parent.mkdir(parents=True, exist_ok=True)
        (docs / src).write_text(textwrap.dedent(text), encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        textwrap.dedent(
            f"""
            site_name: test
            docs_dir: {docs}
            site_dir: {tmp_path / "site"}
            theme: mkdocs
            hooks: [{HOOK}, {HOOK.with_name("mathjax.py")}]
            markdown_extensions:
              - admonition
              - attr_list
              - md_in_html
              - pymdownx.arithmatex:
                  generic: true
              - pymdownx.details
              - pymdownx.highlight
              - pymdownx.superfences
            """
        )
    )
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config)],
        cwd=ROOT,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_build_numbers_anchors_and_links(tmp_path):
    fig_id = "embedding-circle"
    proc = _mini_site(
        tmp_path,
        {
            "equations/token-embedding.md": f"""\
                ---
                number: 4
                ---
                # Page

                $$
                % eq: angle
                a_t = t \\pi / 13 < 2\\pi
                $$
                See {{{{ eq("angle") }}}} and {{{{ fig("{fig_id}") }}}}.

                {{{{ figure("{fig_id}") }}}}
                """,
            "other.md": """\
                # Other

                Back to {{ eq("equations/token-embedding.md#angle") }}.
                """,
        },
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    site = tmp_path / "site"
    html = (site / "equations/token-embedding/index.html").read_text()
    assert '<div class="arithmatex" id="eq-angle">' in html
    assert "\\tag{4.1}" in html and "&lt; 2\\pi" in html
    assert '<a class="eq-ref" href="#eq-angle">(4.1)</a>' in html
    assert f'href="#fig-{fig_id}">Figure&nbsp;4.1</a>' in html
    assert f'<figure class="rope-figure" id="fig-{fig_id}">' in html
    assert f'<img src="../../figures/{fig_id}.svg" alt="' in html
    assert "Figure 4.1.</span>" in html and "Download SVG" in html
    assert "Code for Figure 4.1: <code>rope_explained.figures.equations.token_embedding." in html
    assert "PLACEHOLDER" not in html
    other = (site / "other/index.html").read_text()
    assert 'href="../equations/token-embedding/#eq-angle">(4.1)</a>' in other
    assert (site / "figures" / f"{fig_id}.svg").read_bytes().startswith(b"<?xml")
    assert (site / "javascripts/vendor/mathjax/tex-svg.js").is_file()
    assert (site / "javascripts/vendor/mathjax/a11y/assistive-mml.js").is_file()


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ("---\nnumber: 1\n---\n$$\na\n$$\n", "bad.md:4: display equation without a label"),
        ("$$\n% eq: a\nx\n$$\n", "bad.md: has numbered equations or figures but no 'number:'"),
        ('---\nnumber: 1\n---\n{{ eq("nope") }}\n', "unknown equation label 'nope'"),
        ('---\nnumber: 1\n---\n{{ figure("nope") }}\n', "unknown figure id 'nope'; known: "),
        (
            '---\nnumber: 1\n---\n{{ figure("embedding-circle") }}\n',
            "figure 'embedding-circle' belongs to page 'equations/token-embedding'",
        ),
    ],
)
def test_build_fails_on_a_broken_page(tmp_path, page, message):
    proc = _mini_site(tmp_path, {"bad.md": page})
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr[-3000:]
