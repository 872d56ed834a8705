"""LockedRoom: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs import lockedroom as L
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs import scripted_play as play

ENV_ID = "MiniGrid-LockedRoom-v0"
N_LAYOUTS = 4000


def mission_of(mg) -> np.ndarray:
    """MiniGrid's mission as an array: the locked room's colour, then the key room's."""
    words = mg.mission.split()  # "get the {c} key from the {c2} room, unlock ..."
    return np.asarray(
        missions.encode(
            missions.Template.LOCKED_ROOM,
            color=C.COLOR_NAMES.index(words[2]),
            color2=C.COLOR_NAMES.index(words[6]),
        )
    )


@pytest.mark.reference
def test_configuration_matches_minigrid():
    bridge.assert_same_configuration(ENV_ID)


def _locked_door(sim):
    (room,) = [room for room in sim.rooms if room.locked]
    return room.doorPos


def _key(sim):
    keys = play.positions(sim, "key")
    return keys[0] if keys else None


def _closed_key_room_door(sim):
    """The door of the room holding the key, if that door is shut."""
    key = _key(sim)
    if key is None:
        return None
    for room in sim.rooms:
        (tx, ty), (sx, sy) = room.top, room.size
        if tx < key[0] < tx + sx - 1 and ty < key[1] < ty + sy - 1:
            door = sim.grid.get(*room.doorPos)
            return None if door.is_open else room.doorPos
    return None


def _goal(sim):
    return play.positions(sim, "goal")[0]


def solver(fail_first: bool, extras: bool) -> play.PolicyFactory:
    """Key room door, key, locked door, goal; optionally a first try at the locked door with
    empty hands, and extra interactions (toggle/drop/re-pickup of the key; drop, pickup into a
    full hand, then unlock, close and reopen at the locked door)."""
    T, P, D = C.TOGGLE, C.PICKUP, C.DROP
    steps = [(_locked_door, [T, P, D])] if fail_first else []
    steps += [
        (_closed_key_room_door, [T]),
        (_key, [T, P, D, P] if extras else [P]),
        (_locked_door, [D, P, T, T, T] if extras else [T]),
        (_goal, [C.FORWARD]),
    ]
    return play.sequence(*steps)


@pytest.mark.reference
def test_lockstep_with_minigrid():
    """Random actions until the time limit, then noisy guided episodes that fetch the key,
    unlock the locked door (after failing without the key in some) and reach the goal."""
    env, mg = bridge.paired(ENV_ID)
    rng = np.random.default_rng(L.SIZE)
    scripts = [solver(False, False), solver(True, True), solver(False, True)]
    episodes = itertools.chain(
        [play.random_policy(rng)], itertools.cycle(play.noisy(s, 0.05, rng) for s in scripts)
    )
    actions, coverage = play.play(mg, episodes, rng, min_steps=2000, min_episodes=15)
    counts = bridge.lockstep(env, mg, actions, mission_fn=mission_of)
    assert counts["steps"] == len(actions) >= 2000
    assert counts["truncated"] == coverage["end", "truncated"] >= 1
    assert counts["terminated"] == counts["reward_nonzero"] == coverage["end", "success"] >= 8
    for needed in [
        ("pickup", "key", "taken"),
        ("toggle", "key", "nothing"),
        ("drop", "empty", "put"),
        ("toggle", "door", "locked->open"),  # with the matching key in hand
        ("toggle", "door", "locked->locked"),  # without it
        ("toggle", "door", "closed->open"),
        ("toggle", "door", "open->closed"),
        ("pickup", "door", "full hand"),
        ("pickup", "door", "nothing"),
        ("drop", "door", "blocked"),
        ("drop", "door", "empty hand"),
    ]:
        assert coverage[needed] >= 2, f"{needed} never (or once) happened: {coverage}"


