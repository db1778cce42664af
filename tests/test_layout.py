"""The package holds the maths and the figures, nothing of the site's build or a browser."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Top-level modules the package must never import: the site's generator and its plugins, the
#: notebook tool chain, the browser driver.
FORBIDDEN = ("mkdocs", "material", "markdown", "pymdownx", "jupytext", "nbconvert", "nbclient",
             "nbformat", "mkdocs_jupyter", "playwright", "IPython")  # fmt: skip


def test_importing_the_package_and_its_figures_loads_no_site_or_browser_code():
    code = (
        "import sys, rope_explained, rope_explained.figures\n"
        "rope_explained.figures.load_all()\n"
        "print('\\n'.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = set(proc.stdout.split())
    assert "rope_explained" in loaded and "matplotlib" in loaded  # the check can see imports
    assert not loaded & set(FORBIDDEN), sorted(loaded & set(FORBIDDEN))


def test_no_module_of_the_package_imports_them_anywhere():
    """Not at import time and not inside a function either."""
    problems = []
    for path in sorted((ROOT / "rope_explained").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            bad = [n for n in names if n.split(".")[0] in FORBIDDEN]
            if bad:
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {bad}")
    assert not problems, "\n".join(problems)


def test_api_reference_documents_every_module():
    """Every module of the package and every figure module has its place in the API reference."""
    import pkgutil

    import rope_explained
    from rope_explained import figures

    reference = ROOT / "docs" / "reference"
    text = "\n".join(p.read_text(encoding="utf-8") for p in reference.glob("*.md"))
    public = [m.name for m in pkgutil.iter_modules(rope_explained.__path__) if m.name[0] != "_"]
    for name in public:
        assert f"::: rope_explained.{name}\n" in text, f"rope_explained.{name} has no reference"
    for module in figures.MODULES:
        assert f"::: rope_explained.figures.{module}\n" in text, module


def test_docstrings_are_written_for_the_api_reference():
    """The API reference renders docstrings as Markdown through mkdocstrings: a Sphinx role
    (``:func:`x```) would show as raw text there, and a ``#:`` comment above a constant is not
    read at all (griffe documents a constant by the string that follows it)."""
    import re

    role = re.compile(r":(?:class|func|meth|data|attr|mod|obj|exc):`")
    found = []
    for path in sorted((ROOT / "rope_explained").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if role.search(line) or line.lstrip().startswith("#:"):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []
