"""WFC: configuration and steps against MiniGrid, layout and random-policy distributions
against MiniGrid's (a committed fixture, checked live), and the structure of every layout.

MiniGrid's WFC resets take 0.2 to 2 s each, so its statistics come from
``tests/grid/wfc/minigrid_reference.json`` (`tests.grid.wfc.make_reference`: its seeds
``0 .. n-1``, the per-feature histograms of `tests.grid.wfc.features`);
`test_fixture_is_live_minigrids` reruns a few live resets against it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions, observations
from horizax.grid.envs import wfc
from horizax.grid.wfc import level, patterns, presets
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.wfc import features, make_reference, reference

IDS = sorted(reference.PRESET_OF)
N_OURS = 500
FIXTURE = json.loads(make_reference.FIXTURE.read_text())


@functools.cache
def ours(env_id: str) -> tuple[reference.Samples, Any]:
    """horizax's samples of ``env_id``, shared by the distribution and structure tests."""
    return reference.horizax_samples(env_id, N_OURS)


def test_registered_ids():
    assert [i for i in horizax.registered_ids() if "-WFC-" in i] == IDS
    assert len(IDS) == 6


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    """Size, time limit, actions, view, mission and the WFC settings of MiniGrid's preset."""
    from minigrid.envs.wfc.config import WFC_PRESETS

    env, mg = horizax.make(env_id), reference.minigrid_wfc_env(env_id)
    assert (env.width, env.height, env.max_steps) == (mg.width, mg.height, mg.max_steps)
    assert (env.width, env.max_steps) == (25, 500)
    assert env.num_actions == mg.action_space.n == 7
    assert env.see_through_walls == mg.see_through_walls is False
    assert env.observation_fn is observations.symbolic_first_person
    assert mg.agent_view_size == 7 and mg.ensure_connected and mg.padding == 1
    assert missions._FIXED[missions.Template.TRAVERSE_MAZE] == mg._gen_mission()
    config = WFC_PRESETS[reference.PRESET_OF[env_id]]
    preset = presets.PRESETS[reference.PRESET_OF[env_id]]
    assert (config.pattern_path.name, config.pattern_width) == (preset.image, preset.pattern_width)
    assert (config.input_periodic, config.output_periodic) == (
        preset.periodic_input,
        preset.periodic_output,
    )
    assert (config.tile_size, config.rotations, config.backtracking) == (1, 8, False)
    assert (config.loc_heuristic, config.choice_heuristic) == ("entropy", "weighted")


@pytest.mark.reference
def test_lockstep_with_minigrid():
    """Steps, views, rewards and both episode ends on MiniGrid's own WFC levels: random
    actions to the 500-step limit, then noisy shortest-path episodes to the goal."""
    env_id = "MiniGrid-WFC-ObstaclesBlackdots-v0"  # MiniGrid's quickest WFC reset
    env, mg = horizax.make(env_id), reference.minigrid_wfc_env(env_id)
    mg.reset(seed=0)
    prefix = bridge.random_actions(seed=1, n=1100, forward_bias=0.4)
    actions = dist.lockstep_script(mg, prefix, 4, np.random.default_rng(0), noise=0.2)
    counts = bridge.lockstep(env, mg, actions)
    assert counts["steps"] == len(actions)
    assert counts["truncated"] >= 1 and counts["terminated"] == counts["reward_nonzero"] >= 4


def test_fixture_is_of_these_patterns_and_ids():
    """The fixture was sampled from the pattern files horizax ships, for every id."""
    assert sorted(FIXTURE["ids"]) == IDS
    for image, digest in FIXTURE["pattern_sha256"].items():
        assert hashlib.sha256(presets.pattern_file(image).read_bytes()).hexdigest() == digest
    assert FIXTURE["minigrid"] == "3.2.0"


@pytest.mark.slow
@pytest.mark.parametrize("env_id", IDS)
def test_layouts_and_random_episodes_match_minigrid(env_id):
    """Every layout is well formed (`assert_well_formed`), and every feature of
    `tests.grid.wfc.features` (cell-type frequencies, components, placement, restarts,
    random-policy outcomes) is distributed as in MiniGrid's fixture. One test per id: its
    batch of layouts is compiled and drawn once."""
    samples, solution = ours(env_id)
    assert_well_formed(env_id, samples, solution)
    theirs = features.from_histograms(FIXTURE["ids"][env_id]["features"])
    mine = features.of(samples, env_id)
    assert mine.keys() == theirs.keys()
    failures = []
    for name in mine:
        statistic, dof, p = dist.chi_square_homogeneity(mine[name], theirs[name])
        if p < dist.P_MIN:
            failures.append(f"{name}: chi2={statistic:.1f} dof={dof} p={p:.1e}")
    assert not failures, f"{env_id} differs from MiniGrid:\n" + "\n".join(failures)


