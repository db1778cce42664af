"""Printing: the one-page edition of the site, the print style of every page, and the PDF.

* ``print_page/`` holds every page of the navigation, with all its equations and figures.
* In print, a page shows no navigation chrome, keeps its typeset math and its figures, and
  spells out the address of each link that leaves the document.
* ``make pdf`` (``tools/print_pdf.py``) prints the one-page edition: at least one PDF page
  per site page, every chapter starting on its own page, math typeset as vector glyphs (no TeX
  left in the text).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from conftest import CLEANUP, YIELDING, background, job_result, run_checked
from print_visit import CONTROLS_SHOWN

from tools import browser as browser_tools
from tools import print_pdf
from tools.browser import serve_in_child

ROOT = Path(__file__).resolve().parent.parent
#: Where a mike deploy on a project's Pages holds a version: the site's own folder.
VERSION_FOLDER = "rope-explained/0.1.0"
RAW_TEX = ("\\frac", "\\theta", "\\tag", "\\mathrm", "\\left", "$$", "\\(", "\\[")


def _print_html(site_dir: Path) -> str:
    return (site_dir / "print_page" / "index.html").read_text(encoding="utf-8")


def _chapters(print_html: str) -> list[tuple[str, str, int, int]]:
    """``(section id, title, display equations, figures)`` of each page on the print page."""
    parts = re.split(r'(<section class="print-page" id="[^"]+"[^>]*>)', print_html)
    out = []
    for head, body in zip(parts[1::2], parts[2::2], strict=True):
        sid = re.search(r'id="([^"]+)"', head).group(1)
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", body, re.S)
        title = _heading(h1.group(1)) if h1 else ""
        out.append((sid, title, body.count('<div class="arithmatex"'), body.count("<figure")))
    return out


def test_print_page_holds_every_page_with_its_math_and_figures(site_dir, content_pages):
    print_html = _print_html(site_dir)
    assert "ROPE-FIGURE-PLACEHOLDER" not in print_html, "figures missing on the print page"
    chapters = {sid: (n_eq, n_fig) for sid, _, n_eq, n_fig in _chapters(print_html)}
    for path in content_pages:
        key = path.strip("/").replace("/", "-") or "index"
        assert key in chapters, f"{path or 'home'} is not on the print page"
        page_html = (site_dir / path / "index.html").read_text(encoding="utf-8")
        article = page_html.split('<article class="md-content__inner md-typeset">', 1)[1]
        article = article.split('<section class="rope-cite"', 1)[0]
        n_eq = article.count('<div class="arithmatex"')
        n_fig = article.count("<figure")
        assert chapters[key] == (n_eq, n_fig), f"{path}: equations, figures {chapters[key]}"
    assert sum(n_fig for _, n_fig in chapters.values()) > 0
    assert 'class="rope-cite"' not in print_html, "the cite blocks belong to the single pages"
    cover = re.search(r'<section id="print-site-cover-page">(.*?)</section>', print_html, re.S)
    assert cover and "Version dev" in cover.group(1) and "CC BY 4.0" in cover.group(1)


def _code_text(page_html: str) -> str:
    """The text of every code block and inline code of a page."""
    blocks = re.findall(r"<pre\b[^>]*>.*?</pre>", page_html, re.S)
    rest = re.sub(r"<pre\b[^>]*>.*?</pre>", "", page_html, flags=re.S)
    blocks += re.findall(r"<code\b[^>]*>.*?</code>", rest, re.S)
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", b)) for b in blocks)


PRINT_PROBE = r"""
async () => {
  await document.fonts.ready;
  const shown = (el) => !!el && getComputedStyle(el).display !== 'none' &&
                        el.getBoundingClientRect().height > 0;
  const after = (a) => getComputedStyle(a, '::after').content;
  const article = document.querySelector('article');
  const external = [...article.querySelectorAll('a[href^="http"]')]
      .filter(a => !a.closest('.md-header, .md-footer') && new URL(a.href).host !== location.host);
  return {
    chrome: ['.md-header', '.md-sidebar--primary', '.md-sidebar--secondary', '.md-footer',
             '.md-tabs', '.md-search'].filter(s => shown(document.querySelector(s))),
    math: document.querySelectorAll('article .arithmatex .katex').length,
    mathShown: [...document.querySelectorAll('article .arithmatex .katex-html')]
        .filter(shown).length,
    arithmatex: [...article.querySelectorAll('.arithmatex')]
        .filter(el => el.getClientRects().length > 0).length,
    figures: [...article.querySelectorAll('figure.rope-figure img')]
        .map(img => shown(img) && img.naturalWidth > 0),
    external: external.map(a => [a.getAttribute('href'), after(a)]),
    refs: [...article.querySelectorAll('a.eq-ref, a.fig-ref')].map(after),
    cite: shown(document.querySelector('.rope-cite')),
  };
}
"""


@pytest.mark.parametrize("path", ["equations/rope/", "notes/semantic-heads/"])
def test_a_page_prints_without_chrome_with_math_figures_and_link_addresses(path, site_url, browser):
    page = browser.new_page()
    try:
        page.emulate_media(media="print")
        page.goto(site_url + path)
        seen = page.evaluate(PRINT_PROBE)
        controls = page.evaluate(CONTROLS_SHOWN)
        page.emulate_media(media="screen")
        on_screen = page.evaluate(CONTROLS_SHOWN)
    finally:
        page.close()
    assert seen["chrome"] == [], f"{path}: shown in print: {seen['chrome']}"
    # Ctrl+P prints none of the page's controls (that the screen shows)
    assert {".rope-chapter-pdf", "details.example", "figure.rope-figure details"} <= set(on_screen)
    assert controls == [], f"{path}: controls shown in print: {controls}"
    assert seen["math"] >= seen["arithmatex"] > 0 and seen["mathShown"] >= seen["arithmatex"]
    assert seen["figures"] and all(seen["figures"]), f"{path}: a figure does not print"
    assert seen["external"], f"{path}: no external link to check"
    for href, content in seen["external"]:
        assert href in content, f"{path}: the address of {href} is not printed ({content})"
    assert all(c == "none" for c in seen["refs"]), "equation/figure numbers need no address"
    assert seen["cite"], "the citation prints with the page"


@background("site_pdf", after=("site_build", "site_server"))
def _print_the_site(site_build, site_server) -> dict:
    """The handout and its chapters' PDFs, printed by ``make pdf``'s function from the print
    page served at the site's root, and the handout read back (in the background, by a process
    with a browser of its own: ``python tests/print_visit.py``).

    The print page's visit is recorded first (its requests, errors and table of contents), for
    :func:`test_print_page_served_anywhere_asks_only_for_what_is_there`; the PDFs are then
    printed from the same page, as ``make pdf`` prints them once the page has loaded; last, the
    print page of the same site served from :data:`VERSION_FOLDER` is visited, for that test."""
    folder = Path(tempfile.mkdtemp(prefix="rope-pdf-"))
    CLEANUP.append(lambda: shutil.rmtree(folder, ignore_errors=True))
    out = folder / "rope-explained.pdf"
    # the same site in a folder as a mike deploy on a project's Pages holds it
    served = folder / "served"
    (served / "rope-explained").mkdir(parents=True)
    (served / VERSION_FOLDER).symlink_to(site_build[0].resolve(), target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    printer = [sys.executable, str(Path(__file__).with_name("print_visit.py"))]
    with serve_in_child(served) as elsewhere:
        cmd = [*YIELDING, *printer, site_server, str(out), elsewhere + VERSION_FOLDER + "/"]
        run_checked("printing the handout", cmd, env)
    read = [sys.executable, str(Path(__file__).with_name("pdf_text.py")), str(out)]
    run_checked("reading the handout", [*YIELDING, *read, str(folder / "pages.json")], env)
    pages = json.loads((folder / "pages.json").read_text(encoding="utf-8"))
    visit = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    handout, controls = visit.pop("then")
    handout["chapters"] = [(*rest, Path(pdf)) for *rest, pdf in handout["chapters"]]
    handout = print_pdf.Handout(**handout)
    return {
        "path": out,
        "handout": handout,
        "n_math": handout.n_math,
        "pages": pages,
        "controls": controls,
        "visit": visit,
    }


@pytest.fixture(scope="module")
def site_pdf(site_url) -> dict:
    """The handout (``path``), what printing it found (``handout``: its chapters' PDFs among
    them), its number of typeset formulas (``n_math``), each page's text and fonts
    (``pages``), and the visit of the print page it was printed from."""
    return job_result("site_pdf")


def _site_url_of(print_html: str) -> str:
    """The version's address, as the print page's cover states it."""
    return html.unescape(re.search(r'class="rope-cover__address" href="([^"]+)"', print_html)[1])


def _norm(text: str) -> str:
    return " ".join(text.replace("\u200b", "").replace("\xa0", " ").split())


def _heading(inner: str) -> str:
    """The text of a heading's HTML as a reader sees it (KaTeX's MathML copy left out)."""
    inner = re.sub(r'<span class="katex-mathml">.*?</math></span>', "", inner, flags=re.S)
    inner = re.sub(r'<a class="(?:headerlink|anchor-link)"[^>]*>.*?</a>', "", inner, flags=re.S)
    return _norm(html.unescape(re.sub(r"<[^>]+>", "", inner)))


def _printed(print_html: str) -> list[dict]:
    """The parts and pages of the print page in order: ``id``, ``part``, ``title`` (its h1)
    and, for a page, the titles of its ``h2`` sections and its HTML."""
    out = []
    for m in re.finditer(r'<section class="print-page( md-section)?" id="([^"]+)">', print_html):
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", print_html[m.end() :], re.S)
        item = {"id": m[2], "part": bool(m[1]), "title": _heading(h1[1])}
        if not m[1]:
            end = print_html.find('<section class="print-page', m.end())
            body = print_html[m.end() : end if end > 0 else None]
            item["h2"] = [_heading(h) for h in re.findall(r"<h2[^>]*>(.*?)</h2>", body, re.S)]
            item["html"] = body
        out.append(item)
    return out


def _chapter_pages(marks, n_pages) -> dict[str, tuple[int, int]]:
    """``title -> (first page, last page)`` of each top-level bookmark."""
    top = [(title, page) for level, title, page in marks if level == 0]
    ends = [page - 1 for _, page in top[1:]] + [n_pages]
    return {_norm(title): (page, end) for (title, page), end in zip(top, ends, strict=True)}


def test_handout_bookmarks_every_chapter_and_its_sections(site_pdf, site_dir, summary):
    from pdf_text import outline

    marks = outline(site_pdf["path"])
    texts = [p["text"] for p in site_pdf["pages"]]
    ranges = _chapter_pages(marks, len(texts))
    printed = _printed(_print_html(site_dir))
    top = [_norm(t) for level, t, _ in marks if level == 0]
    assert [p["title"] for p in printed] == [t for t in top if t in ranges][-len(printed) :]
    for item in printed:
        first, _ = ranges[item["title"]]
        assert item["title"] in _norm(texts[first - 1]), f"{item['title']} is not on its page"
        if item["part"]:
            continue
        i = next(
            i
            for i, (lvl, t, page) in enumerate(marks)
            if lvl == 0 and _norm(t) == item["title"] and page == first
        )
        children = []
        for level, title, page in marks[i + 1 :]:
            if level == 0:
                break
            if level == 1:
                children.append(_norm(title))
                assert first <= page <= ranges[item["title"]][1], (item["title"], title, page)
        assert children == item["h2"], f"{item['title']}: bookmarks {children}"
    summary.append(f"handout: {len(marks)} bookmarks, {len(printed)} parts and chapters")


def test_handout_contents_give_the_page_of_each_entry(site_pdf, site_dir):
    from pdf_text import outline

    texts = [p["text"] for p in site_pdf["pages"]]
    ranges = _chapter_pages(outline(site_pdf["path"]), len(texts))
    first, last = ranges["Table of Contents"]
    contents = _norm(" ".join(texts[first - 1 : last]))
    print_html = _print_html(site_dir)
    toc = print_html.split('<div id="print-page-toc">', 1)[1].split("</nav>", 1)[0]
    titles = {p["id"]: p["title"] for p in _printed(print_html)}
    entries = re.findall(r'<a href="#([^"]+)"><span class="print-page-toc-title">(.*?)</span>', toc)
    assert len(entries) == len(titles), "every part and page is in the contents"
    for ident, label in entries:
        page = ranges[titles[ident]][0]
        label = _norm(html.unescape(label))
        assert re.search(re.escape(label) + rf" ?{page}\b", contents), f"{label}: page {page}"
    assert site_pdf["handout"].passes == 2, "the page numbers settle in the second print"


def test_handout_pages_carry_their_chapter_address_and_number(site_pdf, site_dir):
    from pdf_text import outline

    texts = [p["text"] for p in site_pdf["pages"]]
    ranges = _chapter_pages(outline(site_pdf["path"]), len(texts))
    address = _site_url_of(_print_html(site_dir))
    for item in _printed(_print_html(site_dir)):
        first, last = ranges[item["title"]]
        for n in range(first, last + 1):
            lines = [_norm(line) for line in texts[n - 1].splitlines()]
            assert item["title"] in lines, f"page {n}: no running head {item['title']!r}"
            assert f"{address} {n}" in lines, f"page {n}: no footer {address} {n}"
    cover = [_norm(line) for line in texts[0].splitlines()]
    assert "1" not in cover, "the cover has no page number"


def test_handout_leaves_out_the_api_reference_and_the_controls(site_pdf, site_dir, site_pages):
    print_html = _print_html(site_dir)
    printed = _printed(print_html)
    address = _site_url_of(print_html)
    assert not [p["id"] for p in printed if p["id"].startswith("reference")]
    reference = [p for p in site_pages if p.startswith("reference/")]
    assert reference, "the site has an API reference"
    titles = {p["title"] for p in printed}
    for path in reference:
        h1 = re.search(r"<h1[^>]*>(.*?)</h1>", (site_dir / path / "index.html").read_text("utf-8"))
        assert _heading(h1[1]) not in titles, f"{path} is in the handout"
    # links to the API reference go to the version's pages online
    content = print_html.split('<div id="print-site-page">', 1)[1].split("</article>", 1)[0]
    hrefs = re.findall(r'<a [^>]*href="([^"]*reference/[^"]*)"', content)
    assert hrefs and all(h.startswith(address + "reference/") for h in hrefs), hrefs[:5]
    # none of the site's controls shows on the print page, and none of their text is printed
    assert site_pdf["controls"] == [], f"shown in print: {site_pdf['controls']}"
    words: set[str] = set()
    for path in site_pages:
        page = (site_dir / path / "index.html").read_text("utf-8")
        words |= {
            _heading(t)
            for t in re.findall(
                r'<a class="(?:md-button[^"]*|rope-figure__download)"[^>]*>(.*?)</a>', page
            )
        }
        words |= {
            _heading(t).split(":")[0]
            for t in re.findall(
                r'<details[^>]*class="[^"]*(?:rope-reproduce|abstract|mkdocstrings-source)'
                r'[^"]*"[^>]*>\s*<summary>(.*?)</summary>',
                page,
                re.S,
            )
        }
    words |= {"Download this chapter as PDF", "Handout (PDF)", "Search"}
    assert {"Reproduce", "Start with the equations", "Download SVG", "Code for Figure 2.1"} & words
    everything = _norm(" ".join(p["text"] for p in site_pdf["pages"]))
    found = sorted(w for w in words if w and w in everything)
    assert not found, f"the PDF prints the site's controls: {found}"
    lines = {_norm(line) for p in site_pdf["pages"] for line in p["text"].splitlines()}
    assert "Answer" not in lines, "an answer's collapsed block is printed where its question is"


def test_handout_gathers_each_chapters_answers_at_its_end(site_pdf, site_dir):
    from pdf_text import outline

    marks = outline(site_pdf["path"])
    texts = [p["text"] for p in site_pdf["pages"]]
    ranges = _chapter_pages(marks, len(texts))
    checked = 0
    for item in _printed(_print_html(site_dir)):
        if item["part"]:
            continue
        path = next(p for p in _pages_by_key(site_dir) if p[0] == item["id"])[1]
        page = (site_dir / path / "index.html").read_text("utf-8")
        n = len(re.findall(r'<details class="example">\s*<summary>Answer</summary>', page))
        body = item["html"]
        assert '<details class="example">' not in body
        assert body.count('class="admonition example print-answer"') == n, item["id"]
        assert body.count('class="print-answer-ref"') == n
        first, last = ranges[item["title"]]
        answers = [
            page
            for level, title, page in marks
            if level == 1 and title == "Answers" and first <= page <= last
        ]
        assert len(answers) == (1 if n else 0), f"{item['title']}: Answers bookmark"
        if n:
            tail = _norm(" ".join(texts[answers[0] - 1 : last]))
            assert len(re.findall(r"Exercise \d+", tail)) == n, item["title"]
            before = _norm(" ".join(texts[first - 1 : answers[0] - 1]))
            assert before.count("Answer: at the end of the chapter") == n
            checked += 1
    assert checked > 0


def _pages_by_key(site_dir) -> list[tuple[str, str]]:
    """``(section id on the print page, site path)`` of every page of the built site."""
    import print_page

    out = []
    for index in sorted(site_dir.rglob("index.html")):
        rel = index.parent.relative_to(site_dir).as_posix()
        path = "" if rel == "." else rel + "/"
        out.append((print_page.page_key(path), path))
    return out


def test_chapter_pdfs_are_the_handouts_pages_of_each_chapter(site_pdf, site_dir, summary):
    import pypdf
    from pdf_text import outline, page_texts

    marks = outline(site_pdf["path"])
    texts = [p["text"] for p in site_pdf["pages"]]
    ranges = _chapter_pages(marks, len(texts))
    printed = [p for p in _printed(_print_html(site_dir)) if not p["part"] and p["id"] != "index"]
    chapters = site_pdf["handout"].chapters
    assert [c[0] for c in chapters] == [p["id"] for p in printed]
    counts = []
    for (ident, title, first, last, path), item in zip(chapters, printed, strict=True):
        assert _norm(title) == item["title"]
        assert path.name == f"{ident}.pdf" and path.parent.name == "pdf"
        # the site links each chapter's PDF where make pdf writes it
        assert (site_dir / "pdf" / path.name).is_file(), f"the site has no pdf/{path.name}"
        assert (first, last) == ranges[item["title"]], f"{ident}: pages {first}-{last}"
        reader = pypdf.PdfReader(path)
        assert len(reader.pages) == last - first + 1
        assert reader.page_labels[0] == str(first) and reader.page_labels[-1] == str(last)
        own = outline(path)
        assert [_norm(t) for lvl, t, _ in own if lvl == 0] == [item["title"]]
        children = [_norm(t) for lvl, t, _ in own if lvl == 1]
        assert children == item["h2"], f"{ident}: bookmarks {children}"
        got = page_texts(path, [1, len(reader.pages)])
        assert got[1] == texts[first - 1] and got[len(reader.pages)] == texts[last - 1]
        counts.append(f"{ident} {len(reader.pages)}")
    summary.append(f"handout: {len(texts)} pages; chapters: {', '.join(counts)}")


def test_make_pdf_runs_the_print_module():
    proc = subprocess.run(
        ["make", "-n", "pdf", "BIN=.venv/bin"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "-m tools.print_pdf site rope-explained.pdf --chapters pdf" in proc.stdout


def test_chromium_is_the_headless_shell_else_the_browser_else_a_clear_error(monkeypatch, tmp_path):
    shell, full = tmp_path / "chromium-headless-shell", tmp_path / "chromium"
    monkeypatch.setattr(browser_tools, "CHROMIUM_DEFAULTS", (str(shell), str(full)))
    monkeypatch.delenv("CHROMIUM", raising=False)
    with pytest.raises(FileNotFoundError, match="chromium-headless-shell.*CHROMIUM="):
        browser_tools.chromium_path()
    full.touch()
    assert browser_tools.chromium_path() == str(full)
    shell.touch()
    assert browser_tools.chromium_path() == str(shell)
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "elsewhere"))  # set: used, or refused
    with pytest.raises(FileNotFoundError, match="elsewhere"):
        browser_tools.chromium_path()


def test_pdf_of_the_whole_site(site_pdf, site_dir, content_pages, summary):
    path, n_math = site_pdf["path"], site_pdf["n_math"]
    assert path.is_file() and path.read_bytes()[:5] == b"%PDF-"
    print_html = _print_html(site_dir)
    n_marked = len(re.findall(r'<(?:div|span) class="arithmatex"', print_html))
    assert n_math >= n_marked > 0, "all math typeset before printing"
    texts = [p["text"] for p in site_pdf["pages"]]
    assert len(texts) >= len(content_pages)
    # TeX shows only where the site shows source code (docstrings keep their TeX there).
    code = _code_text(print_html)
    everything = "\n".join(texts)
    for tex in RAW_TEX:
        assert everything.count(tex) <= code.count(tex), f"the PDF shows raw TeX {tex!r}"
    # Each chapter starts on a page of its own, in navigation order.
    toc_end = max(i for i, t in enumerate(texts[:10]) if "Table of Contents" in t)
    start = toc_end + 1
    first_pages = []
    for sid, title, n_eq, _ in _chapters(print_html):
        if not title:
            continue
        found = next(
            (i for i in range(start, len(texts)) if title in map(_norm, texts[i].splitlines()[:4])),
            None,
        )
        assert found is not None, f"chapter {title!r} ({sid}) not found after PDF page {start}"
        first_pages.append((found, title, n_eq))
        start = found + 1
    assert len(first_pages) >= len(content_pages)
    # Math is set in KaTeX's own fonts, embedded in the PDF on the pages of every chapter
    # that has equations.
    bounds = [p for p, _, _ in first_pages] + [len(texts)]
    for (first, title, n_eq), end in zip(first_pages, bounds[1:], strict=True):
        if n_eq:
            fonts = set().union(*(site_pdf["pages"][i]["fonts"] for i in range(first, end)))
            assert any("KaTeX_Main" in f for f in fonts), f"{title}: fonts {sorted(fonts)}"
            assert any("KaTeX_Math" in f for f in fonts), f"{title}: fonts {sorted(fonts)}"
    summary.append(
        f"PDF: {len(texts)} pages, {len(first_pages)} chapters, {n_math} typeset formulas, "
        f"{path.stat().st_size / 1e6:.1f} MB"
    )


# ------------------------------------------------------------------------------------------------
# The print page's in-page links (docs/hooks/print_page.py)
# ------------------------------------------------------------------------------------------------


#: Ids the print page adds around the answers it gathers (docs/hooks/print_page.py).
RE_ANSWER_IDS = re.compile(r"-answer-\d+(?:-question)?$|-answers(?:-title)?$")


class _Links(HTMLParser):
    """The ids and links of an HTML text, each with the page sections of the print page
    (``section.print-page``, innermost last) that hold it and its offset in the text; the ids
    (``answer_ids``) and links (``"answer"``) inside an exercise's answer, collapsed where the
    question is (``details.example``) or gathered at the end (``div.print-answer``)."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text
        self.ids: list[tuple[str, str, tuple[str, ...], int]] = []  # id, tag, sections, offset
        self.links: list[dict] = []  # href, cls, text, sections
        self.page_sections: list[str] = []  # ids of the print page's page sections, in order
        self.answer_ids: set[str] = set()
        self._sections: list[str] = []
        self._blocks: list[bool] = []  # open <details> and <div>: whether each is an answer
        self._link: dict | None = None
        self._lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self.feed(text)
        self.close()

    def _offset(self) -> int:
        line, col = self.getpos()
        return self._lines[line - 1] + col

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag in ("details", "div"):
            self._blocks.append(
                "print-answer" in classes or (tag, classes) == ("details", ["example"])
            )
        answer = any(self._blocks)
        if answer and a.get("id"):
            self.answer_ids.add(a["id"])
        if tag == "section":
            cls = classes
            page = "print-page" in cls and "md-section" not in cls and a.get("id")
            self._sections.append(a["id"] if page else "")
            if page:
                self.page_sections.append(a["id"])
        if a.get("id"):
            self.ids.append((a["id"], tag, tuple(s for s in self._sections if s), self._offset()))
        if tag == "a" and a.get("href") is not None:
            self._link = {
                "href": a["href"],
                "cls": a.get("class") or "",
                "text": "",
                "sections": tuple(s for s in self._sections if s),
                "answer": answer,
            }
            self.links.append(self._link)

    def handle_data(self, data):
        if self._link is not None:
            self._link["text"] += data

    def handle_endtag(self, tag):
        if tag == "a":
            self._link = None
        elif tag == "section" and self._sections:
            self._sections.pop()
        elif tag in ("details", "div") and self._blocks:
            self._blocks.pop()

    def element(self, ident: str) -> tuple[str, tuple[str, ...], str] | None:
        """``(tag, sections, html from its start tag on)`` of the element with id ``ident``."""
        for i, tag, sections, offset in self.ids:
            if i == ident:
                return tag, sections, self.text[offset : offset + 4000]
        return None


