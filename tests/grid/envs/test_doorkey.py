"""DoorKey: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs.doorkey import doorkey_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

SIZES = {f"MiniGrid-DoorKey-{s}x{s}-v0": s for s in (5, 6, 8, 16)}
IDS = list(SIZES)
N_LAYOUTS = 4000


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Random actions, then noisy shortest-path episodes (key, unlock, goal), in one run."""
    env, mg = bridge.paired(env_id)
    # Long enough to hit the time limit at least once, even for 16x16 (max_steps 2560).
    n_random, episodes = max(2000, env.max_steps + 100), 8
    prefix = bridge.random_actions(seed=1, n=n_random, forward_bias=0.3)
    rng = np.random.default_rng(SIZES[env_id])
    actions = dist.lockstep_script(mg, prefix, episodes, rng, noise=0.2)
    counts = bridge.lockstep(env, mg, actions)
    assert counts["steps"] == len(actions)
    assert counts["truncated"] >= 1, "the time limit was never reached: the test lost its teeth"
    # A goal termination is only possible after pickup + unlock, so this covers all three.
    assert counts["terminated"] == counts["reward_nonzero"] >= episodes - 1


def doorkey_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid = layouts.grid
    height = grid.shape[2]
    door = dist.single_position(dist.cells_of(grid, C.DOOR, C.YELLOW, C.LOCKED))
    key = dist.single_position(dist.cells_of(grid, C.KEY, C.YELLOW))
    return {
        "split": door[:, 0],
        "door_y": door[:, 1],
        "agent": dist.cell_index(layouts.agent_pos, height),
        "agent_dir": layouts.agent_dir,
        "key": dist.cell_index(key, height),
        # A joint feature: the key is placed after, and away from, the agent.
        "key_minus_agent": dist.cell_index(key - layouts.agent_pos + height, 2 * height),
        "key_under_agent": (key == layouts.agent_pos).all(axis=1).astype(np.int32),
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(env_id, doorkey_features, N_LAYOUTS)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size = SIZES[env_id]
    # Fewer layouts than the comparison above draws; its compiled reset is shared.
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, pos, n = layouts.grid, layouts.agent_pos, len(layouts)
    rows = np.arange(n)
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    door = dist.single_position(dist.cells_of(grid, C.DOOR, C.YELLOW, C.LOCKED))
    key = dist.single_position(dist.cells_of(grid, C.KEY, C.YELLOW))
    np.testing.assert_array_equal(goal, np.broadcast_to([size - 2, size - 2], goal.shape))
    split, door_y = door[:, 0], door[:, 1]
    assert split.min() >= 2 and split.max() <= size - 3
    assert door_y.min() >= 1 and door_y.max() <= size - 3
    # Nothing but walls, empty cells and the three objects; walls only on the border and in
    # the split column, which is whole except for the door.
    assert set(np.unique(grid[..., 0])) <= {C.EMPTY, C.WALL, C.DOOR, C.KEY, C.GOAL}
    walls = grid[..., 0] == C.WALL
    assert walls[:, [0, -1], :].all() and walls[:, :, [0, -1]].all()
    column = walls[rows, split].copy()
    column[rows, door_y] = True
    assert column.all(), "the splitting wall must be whole except for the door"
    assert (walls[:, 1:-1, 1:-1].sum(axis=(1, 2)) == size - 3).all()
    # Agent on a free cell left of the wall; the key left of the wall, not under the agent.
    assert (grid[rows, pos[:, 0], pos[:, 1], 0] == C.EMPTY).all() and (pos[:, 0] < split).all()
    assert (key[:, 0] < split).all() and (key != pos).any(axis=1).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    # Solvable: key and door reachable from the start, the goal from the far side of the door.
    for i in range(200):
        g, x, y = grid[i], split[i], door_y[i]
        kind = g[..., 0]
        left = dist.reachable(g, pos[i], (kind == C.EMPTY) | (kind == C.KEY))
        assert left[tuple(key[i])] and left[x - 1, y]
        right = dist.reachable(g, (x + 1, y), (kind == C.EMPTY) | (kind == C.GOAL))
        assert right[size - 2, size - 2]


def test_reset_graph_does_not_grow_with_size():
    """The reset is whole-grid selects: its traced program is the same size for 5 and 16."""
    key = jax.random.PRNGKey(0)
    small = jax.make_jaxpr(doorkey_layout(5))(key)
    large = jax.make_jaxpr(doorkey_layout(16))(key)
    assert len(large.eqns) == len(small.eqns)
    assert not any(e.primitive.name in ("scatter", "while") for e in large.eqns)


def test_small_sizes_are_rejected():
    with pytest.raises(ValueError, match="size >= 5"):
        doorkey_layout(4)
