"""BabyAI levels: horizax's batched random rollout against MiniGrid's own Python, side by side.

For each id: MiniGrid 3.2.0's env plays uniform random actions with autoreset (``reset()``
after every end, observations computed as its ``step`` does) for ``--minigrid-steps`` steps
in one process: ``steps_per_s`` is their count over the wall time. horizax runs the
standard benchmark rollout (`horizax.bench.harness.make_scan_rollout`: a vmapped reset of
``B`` environments, then ``T`` scanned steps of random actions with horizax's autoreset,
every observation summed), timed by `horizax.bench.harness.time_rollout` (compile once,
warm up, best of 3). Also reported: the cold compile time of ``jit(reset)`` and
``jit(step)`` of one environment (what a user compiles first) and the ratio of steps/s.

    python benchmarks/babyai_levels.py --ids BabyAI-GoToLocal-v0 BabyAI-BossLevel-v0 \\
        --batch 1024 --steps 200 --out benchmarks/results_babyai.json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from horizax.bench import harness


def minigrid_row(env_id: str, steps: int) -> dict[str, Any]:
    """MiniGrid's random-policy steps/s with autoreset (its observations included)."""
    import gymnasium
    import minigrid  # noqa: F401  # registers the ids

    env = gymnasium.make(env_id).unwrapped
    rng = np.random.default_rng(0)
    episodes, seed = 0, 0
    with contextlib.redirect_stdout(io.StringIO()):  # LevelGen prints its rejections
        env.reset(seed=seed)
        start = time.perf_counter()
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(int(rng.integers(env.action_space.n)))
            if terminated or truncated:
                episodes, seed = episodes + 1, seed + 1
                env.reset(seed=seed)
        wall = time.perf_counter() - start
    return {"steps": steps, "episodes": episodes, "wall_s": wall, "steps_per_s": steps / wall}


def horizax_row(env_id: str, batch: int, steps: int) -> dict[str, Any]:
    """horizax's rollout at ``batch`` x ``steps`` and the cold compile of reset and step."""
    env = horizax.make(env_id)
    key = jax.random.PRNGKey(0)
    start = time.perf_counter()
    reset = jax.jit(env.reset).lower(key).compile()
    reset_s = time.perf_counter() - start
    first = reset(key)
    start = time.perf_counter()
    jax.jit(env.step).lower(first, jnp.int32(0)).compile()
    step_s = time.perf_counter() - start
    rollout = harness.make_scan_rollout(
        env.reset,
        env.step,
        lambda ts: ts.observation,
        lambda ts: ts.is_done(),
        env.num_actions,
        batch,
        steps,
    )
    timing = harness.time_rollout(rollout, key)
    return {
        "batch": batch,
        "steps": steps,
        "compile_reset_s": reset_s,
        "compile_step_s": step_s,
        "rollout_compile_s": timing["compile_s"],
        "best_s": timing["best_s"],
        "steps_per_s": batch * steps / timing["best_s"],
        "episodes": int(timing["episodes"]),
        "memory": timing["memory"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ids", nargs="+", default=["BabyAI-GoToLocal-v0", "BabyAI-BossLevel-v0"])
    parser.add_argument("--batch", type=int, nargs="+", default=[1024])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--minigrid-steps", type=int, default=20_000)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    records = []
    for env_id in args.ids:
        theirs = minigrid_row(env_id, args.minigrid_steps)
        print(f"{env_id} MiniGrid: {theirs['steps_per_s']:,.0f} steps/s", flush=True)
        for batch in args.batch:
            ours = horizax_row(env_id, batch, args.steps)
            ratio = ours["steps_per_s"] / theirs["steps_per_s"]
            print(
                f"{env_id} B={batch}: {ours['steps_per_s']:,.0f} steps/s ({ratio:,.0f}x), "
                f"compile reset {ours['compile_reset_s']:.1f} s + step "
                f"{ours['compile_step_s']:.1f} s, rollout {ours['rollout_compile_s']:.1f} s",
                flush=True,
            )
            records.append({"id": env_id, "minigrid": theirs, "horizax": ours, "ratio": ratio})
    if args.out:
        info = {"machine": harness.machine_info(), "records": records}
        with open(args.out, "w") as f:
            json.dump(info, f, indent=1, default=str)


if __name__ == "__main__":
    main()
