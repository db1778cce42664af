"""Figures of the forward_pass page."""

from __future__ import annotations
