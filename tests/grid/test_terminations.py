"""Every seed-000 termination function (and its reward) on hand-built transitions.

Each case builds ``prev_state``, applies the action with the real step rule and asks the
function about ``(prev_state, action, state)``; the traps other ports fell into are cases here.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid import events, missions, rewards, terminations
from horizax.grid.actions import apply_action
from horizax.grid.missions import Template
from horizax.grid.state import make_state, walled_grid

KEY_RED = (C.KEY, C.RED, 0)
BALL_RED = (C.BALL, C.RED, 0)
BALL_BLUE = (C.BALL, C.BLUE, 0)
BOX_GREEN = (C.BOX, C.GREEN, 0)
DOOR = {s: (C.DOOR, C.RED, s) for s in (C.OPEN, C.CLOSED, C.LOCKED)}


def _state(objects=(), agent=(2, 2), direction=0, carrying=None, mission=None):
    """7x5 room; ``objects`` is a list of ``(x, y, cell)``; the agent faces right by default."""
    grid = walled_grid(7, 5)
    for x, y, cell in objects:
        grid[x, y] = cell
    mission = missions.encode(Template.NONE) if mission is None else mission
    return make_state(
        grid, jnp.array(agent), jnp.int32(direction), carrying=carrying, mission=mission
    )


def fires(fn, prev, action) -> bool:
    """Whether ``fn`` reports the transition ``prev --action-->`` (jitted once per fn)."""
    state = apply_action(prev, jnp.int32(action)).replace(step_count=prev.step_count + 1)
    return bool(jax.jit(fn)(prev, jnp.int32(action), state))


def test_goal_lava_ball_hit_and_default_termination():
    goal = _state([(3, 2, C.GOAL_CELL)])
    assert fires(terminations.on_goal_reached, goal, C.FORWARD)
    assert not fires(terminations.on_goal_reached, goal, C.LEFT)
    assert fires(terminations.on_lava_fall, _state([(3, 2, C.LAVA_CELL)]), C.FORWARD)
    ball = _state([(3, 2, BALL_RED)])
    assert fires(terminations.on_ball_hit, ball, C.FORWARD)
    assert not fires(terminations.on_ball_hit, ball, C.PICKUP)
    for cell in (C.GOAL_CELL, C.LAVA_CELL, BALL_RED):
        assert fires(terminations.DEFAULT_TERMINATION, _state([(3, 2, cell)]), C.FORWARD)
    assert not fires(terminations.DEFAULT_TERMINATION, _state(), C.FORWARD)


def test_pickup_terminations_need_a_real_pickup_into_an_empty_hand():
    ball, box = _state([(3, 2, BALL_RED)]), _state([(3, 2, BOX_GREEN)])
    assert fires(terminations.on_ball_pickup, ball, C.PICKUP)
    assert fires(terminations.on_box_pickup, box, C.PICKUP)
    assert not fires(terminations.on_box_pickup, ball, C.PICKUP)
    full = _state([(3, 2, BALL_RED)], carrying=jnp.asarray(KEY_RED, jnp.uint8))
    assert not fires(terminations.on_ball_pickup, full, C.PICKUP), "pickup into a full hand"
    # Drop with empty hands in front of a ball: nothing happens, nothing fires.
    for fn in (
        terminations.on_ball_pickup,
        terminations.on_ball_hit,
        terminations.DEFAULT_TERMINATION,
    ):
        assert not fires(fn, ball, C.DROP)


def test_door_open_fires_only_on_a_door_going_open():
    assert fires(terminations.on_door_open, _state([(3, 2, DOOR[C.CLOSED])]), C.TOGGLE)
    assert not fires(terminations.on_door_open, _state([(3, 2, DOOR[C.OPEN])]), C.TOGGLE)
    locked = [(3, 2, DOOR[C.LOCKED])]
    assert not fires(terminations.on_door_open, _state(locked), C.TOGGLE)
    wrong_key = jnp.asarray((C.KEY, C.BLUE, 0), jnp.uint8)
    assert not fires(terminations.on_door_open, _state(locked, carrying=wrong_key), C.TOGGLE)
    red_ball = jnp.asarray(BALL_RED, jnp.uint8)
    assert not fires(terminations.on_door_open, _state(locked, carrying=red_ball), C.TOGGLE), (
        "only a key opens a locked door, not anything of its colour"
    )
    red_key = jnp.asarray(KEY_RED, jnp.uint8)
    prev = _state(locked, carrying=red_key)
    assert fires(terminations.on_door_open, prev, C.TOGGLE)
    after = apply_action(prev, jnp.int32(C.TOGGLE))
    assert tuple(np.asarray(after.carrying)) == KEY_RED, "the key is not consumed"


def _door_mission(x=3, y=2):
    return missions.encode(Template.GO_TO_DOOR, color=C.RED, kind=C.DOOR, pos=(x, y))


@pytest.mark.parametrize("fn", [terminations.on_door_done, terminations.on_target_done])
def test_done_next_to_the_target_counts_whatever_the_agent_faces(fn):
    target = [(3, 2, DOOR[C.CLOSED])]
    for direction in range(4):  # next to it, facing it or not
        assert fires(fn, _state(target, direction=direction, mission=_door_mission()), C.DONE)
    # Facing it is not enough without `done`; diagonal and far cells do not count.
    assert not fires(fn, _state(target, mission=_door_mission()), C.FORWARD)
    assert not fires(fn, _state(target, agent=(2, 1), mission=_door_mission()), C.DONE)
    assert not fires(fn, _state(target, agent=(1, 2), mission=_door_mission()), C.DONE)
    # The mission names the target: done next to another door does not succeed.
    assert not fires(fn, _state(target, mission=_door_mission(5, 3)), C.DONE)


def test_done_and_toggle_actions():
    assert fires(terminations.on_done_action, _state(), C.DONE)
    assert not fires(terminations.on_done_action, _state(), C.TOGGLE)
    assert fires(terminations.on_wrong_toggle, _state(), C.TOGGLE), "toggling nothing counts"
    assert fires(terminations.on_wrong_toggle, _state([(3, 2, DOOR[C.CLOSED])]), C.TOGGLE)
    assert not fires(terminations.on_wrong_toggle, _state(), C.DONE)


def _fetch_mission(colour=C.RED, kind=C.BALL):
    return missions.encode(Template.FETCH, color=colour, kind=kind)


def test_fetch_and_obstructed_maze_pickups():
    right = _state([(3, 2, BALL_RED)], mission=_fetch_mission())
    wrong_colour = _state([(3, 2, BALL_BLUE)], mission=_fetch_mission())
    wrong_kind = _state([(3, 2, KEY_RED)], mission=_fetch_mission())
    for prev in (right, wrong_colour, wrong_kind):
        assert fires(terminations.on_any_target_pickup, prev, C.PICKUP)
        assert not fires(terminations.on_any_target_pickup, prev, C.TOGGLE)
    assert fires(terminations.on_target_fetched, right, C.PICKUP)
    assert not fires(terminations.on_target_fetched, wrong_colour, C.PICKUP)
    assert not fires(terminations.on_target_fetched, wrong_kind, C.PICKUP)
    assert not fires(terminations.on_any_target_pickup, _state(mission=_fetch_mission()), C.PICKUP)
    holding = _state(
        [(3, 2, BALL_RED)], carrying=jnp.asarray(BALL_RED, jnp.uint8), mission=_fetch_mission()
    )
    assert not fires(terminations.on_target_fetched, holding, C.PICKUP), "full hand"


def _put_near_mission(target=(5, 2)):
    return missions.encode(
        Template.PUT_NEAR, color=C.RED, kind=C.KEY, color2=C.GREEN, kind2=C.BOX, pos=target
    )


def test_put_near_pickups_and_drops():
    objects = [(5, 2, BOX_GREEN)]
    move = _state([*objects, (3, 2, KEY_RED)], mission=_put_near_mission())
    assert not fires(terminations.on_put_near_wrong_pickup, move, C.PICKUP)
    other = _state([*objects, (3, 2, BALL_RED)], mission=_put_near_mission())
    assert fires(terminations.on_put_near_wrong_pickup, other, C.PICKUP)
    key = jnp.asarray(KEY_RED, jnp.uint8)
    # Drop at (4, 2) (next to the box at (5, 2)): attempted and successful.
    near = _state(objects, agent=(3, 2), carrying=key, mission=_put_near_mission())
    assert fires(terminations.on_put_near_drop_attempted, near, C.DROP)
    assert float(_reward(rewards.on_put_near_success, near, C.DROP)) == 1.0
    # Diagonal neighbours count (|dx| <= 1 and |dy| <= 1).
    diagonal = _state(objects, agent=(4, 2), direction=1, carrying=key, mission=_put_near_mission())
    assert float(_reward(rewards.on_put_near_success, diagonal, C.DROP)) == 1.0
    far = _state(objects, agent=(1, 2), carrying=key, mission=_put_near_mission())
    assert fires(terminations.on_put_near_drop_attempted, far, C.DROP)
    assert float(_reward(rewards.on_put_near_success, far, C.DROP)) == 0.0
    # A drop into an occupied cell still ends the episode but pays nothing.
    blocked = _state(
        [*objects, (4, 2, BALL_BLUE)], agent=(3, 2), carrying=key, mission=_put_near_mission()
    )
    assert fires(terminations.on_put_near_drop_attempted, blocked, C.DROP)
    assert float(_reward(rewards.on_put_near_success, blocked, C.DROP)) == 0.0
    # Empty hands: a drop is a no-op and fires nothing.
    assert not fires(terminations.on_put_near_drop_attempted, move, C.DROP)


def _reward(fn, prev, action):
    state = apply_action(prev, jnp.int32(action)).replace(step_count=prev.step_count + 1)
    return jax.jit(fn)(prev, jnp.int32(action), state)


def _red_blue(red_state, blue_state):
    mission = missions.encode(Template.RED_BLUE_DOORS, pos=(1, 2), pos2=(3, 2))
    return _state(
        [(1, 2, (C.DOOR, C.RED, red_state)), (3, 2, (C.DOOR, C.BLUE, blue_state))],
        mission=mission,
    )


def test_ordered_doors():
    blue_first = _red_blue(C.CLOSED, C.CLOSED)
    assert fires(terminations.on_ordered_doors_resolved, blue_first, C.TOGGLE)
    assert float(_reward(rewards.on_ordered_doors_success, blue_first, C.TOGGLE)) == 0.0
    red_then_blue = _red_blue(C.OPEN, C.CLOSED)
    assert fires(terminations.on_ordered_doors_resolved, red_then_blue, C.TOGGLE)
    assert float(_reward(rewards.on_ordered_doors_success, red_then_blue, C.TOGGLE)) == 1.0
    assert not fires(terminations.on_ordered_doors_resolved, red_then_blue, C.LEFT)


def test_memory_success_and_failure_are_positions():
    mission = missions.encode(Template.MEMORY, pos=(3, 2), pos2=(3, 3))
    assert fires(terminations.on_memory_success, _state(mission=mission), C.FORWARD)
    assert not fires(terminations.on_memory_failure, _state(mission=mission), C.FORWARD)
    down = _state(agent=(3, 1), direction=1, mission=mission)
    assert not fires(terminations.on_memory_success, down, C.LEFT)
    assert fires(terminations.on_memory_failure, _state(agent=(3, 3), mission=mission), C.LEFT)


def test_rewards_pay_one_and_time_discounted_pays_minigrids_value():
    prev = _state([(3, 2, BOX_GREEN)]).replace(max_steps=jnp.int32(10))
    assert float(_reward(rewards.on_box_pickup, prev, C.PICKUP)) == 1.0
    discounted = rewards.time_discounted(events.box_pickup)
    np.testing.assert_allclose(float(_reward(discounted, prev, C.PICKUP)), 1 - 0.9 * 1 / 10)
    assert float(_reward(discounted, prev, C.LEFT)) == 0.0


def test_every_seed_000_termination_function_exists_and_returns_a_bool_scalar():
    names = [
        "on_goal_reached", "on_lava_fall", "on_ball_hit", "on_ball_pickup", "on_box_pickup",
        "on_door_done", "on_door_open", "on_ordered_doors_resolved", "on_target_done",
        "on_wrong_toggle", "on_any_target_pickup", "on_target_fetched",
        "on_put_near_wrong_pickup", "on_put_near_drop_attempted", "on_memory_success",
        "on_memory_failure",
    ]  # fmt: skip
    prev = _state([(3, 2, BOX_GREEN)])
    state = apply_action(prev, jnp.int32(C.PICKUP))
    for name in names:
        out = getattr(terminations, name)(prev, jnp.int32(C.PICKUP), state)
        assert out.shape == () and out.dtype == jnp.bool_, name
    assert set(names) <= set(terminations.__all__)
