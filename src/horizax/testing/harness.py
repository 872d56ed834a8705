"""The checks every environment API shares, written once over a `Driver`.

A `Driver` says how to reset and step one API (the gridworld's `Timestep` API, the core
functional protocol) and where its outputs keep the observation, reward, flags and episode
step counter. `check_driver` then verifies, on it:

* ``reset`` and ``step`` work under `jax.jit` and each is traced exactly once across calls
  with new keys and actions;
* a batch of rollouts (a `jax.lax.scan` of `jax.vmap`-ped steps) is the same for the same
  keys, and each environment's rollout equals the same episode played one jitted call at a
  time;
* observations lie in ``observation_space`` at every step (dtypes and shapes included);
  rewards are finite f32;
* episode boundaries: ``terminated`` and ``truncated`` are never both set, truncation happens
  only at the time limit, the time limit always ends the episode, no episode runs past it,
  and at least two episodes end inside the rollout.

`check_rollout` runs the checks of one unbatched rollout alone (those that depend on an
environment's constants), without the vmap and trace-count checks (which depend only on its
code), for a test suite checking many environments that share code.

Failures raise `AssertionError` naming the broken property.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.spaces import Text

__all__ = [
    "Driver",
    "Rollout",
    "assert_in_space",
    "batched_rollout",
    "check_driver",
    "check_rollout",
    "count_traces",
    "rollout",
    "stepped_rollout",
]


def count_traces(fn: Callable[..., Any]) -> tuple[Callable[..., Any], list[int]]:
    """``jax.jit(fn)`` and a one-element list counting how often it was traced."""
    counter = [0]

    def counted(*args: Any) -> Any:
        counter[0] += 1
        return fn(*args)

    return jax.jit(counted), counter


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
    if isinstance(space, Text):  # the arrays carried inside `jit` lie in its encoded space
        space = space.encoded
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
    # Written as "not inside" so that NaN, which compares False with every bound, is outside.
    bad = ~((arr >= low) & (arr <= high))
    assert not bad.any(), f"observation outside its space at {int(bad.sum())} entries ({where})"


@dataclasses.dataclass(frozen=True)
class Driver:
    """One environment API, as the shared checks drive it.

    Attributes:
        observation_space: the space every observation lies in.
        action_space: a `horizax.core.spaces.Discrete` or ``Box`` the random actions are
            drawn from.
        max_steps: the time limit the checks expect episodes to truncate at.
        reset: ``key -> out``, a fresh episode.
        step: ``(key, out, action) -> out`` from the previous output; rollouts call it after
            an episode ended too, so it restarts however the API promises to.
        observation: the observation of an output.
        reward: the reward of an output.
        terminated: bool[] of an output: an absorbing state was reached.
        truncated: bool[] of an output: the time limit ended the episode.
        t: i32[] of an output: steps taken in its episode (0 right after a reset).
    """

    observation_space: Any
    action_space: Any
    max_steps: int
    reset: Callable[[Array], Any]
    step: Callable[[Array, Any, Array], Any]
    observation: Callable[[Any], Any]
    reward: Callable[[Any], Array]
    terminated: Callable[[Any], Array]
    truncated: Callable[[Any], Array]
    t: Callable[[Any], Array]


class Rollout(NamedTuple):
    """A scanned rollout: the reset output and the stacked outputs of ``num_steps`` steps."""

    first: Any
    outs: Any


def _rollout_inputs(action_space: Any, key: Array, num_steps: int) -> tuple[Array, Array, Array]:
    """The reset key, the ``num_steps`` random actions and the step keys of a rollout."""
    reset_key, action_key, step_key = jax.random.split(key, 3)
    actions = action_space.sample(action_key, (num_steps,))
    return reset_key, actions, jax.random.split(step_key, num_steps)


@functools.lru_cache(maxsize=16)
def _jitted_rollout_inputs(action_space: Any, num_steps: int) -> Callable[[Array], Any]:
    # One program per action space and length, not one per call: the checks of every
    # environment with, say, seven discrete actions draw their inputs with it.
    return jax.jit(lambda key: _rollout_inputs(action_space, key, num_steps))


def _inputs_program(action_space: Any, num_steps: int) -> Callable[[Array], Any]:
    try:
        return _jitted_rollout_inputs(action_space, num_steps)
    except TypeError:  # an unhashable space (a Box with array bounds): a program per call
        return _jitted_rollout_inputs.__wrapped__(action_space, num_steps)


def _scan_steps(step: Callable[[Array, Any, Array], Any], first: Any, inputs: Any) -> Any:
    """Every output of ``step`` scanned from ``first`` over ``(actions, keys)``, stacked."""

    def body(out: Any, inputs: tuple[Array, Array]) -> tuple[Any, Any]:
        action, step_key = inputs
        nxt = step(step_key, out, action)
        return nxt, nxt

    return jax.lax.scan(body, first, inputs)[1]


def rollout(driver: Driver, key: Array, num_steps: int) -> Rollout:
    """``num_steps`` uniformly random actions from a reset, as one `jax.lax.scan`."""
    reset_key, actions, keys = _rollout_inputs(driver.action_space, key, num_steps)
    first = driver.reset(reset_key)
    return Rollout(first, _scan_steps(driver.step, first, (actions, keys)))


def batched_rollout(driver: Driver, keys: Array, num_steps: int) -> Rollout:
    """`rollout` of each of ``keys`` (a leading batch axis ``B``), as one scan of vmapped steps.

    The same rollouts as ``jax.vmap(lambda k: rollout(driver, k, num_steps))(keys)``, with
    the batch axis first in every output. Why not that `vmap` of a scan: `vmap` batches the
    scan's body by tracing it again until its carries' batching settles, which re-runs
    the autoreset's custom batching rule each time; a scan of a vmapped step traces the
    step once.
    """
    inputs = jax.vmap(lambda key: _rollout_inputs(driver.action_space, key, num_steps))
    reset_keys, actions, step_keys = inputs(keys)
    first = jax.vmap(driver.reset)(reset_keys)
    time_major = jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), (actions, step_keys))
    outs = _scan_steps(jax.vmap(driver.step), first, time_major)
    return Rollout(first, jax.tree.map(lambda x: jnp.swapaxes(x, 0, 1), outs))


def _to_host(x: Any) -> np.ndarray:
    """A leaf as numpy; a typed PRNG key array (`jax.random.key`) as its key data, which
    numpy can hold."""
    if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        x = jax.random.key_data(x)
    return np.asarray(x)


def stepped_rollout(
    driver: Driver,
    reset: Callable[[Array], Any],
    step: Callable[[Array, Any, Array], Any],
    key: Array,
    num_steps: int,
) -> Rollout:
    """`rollout`'s episode played one call at a time: ``reset`` once, then ``step`` in Python.

    Args:
        driver: the API whose random actions and keys the rollout draws.
        reset: ``driver.reset``, or a jitted version of it.
        step: ``driver.step``, or a jitted version of it.
        key: PRNG key of the rollout, as `rollout` takes it.
        num_steps: number of steps.

    Returns:
        The same `Rollout` as ``rollout(driver, key, num_steps)``, as numpy arrays (typed
        PRNG keys as their key data).
    """
    reset_key, actions, keys = _inputs_program(driver.action_space, num_steps)(key)
    first = reset(reset_key)
    out, outs = first, []
    for i in range(num_steps):
        out = step(keys[i], out, actions[i])
        outs.append(jax.tree.map(_to_host, out))
    stacked = jax.tree.map(lambda *leaves: np.stack(leaves), *outs)
    return Rollout(jax.tree.map(_to_host, first), stacked)


def _assert_same(a: Any, b: Any, message: str, index: int | None = None) -> None:
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        x = _to_host(x) if index is None else _to_host(x)[index]
        np.testing.assert_array_equal(x, _to_host(y), message)


def _check_traces_once(driver: Driver) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Checks each of jit(reset) and jit(step) traces once; returns the two jitted functions."""
    reset, reset_traces = count_traces(driver.reset)
    step, step_traces = count_traces(driver.step)
    out = reset(jax.random.PRNGKey(1))
    for i in range(3):
        # New action values (same shape and dtype) on every call must not retrace.
        action = driver.action_space.sample(jax.random.PRNGKey(20 + i))
        out = step(jax.random.PRNGKey(10 + i), out, action)
        out = reset(jax.random.PRNGKey(2 + i)) if i == 1 else out
    assert reset_traces[0] == 1, f"jit(reset) traced {reset_traces[0]} times, expected 1"
    assert step_traces[0] == 1, f"jit(step) traced {step_traces[0]} times, expected 1"
    return reset, step


