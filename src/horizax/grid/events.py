"""Per-step event detectors: the one place where each rule of the world is decided.

Every detector has the signature ``fn(prev_state, action, state) -> bool[]`` and looks only
at this transition, so events never carry over from one step to the next. Rewards and
terminations (`horizax.grid.rewards`, `horizax.grid.terminations`) are thin views of these.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array

from horizax.grid import constants as C
from horizax.grid.state import State, cell_at, front_pos


def _front_before(prev_state: State) -> Array:
    return cell_at(prev_state.grid, front_pos(prev_state))


def goal_reached(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent walked onto a goal this step.

    MiniGrid's rule, read as MiniGrid reads it: ``forward`` while the cell in front holds a
    goal (a goal can always be entered). Goals never move or appear during an episode, so the
    cell in front before the step is the cell the agent stands on after it; reading it from
    ``prev_state`` reuses the cell the action itself looked at instead of a second lookup.
    """
    del state
    return (jnp.asarray(action) == C.FORWARD) & (_front_before(prev_state)[0] == C.GOAL)


def lava_fall(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent walked into lava this step (``forward`` with lava in front)."""
    del state
    return (jnp.asarray(action) == C.FORWARD) & (_front_before(prev_state)[0] == C.LAVA)


def ball_hit(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent moved forward into a ball that was in front of it before the step.

    The ball may have moved away meanwhile (Dynamic-Obstacles); what counts is the cell the
    agent faced when it chose ``forward``, as in MiniGrid.
    """
    del state
    return (jnp.asarray(action) == C.FORWARD) & (_front_before(prev_state)[0] == C.BALL)


def obstacle_collision(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: ``forward`` into anything but an empty or goal cell (Dynamic-Obstacles' rule).

    MiniGrid's DynamicObstaclesEnv ends the episode with -1 when the agent moves forward into
    a cell that, before the obstacles moved, held anything other than nothing or the goal --
    walls included.
    """
    del state
    obj = _front_before(prev_state)[0]
    return (jnp.asarray(action) == C.FORWARD) & (obj != C.EMPTY) & (obj != C.GOAL)


def _picked_up(prev_state: State, action: Array, state: State, kind: int) -> Array:
    return (
        (jnp.asarray(action) == C.PICKUP)
        & (prev_state.carrying[0] == C.EMPTY)
        & (state.carrying[0] == kind)
    )


def ball_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: a ball was picked up this step."""
    return _picked_up(prev_state, action, state, C.BALL)


def box_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: a box was picked up this step."""
    return _picked_up(prev_state, action, state, C.BOX)


def key_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: a key was picked up this step."""
    return _picked_up(prev_state, action, state, C.KEY)


def door_opening(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the door in front of the agent went from closed or locked to open this step."""
    fwd = front_pos(prev_state)
    before, after = cell_at(prev_state.grid, fwd), cell_at(state.grid, fwd)
    return (
        (jnp.asarray(action) == C.TOGGLE)
        & (before[0] == C.DOOR)
        & (before[2] != C.OPEN)
        & (after[2] == C.OPEN)
    )
