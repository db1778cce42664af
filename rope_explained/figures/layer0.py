"""Figures of the layer0 page."""

from __future__ import annotations