def _page_content(page_html: str) -> str:
    """What a built page shows of its own content: its article without the edit buttons'
    links (dropped below) and the citation block."""
    article = page_html.split('<article class="md-content__inner md-typeset">', 1)[1]
    article = article.split("</article>", 1)[0]
    return article.split('<section class="rope-cite"', 1)[0]


def _target(links: _Links, href: str) -> tuple[str, tuple[str, ...], str]:
    """The element an in-page link ``#x`` of the print page lands on."""
    found = links.element(unquote(href[1:])) if href.startswith("#") else None
    assert found is not None, f"the link {href!r} lands on no element of the print page"
    return found


def _site_path(href: str, page_url: str) -> tuple[str, str]:
    """A link of the page at ``page_url`` resolved to ``(site path, fragment)``."""
    resolved = urlsplit(urljoin("/" + page_url, href))
    path = resolved.path.lstrip("/")
    return (path[: -len("index.html")] if path.endswith("index.html") else path), unquote(
        resolved.fragment
    )


def test_print_page_links_land_where_the_pages_own_links_land(site_dir, site_pages, summary):
    """Every link of every page of the handout is on the print page, in order (an exercise's
    answer moved to the end of its chapter), and lands where the page's link lands: the same
    section, equation or figure, as an in-page anchor; a link to another file of the site, the
    API reference among them, goes to that file at the version's address."""
    print_html = _print_html(site_dir)
    address = _site_url_of(print_html)
    printed = _Links(print_html)
    ids = Counter(i for i, *_ in printed.ids)
    in_page = [link["href"] for link in printed.links if link["href"].startswith("#")]
    duplicates = sorted(i for i, n in ids.items() if n > 1)
    broken = [h for h in in_page if h != "#" and unquote(h[1:]) not in ids]
    assert not duplicates, f"ids repeated on the print page: {duplicates[:10]}"
    assert not broken, f"{len(broken)} of {len(in_page)} in-page links broken: {broken[:10]}"

    keys = {path.strip("/").replace("/", "-") or "index": path for path in site_pages}
    pages = {keys[k]: k for k in printed.page_sections}
    handout = [p for p in site_pages if p != "print_page/" and not p.startswith("reference/")]
    assert sorted(pages) == sorted(handout), "pages missing"

    def section_of(sections):
        return sections[-1] if sections else None

    originals: dict[str, _Links] = {}

    def original(path: str) -> _Links:
        if path not in originals:
            html = (site_dir / path / "index.html").read_text(encoding="utf-8")
            originals[path] = _Links(_page_content(html))
        return originals[path]

    def print_id(path: str, fragment: str) -> str | None:
        """The id on the print page of the element the page ``path`` has as ``#fragment``."""
        key = pages[path]
        if not fragment:
            return key
        mine = original(path)
        own = sorted([(i, tag) for i, tag, _, _ in mine.ids], key=lambda x: x[0] in mine.answer_ids)
        here = sorted(
            [
                (i, tag)
                for i, tag, sections, _ in printed.ids
                if section_of(sections) == key and i != key and not RE_ANSWER_IDS.search(i)
            ],
            key=lambda x: x[0] in printed.answer_ids,
        )
        assert [t for _, t in own] == [t for _, t in here], f"{path}: ids differ in kind"
        return dict(zip([i for i, _ in own], [i for i, _ in here], strict=True)).get(fragment)

    misdirected, checked, outside = [], 0, 0
    for path, key in sorted(pages.items()):
        mine = sorted(
            [a for a in original(path).links if "md-content__button" not in a["cls"].split()],
            key=lambda a: a["answer"],
        )
        theirs = sorted(
            [
                a
                for a in printed.links
                if section_of(a["sections"]) == key and "print-answer-link" not in a["cls"]
            ],
            key=lambda a: a["answer"],
        )
        assert [(a["cls"], a["text"]) for a in mine] == [(a["cls"], a["text"]) for a in theirs], (
            f"{path}: the print page's links are not the page's links"
        )
        for a, b in zip(mine, theirs, strict=True):
            href = a["href"]
            if urlsplit(href).scheme or href.startswith("//"):
                if b["href"] != href:
                    misdirected.append((path, href, b["href"]))
                continue
            target, fragment = _site_path(href, path)
            if target in pages:
                checked += 1
                expected = print_id(target, fragment)
                assert expected is not None, f"{path}: {href} is broken on the page itself"
                if b["href"] != "#" + expected:
                    misdirected.append((path, href, b["href"], "#" + expected))
            else:
                outside += 1
                there = b["href"][len(address) :] if b["href"].startswith(address) else None
                if there is None or _site_path("/" + there, "") != (target, fragment):
                    misdirected.append((path, href, b["href"], f"{address}{target}"))
    assert not misdirected, f"{len(misdirected)} links land elsewhere: {misdirected[:10]}"
    assert outside > 0, "links to the API reference and to files"
    summary.append(
        f"print page: {len(in_page)} in-page links, 0 broken, 0 misdirected "
        f"({checked} links of the pages checked against their own targets, {outside} to the "
        f"version's address)"
    )


