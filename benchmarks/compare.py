"""One run, one harness: horizax vs navix vs xland-minigrid, written to RESULTS.md.

Runs `peers.py`'s configurations for all three libraries back to back (one child process
per configuration, waiting for an idle machine before each), then writes
``benchmarks/results_compare.json`` and the tables and ratios of ``benchmarks/RESULTS.md``.
Run it from the peer venv with horizax installed in it (see README.md)::

    /work/venv312/bin/python benchmarks/compare.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# (label, horizax (env, obs), peer library, peer (env, obs), target ratio or None)
COMPARISONS = (
    (
        "Empty-8x8, full symbolic",
        ("MiniGrid-Empty-8x8-v0", "symbolic"),
        "navix",
        ("Navix-Empty-8x8-v0", "symbolic"),
        1.5,
    ),
    (
        "DoorKey-8x8, full symbolic",
        ("MiniGrid-DoorKey-8x8-v0", "symbolic"),
        "navix",
        ("Navix-DoorKey-8x8-v0", "symbolic"),
        10.0,
    ),
    (
        "DoorKey-8x8, egocentric 7x7 (horizax: MiniGrid's occlusion; xminigrid: none)",
        ("MiniGrid-DoorKey-8x8-v0", "symbolic_first_person"),
        "xminigrid",
        ("MiniGrid-DoorKey-8x8", "default_fov7"),
        3.0,
    ),
    (
        "DoorKey-8x8, egocentric 7x7, both without occlusion",
        ("MiniGrid-DoorKey-8x8-v0", "symbolic_first_person_see_through"),
        "xminigrid",
        ("MiniGrid-DoorKey-8x8", "default_fov7"),
        None,
    ),
    (
        "DoorKey-8x8, egocentric 7x7 (horizax: MiniGrid's occlusion; navix: none)",
        ("MiniGrid-DoorKey-8x8-v0", "symbolic_first_person"),
        "navix",
        ("Navix-DoorKey-8x8-v0", "symbolic_first_person"),
        None,
    ),
    # Issue 3: the costly layouts (compile <= 1/4 of navix's, steps/s >= 5x at B=1024).
    *(
        (
            f"{name}, full symbolic",
            (f"MiniGrid-{name}-v0", "symbolic"),
            "navix",
            (f"Navix-{name}-v0", "symbolic"),
            5.0,
        )
        for name in (
            "KeyCorridorS3R3",
            "ObstructedMaze-2Dlh",
            "MultiRoom-N6",
            "Fetch-8x8-N3",
            "MemoryS13",
        )
    ),
    # Issue 4: the Maze (10x10) against jumanji 1.1.2, random policy with autoreset
    # (steps/s >= 20x), and reset-only throughput (vmapped resets per second, no target).
    (
        "Maze 10x10, random policy, autoreset",
        ("Maze-v0", "autoreset"),
        "jumanji",
        ("Maze-10x10", "autoreset"),
        20.0,
    ),
    (
        "Maze 10x10, reset only (resets/s)",
        ("Maze-v0", "reset"),
        "jumanji",
        ("Maze-10x10", "reset"),
        5.0,
    ),
    # Issue 14: both libraries' bare Maze under one select-based autoreset (what gymnax-style
    # code that resets every step does), and the key-exact generator's resets for the record.
    (
        "Maze 10x10, select autoreset (every env draws a maze every step)",
        ("Maze-v0", "select"),
        "jumanji",
        ("Maze-10x10", "select"),
        5.0,
    ),
    (
        "Maze 10x10, reset only (resets/s), horizax's JumanjiRandomGenerator",
        ("Maze-v0/jumanji-draws", "reset"),
        "jumanji",
        ("Maze-10x10", "reset"),
        None,
    ),
)
FIRST_ISSUE3 = 5  # comparisons from this index on carry issue 3's compile target (<= 0.25x)
FIRST_MAZE = 10  # ... up to here: the Maze comparisons (issue 4) have no compile target
# navix's MultiRoom-N6 step costs about 1.7 s at B=1024 (under vmap, its autoreset's
# lax.cond becomes a select, so the whole retry-based room search runs for every
# environment on every step), so T=1000 would be 30 minutes per call: run it only when
# asked for by --only, with a shorter T (README.md), each side in its own process
# (`solo_child`).
SLOW_PEER = frozenset({7})


RESULT_MARKER = "@@PAIR@@ "


def _make(lib: str, env: str, obs: str, B: int, T: int) -> Any:
    import peers

    if lib == "horizax" and env.startswith("Maze"):
        key_exact = env.endswith("/jumanji-draws")
        return peers.horizax_maze_make_rollout(obs, key_exact=key_exact)(B, T)
    if lib == "jumanji":
        return peers.jumanji_maze_make_rollout(obs)(B, T)
    if lib == "horizax":
        return peers.horizax_make_rollout(env, obs)(B, T)
    if lib == "navix":
        return peers.navix_make_rollout(env, obs)(B, T)
    return peers.xminigrid_make_rollout(env)(B, T)


def _info(lib: str, env: str, obs: str) -> dict[str, Any]:
    import peers

    if lib in ("horizax", "jumanji") and env.startswith("Maze"):
        return peers.maze_info(lib, obs)
    if lib == "horizax":
        return peers.horizax_info(env, obs)
    if lib == "navix":
        return peers.navix_info(env, obs)
    return peers.xminigrid_info(env, "gym")


def _sides(index: int) -> list[tuple[str, str, str]]:
    """``[(library, env, obs)]`` of comparison ``index``: horizax first, then the peer."""
    _, (h_env, h_obs), peer, (p_env, p_obs), _ = COMPARISONS[index]
    return [("horizax", h_env, h_obs), (peer, p_env, p_obs)]


def _annotate(record: dict[str, Any], index: int, side: tuple[str, str, str]) -> None:
    """Adds the fields every record carries once its timings are in (steps/s, versions,
    machine, peak memory, the comparison's index and the library's own description)."""
    import jax
    from harness import machine_info

    record["steps_per_s"] = record["B"] * record["T"] / record["best_s"]
    record["jax_version"] = jax.__version__
    record["machine"] = machine_info()
    record["peak_bytes"] = sum(
        (record.get("memory") or {}).get(k, 0) for k in ("temp", "argument", "output")
    )
    record["comparison"] = index
    record.update(_info(*side))


def paired_child(index: int, B: int, T: int, rounds: int) -> list[dict[str, Any]]:
    """Measures one comparison in this process: both libraries compiled, then timed calls
    alternating horizax, peer, horizax, ... so that machine drift hits both alike."""
    import time

    import jax
    from harness import load_average, time_rollout

    sides = _sides(index)
    compiled, records = [], []
    for lib, env, obs in sides:
        fn, key = _make(lib, env, obs, B, T)
        # Cold compile + warm-up + one call; the executable is reused for the timed calls.
        timing = time_rollout(fn, key, repeats=1, keep_compiled=True)
        compiled.append((timing.pop("compiled"), key))
        records.append({"library": lib, "env": env, "obs": obs, "B": B, "T": T, **timing})
    times: list[list[float]] = [[], []]
    load_before = load_average()
    for _ in range(rounds):
        for side, (fn, key) in enumerate(compiled):
            start = time.perf_counter()
            jax.block_until_ready(fn(key))
            times[side].append(time.perf_counter() - start)
    load_after = load_average()
    for side, record in enumerate(records):
        record["times_s"] = times[side]
        record["best_s"] = min(times[side])
        record["load_avg_1m"] = [load_before, load_after]
        _annotate(record, index, sides[side])
    return records


def solo_child(index: int, side: int, B: int, T: int, rounds: int) -> dict[str, Any]:
    """Measures one side (0 horizax, 1 the peer) of a comparison alone in this process.

    Used for the `SLOW_PEER` comparisons, where one peer call takes minutes: alternating
    calls would not balance the machine's drift anyway, and measured alone each side's
    rollout compile is already a cold one (so the peer's is not repeated in
    ``compile_repeats`` more processes). The steps/s ratio is taken across the two
    processes, which run one after the other on the idle machine.
    """
    from harness import time_rollout

    lib, env, obs = _sides(index)[side]
    fn, key = _make(lib, env, obs, B, T)
    record = {"library": lib, "env": env, "obs": obs, "B": B, "T": T, "separate_processes": True}
    record.update(time_rollout(fn, key, repeats=rounds))
    _annotate(record, index, (lib, env, obs))
    return record


def _run_pairs(args: argparse.Namespace) -> list[dict[str, Any]]:
    from harness import load_average, wait_for_idle

    records: list[dict[str, Any]] = []
    steps_for = dict(tuple(map(int, spec.split(":"))) for spec in args.steps_for)
    for index, comparison in enumerate(COMPARISONS):
        if (args.only is None and index in SLOW_PEER) or (
            args.only is not None and index not in args.only
        ):
            continue
        for B in args.batch:
            T = steps_for.get(B, args.steps)
            waited = wait_for_idle(args.max_load, args.max_wait)
            run = [str(B), str(T), str(args.rounds)]
            if index in SLOW_PEER:
                new = [
                    record
                    for side in ("0", "1")
                    for record in _run_child(["--solo-child", str(index), side, *run])
                ]
            else:
                new = _run_child(["--child", str(index), *run])
            if len(new) != 2:
                raise RuntimeError(f"pair {index} B={B}: expected 2 records, got {len(new)}")
            for side, record in enumerate(new):
                record["idle_wait_s"] = waited
                record["command"] = " ".join(["python benchmarks/compare.py", *sys.argv[1:]])
                if index in SLOW_PEER and side == 1:
                    # Its solo process compiled the rollout cold already; reset + step is
                    # compiled once more (minutes), not ``compile_repeats`` times.
                    _add_cold_compile_times(record, B, T, 1, rollout_s=record["compile_s"])
                else:
                    _add_cold_compile_times(record, B, T, args.compile_repeats)
            records += new
            ratio = new[0]["steps_per_s"] / new[1]["steps_per_s"]
            print(f"{comparison[0]} B={B}: {ratio:.2f}x (load {load_average()})", flush=True)
    return records


def _run_child(args: list[str]) -> list[dict[str, Any]]:
    """Runs this script with ``args`` in a fresh process; returns the records it printed."""
    cmd = [sys.executable, os.path.abspath(__file__), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{proc.stderr[-3000:]}")
    return [
        json.loads(line[len(RESULT_MARKER) :])
        for line in proc.stdout.splitlines()
        if line.startswith(RESULT_MARKER)
    ]


def _add_cold_compile_times(
    record: dict[str, Any], B: int, T: int, repeats: int, rollout_s: float | None = None
) -> None:
    """Replaces the paired process's ``compile_s`` (which favours the library compiled
    second, see `compile_times`) by the median of fresh processes; adds ``reset_step_s``
    for the gridworld libraries. ``rollout_s``: a rollout compile time already measured
    cold (a solo child's), used instead of compiling the rollout again."""
    from compile_times import cold_compile

    lib, env, obs = record["library"], record["env"], record["obs"]
    record["paired_compile_s"] = record["compile_s"]
    if rollout_s is None:
        rollout = cold_compile("rollout", lib, env, obs, B, T, repeats)
    else:
        rollout = {"median_s": rollout_s, "all_s": [rollout_s]}
    record["compile_s"], record["compile_all_s"] = rollout["median_s"], rollout["all_s"]
    if lib in ("horizax", "navix") and not env.startswith("Maze"):
        split = cold_compile("reset_step", lib, env, obs, B, T, repeats)
        record["reset_step_compile_s"] = split["median_s"]
        record["reset_step_compile_all_s"] = split["all_s"]


def _find(records: list[dict], index: int, lib: str, B: int) -> dict | None:
    for r in records:
        if (r["comparison"], r["library"], r["B"]) == (index, lib, B):
            return r
    return None


KEPT_MARKER = "<!-- compare.py keeps everything below this line -->"


def _fill_state_bytes(records: list[dict[str, Any]]) -> bool:
    """Adds ``state_bytes_per_env`` where a record (from before the field) lacks it: the
    carried state's size does not depend on B or T, so it is read from a B=1, T=1 rollout
    (`harness.state_bytes`, shapes only). Returns whether any record changed."""
    sizes: dict[tuple[str, str, str], int | None] = {}
    changed = False
    for record in records:
        if record.get("state_bytes_per_env") is not None:
            continue
        side = (record["library"], record["env"], record["obs"])
        if side not in sizes:
            sizes[side] = getattr(_make(*side, 1, 1)[0], "state_bytes_per_env", None)
        record["state_bytes_per_env"] = sizes[side]
        changed = True
    return changed


def _state_cell(record: dict[str, Any]) -> str:
    size = record.get("state_bytes_per_env")
    return "" if size is None else f"{size:,}"


def _kib_per_env(record: dict[str, Any]) -> str:
    peak = record.get("peak_bytes")
    return f"{peak / record['B'] / 1024:.1f}" if peak else ""


def render(records: list[dict[str, Any]], batches: Sequence[int]) -> str:
    """The RESULTS.md text for ``records``."""
    first = records[0]
    lines = [
        "# Benchmark results",
        "",
        "Produced by `benchmarks/compare.py` (commands below; `--only` reruns some comparisons",
        "and keeps the other records): every library through the same harness",
        "(`benchmarks/harness.py`: one jitted function = vmapped reset of B envs, then a",
        "`lax.scan` of T vmapped steps with pre-sampled uniform random actions and each",
        "library's own autoreset, reducing every step's observation into the output).",
        "Each comparison runs in one process (MultiRoom-N6 aside, see the notes below):",
        "both rollouts are compiled, warmed up, then",
        "timed in alternation (horizax, peer, horizax, ...), best of the rounds for each, so",
        "drift of this shared 2-core VM hits both alike. Compile times come from fresh",
        "processes instead (`benchmarks/compile_times.py`: the median of 3, each process",
        "compiling one program after a trivial warm-up), because in a shared process the",
        "library compiled second finds JAX's caches warm (about 0.2 s on MemoryS13).",
        "",
        f"- JAX {first.get('jax_version')}, {first['machine'].get('cpu_model')}, "
        f"{first['machine'].get('cpu_count')} CPUs, Python {first['machine'].get('python')}, "
        f"backend {first['machine'].get('jax_backend')}",
        "- commands (from the peer venv, see `benchmarks/README.md`): "
        + ", ".join(
            f"`{c}`"
            for c in dict.fromkeys(
                r.get("command", "python benchmarks/compare.py") for r in records
            )
        ),
        "- `load` is the 1-minute load average before/after the timed calls.",
        "",
        "## Ratios against the targets of issues 2 and 3",
        "",
        "Issue 3's rows (index >= 5) also carry a compile target: horizax's compile time at",
        "most 1/4 of navix's. Two programs are timed: the whole rollout (`compile s`: reset,",
        "scanned step, action sampling and the checksum) and, as the issue words it, reset +",
        "step (`reset+step s`: `jit(vmap(reset))` and `jit(vmap(step))`, autoreset included,",
        "compiled separately).",
        "",
        "Memory per environment, two ways. `KiB/env` is the rollout program's peak (XLA's",
        "memory analysis: temporaries, arguments and outputs) divided by B; it includes the",
        "harness's own T x B pre-sampled actions and their sampling temporaries, alike for",
        "both sides. `state B/env` is what one environment carries from step to step (the",
        "leaves of its reset's output: state, plus observation and timestep where the",
        "library keeps them there; `harness.state_bytes`): what B environments hold.",
        "",
        "| comparison | B | horizax steps/s | peer steps/s | ratio | target | "
        "horizax compile s | peer compile s | compile ratio | horizax reset+step s | "
        "peer reset+step s | reset+step ratio | horizax KiB/env | peer KiB/env | "
        "horizax state B/env | peer state B/env |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for index, (label, _, peer, _, target) in enumerate(COMPARISONS):
        for B in batches:
            ours = _find(records, index, "horizax", B)
            theirs = _find(records, index, peer, B)
            if ours is None or theirs is None:
                continue
            ratio = ours["steps_per_s"] / theirs["steps_per_s"]
            split = [ours.get("reset_step_compile_s"), theirs.get("reset_step_compile_s")]
            split_cells = (
                " |  |  |"
                if None in split
                else f" {split[0]:.2f} | {split[1]:.2f} | {split[0] / split[1]:.2f} |"
            )
            lines.append(
                f"| {label} vs {peer} | {B} | {ours['steps_per_s']:,.0f} | "
                f"{theirs['steps_per_s']:,.0f} | {ratio:.2f}x | "
                f"{'' if target is None else f'>= {target}x'} | "
                f"{ours['compile_s']:.2f} | {theirs['compile_s']:.2f} | "
                f"{ours['compile_s'] / theirs['compile_s']:.2f}"
                f"{' (<= 0.25)' if FIRST_ISSUE3 <= index < FIRST_MAZE else ''} |"
                + split_cells
                + "".join(f" {_kib_per_env(r)} |" for r in (ours, theirs))
                + "".join(f" {_state_cell(r)} |" for r in (ours, theirs))
            )
    lines += [
        "",
        "## Every measurement",
        "",
        "| library | version | env | obs | B | T | steps/s | compile s | peak MiB | load |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in sorted(records, key=lambda r: (r["library"], r["env"], r["obs"], r["B"])):
        load = r.get("load_avg_1m") or [None, None]
        lines.append(
            f"| {r['library']} | {r.get('library_version', '')} | {r['env']} | {r['obs']} | "
            f"{r['B']} | {r['T']} | {r['steps_per_s']:,.0f} | {r['compile_s']:.2f} | "
            f"{(r.get('peak_bytes') or 0) / 2**20:.1f} | "
            f"{'/'.join('' if x is None else f'{x:.1f}' for x in load)} |"
        )
    lines += [
        "",
        "Notes: navix's `symbolic_first_person` and xland-minigrid's default view do not",
        "apply MiniGrid's occlusion; horizax's `symbolic_first_person` does (it equals",
        "MiniGrid's `image` bit for bit), so the see-through row is the like-for-like one.",
        "navix uses max_steps 256 on both 8x8 ids; horizax and xland-minigrid use MiniGrid's",
        "(256 Empty, 640 DoorKey). xland-minigrid autoresets on the terminal step",
        "(GymAutoResetWrapper), navix and horizax on the step after it.",
        "",
        "MultiRoom-N6 (issue 3) is measured differently: at T=250 (two full episodes of",
        "MiniGrid's 120 steps, so every environment autoresets twice: 8 resets per 1000",
        "steps, as at T=1000), 2 timed calls, and each side in its own process, one after",
        "the other (`compare.solo_child`). navix 4.0.0's step costs about 1.6 ms per",
        "environment there (1.7 s per batched step at B=1024): under vmap its autoreset's",
        "`lax.cond` becomes a select, so its retry-based room search runs for every",
        "environment on every step, and one T=1000 call would take half an hour. navix's",
        "compile times come from its own timing process (rollout) and one fresh process",
        "(reset + step), not a median of 3 (horizax's are). The long runs that earlier",
        "sessions stopped as still compiling navix were most likely executing it: a",
        "process seen like that this session was, by `perf`, in XLA's kernel execution,",
        "and navix's rollout compiled in 2.3 minutes.",
        "",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Runs every comparison and writes results_compare.json and RESULTS.md."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--child":
        index, B, T, rounds = map(int, argv[1:5])
        for record in paired_child(index, B, T, rounds):
            print(RESULT_MARKER + json.dumps(record, default=str), flush=True)
        return
    if argv and argv[0] == "--solo-child":
        index, side, B, T, rounds = map(int, argv[1:6])
        record = solo_child(index, side, B, T, rounds)
        print(RESULT_MARKER + json.dumps(record, default=str), flush=True)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--steps", type=int, default=1000)
    # B=1 runs 5000 steps: a 200-step call of one environment lasts 35-150 us, which on this
    # VM is the spread of a call's fixed cost (thread wake-ups), not the steps' cost.
    parser.add_argument("--steps-for", nargs="*", default=["8192:200", "1:5000"])
    parser.add_argument("--rounds", type=int, default=5, help="alternating timed calls")
    parser.add_argument("--max-load", type=float, default=1.5)
    parser.add_argument("--max-wait", type=float, default=120.0)
    parser.add_argument(
        "--compile-repeats", type=int, default=3, help="fresh processes per compile time"
    )
    parser.add_argument("--render-only", action="store_true", help="rewrite RESULTS.md only")
    parser.add_argument(
        "--only",
        type=int,
        nargs="+",
        default=None,
        help="run only these comparisons (indices); their new records replace those with the "
        "same index and batch size in the JSON, the others are kept",
    )
    args = parser.parse_args(argv)
    out_json = os.path.join(HERE, "results_compare.json")
    if not args.render_only:
        fresh = _run_pairs(args)
        if args.only is not None and os.path.exists(out_json):
            with open(out_json, encoding="utf-8") as f:
                kept = [
                    r
                    for r in json.load(f)
                    if r["comparison"] not in args.only or r["B"] not in args.batch
                ]
            fresh = kept + fresh
        with open(out_json, "w", encoding="utf-8") as f:
            json.dump(fresh, f, indent=2, default=str)
    with open(out_json, encoding="utf-8") as f:
        records = json.load(f)
    if _fill_state_bytes(records):
        with open(out_json, "w", encoding="utf-8") as f:
            json.dump(records, f, indent=2, default=str)
    results = os.path.join(HERE, "RESULTS.md")
    # Hand-recorded runs of other scripts (before_after.py) follow the marker; keep them.
    kept_text = ""
    if os.path.exists(results):
        with open(results, encoding="utf-8") as f:
            old = f.read()
        if KEPT_MARKER in old:
            kept_text = old[old.index(KEPT_MARKER) :]
    with open(results, "w", encoding="utf-8") as f:
        f.write(render(records, sorted({r["B"] for r in records})))
        if kept_text:
            f.write("\n" + kept_text)


if __name__ == "__main__":
    main()
