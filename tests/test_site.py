"""The built site as a reader's browser shows it: every page, in headless Chromium.

One pass opens every page of the site (fixtures in conftest.py) and records what the browser
saw; the tests below each assert one property of that record, so a failure names the property
and the pages. The static checks read the built HTML.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from conftest import ROOT
from readers import VIEWS, is_print_page, wait_for_page

#: TeX that must never be visible as text (code blocks excluded): the math is typeset at build.
RAW_TEX = ("\\(", "\\)", "\\[", "\\]", "$$", "\\frac", "\\theta", "\\tag", "\\mathrm")
#: What a math-typesetting script's address looks like (none may load: the math is HTML).
MATH_SCRIPTS = re.compile(r"mathjax|katex(?:\.min)?\.js|auto-render|tex-(?:svg|chtml)", re.I)


class _Anchors(HTMLParser):
    """Collect the ids of a page, its numbered equations and its figures."""

    def __init__(self):
        super().__init__()
        self.ids: list[str] = []
        self.equations: list[tuple[str | None, str]] = []  # (id, tag number)
        self.figures: list[str | None] = []
        self._in_math: str | None = None
        self._math_id: str | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.append(attrs["id"])
        classes = (attrs.get("class") or "").split()
        if tag == "div" and "arithmatex" in classes:
            self._in_math, self._math_id = "", attrs.get("id")
        if tag == "figure" and "rope-figure" in classes:
            self.figures.append(attrs.get("id"))

    def handle_data(self, data):
        if self._in_math is not None:
            self._in_math += data

    def handle_endtag(self, tag):
        if tag == "div" and self._in_math is not None:
            m = re.search(r"\\tag\{([^}]*)\}", self._in_math)
            if m:
                self.equations.append((self._math_id, m.group(1)))
            self._in_math = None


def _static(site_dir, path):
    parser = _Anchors()
    parser.feed((site_dir / path / "index.html").read_text(encoding="utf-8"))
    return parser


def _fail_pages(problems: dict[str, object], what: str):
    bad = {p: v for p, v in problems.items() if v}
    assert not bad, f"{what} on {len(bad)} page(s):\n" + "\n".join(
        f"  /{p}: {v}" for p, v in bad.items()
    )


def test_every_page_was_opened(reports, site_pages, content_pages):
    """Every page but the print edition (which the PDF's visit opens) was opened."""
    read_online = [p for p in site_pages if not is_print_page(p)]
    assert sorted(reports) == sorted(read_online) and len(read_online) >= len(content_pages) > 0
    missing = [p for p in content_pages if p not in reports]
    assert not missing, f"content pages missing from the built site: {missing}"


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_no_console_errors(views, view):
    _fail_pages({p: r["console"] for p, r in views[view].items()}, f"console errors ({view})")


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_no_failed_requests(views, view):
    _fail_pages({p: r["failed"] for p, r in views[view].items()}, f"failed requests ({view})")


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_only_local_requests(views, view):
    def foreign(urls):
        return [
            u
            for u in urls
            if urlsplit(u).scheme not in ("data", "blob", "about")
            and urlsplit(u).hostname != "127.0.0.1"
        ]

    _fail_pages(
        {p: foreign(r["requests"]) for p, r in views[view].items()},
        f"requests to other hosts ({view})",
    )


@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_no_page_loads_a_math_script(views, view):
    """The math is HTML written at build time: no page asks for a typesetting script."""
    _fail_pages(
        {
            p: [u for u in r["requests"] + r["scripts"] if MATH_SCRIPTS.search(u)]
            for p, r in views[view].items()
        },
        "math scripts loaded",
    )


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_all_math_typeset(views, view):
    """With JavaScript or without, on a desktop or a phone, every formula is typeset HTML."""
    reports = views[view]
    _fail_pages(
        {
            p: r["untypeset"] and f"{r['untypeset']} of {r['arithmatex']} formulas not typeset"
            for p, r in reports.items()
        },
        "untypeset math",
    )
    _fail_pages({p: r["mathErrors"] for p, r in reports.items()}, "KaTeX errors")
    _fail_pages({p: _leftovers(r["text"]) for p, r in reports.items()}, "raw TeX in the text")


def test_math_is_read_to_screen_readers_and_keeps_its_tex(reports):
    """Every formula carries MathML (what screen readers read) with its TeX as an annotation
    (what a reader who copies it gets)."""
    _fail_pages(
        {
            p: (r["mathml"] != r["formulas"] or r["texSource"] != r["formulas"])
            and f"{r['mathml']} MathML, {r['texSource']} TeX sources for {r['formulas']} formulas"
            for p, r in reports.items()
        },
        "formulas without MathML or TeX",
    )


def _leftovers(text: str) -> list[str]:
    found = []
    for token in RAW_TEX:
        i = text.find(token)
        if i >= 0:
            found.append(f"{token!r} in ...{' '.join(text[max(0, i - 40) : i + 40].split())}...")
    return found


def test_content_pages_have_math(reports, content_pages, site_dir):
    """Every content page whose Markdown has math shows typeset formulas."""
    problems = {}
    for path in content_pages:
        html = (site_dir / path / "index.html").read_text(encoding="utf-8")
        if 'class="arithmatex"' in html and reports[path]["formulas"] == 0:
            problems[path] = "math in the page, no .katex"
    _fail_pages(problems, "math not typeset")


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_nothing_widens_the_page(views, view):
    """No formula, figure, table or code block makes the page scroll sideways (a wide one
    scrolls inside its own box), on a 360 px phone too, with JavaScript or without."""
    _fail_pages(
        {p: r["overflow"] > 0 and f"{r['overflow']} px too wide" for p, r in views[view].items()},
        f"pages wider than the {view} screen",
    )


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_figures_show_in_every_view(views, content_pages, view):
    _fail_pages(
        {p: [i["src"][:120] for i in views[view][p]["images"] if not i["ok"]] for p in views[view]},
        f"images that did not load ({view})",
    )
    _fail_pages(
        {p: views[view][p]["figures"] == 0 and "no figure[id^=fig-] img" for p in content_pages},
        f"no build-time figure ({view})",
    )


def test_equation_numbers_are_spoken(reports, site_dir, content_pages):
    """Each numbered equation's assistive MathML carries its number "(N.k)"."""
    problems = {}
    for path in content_pages:
        if not (site_dir / path / "index.html").is_file():
            continue
        numbers = dict(_static(site_dir, path).equations)
        seen = {e["id"]: e["spoken"] for e in reports[path]["equations"]}
        bad = [
            f"#{eq_id} ({number})"
            for eq_id, number in numbers.items()
            if eq_id and f"({number})" not in seen.get(eq_id, "").replace(" ", "")
        ]
        problems[path] = bad
    _fail_pages(problems, "equation numbers missing from the typeset math")


def test_anchors_unique_and_numbered_items_anchored(site_dir, site_pages, summary):
    problems = {}
    n_eq = n_fig = 0
    for path in site_pages:
        if path == "print_page/":  # every page at once: each page's own anchors may repeat
            continue
        anchors = _static(site_dir, path)
        dupes = [i for i, n in Counter(anchors.ids).items() if n > 1]
        unanchored = [
            f"equation ({num}) id={i!r}"
            for i, num in anchors.equations
            if not (i or "").startswith("eq-")
        ]
        unanchored += [
            f"figure id={i!r}" for i in anchors.figures if not (i or "").startswith("fig-")
        ]
        n_eq += len(anchors.equations)
        n_fig += len(anchors.figures)
        problems[path] = dupes + unanchored
    summary.append(f"anchors: {n_eq} numbered equations and {n_fig} figures checked")
    _fail_pages(problems, "duplicate ids or unanchored equations/figures")


def test_instant_navigation_shows_the_new_page_math_only(
    browser, site_url, site_dir, content_pages
):
    """Following a nav link (instant navigation, no reload) shows the new page's formulas, and
    no formula of the page left behind."""
    counts = {
        p: (site_dir / p / "index.html").read_text(encoding="utf-8").count('class="katex"')
        for p in content_pages
        if (site_dir / p / "index.html").is_file()
    }
    with_math = [p for p, n in counts.items() if n]
    assert len(with_math) >= 2, f"need two pages with math to navigate between; have {with_math}"
    start, target = with_math[0], with_math[1]
    assert counts[start] != counts[target], "pick two pages with different numbers of formulas"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_url + start, wait_until="load")
    page.evaluate("window.__notReloaded = true")
    link = page.evaluate(
        """(target) => {
          const links = [...document.querySelectorAll('nav a[href]')].filter(a =>
            a.href === target && a.offsetParent !== null);
          if (!links.length) return false;
          links[0].setAttribute('data-test-target', '1');
          return true;
        }""",
        site_url + target,
    )
    assert link, f"no visible nav link from /{start} to /{target}"
    page.click("[data-test-target]")
    wait_for_page(page, site_url + target)
    # The address changes before the content is swapped in: wait for the new page's title,
    # which Material sets with its content.
    html_text = (site_dir / target / "index.html").read_text(encoding="utf-8")
    title = html.unescape(re.search(r"<title>(.*?)</title>", html_text, re.S).group(1))
    page.wait_for_function("title => document.title === title", arg=title)
    page.wait_for_function("() => document.querySelectorAll('article .katex').length > 0")
    result = page.evaluate(
        """() => {
          const clone = document.querySelector('article').cloneNode(true);
          clone.querySelectorAll('pre, code, .katex-mathml, .highlight').forEach(e => e.remove());
          return {kept: window.__notReloaded === true, text: clone.textContent,
                  n: document.querySelectorAll('.katex').length,
                  errors: document.querySelectorAll('.katex-error').length};
        }"""
    )
    context.close()
    assert result["kept"], "the link reloaded the page: instant navigation is off"
    assert result["n"] == counts[target], "formulas of the previous page left behind, or missing"
    assert result["errors"] == 0
    assert not _leftovers(result["text"]), "raw TeX after instant navigation"
    assert not errors, errors


