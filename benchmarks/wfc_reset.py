"""WFC reset throughput: horizax's jitted, vmapped ``reset`` of the six ``MiniGrid-WFC-*`` ids
against MiniGrid's ``WFCEnv.reset``, on this machine.

For each id and batch size ``B``: ``jax.jit(jax.vmap(env.reset))`` is lowered and compiled
(``compile_s``), called once to warm up, then timed on fresh keys (best of ``--repeats``);
``resets_per_s = B / best``. MiniGrid's env (built from its own preset, reading the pattern
files horizax ships: its 3.2.0 wheel leaves them out) is reset with seeds ``0 ..
--minigrid-resets - 1`` in one process; ``resets_per_s`` is their count over the total time.
A WFC reset under ``vmap`` runs until the slowest solve of the batch finishes, so large
batches pay for their longest solve (restarts included).

    python benchmarks/wfc_reset.py --batch 1 64 1024 --out benchmarks/results_wfc_reset.json

``--failures N`` instead measures how often the solver's budget runs out: N resets per id
(batches of 1000 of the family's jitted layout), counting unsolved resets (they fall back to
the open room), restarts and loop iterations. An attempt that succeeds takes at most
``max_attempt_iterations`` iterations; a reset fails only if its attempts contradict until
the budget (``MAX_ITERATIONS``) is spent, which takes at least ``budget // that`` failed
attempts in a row: with a per-attempt contradiction rate ``p`` (its 95% upper bound from the
counts), the failure rate is at most about ``p ** (budget // max_attempt_iterations)``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import time
from typing import Any

import jax
import numpy as np

import horizax
from horizax.grid.wfc import presets

IDS = [f"MiniGrid-WFC-{name}-v0" for name in presets.PRESETS]


def horizax_row(env_id: str, batch: int, repeats: int) -> dict[str, Any]:
    """Compile time and resets/s of ``jit(vmap(env.reset))`` at ``batch``."""
    env = horizax.make(env_id)
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    start = time.perf_counter()
    reset = jax.jit(jax.vmap(env.reset)).lower(keys).compile()
    compile_s = time.perf_counter() - start
    jax.block_until_ready(reset(keys))
    times = []
    for r in range(repeats):
        fresh = jax.random.split(jax.random.PRNGKey(r + 1), batch)
        start = time.perf_counter()
        jax.block_until_ready(reset(fresh))
        times.append(time.perf_counter() - start)
    return {
        "id": env_id,
        "lib": "horizax",
        "batch": batch,
        "compile_s": round(compile_s, 2),
        "best_s": round(min(times), 4),
        "resets_per_s": round(batch / min(times), 1),
    }


def minigrid_row(env_id: str, resets: int) -> dict[str, Any]:
    """MiniGrid's resets/s over seeds ``0 .. resets - 1``."""
    from minigrid.envs.wfc.config import WFC_PRESETS
    from minigrid.envs.wfc.wfcenv import WFCEnv

    name = env_id.removeprefix("MiniGrid-WFC-").removesuffix("-v0")
    config = WFC_PRESETS[name]
    path = presets.pattern_file(config.pattern_path.name)
    env = WFCEnv(wfc_config=dataclasses.replace(config, pattern_path=path))
    start = time.perf_counter()
    for seed in range(resets):
        env.reset(seed=seed)
    seconds = time.perf_counter() - start
    return {
        "id": env_id,
        "lib": "minigrid",
        "batch": 1,
        "resets": resets,
        "resets_per_s": round(resets / seconds, 2),
    }


def failure_row(env_id: str, resets: int, chunk: int = 1000) -> dict[str, Any]:
    """Unsolved resets, restarts and iterations over ``resets`` layouts of ``env_id``."""
    from horizax.grid.envs import wfc
    from horizax.grid.wfc import level

    name = env_id.removeprefix("MiniGrid-WFC-").removesuffix("-v0")
    program = wfc.program(name)
    generate = jax.jit(jax.vmap(lambda k: level.generate(program, k)[1]))
    unsolved = restarts = attempts = 0
    first_attempt_iterations = []
    start = time.perf_counter()
    for c in range(0, resets, chunk):
        keys = jax.random.split(jax.random.PRNGKey(10_000 + c), min(chunk, resets - c))
        solution = jax.tree.map(np.asarray, generate(keys))
        unsolved += int((~solution.solved).sum())
        restarts += int((solution.attempts - 1).sum())
        attempts += int(solution.attempts.sum())
        first_attempt_iterations.append(solution.iterations[solution.attempts == 1])
    iterations = np.concatenate(first_attempt_iterations)
    # A 95% upper bound on the per-attempt contradiction rate (Poisson, restarts observed).
    upper = (restarts + 1.96 * np.sqrt(restarts) + 2) / attempts
    longest = int(iterations.max())
    in_a_row = wfc.MAX_ITERATIONS // longest
    return {
        "id": env_id,
        "resets": resets,
        "unsolved": unsolved,
        "restarts": restarts,
        "contradiction_rate": restarts / attempts,
        "contradiction_rate_95": float(upper),
        "max_attempt_iterations": longest,
        "p99_attempt_iterations": float(np.percentile(iterations, 99)),
        "contradictions_in_a_row_to_fail": in_a_row,
        "failure_rate_bound": float(upper**in_a_row),
        "seconds": round(time.perf_counter() - start, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", nargs="+", default=IDS)
    parser.add_argument("--batch", nargs="+", type=int, default=[1, 64, 1024])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--minigrid-resets", type=int, default=20, help="0: skip MiniGrid")
    parser.add_argument("--out", default=None, help="write the rows as JSON here")
    parser.add_argument("--failures", type=int, default=0, help="measure failures over N resets")
    args = parser.parse_args()
    if args.failures:
        for env_id in args.ids:
            print(json.dumps(failure_row(env_id, args.failures)), flush=True)
        return
    rows = []
    for env_id in args.ids:
        for batch in args.batch:
            rows.append(horizax_row(env_id, batch, args.repeats))
            print(json.dumps(rows[-1]), flush=True)
        if args.minigrid_resets:
            rows.append(minigrid_row(env_id, args.minigrid_resets))
            print(json.dumps(rows[-1]), flush=True)
    meta = {
        "jax": jax.__version__,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "backend": jax.default_backend(),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
            f.write("\n")
    print(json.dumps(meta))
    by_id: dict[str, dict[str, Any]] = {}
    for row in rows:
        key = "minigrid" if row["lib"] == "minigrid" else f"B={row['batch']}"
        by_id.setdefault(row["id"], {})[key] = row
    for env_id, cells in by_id.items():
        parts = [f"{k}: {v['resets_per_s']}/s" for k, v in cells.items()]
        compile_s = [v["compile_s"] for v in cells.values() if "compile_s" in v]
        print(f"{env_id}: " + ", ".join(parts) + f" (compile {np.max(compile_s):.1f} s max)")


if __name__ == "__main__":
    main()
