"""How low a rollout's compile time can go: the harness's floor next to horizax and navix.

Issue 3's compile target asks horizax's whole-rollout compile (`compare.py`'s ``compile s``)
to be at most 1/4 of navix's. Part of every such program is the harness itself (the vmapped
reset, the scan, T x B action draws and the observation checksum), the same for every
library. ``probe`` is `probe_empty.py`'s bare Empty-8x8 (three fields of state, a constant
grid) in that harness: the compile time of a rollout that does almost nothing. When a
quarter of navix's time is at or below the probe's, no environment can meet the ratio in
this harness. Where the id has a bare probe of its own task (`TASK_PROBES`: MemoryS13's
`probe_memory.py`, Fetch-8x8-N3's `probe_fetch.py`), that is compiled too: when a quarter of
navix's time is below it, no implementation of the task meets the ratio here. Each figure
is the median of ``--repeats`` fresh processes (`compile_times.cold_compile`), taken in
rounds over all the programs. Run from the peer venv, alone on an idle machine::

    python benchmarks/compile_floor.py --envs MiniGrid-MemoryS13-v0 MiniGrid-Fetch-8x8-N3-v0
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_times import cold_compile


def navix_id(env_id: str) -> str:
    """navix's name for a MiniGrid id (``MiniGrid-X-v0`` -> ``Navix-X-v0``)."""
    return env_id.replace("MiniGrid-", "Navix-", 1)


# Ids with bare probes of their own task (``compile_times.PROBES``): the key-exact one and
# one with a cheaper random draw; their compile is what an implementation of the task pays
# in this harness.
TASK_PROBES = {
    "MiniGrid-MemoryS13-v0": ("probe_memory", "probe_memory_hash"),
    "MiniGrid-Fetch-8x8-N3-v0": ("probe_fetch", "probe_fetch_hash"),
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", nargs="+", default=["MiniGrid-MemoryS13-v0"])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    B, T = args.batch, args.steps
    programs = [("probe", "probe", "probe")]
    for env_id in args.envs:
        programs += [("horizax", env_id, env_id), ("navix", navix_id(env_id), env_id)]
        programs += [(probe, env_id, env_id) for probe in TASK_PROBES.get(env_id, ())]
    # Rounds over every program, so a slow minute of the machine weighs on all alike.
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeats):
        for lib, name, env_id in programs:
            value = cold_compile("rollout", lib, name, "symbolic", B, T, 1)["median_s"]
            times.setdefault((lib, env_id), []).append(value)
    med = {k: statistics.median(v) for k, v in times.items()}
    probe = med["probe", "probe"]
    print(json.dumps({"program": "probe", "median_s": probe, "all_s": times["probe", "probe"]}))
    rows = []
    for env_id in args.envs:
        navix_s = med["navix", env_id]
        row = {
            "env": env_id,
            "B": B,
            "horizax_s": med["horizax", env_id],
            "navix_s": navix_s,
            "ratio": med["horizax", env_id] / navix_s,
            "quarter_of_navix_s": navix_s / 4,
            "probe_s": probe,
            "probe_ratio": probe / navix_s,
            "task_probes": {
                task: {"s": med[task, env_id], "ratio": med[task, env_id] / navix_s}
                for task in TASK_PROBES.get(env_id, ())
            },
            "all": {lib: v for (lib, e), v in times.items() if e in (env_id, "probe")},
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
    print("\n| env | B | horizax s | navix s | ratio | navix / 4 | probe s | probe / navix |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['env']} | {B} | {r['horizax_s']:.2f} | {r['navix_s']:.2f} | {r['ratio']:.2f} "
            f"| {r['quarter_of_navix_s']:.2f} | {r['probe_s']:.2f} | {r['probe_ratio']:.2f} |"
        )
        for task, value in r["task_probes"].items():
            ratio, secs = value["ratio"], value["s"]
            print(f"| {task} ({r['env']}) | {B} | | | {ratio:.2f} | | {secs:.2f} | |")


if __name__ == "__main__":
    main()