def _check_boundaries(driver: Driver, outs: Any) -> None:
    terminated = np.asarray(driver.terminated(outs))
    truncated = np.asarray(driver.truncated(outs))
    t = np.asarray(driver.t(outs))
    limit = driver.max_steps
    assert terminated.dtype == truncated.dtype == np.bool_, "terminated/truncated must be bool"
    ended = terminated | truncated
    assert not (terminated & truncated).any(), "terminated and truncated on the same step"
    assert not (truncated & (t < limit)).any(), "truncation before the time limit"
    assert ended[t >= limit].all(), "the time limit did not end the episode"
    assert (t <= limit).all(), f"an episode ran past the time limit ({t.max()} > {limit})"
    assert ended.sum() >= 2, "fewer than two episodes ended in the rollout"


def check_rollout(driver: Driver, key: Array, num_steps: int) -> Rollout:
    """The checks of `check_driver` on one jitted scan rollout, without vmap or trace counts.

    ``reset`` and ``step`` work under `jax.jit` and `jax.lax.scan`, the same key gives the
    same rollout, observations lie in their space, rewards are finite f32, and the episode
    boundaries hold. These are the checks that depend on an environment's constants (its
    size, time limit, layout distribution); `check_driver` adds those that depend only on its
    code. Raises `AssertionError` on the first failure.

    Args:
        driver: the API to check, with a time limit short enough for episodes to end.
        key: PRNG key of the rollout.
        num_steps: length of the scanned rollout.

    Returns:
        The rollout from ``key``.
    """
    run = jax.jit(lambda k: rollout(driver, k, num_steps))
    result = run(key)
    _assert_same(result, run(key), "same key, different rollout")
    _check_outputs(driver, result, batch_ndim=0)
    _check_boundaries(driver, result.outs)
    return result


