"""The page conventions of the site's hooks (docs/hooks/numbering.py and hooklib.py): numbering,
anchors, references, figures, values, and the build failing on a broken page."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import hooklib  # docs/hooks/, put on sys.path by conftest.py
import pytest

from rope_explained import figures

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


def test_values_are_collected_outside_code_blocks_only():
    index, problems = scan(
        """
        Stated {{ value("one") }} and, in math, \\(x = {{ value('two') }}\\).

        $$
        % eq: first
        y = {{ value("three") }}
        $$

        ```
        {{ value("not-in-code") }}
        ```
        """
    )
    assert problems == []
    assert list(index.values) == ["one", "two", "three"]
    assert index.values["one"] == "p.md:2" and index.values["three"] == "p.md:6"
    # a page that only states values needs no chapter number
    assert scan('Stated {{ value("one") }}.\n', number=None)[1] == []


def test_numbered_content_needs_a_number():
    _, problems = scan("$$\n% eq: x\na\n$$\n", number=None)
    assert problems == [
        "p.md: has numbered equations or figures but no 'number:' in its front matter"
    ]
    _, problems = scan("no math here\n", number=None)
    assert problems == []


def _python(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run this Python with ``args`` (a MkDocs build, or a script of builds) and capture what it
    prints."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
        timeout=900,
    )


def _write_mini_site(tmp_path: Path, pages: dict[str, str], hooks=None, extra: str = "") -> Path:
    """Write a small site of ``pages`` (path -> Markdown) in ``tmp_path`` with the site's
    Markdown extensions, ``hooks`` (default: the numbering and typeset hooks) and ``extra``
    configuration (YAML), to be built into ``tmp_path / "site"``; its configuration file."""
    hooks = hooks or [HOOK, HOOK.with_name("typeset.py")]
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
            hooks: [{", ".join(map(str, hooks))}]
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
        + textwrap.dedent(extra)
    )
    return config


def _mini_site(
    tmp_path: Path, pages: dict[str, str], hooks=None, extra: str = "", strict: bool = True
) -> subprocess.CompletedProcess:
    """Build a small site (:func:`_write_mini_site`) with ``mkdocs build``."""
    config = _write_mini_site(tmp_path, pages, hooks, extra)
    return _python("-m", "mkdocs", "build", *(["--strict"] * strict), "-f", str(config))


#: Build each configuration given on the command line in one process, one after the other, as
#: ``mkdocs build --strict`` builds it; print for each whether it built and what it logged.
STRICT_BUILDS = r"""
import io, json, logging, sys
from mkdocs.commands.build import build
from mkdocs.config import load_config

logger = logging.getLogger("mkdocs")
logger.setLevel(logging.INFO)
out = []
for config in sys.argv[1:]:
    log = io.StringIO()
    handler = logging.StreamHandler(log)
    logger.addHandler(handler)
    try:
        build(load_config(config_file=config, strict=True))
        built = True
    except (Exception, SystemExit) as err:
        built = False
        log.write(f"{type(err).__name__}: {err}\n")
    finally:
        logger.removeHandler(handler)
    out.append([built, log.getvalue()])