def _number(text: str, pattern: str) -> str | None:
    m = re.search(pattern, text, re.S)
    return m.group(1) if m else None


def test_print_page_cross_references_name_their_targets(site_dir):
    """Equation and figure references land on the equation or figure they name: "(3.2)" on the
    equation tagged 3.2 of its own chapter, "Figure 4.1" on that figure. (The API reference is
    not in the handout: its own cross-references are tested on its pages, and the rewriting of
    such a page by :func:`test_print_section_rewrites_ids_links_and_addresses`.)"""
    print_html = _print_html(site_dir)
    printed = _Links(print_html)
    kinds = Counter()
    for link in printed.links:
        cls = link["cls"].split()
        text = html.unescape(link["text"]).replace("\xa0", " ").strip()
        if "eq-ref" in cls:
            tag, sections, body = _target(printed, link["href"])
            assert tag == "div" and body.startswith('<div class="arithmatex"'), link
            number = _number(body.split("</div>", 1)[0], r"\\tag\{([0-9.]+)\}")
            assert f"({number})" == text, f"{text} lands on equation ({number})"
            kinds["equation"] += 1
        elif "fig-ref" in cls:
            tag, sections, body = _target(printed, link["href"])
            assert tag == "figure", link
            number = _number(body, r'rope-figure__number"[^>]*>Figure ([0-9.]+)\.<')
            assert f"Figure {number}" == text, f"{text} lands on Figure {number}"
            kinds["figure"] += 1
        elif "autorefs-internal" in cls:  # the API reference, online
            assert link["href"].startswith(_site_url_of(print_html) + "reference/"), link
    assert kinds["equation"] and kinds["figure"], kinds
    # Known references, spelled out.
    samples = [
        # forward-pass/: {{ eq("equations/previous-token-head.md#keys") }}
        ("forward-pass", "eq-ref", "equations-previous-token-head", "eq-keys"),
        # notes/semantic-heads/: {{ eq("notes/position-only-heads.md#relative-score") }}
        ("notes-semantic-heads", "eq-ref", "notes-position-only-heads", "eq-relative-score"),
    ]
    for section, cls, target_section, original_id in samples:
        hrefs = {
            link["href"]
            for link in printed.links
            if link["sections"][-1:] == (section,) and cls in link["cls"].split()
        }
        wanted = f"#{target_section}-{original_id}"
        assert wanted in hrefs, f"no {cls} link from {section} to {wanted}: {sorted(hrefs)[:8]}"
        tag, sections, _ = _target(printed, wanted)
        assert sections[-1] == target_section, (wanted, sections)


