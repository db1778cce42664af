"""Figures of the layer1 page."""

from __future__ import annotations