def _room_of(pos: np.ndarray) -> np.ndarray:
    """i32[N]: the room (0..5, MiniGrid's order) of inside cells ``pos`` i32[N, 2]."""
    return (pos[:, 1] // L.PITCH) * 2 + (pos[:, 0] > L.RIGHT_WALL)


def lockedroom_facts(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid = layouts.grid
    door_cells = grid[:, L.DOOR_X, L.DOOR_Y]  # u8[N, 6, 3], rooms in MiniGrid's order
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    key = dist.single_position(dist.cells_of(grid, C.KEY))
    return {
        "door_cells": door_cells,
        "locked": (door_cells[..., 2] == C.LOCKED).argmax(axis=1),
        "goal": goal,
        "key": key,
        "key_colour": grid[np.arange(len(grid)), key[:, 0], key[:, 1], 1],
    }


def lockedroom_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    facts = lockedroom_facts(layouts)
    colours = facts["door_cells"][..., 1].astype(np.int32)
    locked, key_room = facts["locked"], _room_of(facts["key"])
    return {
        "locked_room": locked,
        "goal": dist.cell_index(facts["goal"], L.SIZE),
        "key": dist.cell_index(facts["key"], L.SIZE),
        "key_room": key_room,
        "locked_and_key_room": locked * 6 + key_room,
        "room_colours": (colours + 6 * np.arange(6)).ravel(),
        "first_two_colours": colours[:, 0] * 6 + colours[:, 1],
        "key_colour": facts["key_colour"],
        "agent": dist.cell_index(layouts.agent_pos, L.SIZE),
        "agent_dir": layouts.agent_dir,
        "mission_colours": layouts.mission[:, missions.COLOR] * 6
        + layouts.mission[:, missions.COLOR2],
    }


@pytest.mark.slow
@pytest.mark.reference
def test_layout_distribution_matches_minigrid():
    ours = dist.horizax_layouts(horizax.make(ENV_ID), N_LAYOUTS)
    theirs = dist.minigrid_layouts(ENV_ID, N_LAYOUTS, mission_fn=mission_of)
    dist.compare_layouts(lockedroom_features, ours, theirs)


def test_every_layout_is_well_formed():
    layouts = dist.horizax_layouts(horizax.make(ENV_ID), N_LAYOUTS)
    grid, pos, n = layouts.grid, layouts.agent_pos, len(layouts)
    rows = np.arange(n)
    facts = lockedroom_facts(layouts)
    doors, locked, goal, key = facts["door_cells"], facts["locked"], facts["goal"], facts["key"]
    # Six doors of six distinct colours, one locked, the rest closed.
    assert (doors[..., 0] == C.DOOR).all()
    assert (np.sort(doors[..., 1], axis=1) == np.arange(6)).all()
    assert ((doors[..., 2] == C.LOCKED).sum(axis=1) == 1).all()
    assert ((doors[..., 2] == C.CLOSED).sum(axis=1) == 5).all()
    # Walls: the fixed skeleton, whole except for the doors.
    skeleton = L._BASE[..., 0] == C.WALL
    skeleton[L.DOOR_X, L.DOOR_Y] = False
    np.testing.assert_array_equal(grid[..., 0] == C.WALL, np.broadcast_to(skeleton, grid.shape[:3]))
    assert set(np.unique(grid[..., 0])) == {C.EMPTY, C.WALL, C.DOOR, C.KEY, C.GOAL}
    # The goal in the locked room, the key (of the locked door's colour) in another room.
    assert (_room_of(goal) == locked).all() and (_room_of(key) != locked).all()
    np.testing.assert_array_equal(facts["key_colour"], doors[rows, locked, 1])
    for cell in (goal, key):
        inside = ~(L._BASE[..., 0] == C.WALL)[cell[:, 0], cell[:, 1]]
        hallway = (cell[:, 0] > L.LEFT_WALL) & (cell[:, 0] < L.RIGHT_WALL)
        assert inside.all() and not hallway.any()
    # The mission names the locked room's colour and the key room's.
    np.testing.assert_array_equal(layouts.mission[:, missions.COLOR], doors[rows, locked, 1])
    np.testing.assert_array_equal(
        layouts.mission[:, missions.COLOR2], doors[rows, _room_of(key), 1]
    )
    # The agent on a hallway cell; the goal reachable once every door is open.
    assert ((pos[:, 0] > L.LEFT_WALL) & (pos[:, 0] < L.RIGHT_WALL)).all()
    assert ((pos[:, 1] >= 1) & (pos[:, 1] <= L.SIZE - 2)).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    for i in range(100):
        passable = grid[i, ..., 0] != C.WALL
        seen = dist.reachable(grid[i], pos[i], passable)
        assert seen[tuple(goal[i])] and seen[tuple(key[i])]
