"""Figures of the explained-equations pages (docs/equations/), one module per page."""
