"""`check_functional`: `check_env`'s contract, checked through the core functional protocol.

Used by `check_env` for environments that are not gridworlds (the Maze, any
`horizax.core.protocol.FunctionalEnv`): it takes the protocol view
(`horizax.core.protocol.functional`) with a short time limit, runs the shared checks of
`horizax.testing.harness` on it, and adds the protocol's own rules: a reset's `Step` has
reward 0 and no flag set, and ``replace(max_steps=...)`` shortens the time limit. The
protocol never resets by itself, so the check's rollouts reset after every ending.

Failures raise `AssertionError` naming the broken property.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from horizax.core.protocol import FunctionalEnv, Step, functional
from horizax.testing.harness import (
    Driver,
    assert_in_space,
    check_driver,
    check_rollout,
    count_traces,
)

__all__ = [
    "assert_in_space",
    "check_functional",
    "check_functional_rollout",
    "count_traces",
    "functional_driver",
]

# A protocol output in the checks: the state, its `Step`, and steps taken in the episode.
_Out = tuple[Any, Step, Array]


def functional_driver(fenv: FunctionalEnv) -> Driver:
    """The `Driver` of a protocol view; its step resets first where the last step ended."""

    def reset(key: Array) -> _Out:
        state, step = fenv.reset(key)
        return state, step, jnp.int32(0)

    def step(key: Array, out: _Out, action: Array) -> _Out:
        state, previous, t = out
        fresh, _ = fenv.reset(key)
        state = jax.tree.map(lambda a, b: jnp.where(previous.done, a, b), fresh, state)
        state, step = fenv.step(key, state, action)
        return state, step, jnp.where(previous.done, 0, t) + 1

    return Driver(
        observation_space=fenv.observation_space,
        action_space=fenv.action_space,
        max_steps=fenv.max_steps,
        reset=reset,
        step=step,
        observation=lambda out: out[1].observation,
        reward=lambda out: out[1].reward,
        terminated=lambda out: out[1].terminated,
        truncated=lambda out: out[1].truncated,
        t=lambda out: out[2],
    )


def check_functional(
    env: Any, *, key: Array | None = None, num_steps: int = 96, batch: int = 3
) -> None:
    """Runs the conformance checks on ``env``'s protocol view.

    Args:
        env: an environment with ``as_functional()`` (or a `FunctionalEnv`); its view needs
            ``replace(max_steps=...)`` to shorten the time limit.
        key: PRNG key (default ``PRNGKey(0)``).
        num_steps: length of the scanned rollouts.
        batch: number of environments in the vmapped rollout.
    """
    key = jax.random.PRNGKey(0) if key is None else key
    result = check_driver(_short_driver(env, num_steps), key, num_steps, batch)
    _check_reset_step(result.first[1])


def check_functional_rollout(env: Any, *, key: Array | None = None, num_steps: int = 96) -> None:
    """`check_functional` without the checks that depend only on the code (see `check_rollout`).

    Args:
        env: as in `check_functional`.
        key: PRNG key (default ``PRNGKey(0)``).
        num_steps: length of the scanned rollout.
    """
    key = jax.random.PRNGKey(0) if key is None else key
    _check_reset_step(check_rollout(_short_driver(env, num_steps), key, num_steps).first[1])


def _short_driver(env: Any, num_steps: int) -> Driver:
    """The driver of ``env``'s protocol view with a time limit that ends episodes in a rollout."""
    fenv = functional(env)
    # Not part of `FunctionalEnv`: the views horizax ships add it, for checks like this one.
    replace: Callable[..., FunctionalEnv] | None = getattr(fenv, "replace", None)
    assert callable(replace), "the protocol view needs replace(max_steps=...) for short episodes"
    limit = max(2, min(fenv.max_steps, num_steps // 4))
    short = replace(max_steps=limit)
    assert short.max_steps == limit, "replace(max_steps=...) did not change max_steps"
    return functional_driver(short)


def _check_reset_step(first: Step) -> None:
    assert float(first.reward) == 0.0, "a reset Step must have reward 0"
    assert not bool(first.terminated | first.truncated), "a reset Step must not be done"
