"""Peer-library adapters and CLI for the throughput harness.

Adapters build ``make_rollout(B, T) -> (rollout_fn, key)`` callables (see
``harness.py``) for:

* navix (``Navix-Empty-8x8-v0``, ``Navix-DoorKey-8x8-v0``) with the full symbolic
  observation and the egocentric first-person symbolic observation;
* horizax itself (same harness, same process layout), so ratios come from one run;
* xland-minigrid / ``xminigrid`` (``MiniGrid-Empty-8x8``, ``MiniGrid-DoorKey-8x8``)
  with its default egocentric 7x7 observation;
* jumanji's Maze and horizax's ``Maze-v0`` (10x10; autoreset rollout and reset-only),
  defined in ``maze_peers.py`` and re-exported here.

Peer libraries are imported lazily, inside the adapters, so this file can be
loaded from a virtualenv that has only one of them installed.

By default every (env, obs, B) configuration runs in its own child process, so
compile times are cold and max-RSS figures are per configuration. Examples::

    python benchmarks/peers.py --lib navix --batch 1 64 1024 8192 --steps 1000 \
        --out benchmarks/results_navix.json
    python benchmarks/peers.py --lib xminigrid --batch 1 64 1024 8192 --steps 1000 \
        --out benchmarks/results_xminigrid.json
    python benchmarks/peers.py --mode navix-compile --batch 1024 \
        --out benchmarks/results_navix_compile.json
    python benchmarks/peers.py --mode navix-ids --out benchmarks/navix_ids.txt
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import (  # importable because of the sys.path line above
    format_table,
    load_average,
    machine_info,
    measure,
    wait_for_idle,
)
from maze_peers import (  # the Maze adapters (horizax, jumanji) live in maze_peers.py
    MAZE_MODES,
    horizax_maze_make_rollout,  # noqa: F401  (re-exported for compare.py)
    jumanji_maze_make_rollout,
    maze_info,
)

from horizax.bench.gridworld import (  # the gridworld adapters (horizax, navix, xminigrid)
    dist_version,
    horizax_info,
    horizax_make_rollout,
    navix_info,
    navix_make_rollout,
    xminigrid_info,
    xminigrid_make_rollout,
)

HORIZAX_CONFIGS = (
    ("MiniGrid-Empty-8x8-v0", "symbolic"),
    ("MiniGrid-DoorKey-8x8-v0", "symbolic"),
    ("MiniGrid-DoorKey-8x8-v0", "symbolic_first_person"),
    ("MiniGrid-DoorKey-8x8-v0", "symbolic_first_person_see_through"),
)
NAVIX_ENVS = ("Navix-Empty-8x8-v0", "Navix-DoorKey-8x8-v0")
NAVIX_OBS = ("symbolic", "symbolic_first_person")
XMINIGRID_ENVS = ("MiniGrid-Empty-8x8", "MiniGrid-DoorKey-8x8")
XMINIGRID_OBS = ("default_fov7",)
NAVIX_COMPILE_IDS = (
    "Navix-KeyCorridorS3R3-v0",
    "Navix-DistShift1-v0",
    "Navix-FourRooms-v0",
    "Navix-Dynamic-Obstacles-8x8-v0",
)
RESULT_MARKER = "@@RESULT@@ "


# --------------------------------------------------------------------------- horizax


# --------------------------------------------------------------------------- navix


def navix_compile_times(env_id: str, B: int) -> dict[str, Any]:
    """Measures cold jit compile time of navix's vmapped reset and step.

    Args:
        env_id: a registered navix id (its default observation function is used).
        B: batch size for ``jax.vmap``.

    Returns:
        A record with ``reset_*`` and ``step_*`` lower/compile seconds.
    """
    import navix

    jax.clear_caches()
    env = navix.make(env_id)
    keys = jax.random.split(jax.random.key(0), B)

    t0 = time.perf_counter()
    lowered = jax.jit(jax.vmap(env.reset)).lower(keys)
    t1 = time.perf_counter()
    reset_fn = lowered.compile()
    t2 = time.perf_counter()
    timestep = jax.block_until_ready(reset_fn(keys))

    actions = jnp.zeros((B,), dtype=jnp.int32)
    t3 = time.perf_counter()
    lowered = jax.jit(jax.vmap(env.step)).lower(timestep, actions)
    t4 = time.perf_counter()
    step_fn = lowered.compile()
    t5 = time.perf_counter()
    jax.block_until_ready(step_fn(timestep, actions))

    return {
        "library": "navix",
        "library_version": dist_version("navix"),
        "env": env_id,
        "obs": getattr(env.observation_fn, "__name__", str(env.observation_fn)),
        "obs_shape": list(env.observation_space.shape),
        "B": B,
        "reset_lower_s": t1 - t0,
        "reset_xla_compile_s": t2 - t1,
        "reset_compile_s": t2 - t0,
        "step_lower_s": t4 - t3,
        "step_xla_compile_s": t5 - t4,
        "step_compile_s": t5 - t3,
        "jax_version": jax.__version__,
        "machine": machine_info(),
    }


def navix_ids() -> list[str]:
    """Returns every environment id registered in the installed navix, sorted."""
    import navix

    return sorted(navix.registry())


# ----------------------------------------------------------------------- xminigrid


# ------------------------------------------------------------------------- helpers


def _configs(lib: str) -> list[tuple[str, str]]:
    """Returns the (env, obs) pairs benchmarked for a library."""
    if lib == "horizax":
        return list(HORIZAX_CONFIGS)
    if lib == "navix":
        return [(env, obs) for env in NAVIX_ENVS for obs in NAVIX_OBS]
    if lib == "xminigrid":
        return [(env, obs) for env in XMINIGRID_ENVS for obs in XMINIGRID_OBS]
    if lib == "jumanji":
        return [("Maze-10x10", mode) for mode in MAZE_MODES]
    raise ValueError(f"unknown library {lib!r}")


def _steps_for_batch(specs: Sequence[str]) -> dict[int, int]:
    """Parses ``B:T`` overrides, e.g. ``["8192:200"]`` -> ``{8192: 200}``."""
    out = {}
    for spec in specs:
        b, t = spec.split(":")
        out[int(b)] = int(t)
    return out


def _run_child(argv: list[str], timeout: float) -> list[dict[str, Any]]:
    """Runs this script in a child process and parses its result line(s).

    Args:
        argv: arguments for the child (``--child`` is added).
        timeout: seconds before the child is killed.

    Returns:
        The records the child printed.

    Raises:
        RuntimeError: when the child fails or prints no result.
    """
    cmd = [sys.executable, os.path.abspath(__file__), "--child", *argv]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    records = [
        json.loads(line[len(RESULT_MARKER) :])
        for line in proc.stdout.splitlines()
        if line.startswith(RESULT_MARKER)
    ]
    if proc.returncode != 0 or not records:
        raise RuntimeError(
            f"child {' '.join(argv)} failed (rc={proc.returncode}):\n{proc.stderr[-4000:]}"
        )
    return records


def _child(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Measures one configuration in the current process."""
    if args.mode == "navix-compile":
        return [navix_compile_times(args.env, args.batch[0])]
    steps = _steps_for_batch(args.steps_for)
    if args.lib == "horizax":
        make_rollout = horizax_make_rollout(args.env, args.obs)
        extra = horizax_info(args.env, args.obs)
    elif args.lib == "navix":
        make_rollout = navix_make_rollout(args.env, args.obs)
        extra = navix_info(args.env, args.obs)
    elif args.lib == "jumanji":
        make_rollout = jumanji_maze_make_rollout(args.obs)
        extra = maze_info("jumanji", args.obs)
    else:
        make_rollout = xminigrid_make_rollout(args.env, args.xm_autoreset)
        extra = xminigrid_info(args.env, args.xm_autoreset)
    return measure(
        args.lib,
        make_rollout,
        args.batch,
        args.steps,
        env=args.env,
        obs=args.obs,
        steps_for_batch=steps,
        repeats=args.repeats,
        extra=extra,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Command-line entry point.

    Args:
        argv: arguments (defaults to ``sys.argv[1:]``).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("rollout", "navix-compile", "navix-ids"))
    parser.add_argument(
        "--lib", choices=("horizax", "navix", "xminigrid", "jumanji"), default="navix"
    )
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--steps", type=int, default=1000, help="scan length T")
    parser.add_argument(
        "--steps-for",
        nargs="*",
        default=[],
        metavar="B:T",
        help="per-batch-size T override, e.g. 8192:200",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--env", nargs="*", help="restrict to these env ids")
    parser.add_argument("--obs", nargs="*", help="restrict to these observation names")
    parser.add_argument("--xm-autoreset", choices=("gym", "dm"), default="gym")
    parser.add_argument("--out", help="write results (JSON, or text for navix-ids) here")
    parser.add_argument(
        "--in-process", action="store_true", help="do not spawn one child per configuration"
    )
    parser.add_argument("--timeout", type=float, default=1200.0, help="per-child timeout (s)")
    parser.add_argument(
        "--max-load",
        type=float,
        default=0.0,
        help="before each configuration, wait until the 1-min load average is below this "
        "(0 = do not wait)",
    )
    parser.add_argument("--max-wait", type=float, default=300.0, help="longest such wait (s)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.mode = args.mode or "rollout"

    if args.child:
        args.env = args.env[0]
        args.obs = args.obs[0] if args.obs else ""
        for record in _child(args):
            print(RESULT_MARKER + json.dumps(record), flush=True)
        return

    if args.mode == "navix-ids":
        text = "\n".join(navix_ids()) + "\n"
        if args.out:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
        print(text, end="")
        return

    common = ["--repeats", str(args.repeats), "--xm-autoreset", args.xm_autoreset]
    common += ["--steps", str(args.steps), "--steps-for", *args.steps_for]
    jobs: list[tuple[list[str], argparse.Namespace]] = []
    if args.mode == "navix-compile":
        for env_id in args.env or NAVIX_COMPILE_IDS:
            for B in args.batch:
                child = ["--mode", "navix-compile", "--env", env_id, "--batch", str(B)]
                ns = argparse.Namespace(**{**vars(args), "env": env_id, "batch": [B]})
                jobs.append((child, ns))
    else:
        for env_id, obs in _configs(args.lib):
            if (args.env and env_id not in args.env) or (args.obs and obs not in args.obs):
                continue
            for B in args.batch:
                child = ["--lib", args.lib, "--env", env_id, "--obs", obs, "--batch", str(B)]
                ns = argparse.Namespace(**{**vars(args), "env": env_id, "obs": obs, "batch": [B]})
                jobs.append((child, ns))

    records: list[dict[str, Any]] = []
    for child_argv, ns in jobs:
        waited = wait_for_idle(args.max_load, args.max_wait) if args.max_load > 0 else 0.0
        load = load_average()
        started = time.perf_counter()
        if args.in_process:
            ns.obs = ns.obs or ""
            new = _child(ns)
        else:
            new = _run_child(child_argv + common, args.timeout)
        for record in new:
            record.update(idle_wait_s=waited, load_avg_1m_at_start=load)
        records.extend(new)
        print(
            f"[{time.perf_counter() - started:6.1f}s, waited {waited:5.1f}s, load {load}] "
            + " ".join(child_argv),
            flush=True,
        )
        if args.out:  # write incrementally, so a partial run still leaves results
            with open(args.out, "w", encoding="utf-8") as f:
                json.dump(records, f, indent=2)

    if args.mode == "rollout":
        print(format_table(records))
    else:
        for r in records:
            print(
                f"{r['env']:<34} B={r['B']:<5} reset {r['reset_compile_s']:6.2f}s "
                f"step {r['step_compile_s']:6.2f}s"
            )


if __name__ == "__main__":
    main()
