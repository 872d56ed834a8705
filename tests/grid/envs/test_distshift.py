"""DistShift: lockstep against MiniGrid and the (fixed) layout of every reset."""

from __future__ import annotations

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs.distshift import distshift_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

STRIP2_ROWS = {"MiniGrid-DistShift1-v0": 2, "MiniGrid-DistShift2-v0": 5}
IDS = list(STRIP2_ROWS)
N_LAYOUTS = 2000


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    env, mg = bridge.paired(env_id)
    counts = bridge.lockstep(env, mg, bridge.random_actions(seed=1, n=2000, forward_bias=0.3))
    assert counts["steps"] == 2000
    goals = counts["reward_nonzero"]
    assert goals >= 1, "the goal was never reached: the test lost its teeth"
    assert counts["terminated"] - goals >= 10, "lava was (almost) never entered"


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_every_reset_equals_minigrid(env_id):
    """The layout is fixed: every horizax reset must be MiniGrid's, cell for cell."""
    ours = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    theirs = dist.minigrid_layouts(env_id, N_LAYOUTS)
    np.testing.assert_array_equal(theirs.grid, np.broadcast_to(theirs.grid[0], theirs.grid.shape))
    np.testing.assert_array_equal(ours.grid, theirs.grid)
    np.testing.assert_array_equal(ours.agent_pos, theirs.agent_pos)
    np.testing.assert_array_equal(ours.agent_dir, theirs.agent_dir)


@pytest.mark.slow
@pytest.mark.reference
def test_random_start_matches_minigrid():
    """MiniGrid's ``agent_start_pos=None``: a uniform free cell and direction."""
    env_id = "MiniGrid-DistShift2-v0"
    env = horizax.make(env_id).replace(
        layout_fn=distshift_layout(agent_start_pos=None, strip2_row=5)
    )
    ours = dist.horizax_layouts(env, N_LAYOUTS)
    theirs = dist.minigrid_layouts(env_id, N_LAYOUTS, agent_start_pos=None)

    def features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
        return {
            "agent": dist.cell_index(layouts.agent_pos, 7),
            "agent_dir": layouts.agent_dir,
        }

    dist.compare_layouts(features, ours, theirs)
    np.testing.assert_array_equal(ours.grid, theirs.grid)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    row = STRIP2_ROWS[env_id]
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)  # shared with the test above
    grid = layouts.grid
    lava = dist.cells_of(grid, C.LAVA, C.RED)
    assert lava.sum(axis=(1, 2)).tolist() == [6] * len(layouts)
    assert lava[:, 3:6, 1].all() and lava[:, 3:6, row].all()
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    assert (goal == [7, 1]).all()
    assert (layouts.agent_pos == [1, 1]).all() and (layouts.agent_dir == 0).all()
    kind = grid[0, ..., 0]
    safe = (kind == C.EMPTY) | (kind == C.GOAL)
    assert dist.reachable(grid[0], (1, 1), safe)[7, 1], "the goal must be reachable around lava"


def test_invalid_configuration_is_rejected():
    with pytest.raises(ValueError, match="strip2_row"):
        distshift_layout(strip2_row=6)
