"""The built site as a reader's browser shows it: every page, in headless Chromium.

One pass opens every page of the site (fixtures in conftest.py) and records what the browser
saw; the tests below each assert one property of that record, so a failure names the property
and the pages. The static checks read the built HTML.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest

#: TeX that must never be visible as text once MathJax is done (code blocks excluded).
RAW_TEX = ("\\(", "\\)", "\\[", "\\]", "$$", "\\frac", "\\theta", "\\tag", "\\mathrm")

PAGE_PROBE = r"""
async () => {
  const mj = window.MathJax;
  const hasMathJax = !!(mj && mj.startup && mj.startup.promise);
  if (hasMathJax) { await mj.startup.promise; }
  // Images: wait until every <img> has settled (loaded or failed).
  await Promise.all([...document.images].map(img => img.complete ? null : new Promise(done => {
    img.addEventListener('load', done);
    img.addEventListener('error', done);
  })));
  const math = [...document.querySelectorAll('.arithmatex')];
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, textarea, mjx-container, mjx-assistive-mml, ' +
                         '.md-search, .highlight').forEach(el => el.remove());
  const equations = [...document.querySelectorAll('div.arithmatex[id^="eq-"]')].map(el => ({
    id: el.id,
    spoken: [...el.querySelectorAll('mjx-assistive-mml')].map(m => m.textContent).join(' '),
  }));
  return {
    hasMathJax,
    arithmatex: math.length,
    untypeset: math.filter(el => !el.querySelector('mjx-container')).length,
    notebookMath: document.querySelectorAll('.jp-RenderedMarkdown mjx-container').length,
    containers: document.querySelectorAll('mjx-container').length,
    assistive: document.querySelectorAll('mjx-container mjx-assistive-mml').length,
    mathErrors: document.querySelectorAll('mjx-merror, [data-mjx-error]').length,
    text: clone.textContent,
    images: [...document.images].map(img => ({src: img.currentSrc || img.src,
                                              ok: img.complete && img.naturalWidth > 0})),
    figures: document.querySelectorAll('figure[id^="fig-"] img').length,
    equations,
  };
}
"""


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


@pytest.fixture(scope="session")
def reports(browser, site_url, site_pages, summary):
    """Open every page once and record what the browser saw."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    out = {}
    for path in site_pages:
        page = context.new_page()
        record = {"requests": [], "failed": [], "console": []}
        page.on("request", lambda r, rec=record: rec["requests"].append(r.url))
        page.on(
            "requestfailed",
            lambda r, rec=record: rec["failed"].append(f"{r.url} ({r.failure})"),
        )
        page.on(
            "response",
            lambda r, rec=record: r.status >= 400 and rec["failed"].append(f"{r.url} ({r.status})"),
        )
        page.on(
            "console",
            lambda m, rec=record: m.type == "error" and rec["console"].append(m.text),
        )
        page.on("pageerror", lambda e, rec=record: rec["console"].append(f"page error: {e}"))
        page.goto(site_url + path, wait_until="load")
        record.update(page.evaluate(PAGE_PROBE))
        page.close()
        out[path] = record
    context.close()
    summary.append(f"browser: {len(out)} pages of the built site opened in headless Chromium")
    return out


def _fail_pages(problems: dict[str, object], what: str):
    bad = {p: v for p, v in problems.items() if v}
    assert not bad, f"{what} on {len(bad)} page(s):\n" + "\n".join(
        f"  /{p}: {v}" for p, v in bad.items()
    )


def test_every_page_was_opened(reports, site_pages, content_pages):
    assert len(reports) == len(site_pages) >= len(content_pages) > 0
    missing = [p for p in content_pages if p not in reports]
    assert not missing, f"content pages missing from the built site: {missing}"


def test_no_console_errors(reports):
    _fail_pages({p: r["console"] for p, r in reports.items()}, "console errors")


def test_no_failed_requests(reports):
    _fail_pages({p: r["failed"] for p, r in reports.items()}, "failed requests")


def test_only_local_requests(reports):
    def foreign(urls):
        return [
            u
            for u in urls
            if urlsplit(u).scheme not in ("data", "blob", "about")
            and urlsplit(u).hostname != "127.0.0.1"
        ]

    _fail_pages({p: foreign(r["requests"]) for p, r in reports.items()}, "requests to other hosts")


def test_mathjax_loaded_everywhere(reports):
    _fail_pages({p: not r["hasMathJax"] for p, r in reports.items()}, "MathJax missing")


