"""Render registered figures without MkDocs: ``python -m rope_explained.figures --out DIR``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import FORMATS, load_all, render_bytes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rope_explained.figures", description=__doc__)
    parser.add_argument("--out", required=True, type=Path, help="folder to write the figures into")
    parser.add_argument("--format", default="svg", choices=FORMATS)
    parser.add_argument("ids", nargs="*", help="figure ids (default: all)")
    args = parser.parse_args(argv)
    registry = load_all()
    ids = args.ids or sorted(registry)
    args.out.mkdir(parents=True, exist_ok=True)
    for fig_id in ids:
        path = args.out / f"{fig_id}.{args.format}"
        path.write_bytes(render_bytes(fig_id, args.format))
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
