"""Empty: lockstep against MiniGrid and the start distribution of the -Random- ids."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.grid.envs.empty import empty_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

IDS = [
    "MiniGrid-Empty-5x5-v0",
    "MiniGrid-Empty-Random-5x5-v0",
    "MiniGrid-Empty-6x6-v0",
    "MiniGrid-Empty-Random-6x6-v0",
    "MiniGrid-Empty-8x8-v0",
    "MiniGrid-Empty-16x16-v0",
]


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    env, mg = bridge.paired(env_id)
    actions = bridge.random_actions(seed=1, n=2000, forward_bias=0.3)
    counts = bridge.lockstep(env, mg, actions)
    assert counts["steps"] == 2000
    assert counts["terminated"] >= 1, "no goal was ever reached: the test lost its teeth"


def test_impossible_size_is_rejected_at_construction():
    with pytest.raises(ValueError, match="size >= 4"):
        empty_layout(3, random_start=False)


def test_random_start_never_on_goal_or_wall():
    env = horizax.make("MiniGrid-Empty-Random-6x6-v0")
    state = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 512)).state
    grid, pos = np.asarray(state.grid), np.asarray(state.agent_pos)
    cells = grid[np.arange(512), pos[:, 0], pos[:, 1], 0]
    assert (cells == 1).all(), "agent placed on a non-empty cell"
    assert len({tuple(p) for p in pos}) == 15, "agent should reach all 15 free cells"


def _start_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    height = layouts.grid.shape[2]
    return {
        "agent": dist.cell_index(layouts.agent_pos, height),
        "agent_dir": layouts.agent_dir,
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", [i for i in IDS if "Random" in i])
def test_random_start_distribution_matches_minigrid(env_id):
    ours = dist.horizax_layouts(horizax.make(env_id), 2000)
    theirs = dist.minigrid_layouts(env_id, 2000)
    np.testing.assert_array_equal(ours.grid, theirs.grid)  # the room itself is fixed
    dist.compare_layouts(_start_features, ours, theirs)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", [i for i in IDS if "Random" not in i])
def test_fixed_start_equals_minigrid(env_id):
    ours = dist.horizax_layouts(horizax.make(env_id), 4)
    theirs = dist.minigrid_layouts(env_id, 4)
    np.testing.assert_array_equal(ours.grid, theirs.grid)
    np.testing.assert_array_equal(ours.agent_pos, theirs.agent_pos)
    np.testing.assert_array_equal(ours.agent_dir, theirs.agent_dir)
