"""Unlock, UnlockPickup, BlockedUnlockPickup: lockstep against MiniGrid, layout distribution
and structure of every layout."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.unlock import unlock_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs import pickup_driver as driver
from tests.grid.envs.prng_draws import JAX_PRNG_PRIMITIVES, trace_counting_draws

UNLOCK, PICKUP, BLOCKED = (
    "MiniGrid-Unlock-v0",
    "MiniGrid-UnlockPickup-v0",
    "MiniGrid-BlockedUnlockPickup-v0",
)
IDS = [UNLOCK, PICKUP, BLOCKED]
WIDTH, HEIGHT, WALL_X = 11, 6, 5
N_LAYOUTS = 3000
PLACEHOLDER = (8, 3)  # MiniGrid's agent before place_agent: the centre of room (1, 0)


MISSION_FNS = {UNLOCK: None, PICKUP: driver.pickup_mission, BLOCKED: driver.pickup_mission}


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)
    env = horizax.make(env_id)
    steps = 16 * 36 if env_id == BLOCKED else 8 * 36
    assert (env.width, env.height, env.max_steps) == (WIDTH, HEIGHT, steps)
    assert not bridge.minigrid_env(env_id).see_through_walls


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Random actions to the time limit, then noisy expert episodes probing every object."""
    env, mg = bridge.paired(env_id)
    prefix = bridge.random_actions(seed=3, n=env.max_steps + 200, forward_bias=0.3)
    rng = np.random.default_rng(IDS.index(env_id))
    actions, seen = driver.script(mg, prefix, min_steps=2500, rng=rng)
    counts = bridge.lockstep(env, mg, actions, mission_fn=MISSION_FNS[env_id])
    assert counts["steps"] == len(actions) >= 2500
    assert counts["truncated"] == seen["truncated"] >= 1
    assert counts["terminated"] == counts["reward_nonzero"] == seen["success"] >= 5
    kinds = {UNLOCK: ("key", "door"), PICKUP: ("key", "door", "box")}.get(
        env_id, ("key", "door", "box", "ball")
    )
    missing = [
        (action, kind)
        for kind in kinds
        for action in ("pickup", "drop", "toggle")
        if seen[(action, kind)] == 0
    ]
    assert not missing, f"never exercised: {missing} ({seen})"
    for event in ("picked key", "unlocked", "unlock failed", "dropped"):
        assert seen[event] >= 1, f"never exercised: {event} ({seen})"
    if env_id != UNLOCK:  # Unlock ends when the door opens, and the key is its only object
        assert seen["pickup with full hand"] >= 1, seen
        assert seen["door closed"] >= 1 and seen["door opened"] >= 1, seen
        assert seen["picked box"] == seen["success"]
    if env_id == BLOCKED:
        assert seen["picked ball"] >= 1


def layout_objects(layouts: dist.Layouts, box: bool, blocker: bool) -> dict[str, np.ndarray]:
    grid = layouts.grid
    door = dist.single_position(dist.cells_of(grid, C.DOOR, state=C.LOCKED))
    key = dist.single_position(dist.cells_of(grid, C.KEY))
    out = {"door": door, "key": key}
    if box:
        out["box"] = dist.single_position(dist.cells_of(grid, C.BOX))
    if blocker:
        out["ball"] = dist.single_position(dist.cells_of(grid, C.BALL))
    return out


def unlock_features(box: bool, blocker: bool):
    def features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
        grid, agent = layouts.grid, layouts.agent_pos
        objs = layout_objects(layouts, box, blocker)
        door, key = objs["door"], objs["key"]
        rows = np.arange(len(grid))
        front = agent + C.DIR_TO_VEC[layouts.agent_dir]
        out = {
            "door_y": door[:, 1],
            "door_colour": driver.colour_at(grid, door),
            "key": dist.cell_index(key, HEIGHT),
            "agent": dist.cell_index(agent, HEIGHT),
            "agent_dir": layouts.agent_dir,
            "agent_and_dir": dist.cell_index(agent, HEIGHT) * 4 + layouts.agent_dir,
            "front_kind": grid[rows, front[:, 0], front[:, 1], 0].astype(np.int32),
            "key_minus_agent": dist.cell_index(key - agent + HEIGHT, 2 * HEIGHT),
            "key_beside_door": (key == door - [1, 0]).all(axis=1).astype(np.int32),
            "mission_template": layouts.mission[:, missions.TEMPLATE],
        }
        if box:
            out["box"] = dist.cell_index(objs["box"], HEIGHT)
            out["box_colour"] = driver.colour_at(grid, objs["box"])
            out["mission_colour"] = layouts.mission[:, missions.COLOR]
            out["mission_kind"] = layouts.mission[:, missions.KIND]
            out["box_and_door_y"] = out["box"] * HEIGHT + door[:, 1]
        if blocker:
            out["ball_colour"] = driver.colour_at(grid, objs["ball"])
            out["ball_y"] = objs["ball"][:, 1]
        return out

    return features


