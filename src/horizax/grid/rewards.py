"""Reward functions ``fn(prev_state, action, state) -> f32[]``.

`compose(..., operator=jnp.sum)` adds several. The ``on_<event>`` functions pay 1.0 when their
event fires (navix's convention); MiniGrid pays ``1 - 0.9 * step_count / max_steps`` on success,
which `time_discounted` builds from any of them (``step_count`` already counts this step):
every MiniGrid id uses ``time_discounted(<its success event>)``.
"""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp
from jax import Array

from horizax.core.compose import compose
from horizax.grid import events
from horizax.grid.state import State

RewardFn = Callable[[State, Array, State], Array]


def free(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: always 0."""
    del prev_state, action, state
    return jnp.float32(0.0)


def on_goal_reached(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when the goal is reached this step, else 0.0 (navix's undiscounted reward)."""
    return events.goal_reached(prev_state, action, state).astype(jnp.float32)


def success_value(state: State) -> Array:
    """f32[]: MiniGrid's ``_reward()``, ``1 - 0.9 * step_count / max_steps``.

    Bit for bit what MiniGrid's float64 value rounds to in float32: the value is the ratio of
    two integers, ``(10 * max_steps - 9 * step_count) / (10 * max_steps)``, divided exactly
    (`_rounded_ratio`). Float32 arithmetic would not do: XLA turns a division by a limit it
    knows into a multiplication by the reciprocal and may fuse into FMAs, so the rounding of
    ``1 - 0.9 * t / T`` in float32 changes with the program around it, and is off by an ulp for
    about two of five ``(t, T)`` pairs. Exact for ``0 <= step_count <= max_steps < 419_430``;
    within an ulp beyond (past the limit, with autoreset off, it goes on falling below 0).
    """
    ten_t = 10 * state.max_steps.astype(jnp.int32)
    return _rounded_ratio(ten_t - 9 * state.step_count.astype(jnp.int32), ten_t)


_FRACTION_BITS = (10, 10, 9)  # 29 bits of n / d: 26 significant ones from n / d >= 1/16
_EXACT_DENOMINATOR = 2**22  # (d - 1) << 10 must fit in uint32


def _rounded_ratio(numerator: Array, denominator: Array) -> Array:
    """f32[]: ``numerator / denominator`` correctly rounded, for ``0 <= n <= d``, ``n / d >= 1/16``.

    Long division in integers gives ``floor(n * 2**29 / d)`` and a remainder; a nonzero
    remainder sets the last bit (rounding to odd, two bits below float32's 24), so converting
    that integer to float32, which rounds to nearest, rounds the exact ratio correctly. Integer
    operations and the conversion are exact on every backend, whatever XLA fuses.
    """
    n = numerator.astype(jnp.uint32)
    d = jnp.maximum(denominator, 1).astype(jnp.uint32)
    quotient, remainder = jnp.uint32(0), n
    for bits in _FRACTION_BITS:
        shifted = remainder << bits
        digit = shifted // d
        quotient = (quotient << bits) | digit
        remainder = shifted - digit * d
    odd = quotient | (remainder != 0).astype(jnp.uint32)
    exact = odd.astype(jnp.float32) * jnp.float32(2.0 ** -sum(_FRACTION_BITS))
    rough = numerator.astype(jnp.float32) / denominator.astype(jnp.float32)
    in_range = (numerator >= 0) & (16 * numerator >= denominator)
    return jnp.where(in_range & (denominator < _EXACT_DENOMINATOR), exact, rough)


def time_discounted(event: RewardFn) -> RewardFn:
    """Pays MiniGrid's success reward `success_value` on the steps where ``event`` fires.

    Args:
        event: an event detector (bool[]) or 0/1 reward function.

    Returns:
        A reward function producing f32[].
    """

    def reward(prev_state: State, action: Array, state: State) -> Array:
        success = jnp.asarray(event(prev_state, action, state)).astype(bool)
        return jnp.where(success, success_value(state), 0.0).astype(jnp.float32)

    reward.__name__ = f"time_discounted({getattr(event, '__name__', 'event')})"
    return reward


def on_obstacle_collision(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: -1.0 on a Dynamic-Obstacles collision (`events.obstacle_collision`), else 0."""
    return -events.obstacle_collision(prev_state, action, state).astype(jnp.float32)


def on_door_done(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when ``done`` next to the mission's door (`events.door_done`), else 0.0."""
    return events.door_done(prev_state, action, state).astype(jnp.float32)


def on_door_open(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when a door was opened this step (`events.door_opening`), else 0.0."""
    return events.door_opening(prev_state, action, state).astype(jnp.float32)


def on_box_pickup(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when a box was picked up this step (`events.box_pickup`), else 0.0."""
    return events.box_pickup(prev_state, action, state).astype(jnp.float32)


def on_ordered_doors_success(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when RedBlueDoors' success: blue opened after red
    (`events.ordered_doors_success`), else 0.0.
    """
    return events.ordered_doors_success(prev_state, action, state).astype(jnp.float32)


def on_target_done(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when ``done`` next to GoToObject's target (`events.target_done`), else 0.0."""
    return events.target_done(prev_state, action, state).astype(jnp.float32)


def on_target_fetched(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when the mission's object was picked up (`events.target_fetched`), else 0.0."""
    return events.target_fetched(prev_state, action, state).astype(jnp.float32)


def on_put_near_success(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when the object was put down next to PutNear's target
    (`events.put_near_success`), else 0.0.
    """
    return events.put_near_success(prev_state, action, state).astype(jnp.float32)


def on_memory_success(prev_state: State, action: Array, state: State) -> Array:
    """f32[]: 1.0 when Memory's matching object was reached (`events.memory_success`), else 0.0."""
    return events.memory_success(prev_state, action, state).astype(jnp.float32)


on_goal_reached_discounted = time_discounted(events.goal_reached)
on_goal_reached_discounted.__name__ = "on_goal_reached_discounted"
# Pickled by reference under this name (the closure itself has no importable name).
on_goal_reached_discounted.__qualname__ = "on_goal_reached_discounted"
on_goal_reached_discounted.__doc__ = (
    """f32[]: MiniGrid's goal reward ``1 - 0.9 * t / max_steps``."""
)


__all__ = [
    "compose",
    "free",
    "on_box_pickup",
    "on_door_done",
    "on_door_open",
    "on_goal_reached",
    "on_goal_reached_discounted",
    "on_memory_success",
    "on_obstacle_collision",
    "on_ordered_doors_success",
    "on_put_near_success",
    "on_target_done",
    "on_target_fetched",
    "success_value",
    "time_discounted",
]
