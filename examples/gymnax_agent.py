"""A gymnax agent loop through `ToGymnax`, and why truncation must bootstrap.

A random agent plays Empty-5x5 with a short time limit; two tabular critics (a value per
cell and heading) are fitted to its transitions by batch TD(0). The exact one bootstraps
with ``info["discount"]`` (0 only on termination), the wrong one reads ``done`` as terminal.
Needs the gymnax extra. Try: python examples/gymnax_agent.py --batch 256 --steps 400
"""

import argparse

import jax
import jax.numpy as jnp

import horizax
from horizax.adapters.gymnax import ToGymnax

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--batch", type=int, default=64, help="environments stepped together")
parser.add_argument("--steps", type=int, default=200, help="steps per environment")
parser.add_argument("--max-steps", type=int, default=20, help="the episodes' time limit")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

env, params = ToGymnax.wrap(horizax.make("MiniGrid-Empty-5x5-v0", max_steps=args.max_steps))
width, height, GAMMA = env.env.width, env.env.height, 0.95


def cell(state):
    """i32[]: the table index of the agent's cell and heading."""
    grid_state = state.timestep.state
    return (grid_state.agent_pos[0] * height + grid_state.agent_pos[1]) * 4 + grid_state.agent_dir


def play(key):
    """One environment's transitions: (cell, reward, discount, done, next cell, valid)."""
    _, state = env.reset(key, params)

    def step(carry, key):
        state, was_done = carry
        action = jax.random.randint(key, (), 0, 3)  # left, right, forward: all a room needs
        _, next_state, reward, done, info = env.step(key, state, action, params)
        # The step after `done` only starts the next episode (horizax autoreset): no transition.
        row = (cell(state), reward, info["discount"], done, cell(next_state), ~was_done)
        return (next_state, done), row

    return jax.lax.scan(step, (state, jnp.bool_(False)), jax.random.split(key, args.steps))[1]


@jax.jit
def fit(rows, discount):
    """The batch TD(0) fixed point V(s) = mean over s's transitions of r + gamma * d * V(s')."""
    index, reward, _, _, following, valid = (x.ravel() for x in rows)
    size = width * height * 4
    visits = jax.ops.segment_sum(valid.astype(jnp.float32), index, size)

    def sweep(value, _):
        target = reward + GAMMA * discount.ravel() * value[following]
        total = jax.ops.segment_sum(jnp.where(valid, target, 0.0), index, size)
        return total / jnp.maximum(visits, 1.0), None

    return jax.lax.scan(sweep, jnp.zeros(size), None, length=200)[0]


rows = jax.jit(jax.vmap(play))(jax.random.split(jax.random.PRNGKey(args.seed), args.batch))
_, _, discount, done, _, valid = rows
exact, mistaken = fit(rows, discount), fit(rows, 1.0 - done.astype(jnp.float32))
ends, truncated = int((done & valid).sum()), int((done & (discount == 1.0) & valid).sum())
start = int(cell(env.reset(jax.random.PRNGKey(0), params)[1]))
print(f"transitions      {int(valid.sum())} ({ends} episode ends)")
print(f"  terminated     {ends - truncated} (discount 0)")
print(f"  truncated      {truncated} (discount 1: bootstrap from the last observation)")
print(f"V(start)         {float(exact[start]):.4f} (exact: discount from info)")
print(f"V(start) wrong   {float(mistaken[start]):.4f} (done read as terminal: biased low)")
