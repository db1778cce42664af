"""Time and peak memory of the full forward pass against the prediction paths, in one run.

Usage: ``python benchmarks/bench_predict_last.py``. For T = 1,024, 4,096 and 8,192 letters it
prints the time (best of a few calls) and the peak memory (``tracemalloc``, which sees numpy's
allocations, in a separate call) of

* ``forward``: the full trace, four T x T matrices;
* ``predict_last``: the last prediction only, layer 0 a block of rows at a time;
* ``extension.predict_last_many``: the same numbers from the layer-0 distance kernel and an FFT
  (one text), the path the context-extension page's sweeps use; it keeps the layer-0 kernel of
  a setting between calls, so a second row shows it with nothing kept.

Why the two faster paths stay (one run on a 2-core machine shared with other work): at 8,192
letters forward took 7.0 s and peaked at 2,262 MiB, predict_last 3.2 s and 81 MiB, and
predict_last_many 0.002 s (0.084 s with nothing kept); at 4,096 letters 4.9 s and 593 MiB,
1.0 s and 41 MiB, 0.001 s. The context-extension page runs predict_last_many on thousands of
prompts of up to 8,000 letters, and the playground's figures run predict_last on its
4,096-letter prompt under every scaling. Both are held to forward over every setting of Config
(tests/test_model.py, tests/test_extension.py).
"""

from __future__ import annotations

import platform
import tracemalloc

import numpy as np
from timing import best_of  # benchmarks/timing.py

from rope_explained import VOCAB, extension, forward, predict_last
from rope_explained.extension import predict_last_many


def peak_bytes(fn) -> int:
    """The most memory numpy and Python held at once during one call, above what was held."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def cold_kernel(text: str) -> None:
    """The kernel path with nothing kept from an earlier call (weights, kernel, plan)."""
    for cached in (extension._kernel_at, extension._plan, extension._weights):
        cached.cache_clear()
    predict_last_many([text])


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"{'what':<34}{'T':>7}{'seconds':>10}{'peak MiB':>11}")
    for T in (1024, 4096, 8192):
        text = "".join(rng.choice(list(VOCAB), size=T))
        paths = [
            ("forward (full trace)", lambda text=text: forward(text), 1 if T > 1024 else 3),
            ("predict_last", lambda text=text: predict_last(text), 1 if T > 1024 else 3),
            ("extension.predict_last_many", lambda text=text: predict_last_many([text]), 3),
            ("  the same, its kernel recomputed", lambda text=text: cold_kernel(text), 3),
        ]
        for name, fn, repeat in paths:
            fn()  # warm: weights, cos/sin tables
            seconds = best_of(fn, repeat)
            mib = peak_bytes(fn) / 2**20
            print(f"{name:<34}{T:>7,}{seconds:>10.3f}{mib:>11.1f}")


if __name__ == "__main__":
    main()
