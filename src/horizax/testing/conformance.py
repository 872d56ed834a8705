"""`check_env`: the contract every horizax environment keeps, as one callable check.

It verifies, on the environment you pass (the shared checks of `horizax.testing.harness`):

* ``reset`` and ``step`` work under `jax.jit`, `jax.vmap` and `jax.lax.scan`, and each jitted
  function is traced exactly once across calls with new keys and actions;
* the same key gives the same trajectory, and a vmapped batch equals per-env rollouts;
* observations lie in the observation space at every step, with fixed shapes and dtypes;
  rewards are finite f32;
* the time limit truncates (never terminates), termination and truncation never coincide,
  and several episodes end inside the rollout.

A gridworld is checked through its own `Timestep` API, which adds: step types are i32 0, 1
or 2; ``t`` counts steps; autoreset starts a new episode on the step after one ends, while
``disable_autoreset()`` keeps stepping the same episode. Any other environment is checked
through its protocol view by `horizax.testing.functional_checks.check_functional`.

`check_rollouts` runs only the checks that depend on an environment's constants, for a test
suite that runs `check_env` on one environment per family of environments sharing code.

Failures raise `AssertionError` with a message naming the broken property.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax import Array

from horizax.core.step_type import StepType
from horizax.testing.functional_checks import check_functional, check_functional_rollout
from horizax.testing.harness import Driver, check_driver, check_rollout

__all__ = ["check_env", "check_rollouts", "grid_driver"]


def grid_driver(env: Any) -> Driver:
    """The `Driver` of a gridworld's `Timestep` API (``reset(key)``, ``step(ts, a)``)."""
    return Driver(
        observation_space=env.observation_space,
        action_space=env.action_space,
        max_steps=env.max_steps,
        reset=env.reset,
        step=lambda key, timestep, action: env.step(timestep, action),
        observation=lambda ts: ts.observation,
        reward=lambda ts: ts.reward,
        terminated=lambda ts: ts.step_type == StepType.TERMINATION,
        truncated=lambda ts: ts.step_type == StepType.TRUNCATION,
        t=lambda ts: ts.t,
    )


def _check_grid_episodes(first: Any, outs: Any) -> None:
    """Step types and ``t`` across autoresets: a LAST step is followed by a new episode."""
    step_types = np.asarray(outs.step_type)
    assert step_types.dtype == np.int32, f"step_type dtype {step_types.dtype}, expected int32"
    assert np.isin(step_types, [0, 1, 2]).all(), "step_type outside {0, 1, 2}"
    t = np.concatenate([[int(first.t)], np.asarray(outs.t)])
    kinds = np.concatenate([[int(first.step_type)], step_types])
    assert t[0] == 0, "reset timestep must have t == 0"
    for i in range(1, len(t)):
        if kinds[i - 1] != StepType.TRANSITION:
            assert t[i] == 0, f"step after an episode end must start a new one (t={t[i]})"
        else:
            assert t[i] == t[i - 1] + 1, f"t must count steps: {t[i - 1]} -> {t[i]}"


def check_env(env: Any, *, key: Array | None = None, num_steps: int = 96, batch: int = 3) -> None:
    """Runs the conformance checks on ``env``; raises `AssertionError` on the first failure.

    Args:
        env: a `horizax.grid.Environment` (anything with ``reset(key)``, ``step(ts, a)``,
            ``action_space``, ``observation_space``, ``max_steps``, ``replace`` and
            ``disable_autoreset``), or any other horizax environment (e.g. the Maze) or
            `horizax.core.protocol.FunctionalEnv`, checked through its protocol view.
        key: PRNG key (default ``PRNGKey(0)``).
        num_steps: length of the scanned rollouts.
        batch: number of environments in the vmapped rollout.
    """
    if not callable(getattr(env, "disable_autoreset", None)):
        check_functional(env, key=key, num_steps=num_steps, batch=batch)
        return
    key = jax.random.PRNGKey(0) if key is None else key
    short, limit = _short(env, num_steps)
    result = check_driver(grid_driver(short), key, num_steps, batch)
    _check_grid_episodes(result.first, result.outs)

    # disable_autoreset: stepping past the end keeps the same episode going (from the reset
    # timestep already at hand: the copy differs in its step alone).
    manual = jax.jit(short.disable_autoreset().step)
    timestep, manual_t = result.first, []
    for action in short.action_space.sample(key, (limit + 2,)):
        timestep = manual(timestep, action)
        manual_t.append(int(timestep.t))
    np.testing.assert_array_equal(
        manual_t, np.arange(1, limit + 3), "disable_autoreset must not restart episodes"
    )


def check_rollouts(env: Any, *, key: Array | None = None, num_steps: int = 96) -> None:
    """The checks of `check_env` that depend on ``env``'s constants, not only on its code.

    One jitted scan rollout from ``key``: ``reset`` and ``step`` work under `jax.jit` and
    `jax.lax.scan`, the same key gives the same rollout, observations stay in their space,
    rewards are finite f32, the episode boundaries hold (and, for a gridworld, step types,
    ``t`` and autoreset). It leaves out the checks whose outcome is decided by the code alone
    (a vmapped batch equals the per-environment rollouts, one trace per jitted function,
    ``disable_autoreset``) and costs about a fifth of `check_env`: for a suite checking many
    environments that share code and differ only in constants (sizes, time limits), with
    `check_env` run on at least one environment of each such family. Check your own
    environment with `check_env`.

    Args:
        env: as in `check_env`.
        key: PRNG key (default ``PRNGKey(0)``).
        num_steps: length of the scanned rollout.
    """
    if not callable(getattr(env, "disable_autoreset", None)):
        check_functional_rollout(env, key=key, num_steps=num_steps)
        return
    key = jax.random.PRNGKey(0) if key is None else key
    result = check_rollout(grid_driver(_short(env, num_steps)[0]), key, num_steps)
    _check_grid_episodes(result.first, result.outs)


def _short(env: Any, num_steps: int) -> tuple[Any, int]:
    """``env`` with a time limit short enough that episodes end inside the rollout."""
    limit = max(2, min(env.max_steps, num_steps // 4))
    return env.replace(max_steps=limit), limit
