"""MkDocs hook: copy MathJax 3 from ``node_modules`` (``npm ci``) into the built site.

The site typesets its math with MathJax in the reader's browser, served from the site itself:
no CDN, and no third-party bundle committed to the repository.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from mkdocs.exceptions import PluginError

log = logging.getLogger("mkdocs.hooks.mathjax")

ROOT = Path(__file__).resolve().parents[2]
MATHJAX_SRC = ROOT / "node_modules" / "mathjax" / "es5"
MATHJAX_DEST = "javascripts/vendor/mathjax"
#: What the site loads of MathJax: the combined TeX-to-SVG component (it holds the menu and the
#: assistive MathML for screen readers), the TeX extensions that `autoload` fetches when a page
#: uses their macros, and what the menu's accessibility explorer fetches when a reader turns it
#: on (MathML input, the a11y components, the speech rule engine's English rules).
MATHJAX_FILES = (
    "tex-svg.js",
    "input/tex/extensions/*.js",
    "input/mml.js",
    "a11y/*.js",
    "sre/mathmaps/base.json",
    "sre/mathmaps/en.json",
)


def on_config(config, **kwargs):
    if not (MATHJAX_SRC / "tex-svg.js").is_file():
        raise PluginError(
            f"MathJax 3 is missing ({MATHJAX_SRC / 'tex-svg.js'} not found): run `npm ci` in "
            f"{ROOT} (or `make setup`) first"
        )


def on_post_build(config, **kwargs):
    """Copy what the site needs of MathJax 3 into the built site."""
    dest_root = Path(config.site_dir) / MATHJAX_DEST
    total = 0
    for pattern in MATHJAX_FILES:
        matches = sorted(MATHJAX_SRC.glob(pattern))
        if not matches:
            raise PluginError(f"MathJax file {pattern} not found in {MATHJAX_SRC}: run `npm ci`")
        for src in matches:
            dest = dest_root / src.relative_to(MATHJAX_SRC)
            total += src.stat().st_size
            if dest.is_file() and dest.stat().st_size == src.stat().st_size:
                if dest.stat().st_mtime >= src.stat().st_mtime:
                    continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
    log.info("MathJax: %.1f MB in the site", total / 1e6)
