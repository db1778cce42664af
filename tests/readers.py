"""Every page of the built site opened by three readers, once each: what the browser saw.

* ``desktop``: JavaScript on, 1280 px wide, a system that prefers the light palette. On this
  visit axe also checks the page: every rule in the palette the page opens in, then, after the
  reader's click on Material's palette toggle, the rules that judge colours in the other.
* ``phone``: JavaScript on, 360 px wide, a touch screen.
* ``phone-no-js``: JavaScript off, 360 px wide: what shows without the scripts, where nothing
  fits a wide formula, table or code block into its box but the style sheets. (With the
  scripts off, a page at 360 px is the harder case of one at 1280 px: the same HTML, style
  sheets and figures, in less room.)

A reader's click on the toggle is kept for the next page (Material stores it), which opens in
that palette and shows the other second: the pages alternate, the first in the light palette.

On a page with figures, the two readers with JavaScript also measure each figure in both
palettes (:data:`FIGURE_BOXES`: which drawing the browser chose and how wide it shows it), for
tests/test_figure_text.py.

The one-page print edition is not among the pages: it repeats every other page, and the PDF's
own visit (tests/test_print.py) records its requests, errors and typeset math.

Two workers, each with a Chromium of its own, share the visits (the longest first), so that
the run keeps both cores busy while the tests in pytest's thread go on. conftest.py runs
``python tests/readers.py`` (:func:`main`) as a background job, in a process of its own (the
driver's work of every request and answer would otherwise take turns with the tests'), and
the tests read the JSON it writes.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

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
#: KaTeX writes each formula twice: MathML, which screen readers read and axe checks, and an
#: aria-hidden visual copy whose every glyph is a span in the colour of the surrounding text,
#: whose contrast axe checks on that text. Leaving the copy out halves the colour checks.
AXE_CONTEXT = {"exclude": [[".katex-html"]]}
#: The rules that judge colours, which run in both palettes; every other rule runs once, in
#: the palette the page opens in (the DOM is the same in both but for which of the toggle's two
#: labels is shown: over the pages, both are checked).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
#: The run of every rule but the colour rules.
OTHER_RULES = {
    "resultTypes": ["violations"],
    "rules": {rule: {"enabled": False} for rule in COLOUR_RULES},
}

#: A text's look, which decides its contrast: its tag, colour, size, weight and shadow, the
#: opacity, blending and filter of it and of every element it is in, and the backgrounds behind
#: it (its own and its ancestors', up to the first opaque one). Two texts of one look have one
#: contrast ratio and one threshold (large or normal text), so axe's verdict on one is its
#: verdict on the other. A text without a letter or digit (``=``, ``(``) is also keyed by its
#: text: axe may leave such a text unjudged whatever its look.
#:
#: A link's key, for ``link-in-text-block``: its look and pseudo-elements' content; for it and
#: each element up to the block it sits in, the styles that set a link apart from its text
#: (background image, borders, outline, decoration, font); and the block's look. The rule
#: compares exactly these: the link's colour with the block's, and its styles with the
#: block's.
LOOK = r"""
const ownText = el => [...el.childNodes].filter(n => n.nodeType === 3)
  .map(n => n.textContent).join('').trim();
