"""Crossing (LavaCrossing, SimpleCrossing): lockstep against MiniGrid, layout distribution and
structure of every layout."""

from __future__ import annotations

from collections import Counter

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs.crossing import crossing_layout, random_ranks
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

# id -> (size, num_crossings, obstacle object)
CONFIGS = {
    f"MiniGrid-{kind}CrossingS{s}N{n}-v0": (s, n, obj)
    for kind, obj in (("Lava", C.LAVA), ("Simple", C.WALL))
    for s, n in ((9, 1), (9, 2), (9, 3), (11, 5))
}
IDS = list(CONFIGS)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_random_actions(env_id):
    env, mg = bridge.paired(env_id)
    n = 2000
    counts = bridge.lockstep(env, mg, bridge.random_actions(seed=1, n=n, forward_bias=0.3))
    assert counts["steps"] == n
    if CONFIGS[env_id][2] == C.LAVA:
        assert counts["terminated"] >= 3, "no lava fall: the test lost its teeth"
    else:
        assert counts["truncated"] >= 1, "the time limit was never reached"


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_guided_episodes(env_id):
    """Noisy shortest-path episodes that reach the goal through the openings."""
    env = horizax.make(env_id)
    mg = bridge.minigrid_env(env_id)
    rng = np.random.default_rng(CONFIGS[env_id][1])
    totals: Counter[str] = Counter()
    episodes = 6
    for episode in range(episodes):
        mg.reset(seed=200 + episode)
        totals.update(bridge.lockstep(env, mg, dist.guided_actions(mg, rng, noise=0.2)))
    assert totals["episodes"] == episodes
    assert totals["reward_nonzero"] >= episodes - 2, "the goal was rarely reached"


def rivers(grid: np.ndarray, obstacle: int) -> tuple[np.ndarray, np.ndarray]:
    """The chosen rivers of u8[N, S, S, 3] layouts and their openings.

    Returns:
        ``(chosen, opening)``: bool[N, R] and i32[N, R] for the candidate rivers, columns
        ``x = 2, 4, ..`` first and then rows ``y = 2, 4, ..``; ``opening`` is the coordinate
        along the river of its one gap (-1 for rivers not drawn).
    """
    size = grid.shape[1]
    coords = np.arange(2, size - 2, 2)
    blocked = grid[..., 0] == obstacle
    lines = np.concatenate(
        [blocked[:, coords, 1:-1], np.swapaxes(blocked[:, 1:-1, coords], 1, 2)], axis=1
    )  # [N, R, S-2]: each candidate river's interior cells
    # A drawn river has exactly one gap; an undrawn one only its crossings with drawn ones.
    chosen = lines.sum(axis=2) >= size - 3
    opening = np.where(chosen, np.argmin(lines, axis=2) + 1, -1)
    return chosen, opening


def crossing_features(obstacle: int):
    def features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
        chosen, opening = rivers(layouts.grid, obstacle)
        size = layouts.grid.shape[1]
        out = {
            "rivers": (chosen * (1 << np.arange(chosen.shape[1]))).sum(axis=1),
            "agent": dist.cell_index(layouts.agent_pos, size),
            "agent_dir": layouts.agent_dir,
            # The first two openings together reflect the path order.
            "openings_01": (opening[:, 0] + 1) * (size + 1) + opening[:, 1] + 1,
        }
        out.update({f"opening_{r}": opening[:, r] for r in range(chosen.shape[1])})
        return out

    return features


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    n = 3000
    dist.compare_with_minigrid(env_id, crossing_features(CONFIGS[env_id][2]), n)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size, num_crossings, obstacle = CONFIGS[env_id]
    layouts = dist.horizax_layouts(horizax.make(env_id), 512, seed=size + num_crossings)
    grid = layouts.grid
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    np.testing.assert_array_equal(goal, np.broadcast_to([size - 2, size - 2], goal.shape))
    assert (layouts.agent_pos == 1).all() and (layouts.agent_dir == 0).all()
    obstacle_cell = C.LAVA_CELL if obstacle == C.LAVA else C.WALL_CELL
    chosen, opening = rivers(grid, obstacle)
    assert (chosen.sum(axis=1) == num_crossings).all()
    coords = np.arange(2, size - 2, 2)
    half = len(coords)
    for i in range(len(layouts)):
        g = grid[i]
        assert set(np.unique(g[..., 0])) <= {C.EMPTY, C.WALL, C.GOAL, obstacle}
        walls = g[..., 0] == C.WALL
        assert walls[0].all() and walls[-1].all() and walls[:, 0].all() and walls[:, -1].all()
        # Rebuild the layout from the chosen rivers and their openings: nothing else differs.
        expected = np.zeros_like(g[1:-1, 1:-1, 0], dtype=bool)
        cols, rows = coords[chosen[i, :half]], coords[chosen[i, half:]]
        expected[cols - 1, :] = True
        expected[:, rows - 1] = True
        for r in np.flatnonzero(chosen[i]):
            x, y = (coords[r], opening[i, r]) if r < half else (opening[i, r], coords[r - half])
            # One gap per river, never where two rivers cross.
            assert x not in cols or y not in rows
            expected[x - 1, y - 1] = False
        inside = g[1:-1, 1:-1]
        assert (inside[..., 0] == obstacle)[expected].all()
        assert (inside[expected] == obstacle_cell).all()
        assert (inside[..., 0][~expected] != obstacle).all()
        # The goal is reachable from the start without touching the obstacle.
        open_cells = (g[..., 0] == C.EMPTY) | (g[..., 0] == C.GOAL)
        assert dist.reachable(g, layouts.agent_pos[i], open_cells)[size - 2, size - 2]


def test_invalid_configurations_are_rejected():
    with pytest.raises(ValueError, match="odd size"):
        crossing_layout(10, 1, C.LAVA_CELL)
    with pytest.raises(ValueError, match="num_crossings"):
        crossing_layout(9, 7, C.LAVA_CELL)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_random_ranks_are_uniform_permutations(n):
    keys = jax.random.split(jax.random.PRNGKey(n), 20000)
    ranks = np.asarray(jax.jit(jax.vmap(lambda k: random_ranks(k, n)))(keys))
    assert (np.sort(ranks, axis=1) == np.arange(n)).all()
    # Each item takes each rank with probability 1/n.
    freq = (ranks[:, :, None] == np.arange(n)).mean(axis=0)
    assert np.abs(freq - 1 / n).max() < 5 * np.sqrt((1 / n) / len(keys))
