"""How long ``make site`` takes, cold and warm, in one run.

Usage: ``python benchmarks/bench_build.py [--warm-runs N] [--json FILE]``.

The build runs in a scratch copy of the repository's files (``git ls-files``: what a fresh clone
holds, with this checkout's uncommitted edits), so that this checkout's ``.cache/`` is neither
used nor disturbed; ``node_modules/`` (KaTeX) is linked in, as ``make`` would have installed it,
and the copy's package comes first on ``PYTHONPATH`` (as a fresh clone's own editable install
would put it), so the build imports it once.

* **cold**: the first build of the copy, with no ``.cache/``: every figure drawn, every value
  computed, both notebooks executed, every formula typeset, the API reference rendered.
* **warm**: ``N`` more builds with nothing changed (default 5): min, median and max.

Each build is ``mkdocs build --strict --quiet`` (what ``make site`` runs once the environment
is set up), timed from outside as a whole process: wall seconds, and CPU seconds (user and
system, its child processes included: the figure workers, the notebook kernels, KaTeX's Node
process). The targets are printed beside the medians: cold within 40 s, warm within 8 s (the
hooks use public APIs only and keep no memo of the API reference or the search index).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"cold": 40.0, "warm": 8.0}


def scratch_copy() -> Path:
    """The repository's files (tracked and untracked, not ignored) in a new temporary folder,
    with ``node_modules/`` linked; returns the copy's root."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    copy = Path(tempfile.mkdtemp(prefix="rope-build-")) / "repo"
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, copy / rel)
    if not (ROOT / "node_modules").is_dir():
        raise SystemExit("node_modules/ is missing: run `make setup` first")
    (copy / "node_modules").symlink_to(ROOT / "node_modules")
    return copy


def timed_build(repo: Path) -> dict[str, float]:
    """One ``mkdocs build --strict --quiet`` in ``repo``: wall and CPU seconds."""
    # the copy's own package first: the environment's editable install points at this checkout
    path = os.pathsep.join(filter(None, (str(repo), os.environ.get("PYTHONPATH", ""))))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"the build failed:\n{proc.stderr[-4000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu}


def measure(warm_runs: int) -> tuple[Path, dict]:
    """Cold then warm builds in a scratch copy; returns the copy (its ``site/`` built) and the
    figures."""
    repo = scratch_copy()
    cold = timed_build(repo)
    warm = [timed_build(repo) for _ in range(warm_runs)]
    walls = [w["wall"] for w in warm]
    return repo, {
        "cold wall s": cold["wall"],
        "cold cpu s": cold["cpu"],
        "warm wall s min": min(walls),
        "warm wall s median": statistics.median(walls),
        "warm wall s max": max(walls),
        "warm cpu s median": statistics.median(w["cpu"] for w in warm),
        "warm runs": warm_runs,
    }


def report(figures: dict) -> None:
    print(f"{'make site':<12} {'wall s':>8} {'cpu s':>8} {'target':>9}")
    print(
        f"{'cold':<12} {figures['cold wall s']:>8.1f} {figures['cold cpu s']:>8.1f} "
        f"{'<= ' + format(TARGETS['cold'], '.0f') + ' s':>9}"
        f"  {'met' if figures['cold wall s'] <= TARGETS['cold'] else 'MISSED'}"
    )
    print(
        f"{'warm median':<12} {figures['warm wall s median']:>8.2f} "
        f"{figures['warm cpu s median']:>8.2f} {'<= ' + format(TARGETS['warm'], '.0f') + ' s':>9}"
        f"  {'met' if figures['warm wall s median'] <= TARGETS['warm'] else 'MISSED'}"
        f"  (min {figures['warm wall s min']:.2f}, max {figures['warm wall s max']:.2f}, "
        f"{figures['warm runs']} runs)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm-runs", type=int, default=5, help="warm builds to time (>= 1)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.warm_runs < 1:
        parser.error(f"--warm-runs must be at least 1, got {args.warm_runs}")
    repo, figures = measure(args.warm_runs)
    shutil.rmtree(repo.parent, ignore_errors=True)
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
