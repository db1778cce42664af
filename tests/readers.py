"""Every page of the built site opened by three readers, once each: what the browser saw.

* ``desktop``: JavaScript on, 1280 px wide, a system that prefers the light palette. On this
  visit axe also checks the page: every rule in the light palette, then, after the reader's
  click on Material's palette toggle, the rules that judge colours in the dark palette.
* ``phone``: JavaScript on, 360 px wide, a touch screen.
* ``phone-no-js``: JavaScript off, 360 px wide: what shows without the scripts, where nothing
  fits a wide formula, table or code block into its box but the style sheets. (With the
  scripts off, a page at 360 px is the harder case of one at 1280 px: the same HTML, style
  sheets and figures, in less room.)

The one-page print edition is not among the pages: it repeats every other page, and the PDF's
own visit (tests/test_print.py) records its requests, errors and typeset math.

Two workers, each with a Chromium of its own, share the visits (the longest first), so that
the run keeps both cores busy while the tests in pytest's thread go on. conftest.py runs
:func:`visit_every_page` as a background job; the tests read its result.
"""

from __future__ import annotations

import asyncio

#: How the pages are opened.
VIEWS = {
    "desktop": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"},
    "phone": {"viewport": {"width": 360, "height": 760}, "is_mobile": True, "has_touch": True},
    "phone-no-js": {
        "viewport": {"width": 360, "height": 760},
        "is_mobile": True,
        "java_script_enabled": False,
    },
}

#: How long a page may take to load, or axe to check it, on a machine whose every core is busy.
TIMEOUT_MS = 300_000
#: Material's palettes (``data-md-color-scheme``), by the name the tests use.
SCHEMES = {"light": "default", "dark": "slate"}
#: The axe rules whose outcome depends on the palette's colours.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
#: KaTeX writes each formula twice: MathML, which screen readers read and axe checks, and an
#: aria-hidden visual copy whose every glyph is a span in the colour of the surrounding text,
#: whose contrast axe checks on that text. Leaving the copy out halves the colour checks.
AXE_CONTEXT = {"exclude": [[".katex-html"]]}
#: For the colour rules, the code listings' tokens are checked once per look: a token whose
#: colour, weight, size, opacity and background (its own, its line's and its block's) are those
#: of a token checked before it has the same contrast. A listing whose every visible token looks
#: like one in a listing before it is marked ``data-axe-same-look`` by :data:`MARK_SAME_LOOK`
#: and left out (whole listings: axe handles a few excluded elements quickly, not thousands).
COLOUR_CONTEXT = {"exclude": [[".katex-html"], ["[data-axe-same-look]"]]}
AXE_RUNS = {
    "light": [
        (
            AXE_CONTEXT,
            {
                "resultTypes": ["violations"],
                "rules": {rule: {"enabled": False} for rule in COLOUR_RULES},
            },
        ),
        (
            COLOUR_CONTEXT,
            {"resultTypes": ["violations"], "runOnly": {"type": "rule", "values": COLOUR_RULES}},
        ),
    ],
    "dark": [
        (
            COLOUR_CONTEXT,
            {"resultTypes": ["violations"], "runOnly": {"type": "rule", "values": COLOUR_RULES}},
        ),
    ],
}

MARK_SAME_LOOK = r"""
() => {
  for (const el of document.querySelectorAll('[data-axe-same-look]')) {
    el.removeAttribute('data-axe-same-look');
  }
  const seen = new Set();
  let marked = 0;
  const background = el => {
    const layers = [];
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
      const s = getComputedStyle(e);
      layers.push(s.backgroundColor, s.backgroundImage, s.opacity);
      // rgba(): transparent or translucent, what is behind shows through; else opaque
      if (!s.backgroundColor.startsWith('rgba(')) break;
    }
    return layers.join(';');
  };
  const look = el => {
    const s = getComputedStyle(el);
    return [s.color, s.fontSize, s.fontWeight, s.opacity, s.textShadow, background(el)].join('|');
  };
  const blocks = [...document.querySelectorAll('.highlight code')].filter(c => c.checkVisibility());
  for (const code of blocks) {
    // The block's own text and its innermost token spans that the reader can see (axe skips
    // hidden ones, so a hidden token must not stand for a visible one).
    const tokens = [code, ...[...code.querySelectorAll('span')].filter(
      span => !span.querySelector('*') && span.checkVisibility())];
    const looks = tokens.map(look);
    if (looks.every(l => seen.has(l))) {
      code.setAttribute('data-axe-same-look', '');
      marked += tokens.length;
    } else {
      looks.forEach(l => seen.add(l));
    }
  }
  return {looks: seen.size, marked, blocks: blocks.length};
}
"""

