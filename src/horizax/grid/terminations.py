"""Termination functions ``fn(prev_state, action, state) -> bool[]`` (navix's termination API).

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


def on_door_done(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: ``done`` next to the mission's door (GoToDoor's success) (`events.door_done`)."""
    return events.door_done(prev_state, action, state)


def on_target_done(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: ``done`` orthogonally next to the mission's target object (GoToObject's success;
    facing it is not required, as in MiniGrid) (`events.target_done`).
    """
    return events.target_done(prev_state, action, state)


def on_done_action(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the ``done`` action was taken at all (MiniGrid's GoToDoor/GoToObject end on every
    ``done``, near the target or not; not in navix, see docs/gridworld.md)
    (`events.done_action`).
    """
    return events.done_action(prev_state, action, state)


def on_wrong_toggle(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the ``toggle`` action was used at all (GoToObject/GoToDoor's failure)
    (`events.toggle_action`).
    """
    return events.toggle_action(prev_state, action, state)


def on_any_target_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: anything was picked up this step, right or wrong (Fetch; `rewards.on_target_fetched`
    tells which) (`events.any_target_pickup`).
    """
    return events.any_target_pickup(prev_state, action, state)


def on_target_fetched(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the mission's object itself was picked up this step (ObstructedMaze, KeyCorridor,
    UnlockPickup, BlockedUnlockPickup; a wrong pickup does not end the episode)
    (`events.target_fetched`).
    """
    return events.target_fetched(prev_state, action, state)


def on_ordered_doors_resolved(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: RedBlueDoors is decided: the blue door opened, after the red one or not
    (`events.ordered_doors_resolved`).
    """
    return events.ordered_doors_resolved(prev_state, action, state)


def on_put_near_wrong_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: PutNear's failure: an object other than the one to move was picked up
    (`events.put_near_wrong_pickup`).
    """
    return events.put_near_wrong_pickup(prev_state, action, state)


def on_put_near_drop_attempted(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: PutNear ends on any ``drop`` made holding something (success or not, see
    `rewards.on_put_near_success`) (`events.put_near_drop_attempted`).
    """
    return events.put_near_drop_attempted(prev_state, action, state)


def on_memory_success(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent reached Memory's matching object (`events.memory_success`)."""
    return events.memory_success(prev_state, action, state)


def on_memory_failure(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent reached Memory's other object (`events.memory_failure`)."""
    return events.memory_failure(prev_state, action, state)


DEFAULT_TERMINATION = compose(on_goal_reached, on_lava_fall, on_ball_hit)
"""Goal, lava or ball hit: navix's default (an `Environment` uses it unless overridden).

MiniGrid's base ``step`` itself ends episodes on goal and lava only; a ball ends one in
MiniGrid where the family says so (Dynamic-Obstacles). The MiniGrid ids whose balls are
objects to carry (Playground, ...) therefore compose ``on_goal_reached`` and ``on_lava_fall``
alone; the goal families have no balls, so the default and MiniGrid agree on them.
"""
# Pickled by reference under this name (the composed closure has no importable name).
DEFAULT_TERMINATION.__module__ = __name__
DEFAULT_TERMINATION.__qualname__ = "DEFAULT_TERMINATION"

__all__ = [
    "DEFAULT_TERMINATION",
    "check_truncation",
    "compose",
    "on_any_target_pickup",
    "on_ball_hit",
    "on_ball_pickup",
    "on_box_pickup",
    "on_done_action",
    "on_door_done",
    "on_door_open",
    "on_goal_reached",
    "on_lava_fall",
    "on_memory_failure",
    "on_memory_success",
    "on_obstacle_collision",
    "on_ordered_doors_resolved",
    "on_put_near_drop_attempted",
    "on_put_near_wrong_pickup",
    "on_target_done",
    "on_target_fetched",
    "on_wrong_toggle",
]
