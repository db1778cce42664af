"""Render registered figures without MkDocs: ``python -m rope_explained.figures --out DIR``."""

from __future__ import annotations

import argparse
import sys

from . import load_all, render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rope_explained.figures", description=__doc__)
    parser.add_argument("--out", required=True, help="folder to write the figures into")
    parser.add_argument("--format", default="svg", choices=("svg", "png", "pdf"))
    parser.add_argument("ids", nargs="*", help="figure ids (default: all)")
    args = parser.parse_args(argv)
    registry = load_all()
    ids = args.ids or sorted(registry)
    for fig_id in ids:
        path = render(fig_id, args.out, args.format)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
