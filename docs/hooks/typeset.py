r"""MkDocs hook: every formula rendered to HTML and MathML while the site builds, by KaTeX.

``pymdownx.arithmatex`` (generic mode) marks math as ``<span class="arithmatex">\(...\)</span>``
and ``<div class="arithmatex">\[...\]</div>``; the notebook hook marks notebook math the same
way, and so do figure captions and the API reference. This hook sends each page's formulas to
one long-lived Node process running KaTeX (``katex_server.cjs``, started once per build and kept
by ``mkdocs serve`` across rebuilds) and puts the rendered HTML in their place in each written
page (the one-page print edition too). Until then an inline formula's
element holds only the characters it shows (its TeX kept in ``data-tex``), which is what the
search index stores, and a display formula is left out of the index: the search plugin and the
print edition parse each page's HTML, and KaTeX's markup would be most of what they parse.
No page loads a typesetting script: a reader without
JavaScript sees the same math, and screen readers read the MathML KaTeX writes beside it.
What KaTeX rendered is kept in the build's cache (``cache.py``, keyed by KaTeX's version and the
server script, which holds the options), so a build with no new formula starts no Node process.

Each display equation also gets a button that copies its TeX source (without the site's
``\tag``), through Material's own clipboard code; KaTeX's small ``copy-tex`` script makes a
selection of typeset math copy as TeX. KaTeX's style sheet (with only its WOFF2 fonts) and that
script are copied from ``node_modules/katex`` (``npm ci``) into the site: nothing comes from a
CDN and nothing third-party is committed.
"""

from __future__ import annotations

import atexit
import html
import json
import logging
import re
import shutil
import subprocess
from pathlib import Path

import cache
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

log = logging.getLogger("mkdocs.hooks.typeset")

ROOT = Path(__file__).resolve().parents[2]
KATEX = ROOT / "node_modules" / "katex"
SERVER = Path(__file__).with_name("katex_server.cjs")
CSS_DEST = "stylesheets/vendor/katex"
JS_DEST = "javascripts/vendor/katex"
RE_MATH = re.compile(
    r'<(?P<tag>span|div) class="arithmatex"(?P<attrs>[^>]*)>(?P<inner>.*?)</(?P=tag)>', re.S
)
RE_DATA_TEX = re.compile(r'\sdata-tex="(?P<tex>[^"]*)"')
RE_TAGS = re.compile(r"<[^>]*>")
RE_DELIMITED = re.compile(r"\A\s*\\[(\[](?P<tex>.*)\\[)\]]\s*\Z", re.S)
RE_TAG = re.compile(r"\\tag\{(?P<number>[^{}]*)\}")
RE_FONT_SRC = re.compile(r"src:(?P<list>[^;}]*)")
EXCLUDE = " data-search-exclude"
SCROLLABLE = '<span class="katex-display" tabindex="0">'


