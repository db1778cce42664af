"""Read a PDF back: each page's text and the names of the fonts it uses, as JSON.

    python tests/pdf_text.py IN.pdf OUT.json

The print test runs it in a process of its own while the PDF's other checks wait, so that
pypdf's pure-Python text extraction (the longest part of reading 270 pages) does not hold up
the tests in pytest's thread.
"""

from __future__ import annotations

import json
import sys


def font_names(page) -> list[str]:
    """The names of the fonts a PDF page uses (``ABCDEF+KaTeX_Main-Regular``, ...)."""
    fonts = page.get("/Resources", {}).get("/Font", {})
    return sorted({str(f.get_object().get("/BaseFont", "")) for f in fonts.values()})


def read_pdf(path: str) -> list[dict]:
    """``[{"text": ..., "fonts": [...]}, ...]``, one entry per page."""
    from pypdf import PdfReader

    return [
        {"text": page.extract_text() or "", "fonts": font_names(page)}
        for page in PdfReader(path).pages
    ]


if __name__ == "__main__":
    pdf, out = sys.argv[1:]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(read_pdf(pdf), f)
