"""RedBlueDoors: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.redbluedoors import redbluedoors_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs import scripted_play as play

SIZES = {f"MiniGrid-RedBlueDoors-{s}x{s}-v0": s for s in (6, 8)}
IDS = list(SIZES)
N_LAYOUTS = 4000


def mission_of(mg) -> np.ndarray:
    """MiniGrid's mission as an array: the red door at (X, Y), the blue one at (X2, Y2)."""
    (red,) = play.positions(mg, "door", "red")
    (blue,) = play.positions(mg, "door", "blue")
    return np.asarray(missions.encode(missions.Template.RED_BLUE_DOORS, pos=red, pos2=blue))


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


def _red(sim):
    return play.positions(sim, "door", "red")[0]


def _blue(sim):
    return play.positions(sim, "door", "blue")[0]


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Idle until the time limit, then noisy scripted episodes: red then blue (success),
    blue first, red opened and closed before blue (both failures), red closed and reopened
    before blue (success), with pickups and drops tried on the doors."""
    env, mg = bridge.paired(env_id)
    rng = np.random.default_rng(SIZES[env_id])
    T = C.TOGGLE
    scripts = [
        play.sequence((_red, [T]), (_blue, [T])),
        play.sequence((_blue, [C.PICKUP, C.DROP, T])),
        play.sequence((_red, [C.PICKUP, T, C.DROP, T]), (_blue, [T])),
        play.sequence((_red, [T, T, T]), (_blue, [T])),
    ]
    idle = play.random_policy(rng, excluded=(T,))
    episodes = itertools.chain([idle], itertools.cycle(play.noisy(s, 0.1, rng) for s in scripts))
    actions, coverage = play.play(
        mg, episodes, rng, min_steps=max(2000, env.max_steps + 600), min_episodes=16
    )
    counts = bridge.lockstep(env, mg, actions, mission_fn=mission_of)
    assert counts["steps"] == len(actions) >= 2000
    assert counts["truncated"] == coverage["end", "truncated"] >= 1
    assert counts["reward_nonzero"] == coverage["end", "success"] >= 4
    assert counts["terminated"] - counts["reward_nonzero"] == coverage["end", "failure"] >= 4
    for needed in [
        ("toggle", "door", "closed->open"),
        ("toggle", "door", "open->closed"),
        ("pickup", "door", "nothing"),
        ("drop", "door", "empty hand"),
    ]:
        assert coverage[needed] >= 2, f"{needed} never happened: {coverage}"


def redbluedoors_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid = layouts.grid
    height = grid.shape[2]
    red = dist.single_position(dist.cells_of(grid, C.DOOR, C.RED, C.CLOSED))
    blue = dist.single_position(dist.cells_of(grid, C.DOOR, C.BLUE, C.CLOSED))
    agent = dist.cell_index(layouts.agent_pos, height)
    mission = layouts.mission
    return {
        "agent": agent,
        "agent_dir": layouts.agent_dir,
        "agent_and_dir": agent * 4 + layouts.agent_dir,
        "red": dist.cell_index(red, height),
        "blue": dist.cell_index(blue, height),
        "doors": red[:, 1] * height + blue[:, 1],
        "agent_and_red": agent * height + red[:, 1],
        "mission_red": dist.cell_index(mission[:, missions.X : missions.Y + 1], height),
        "mission_blue": dist.cell_index(mission[:, missions.X2 : missions.Y2 + 1], height),
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(env_id, redbluedoors_features, N_LAYOUTS, mission_fn=mission_of)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size = SIZES[env_id]
    left, right = size // 2, size // 2 + size - 1
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, pos, n = layouts.grid, layouts.agent_pos, len(layouts)
    rows = np.arange(n)
    assert grid.shape[1:] == (2 * size, size, 3)
    red = dist.single_position(dist.cells_of(grid, C.DOOR, C.RED, C.CLOSED))
    blue = dist.single_position(dist.cells_of(grid, C.DOOR, C.BLUE, C.CLOSED))
    assert (red[:, 0] == left).all() and (blue[:, 0] == right).all()
    for door in (red, blue):
        assert door[:, 1].min() == 1 and door[:, 1].max() == size - 2
    # Nothing but walls, empty cells and the two doors; the walls are the outer rectangle
    # and the inner room's rectangle, whole except for the doors.
    assert set(np.unique(grid[..., 0])) == {C.EMPTY, C.WALL, C.DOOR}
    walls = grid[..., 0] == C.WALL
    expected = np.zeros((2 * size, size), bool)
    expected[[0, -1, left, right], :] = True
    expected[:, [0, -1]] = True
    expected = np.broadcast_to(expected, walls.shape).copy()
    expected[rows, red[:, 0], red[:, 1]] = False
    expected[rows, blue[:, 0], blue[:, 1]] = False
    np.testing.assert_array_equal(walls, expected)
    # The agent inside the inner room; the mission names the doors.
    assert (pos[:, 0] > left).all() and (pos[:, 0] < right).all()
    assert (pos[:, 1] >= 1).all() and (pos[:, 1] <= size - 2).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    np.testing.assert_array_equal(layouts.mission[:, missions.X : missions.Y + 1], red)
    np.testing.assert_array_equal(layouts.mission[:, missions.X2 : missions.Y2 + 1], blue)
    assert (layouts.mission[:, missions.TEMPLATE] == missions.Template.RED_BLUE_DOORS).all()


def test_small_sizes_are_rejected():
    with pytest.raises(ValueError, match="size >= 3"):
        redbluedoors_layout(2)
