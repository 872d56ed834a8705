"""One process of the PPO data-parallel checks: ``python -m tests.train.ppo_runs ...``.

It forces ``--devices`` CPU devices, joins ``--processes`` processes with `jax.distributed`
when there are several, makes ``UPDATES`` PPO updates on each id of `CASES` from seed 0 and
writes the parameters (replicated, so every process holds them whole) to ``--out``.
"""

from __future__ import annotations

from tests.device_runs import runner_args, start_jax

CASES = {
    "MiniGrid-Empty-5x5-v0": {"max_steps": 12},  # truncations inside the rollouts
    "Orbital-LadyBanditGuard-v0": {"max_steps": 6},  # the Gaussian policy
}
UPDATES = 2
SETTINGS = {"num_envs": 8, "num_steps": 16, "num_minibatches": 2, "update_epochs": 2}


def main() -> None:
    args = runner_args()
    jax = start_jax(args)
    import numpy as np

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
