"""Reward functions ``fn(prev_state, action, state) -> f32[]``.

`compose(..., operator=jnp.sum)` adds several. MiniGrid pays ``1 - 0.9 * step_count /
max_steps`` on success (`time_discounted`), where ``step_count`` already counts this step.
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
    """f32[]: MiniGrid's ``_reward()``, ``1 - 0.9 * step_count / max_steps``."""
    return 1.0 - 0.9 * (state.step_count.astype(jnp.float32) / state.max_steps.astype(jnp.float32))


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


on_goal_reached_discounted = time_discounted(events.goal_reached)
on_goal_reached_discounted.__name__ = "on_goal_reached_discounted"
on_goal_reached_discounted.__doc__ = (
    """f32[]: MiniGrid's goal reward ``1 - 0.9 * t / max_steps``."""
)


__all__ = [
    "compose",
    "free",
    "on_goal_reached",
    "on_goal_reached_discounted",
    "on_obstacle_collision",
    "success_value",
    "time_discounted",
]
