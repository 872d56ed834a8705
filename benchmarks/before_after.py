"""horizax alone, one id per process: rollout steps/s and compile time of one source tree.

Compares two trees of horizax (a change and its parent) in the same harness as
`compare.py`, without the peers: run it alternately with each tree on ``PYTHONPATH``::

    PYTHONPATH=OLD/src python benchmarks/before_after.py MiniGrid-DoorKey-8x8-v0 1024 200
    PYTHONPATH=NEW/src python benchmarks/before_after.py MiniGrid-DoorKey-8x8-v0 1024 200

Equal ``checksum`` and ``episodes`` show both trees played the same rollouts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax

import horizax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import make_scan_rollout, time_rollout


def main(env_id: str, batch: int, steps: int) -> dict[str, object]:
    """One jitted, vmapped, scanned random rollout of ``env_id``, timed (best of 5)."""
    env = horizax.make(env_id)
    rollout = make_scan_rollout(
        env.reset,
        env.step,
        lambda ts: ts.observation,
        lambda ts: ts.is_done(),
        env.action_space.n,
        batch,
        steps,
    )
    timing = time_rollout(rollout, jax.random.PRNGKey(0), repeats=5)
    return {
        "env": env_id,
        "B": batch,
        "T": steps,
        "steps_per_s": batch * steps / timing["best_s"],
        "compile_s": timing["compile_s"],
        "episodes": int(timing["episodes"]),
        "checksum": int(timing["checksum"]),
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