def _check_outputs(driver: Driver, result: Rollout, batch_ndim: int) -> None:
    """Observations in their space, finite f32 rewards (``batch_ndim`` leading batch axes)."""
    space = driver.observation_space
    assert_in_space(space, driver.observation(result.first), batch_ndim, "reset")
    assert_in_space(space, driver.observation(result.outs), batch_ndim + 1, "rollout")
    rewards = np.asarray(driver.reward(result.outs))
    assert rewards.dtype == np.float32, f"reward dtype {rewards.dtype}, expected float32"
    assert np.isfinite(rewards).all(), "non-finite reward"


def check_driver(driver: Driver, key: Array, num_steps: int, batch: int) -> Rollout:
    """Runs the shared checks on ``driver``; raises `AssertionError` on the first failure.

    Three programs: jit(reset) and jit(step), traced once each across calls, and a jitted
    scan of vmapped steps over ``batch`` rollouts (`batched_rollout`). The batch is checked
    as `check_rollout` checks one rollout (same keys, same rollouts; spaces; rewards; every
    environment's episode boundaries), and its last environment must equal the same episode
    played one jitted call at a time (`stepped_rollout`): vmap and scan change nothing.

    Args:
        driver: the API to check, with a time limit short enough for episodes to end.
        key: PRNG key of the rollouts (split into ``batch`` keys).
        num_steps: length of the scanned rollouts.
        batch: number of environments in the vmapped rollout.

    Returns:
        The last environment's rollout (from the last of the ``batch`` keys), played one
        call at a time, for the checks an API adds of its own.
    """
    reset, step = _check_traces_once(driver)
    keys = jax.random.split(key, batch)
    run = jax.jit(lambda k: batched_rollout(driver, k, num_steps))
    batched = run(keys)
    _assert_same(batched, run(keys), "same keys, different rollouts")
    _check_outputs(driver, batched, batch_ndim=1)
    for i in range(batch):
        _check_boundaries(driver, jax.tree.map(lambda x, i=i: _to_host(x)[i], batched.outs))
    single = stepped_rollout(driver, reset, step, keys[batch - 1], num_steps)
    _assert_same(batched, single, "vmap or scan differs from stepping", index=batch - 1)
    return single
