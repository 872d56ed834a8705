"""Per-step event detectors: the one place where each rule of the world is decided.

Every detector has the signature ``fn(prev_state, action, state) -> bool[]`` and looks only
at this transition, so events never carry over from one step to the next. Rewards and
terminations (`horizax.grid.rewards`, `horizax.grid.terminations`) are thin views of these.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array

from horizax.grid import constants as C
from horizax.grid import missions as M
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


def _mission_pos(state: State, x_slot: int = M.X, y_slot: int = M.Y) -> Array:
    return jnp.stack([state.mission[x_slot], state.mission[y_slot]])


def _next_to(pos: Array, target: Array) -> Array:
    """bool[]: ``pos`` is one of the four cells orthogonally adjacent to ``target``."""
    return jnp.sum(jnp.abs(pos - target)) == 1


def done_action(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the ``done`` action was taken this step (MiniGrid's GoTo* end on every one)."""
    del prev_state, state
    return jnp.asarray(action) == C.DONE


def toggle_action(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the ``toggle`` action was taken this step, whatever it toggled (or not)."""
    del prev_state, state
    return jnp.asarray(action) == C.TOGGLE


def target_done(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: ``done`` while orthogonally next to the mission's target position.

    MiniGrid's GoToObject/GoToDoor success rule: the agent's cell after the step is one of the
    four neighbours of the target (``mission[X], mission[Y]``); facing it is not required and a
    diagonal neighbour does not count. The target position is the one drawn at reset.
    """
    del prev_state
    return (jnp.asarray(action) == C.DONE) & _next_to(state.agent_pos, _mission_pos(state))


def door_done(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: ``done`` next to the mission's door (GoToDoor; the rule of `target_done`).

    The mission's door is the one at ``mission[X], mission[Y]``, whose colour is
    ``mission[COLOR]``; MiniGrid's doors have distinct colours, so position and colour name
    the same door. Adjacency, not facing, is MiniGrid's criterion: facing a door means
    standing next to it, but standing next to it while facing away also succeeds.
    """
    return target_done(prev_state, action, state)


def _carries_mission_object(state: State) -> Array:
    return (state.carrying[0] == state.mission[M.KIND]) & (
        state.carrying[1] == state.mission[M.COLOR]
    )


def _picked_up_anything(prev_state: State, action: Array, state: State) -> Array:
    return (
        (jnp.asarray(action) == C.PICKUP)
        & (prev_state.carrying[0] == C.EMPTY)
        & (state.carrying[0] != C.EMPTY)
    )


def any_target_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: something was picked up this step, right or wrong (Fetch ends on it)."""
    return _picked_up_anything(prev_state, action, state)


def target_fetched(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the mission's object (``mission[KIND]``, ``mission[COLOR]``) was picked up now.

    Kind and colour identify the target: in every family that uses this rule (Fetch,
    KeyCorridor, UnlockPickup, BlockedUnlockPickup, ObstructedMaze) either the target is the
    only object of its kind and colour, or (Fetch) MiniGrid itself compares kind and colour.
    """
    return _picked_up_anything(prev_state, action, state) & _carries_mission_object(state)


def put_near_wrong_pickup(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: PutNear's failure: an object other than the one to move was picked up now."""
    return _picked_up_anything(prev_state, action, state) & ~_carries_mission_object(state)


def put_near_drop_attempted(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: ``drop`` with something in hand, whether or not the front cell was free.

    MiniGrid's PutNear ends the episode on every drop attempt made holding an object; a
    ``drop`` with empty hands is a no-op and fires nothing.
    """
    del state
    return (jnp.asarray(action) == C.DROP) & (prev_state.carrying[0] != C.EMPTY)


def put_near_success(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the held object was put down within one cell (8-neighbourhood) of the target.

    The drop must have happened (the front cell was free, the hand is now empty); the cell it
    landed on is the front cell, compared with the target's position ``mission[X], mission[Y]``
    as MiniGrid does (``|dx| <= 1 and |dy| <= 1``).
    """
    dropped = put_near_drop_attempted(prev_state, action, state) & (state.carrying[0] == C.EMPTY)
    landed = front_pos(state)
    near = jnp.max(jnp.abs(landed - _mission_pos(state))) <= 1
    return dropped & near


def _door_open(state: State, x_slot: int, y_slot: int) -> Array:
    cell = cell_at(state.grid, _mission_pos(state, x_slot, y_slot))
    return (cell[0] == C.DOOR) & (cell[2] == C.OPEN)


def ordered_doors_resolved(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: RedBlueDoors is decided: the blue door is open (or red opened after blue).

    MiniGrid's rule, with the red door at ``mission[X], mission[Y]`` and the blue door at
    ``mission[X2], mission[Y2]``: the episode ends when the blue door is open after the step,
    success or not; also (only reachable by stepping past the end) when red is open after a
    step that began with blue open.
    """
    del action
    blue_after = _door_open(state, M.X2, M.Y2)
    red_after = _door_open(state, M.X, M.Y)
    blue_before = _door_open(prev_state, M.X2, M.Y2)
    return blue_after | (red_after & blue_before)


def ordered_doors_success(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the blue door is open after a step that began with the red door open."""
    del action
    return _door_open(state, M.X2, M.Y2) & _door_open(prev_state, M.X, M.Y)


def memory_success(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent stands on Memory's success cell (``mission[X], mission[Y]``)."""
    del prev_state, action
    return jnp.all(state.agent_pos == _mission_pos(state))


def memory_failure(prev_state: State, action: Array, state: State) -> Array:
    """bool[]: the agent stands on Memory's failure cell (``mission[X2], mission[Y2]``)."""
    del prev_state, action
    return jnp.all(state.agent_pos == _mission_pos(state, M.X2, M.Y2))
