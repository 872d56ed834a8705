"""A batched random rollout at scale: `jax.vmap` over environments, `jax.lax.scan` over time.

Runs with horizax alone (no extra), on any gridworld id. Counts the episodes that ended and
how: *terminated* (the task ended them: goal, lava, ...) or *truncated* (the time limit cut
them).

    python examples/random_rollout.py                          # a few seconds on a CPU
    python examples/random_rollout.py --batch 8192 --steps 2000 --env MiniGrid-DoorKey-8x8-v0
"""

import argparse
import time

import jax
import jax.numpy as jnp

import horizax

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--env", default="MiniGrid-Empty-5x5-v0", help="a gridworld id (MiniGrid-*)")
parser.add_argument("--batch", type=int, default=1024, help="environments stepped together")
parser.add_argument("--steps", type=int, default=200, help="steps per environment")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()

env = horizax.make(args.env)


def rollout(key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Resets ``batch`` environments, takes ``steps`` random actions in each (autoreset on),
    returns i32[] counts of terminated and truncated episodes."""
    reset_key, action_key = jax.random.split(key)
    timestep = jax.vmap(env.reset)(jax.random.split(reset_key, args.batch))
    # The random agent: uniform over the action space, one key per step and environment.
    actions = jax.vmap(
        lambda k: jax.vmap(env.action_space.sample)(jax.random.split(k, args.batch))
    )(jax.random.split(action_key, args.steps))

    def step(carry, action):
        timestep, terminated, truncated = carry
        timestep = jax.vmap(env.step)(timestep, action)
        terminated += timestep.is_termination().sum(dtype=jnp.int32)
        truncated += timestep.is_truncation().sum(dtype=jnp.int32)
        return (timestep, terminated, truncated), None

    zero = jnp.zeros((), jnp.int32)
    (_, terminated, truncated), _ = jax.lax.scan(step, (timestep, zero, zero), actions)
    return terminated, truncated


run = jax.jit(rollout)
start = time.perf_counter()
jax.block_until_ready(run(jax.random.PRNGKey(args.seed + 1)))  # compiles, then runs once
compile_s = time.perf_counter() - start
start = time.perf_counter()
terminated, truncated = jax.block_until_ready(run(jax.random.PRNGKey(args.seed)))
run_s = time.perf_counter() - start

print(f"environment      {args.env} x {args.batch}, {args.steps} steps each")
print(f"episodes ended   {int(terminated) + int(truncated)}")
print(f"  terminated     {int(terminated)}")
print(f"  truncated      {int(truncated)}")
print(f"compile time     {compile_s:.2f} s")
print(f"throughput       {args.batch * args.steps / run_s:,.0f} steps/s")
