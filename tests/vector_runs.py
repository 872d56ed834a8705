"""One process of `tests/test_vector.py`'s sharding runs: ``python -m tests.vector_runs ...``.

It forces ``--devices`` CPU devices (before JAX starts), joins ``--processes`` processes with
`jax.distributed` when there are several, runs a `VectorEnv` of each id in `CASES` (a seeded
reset, then a rollout of the random policy) and writes this process's rows of every
trajectory to ``--out`` (an ``.npz``). The test concatenates the processes' files in process
order and compares them with a one-device run.
"""

from __future__ import annotations

import argparse
import os

CASES = {
    "MiniGrid-DoorKey-5x5-v0": {"max_steps": 9},
    "Maze-v0": {"time_limit": 9},
    "Orbital-LadyBanditGuard-v0": {"max_steps": 9},
}
NUM_ENVS = 8
NUM_STEPS = 24
MODE = "SameStep"  # the mode whose final observations a learner bootstraps from


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, required=True, help="CPU devices per process")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--process-id", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    flags = os.environ.get("XLA_FLAGS", "")  # the test run's own flags stay
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={args.devices}"
    import jax
    import numpy as np

    if args.processes > 1:
        jax.distributed.initialize(
            coordinator_address=f"127.0.0.1:{args.port}",
            num_processes=args.processes,
            process_id=args.process_id,
            initialization_timeout=60,
        )
    from horizax.vector import VectorEnv, local_rows, random_policy

    assert len(jax.devices()) == args.devices * args.processes, jax.devices()
    arrays: dict[str, np.ndarray] = {}
    for env_id, overrides in CASES.items():
        venv = VectorEnv(env_id, NUM_ENVS, autoreset_mode=MODE, **overrides)
        state, first = venv.reset(seed=5)
        start = (state, first.observation)
        policy = random_policy(venv)
        _, trajectory = venv.rollout(policy, jax.random.PRNGKey(7), NUM_STEPS, start=start)
        # "first" leaves are [rows, ...], "trajectory" leaves [T, rows, ...].
        for part, tree in (("first", first), ("trajectory", trajectory)):
            for i, leaf in enumerate(jax.tree.leaves(local_rows(tree))):
                arrays[f"{env_id}/{part}/{i}"] = leaf
    np.savez(args.out, **arrays)
    if args.processes > 1:
        jax.distributed.shutdown()


if __name__ == "__main__":
    main()
