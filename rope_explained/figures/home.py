"""Figures of the home page."""

from __future__ import annotations
