"""GoToObject: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.gotoobject import gotoobject_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs.goto_driver import goto_script
from tests.grid.envs.prng_draws import JAX_PRNG_PRIMITIVES, trace_counting_draws

VARIANTS = {f"MiniGrid-GoToObject-{s}x{s}-N{n}-v0": (s, n) for s, n in ((6, 2), (8, 2))}
IDS = list(VARIANTS)
N_LAYOUTS = 6000
OBJECTS = (C.KEY, C.BALL, C.BOX)
SCENARIOS = [  # after one "wander" episode (no done/toggle) that reaches the time limit
    "toggle",
    "success",
    "juggle_then_success_turned",
    "far",
    "toggle",
    "juggle_then_success",
    "stand_on_target",  # carry the target off and stand on its cell: distance 0 fails
    "juggle_then_far",
    "success_turned",
    "juggle_then_toggle",
]


def gotoobject_mission(mg: Any) -> Any:
    """The mission array of MiniGrid's current GoToObject episode."""
    from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX

    return missions.encode(
        missions.Template.GO_TO_OBJECT,
        color=COLOR_TO_IDX[mg.target_color],
        kind=OBJECT_TO_IDX[mg.targetType],
        pos=tuple(int(v) for v in mg.target_pos),
    )


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Scripted episodes: successes (facing the target or not), far dones, toggles, pickups
    and drops of every kind, the time limit."""
    env, mg = bridge.paired(env_id)
    actions, seen = goto_script(mg, SCENARIOS, min_steps=1200, seed=sum(VARIANTS[env_id]))
    counts = bridge.lockstep(env, mg, actions, mission_fn=gotoobject_mission)
    assert counts["steps"] == len(actions) >= 1200
    assert counts["truncated"] == seen["truncated"] >= 1, "the time limit was never reached"
    # Every done and every toggle terminates; nothing else does.
    dones = sum(v for k, v in seen.items() if k.startswith("done_"))
    toggles = sum(v for k, v in seen.items() if k.startswith("toggle_"))
    assert counts["terminated"] == seen["terminated"] == dones + toggles
    # Success exactly for dones next to the target's cell, whichever way the agent faces.
    assert counts["reward_nonzero"] == seen["success"]
    assert seen["success"] == seen["done_next_facing"] + seen["done_next_not_facing"]
    assert seen["done_next_facing"] >= 3 and seen["done_next_not_facing"] >= 3
    assert seen["done_diagonal"] >= 1 and seen["done_distance_2"] >= 1
    assert seen["done_distance_0"] >= 1  # on the target's old cell, carrying it
    for name in ("key", "ball", "box"):
        assert seen[f"pickup_{name}_empty_hand"] >= 1, name
        assert seen[f"pickup_{name}_full_hand"] + seen[f"drop_{name}_full_hand"] >= 1, name
        assert seen[f"toggle_{name}"] >= 1, name
    assert seen["drop_empty_full_hand"] >= 10 and seen["drop_empty_empty_hand"] >= 1


def object_code(grid: np.ndarray) -> np.ndarray:
    """i32[N, W, H]: ``(kind - KEY) * 6 + colour`` on object cells, -1 elsewhere."""
    kind, colour = grid[..., 0].astype(np.int32), grid[..., 1].astype(np.int32)
    return np.where(np.isin(kind, OBJECTS), (kind - C.KEY) * C.NUM_COLORS + colour, -1)


def sorted_objects(grid: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(i32[N, count] flat cell indices in x-major order, i32[N, count] their object codes)."""
    codes = object_code(grid).reshape(len(grid), -1)
    cells = np.sort(np.argsort(codes < 0, axis=1, kind="stable")[:, :count], axis=1)
    return cells, np.take_along_axis(codes, cells, axis=1)