# ------------------------------------------------------------------------------------------------
# The print page served anywhere: at the root, by `mkdocs serve`, in a version folder of mike
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["root", "version folder"])
def test_print_page_served_anywhere_asks_only_for_what_is_there(where, site_pdf):
    """No request to a wrong address, no console error, nothing from another host, whether
    the print page is served at the site's root (the visit the PDF is printed from) or from
    ``/rope-explained/0.1.0/`` (both visited by the job :func:`_print_the_site`)."""
    visit = site_pdf["visit"]
    seen = visit if where == "root" else visit["elsewhere"][0]
    prefix = "/" if where == "root" else f"/{VERSION_FOLDER}/"
    assert seen["failed"] == [], f"{where}: failed requests {seen['failed']}"
    assert seen["errors"] == [], f"{where}: console errors {seen['errors']}"
    foreign = [u for u in seen["requests"] if urlsplit(u).hostname != "127.0.0.1"]
    assert foreign == [], f"{where}: requests to other hosts {foreign}"
    outside = [u for u in seen["requests"] if not urlsplit(u).path.startswith(prefix)]
    assert outside == [], f"{where}: requests outside the site's folder {outside}"
    assert seen["base"] == prefix, "the page's base is the site's folder"
    asked = {urlsplit(u).path[len(prefix) :] for u in seen["requests"]}
    assert {"sitemap.xml", "search/search_index.json"} <= asked, sorted(asked)[:20]
    assert seen["math"] > 0
    # The start-up script of the print page runs once: one table of contents.
    assert seen["tocs"] == 1 and len(seen["toc_links"]) == len(set(seen["toc_links"])) > 0


