"""Figures of the research-notes pages (docs/notes/), one module per page."""
