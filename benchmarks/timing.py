"""Timing shared by the benchmark scripts (run as ``python benchmarks/<script>.py``)."""

from __future__ import annotations

import time


def best_of(fn, repeat: int) -> float:
    """The fastest of ``repeat`` timed calls, in seconds (the least disturbed by other load)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
