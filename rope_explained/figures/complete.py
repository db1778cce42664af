"""Figures of the complete page."""

from __future__ import annotations
