"""Figures of the playground page."""

from __future__ import annotations
