"""Read a PDF back: each page's text and the names of the fonts its text is set in, as JSON.

    python tests/pdf_text.py IN.pdf OUT.json

The print test runs it in a process of its own while the PDF's other checks wait. It reads
the PDF with PDFium (through pypdfium2), the engine Chromium's own PDF viewer uses. The
bookmarks (:func:`outline`) and page labels are read with pypdf.
"""

from __future__ import annotations

import ctypes
import json
import sys


def font_names(page) -> list[str]:
    """The base names of the fonts of a page's text objects (``ABCDEF+KaTeX_Main-Regular``,
    ...): the fonts its text is set in, not every font its resources list."""
    import pypdfium2.raw as pdfium_c

    names = set()
    for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_TEXT], max_depth=16):
        font = pdfium_c.FPDFTextObj_GetFont(obj.raw)
        size = pdfium_c.FPDFFont_GetBaseFontName(font, None, 0)
        buf = ctypes.create_string_buffer(size)
        pdfium_c.FPDFFont_GetBaseFontName(font, buf, size)
        names.add(buf.value.decode("utf-8", "replace"))
    return sorted(names)


def read_pdf(path: str) -> list[dict]:
    """``[{"text": ..., "fonts": [...]}, ...]``, one entry per page; lines end in ``\\n``."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    try:
        pages = []
        for page in pdf:
            text = page.get_textpage().get_text_bounded()
            pages.append({"text": text.replace("\r\n", "\n"), "fonts": font_names(page)})
        return pages
    finally:
        pdf.close()


def outline(path) -> list[tuple[int, str, int]]:
    """The bookmarks of a PDF, in order: ``(level, title, page)``, level 0 at the top, pages
    counted from 1."""
    import pypdf

    reader = pypdf.PdfReader(path)
    out = []

    def walk(items, level):
        for item in items:
            if isinstance(item, list):
                walk(item, level + 1)
            else:
                out.append((level, item.title, reader.get_destination_page_number(item) + 1))

    walk(reader.outline, 0)
    return out


def page_texts(path, pages) -> dict[int, str]:
    """The text of some pages of a PDF (``pages`` counted from 1), as :func:`read_pdf` reads it."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return {
            n: pdf[n - 1].get_textpage().get_text_bounded().replace("\r\n", "\n") for n in pages
        }
    finally:
        pdf.close()


if __name__ == "__main__":
    pdf, out = sys.argv[1:]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(read_pdf(pdf), f)
