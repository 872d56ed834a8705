"""Memory: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.memory import ACTION_MAP, VARIANTS, memory_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs import scripted_play as play

IDS = [f"MiniGrid-Memory{suffix}-v0" for suffix in VARIANTS]
CONFIGS = dict(zip(IDS, VARIANTS.values(), strict=True))
N_LAYOUTS = 4000


def mission_of(mg) -> np.ndarray:
    """MiniGrid's mission as an array: success cell at (X, Y), failure cell at (X2, Y2)."""
    return np.asarray(
        missions.encode(missions.Template.MEMORY, pos=mg.success_pos, pos2=mg.failure_pos)
    )


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)
    assert horizax.make(env_id).action_map == ACTION_MAP == (0, 1, 2, 5, 4, 5, 6)


def _start_object(sim):
    return (1, sim.height // 2 - 1)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Idle (never moving) until the time limit, then noisy scripted episodes: look at the
    start object (pickup, which MiniGrid turns into toggle, toggle, drop), then walk onto the
    success or the failure cell."""
    env, mg = bridge.paired(env_id)
    rng = np.random.default_rng(CONFIGS[env_id][0])
    success = play.sequence(
        (_start_object, [C.PICKUP, C.TOGGLE, C.DROP]), (lambda s: s.success_pos, [C.FORWARD])
    )
    failure = play.sequence((_start_object, [C.PICKUP]), (lambda s: s.failure_pos, [C.FORWARD]))
    idle = play.random_policy(rng, excluded=(C.FORWARD,))
    scripts = [play.noisy(s, 0.1, rng) for s in (success, failure, success)]
    episodes = itertools.chain([idle], itertools.cycle(scripts))
    actions, coverage = play.play(
        mg, episodes, rng, min_steps=max(2000, env.max_steps + 600), min_episodes=12
    )
    counts = bridge.lockstep(env, mg, actions, mission_fn=mission_of)
    assert counts["steps"] == len(actions) >= 2000
    assert counts["truncated"] == coverage["end", "truncated"] >= 1
    assert counts["reward_nonzero"] == coverage["end", "success"] >= 4
    assert counts["terminated"] - counts["reward_nonzero"] == coverage["end", "failure"] >= 3
    for kind in ("key", "ball"):
        # Pickup acts as toggle: nothing is ever taken.
        assert coverage["pickup", kind, "nothing"] >= 1, f"no pickup at a {kind}: {coverage}"
        assert coverage["toggle", kind, "nothing"] >= 1, f"no toggle at a {kind}: {coverage}"
    assert not [entry for entry in coverage if entry[-1] == "taken"]
    assert coverage["drop", "key", "empty hand"] + coverage["drop", "ball", "empty hand"] >= 1


def _hallway_end(layouts: dist.Layouts) -> np.ndarray:
    return layouts.mission[:, missions.X] - 1


def memory_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid = layouts.grid
    n, size = len(layouts), grid.shape[1]
    mid = size // 2
    rows = np.arange(n)
    end = _hallway_end(layouts)
    start = grid[:, 1, mid - 1, 0]
    top = grid[rows, end + 1, mid - 2, 0]
    agent_x = layouts.agent_pos[:, 0]
    return {
        "hallway_end": end,
        "agent_x": agent_x,
        "agent_x_and_end": agent_x * size + end,
        "start_kind": start,
        "top_kind": top,
        "start_and_top": start * 16 + top,
        "success_y": layouts.mission[:, missions.Y],
        "failure_y": layouts.mission[:, missions.Y2],
        "agent_dir": layouts.agent_dir,
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(env_id, memory_features, N_LAYOUTS, mission_fn=mission_of)


def expected_walls(size: int, end: int) -> np.ndarray:
    """bool[W, H]: MiniGrid's walls for a hallway ending at column ``end`` (numpy)."""
    mid = size // 2
    walls = np.zeros((size, size), bool)
    walls[[0, -1], :] = walls[:, [0, -1]] = True
    walls[1:5, [mid - 2, mid + 2]] = True
    walls[4, [mid - 1, mid + 1]] = True
    walls[5:end, [mid - 1, mid + 1]] = True
    walls[end, :] = True
    walls[end, mid] = False
    walls[end + 2, :] = True
    return walls


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size, random_length = CONFIGS[env_id]
    mid = size // 2
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, pos, mission = layouts.grid, layouts.agent_pos, layouts.mission
    rows = np.arange(len(layouts))
    end = _hallway_end(layouts)
    expected_ends = set(range(4, size - 2)) if random_length else {size - 3}
    assert set(np.unique(end)) == expected_ends
    for e in expected_ends:
        np.testing.assert_array_equal(
            grid[end == e, ..., 0] == C.WALL,
            expected_walls(size, e)[None].repeat((end == e).sum(), 0),
        )
    # Exactly three green objects: the start one and the two ends, one key and one ball.
    objects = (grid[..., 0] == C.KEY) | (grid[..., 0] == C.BALL)
    assert (objects.sum(axis=(1, 2)) == 3).all() and (grid[objects][:, 1] == C.GREEN).all()
    assert set(np.unique(grid[..., 0])) == {C.EMPTY, C.WALL, C.KEY, C.BALL}
    top, bottom = grid[rows, end + 1, mid - 2, 0], grid[rows, end + 1, mid + 2, 0]
    start = grid[:, 1, mid - 1, 0]
    assert ({C.KEY, C.BALL} == set(np.unique(start))) and (top != bottom).all()
    # The success cell is next to the end object matching the start one.
    success_y = np.where(start == top, mid - 1, mid + 1)
    np.testing.assert_array_equal(mission[:, missions.X], end + 1)
    np.testing.assert_array_equal(mission[:, missions.Y], success_y)
    np.testing.assert_array_equal(mission[:, missions.X2], end + 1)
    np.testing.assert_array_equal(mission[:, missions.Y2], 2 * mid - success_y)
    # The agent on the hallway row, facing right, anywhere from 1 to the hallway's end.
    assert (pos[:, 1] == mid).all() and (layouts.agent_dir == 0).all()
    assert (pos[:, 0] >= 1).all() and (pos[:, 0] <= end).all()
    assert (pos[:, 0] == end).any() and (pos[:, 0] == 1).any()
    # Both target cells and the start object's neighbour are reachable.
    for i in range(100):
        free = grid[i, ..., 0] == C.EMPTY
        seen = dist.reachable(grid[i], pos[i], free)
        assert seen[end[i] + 1, mid - 1] and seen[end[i] + 1, mid + 1] and seen[1, mid]


def test_bad_sizes_are_rejected():
    for size in (5, 8):
        with pytest.raises(ValueError, match="odd size >= 7"):
            memory_layout(size, False)
