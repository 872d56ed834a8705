"""GoToDoor: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.gotodoor import gotodoor_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs.goto_driver import goto_script
from tests.grid.envs.prng_draws import JAX_PRNG_PRIMITIVES, trace_counting_draws

SIZES = {f"MiniGrid-GoToDoor-{s}x{s}-v0": s for s in (5, 6, 8)}
IDS = list(SIZES)
N_LAYOUTS = 6000
SCENARIOS = [  # after one "wander" episode (no done/toggle) that reaches the time limit
    "success",
    "success_turned",  # next to the door, facing away: still a success
    "far",
    "toggle",
    "juggle_then_success",  # pickups/drops in front of doors and walls do nothing
    "success_turned",
    "far",
    "success",
    "toggle",
]


def gotodoor_mission(mg: Any) -> Any:
    """The mission array of MiniGrid's current GoToDoor episode."""
    from minigrid.core.constants import COLOR_TO_IDX

    return missions.encode(
        missions.Template.GO_TO_DOOR,
        color=COLOR_TO_IDX[mg.target_color],
        kind=C.DOOR,
        pos=tuple(int(v) for v in mg.target_pos),
    )


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Scripted episodes: successes (facing the door or not), far dones, toggles, time limit."""
    env, mg = bridge.paired(env_id)
    actions, seen = goto_script(mg, SCENARIOS, min_steps=800, seed=SIZES[env_id])
    counts = bridge.lockstep(env, mg, actions, mission_fn=gotodoor_mission)
    assert counts["steps"] == len(actions) >= 800
    assert counts["truncated"] == seen["truncated"] >= 1, "the time limit was never reached"
    # Every done and every toggle terminates; nothing else does.
    dones = sum(v for k, v in seen.items() if k.startswith("done_"))
    toggles = sum(v for k, v in seen.items() if k.startswith("toggle_"))
    assert counts["terminated"] == seen["terminated"] == dones + toggles
    # Success exactly for dones next to the door, whichever way the agent faces.
    assert counts["reward_nonzero"] == seen["success"]
    assert seen["success"] == seen["done_next_facing"] + seen["done_next_not_facing"]
    assert seen["done_next_facing"] >= 3 and seen["done_next_not_facing"] >= 3
    assert seen["done_diagonal"] + seen["done_distance_2"] >= 3  # failed dones
    assert seen["toggle_door"] >= 1
    assert seen["pickup_door_empty_hand"] + seen["drop_door_empty_hand"] >= 1


def room_size(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The room's width and height: the non-empty cells of the top row and left column."""
    kind = grid[..., 0]
    return (kind[:, :, 0] != C.EMPTY).sum(axis=1), (kind[:, 0, :] != C.EMPTY).sum(axis=1)


def doors_by_side(grid: np.ndarray) -> dict[str, np.ndarray]:
    """{side: i32[N, 3]} the ``(x, y, colour)`` of the door on each wall of the room."""
    width, height = room_size(grid)
    out: dict[str, list[np.ndarray]] = {s: [] for s in ("top", "bottom", "left", "right")}
    for i in range(len(grid)):
        doors = np.argwhere(grid[i, ..., 0] == C.DOOR)
        assert len(doors) == 4
        for x, y in doors:
            side = {
                y == 0: "top",
                x == 0: "left",
                y == height[i] - 1: "bottom",
                x == width[i] - 1: "right",
            }[True]
            out[side].append(np.array([x, y, grid[i, x, y, 1]]))
    return {side: np.stack(rows) for side, rows in out.items()}


