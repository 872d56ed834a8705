"""horizax.orbital against orbitalgym 0.1.0: the same scenarios through the same program.

What is measured, per game (LadyBanditGuard, PursuitEvasion) and batch size ``B``: ONE
jitted ``rollout(key)`` that

1. resets ``B`` scenarios with ``jax.vmap(SingleAgentView.reset)``;
2. samples all ``T x B`` controlled commands up front, inside the jitted function: uniform
   in ``[-dv_max, dv_max]`` per component, ``dv_max = guard max_thrust * dt / dry mass``
   (the most one step can deliver); the guard is the controlled side, the bandit is driven
   by the configuration's default opponent policy (``cfg.bandit_policy``, `ZeroControl` in
   both libraries' builders), the same on both sides;
3. runs ``jax.lax.scan`` over ``T`` steps of ``jax.vmap(SingleAgentView.step)`` followed by
   the autoreset below;
4. returns the number of episode ends and an f32 checksum: the sum of every step's flat
   observation (so XLA cannot drop the observation, and both libraries can be checked to
   play the same rollouts).

Scenarios: ``make_lady_bandit_guard(seed=0, max_horizon_s=500.0)`` and
``make_game(GameKey.PURSUIT_EVASION, max_horizon_s=500.0)``: 10 s steps, so an episode
truncates after 50 steps (a catch or a capture could end one earlier; under random commands
none did at B=1024) and every environment finishes four episodes inside the default
``T = 200``. The default 2000 s horizon (200 steps) would end no episode inside the rollout
and leave the autoreset unmeasured.

Autoreset. orbitalgym has none (its `rollout` latches ``episode_done`` and keeps stepping),
so the benchmark writes ONE rule here, `_select_autoreset`, and applies it to both libraries'
`SingleAgentView`: after a step whose ``episode_done`` is true, that environment's state is
replaced by ``view.reset(fold_in(reset_key[i], t))`` (a per-environment key folded with the
step index), and the observation summed for that step is the new episode's first one (the
autoreset happens inside the terminal step, Gymnasium's SAME_STEP; there is no NEXT_STEP
"reset step"). It is a select (``jnp.where`` over every leaf), so under ``vmap`` every
environment computes a reset on every step, alike in both libraries; the two libraries
therefore play the same episodes and their checksums should agree to float rounding. A
second horizax row, ``engine``, runs horizax's own autoreset instead: `horizax.core.episode`
(`start_episodes` / `step_episodes` in SAME_STEP mode, ``--engine-mode`` to change it) over
``horizax.make("Orbital-<Game>-v0", max_horizon_s=500.0)``'s protocol view, whose sparse
`reset_where` draws new scenarios only for the environments that finished, with the
engine's own key schedule (so its checksum differs; its episode count should be close).
The two rows answer different questions: under the select rule each step also pays B full
resets (a chain of Threefry hashes per scenario, which dominates the select rows on CPU), so
``select`` compares the libraries' step + reset, ``engine`` what horizax users actually run.

Timing: every rollout is compiled (`harness.time_rollout`, which also warms it up), then
timed in alternation (orbitalgym, horizax select, horizax engine; the starting side rotates
each round) for ``--rounds`` rounds of ``--repeats`` calls each, keeping the best call of
each side. ``steps_per_s = B * T / best``. Compile time is the wall time of
``jax.jit(rollout).lower(key).compile()`` measured in a fresh subprocess (after a trivial
warm-up compile that absorbs JAX's backend start-up), the median of ``--compile-repeats``
such processes per side (see `compile_times.py` for why not the shared process). Peak memory
is XLA's memory analysis of the compiled rollout (temporaries + arguments + outputs) per
environment; ``state_bytes_per_env`` is what one scenario carries between steps.

Command (from the repository root, in the orbitalgym venv; one benchmark process at a time)::

    /work/venv-orbital/bin/pip install -q --no-deps -e .
    /work/venv-orbital/bin/python benchmarks/orbital_peers.py \
        --batch 64 1024 8192 --steps 200 --rounds 3 --games lbg pe --json results_orbital.json

Output: one JSON record per measurement (library x autoreset x game x B) on stdout, then a
Markdown table (horizax rows with their ratio against orbitalgym).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # orbitalgym's own default, set before JAX

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from harness import load_average, machine_info, time_rollout  # noqa: E402

from horizax.bench.orbital import (  # noqa: E402  (the scenarios and rollouts)
    GAMES,
    make_config,
    make_rollout,
)

SIDES = (("orbitalgym", "select"), ("horizax", "select"), ("horizax", "engine"))
COMPILE_MARKER = "@@COMPILE@@ "


# --- compile times, each in a fresh process ------------------------------------------------------


def _compile_once(lib: str, autoreset: str, game: str, B: int, T: int, mode: str) -> float:
    """Seconds to trace, lower and compile the rollout, after a trivial warm-up compile."""
    jax.jit(lambda x: jnp.sin(x) + 1).lower(jnp.ones(4)).compile()
    rollout = make_rollout(lib, autoreset, game, B, T, mode)
    key = jax.random.PRNGKey(0)
    start = time.perf_counter()
    jax.jit(rollout).lower(key).compile()
    return time.perf_counter() - start


def cold_compile(
    lib: str, autoreset: str, game: str, B: int, T: int, mode: str, repeats: int
) -> dict[str, Any]:
    """Median of ``repeats`` compile times, each measured in a fresh child process."""
    values = []
    for _ in range(repeats):
        cmd = [sys.executable, os.path.abspath(__file__), "--compile-child"]
        cmd += [lib, autoreset, game, str(B), str(T), "--engine-mode", mode]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=HERE)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(COMPILE_MARKER)]
        if proc.returncode != 0 or len(lines) != 1:
            raise RuntimeError(f"compile child {cmd[2:]} failed:\n{proc.stderr[-3000:]}")
        values.append(float(lines[0][len(COMPILE_MARKER) :]))
    return {"median_s": statistics.median(values), "all_s": values}


# --- one (game, B): compile, then alternate ------------------------------------------------------


def _versions() -> dict[str, str]:
    from importlib import metadata

    out = {"jax": jax.__version__}
    for name in ("jaxlib", "orbitalgym", "horizax"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "unknown"
    return out


def measure(game: str, B: int, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every side of one (game, B), timed in alternation in this process."""
    T = args.steps
    machine, versions = machine_info(), _versions()
    compiled, records = [], []
    for lib, autoreset in SIDES:
        rollout = make_rollout(lib, autoreset, game, B, T, args.engine_mode)
        key = jax.random.PRNGKey(args.seed)
        timing = time_rollout(rollout, key, repeats=1, keep_compiled=True)
        fn = timing.pop("compiled")
        episodes, checksum = jax.block_until_ready(fn(key))
        compiled.append((fn, key))
        memory = timing.pop("memory")
        peak = None if memory is None else memory["temp"] + memory["argument"] + memory["output"]
        drop = ("times_s", "best_s", "cpu_s", "best_cpu_s", "load_avg_1m", "episodes", "checksum")
        for name in drop:
            timing.pop(name)
        records.append(
            {
                "library": lib,
                "autoreset": autoreset
                + (f" ({args.engine_mode})" if autoreset == "engine" else ""),
                "game": GAMES[game],
                "B": B,
                "T": T,
                "max_steps": int(make_config(lib, game).max_steps),
                "episodes": int(episodes),
                "checksum": float(checksum),
                "paired_compile_s": timing.pop("compile_s"),
                "peak_bytes": peak,
                "peak_bytes_per_env": None if peak is None else peak / B,
                "memory": memory,
                "versions": versions,
                "machine": machine,
                **timing,
            }
        )
    times: list[list[float]] = [[] for _ in SIDES]
    load_before = load_average()
    for r in range(args.rounds):
        for i in range(len(SIDES)):
            side = (i + r) % len(SIDES)
            fn, key = compiled[side]
            for _ in range(args.repeats):
                start = time.perf_counter()
                jax.block_until_ready(fn(key))
                times[side].append(time.perf_counter() - start)
    load_after = load_average()
    for side, record in enumerate(records):
        record["times_s"] = times[side]
        record["best_s"] = min(times[side])
        record["steps_per_s"] = B * T / record["best_s"]
        record["load_avg_1m"] = [load_before, load_after]
    if args.compile_repeats > 0:
        for (lib, autoreset), record in zip(SIDES, records, strict=True):
            cold = cold_compile(lib, autoreset, game, B, T, args.engine_mode, args.compile_repeats)
            record["compile_s"] = cold["median_s"]
            record["compile_all_s"] = cold["all_s"]
    peer = records[0]
    for record in records[1:]:
        record["ratio_vs_orbitalgym"] = record["steps_per_s"] / peer["steps_per_s"]
        if "compile_s" in record:
            record["compile_ratio_vs_orbitalgym"] = record["compile_s"] / peer["compile_s"]
        record["checksum_rel_diff_vs_orbitalgym"] = abs(
            record["checksum"] - peer["checksum"]
        ) / max(abs(peer["checksum"]), 1e-30)
    return records