# ------------------------------------------------------------------------------------------------
# The hook's rewriting on its own (no build)
# ------------------------------------------------------------------------------------------------

from print_fixtures import KEYS, REFERENCE_PAGE, ROPE_PAGE  # noqa: E402

ROPE_SECTION = "\n".join(
    [
        '<h1 id="equations-rope-rope">RoPE<a class="headerlink" href="#equations-rope-rope">¶</a>'
        "</h1>",
        '<div class="arithmatex" id="equations-rope-eq-relative-score">'
        "\\[q^\\top k \\tag{2.4}\\]</div>",
        '<p>See <a class="eq-ref" href="#equations-rope-eq-relative-score">(2.4)</a>,',
        '<a class="eq-ref" href="#equations-previous-token-head-eq-keys">(3.2)</a>,',
        '<a class="autorefs" href="#reference-rope-rope_explained.rope.apply_rope">x</a>,',
        '<a href="#index">home</a>, <a href="#index-why">why</a>,',
        '<a href="https://arxiv.org/abs/2104.09864#x">RoFormer</a>.</p>',
        '<figure id="equations-rope-fig-rope-frequencies"><a href="../figures/f.svg">',
        '<img src="../figures/f.svg" alt="a"></a></figure>',
        '<input id="equations-rope-__tabbed_1_1" name="equations-rope-__tabbed_1">'
        '<label for="equations-rope-__tabbed_1_1">A</label>',
        '<script>var tag = \'<a href="#not-a-link" id="x">\';</script>',
        '<pre><code>&lt;a href="#code"&gt;</code></pre>',
    ]
)