def gotoobject_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent, mission = layouts.grid, layouts.agent_pos, layouts.mission
    height = grid.shape[2]
    cells, codes = sorted_objects(grid, 2)
    target = mission[:, [missions.X, missions.Y]]
    target_cell = dist.cell_index(target, height)
    agent_cell = dist.cell_index(agent, height)
    return {
        "object_cells": cells.ravel(),
        "first_object": cells[:, 0],
        "second_object": cells[:, 1],
        "object_codes": codes.ravel(),
        "object_pair": np.sort(codes, axis=1) @ np.array([18, 1]),
        "kinds": np.sort(codes // C.NUM_COLORS, axis=1) @ np.array([3, 1]),
        "same_colour": (codes[:, 0] % 6 == codes[:, 1] % 6).astype(np.int32),
        "agent": agent_cell,
        "agent_dir": layouts.agent_dir,
        "target": target_cell,
        "target_is_first": (target_cell == cells[:, 0]).astype(np.int32),
        "target_kind": mission[:, missions.KIND],
        "target_colour": mission[:, missions.COLOR],
        "target_minus_agent": dist.cell_index(target - agent + height, 2 * height),
        "objects_next_to_agent": sum(
            (np.abs(np.stack([c // height, c % height], 1) - agent).sum(1) == 1).astype(int)
            for c in cells.T
        ),
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(
        env_id, gotoobject_features, N_LAYOUTS, mission_fn=gotoobject_mission
    )


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size, num_objs = VARIANTS[env_id]
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, pos, mission, n = layouts.grid, layouts.agent_pos, layouts.mission, len(layouts)
    rows = np.arange(n)
    kind = grid[..., 0]
    # Walls exactly on the border; inside only empty cells and the objects.
    walls = kind == C.WALL
    assert walls[:, [0, -1], :].all() and walls[:, :, [0, -1]].all()
    assert not walls[:, 1:-1, 1:-1].any()
    assert set(np.unique(kind[:, 1:-1, 1:-1])) == {C.EMPTY, *OBJECTS}
    objects = np.isin(kind, OBJECTS)
    assert (objects.sum(axis=(1, 2)) == num_objs).all()
    assert (grid[objects][:, 2] == 0).all(), "objects carry no state (boxes are empty)"
    _, codes = sorted_objects(grid, num_objs)
    assert (np.diff(np.sort(codes, axis=1), axis=1) > 0).all(), "(kind, colour) pairs repeat"
    assert set(np.unique(codes)) == set(range(18))
    # The agent on a free interior cell; the mission names an object by kind, colour, place.
    assert (kind[rows, pos[:, 0], pos[:, 1]] == C.EMPTY).all()
    assert (pos >= 1).all() and (pos <= size - 2).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    tx, ty = mission[:, missions.X], mission[:, missions.Y]
    assert (kind[rows, tx, ty] == mission[:, missions.KIND]).all()
    assert (grid[rows, tx, ty, 1] == mission[:, missions.COLOR]).all()
    assert (mission[:, missions.TEMPLATE] == missions.Template.GO_TO_OBJECT).all()


def test_success_counts_adjacency_to_the_reset_position():
    """``done`` next to the mission's cell succeeds whatever the facing, even with the object
    carried off; on the cell itself, diagonally next to it or two cells away it fails."""
    env = horizax.make("MiniGrid-GoToObject-8x8-N2-v0").disable_autoreset()
    ts = env.reset(jax.random.PRNGKey(1))
    step = jax.jit(env.step)
    # Carry everything off and move the target to (3, 3): only the mission's position counts.
    objects = jnp.isin(ts.state.grid[..., :1], jnp.asarray(OBJECTS, jnp.uint8))
    grid = jnp.where(objects, jnp.asarray(C.EMPTY_CELL, jnp.uint8), ts.state.grid)
    mission = ts.state.mission.at[missions.X].set(3).at[missions.Y].set(3)
    cases = [((1, 0), True), ((0, -1), True), ((-1, 0), True), ((0, 1), True)]
    cases += [((0, 0), False), ((1, 1), False), ((-1, 1), False), ((2, 0), False)]
    for (dx, dy), success in cases:
        for direction in range(4):
            state = ts.state.replace(
                grid=grid,
                mission=mission,
                agent_pos=jnp.asarray([3 + dx, 3 + dy], jnp.int32),
                agent_dir=jnp.int32(direction),
            )
            out = step(ts.replace(state=state), jnp.int32(C.DONE))
            assert bool(out.is_termination())
            assert (float(out.reward) > 0) == success, (dx, dy, direction)


def test_reset_graph_has_no_loops_or_scatters():
    jaxpr, draws = trace_counting_draws(gotoobject_layout(8, 2), jax.random.PRNGKey(0))
    names = {e.primitive.name for e in jaxpr.eqns}
    assert not names & {"scatter", "while", "scan", "sort", "gather", *JAX_PRNG_PRIMITIVES}
    assert draws == 1


def test_impossible_configurations_are_rejected():
    with pytest.raises(ValueError, match="num_objs"):
        gotoobject_layout(4, 4)
    with pytest.raises(ValueError, match="num_objs"):
        gotoobject_layout(8, 19)
