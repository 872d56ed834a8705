"""`check_functional`: `check_env`'s contract, checked through the core functional protocol.

Used by `check_env` for environments that are not gridworlds (the Maze, ...): it takes the
protocol view (`horizax.core.protocol.functional`) with a short time limit and verifies

* ``reset`` and ``step`` work under `jax.jit`, `jax.vmap` and `jax.lax.scan`, and each jitted
  function is traced exactly once across calls with new keys and actions;
* the same key gives the same trajectory, and a vmapped batch equals per-env rollouts;
* observations lie in ``observation_space`` at every step (dtypes and shapes included);
  rewards are finite f32, flags are bool, a reset's `Step` has reward 0 and no flag set;
* episode boundaries: ``terminated`` and ``truncated`` are never both set, truncation happens
  exactly when the episode reaches ``max_steps`` without terminating, and several episodes
  end inside the rollout (the check resets after every ending itself; the protocol never does).

Failures raise `AssertionError` naming the broken property.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from horizax.core.protocol import functional


def count_traces(fn: Any) -> tuple[Any, list[int]]:
    """``jax.jit(fn)`` and a one-element list counting how often it was traced."""
    counter = [0]

    def counted(*args: Any) -> Any:
        counter[0] += 1
        return fn(*args)

    return jax.jit(counted), counter


def _rollout(fenv: Any, key: jax.Array, num_steps: int) -> tuple[Any, Any, jax.Array]:
    """Random actions for ``num_steps``; the check resets after each ending.

    Returns the reset `Step`, the stacked step `Step`s, and i32[T] episode step counters.
    """
    reset_key, action_key, restart_key = jax.random.split(key, 3)
    state, first = fenv.reset(reset_key)
    actions = fenv.action_space.sample(action_key, (num_steps,))
    keys = jax.random.split(restart_key, num_steps)

    def body(carry: Any, inputs: Any) -> tuple[Any, Any]:
        state, t, ended = carry
        action, step_key = inputs
        fresh, _ = fenv.reset(step_key)
        state = jax.tree.map(lambda a, b: jnp.where(ended, a, b), fresh, state)
        t = jnp.where(ended, 0, t)
        state, step = fenv.step(step_key, state, action)
        return (state, t + 1, step.terminated | step.truncated), (step, t + 1)

    init = (state, jnp.int32(0), jnp.asarray(False))
    _, (steps, t) = jax.lax.scan(body, init, (actions, keys))
    return first, steps, t


def assert_in_space(space: Any, value: Any, batch_ndim: int, where: str) -> None:
    """Numpy membership check of a value with ``batch_ndim`` leading batch axes."""
    if isinstance(getattr(space, "spaces", None), Mapping):
        assert isinstance(value, Mapping), f"observation is not a dict ({where})"
        assert set(value) == set(space.spaces), (
            f"observation keys {sorted(value)} != space keys {sorted(space.spaces)} ({where})"
        )
        for name, sub in space.spaces.items():
            assert_in_space(sub, value[name], batch_ndim, f"{where}, {name!r}")
        return
    arr = np.asarray(value)
    shape = tuple(getattr(space, "shape", ()))
    assert arr.dtype == np.dtype(space.dtype), (
        f"observation dtype {arr.dtype} != space dtype {np.dtype(space.dtype)} ({where})"
    )
    assert arr.shape[batch_ndim:] == shape, (
        f"observation shape {arr.shape[batch_ndim:]} != space shape {shape} ({where})"
    )
    if hasattr(space, "n"):
        low, high = np.zeros(shape, np.int64), np.full(shape, space.n - 1)
    else:
        low = np.broadcast_to(np.asarray(space.low), shape)
        high = np.broadcast_to(np.asarray(space.high), shape)
    bad = (arr < low) | (arr > high)
    assert not bad.any(), f"observation outside its space at {int(bad.sum())} entries ({where})"


def check_functional(
    env: Any, *, key: jax.Array | None = None, num_steps: int = 96, batch: int = 3
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
    fenv = functional(env)
    limit = max(2, min(fenv.max_steps, num_steps // 4))
    short = fenv.replace(max_steps=limit)
    assert short.max_steps == limit, "replace(max_steps=...) did not change max_steps"

    # One trace per jitted function, across new keys and actions.
    reset, reset_traces = count_traces(short.reset)
    step, step_traces = count_traces(short.step)
    state, _ = reset(jax.random.PRNGKey(1))
    for i in range(3):
        action = jnp.asarray(i % short.action_space.n, short.action_space.dtype)
        state, _ = step(jax.random.PRNGKey(10 + i), state, action)
        state = reset(jax.random.PRNGKey(2 + i))[0] if i == 1 else state
    assert reset_traces[0] == 1, f"jit(reset) traced {reset_traces[0]} times, expected 1"
    assert step_traces[0] == 1, f"jit(step) traced {step_traces[0]} times, expected 1"

    # Scan rollout, deterministic per key.
    rollout = jax.jit(lambda k: _rollout(short, k, num_steps))
    first, steps, t = rollout(key)
    again = rollout(key)
    for a, b in zip(jax.tree.leaves((first, steps, t)), jax.tree.leaves(again), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), "same key, different rollout")

    assert_in_space(short.observation_space, first.observation, 0, "reset")
    assert_in_space(short.observation_space, steps.observation, 1, "rollout")
    assert float(first.reward) == 0.0, "a reset Step must have reward 0"
    assert not bool(first.terminated | first.truncated), "a reset Step must not be done"
    rewards = np.asarray(steps.reward)
    assert rewards.dtype == np.float32, f"reward dtype {rewards.dtype}, expected float32"
    assert np.isfinite(rewards).all(), "non-finite reward"
    terminated, truncated = np.asarray(steps.terminated), np.asarray(steps.truncated)
    assert terminated.dtype == truncated.dtype == np.bool_, "terminated/truncated must be bool"

    # Episode boundaries.
    t = np.asarray(t)
    assert not (terminated & truncated).any(), "terminated and truncated on the same step"
    assert not (truncated & (t < limit)).any(), "truncation before the time limit"
    at_limit = t >= limit
    assert (terminated | truncated)[at_limit].all(), "the time limit did not end the episode"
    assert (t <= limit).all(), f"an episode ran past the time limit ({t.max()} > {limit})"
    assert (terminated | truncated).sum() >= 2, "fewer than two episodes ended in the rollout"

    # vmap: a batch equals per-environment rollouts with the same keys.
    keys = jax.random.split(key, batch)
    batched = jax.jit(jax.vmap(lambda k: _rollout(short, k, num_steps)))(keys)
    single = rollout(keys[batch - 1])
    for a, b in zip(jax.tree.leaves(batched), jax.tree.leaves(single), strict=True):
        np.testing.assert_array_equal(np.asarray(a)[batch - 1], np.asarray(b), "vmap differs")
