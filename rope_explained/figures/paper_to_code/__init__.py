"""Figures of the paper-to-code notebooks (docs/paper-to-code/), one module per notebook."""
