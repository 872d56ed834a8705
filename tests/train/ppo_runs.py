"""One process of the PPO data-parallel checks: ``python -m tests.train.ppo_runs ...``.

It forces ``--devices`` CPU devices, joins ``--processes`` processes with `jax.distributed`
when there are several, makes ``UPDATES`` PPO updates on each id of `CASES` from seed 0 and
writes the parameters (replicated, so every process holds them whole) to ``--out``.
"""

from __future__ import annotations

import argparse
import os

CASES = {
    "MiniGrid-Empty-5x5-v0": {"max_steps": 12},  # truncations inside the rollouts
    "Orbital-LadyBanditGuard-v0": {"max_steps": 6},  # the Gaussian policy
}
UPDATES = 2
SETTINGS = {"num_envs": 8, "num_steps": 16, "num_minibatches": 2, "update_epochs": 2}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, required=True)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--process-id", type=int, default=0)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    flags = os.environ.get("XLA_FLAGS", "")
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
    from horizax.train.ppo import PPO, default_config

    arrays: dict[str, np.ndarray] = {}
    for env_id, overrides in CASES.items():
        learner = PPO(env_id, default_config(env_id, **SETTINGS), **overrides)
        state = learner.init(seed=0)
        for _ in range(UPDATES):
            state, metrics = learner.update(state)
        leaves = jax.tree.leaves(state.params)
        # Replicated: this process's first shard is the whole array.
        for i, leaf in enumerate(leaves):
            arrays[f"{env_id}/{i}"] = np.asarray(leaf.addressable_shards[0].data)
        arrays[f"{env_id}/truncated"] = np.float32(metrics["truncated"])
    np.savez(args.out, **arrays)
    if args.processes > 1:
        jax.distributed.shutdown()


if __name__ == "__main__":
    main()