print(json.dumps(out))
"""


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
    assert '<div class="arithmatex" id="eq-angle" data-search-exclude>' in html
    assert '<span class="katex-display" tabindex="0">' in html  # typeset at build, by KaTeX
    # its number, from \\tag{4.1}: a link to the equation after the formula (KaTeX's own number,
    # in markup screen readers skip, is gone), and an anchor named after it before the block
    assert 'class="katex-tag"' not in html
    assert (
        '<a class="rope-eq-number" href="#eq-angle" title="Link to equation (4.1)">(4.1)</a>'
        in html
    )
    assert (
        '<span class="rope-alias" id="eq-4.1"></span><div class="arithmatex" id="eq-angle"' in html
    )
    assert "\\tag{4.1}" in html and "&lt; 2\\pi" in html  # the TeX, in the MathML annotation
    assert '<a class="eq-ref" href="#eq-angle">(4.1)</a>' in html
    assert f'href="#fig-{fig_id}">Figure&nbsp;4.1</a>' in html
    assert f'<figure class="rope-figure" id="fig-{fig_id}">' in html
    assert f'<img src="../../figures/{fig_id}.svg" alt="' in html
    assert f'href="#fig-{fig_id}" title="Link to Figure 4.1">Figure 4.1.</a>' in html
    assert '<span class="rope-alias" id="fig-4.1"></span><figure' in html
    assert "Download SVG" in html
    assert "Code for Figure 4.1: <code>rope_explained.figures.equations.token_embedding." in html
    assert "PLACEHOLDER" not in html
    other = (site / "other/index.html").read_text()
    assert 'href="../equations/token-embedding/#eq-angle">(4.1)</a>' in other
    assert (site / "figures" / f"{fig_id}.svg").read_bytes().startswith(b"<?xml")
    assert (site / "stylesheets/vendor/katex/katex.min.css").is_file()
    assert list((site / "stylesheets/vendor/katex/fonts").glob("KaTeX_Main-Regular.woff2"))


#: A broken page (bad.md) and what the build must say of it.
BROKEN_PAGES = [
    ("---\nnumber: 1\n---\n$$\na\n$$\n", "bad.md:4: display equation without a label"),
    ("$$\n% eq: a\nx\n$$\n", "bad.md: has numbered equations or figures but no 'number:'"),
    ('---\nnumber: 1\n---\n{{ eq("nope") }}\n', "unknown equation label 'nope'"),
    ('---\nnumber: 1\n---\n{{ figure("nope") }}\n', "unknown figure id 'nope'; known: "),
    ('Say {{ value("nope") }}.\n', "bad.md:1: unknown value id 'nope'; known: "),
    (
        'Say {{ value("embedding-sigma-1") }}.\n',
        "value 'embedding-sigma-1' belongs to page 'equations/token-embedding', not to 'bad'",
    ),
    (
        '---\nnumber: 1\n---\n{{ figure("embedding-circle") }}\n',
        "figure 'embedding-circle' belongs to page 'equations/token-embedding'",
    ),
]


#: A sound page, built last in the same process: the driver tells a good build from a failed one.
SOUND_PAGE = "# Good\n\nNothing wrong here.\n"


@pytest.fixture(scope="module")
def broken_builds(tmp_path_factory) -> list[tuple[bool, str]]:
    """Each site of one broken page, then the site of :data:`SOUND_PAGE`, built with
    ``--strict``, all in one MkDocs process (one start-up for all): whether each built, and
    what it logged."""
    pages = [page for page, _ in BROKEN_PAGES] + [SOUND_PAGE]
    configs = [_write_mini_site(tmp_path_factory.mktemp("page"), {"bad.md": p}) for p in pages]
    proc = _python("-c", STRICT_BUILDS, *map(str, configs))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [tuple(case) for case in json.loads(proc.stdout.strip().splitlines()[-1])]


@pytest.mark.parametrize("case", range(len(BROKEN_PAGES)))
def test_build_fails_on_a_broken_page(broken_builds, case):
    message = BROKEN_PAGES[case][1]
    built, log = broken_builds[case]
    assert not built
    assert message in log, log[-3000:]
    if "unknown value id" in message:  # the message lists the registered ids
        known = log.split(message, 1)[1].split("\n", 1)[0]
        assert known.split(", ") == sorted(figures.load_values())


def test_a_sound_page_builds_where_the_broken_ones_fail(broken_builds):
    built, log = broken_builds[len(BROKEN_PAGES)]
    assert built, log


def test_build_states_values_in_text_math_and_captions(tmp_path):
    """A value macro becomes the value function's text, in prose, in inline and display math
    and in a figure's caption; a second build takes every value from the cache."""
    sigma = figures.get_value("embedding-sigma-1").compute()
    wavelength = figures.get_value("rope-slowest-wavelength-text").compute()
    caption = figures.get("rope-frequencies").caption
    in_caption = {m.group("arg") for m in hooklib.RE_MACRO.finditer(caption)}
    assert "rope-slowest-wavelength-text" in in_caption
    pages = {
        "equations/token-embedding.md": """\
            ---
            number: 1
            ---
            # Page

            The largest singular value is {{ value("embedding-sigma-1") }}, or
            \\(\\sigma_1 = {{ value("embedding-sigma-1") }}\\):

            $$
            % eq: sigma
            \\sigma_1 = {{ value("embedding-sigma-1") }}
            $$
            """,
        "equations/rope.md": """\
            ---
            number: 2
            ---
            # Rope

            {{ figure("rope-frequencies") }}
            """,
    }
    proc = _mini_site(tmp_path, pages)
    assert proc.returncode == 0, proc.stderr[-3000:]
    site = tmp_path / "site"
    html = (site / "equations/token-embedding/index.html").read_text()
    assert f"largest singular value is {sigma}, or" in html
    # inside math the value is part of the TeX, kept in the typeset formula's annotation
    assert f'<annotation encoding="application/x-tex">\\sigma_1 = {sigma}</annotation>' in html
    assert f"\\sigma_1 = {sigma}\n\\tag{{1.1}}</annotation>" in html
    rope = (site / "equations/rope/index.html").read_text()
    shown = rope.split("<figcaption>", 1)[1].split("</figcaption>", 1)[0]
    assert f"once every {wavelength}." in shown
    for text in (html, rope):  # none left, but in the figure's code, which shows its source
        prose = re.sub(r"<details.*?</details>", "", text, flags=re.S)
        assert "{{ value" not in prose and 'value("' not in prose
    again = _mini_site(tmp_path, pages)
    assert again.returncode == 0, again.stderr[-3000:]
    cached = f"values: 0 computed, {1 + len(in_caption)} from cache"
    assert cached in again.stderr, again.stderr[-3000:]


# ------------------------------------------------------------------------------------------------
# The build's cache (docs/hooks/cache.py) and the package as it is now (hooklib.package)
# ------------------------------------------------------------------------------------------------


