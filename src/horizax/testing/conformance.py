"""`check_env`: the contract every horizax gridworld keeps, as one callable check.

It verifies, on the environment you pass:

* ``reset`` and ``step`` work under `jax.jit`, `jax.vmap` and `jax.lax.scan`, and each jitted
  function is traced exactly once across calls with new keys and actions;
* the same key gives the same trajectory, and a vmapped batch equals per-env rollouts;
* observations lie in ``env.observation_space`` at every step, with fixed shapes and dtypes;
  rewards are finite f32; step types are 0, 1 or 2; ``t`` counts steps;
* the time limit truncates (never terminates) and autoreset starts a new episode on the step
  after one ends, while ``disable_autoreset()`` keeps stepping the same episode.

Failures raise `AssertionError` with a message naming the broken property.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from horizax.core.step_type import StepType
from horizax.testing.functional_checks import assert_in_space, check_functional, count_traces


def _rollout(env: Any, key: jax.Array, num_steps: int) -> tuple[Any, Any]:
    reset_key, action_key = jax.random.split(key)
    first = env.reset(reset_key)
    actions = env.action_space.sample(action_key, (num_steps,))

    def body(timestep: Any, action: jax.Array) -> tuple[Any, Any]:
        nxt = env.step(timestep, action)
        return nxt, nxt

    _, trajectory = jax.lax.scan(body, first, actions)
    return first, trajectory


def _assert_in_space(env: Any, observations: Any, where: str) -> None:
    space = env.observation_space
    obs = np.asarray(observations)
    assert obs.ndim >= len(space.shape), (
        f"observation shape {obs.shape} is shorter than space shape {space.shape} ({where})"
    )
    # Any leading axes are batch (vmap) or time (scan) axes.
    assert_in_space(space, obs, obs.ndim - len(space.shape), where)


def check_env(
    env: Any, *, key: jax.Array | None = None, num_steps: int = 96, batch: int = 3
) -> None:
    """Runs the conformance checks on ``env``; raises `AssertionError` on the first failure.

    Args:
        env: a `horizax.grid.Environment` (anything with ``reset(key)``, ``step(ts, a)``,
            ``action_space``, ``observation_space``, ``max_steps``, ``replace`` and
            ``disable_autoreset``), or any other horizax environment (e.g. the Maze), which
            is checked through its protocol view by `check_functional`.
        key: PRNG key (default ``PRNGKey(0)``).
        num_steps: length of the scanned rollouts.
        batch: number of environments in the vmapped rollout.
    """
    if not callable(getattr(env, "disable_autoreset", None)):
        # Not a gridworld (e.g. the Maze): the same contract, through its protocol view.
        check_functional(env, key=key, num_steps=num_steps, batch=batch)
        return
    key = jax.random.PRNGKey(0) if key is None else key
    # A short time limit guarantees episode boundaries inside the rollout.
    limit = max(2, min(env.max_steps, num_steps // 4))
    short = env.replace(max_steps=limit)

    # One trace per jitted function, across new keys and actions.
    reset, reset_traces = count_traces(short.reset)
    step, step_traces = count_traces(short.step)
    timestep = reset(jax.random.PRNGKey(1))
    for i in range(3):
        timestep = step(timestep, jnp.int32(i % env.action_space.n))
        timestep = reset(jax.random.PRNGKey(2 + i)) if i == 1 else timestep
    assert reset_traces[0] == 1, f"jit(reset) traced {reset_traces[0]} times, expected 1"
    assert step_traces[0] == 1, f"jit(step) traced {step_traces[0]} times, expected 1"

    # Scan rollout, deterministic per key.
    rollout = jax.jit(lambda k: _rollout(short, k, num_steps))
    first, traj = rollout(key)
    first_again, traj_again = rollout(key)
    for a, b in zip(
        jax.tree.leaves((first, traj)), jax.tree.leaves((first_again, traj_again)), strict=True
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), "same key, different rollout")

    _assert_in_space(short, first.observation, "reset")
    _assert_in_space(short, traj.observation, "rollout")
    rewards = np.asarray(traj.reward)
    assert rewards.dtype == np.float32, f"reward dtype {rewards.dtype}, expected float32"
    assert np.isfinite(rewards).all(), "non-finite reward"
    step_types = np.asarray(traj.step_type)
    assert step_types.dtype == np.int32, f"step_type dtype {step_types.dtype}, expected int32"
    assert np.isin(step_types, [0, 1, 2]).all(), "step_type outside {0, 1, 2}"

    # Episode boundaries: t counts, truncation at the limit, autoreset after a LAST step.
    t = np.concatenate([[int(first.t)], np.asarray(traj.t)])
    kinds = np.concatenate([[int(first.step_type)], step_types])
    assert t[0] == 0, "reset timestep must have t == 0"
    for i in range(1, len(t)):
        if kinds[i - 1] != StepType.TRANSITION:
            assert t[i] == 0, f"step after an episode end must start a new one (t={t[i]})"
        else:
            assert t[i] == t[i - 1] + 1, f"t must count steps: {t[i - 1]} -> {t[i]}"
        if t[i] >= limit and kinds[i - 1] == StepType.TRANSITION:
            assert kinds[i] != StepType.TRANSITION, "the time limit did not end the episode"
        if kinds[i] == StepType.TRUNCATION:
            assert t[i] >= limit, f"truncation before the time limit (t={t[i]})"
    assert (kinds != StepType.TRANSITION).any(), "no episode ended inside the rollout"

    # vmap: a batch equals per-environment rollouts with the same keys.
    keys = jax.random.split(key, batch)
    batched = jax.jit(jax.vmap(lambda k: _rollout(short, k, num_steps)))(keys)
    single = rollout(keys[batch - 1])
    for a, b in zip(jax.tree.leaves(batched), jax.tree.leaves(single), strict=True):
        np.testing.assert_array_equal(np.asarray(a)[batch - 1], np.asarray(b), "vmap differs")

    # disable_autoreset: stepping past the end keeps the same episode going.
    manual = short.disable_autoreset()
    manual_traj = jax.jit(lambda k: _rollout(manual, k, limit + 2))(key)[1]
    manual_t = np.asarray(manual_traj.t)
    np.testing.assert_array_equal(
        manual_t, np.arange(1, limit + 3), "disable_autoreset must not restart episodes"
    )