class KaTeX:
    """The Node process that renders TeX, with a memory of what it rendered this session."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.cache: dict[tuple[str, bool], str] = {}
        self.version = ""
        self.stored = 0  # how many formulas the cache file held when it was read

    def cache_key(self) -> str:
        """The key of the formulas typeset by this KaTeX and this server (which holds the
        options) in the build's cache (``cache.py``)."""
        package = json.loads((KATEX / "package.json").read_text(encoding="utf-8"))
        return cache.key(package["version"], SERVER.read_bytes())

    def load(self) -> None:
        """Read the formulas typeset by earlier builds (a build with no new formula starts no
        Node process)."""
        if not (KATEX / "package.json").is_file():
            return  # start() says what is missing
        data = cache.read("katex", "formulas", self.cache_key(), "json")
        if data is not None and not self.cache:
            try:
                stored = json.loads(data)
            except ValueError:
                stored = {}
            self.cache.update({(t, d == "display"): h for d, t, h in stored.get("formulas", [])})
            self.version = stored.get("version", "")
        self.stored = len(self.cache)

    def save(self) -> None:
        """Keep the formulas typeset so far (those that typeset) when there are new ones."""
        done = sorted((t, d, h) for (t, d), h in self.cache.items() if isinstance(h, str))
        if len(done) == self.stored or not (KATEX / "package.json").is_file():
            return
        formulas = [["display" if d else "inline", t, h] for t, d, h in done]
        data = json.dumps({"version": self.version, "formulas": formulas}).encode("utf-8")
        cache.write("katex", "formulas", self.cache_key(), "json", data)
        self.stored = len(done)

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            return
        if not (KATEX / "package.json").is_file():
            raise PluginError(f"KaTeX is missing ({KATEX}): run `npm ci` (or `make setup`) first")
        node = shutil.which("node")
        if node is None:
            raise PluginError("Node.js is needed to typeset the math: install node and npm")
        self.proc = subprocess.Popen(
            [node, str(SERVER)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        hello = json.loads(self.proc.stdout.readline() or "{}")
        if not hello.get("ready"):
            raise PluginError(f"the KaTeX process did not start ({SERVER})")
        self.version = hello["version"]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        self.proc = None

    def render(self, formulas: list[tuple[str, bool]]) -> list[str | Exception]:
        """HTML for each ``(tex, display)``, or the error KaTeX raised for it."""
        todo = sorted({f for f in formulas if f not in self.cache})
        if todo:
            self.start()
            self.proc.stdin.write(
                "".join(json.dumps({"tex": t, "display": d}) + "\n" for t, d in todo)
            )
            self.proc.stdin.flush()
            for key in todo:
                reply = json.loads(self.proc.stdout.readline())
                self.cache[key] = reply["html"] if "html" in reply else ValueError(reply["error"])
        return [self.cache[f] for f in formulas]


ENGINE = KaTeX()
atexit.register(ENGINE.stop)


def copy_button(tex: str) -> str:
    """A button that copies the equation's TeX (Material's clipboard handles the click)."""
    m = RE_TAG.search(tex)
    label = f"Copy the TeX of equation ({m['number']})" if m else "Copy the TeX of this equation"
    source = " ".join(RE_TAG.sub("", tex).split())
    return (
        f'<button class="md-clipboard md-icon rope-copy-tex" type="button" title="{label}" '
        f'aria-label="{label}" data-clipboard-text="{html.escape(source, quote=True)}">'
        "</button>"
    )


def _formulas(html_text: str, where: str) -> tuple[list[re.Match], list[tuple[str, bool]]]:
    """The arithmatex elements of ``html_text`` and their ``(tex, display)``."""
    found = list(RE_MATH.finditer(html_text))
    formulas = []
    for m in found:
        marked = RE_DATA_TEX.search(m["attrs"])
        tex = html.unescape(marked["tex"] if marked else m["inner"])
        inner = RE_DELIMITED.match(tex)
        if inner is None:
            raise PluginError(f"{where}: math without \\( \\) or \\[ \\] delimiters: {tex[:80]!r}")
        formulas.append((inner["tex"].strip(), m["tag"] == "div"))
    return found, formulas


def _rendered(
    html_text: str, where: str
) -> tuple[list[re.Match], list[tuple[str, bool]], list[str]]:
    found, formulas = _formulas(html_text, where)
    rendered = ENGINE.render(formulas)
    for (tex, _), result in zip(formulas, rendered, strict=True):
        if isinstance(result, Exception):
            raise PluginError(f"{where}: KaTeX cannot typeset {tex[:120]!r}: {result}")
    return found, formulas, rendered


def plain_text(rendered: str) -> str:
    """The characters a typeset formula shows (its visible HTML, without the MathML)."""
    _, _, visible = rendered.partition('<span class="katex-html"')
    return html.unescape(RE_TAGS.sub("", "<" + visible)).replace("\xa0", " ")


def mark(html_text: str, where: str) -> str:
    """Each formula of ``html_text`` as the search index should read it: an inline formula's
    element holds the characters it shows (its TeX moves to ``data-tex``), a display formula is
    left out of the index. :func:`typeset` puts KaTeX's HTML in their place."""
    found, formulas, rendered = _rendered(html_text, where)
    out, pos = [], 0
    for m, (_, display), result in zip(found, formulas, rendered, strict=True):
        out.append(html_text[pos : m.start()])
        if display:
            attrs = m["attrs"] if EXCLUDE in m["attrs"] else m["attrs"] + EXCLUDE
            out.append(f'<div class="arithmatex"{attrs}>{m["inner"]}</div>')
        elif RE_DATA_TEX.search(m["attrs"]):
            out.append(m.group())
        else:
            tex = html.escape(html.unescape(m["inner"]), quote=True)
            text = html.escape(plain_text(result), quote=False)
            out.append(f'<span class="arithmatex"{m["attrs"]} data-tex="{tex}">{text}</span>')
        pos = m.end()
    out.append(html_text[pos:])
    return "".join(out)


def typeset(html_text: str, where: str) -> tuple[str, int]:
    """Replace every arithmatex element of ``html_text`` (as written or as :func:`mark` left
    it) by KaTeX's HTML; return the new text and the number of formulas."""
    found, formulas, rendered = _rendered(html_text, where)
    if not found:
        return html_text, 0
    out, pos = [], 0
    for m, (tex, display), result in zip(found, formulas, rendered, strict=True):
        out.append(html_text[pos : m.start()])
        attrs = RE_DATA_TEX.sub("", m["attrs"])
        attrs = attrs if EXCLUDE in attrs else attrs + EXCLUDE
        if display:
            # a formula wider than the column scrolls in its box, which a keyboard must reach
            result = result.replace('<span class="katex-display">', SCROLLABLE, 1)
            out.append(f'<div class="arithmatex"{attrs}>{result}{copy_button(tex)}</div>')
        else:
            out.append(f'<span class="arithmatex"{attrs}>{result}</span>')
        pos = m.end()
    out.append(html_text[pos:])
    return "".join(out), len(found)


_counts = {"pages": 0, "formulas": 0}


def on_pre_build(config, **kwargs):
    _counts.update(pages=0, formulas=0)
    ENGINE.load()


@event_priority(10)  # after the numbering and notebook hooks (50) have marked their math
def on_page_content(html_text, page, config, files, **kwargs):
    """Each formula as the search index reads it (it is typeset in the written page)."""
    return mark(html_text, page.file.src_uri)


def _typeset_counted(html_text: str, where: str) -> str:
    html_text, n = typeset(html_text, where)
    if n:
        _counts["pages"] += 1
        _counts["formulas"] += n
    return html_text


def on_post_page(output, page, config, **kwargs):
    return _typeset_counted(output, page.file.src_uri)


def katex_css(css: str) -> str:
    """KaTeX's style sheet with only the WOFF2 source of each font (all browsers read it)."""

    def woff2_only(m: re.Match) -> str:
        sources = [s for s in m["list"].split(",") if "woff2" in s]
        return "src:" + ",".join(sources)

    return RE_FONT_SRC.sub(woff2_only, css)


def _copy_assets(config, **kwargs):
    site = Path(config.site_dir)
    dist = KATEX / "dist"
    css_dir = site / CSS_DEST
    (css_dir / "fonts").mkdir(parents=True, exist_ok=True)
    css = katex_css((dist / "katex.min.css").read_text(encoding="utf-8"))
    (css_dir / "katex.min.css").write_text(css, encoding="utf-8")
    for font in sorted((dist / "fonts").glob("*.woff2")):
        shutil.copyfile(font, css_dir / "fonts" / font.name)
    (site / JS_DEST).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(dist / "contrib" / "copy-tex.min.js", site / JS_DEST / "copy-tex.min.js")
    ENGINE.save()
    log.info(
        "math: %d formulas on %d pages typeset by KaTeX %s",
        _counts["formulas"],
        _counts["pages"],
        ENGINE.version,
    )


on_post_build = _copy_assets