def test_cache_keeps_one_entry_per_name(tmp_path, monkeypatch):
    """An entry is read back under its key only; writing a new key replaces the old entry of
    the same name and leaves the names that merely start alike."""
    import cache  # docs/hooks/

    monkeypatch.setattr(cache, "DIR", tmp_path)
    k1, k2 = cache.key("a", b"1"), cache.key("a", b"2")
    assert len({k1, k2, cache.key("a1", b"")}) == 3
    assert cache.read("figures", "x", k1, "svg") is None
    cache.write("figures", "x", k1, "svg", b"one")
    cache.write("figures", "x-y", k1, "svg", b"other")
    assert cache.read("figures", "x", k1, "svg") == b"one"
    cache.write("figures", "x", k2, "svg", b"two")
    assert cache.read("figures", "x", k1, "svg") is None
    assert cache.read("figures", "x", k2, "svg") == b"two"
    assert cache.read("figures", "x-y", k1, "svg") == b"other"
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [
        f"x-{k2}.svg",
        f"x-y-{k1}.svg",
    ]


def test_cache_key_covers_the_code_a_figure_depends_on(tmp_path, monkeypatch):
    """Editing a module of the package changes the key of every figure that imports it (the
    context-extension measurements: some figures, not all); editing one page's figure module
    changes that page's figures only; a module no figure imports, nothing."""
    monkeypatch.setattr(hooklib, "ROOT", tmp_path)
    copy = tmp_path / "rope_explained"
    shutil.copytree(ROOT / "rope_explained", copy, ignore=shutil.ignore_patterns("__pycache__"))
    registry = figures.load_all()
    ids = sorted(registry)

    def keys():
        hooklib.BUILD.reset()
        hooklib.BUILD.package = hooklib.BUILD.figures = figures  # the registry as it is
        return {i: hooklib.entry_key(registry[i]) for i in ids}

    before = keys()
    deps = {i: figures.module_dependencies(registry[i].func.__module__) for i in ids}
    uses_extension = {i for i in ids if "rope_explained.extension" in deps[i]}
    assert uses_extension and uses_extension != set(ids), "some figures import it, some do not"

    def edited(rel: str) -> set[str]:
        path = copy / rel
        path.write_text(path.read_text() + "\n# edited\n")
        try:
            return {i for i, k in keys().items() if k != before[i]}
        finally:
            path.write_text(path.read_text().removesuffix("\n# edited\n"))

    assert edited("extension.py") == uses_extension
    page_module = registry["rope-frequencies"].func.__module__
    assert edited("figures/equations/rope.py") == {
        i for i in ids if registry[i].func.__module__ == page_module
    }
    assert edited("figures/__init__.py") == set(ids), "the registry and renderer count for all"
    (copy / "unrelated.py").write_text("x = 1\n")
    assert keys() == before
    hooklib.BUILD.reset()


PROBE = """

@value("probe-level")
def probe_level() -> str:
    from .. import probe

    return str(probe.LEVEL)


@register("probe-figure", caption="A probe.", alt="A horizontal line at the level of the probe.")
def probe_figure():
    from .. import probe

    fig, ax = new_figure()
    ax.axhline(probe.LEVEL)
    ax.set_ylim(0, 10)
    return fig
"""
TWO_BUILDS = """
import sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

root = Path(sys.argv[1])
config = load_config(str(root / "mkdocs.yml"))
seen = []
for level in (1, 2):
    (root / "rope_explained" / "probe.py").write_text(f"LEVEL = {level}\\n")
    build(config)
    page = (root / "site" / "index.html").read_text(encoding="utf-8")
    svg = (root / "site" / "figures" / "probe-figure.svg").read_text(encoding="utf-8")
    seen.append((page.split("Level: ")[1].split("<")[0], svg))
print(repr(seen))
"""


def test_a_build_after_an_edit_of_the_package_shows_the_edit(tmp_path):
    """One MkDocs process builds twice, as ``mkdocs serve`` does, and the package is edited in
    between (a module that a value and a figure import, not their own module): the second
    build states the new value and draws the new figure."""
    for folder in ("rope_explained", "docs/hooks"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__py*"))
    home = tmp_path / "rope_explained" / "figures" / "home.py"
    home.write_text(
        home.read_text() + "\nfrom . import value  # noqa: E402\n" + PROBE, encoding="utf-8"
    )
    (tmp_path / "docs" / "index.md").write_text(
        '---\nnumber: 1\n---\n# Probe\n\nLevel: {{ value("probe-level") }}\n\n'
        '{{ figure("probe-figure") }}\n',
        encoding="utf-8",
    )
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: probe\ntheme: mkdocs\nhooks: [docs/hooks/numbering.py]\n"
        "exclude_docs: /hooks/\nmarkdown_extensions: [attr_list, md_in_html]\n",
        encoding="utf-8",
    )
    proc = _python("-c", TWO_BUILDS, str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (level1, svg1), (level2, svg2) = eval(proc.stdout.strip().splitlines()[-1])  # noqa: S307
    assert (level1, level2) == ("1", "2")
    assert svg1 != svg2
