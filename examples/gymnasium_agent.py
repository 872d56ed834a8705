"""A Gymnasium agent on a horizax id: tabular Q-learning through ``gymnasium.make``.

The usual Gymnasium loop, with the episode boundary handled the right way: the target of a
step is ``reward + gamma * max Q(next)`` unless the step *terminated* (the goal: nothing
follows); a *truncated* step (the time limit) still bootstraps from its next observation.
Either flag ends the episode. Needs the gymnasium extra: ``pip install 'horizax[gymnasium]'``.

    python examples/gymnasium_agent.py --episodes 300
"""

import argparse
from collections import defaultdict

import gymnasium
import numpy as np

import horizax.adapters.gymnasium  # noqa: F401  (registers the horizax/<id> names)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--env", default="MiniGrid-Empty-5x5-v0", help="a gridworld id")
parser.add_argument("--episodes", type=int, default=40)
parser.add_argument("--max-steps", type=int, default=30, help="the episodes' time limit")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

env = gymnasium.make(f"horizax/{args.env}", max_steps=args.max_steps)
rng = np.random.default_rng(args.seed)
moves = 3  # left, right, forward: all an empty room needs
q = defaultdict(lambda: np.zeros(moves))
gamma, alpha, epsilon = 0.95, 0.5, 0.1


def key(obs):
    """The table key of an observation: the egocentric view and the heading."""
    return obs["image"].tobytes(), obs["direction"]


counts, returns = {"terminated": 0, "truncated": 0}, []
obs, _ = env.reset(seed=args.seed)
for _ in range(args.episodes):
    total, done = 0.0, False
    while not done:
        greedy = int(np.argmax(q[key(obs)] + 1e-6 * rng.random(moves)))  # ties at random
        action = int(rng.integers(moves)) if rng.random() < epsilon else greedy
        next_obs, reward, terminated, truncated, _ = env.step(action)
        bootstrap = 0.0 if terminated else gamma * q[key(next_obs)].max()
        q[key(obs)][action] += alpha * (reward + bootstrap - q[key(obs)][action])
        total += reward
        obs, done = next_obs, terminated or truncated
    counts["terminated" if terminated else "truncated"] += 1
    returns.append(total)
    obs, _ = env.reset()  # the next episode of the seeded schedule

tenth = max(1, args.episodes // 10)
print(f"environment      horizax/{args.env} (time limit {args.max_steps})")
print(f"episodes         {args.episodes}")
print(f"  terminated     {counts['terminated']}")
print(f"  truncated      {counts['truncated']}")
print(
    f"mean return      first {tenth}: {np.mean(returns[:tenth]):.3f}, last {tenth}: "
    f"{np.mean(returns[-tenth:]):.3f}"
)
