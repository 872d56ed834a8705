"""The seven MiniGrid actions as one branch-free, pure ``(state, action) -> state`` function.

Rules (Farama MiniGrid 3.2.0 ``MiniGridEnv.step``):

* ``left``/``right`` turn by 90 degrees.
* ``forward`` moves onto the front cell if it can be overlapped (empty, floor, goal, lava,
  open door); walls, shut doors and objects block.
* ``pickup`` takes a key, ball or box from the front cell, only into an empty hand.
* ``drop`` puts the carried object on the front cell, only if that cell is empty.
* ``toggle`` opens/closes a door; a locked door opens only with a key of its colour, which
  is kept (only the colour matters, and only a key). Toggling a box replaces it with its
  content, or with nothing (`cells.box_content`).
* ``done`` does nothing.

Every candidate outcome is computed and one is selected, so there is no `lax.cond` and the
function costs the same under `vmap`. Actions outside ``[0, 7)`` change nothing but the step
count (they match none of the rules), which is what MiniGrid does for ``done``.

An environment whose agent can never change a cell (`can_edit`: none of its actions can
change any object its layouts place) steps with ``edits=False``: the grid and the hands are
passed through untouched. The states are the same; the compiled step no longer writes the
grid, so XLA carries it through a `lax.scan` without copying it.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array

from horizax.grid import cells
from horizax.grid import constants as C
from horizax.grid.state import State, cell_at, front_pos

# The kinds each editing action can change: pickup takes a key, ball or box (the only kinds
# ever carried); toggle opens a door or a box; drop puts back what pickup took.
_CARRIED = frozenset({C.KEY, C.BALL, C.BOX})
EDITED_BY = {C.PICKUP: _CARRIED, C.TOGGLE: frozenset({C.DOOR, C.BOX})}


def can_edit(objects: frozenset[int] | None, actions: frozenset[int]) -> bool:
    """Whether an agent could ever change a cell or its hands.

    Args:
        objects: the object kinds (`constants` indices) the layouts may place on the grid,
            where the agent starts empty-handed; None for unknown (any kind, and the hands
            may start full).
        actions: the MiniGrid actions a step may apply (after any remapping and the
            out-of-range fallback).

    Returns:
        True when some action in ``actions`` can change some kind in ``objects``. Drop
        changes a cell only after a pickup could fill the hands.
    """
    if objects is None:
        return bool(actions & {C.PICKUP, C.DROP, C.TOGGLE})
    return any(objects & EDITED_BY[a] for a in actions if a in EDITED_BY)


def apply_action(state: State, action: Array, *, edits: bool = True) -> State:
    """Applies one MiniGrid action; does not touch ``step_count`` or the key.

    Args:
        state: the current state.
        action: i32[], a MiniGrid action index.
        edits: False where `can_edit` is False: pickup, drop and toggle are known to change
            nothing, so the grid and ``carrying`` are returned as they are.

    Returns:
        The next state.
    """
    action = jnp.asarray(action, jnp.int32)
    fwd = front_pos(state)
    fwd_cell = cell_at(state.grid, fwd)

    new_dir = jnp.where(
        action == C.LEFT,
        (state.agent_dir + 3) % 4,
        jnp.where(action == C.RIGHT, (state.agent_dir + 1) % 4, state.agent_dir),
    )
    moves = (action == C.FORWARD) & cells.can_overlap(fwd_cell)
    new_pos = jnp.where(moves, fwd, state.agent_pos)
    if not edits:
        return state.replace(agent_pos=new_pos, agent_dir=new_dir)

    obj, colour, door_state = fwd_cell[0], fwd_cell[1], fwd_cell[2]
    carrying = state.carrying
    hands_empty = carrying[0] == C.EMPTY
    picks_up = (action == C.PICKUP) & cells.can_pickup(fwd_cell) & hands_empty
    drops = (action == C.DROP) & (obj == C.EMPTY) & ~hands_empty
    toggles = action == C.TOGGLE
    is_door = obj == C.DOOR
    has_matching_key = (carrying[0] == C.KEY) & (carrying[1] == colour)
    toggled_door_state = jnp.where(
        door_state == C.LOCKED,
        jnp.where(has_matching_key, C.OPEN, C.LOCKED),
        jnp.where(door_state == C.OPEN, C.CLOSED, C.OPEN),
    ).astype(jnp.uint8)
    toggled_door = jnp.stack([obj, colour, toggled_door_state])
    opens_box = toggles & (obj == C.BOX)

    empty_cell = jnp.asarray(C.EMPTY_CELL, jnp.uint8)
    new_fwd_cell = jnp.where(
        picks_up,
        empty_cell,
        jnp.where(
            opens_box,
            cells.box_content(fwd_cell),
            jnp.where(drops, carrying, jnp.where(toggles & is_door, toggled_door, fwd_cell)),
        ),
    )
    new_carrying = jnp.where(picks_up, fwd_cell, jnp.where(drops, empty_cell, carrying))
    return state.replace(
        grid=cells.write_cell(state.grid, fwd, new_fwd_cell),
        agent_pos=new_pos,
        agent_dir=new_dir,
        carrying=new_carrying,
    )