def test_print_section_rewrites_ids_links_and_addresses():
    import print_page  # docs/hooks/ (tests/conftest.py puts it on sys.path)

    out = print_page.print_section_html(ROPE_PAGE, "equations/rope/", KEYS, "print_page/")
    assert out == ROPE_SECTION
    # The API link lands on apply_rope's heading, not on the first id that contains its name.
    reference = print_page.print_section_html(
        REFERENCE_PAGE, "reference/rope/", KEYS, "print_page/"
    )
    printed = _Links(f'<section class="print-page" id="reference-rope">{reference}</section>')
    tag, sections, body = _target(printed, "#reference-rope-rope_explained.rope.apply_rope")
    assert tag == "h2" and ">apply_rope</h2>" in body.split("\n", 1)[0]
    assert print_page.link_problems(out + reference) == [
        'link "#equations-previous-token-head-eq-keys" names no id',  # not in this sample
        'link "#index" names no id',
        'link "#index-why" names no id',
    ]


def test_print_section_reports_its_input_errors():
    import print_page

    with pytest.raises(KeyError):
        print_page.print_section_html("<p></p>", "not/a/page/", KEYS, "print_page/")
    with pytest.raises(ValueError, match="not found in the tag"):
        print_page.set_attrs("<a>", {"href": "#x"})


