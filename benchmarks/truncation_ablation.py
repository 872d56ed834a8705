"""Exact bootstrapping against the common mistake: PPO with truncations bootstrapped from the
episode's real last observation, and with truncations taken as terminations.

For each variant and seed it trains `horizax.train.ppo.PPO` on an id with a time limit
``--limit`` (shorter than its episodes usually last, so truncations are frequent), then
measures, with the trained policy:

* the training return: the mean return of the episodes that ended in the last 10 % of
  updates;
* the value error at truncated states: the same policy plays ``--episodes`` episodes with
  the limit raised to ``limit + horizon``; at step ``limit`` (where training truncated) the
  critic's value ``V`` is compared with the discounted return actually collected from there
  (``G``, stopped at a termination or after ``horizon`` more steps: ``gamma**horizon`` of the
  tail is missing). Reported: the mean of ``V - G`` (bias) and of ``|V - G|``, in the
  critic's units (rewards times ``reward_scale``).

The id's rewards must not depend on its time limit. The orbital games' do not; MiniGrid's
success reward does (``1 - 0.9 t / max_steps``), so for a gridworld ``--goal-reward`` pays
a constant 1 on success instead (`horizax.grid.rewards.on_goal_reached`)::

    python benchmarks/truncation_ablation.py --env Orbital-PursuitEvasion-v0 --limit 32 \\
        --horizon 300 --total-steps 1048576 --reward-scale 0.0001 --seeds 0 1 2
    python benchmarks/truncation_ablation.py --env MiniGrid-Empty-Random-6x6-v0 --goal-reward \\
        --limit 5 --horizon 50 --total-steps 262144 --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import jax
import numpy as np


def train(
    env_id: str,
    limit: int,
    total_steps: int,
    seed: int,
    mistaken: bool,
    overrides: dict,
    settings: dict,
) -> tuple:
    from horizax.train.ppo import PPO, default_config

    config = default_config(
        env_id, total_steps=total_steps, truncation_as_termination=mistaken, **settings
    )
    learner = PPO(env_id, config, max_steps=limit, **overrides)
    state = learner.init(seed=seed)
    rows = []
    for _ in range(config.num_updates):
        state, metrics = learner.update(state)
        rows.append(metrics)
    tail = rows[-max(1, len(rows) // 10) :]
    episodes = sum(m["episodes"] for m in tail)
    train_return = sum(m["return_sum"] for m in tail) / max(episodes, 1)
    return learner, state, train_return


def value_error(learner, state, env_id, limit, horizon, episodes, seed, overrides) -> dict:
    from horizax.vector import VectorEnv

    config = learner.config
    venv = VectorEnv(
        env_id, episodes, autoreset_mode="Disabled", max_steps=limit + horizon, **overrides
    )
    _, trajectory = venv.rollout(
        learner.policy(state), jax.random.PRNGKey(10_000 + seed), limit + horizon
    )
    rewards = np.asarray(trajectory.step.reward) * config.reward_scale
    terminated = np.asarray(trajectory.step.terminated)
    alive = ~terminated[:limit].any(axis=0)  # still running where training truncated
    observation = jax.tree.map(lambda x: x[limit], trajectory.observation)
    values = np.asarray(learner.value(state, observation))
    returns = np.zeros(episodes)
    for t in reversed(range(limit, limit + horizon)):
        returns = rewards[t] + config.gamma * np.where(terminated[t], 0.0, returns)
    diff = (values - returns)[alive]
    return {
        "alive_at_limit": int(alive.sum()),
        "bias": float(diff.mean()) if diff.size else float("nan"),
        "abs_error": float(np.abs(diff).mean()) if diff.size else float("nan"),
        "mean_G": float(returns[alive].mean()) if diff.size else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="Orbital-LadyBanditGuard-v0")
    parser.add_argument("--limit", type=int, default=32)
    parser.add_argument("--horizon", type=int, default=300)
    parser.add_argument("--total-steps", type=int, default=500_000)
    parser.add_argument("--episodes", type=int, default=256)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument(
        "--goal-reward", action="store_true", help="gridworlds: a constant 1 on success"
    )
    parser.add_argument("--reward-scale", type=float, help="PPOConfig.reward_scale")
    args = parser.parse_args()
    settings = {} if args.reward_scale is None else {"reward_scale": args.reward_scale}
    overrides = {}
    if args.goal_reward:
        from horizax.grid import rewards

        overrides["reward_fn"] = rewards.on_goal_reached
    summary: dict[str, list] = {"exact": [], "mistaken": []}
    for seed in args.seeds:
        for variant in ("exact", "mistaken"):
            start = time.perf_counter()
            learner, state, train_return = train(
                args.env,
                args.limit,
                args.total_steps,
                seed,
                variant == "mistaken",
                overrides,
                settings,
            )
            record = {"env": args.env, "variant": variant, "seed": seed, "limit": args.limit}
            record |= {"goal_reward": args.goal_reward, "total_steps": args.total_steps}
            record |= {"reward_scale": learner.config.reward_scale}
            record |= {"train_return": train_return}
            record |= value_error(
                learner, state, args.env, args.limit, args.horizon, args.episodes, seed, overrides
            )
            record |= {"wall_s": round(time.perf_counter() - start, 1), "jax": jax.__version__}
            print(json.dumps(record), flush=True)
            summary[variant].append(record)
    print("\n| variant | train return (mean over seeds) | V - G at truncation | abs error |")
    print("|---|---:|---:|---:|")
    for variant, records in summary.items():
        cells = [
            statistics.mean(r[k] for r in records) for k in ("train_return", "bias", "abs_error")
        ]
        print(f"| {variant} | {cells[0]:.2f} | {cells[1]:+.3f} | {cells[2]:.3f} |")


if __name__ == "__main__":
    main()