def test_all_math_typeset(reports):
    _fail_pages(
        {
            p: r["untypeset"] and f"{r['untypeset']} of {r['arithmatex']} formulas not typeset"
            for p, r in reports.items()
        },
        "untypeset math",
    )
    _fail_pages({p: r["mathErrors"] for p, r in reports.items()}, "MathJax errors")


def test_math_is_read_to_screen_readers(reports):
    _fail_pages(
        {
            p: r["assistive"] != r["containers"]
            and f"{r['assistive']} assistive MathML for {r['containers']} formulas"
            for p, r in reports.items()
        },
        "formulas without assistive MathML",
    )


def test_no_raw_tex_visible(reports):
    def leftovers(text):
        found = []
        for token in RAW_TEX:
            i = text.find(token)
            if i >= 0:
                found.append(
                    f"{token!r} in ...{' '.join(text[max(0, i - 40) : i + 40].split())}..."
                )
        return found

    _fail_pages({p: leftovers(r["text"]) for p, r in reports.items()}, "raw TeX in the text")


def test_content_pages_have_math(reports, content_pages, site_dir):
    """Every content page whose Markdown has math shows typeset formulas."""
    problems = {}
    for path in content_pages:
        html = (site_dir / path / "index.html").read_text(encoding="utf-8")
        has_math = 'class="arithmatex"' in html or "jp-RenderedMarkdown" in html and "$" in html
        if has_math and reports[path]["containers"] == 0:
            problems[path] = "math in the page, no mjx-container"
    _fail_pages(problems, "math not typeset")


def test_images_load(reports):
    _fail_pages(
        {p: [i["src"][:120] for i in r["images"] if not i["ok"]] for p, r in reports.items()},
        "images that did not load",
    )


def test_content_pages_show_a_figure(reports, content_pages):
    _fail_pages(
        {p: reports[p]["figures"] == 0 and "no figure[id^=fig-] img" for p in content_pages},
        "no build-time figure",
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


def test_instant_navigation_typesets_math(browser, site_url, site_dir, content_pages):
    """Following a nav link (instant navigation, no reload) typesets the new page's math."""
    with_math = [
        p
        for p in content_pages
        if (site_dir / p / "index.html").is_file()
        and 'class="arithmatex"' in (site_dir / p / "index.html").read_text(encoding="utf-8")
    ]
    assert len(with_math) >= 2, f"need two pages with math to navigate between; have {with_math}"
    start, target = with_math[0], with_math[1]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site_url + start, wait_until="load")
    page.evaluate("async () => { await MathJax.startup.promise; window.__notReloaded = true; }")
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
    page.wait_for_url(site_url + target)
    page.wait_for_function(
        """() => {
          const math = document.querySelectorAll('article .arithmatex');
          return math.length > 0 && [...math].every(el => el.querySelector('mjx-container'));
        }""",
        timeout=20000,
    )
    result = page.evaluate(
        """async () => {
          await MathJax.startup.promise;
          const clone = document.querySelector('article').cloneNode(true);
          clone.querySelectorAll('pre, code, mjx-container, .highlight').forEach(e => e.remove());
          return {kept: window.__notReloaded === true, text: clone.textContent,
                  n: document.querySelectorAll('article mjx-container').length,
                  errors: document.querySelectorAll('mjx-merror').length};
        }"""
    )
    context.close()
    assert result["kept"], "the link reloaded the page: instant navigation is off"
    assert result["n"] > 0 and result["errors"] == 0
    assert not [t for t in RAW_TEX if t in result["text"]], "raw TeX after instant navigation"
    assert not errors, errors


def test_accessibility_explorer_works_offline(browser, site_url, site_dir, content_pages):
    """A reader who turns on MathJax's explorer (menu > Accessibility) gets speech for every
    formula: everything it loads is in the site."""
    path = next(
        p
        for p in content_pages
        if 'class="arithmatex"' in (site_dir / p / "index.html").read_text(encoding="utf-8")
    )
    context = browser.new_context()
    context.add_init_script(
        "localStorage.setItem('MathJax-Menu-Settings', JSON.stringify({explorer: true}))"
    )
    page = context.new_page()
    failed = []
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.url} ({r.status})"))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(site_url + path, wait_until="load")
    page.wait_for_function(
        """() => {
          const all = document.querySelectorAll('mjx-container');
          const spoken = c => c.querySelector('[data-semantic-speech]') !== null;
          return all.length > 0 && [...all].every(spoken);
        }""",
        timeout=30000,
    )
    context.close()
    assert not failed, failed
