"""Learning curves of `horizax train` runs, one picture per id, every seed in it.

Reads ``RUN/metrics.jsonl`` and ``RUN/run.json`` of each run directory given and writes
``OUT/<id>.png`` (mean return of the episodes that ended in each update against environment
steps)::

    python benchmarks/plot_learning_curves.py runs/* --out docs/images/training
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_env: dict[str, list[tuple[int, list[dict]]]] = defaultdict(list)
    for run in args.runs:
        record = json.loads((run / "run.json").read_text())
        rows = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
        by_env[record["env"]].append((record["seed"], rows))
    args.out.mkdir(parents=True, exist_ok=True)
    for env_id, runs in sorted(by_env.items()):
        figure, axis = plt.subplots(figsize=(5, 3))
        for seed, rows in sorted(runs, key=lambda r: r[0]):
            kept = [r for r in rows if r["episodes"]]
            steps = [r["env_steps"] for r in kept]
            axis.plot(steps, [r["mean_return"] for r in kept], label=f"seed {seed}", lw=1)
        axis.set_xlabel("environment steps")
        axis.set_ylabel("mean episode return")
        axis.set_title(env_id, fontsize=10)
        axis.legend(fontsize=8)
        figure.tight_layout()
        figure.savefig(args.out / f"{env_id}.png", dpi=80)
        plt.close(figure)
        print(args.out / f"{env_id}.png")


if __name__ == "__main__":
    main()