HASH_SEED_PROBE = """
import sys, types
sys.path[:0] = ["docs/hooks", "tests"]
import print_page
from print_fixtures import KEYS, ROPE_PAGE, REFERENCE_PAGE

page = lambda url, title, content: types.SimpleNamespace(
    is_page=True, is_section=False, url=url, title=title, content=content,
    file=types.SimpleNamespace(src_path=url + "index.md"))
section = lambda title, children: types.SimpleNamespace(
    is_page=False, is_section=True, title=title, children=children)
items = [page("", "Home", "<h1 id='home'>Home</h1><h2 id='why'>Why</h2>"),
         section("Equations", [
             page("equations/rope/", "RoPE", ROPE_PAGE),
             page("equations/previous-token-head/", "Layer 0", "<p id='eq-keys'>k</p>")]),
         section("API", [page("reference/rope/", "rope", REFERENCE_PAGE)])]
html, toc = print_page.combined(items, "print_page/")
html = print_page.toc_html(toc) + html
print(html)
print(repr([(a.title, a.id, [(c.title, c.id) for c in a.children]) for a in toc]))
print(print_page.link_problems(html + "".join(f'<a href="#{i}"></a>' for i in "abcdefgh")))
"""


def test_print_page_does_not_depend_on_hash_order():
    """The print page's body is the same whatever Python's string hashes are (sets and dicts
    of strings iterate in another order under another ``PYTHONHASHSEED``)."""
    outputs = []
    for seed in ("0", "1", "4242"):
        proc = subprocess.run(
            [sys.executable, "-c", HASH_SEED_PROBE],
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    body, toc, problems = outputs[0].rstrip("\n").rsplit("\n", 2)
    assert problems == str([f'link "#{i}" names no id' for i in "abcdefgh"]), problems
    assert body.count('<section class="print-page" id=') == 3  # the API reference left out
    assert "reference-rope" not in body and "API" not in body
    assert "<h1>Layer 0</h1>" in body  # a page without a title of its own gets one
    assert "('Equations', 'section-2', [('RoPE', 'equations-rope')" in toc
    assert body.count('id="print-page-toc"') == 1
    assert '<a href="#section-2"><span class="print-page-toc-title">Equations</span>' in body
