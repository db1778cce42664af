"""Figures of the embedding page."""

from __future__ import annotations