PAGE_PROBE = r"""
async () => {
  // Images: wait until every <img> has settled (loaded or failed).
  await Promise.all([...document.images].map(img => img.complete ? null : new Promise(done => {
    img.addEventListener('load', done);
    img.addEventListener('error', done);
  })));
  const math = [...document.querySelectorAll('.arithmatex')];
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, textarea, .katex-mathml, ' +
                         '.md-search, .highlight').forEach(el => el.remove());
  const equations = [...document.querySelectorAll('div.arithmatex[id^="eq-"]')].map(el => ({
    id: el.id,
    spoken: [...el.querySelectorAll('.katex-mathml math')].map(m => m.textContent).join(' '),
  }));
  const page = document.scrollingElement;
  return {
    arithmatex: math.length,
    untypeset: math.filter(el => !el.querySelector('.katex')).length,
    notebookMath: document.querySelectorAll('.jp-RenderedMarkdown .katex').length,
    formulas: document.querySelectorAll('.arithmatex .katex').length,
    mathml: document.querySelectorAll('.arithmatex .katex .katex-mathml math').length,
    texSource: document.querySelectorAll(
      '.arithmatex .katex-mathml annotation[encoding="application/x-tex"]').length,
    mathErrors: document.querySelectorAll('.katex-error').length,
    text: clone.textContent,
    images: [...document.images].map(img => ({src: img.currentSrc || img.src,
                                              ok: img.complete && img.naturalWidth > 0})),
    figures: document.querySelectorAll('figure[id^="fig-"] img').length,
    alts: [...document.querySelectorAll('article figure img')].map(img => img.alt || ''),
    unspoken: [...document.querySelectorAll('.arithmatex .katex')].filter(c => {
      const mml = c.querySelector('.katex-mathml math');
      return !mml || !mml.textContent.trim();
    }).length,
    scripts: [...document.scripts].map(s => s.src).filter(Boolean),
    overflow: page.scrollWidth - page.clientWidth,
    equations,
  };
}
"""

#: Material's palette switch: the radio button that the header's toggle ("Switch to dark
#: mode") is the label of. It is clicked through the page's script, as the label passes its
#: click on, whether or not the header shows the toggle at that width.
TO_SCHEME = (
    'scheme => document.querySelector(`input.md-option[data-md-color-scheme="${scheme}"]`).click()'
)
SETTLED = "Promise.all(document.getAnimations().map(a => a.finished))"
#: Whether the page shows the palette ``scheme`` (for ``wait_for_function(..., arg=scheme)``).
SHOWS_SCHEME = "scheme => document.body.dataset.mdColorScheme === scheme"


def is_print_page(path: str) -> bool:
    """The one-page print edition, which repeats every other page: the readers leave it out."""
    return path.startswith("print_page")


def wait_for_page(page, url: str) -> None:
    """Wait until a (synchronous Playwright) tab shows the page at ``url``, whatever the
    fragment. The theme's anchor tracking writes the visible heading's id onto the current
    address a quarter second after a scroll; a test's click scrolls its link into view and
    navigates at once, so the previous page's id can land on the new page's address."""
    page.wait_for_url(lambda shown: shown.split("#")[0] == url)