def test_an_equation_copies_its_tex(browser, site_url, site_dir):
    """The copy button of a display equation puts its TeX (without the site's number) on the
    clipboard."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        page.goto(site_url + "equations/rope/", wait_until="load")
        button = page.locator("#eq-rotation-matrix .rope-copy-tex")
        want = button.get_attribute("data-clipboard-text")
        assert "\\begin{bmatrix}" in want and "\\tag" not in want, want
        page.hover("#eq-rotation-matrix")
        button.click()
        got = page.evaluate("navigator.clipboard.readText()")
    finally:
        context.close()
    assert got == want


# Weight: what each page brings of its own, and what the site leaves out -------------------------

#: A page's own HTML plus the figures it shows stays within this many bytes.
OWN_BYTES_LIMIT = 1_000_000


class _Images(HTMLParser):
    """The ``src`` of every ``<img>`` of a page, and the inline styles' total length."""

    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []
        self.style_chars = 0
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.append(dict(attrs).get("src") or "")
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style_chars += len(data)


def _images(site_dir, path) -> _Images:
    parser = _Images()
    parser.feed((site_dir / path / "index.html").read_text(encoding="utf-8"))
    return parser


def test_every_page_weighs_at_most_1_mb_of_its_own(site_dir, site_pages, summary):
    """A page's HTML plus the local images it shows (each once) stays within 1 MB (the print
    edition, the whole site on one page, excepted); its images are files (no data: URIs, which
    would be downloaded again with every visit)."""
    problems, largest = {}, (0, "")
    for path in site_pages:
        if path == "print_page/":
            continue  # the print edition holds every page: it is printed, not read online
        page_file = site_dir / path / "index.html"
        files = set()
        for src in _images(site_dir, path).srcs:
            target = urlsplit(src)
            if not target.scheme and target.path:
                file = (page_file.parent / target.path).resolve()
                assert file.is_file(), f"/{path}: image {src} is not in the site"
                files.add(file)
        own = page_file.stat().st_size + sum(f.stat().st_size for f in files)
        largest = max(largest, (own, path))
        inline = [s[:40] for s in _images(site_dir, path).srcs if s.startswith("data:")]
        problems[path] = (own > OWN_BYTES_LIMIT and f"{own:,} bytes") or (
            inline and f"inline images {inline}"
        )
    _fail_pages(problems, f"pages over {OWN_BYTES_LIMIT:,} bytes of their own, or inline images")
    summary.append(
        f"weight: largest page's own HTML + figures {largest[0]:,} bytes (/{largest[1]})"
    )


