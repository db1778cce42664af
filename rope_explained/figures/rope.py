"""Figures of the rope page."""

from __future__ import annotations
