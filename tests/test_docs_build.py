"""The page conventions of the site's hooks (docs/hooks/numbering.py and hooklib.py): numbering,
anchors, references, figures, values, and the build failing on a broken page."""

from __future__ import annotations

import os
import re
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


def _mini_site(
    tmp_path: Path, pages: dict[str, str], hooks=None, extra: str = "", strict: bool = True
) -> subprocess.CompletedProcess:
    """Build a small site of ``pages`` (path -> Markdown) in ``tmp_path`` with the site's
    Markdown extensions, ``hooks`` (default: the numbering and typeset hooks) and ``extra``
    configuration (YAML), into ``tmp_path / "site"``."""
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
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            *(["--strict"] if strict else []),
            "-f",
            str(config),
        ],
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
    assert '<div class="arithmatex" id="eq-angle" data-search-exclude>' in html
    assert '<span class="katex-display">' in html  # typeset at build, by KaTeX
    assert 'class="katex-tag"' in html and "(4.1)" in html  # its number, from \\tag{4.1}
    assert "\\tag{4.1}" in html and "&lt; 2\\pi" in html  # the TeX, in the MathML annotation
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
    assert (site / "stylesheets/vendor/katex/katex.min.css").is_file()
    assert list((site / "stylesheets/vendor/katex/fonts").glob("KaTeX_Main-Regular.woff2"))


@pytest.mark.parametrize(
    ("page", "message"),
    [
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
    ],
)
def test_build_fails_on_a_broken_page(tmp_path, page, message):
    proc = _mini_site(tmp_path, {"bad.md": page})
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr[-3000:]
    if "unknown value id" in message:  # the message lists the registered ids
        known = proc.stderr.split(message, 1)[1].split("\n", 1)[0]
        assert known.split(", ") == sorted(figures.load_values())


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


class _Config:
    """What Memo.begin reads of MkDocs' configuration."""

    def __init__(self, docs_dir):
        self.docs_dir = str(docs_dir)


def test_memo_keeps_what_a_build_used_and_starts_over_when_its_salt_changes(tmp_path, monkeypatch):
    """docs/hooks/hooklib.py's Memo: values come back in a later build (another process reads
    the file), a build keeps only the entries it used, and a new salt starts empty."""
    monkeypatch.setattr(hooklib, "MEMO_DIR", tmp_path)
    config = _Config(tmp_path / "docs")
    calls = []

    def compute(x):
        calls.append(x)
        return {"double": 2 * x}

    first = hooklib.Memo("demo")
    first.begin(config, "lib 1.0")
    assert [first(first.key(str(x)), lambda x=x: compute(x)) for x in (1, 2, 1)] == [
        {"double": 2},
        {"double": 4},
        {"double": 2},
    ]
    assert calls == [1, 2]
    first.save()
    later = hooklib.Memo("demo")
    later.begin(config, "lib 1.0")
    assert later(later.key("2"), lambda: compute(2)) == {"double": 4}
    assert calls == [1, 2]  # read back, not computed again
    later.save()  # this build used "2" only
    again = hooklib.Memo("demo")
    again.begin(config, "lib 1.0")
    assert again.get(again.key("1")) is None and again.get(again.key("2")) == {"double": 4}
    newer = hooklib.Memo("demo")
    newer.begin(config, "lib 2.0")
    assert newer.get(newer.key("2")) is None  # another version: computed afresh
    assert hooklib.Memo.key("ab", "c") != hooklib.Memo.key("a", "bc")


def test_signature_memo_sees_through_the_handlers_random_placeholders(tmp_path, monkeypatch):
    """docs/hooks/api_reference.py: the handler hides each cross-reference of a signature behind
    a random placeholder of the name's length, new on every build. The formatter still runs once
    per signature, each build gets its own placeholders back, and the handler still has what
    the hook wraps (else the hook would silently do nothing)."""
    import api_reference  # docs/hooks/
    from mkdocstrings_handlers.python._internal import handler, rendering

    assert callable(getattr(rendering, "_get_formatter", None))
    assert isinstance(getattr(rendering.do_stash_crossref, "stash", None), dict)
    assert callable(getattr(handler.PythonHandler, "render", None))
    monkeypatch.setattr(hooklib, "MEMO_DIR", tmp_path)
    config = _Config(tmp_path / "docs")
    calls = []

    def formatter(code, line_length):
        calls.append(code)
        return code.replace("(", "(\n    ")

    builds = [{"_ab1": "np.ndarray", "_Zq": "int"}, {"_x9Q": "np.ndarray", "_p0": "int"}]
    for stash in builds:
        memo = hooklib.Memo("signatures")
        memo.begin(config, "ruff 1")
        fmt = api_reference.cached_formatter(formatter, stash, memo)
        a, i = stash  # the placeholders of "np.ndarray" and "int"
        code = f"def xx(q: {a}, n: {i} = 2, m: {i} = 3) -> {a}: pass"
        assert fmt(code, 20) == code.replace("(", "(\n    ")  # this build's placeholders
        assert fmt("def yy(s: str) -> str: pass", 20).startswith("def yy(\n")
        assert fmt("def yy(s: str) -> str: pass", 30).startswith("def yy(\n")
        memo.save()
    assert len(calls) == 3  # each (signature, line length) once, over both builds
    assert calls[0] == "def xx(q: _000, n: _01 = 2, m: _01 = 3) -> _000: pass"
    # a placeholder number that is also a name of the signature: not cached, formatted as is
    assert api_reference.canonical("def f(a: _00, b: _x1): pass", {"_x1": "int"}) is None


