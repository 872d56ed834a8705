"""Termination functions ``fn(prev_state, action, state) -> bool[]`` (seed 000).

A termination function reports only genuine absorbing states; the time limit is applied
separately by the environment as a truncation, and `check_truncation` merges the two into a
`StepType` (termination wins).
"""

from __future__ import annotations

from jax import Array

from horizax.core.compose import compose
from horizax.core.step_type import check_truncation
from horizax.grid import events
from horizax.grid.state import State


def on_goal_reached(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the goal was reached this step (`events.goal_reached`)."""
    return events.goal_reached(prev_state, action, state)


def on_lava_fall(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent fell into lava this step (`events.lava_fall`)."""
    return events.lava_fall(prev_state, action, state)


def on_ball_hit(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent ran into a ball this step (`events.ball_hit`)."""
    return events.ball_hit(prev_state, action, state)


def on_obstacle_collision(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: Dynamic-Obstacles' collision, walls included (`events.obstacle_collision`)."""
    return events.obstacle_collision(prev_state, action, state)


def on_ball_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: a ball was picked up this step (`events.ball_pickup`)."""
    return events.ball_pickup(prev_state, action, state)


def on_box_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: a box was picked up this step (`events.box_pickup`)."""
    return events.box_pickup(prev_state, action, state)


def on_door_open(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: a door was opened this step (`events.door_opening`)."""
    return events.door_opening(prev_state, action, state)


DEFAULT_TERMINATION = compose(on_goal_reached, on_lava_fall, on_ball_hit)
"""Goal, lava or ball hit: MiniGrid's default terminal conditions."""

__all__ = [
    "DEFAULT_TERMINATION",
    "check_truncation",
    "compose",
    "on_ball_hit",
    "on_ball_pickup",
    "on_box_pickup",
    "on_door_open",
    "on_goal_reached",
    "on_lava_fall",
    "on_obstacle_collision",
]
