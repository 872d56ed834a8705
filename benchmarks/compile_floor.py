"""How low a rollout's compile time can go: the harness's floor next to horizax and navix.

Issue 3's compile target asks horizax's whole-rollout compile (`compare.py`'s ``compile s``)
to be at most 1/4 of navix's. Part of every such program is the harness itself (the vmapped
reset, the scan, T x B action draws and the observation checksum), the same for every
library. ``probe`` is `probe_empty.py`'s bare Empty-8x8 (three fields of state, a constant
grid) in that harness: the compile time of a rollout that does almost nothing. When a
quarter of navix's time is at or below the probe's, no environment can meet the ratio in
this harness. Each figure is the median of ``--repeats`` fresh processes
(`compile_times.cold_compile`). Run from the peer venv, alone on an idle machine::

    python benchmarks/compile_floor.py --envs MiniGrid-MemoryS13-v0 MiniGrid-Fetch-8x8-N3-v0
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_times import cold_compile


def navix_id(env_id: str) -> str:
    """navix's name for a MiniGrid id (``MiniGrid-X-v0`` -> ``Navix-X-v0``)."""
    return env_id.replace("MiniGrid-", "Navix-", 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", nargs="+", default=["MiniGrid-MemoryS13-v0"])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    B, T, n = args.batch, args.steps, args.repeats
    probe = cold_compile("rollout", "probe", "probe", "symbolic", B, T, n)
    print(json.dumps({"program": "probe", **probe}), flush=True)
    rows = []
    for env_id in args.envs:
        ours = cold_compile("rollout", "horizax", env_id, "symbolic", B, T, n)
        peer = cold_compile("rollout", "navix", navix_id(env_id), "symbolic", B, T, n)
        row = {
            "env": env_id,
            "horizax_s": ours["median_s"],
            "navix_s": peer["median_s"],
            "ratio": ours["median_s"] / peer["median_s"],
            "quarter_of_navix_s": peer["median_s"] / 4,
            "probe_s": probe["median_s"],
            "probe_ratio": probe["median_s"] / peer["median_s"],
            "all": {"horizax": ours["all_s"], "navix": peer["all_s"], "probe": probe["all_s"]},
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
    print("\n| env | horizax s | navix s | ratio | navix / 4 | probe s | probe / navix |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['env']} | {r['horizax_s']:.2f} | {r['navix_s']:.2f} | {r['ratio']:.2f} | "
            f"{r['quarter_of_navix_s']:.2f} | {r['probe_s']:.2f} | {r['probe_ratio']:.2f} |"
        )


if __name__ == "__main__":
    main()