# --- output --------------------------------------------------------------------------------------


def _fmt(value: Any, spec: str) -> str:
    return "" if value is None else format(value, spec)


def render(records: Sequence[dict[str, Any]]) -> str:
    """One row per horizax record, next to the orbitalgym record of the same game and B."""
    peers = {(r["game"], r["B"]): r for r in records if r["library"] == "orbitalgym"}
    lines = [
        "| game | B | T | horizax autoreset | horizax steps/s | orbitalgym steps/s | ratio "
        "| horizax compile s | orbitalgym compile s | compile ratio | horizax KiB/env "
        "| orbitalgym KiB/env | episodes hx/og | checksum rel. diff | load |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        if r["library"] != "horizax":
            continue
        p = peers[(r["game"], r["B"])]
        kib = [
            None if x["peak_bytes_per_env"] is None else x["peak_bytes_per_env"] / 1024
            for x in (r, p)
        ]
        # The engine row plays other episodes (its own key schedule): no checksum to compare.
        diff = "" if r["autoreset"] != "select" else f"{r['checksum_rel_diff_vs_orbitalgym']:.1e}"
        load = "/".join(_fmt(x, ".1f") for x in r["load_avg_1m"] if x is not None)
        lines.append(
            f"| {r['game']} | {r['B']} | {r['T']} | {r['autoreset']} "
            f"| {r['steps_per_s']:,.0f} | {p['steps_per_s']:,.0f} "
            f"| {r['ratio_vs_orbitalgym']:.2f}x "
            f"| {_fmt(r.get('compile_s'), '.2f')} | {_fmt(p.get('compile_s'), '.2f')} "
            f"| {_fmt(r.get('compile_ratio_vs_orbitalgym'), '.2f')} "
            f"| {_fmt(kib[0], '.1f')} | {_fmt(kib[1], '.1f')} "
            f"| {r['episodes']}/{p['episodes']} "
            f"| {diff} | {load} |"
        )
    first = records[0] if records else {}
    versions, machine = first.get("versions", {}), first.get("machine", {})
    lines.append("")
    lines.append(
        "versions: "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f"; machine: {machine.get('cpu_model', '')}, {machine.get('cpu_affinity', '?')} CPUs, "
        f"backend {machine.get('jax_backend', '?')}; episodes truncate at "
        f"{first.get('max_steps', '?')} steps"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[64, 1024, 8192])
    parser.add_argument("--steps", type=int, default=200, help="T, scan steps per call")
    parser.add_argument("--rounds", type=int, default=3, help="alternation rounds")
    parser.add_argument("--repeats", type=int, default=1, help="timed calls per side per round")
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=["lbg", "pe"])
    parser.add_argument(
        "--compile-repeats", type=int, default=3, help="fresh processes per compile time (0: skip)"
    )
    parser.add_argument(
        "--engine-mode",
        default="SameStep",
        choices=["SameStep", "NextStep"],
        help="horizax engine autoreset mode of the 'engine' row",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the records here")
    parser.add_argument(
        "--compile-child",
        nargs=5,
        metavar=("LIB", "AUTORESET", "GAME", "B", "T"),
        help=argparse.SUPPRESS,
    )
    args = parser.parse_args(argv)
    if args.compile_child:
        lib, autoreset, game, B, T = args.compile_child
        seconds = _compile_once(lib, autoreset, game, int(B), int(T), args.engine_mode)
        print(COMPILE_MARKER + repr(seconds), flush=True)
        return
    records: list[dict[str, Any]] = []
    for game in args.games:
        for B in args.batch:
            jax.clear_caches()
            for record in measure(game, B, args):
                print(json.dumps(record, default=_json_default), flush=True)
                records.append(record)
    print()
    print(render(records))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=1, default=_json_default)


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


if __name__ == "__main__":
    main()
