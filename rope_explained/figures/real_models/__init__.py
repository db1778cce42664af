"""Figures of the section "RoPE in real models", one module per page."""
