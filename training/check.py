"""Check freshly trained weights against tolerances, not bytes.

    python training/check.py    # after training/train.py has written rope_explained/data/

Weights retrained with other library versions, another CPU or another number of CPUs differ in
their last bits, so CI checks what the chapter relies on instead, on the package's numpy forward
pass ([`rope_explained.trained`][]), for each seed trained with the warm-up:

* induction accuracy on clean prompts at the training length at least ``ACCURACY``;
* layer 0's weight on the key one step back at least ``PREVIOUS``;
* layer 0 without its fastest 8 pairs at most ``L0_NO_FAST8`` accuracy;
* layer 1 without its fastest 16 pairs at least ``L1_NO_FAST16`` accuracy.

It also says whether each run's SHA-256 is the one committed (``rope_explained.trained.HASHES``):
on the machine the weights were made on, ``make train`` gives the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rope_explained import trained  # noqa: E402

ACCURACY = 0.99
PREVIOUS = 0.95
L0_NO_FAST8 = 0.2
L1_NO_FAST16 = 0.95


def main() -> int:
    trained._load.cache_clear()
    failures = []
    for seed in trained.SEEDS:
        for warmup in (True, False):
            rec = trained.record(seed, warmup=warmup)
            same = rec["sha256"] == trained.HASHES.get(rec["name"])
            verdict = "the committed weights" if same else "differs from the committed weights"
            print(f"{rec['name']}: sha256 {rec['sha256'][:12]}... {verdict}")
        w = trained.load(seed)
        base = trained.evaluate(w)
        no_fast0 = trained.evaluate(w, zero_pairs={0: range(8)}).accuracy
        no_fast1 = trained.evaluate(w, zero_pairs={1: range(16)}).accuracy
        checks = [
            (f"accuracy {base.accuracy:.4f} >= {ACCURACY}", base.accuracy >= ACCURACY),
            (f"layer 0 on m-1 {base.previous:.4f} >= {PREVIOUS}", base.previous >= PREVIOUS),
            (f"layer 0 without 0-7: {no_fast0:.4f} <= {L0_NO_FAST8}", no_fast0 <= L0_NO_FAST8),
            (f"layer 1 without 0-15: {no_fast1:.4f} >= {L1_NO_FAST16}", no_fast1 >= L1_NO_FAST16),
        ]
        for text, ok in checks:
            print(f"  seed {seed}: {'ok  ' if ok else 'FAIL'} {text}")
            if not ok:
                failures.append(f"seed {seed}: {text}")
    if failures:
        print("\n".join(["Out of tolerance:", *failures]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