def assert_well_formed(env_id: str, samples: reference.Samples, solution: Any) -> None:
    """Walls on the border; agent and goal on distinct free cells; the free cells are the
    raw output's largest component (the first in x-major order on ties); neighbouring
    output cells hold patterns that agree on their overlap (across the edges too where the
    output wraps); every solve finished."""
    from scipy import ndimage

    tables = patterns.tables(reference.PRESET_OF[env_id])
    periodic = presets.PRESETS[reference.PRESET_OF[env_id]].periodic_output
    assert solution.solved.all()
    n = len(samples)
    rows = np.arange(n)
    walls = samples.walls
    assert walls[:, [0, -1]].all() and walls[:, :, [0, -1]].all()
    free = ~walls
    assert free[rows, samples.goal[:, 0], samples.goal[:, 1]].all()
    assert free[rows, samples.agent[:, 0], samples.agent[:, 1]].all()
    assert (samples.agent != samples.goal).any(axis=1).all()
    assert set(np.unique(samples.agent_dir)) == {0, 1, 2, 3}
    for i in range(n):
        labels, _ = ndimage.label(~samples.raw_walls[i])
        sizes = np.bincount(labels.ravel())[1:]
        largest = labels == 1 + np.argmax(sizes)
        np.testing.assert_array_equal(free[i, 1:-1, 1:-1], largest)
        assignment = solution.patterns[i]
        for d in (1, 2):  # right and down
            dx, dy = patterns.DIRECTIONS[d]
            beside = np.roll(assignment, (-dx, -dy), axis=(0, 1))
            ok = tables.compatible[d][assignment, beside]
            assert ok.all() if periodic else ok[: 23 - dx, : 23 - dy].all()


def test_reset_draws_the_family_layout():
    """`horizax.make(id).reset` is the layout the distribution tests sample."""
    env_id = "MiniGrid-WFC-ObstaclesBlackdots-v0"
    env = horizax.make(env_id)
    key = jax.random.PRNGKey(7)
    ts = jax.jit(env.reset)(key)
    state, _ = jax.jit(lambda k: level.generate(wfc.program("ObstaclesBlackdots"), k))(key)
    for field in ("grid", "agent_pos", "agent_dir", "mission"):
        np.testing.assert_array_equal(getattr(ts.state, field), getattr(state, field))
    assert missions.mission_text(ts.state) == "traverse the maze to get to the goal"
    assert ts.observation.shape == (7, 7, 3)
    grid = np.asarray(ts.state.grid)[..., 0]
    assert set(np.unique(grid)) == {C.EMPTY, C.WALL, C.GOAL}


@pytest.mark.slow
@pytest.mark.reference
def test_fixture_is_live_minigrids():
    """A few live MiniGrid resets per id (seeds the fixture did not use) agree with it:
    their raw outputs are made of horizax's patterns, in the same orientation, and their free
    cells' mean lies within 5 standard errors of the fixture's."""
    for env_id in IDS:
        entry = FIXTURE["ids"][env_id]
        live, _ = reference.minigrid_samples(env_id, range(10**6, 10**6 + 3))
        tables = patterns.tables(reference.PRESET_OF[env_id])
        k = tables.patterns.shape[1]
        shapes = {tuple(tables.tile_walls[p].T.ravel()) for p in tables.patterns}
        for raw in live.raw_walls:  # [x, y]; a pattern is [row y, column x]
            for x in range(23 - k + 1):
                for y in range(23 - k + 1):
                    assert tuple(raw[x : x + k, y : y + k].ravel()) in shapes, (env_id, x, y)
        free = (~live.raw_walls).sum(axis=(1, 2))
        mean, std = entry["raw_free_mean"], entry["raw_free_std"]
        assert abs(free.mean() - mean) < 5 * std / np.sqrt(len(free)), (env_id, free, mean)