FEATURES = {
    UNLOCK: unlock_features(False, False),
    PICKUP: unlock_features(True, False),
    BLOCKED: unlock_features(True, True),
}


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    mission_fn = MISSION_FNS[env_id] or bridge.fixed_mission
    dist.compare_with_minigrid(env_id, FEATURES[env_id], N_LAYOUTS, mission_fn=mission_fn)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    box, blocker = env_id != UNLOCK, env_id == BLOCKED
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, agent, n = layouts.grid, layouts.agent_pos, len(layouts)
    rows = np.arange(n)
    objs = layout_objects(layouts, box, blocker)
    door, key = objs["door"], objs["key"]
    # Walls: the border and the shared wall x = 5, whole except for the door.
    kinds = grid[..., 0]
    walls = kinds == C.WALL
    assert walls[:, [0, -1], :].all() and walls[:, :, [0, -1]].all()
    assert (door[:, 0] == WALL_X).all() and door[:, 1].min() >= 1 and door[:, 1].max() <= 4
    assert set(np.unique(door[:, 1])) == {1, 2, 3, 4}
    assert (walls[:, WALL_X, 1:-1].sum(axis=1) == HEIGHT - 3).all()
    expected = {C.EMPTY, C.WALL, C.DOOR, C.KEY} | ({C.BOX} if box else set())
    assert set(np.unique(kinds)) == expected | ({C.BALL} if blocker else set())
    # The key opens the door; key and agent in the left room, the agent on a free cell
    # facing an empty cell or a wall.
    np.testing.assert_array_equal(driver.colour_at(grid, key), driver.colour_at(grid, door))
    assert (key[:, 0] < WALL_X).all() and (agent[:, 0] < WALL_X).all()
    assert (kinds[rows, agent[:, 0], agent[:, 1]] == C.EMPTY).all()
    front = agent + C.DIR_TO_VEC[layouts.agent_dir]
    assert np.isin(kinds[rows, front[:, 0], front[:, 1]], [C.EMPTY, C.WALL]).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    assert set(np.unique(driver.colour_at(grid, door))) == set(range(C.NUM_COLORS))
    if box:
        # The box avoids MiniGrid's placeholder agent and its neighbours.
        b = objs["box"]
        assert (b[:, 0] > WALL_X).all()
        assert (np.abs(b - PLACEHOLDER).sum(axis=1) >= 2).all()
        assert len(np.unique(dist.cell_index(b, HEIGHT))) == 11
        np.testing.assert_array_equal(layouts.mission[:, missions.COLOR], driver.colour_at(grid, b))
        assert (layouts.mission[:, missions.KIND] == C.BOX).all()
        assert (layouts.mission[:, missions.TEMPLATE] == missions.Template.PICK_UP).all()
    else:
        assert (layouts.mission[:, missions.TEMPLATE] == missions.Template.OPEN_DOOR).all()
    if blocker:
        np.testing.assert_array_equal(objs["ball"], door - [1, 0])
    # Solvable: the key and the cell left of the door (or the ball there) reachable.
    for i in range(300):
        g = grid[i]
        passable = (g[..., 0] == C.EMPTY) | (g[..., 0] == C.KEY)
        seen = dist.reachable(g, agent[i], passable)
        assert beside(seen, key[i])
        approach = door[i] - [1, 0]
        assert beside(seen, approach) if blocker else seen[tuple(approach)]


def beside(seen: np.ndarray, pos: np.ndarray) -> bool:
    """Some neighbour of ``pos`` is in the reachable set ``seen`` (bool[W, H])."""
    return any(seen[pos[0] + dx, pos[1] + dy] for dx, dy in C.DIR_TO_VEC)


def test_layout_is_cheap_under_vmap():
    """One PRNG call, no loops: the autoreset evaluates the layout at every step."""
    layout = unlock_layout(box=True, blocker=True)
    jaxpr, draws = trace_counting_draws(layout, jax.random.PRNGKey(0))
    names = driver.primitives(jaxpr.jaxpr)
    assert "while" not in names and "scan" not in names
    assert draws == 1 and not JAX_PRNG_PRIMITIVES & set(names)


def test_blocker_needs_box():
    with pytest.raises(ValueError, match="BlockedUnlockPickup"):
        unlock_layout(box=False, blocker=True)