const look = el => {
  const s = getComputedStyle(el);
  const parts = [el.tagName, s.color, s.webkitTextFillColor, s.webkitTextStrokeWidth,
                 s.fontSize, s.fontWeight, s.textShadow];
  let opaque = false;
  for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
    const t = e === el ? s : getComputedStyle(e);
    parts.push(t.opacity, t.mixBlendMode, t.filter);
    if (!opaque) {
      parts.push(t.backgroundColor, t.backgroundImage);
      // rgba(): transparent or translucent, what is behind shows through; else opaque
      opaque = !t.backgroundColor.startsWith('rgba(');
    }
  }
  return parts.join('|');
};
const textKey = el => {
  const text = ownText(el);
  return 'text:' + (/[\p{L}\p{N}]/u.test(text) ? look(el) : look(el) + '|' + text);
};
const LINK_STYLES = [
  'display', 'color', 'background-color', 'background-image', 'text-decoration',
  'text-decoration-line', 'text-decoration-style', 'font-family', 'font-weight', 'font-style',
  'font-size', ...['border-bottom', 'border-top', 'outline'].flatMap(
    edge => [`${edge}-style`, `${edge}-width`, `${edge}-color`]),
];
const isBlock = el => {
  const display = getComputedStyle(el).display;
  return ['block', 'list-item', 'table', 'flex', 'grid'].includes(display)
    || display.startsWith('table-');
};
const linkKey = link => {
  const parts = [look(link), ...['::before', '::after'].map(
    p => getComputedStyle(link, p).content)];
  let e = link;
  for (; e && e !== document.documentElement; e = e.parentElement) {
    const s = getComputedStyle(e);
    parts.push(LINK_STYLES.map(p => s.getPropertyValue(p)).join(','));
    if (e !== link && isBlock(e)) break;
  }
  return 'link:' + parts.join('|') + '|' + (e ? look(e) : '');
};
"""

#: axe's colour rules on the open page, in its palette, on what is new: ``color-contrast`` on
#: the texts whose key (:data:`LOOK`) is not among ``seenKeys`` (the keys axe has judged on the
#: reader's pages before, in this palette), ``link-in-text-block`` on such links. Texts are
#: the elements with a text of their own that a reader sees (not KaTeX's visual copy, nor its
#: MathML, which only screen readers read, nor what is hidden), and the form fields; the new
#: ones are marked ``data-axe-fresh-look`` (links ``data-axe-fresh-link``) and each rule's
#: selector narrowed to them. Returns the violations; the keys judged now (of what axe passed
#: or failed, and of the marked texts without a letter or digit that axe left out: it reads
#: no contrast into punctuation; what it could not judge, say on a background image, or a link
#: it found outside a text block, stays new); and how many texts and links there are and how
#: many were checked. The first page checks all; later pages only what looks new: the colour
#: check of 40 pages costs about that of a few.
COLOUR_CHECK = (
    "async ([context, seenKeys]) => {"
    + LOOK
    + r"""
  const seen = new Set(seenKeys);
  const MARKS = {text: 'data-axe-fresh-look', link: 'data-axe-fresh-link'};
  for (const mark of Object.values(MARKS)) {
    for (const el of document.querySelectorAll(`[${mark}]`)) el.removeAttribute(mark);
  }
  const fresh = {text: [], link: []};
  const counts = {texts: 0, links: 0};
  const visible = el => !el.closest('.katex-html, .katex-mathml')
    && el.checkVisibility({visibilityProperty: true, opacityProperty: true});
  for (const el of document.body.querySelectorAll('*')) {
    const field = el.matches('input, textarea, select');
    if ((field || ownText(el)) && visible(el)) {
      counts.texts++;
      if (field || !seen.has(textKey(el))) fresh.text.push(el);
    }
    if (el.matches('a[href], [role=link]') && visible(el)) {
      counts.links++;
      if (!seen.has(linkKey(el))) fresh.link.push(el);
    }
  }
  for (const kind in MARKS) fresh[kind].forEach(el => el.setAttribute(MARKS[kind], ''));
  axe.configure({rules: [
    {id: 'color-contrast', selector: `[${MARKS.text}]`},
    {id: 'link-in-text-block', selector: `[${MARKS.link}]`},
  ]});
  const result = await axe.run(context, {
    runOnly: {type: 'rule', values: ['color-contrast', 'link-in-text-block']},
    resultTypes: ['violations', 'passes', 'incomplete'], elementRef: true,
  });
  const nodes = (kind, rule) => result[kind].filter(r => r.id === rule)
    .flatMap(r => r.nodes.map(n => n.element));
  const keys = [];
  for (const [rule, key] of [['color-contrast', textKey], ['link-in-text-block', linkKey]]) {
    keys.push(...[...nodes('passes', rule), ...nodes('violations', rule)].map(key));
  }
  const reported = new Set(['passes', 'violations', 'incomplete'].flatMap(
    kind => nodes(kind, 'color-contrast')));
  for (const el of fresh.text) {
    const text = ownText(el);
    if (!reported.has(el) && text && !/[\p{L}\p{N}]/u.test(text)) keys.push(textKey(el));
  }
  const violations = result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({target: n.target, html: n.html})),
  }));
  return {violations, keys, counts: {...counts, newTexts: fresh.text.length,
                                      newLinks: fresh.link.length}};
}
"""
)


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

#: Every figure's drawing as shown: its id, the file the browser chose (the phone's
#: ``<id>.narrow.svg`` or the wide ``<id>.svg``, and the light or dark one), and the width the
#: drawing is shown at (the image's box less its padding and border), once the images have
#: settled.
FIGURE_BOXES = r"""
async () => {
  const settled = img => img.complete ? null : new Promise(done => {
    img.addEventListener('load', done);
    img.addEventListener('error', done);
  });
  await Promise.all([...document.images].map(settled));
  return [...document.querySelectorAll('figure.rope-figure[id^="fig-"]')].map(figure => {
    const img = figure.querySelector('img');
    const s = getComputedStyle(img);
    const box = img.getBoundingClientRect();
    const inner = box.width - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)
                  - parseFloat(s.borderLeftWidth) - parseFloat(s.borderRightWidth);
    return {id: figure.id.slice(4), src: img.currentSrc, shown: inner,
            loaded: img.complete && img.naturalWidth > 0};
  });
}
"""

#: Material's palette switch: the radio button that the header's toggle ("Switch to dark
#: mode") is the label of. It is clicked through the page's script, as the label passes its
#: click on, whether or not the header shows the toggle at that width.
TO_SCHEME = (
    'scheme => document.querySelector(`input.md-option[data-md-color-scheme="${scheme}"]`).click()'
)
#: The palette's colour transitions brought to their end at once. (Waiting for them to end
#: can wait forever: Chromium advances no animation of an element off screen while nothing on
#: screen changes.)
SETTLED = (
    "document.getAnimations()"
    ".filter(a => a.effect && a.effect.getComputedTiming().endTime < Infinity)"
    ".forEach(a => a.finish())"
)
#: How a page sets its reading text (tests/test_reading.py), measured by the readers with
#: scripts: the body text's size and each explanation box's, and, for each display equation, the
#: band under the formula and where its copy button sits in its box.
READING = r"""
() => {
  const text = document.querySelector('article p');
  const body = text ? parseFloat(getComputedStyle(text).fontSize) : null;
  const boxes = [...document.querySelectorAll(
    'article .admonition.what, article .admonition.why, article .admonition.whatif, ' +
    'article details.what, article details.why, article details.whatif')];
  const box = el => el.getBoundingClientRect();
  const equations = [...document.querySelectorAll('article div.arithmatex')]
    .filter(el => el.querySelector(':scope > .katex-display'))
    .map(el => {
      const formula = box(el.querySelector(':scope > .katex-display'));
      const copy = el.querySelector(':scope > .rope-copy-tex');
      const own = box(el);
      if (!copy) return {id: el.id, band: own.height - formula.height, button: false};
      const button = box(copy);
      return {id: el.id, band: own.height - formula.height, button: true,
              top: button.top - own.top,
              left: button.left - own.left, right: own.right - button.right,
              bottom: own.bottom - button.top};
    });
  return {body, boxes: boxes.map(el => parseFloat(getComputedStyle(el).fontSize)), equations};
}
"""

#: What the theme adds to the header for a versioned site (mike's versions.json): a version
#: selector after the site's title. A plain build has no versions, so the readers with scripts
#: add the same markup, once the rest of a visit is done, and let the page's style sheets lay
#: it out: whether the site's title still shows whole (tests/test_reading.py).
VERSIONED_HEADER = r"""
() => {
  const topic = document.querySelector('.md-header__topic');
  topic.insertAdjacentHTML('beforeend',
    '<div class="md-version"><button class="md-version__current" ' +
    'aria-label="Select version">0.1.0</button><ul class="md-version__list">' +
    '<li class="md-version__item"><a class="md-version__link" href="#">0.1.0</a></li>' +
    '</ul></div>');
  const title = topic.querySelector('.md-ellipsis');
  const version = topic.querySelector('.md-version').getBoundingClientRect();
  const header = document.querySelector('.md-header').getBoundingClientRect();
  return {shown: title.clientWidth, needed: title.scrollWidth, versionWidth: version.width,
          inHeader: version.bottom <= header.bottom};
}
"""
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

    def __init__(self, page, scripts: bool = True, judged: dict[str, set[str]] | None = None):
        self.page = page
        self.scripts = scripts  # whether the page runs its scripts (the palette toggle needs them)
        self.record: dict | None = None  # the visit under way, if any
        #: per palette, the looks whose contrast axe has judged on the reader's pages so far (in
        #: this tab, and in the reader's tab of the other browser, which shares it)
        self.judged = judged if judged is not None else {palette: set() for palette in SCHEMES}
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
        """Open ``url``: what it requested, logged and showed; on a page with figures, when the
        scripts run, how each figure is shown in each palette (``record["figure_boxes"]``);
        and, given ``axe_script``, what axe found in each palette,
        ``record["axe"][palette] = [scheme, violations]``, the palette every rule ran in
        (``record["every_rule"]``), and how many texts it checked for
        contrast (``record["looks"][palette]``); with the scripts, how the page sets its
        reading text (``record["reading"]``, :data:`READING`) and the header of a versioned
        site (``record["versioned_header"]``, :data:`VERSIONED_HEADER`)."""
        page = self.page
        # Leave the page before: what it still had under way ends here, unrecorded.
        await page.goto("about:blank")
        self.record = record = {"requests": [], "failed": [], "console": []}
        await page.goto(url, wait_until="load")
        record.update(await page.evaluate(PAGE_PROBE))
        if self.scripts:
            record["reading"] = await page.evaluate(READING)
        self.record = None  # what the reader's visit produced, before axe touches the page
        measure = record["figures"] > 0 and self.scripts
        if measure or axe_script:
            await self._palettes(record, measure, axe_script)
        if self.scripts:  # last: it changes the page
            record["versioned_header"] = await page.evaluate(VERSIONED_HEADER)
        return record

    async def _palettes(self, record: dict, measure: bool, axe_script: str | None) -> None:
        """The figures' boxes (if ``measure``) and axe's findings (given ``axe_script``) in each
        palette, into ``record``."""
        page = self.page
        record["figure_boxes"], record["axe"], record["looks"] = {}, {}, {}
        if axe_script is not None:
            await page.evaluate(axe_script)
        # The page opens in the palette the reader chose last; the other is shown second, and
        # kept for the next page (switching back would cost a third restyle of the page).
        shown = await page.evaluate("document.body.dataset.mdColorScheme")
        palettes = sorted(SCHEMES, key=lambda palette: SCHEMES[palette] != shown)
        for palette in palettes:
            if palette != palettes[0]:
                await switch_palette(page, palette)
            if measure:
                record["figure_boxes"][palette] = await page.evaluate(FIGURE_BOXES)
            if axe_script is not None:
                every_rule = palette == palettes[0]
                scheme, violations, looks = await self.check(palette, every_rule)
                record["axe"][palette], record["looks"][palette] = [scheme, violations], looks
                if every_rule:
                    record["every_rule"] = palette

    async def check(self, palette: str, every_rule: bool) -> tuple[str, list, dict]:
        """axe on the open page in ``palette``: the palette as the page reports it, the
        violations (of every rule if ``every_rule``; of the colour rules, on what looks new:
        :data:`COLOUR_CHECK`), and how many texts and links the page has and how many of them
        were checked."""
        page, judged = self.page, self.judged[palette]
        scheme = await page.evaluate("document.body.dataset.mdColorScheme")
        run = "([c, o]) => axe.run(c, o)"
        violations = []
        if every_rule:
            violations += (await page.evaluate(run, [AXE_CONTEXT, OTHER_RULES]))["violations"]
        out = await page.evaluate(COLOUR_CHECK, [AXE_CONTEXT, sorted(judged)])
        judged.update(out["keys"])
        return scheme, violations + out["violations"], out["counts"]


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
    # A look axe judged in one browser is judged for the reader's tab in the other too.
    judged = {view: {palette: set() for palette in SCHEMES} for view in VIEWS}
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
                        scripts = VIEWS[view].get("java_script_enabled", True)
                        tabs[view] = Tab(await context.new_page(), scripts, judged[view])
                    with_axe = view == "desktop"
                    out[view][path] = await tabs[view].visit(
                        site_url + path, axe_script if with_axe else None
                    )
            finally:
                await browser.close()

        await asyncio.gather(*(worker() for _ in range(workers)))
    return out


def main(argv: list[str] | None = None) -> int:
    """``python tests/readers.py SITE_URL OUT``: open every page whose site path is in the JSON
    list on the standard input, and write what :func:`visit_every_page` returns to ``OUT``."""
    site_url, out = argv if argv is not None else sys.argv[1:]
    paths = json.load(sys.stdin)
    Path(out).write_text(json.dumps(visit_every_page(site_url, paths)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
