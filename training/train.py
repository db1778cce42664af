"""Train the two-layer RoPE transformer on the induction task and write its weights.

    python training/train.py --seed 0              # the weights the site shows for seed 0
    python training/train.py --seed 0 --no-warmup  # the same run without the short warm-up

The model is the package's form: a token embedding, two attention-only layers of one head each
(RoPE on queries and keys, interleaved pairs, base 10000), a readout to the 26 letters; no MLP,
no LayerNorm, no bias, no learned position embedding. The data comes from
``rope_explained.task.batch``, the generator the package measures the model with.

The run writes ``rope_explained/data/trained-<name>.npz`` (float32 arrays, written byte for
byte the same on every run) and ``trained-<name>.json`` beside it: the settings, the loss curve,
the library versions and the SHA-256 of the arrays. Runs are bit-identical for a fixed number of
usable CPUs, so ``make train`` pins each to one (``taskset -c 0``).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import math
import os
import platform
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import jaxlib
import numpy as np
import optax

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the package of this checkout, installed or not

from rope_explained import task  # noqa: E402
from rope_explained.trained import array_hash  # noqa: E402

DATA = ROOT / "rope_explained" / "data"


@dataclass(frozen=True)
class Settings:
    """Everything a run depends on besides the library versions."""

    seed: int = 0  # seeds the initial weights (jax.random) and the data (numpy's PCG64)
    width: int = 64  # residual width D
    head_dim: int = 64  # head dimension d: 32 RoPE pairs
    base: float = 10000.0  # RoPE frequency base
    length: int = 64  # positions per training sequence, start token included
    warmup_length: int = 24  # positions during the warm-up
    warmup_steps: int = 1000  # steps at warmup_length before length (0: no warm-up)
    steps: int = 5000  # optimizer steps in all
    batch: int = 64  # sequences per step
    learning_rate: float = 3e-3  # Adam's step size, constant
    log_every: int = 50  # steps between two points of the recorded loss curve


def theta(s: Settings) -> jnp.ndarray:
    i = jnp.arange(s.head_dim // 2, dtype=jnp.float32)
    return s.base ** (-2.0 * i / s.head_dim)  # (d/2,)


def rope(x: jnp.ndarray, th: jnp.ndarray) -> jnp.ndarray:
    """Rotate pair (2i, 2i+1) of the row at position m by m theta_i; x is (B, T, d)."""
    T = x.shape[-2]
    angle = jnp.arange(T, dtype=jnp.float32)[:, None] * th[None, :]  # (T, d/2)
    cos, sin = jnp.cos(angle), jnp.sin(angle)
    a, b = x[..., 0::2], x[..., 1::2]  # (B, T, d/2) each
    return jnp.stack([a * cos - b * sin, a * sin + b * cos], axis=-1).reshape(x.shape)


def init(s: Settings) -> dict:
    keys = jax.random.split(jax.random.PRNGKey(s.seed), 10)
    D, d = s.width, s.head_dim

    def normal(key, shape, fan_in):
        return jax.random.normal(key, shape, dtype=jnp.float32) / math.sqrt(fan_in)

    params = {"embedding": jax.random.normal(keys[0], (27, D), dtype=jnp.float32)}
    for layer in (0, 1):
        k = keys[1 + 4 * layer : 5 + 4 * layer]
        params[f"L{layer}"] = {
            "W_q": normal(k[0], (d, D), D),
            "W_k": normal(k[1], (d, D), D),
            "W_v": normal(k[2], (d, D), D),
            "W_o": normal(k[3], (D, d), d),
        }
    params["W_out"] = normal(keys[9], (26, D), D)
    return params


def logits_fn(params: dict, tokens: jnp.ndarray, s: Settings) -> jnp.ndarray:
    th = theta(s)
    T = tokens.shape[-1]
    causal = jnp.tril(jnp.ones((T, T), dtype=bool))
    h = params["embedding"][tokens]  # (B, T, D)
    for layer in (0, 1):
        p = params[f"L{layer}"]
        q = rope(h @ p["W_q"].T, th)  # (B, T, d)
        k = rope(h @ p["W_k"].T, th)
        v = h @ p["W_v"].T
        scores = q @ jnp.swapaxes(k, -1, -2) / math.sqrt(s.head_dim)  # (B, T, T)
        A = jax.nn.softmax(jnp.where(causal, scores, -jnp.inf), axis=-1)
        h = h + (A @ v) @ p["W_o"].T  # (B, T, D)
    return h @ params["W_out"].T  # (B, T, 26)


def loss_fn(params, tokens, targets, mask, s: Settings):
    logits = logits_fn(params, tokens, s)
    logp = jax.nn.log_softmax(logits, axis=-1)
    nll = -jnp.take_along_axis(logp, jnp.maximum(targets, 0)[..., None], axis=-1)[..., 0]
    return jnp.sum(nll * mask) / jnp.maximum(jnp.sum(mask), 1.0)


def export(params: dict, s: Settings) -> dict[str, np.ndarray]:
    """The arrays the package reads: the score's 1/sqrt(d) folded into W_q (exact: d = 64 makes
    it 1/8, a power of two), so that scores are plain dot products as in the hand-built model."""
    out = {"embedding": np.asarray(params["embedding"], dtype=np.float32)}
    for layer in (0, 1):
        for name, value in params[f"L{layer}"].items():
            value = np.asarray(value, dtype=np.float32)
            if name == "W_q":
                value = value / np.float32(math.sqrt(s.head_dim))
            out[f"L{layer}.{name}"] = value
    out["W_out"] = np.asarray(params["W_out"], dtype=np.float32)
    return out


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An .npz numpy reads, with fixed zip timestamps: the same arrays give the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            data = io.BytesIO()
            np.lib.format.write_array(data, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            zf.writestr(info, data.getvalue())
    path.write_bytes(buffer.getvalue())


def train(s: Settings) -> tuple[dict, dict]:
    params = init(s)
    optimizer = optax.adam(s.learning_rate)
    state = optimizer.init(params)

    @jax.jit
    def step(params, state, tokens, targets, mask):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets, mask, s)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    rng = np.random.default_rng(s.seed)
    curve, window = [], []
    start = time.process_time()
    wall = time.perf_counter()
    for i in range(s.steps):
        T = s.warmup_length if i < s.warmup_steps else s.length
        b = task.batch(rng, s.batch, T)
        params, state, loss = step(
            params,
            state,
            jnp.asarray(b.tokens, dtype=jnp.int32),
            jnp.asarray(b.targets, dtype=jnp.int32),
            jnp.asarray(b.mask, dtype=jnp.float32),
        )
        window.append(loss)
        if (i + 1) % s.log_every == 0:
            curve.append([i + 1, round(float(np.mean(jax.device_get(window))), 5)])
            window = []
    jax.block_until_ready(params)
    timing = {
        "cpu_seconds": round(time.process_time() - start, 1),
        "wall_seconds": round(time.perf_counter() - wall, 1),
        "usable_cpus": len(os.sched_getaffinity(0)),
    }
    return params, {"loss_curve": curve, "timing": timing}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--no-warmup", action="store_true", help="train at full length from step 0")
    parser.add_argument("--out", type=Path, default=DATA, help="folder for the .npz and .json")
    args = parser.parse_args(argv)
    s = Settings(seed=args.seed, warmup_steps=0 if args.no_warmup else Settings.warmup_steps)
    name = f"{'nowarmup' if args.no_warmup else 'seed'}-{s.seed}"
    params, record = train(s)
    arrays = export(params, s)
    args.out.mkdir(parents=True, exist_ok=True)
    write_npz(args.out / f"trained-{name}.npz", arrays)
    record = {
        "name": name,
        "settings": dataclasses.asdict(s),
        "sha256": array_hash(arrays),
        "parameters": int(sum(a.size for a in arrays.values())),
        "versions": {
            "python": platform.python_version(),
            "jax": jax.__version__,
            "jaxlib": jaxlib.__version__,
            "optax": optax.__version__,
            "numpy": np.__version__,
        },
        **record,
    }
    (args.out / f"trained-{name}.json").write_text(json.dumps(record, indent=1) + "\n")
    final = record["loss_curve"][-1][1]
    print(
        f"{name}: final loss {final:.4f}, {record['timing']['cpu_seconds']} CPU-s "
        f"on {record['timing']['usable_cpus']} CPU(s), sha256 {record['sha256'][:12]}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
