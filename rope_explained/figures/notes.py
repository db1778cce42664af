"""Figures of the notes page."""

from __future__ import annotations
