"""MiniGrid's action rules, one by one, on hand-built states."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import cells
from horizax.grid import constants as C
from horizax.grid.actions import apply_action, can_edit
from horizax.grid.state import make_state, walled_grid


def _state(front=None, carrying=None, agent=(2, 2), direction=0):
    """7x5 room, agent at (2, 2) facing right; ``front`` is put at (3, 2)."""
    grid = walled_grid(7, 5)
    if front is not None:
        grid[3, 2] = front
    return make_state(grid, jnp.array(agent), jnp.int32(direction), carrying=carrying)


step = jax.jit(apply_action)


def test_turns():
    s = _state()
    assert int(step(s, C.LEFT).agent_dir) == 3
    assert int(step(s, C.RIGHT).agent_dir) == 1


@pytest.mark.parametrize(
    ("front", "moves"),
    [
        (C.EMPTY_CELL, True),
        (C.GOAL_CELL, True),
        (C.LAVA_CELL, True),
        ((C.FLOOR, C.BLUE, 0), True),
        ((C.DOOR, C.RED, C.OPEN), True),
        ((C.DOOR, C.RED, C.CLOSED), False),
        ((C.DOOR, C.RED, C.LOCKED), False),
        (C.WALL_CELL, False),
        ((C.KEY, C.RED, 0), False),
        ((C.BALL, C.RED, 0), False),
        ((C.BOX, C.RED, 0), False),
    ],
)
def test_forward_is_blocked_exactly_by_walls_shut_doors_and_objects(front, moves):
    out = step(_state(front), C.FORWARD)
    assert tuple(np.asarray(out.agent_pos)) == ((3, 2) if moves else (2, 2))


def test_pickup_only_into_an_empty_hand():
    key = (C.KEY, C.YELLOW, 0)
    out = step(_state(key), C.PICKUP)
    np.testing.assert_array_equal(out.carrying, key)
    np.testing.assert_array_equal(out.grid[3, 2], C.EMPTY_CELL)
    full = step(_state(key, carrying=jnp.array((C.BALL, C.RED, 0), jnp.uint8)), C.PICKUP)
    np.testing.assert_array_equal(full.carrying, (C.BALL, C.RED, 0))
    np.testing.assert_array_equal(full.grid[3, 2], key)


def test_pickup_of_non_pickable_does_nothing():
    out = step(_state((C.DOOR, C.RED, C.CLOSED)), C.PICKUP)
    np.testing.assert_array_equal(out.carrying, C.EMPTY_CELL)


def test_drop_only_onto_an_empty_cell():
    ball = jnp.array((C.BALL, C.GREEN, 0), jnp.uint8)
    out = step(_state(carrying=ball), C.DROP)
    np.testing.assert_array_equal(out.grid[3, 2], ball)
    np.testing.assert_array_equal(out.carrying, C.EMPTY_CELL)
    blocked = step(_state(C.GOAL_CELL, carrying=ball), C.DROP)
    np.testing.assert_array_equal(blocked.carrying, ball)
    np.testing.assert_array_equal(blocked.grid[3, 2], C.GOAL_CELL)
    nothing = step(_state(), C.DROP)
    np.testing.assert_array_equal(nothing.grid, _state().grid)


def test_toggle_opens_and_closes_unlocked_doors():
    opened = step(_state((C.DOOR, C.BLUE, C.CLOSED)), C.TOGGLE)
    np.testing.assert_array_equal(opened.grid[3, 2], (C.DOOR, C.BLUE, C.OPEN))
    closed = step(opened, C.TOGGLE)
    np.testing.assert_array_equal(closed.grid[3, 2], (C.DOOR, C.BLUE, C.CLOSED))


def test_locked_door_opens_only_with_a_key_of_its_colour_which_is_kept():
    door = (C.DOOR, C.YELLOW, C.LOCKED)
    yellow_key = jnp.array((C.KEY, C.YELLOW, 0), jnp.uint8)
    out = step(_state(door, carrying=yellow_key), C.TOGGLE)
    np.testing.assert_array_equal(out.grid[3, 2], (C.DOOR, C.YELLOW, C.OPEN))
    np.testing.assert_array_equal(out.carrying, yellow_key)
    for carried in [(C.KEY, C.RED, 0), (C.BALL, C.YELLOW, 0), C.EMPTY_CELL]:
        out = step(_state(door, carrying=jnp.array(carried, jnp.uint8)), C.TOGGLE)
        np.testing.assert_array_equal(out.grid[3, 2], door)


def test_done_and_out_of_range_actions_change_nothing():
    s = _state((C.KEY, C.RED, 0))
    for action in (C.DONE, 7, -1, 100):
        out = step(s, jnp.int32(action))
        for a, b in zip(jax.tree.leaves(out), jax.tree.leaves(s), strict=True):
            np.testing.assert_array_equal(a, b)


def test_box_content_survives_pickup_and_drop_and_toggle_reveals_it():
    box = cells.box_cell(C.BLUE, (C.KEY, C.PURPLE))
    s = step(_state(box), C.PICKUP)
    assert tuple(np.asarray(s.carrying)) == box, "a carried box keeps its content"
    s = step(s, C.DROP)
    assert tuple(np.asarray(s.grid[3, 2])) == box
    s = step(s, C.TOGGLE)
    assert tuple(np.asarray(s.grid[3, 2])) == (C.KEY, C.PURPLE, 0)


def test_toggling_an_empty_box_removes_it():
    s = step(_state(cells.box_cell(C.RED)), C.TOGGLE)
    assert tuple(np.asarray(s.grid[3, 2])) == C.EMPTY_CELL


def test_box_content_is_invisible_in_every_observation():
    from horizax.grid import observations

    box = cells.box_cell(C.BLUE, (C.BALL, C.GREEN))
    s = _state(box, carrying=box)
    for fn in (observations.symbolic_first_person, observations.symbolic_first_person_see_through):
        view = np.asarray(fn(s))
        assert tuple(view[3, 5]) == (C.BOX, C.BLUE, 0), fn.__name__  # the box ahead
        assert tuple(view[3, 6]) == (C.BOX, C.BLUE, 0), fn.__name__  # the one carried
    assert tuple(np.asarray(observations.symbolic(s))[3, 2]) == (C.BOX, C.BLUE, 0)


def test_box_cell_rejects_impossible_contents():
    with pytest.raises(ValueError, match="key, ball or box"):
        cells.box_cell(C.RED, (C.DOOR, C.RED))
    with pytest.raises(ValueError, match="key, ball or box"):
        cells.box_cell(C.RED, (C.KEY, 6))


def test_box_cell_takes_a_traced_content_colour():
    cell = jax.jit(lambda c: jnp.stack(cells.box_cell(C.GREY, (C.KEY, c))))(jnp.int32(C.BLUE))
    assert tuple(np.asarray(cell)) == cells.box_cell(C.GREY, (C.KEY, C.BLUE))


@pytest.mark.parametrize(
    ("objects", "actions", "edits"),
    [
        (None, range(7), True),
        (None, (C.LEFT, C.RIGHT, C.FORWARD), False),  # Dynamic-Obstacles' three actions
        ({C.WALL, C.GOAL, C.LAVA}, range(7), False),  # Empty, the crossings, DistShift
        ({C.WALL, C.KEY, C.BALL}, (C.TOGGLE, C.DROP), False),  # Memory: hands stay empty
        ({C.WALL, C.KEY}, (C.PICKUP,), True),
        ({C.BALL}, (C.PICKUP, C.DROP), True),
        (None, (C.DROP,), True),  # undeclared layouts may hand the agent something
        ({C.DOOR}, (C.PICKUP, C.DROP), False),
        ({C.DOOR}, (C.TOGGLE,), True),
        ({C.BOX}, (C.TOGGLE,), True),
    ],
)
def test_can_edit_is_false_only_where_no_action_changes_any_placed_object(objects, actions, edits):
    kinds = None if objects is None else frozenset(objects)
    assert can_edit(kinds, frozenset(actions)) is edits


@pytest.mark.parametrize("front", [C.EMPTY_CELL, C.WALL_CELL, C.GOAL_CELL, C.LAVA_CELL])
def test_without_edits_every_action_gives_the_same_state(front):
    """Where nothing can be edited, skipping the writes changes no state (and does skip them:
    a key in front would be picked up with them and stays without)."""
    s = _state(front)
    without = jax.jit(functools.partial(apply_action, edits=False))
    for action in (*range(C.NUM_ACTIONS), -1):
        a, b = step(s, jnp.int32(action)), without(s, jnp.int32(action))
        for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
            np.testing.assert_array_equal(x, y)
    kept = without(_state((C.KEY, C.RED, 0)), jnp.int32(C.PICKUP))
    np.testing.assert_array_equal(kept.carrying, C.EMPTY_CELL)