def gotodoor_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent, mission = layouts.grid, layouts.agent_pos, layouts.mission
    height = grid.shape[2]
    width, room_h = room_size(grid)
    doors = doors_by_side(grid)
    target = mission[:, [missions.X, missions.Y]]
    colours = np.stack([doors[s][:, 2] for s in ("top", "bottom", "left", "right")], axis=1)
    side = np.argmax(
        np.stack(
            [(doors[s][:, :2] == target).all(axis=1) for s in ("top", "bottom", "left", "right")],
            axis=1,
        ),
        axis=1,
    )
    return {
        "room": width * 16 + room_h,
        "top_x": doors["top"][:, 0],
        "bottom": dist.cell_index(doors["bottom"][:, :2], height),
        "left_y": doors["left"][:, 1],
        "right": dist.cell_index(doors["right"][:, :2], height),
        "top_x_given_width": doors["top"][:, 0] * 16 + width,
        **{f"colour_{s}": doors[s][:, 2] for s in doors},
        "colours": colours @ np.array([216, 36, 6, 1]),
        "agent": dist.cell_index(agent, height),
        "agent_dir": layouts.agent_dir,
        "agent_in_room": dist.cell_index(agent, height) * 16 + width * 4 + room_h,
        "target_side": side,
        "target_colour": mission[:, missions.COLOR],
        "target": dist.cell_index(target, height),
        "target_minus_agent": dist.cell_index(target - agent + height, 2 * height),
        "mission_kind": mission[:, missions.KIND],
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(env_id, gotodoor_features, N_LAYOUTS, mission_fn=gotodoor_mission)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size = SIZES[env_id]
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, pos, mission, n = layouts.grid, layouts.agent_pos, layouts.mission, len(layouts)
    rows = np.arange(n)
    kind = grid[..., 0]
    width, height = room_size(grid)
    assert set(np.unique(width)) == set(np.unique(height)) == set(range(5, size + 1))
    xs, ys = np.arange(size)[None, :, None], np.arange(size)[None, None, :]
    w, h = width[:, None, None], height[:, None, None]
    inside = (xs < w) & (ys < h)
    border = inside & ((xs == 0) | (ys == 0) | (xs == w - 1) | (ys == h - 1))
    # Walls and doors exactly on the room's border; everything else empty.
    assert (np.isin(kind, (C.WALL, C.DOOR)) == border).all()
    assert (kind[~border] == C.EMPTY).all()
    assert ((kind == C.DOOR).sum(axis=(1, 2)) == 4).all()
    doors = dist.cells_of(grid, C.DOOR)
    assert (grid[doors][:, 2] == C.CLOSED).all()
    for side, door in doors_by_side(grid).items():
        along = door[:, 0] if side in ("top", "bottom") else door[:, 1]
        limit = width if side in ("top", "bottom") else height
        assert (along >= 2).all() and (along <= limit - 3).all()
    colours = np.sort(np.where(doors, grid[..., 1], 99).reshape(n, -1), axis=1)[:, :4]
    assert (np.diff(colours, axis=1) > 0).all(), "door colours must be distinct"
    # The agent inside the room; the mission names one of the doors, by colour and position.
    assert (pos >= 1).all() and (pos[:, 0] <= width - 2).all() and (pos[:, 1] <= height - 2).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    tx, ty = mission[:, missions.X], mission[:, missions.Y]
    assert (kind[rows, tx, ty] == C.DOOR).all()
    assert (grid[rows, tx, ty, 1] == mission[:, missions.COLOR]).all()
    assert (mission[:, missions.TEMPLATE] == missions.Template.GO_TO_DOOR).all()
    assert (mission[:, missions.KIND] == C.DOOR).all()
    # Solvable: the cell inside the room next to the target door is reachable.
    for i in range(200):
        inner = (tx[i] + (tx[i] == 0) - (tx[i] == width[i] - 1), ty[i] + (ty[i] == 0))
        inner = (inner[0], inner[1] - (ty[i] == height[i] - 1))
        assert dist.reachable(grid[i], pos[i], kind[i] == C.EMPTY)[inner]


def test_success_needs_adjacency_not_facing():
    """``done`` next to the door succeeds whichever way the agent faces; ``done`` facing the
    door from two cells away, or from a diagonal neighbour, fails (and still terminates)."""
    env = horizax.make("MiniGrid-GoToDoor-5x5-v0").disable_autoreset()
    ts = env.reset(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    door = np.asarray(ts.state.mission[missions.X : missions.Y + 1])
    inward = np.array([0, 1]) if door[1] == 0 else np.array([0, -1]) if door[1] == 4 else None
    if inward is None:
        inward = np.array([1, 0]) if door[0] == 0 else np.array([-1, 0])
    towards = {(1, 0): 0, (0, 1): 1, (-1, 0): 2, (0, -1): 3}[tuple(-inward)]
    inner = door + inward
    sideways = inward[::-1]
    cases = [
        (inner, towards, True),
        *((inner, (towards + turn) % 4, True) for turn in (1, 2, 3)),
        (inner + inward, towards, False),
        (inner + sideways, towards, False),
    ]
    for pos, direction, success in cases:
        state = ts.state.replace(
            agent_pos=jax.numpy.asarray(pos, jax.numpy.int32),
            agent_dir=jax.numpy.int32(direction),
        )
        out = step(ts.replace(state=state), jax.numpy.int32(C.DONE))
        assert bool(out.is_termination()), (pos, direction)
        assert (float(out.reward) > 0) == success, (pos, direction)


def test_reset_graph_has_no_loops_or_scatters():
    jaxpr, draws = trace_counting_draws(gotodoor_layout(8), jax.random.PRNGKey(0))
    names = {e.primitive.name for e in jaxpr.eqns}
    assert not names & {"scatter", "while", "scan", "sort", "gather", *JAX_PRNG_PRIMITIVES}
    assert draws == 1


def test_small_sizes_are_rejected():
    with pytest.raises(ValueError, match="size >= 5"):
        gotodoor_layout(4)