def test_notebook_pages_share_one_slim_style_sheet(site_dir):
    """The notebook pages carry no copy of nbconvert's style sheet: they link the site's one
    notebook style sheet, which holds only rules for what the pages use."""
    notebooks = sorted((ROOT / "docs" / "paper-to-code").glob("*.py"))
    pages = [site_dir / "paper-to-code" / p.stem for p in notebooks]
    assert len(pages) >= 2, pages
    sheet = site_dir / "stylesheets" / "notebook.css"
    css = sheet.read_text(encoding="utf-8")
    for page in pages:
        html = (page / "index.html").read_text(encoding="utf-8")
        assert 'href="../../stylesheets/notebook.css"' in html, page
        assert _images(site_dir, page.relative_to(site_dir)).style_chars < 20_000, page
    assert ".jp-Cell" in css and ".jp-OutputArea" in css  # the rules the notebooks need ...
    assert "bp3-" not in css  # ... and none for widgets the static pages do not have
    assert len(css.encode()) < 150_000


def test_search_index_leaves_out_copies(site_dir):
    """The print page repeats every page, and the code listings (figure code, API source)
    repeat the repository: the search index leaves them out, and still has the pages and the
    API's names and documentation."""
    import json

    docs = json.loads((site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = [d["location"] for d in docs["docs"]]
    assert not [x for x in locations if x.startswith("print_page")]
    assert any(x.startswith("equations/rope/") for x in locations)
    assert any(x.startswith("reference/model/#rope_explained.model.forward") for x in locations)
    # the figure and value functions of every page: each page shows its own figures' code
    assert not [x for x in locations if x.startswith(("reference/figures/", "reference/figure-"))]
    from rope_explained.figures import load_all

    for spec in load_all().values():  # a line of every figure's code: in no search entry
        lines = [x.strip() for x in spec.source().splitlines()]
        line = max((x for x in lines if re.fullmatch(r"[\w ,.=()\[\]+*-]{20,}", x)), key=len)
        hits = [d["location"] for d in docs["docs"] if line in d["text"]]
        assert not hits, f"the code of figure {spec.id} ({line!r}) is searched: {hits}"
    # no code block (listings, examples, signatures; a notebook's printed output stays, and
    # so do the copy buttons' hidden copies of its cells, which Material's search parser
    # does not leave out) ...
    coded = [d["location"] for d in docs["docs"] if "<pre><code>" in d["text"]]
    assert not coded, f"code blocks in the search index: {coded[:5]}"
    # ... while inline formulas read as the characters they show, not as TeX or nothing
    home = next(d["text"] for d in docs["docs"] if d["location"] == "#rope-in-three-sentences")
    assert "at position m pair i is rotated by the angle mθi" in home, home[:400]
    assert not [d["location"] for d in docs["docs"] if "\\(" in d["text"] or "\\theta" in d["text"]]
    # ... and a notebook's prose (its Markdown cells) is searched like a page's
    for page in ("paper-to-code/roformer/", "paper-to-code/roformer-exercise/"):
        html = (site_dir / page / "index.html").read_text(encoding="utf-8")
        searched = " ".join(d["text"] for d in docs["docs"] if d["location"].startswith(page))
        paragraphs = re.findall(
            r'<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown[^>]*>.*?<p>([^<]{40,})',
            html,
            re.S,
        )
        assert len(paragraphs) >= 3, page
        for text in paragraphs:
            words = " ".join(text.split()[:8])
            assert words in " ".join(searched.split()), f"{page}: {words!r} not searchable"


def test_pages_link_only_the_plugin_files_they_use(site_dir, site_pages):
    """The print edition's style sheet on the print edition only, mkdocstrings' style sheet on
    the pages with API documentation (the reference's modules: the print edition, the
    handout, leaves the API reference out); no page loads a script for the print edition."""
    for path in site_pages:
        html = (site_dir / path / "index.html").read_text(encoding="utf-8")
        head = html.partition("</head>")[0]
        is_print = path.startswith("print_page")
        assert ("assets/stylesheets/print-page.css" in head) == is_print, path or "home"
        assert "print-site" not in html.replace('id="print-site-', ""), path or "home"
        has_api = 'class="doc doc-' in html
        module_page = path.startswith("reference/") and path != "reference/"  # not the index
        assert has_api == module_page, path
        assert ("assets/_mkdocstrings.css" in head) == has_api, path


def test_site_style_sheet_is_the_source_without_comments(site_dir):
    """The site's copy of extra.css has the source's rules, token for token, and no comment."""
    source = (ROOT / "docs" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    built = (site_dir / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert "/*" in source and "/*" not in built and len(built) < 0.8 * len(source)
    assert _css_tokens(built) == _css_tokens(source) and len(_css_tokens(source)) > 500


def _css_tokens(text: str) -> list[str]:
    """A style sheet's tokens, blocks opened and closed, without comments; a run of spaces is
    one space, and none is kept next to ``, ; { }`` (where CSS ignores it). A space that
    matters, such as the descendant combinator in ``a .b``, is kept."""
    import tinycss2

    out: list[str] = []

    def walk(tokens):
        for t in tokens or []:
            if t.type == "comment":
                continue
            elif t.type == "whitespace":
                out.append(" ")
            elif t.type == "function":
                out.append(f"{t.lower_name}(")
                walk(t.arguments)
                out.append(")")
            elif t.type in ("() block", "[] block", "{} block"):
                out.append(t.type[:1])
                walk(t.content)
                out.append(t.type[1:2])
            else:
                out.append(tinycss2.serialize([t]))

    for rule in tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True):
        out.append(rule.type)
        if rule.type == "at-rule":
            out.append(rule.lower_at_keyword)
        walk(rule.prelude)
        out.append("{")
        walk(rule.content)
        out.append("}")
    kept: list[str] = []
    for i, token in enumerate(out):
        if token == " " and (
            (kept and kept[-1] in (" ", ",", ";", "{", "}"))
            or (i + 1 < len(out) and out[i + 1] in (" ", ",", ";", "{", "}"))
        ):
            continue
        kept.append(token)
    return kept
