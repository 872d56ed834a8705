"""One process of `tests/test_vector.py`'s sharding runs: ``python -m tests.vector_runs ...``.

It forces ``--devices`` CPU devices (before JAX starts), joins ``--processes`` processes with
`jax.distributed` when there are several, runs a `VectorEnv` of each id in `CASES` (a seeded
reset, then a rollout of the random policy) and writes this process's rows of every
trajectory to ``--out`` (an ``.npz``). The test concatenates the processes' files in process
order and compares them with a one-device run.
"""

from __future__ import annotations

from tests.device_runs import runner_args, start_jax

CASES = {
    "MiniGrid-DoorKey-5x5-v0": {"max_steps": 9},
    "Maze-v0": {"time_limit": 9},
    "Orbital-LadyBanditGuard-v0": {"max_steps": 9},
}
NUM_ENVS = 8
NUM_STEPS = 24
MODE = "SameStep"  # the mode whose final observations a learner bootstraps from


def main() -> None:
    args = runner_args()
    jax = start_jax(args)
    import numpy as np

    from horizax.vector import VectorEnv, local_rows, random_policy

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
