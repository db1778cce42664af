"""Time the RoPE fast path against the matrix path, and the forward pass, in one run.

Usage: ``python benchmarks/bench_forward.py`` (or ``make bench``). Prints one table; the targets
are a fast path at least 20x faster than the matrix path at T = 1024, d = 64, and ``forward``
well under a second at T = 1024.

Ratios are against ``apply_rope`` as users call it (its cos/sin tables computed on every call).
The table also shows the bare matrix product with every R_m built beforehand, so each comparison
is visible.
"""

from __future__ import annotations

import platform

import numpy as np
from timing import best_of  # benchmarks/timing.py

from rope_explained import VOCAB, apply_rope, apply_rope_matrix, forward, rotation_matrix


def per_position_matrices(x: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The definition, literally: build R_{Theta,m} for each position and multiply."""
    return np.stack([rotation_matrix(m, x.shape[-1]) @ x[i] for i, m in enumerate(pos)])


def main() -> None:
    rng = np.random.default_rng(0)
    d = 64
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"{'what':<38}{'T':>6}{'seconds':>12}{'ratio':>10}")
    for T in (256, 1024, 4096):
        x = rng.standard_normal((T, d))
        pos = np.arange(T, dtype=np.float64)
        fast = best_of(lambda x=x, pos=pos: apply_rope(x, pos), 50)
        batched = best_of(lambda x=x, pos=pos: apply_rope_matrix(x, pos), 5)
        loop = best_of(lambda x=x, pos=pos: per_position_matrices(x, pos), 3)
        R = np.stack([rotation_matrix(m, d) for m in pos])  # (T, d, d), built once
        product = best_of(lambda R=R, x=x: np.matmul(R, x[..., None]), 10)
        rows = [
            ("apply_rope", fast, None),
            ("matrix path, batched R_m @ x_m", batched, batched / fast),
            ("matrix path, rotation_matrix loop", loop, loop / fast),
            ("  matrix product only (R_m prebuilt)", product, product / fast),
        ]
        for name, t, ratio in rows:
            extra = f"{ratio:>9.1f}x" if ratio else ""
            print(f"{name:<38}{T:>6}{t:>12.6f}{extra}")
    for T in (256, 1024, 4096):
        text = "".join(rng.choice(list(VOCAB), size=T))
        t = best_of(lambda text=text: forward(text), 3 if T < 4096 else 1)
        print(f"{'forward (two layers, full trace)':<38}{T:>6}{t:>12.4f}")


if __name__ == "__main__":
    main()