def test_api_reference_from_the_memo_is_the_api_reference_rendered(tmp_path):
    """A build whose API reference comes from docs/hooks/api_reference.py's memo writes the
    same files as the build that rendered it: pages, cross-references to aliases (a module's
    imported names, registered when rendering looks up their targets), and the inventory."""
    pages = {
        "experiments.md": "# experiments\n\n::: rope_explained.experiments\n",
        "heads.md": "# heads\n\n::: rope_explained.heads\n\n"
        "See [it][rope_explained.experiments.constant_key_vector].\n",
    }
    plugins = f"""
        plugins:
          - autorefs
          - mkdocstrings:
              handlers:
                python:
                  paths: [{ROOT}]
                  options:
                    show_source: false
                    separate_signature: true
                    signature_crossrefs: true
                    scoped_crossrefs: true
                    show_signature_annotations: true
                    line_length: 40
        """
    builds = []
    for name in ("rendered", "remembered"):
        site = tmp_path / name
        hook = ROOT / "docs" / "hooks" / "api_reference.py"
        # not strict: the docstrings also link to modules this small site leaves out
        proc = _mini_site(tmp_path, pages, hooks=[hook], extra=plugins, strict=False)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert "target 'rope_explained.experiments.constant_key_vector'" not in proc.stderr
        (tmp_path / "site").rename(site)
        builds.append((site, proc.stderr))
    (first, log1), (second, log2) = builds
    assert "API reference: 2 objects rendered, 0 from cache" in log1, log1[-2000:]
    assert "API reference: 0 objects rendered, 2 from cache" in log2, log2[-2000:]
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    differ = [f for f in files if (first / f).read_bytes() != (second / f).read_bytes()]
    assert differ == []
    heads = (second / "heads" / "index.html").read_text()
    assert 'href="#rope_explained.heads.constant_key_vector"' in heads  # the alias, resolved
    import zlib

    inventory = zlib.decompress((second / "objects.inv").read_bytes().split(b"\n", 4)[4])
    assert b"rope_explained.experiments.constant_key_vector py:" in inventory  # the alias


def test_search_entries_from_the_memo_are_the_entries_parsed(tmp_path, monkeypatch):
    """docs/hooks/search_index.py: a page's search entries come from the memo only while
    everything the search plugin reads of the page is unchanged, and equal what it parses."""
    import search_index  # docs/hooks/
    from material.plugins.search.plugin import SearchIndex
    from mkdocs.structure.toc import get_toc

    monkeypatch.setattr(hooklib, "MEMO_DIR", tmp_path)
    original = getattr(SearchIndex.add_entry_from_context, "original", None)
    original = original or SearchIndex.add_entry_from_context

    class Page:
        def __init__(self, content, title="T"):
            self.content, self.url, self.title, self.meta = content, "p/", title, {}
            self.toc = get_toc([{"level": 2, "id": "a", "name": "A", "children": []}])

    pages = [
        Page('<h1 id="t">T</h1><p>one</p><h2 id="a">A</h2><p>two</p>'),
        Page('<h1 id="t">T</h1><p>one</p><h2 id="a">A</h2><p>three</p>'),  # new content
        Page('<h1 id="t">T</h1><p>one</p><h2 id="a">A</h2><p>three</p>', title="U"),
    ]
    for build in range(2):
        memo = hooklib.Memo("search-entries")
        memo.begin(_Config(tmp_path / "docs"), "material 9")
        monkeypatch.setattr(search_index, "ENTRIES", memo)
        add = search_index.cached_add_entry(original, memo)
        for page in pages:
            cached, parsed = SearchIndex(), SearchIndex()
            add(cached, page)
            original(parsed, page)
            assert cached.entries == parsed.entries and parsed.entries
        assert (memo.added, memo.hits) == ((3, 0) if build == 0 else (0, 3))
        memo.save()
    assert [e["text"] for e in parsed.entries] == ["<p>one</p>", "<p>three</p>"]
