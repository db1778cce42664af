r"""MkDocs hook: the handout's PDFs, linked from the site.

``make pdf`` (``tools/print_pdf.py``) prints the one-page edition (``print_page.py``) as the
handout, :data:`HANDOUT` (``rope-explained.pdf``), and splits it into one PDF per chapter,
``pdf/KEY.pdf`` (:func:`chapter_pdf`; ``KEY`` is the page's section id on the print page). A
deploy copies them into ``docs/`` before the site is built, so they are files of the site like
any other. This hook:

* gives the templates their addresses: ``handout_pdf`` on every page (the header's link,
  ``overrides/partials/source.html``), ``chapter_pdf`` on each page of the handout except the
  home page (``overrides/main.html``: *Download this chapter as PDF*);
* in a build without them (a plain ``mkdocs build``, ``make serve``, the tests) writes in the
  place of each a one-page PDF that says so and where the published versions keep theirs:
  no link of the site is broken, and the reader is told why there is no handout. A deploy
  (``SITE_PDF`` set, ``extra.citation.pdf``) without all of them fails instead.
"""

from __future__ import annotations

import logging

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from print_page import config_root, in_handout, page_key

log = logging.getLogger("mkdocs.hooks.handout")

#: The handout: the whole site but its API reference, one PDF.
HANDOUT = "rope-explained.pdf"
#: The folder of the chapters' PDFs.
CHAPTERS = "pdf/"


def chapter_pdf(url: str) -> str:
    """The site path of the PDF of the page at ``url``.

    >>> chapter_pdf("equations/rope/")
    'pdf/equations-rope.pdf'
    """
    return f"{CHAPTERS}{page_key(url)}.pdf"


def is_chapter(page, nav) -> bool:
    """Whether ``page`` has a PDF of its own: a page of the navigation printed in the handout,
    not the home page (whose link is the whole handout's)."""
    return page in nav.pages and in_handout(page.url) and not page.is_homepage


def _pdf_string(text: str) -> str:
    """``text`` as a PDF literal string (Latin-1; parentheses and backslashes escaped)."""
    text = text.encode("latin-1", "replace").decode("latin-1")
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def placeholder_pdf(lines: list[str]) -> bytes:
    """A one-page A4 PDF that shows ``lines`` in Helvetica: what a build without ``make pdf``
    serves in the place of a PDF of the handout. Its bytes depend on ``lines`` only.

    >>> pdf = placeholder_pdf(["No handout (yet)"])
    >>> pdf[:8], b"(No handout \\\\(yet\\\\)) '" in pdf, pdf.rstrip().endswith(b"%%EOF")
    (b'%PDF-1.4', True, True)
    """
    text = "BT /F1 12 Tf 56 770 Td 18 TL " + " ".join(f"{_pdf_string(t)} '" for t in lines)
    text += " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        "/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        f"<< /Length {len(text.encode('latin-1'))} >>\nstream\n{text}\nendstream",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{obj}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode("ascii")
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode("ascii")
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode("ascii")
    return out


def placeholder_lines(config, path: str) -> list[str]:
    """What the placeholder of the PDF at the site path ``path`` says."""
    return [
        f"{config.site_name}: {path}",
        "",
        "This copy of the site was built without its PDFs: `make pdf` prints them",
        "once the site is built (see the README). Each published version carries its own,",
        "printed from that version:",
        "",
        config_root(config) + path,
    ]


def on_nav(nav, config, files, **kwargs):
    """The handout and each chapter's PDF: a placeholder for each that ``docs/`` lacks."""
    wanted = [HANDOUT] + [chapter_pdf(p.url) for p in nav.pages if is_chapter(p, nav)]
    missing = [path for path in wanted if files.get_file_from_path(path) is None]
    if missing and (config.extra.get("citation") or {}).get("pdf"):
        # a deploy (SITE_PDF set) publishes the real PDFs, never a placeholder
        raise PluginError(f"handout: docs/ lacks {missing} (copy make pdf's PDFs into docs/)")
    for path in missing:
        content = placeholder_pdf(placeholder_lines(config, path))
        files.append(File.generated(config, path, content=content))
    if missing:
        log.info(f"handout: {len(missing)} PDFs are placeholders (`make pdf` prints them)")
    return nav


def on_page_context(context, page, config, nav, **kwargs):
    """The addresses of the handout and of the page's own PDF, for the templates."""
    context["handout_pdf"] = HANDOUT
    if is_chapter(page, nav):
        context["chapter_pdf"] = chapter_pdf(page.url)
    return context