async def switch_palette(page, palette: str) -> None:
    """Click Material's palette toggle to ``palette`` and wait until the page shows it."""
    scheme = SCHEMES[palette]
    await page.evaluate(TO_SCHEME, scheme)
    await page.wait_for_function(SHOWS_SCHEME, arg=scheme)
    await page.evaluate(SETTLED)


class Tab:
    """One browser tab of a reader, navigated from page to page (a new tab per page would start
    a renderer process each time, twice the work), that records what each page requested,
    logged and showed."""

    def __init__(self, page):
        self.page = page
        self.record: dict | None = None  # the visit under way, if any
        log = self._log
        page.on("request", lambda r: log("requests", r.url))
        page.on("requestfailed", lambda r: log("failed", f"{r.url} ({r.failure})"))
        page.on("response", lambda r: r.status >= 400 and log("failed", f"{r.url} ({r.status})"))
        page.on("console", lambda m: m.type == "error" and log("console", m.text))
        page.on("pageerror", lambda e: log("console", f"page error: {e}"))

    def _log(self, key: str, value: str) -> None:
        if self.record is not None:
            self.record[key].append(value)

    async def visit(self, url: str, axe_script: str | None) -> dict:
        """Open ``url``: what it requested, logged and showed, and (given ``axe_script``) what
        axe found in each palette, ``record["axe"][palette] = (scheme, violations)``."""
        page = self.page
        # Leave the page before: what it still had under way ends here, unrecorded.
        await page.goto("about:blank")
        self.record = record = {"requests": [], "failed": [], "console": []}
        await page.goto(url, wait_until="load")
        record.update(await page.evaluate(PAGE_PROBE))
        self.record = None  # what the reader's visit produced, before axe touches the page
        if axe_script is not None:
            record["axe"], record["same_look"] = {}, {}
            await page.evaluate(axe_script)
            for palette, runs in AXE_RUNS.items():
                if palette != "light":
                    await switch_palette(page, palette)
                # in each palette: tokens of one colour in the light palette may differ in the dark
                record["same_look"][palette] = await page.evaluate(MARK_SAME_LOOK)
                scheme = await page.evaluate("document.body.dataset.mdColorScheme")
                violations = []
                for context_, options in runs:
                    result = await page.evaluate("([c, o]) => axe.run(c, o)", [context_, options])
                    violations += result["violations"]
                record["axe"][palette] = (scheme, violations)
            await switch_palette(page, "light")  # the reader's choice is kept for the next page
        return record


def visit_every_page(site_url: str, paths: list[str], workers: int = 2) -> dict:
    """Open every page in each of :data:`VIEWS`; ``{view: {path: record}}``."""
    return asyncio.run(_visit_every_page(site_url, paths, workers))


async def _visit_every_page(site_url: str, paths: list[str], workers: int) -> dict:
    from axe_playwright_python.async_playwright import Axe
    from playwright.async_api import async_playwright

    from tools.browser import chromium_options

    axe_script = Axe().axe_script
    # The longest visits first (the desktop visits with axe), so that the two workers finish
    # together.
    visits = [(view, p) for view in VIEWS for p in paths if not is_print_page(p)]
    queue: asyncio.Queue = asyncio.Queue()
    for visit in visits:
        queue.put_nowait(visit)
    out: dict[str, dict] = {view: {} for view in VIEWS}
    async with async_playwright() as pw:

        async def worker():
            browser = await pw.chromium.launch(**chromium_options())
            tabs: dict[str, Tab] = {}
            try:
                while not queue.empty():
                    view, path = queue.get_nowait()
                    if view not in tabs:
                        context = await browser.new_context(**VIEWS[view])
                        # a long page, loaded while every core is busy, may take long
                        context.set_default_timeout(TIMEOUT_MS)
                        tabs[view] = Tab(await context.new_page())
                    with_axe = view == "desktop"
                    out[view][path] = await tabs[view].visit(
                        site_url + path, axe_script if with_axe else None
                    )
            finally:
                await browser.close()

        await asyncio.gather(*(worker() for _ in range(workers)))
    return out
