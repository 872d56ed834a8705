"""LavaGap: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs.lavagap import lavagap_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

SIZES = {f"MiniGrid-LavaGapS{s}-v0": s for s in (5, 6, 7)}
IDS = list(SIZES)
N_LAYOUTS = 2000


def strip(layouts: dist.Layouts) -> tuple[np.ndarray, np.ndarray]:
    """i32[N] column of the lava strip and i32[N] row of its gap (-1: no gap)."""
    lava = dist.cells_of(layouts.grid, C.LAVA, C.RED)
    column = lava.any(axis=2).argmax(axis=1)
    rows = np.arange(len(layouts))
    interior = lava[rows, column, 1:-1]  # bool[N, H-2]
    gap = np.where(interior.all(axis=1), -1, (~interior).argmax(axis=1) + 1)
    return column.astype(np.int32), gap.astype(np.int32)


def lavagap_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    height = layouts.grid.shape[2]
    column, gap = strip(layouts)
    goal = dist.single_position(dist.cells_of(layouts.grid, C.GOAL, C.GREEN))
    return {
        "gap_x": column,
        "gap_y": gap,
        "lava_cells": dist.cells_of(layouts.grid, C.LAVA).sum(axis=(1, 2)),
        "agent": dist.cell_index(layouts.agent_pos, height),
        "agent_dir": layouts.agent_dir,
        "goal": dist.cell_index(goal, height),
    }


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
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(env_id, lavagap_features, N_LAYOUTS)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size = SIZES[env_id]
    # Fewer layouts than the comparison above draws; its compiled reset is shared.
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid = layouts.grid
    kind = grid[..., 0]
    column, gap = strip(layouts)
    assert column.min() >= 2 and column.max() <= size - 3
    assert gap.min() >= 1 and gap.max() <= size - 2
    assert (dist.cells_of(grid, C.LAVA).sum(axis=(1, 2)) == size - 3).all()
    assert (dist.cells_of(grid, C.LAVA, C.RED).sum(axis=(1, 2)) == size - 3).all()
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    assert (goal == size - 2).all()
    assert (layouts.agent_pos == 1).all() and (layouts.agent_dir == 0).all()
    assert set(np.unique(kind)) == {C.EMPTY, C.WALL, C.LAVA, C.GOAL}
    for i in range(len(layouts)):
        safe = (kind[i] == C.EMPTY) | (kind[i] == C.GOAL)
        assert dist.reachable(grid[i], (1, 1), safe)[size - 2, size - 2], "goal cut off"


def test_wall_obstacle_variant():
    """MiniGrid's ``obstacle_type=Wall``: the same layout with a wall strip."""
    env = horizax.make("MiniGrid-LavaGapS6-v0").replace(
        layout_fn=lavagap_layout(6, obstacle=C.WALL_CELL)
    )
    layouts = dist.horizax_layouts(env, 64)
    assert not dist.cells_of(layouts.grid, C.LAVA).any()
    assert ((layouts.grid[..., 0] == C.WALL).sum(axis=(1, 2)) == 4 * 5 + 3).all()


def test_small_sizes_are_rejected():
    with pytest.raises(ValueError, match="size >= 5"):
        lavagap_layout(4)
