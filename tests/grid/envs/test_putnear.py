"""PutNear: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.putnear import putnear_layout
from horizax.grid.state import make_state, walled_grid
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

CONFIGS = {f"MiniGrid-PutNear-{s}x{s}-N{n}-v0": (s, n) for s, n in ((6, 2), (8, 3))}
IDS = list(CONFIGS)
N_LAYOUTS = 4000
LOCKSTEP_STEPS = 2000  # per id
KINDS = ("key", "ball", "box")


def putnear_mission(mg: Any) -> jax.Array:
    """The mission array of a MiniGrid PutNearEnv."""
    return missions.encode(
        missions.Template.PUT_NEAR,
        color=C.COLOR_NAMES.index(mg.moveColor),
        kind=C.OBJECT_NAMES.index(mg.move_type),
        color2=C.COLOR_NAMES.index(mg.target_color),
        kind2=C.OBJECT_NAMES.index(mg.target_type),
        pos=tuple(int(v) for v in mg.target_pos),
    )


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)
    size, num_objs = CONFIGS[env_id]
    mg = bridge.minigrid_env(env_id)
    assert (mg.width, mg.height, mg.max_steps, mg.numObjs) == (size, size, 5 * size, num_objs)
    assert mg.see_through_walls


# ----------------------------------------------------------------------------- lockstep

# After one first "wander" episode (time limit): put near the target, drop far from it, drop
# into an occupied cell, pick up a wrong object, or act at random.
MODES = ("success", "far", "blocked", "wrong", "random")
MODE_P = (0.4, 0.15, 0.15, 0.15, 0.15)


def _objects(sim: Any) -> dict[tuple[int, int], Any]:
    return {
        (x, y): obj
        for x in range(sim.width)
        for y in range(sim.height)
        if (obj := sim.grid.get(x, y)) is not None and obj.type in KINDS
    }


def _walk_to_face(sim: Any, goals: list[tuple[int, int]]) -> int | None:
    """The first action towards facing the nearest reachable cell of ``goals`` (None: none)."""
    grid = sim.grid.encode()
    agent = np.asarray(sim.agent_pos)
    for goal in sorted(goals, key=lambda g: np.abs(np.asarray(g) - agent).sum()):
        action = dist._first_action_to_face(grid, sim.agent_pos, int(sim.agent_dir), goal)
        if action is not None:
            return int(action)
    return None


def _drop_cells(sim: Any, mode: str, objs: dict) -> list[tuple[int, int]]:
    """Where the held object should be dropped (or fail to drop) in ``mode``."""
    if mode == "blocked":
        return list(objs)
    tx, ty = (int(v) for v in sim.target_pos)
    agent = tuple(int(v) for v in sim.agent_pos)
    return [
        (x, y)
        for x in range(1, sim.width - 1)
        for y in range(1, sim.height - 1)
        if sim.grid.get(x, y) is None
        and (x, y) != agent
        and (max(abs(x - tx), abs(y - ty)) <= 1) == (mode == "success")
    ]


def _policy(sim: Any, mode: str, rng: np.random.Generator) -> int:
    """One action of a noisy driver that walks to an object, picks it up, walks, drops.

    Facing the object to pick up it sometimes drops (empty hands: a no-op) or toggles first,
    so those actions are compared in front of every kind (a toggled box disappears).
    """
    if mode == "wander":
        return int(rng.choice([C.LEFT, C.RIGHT, C.FORWARD, C.FORWARD, C.DONE]))
    if mode == "random" or rng.random() < 0.08:
        return int(rng.integers(0, C.NUM_ACTIONS))
    objs = _objects(sim)
    front = tuple(int(v) for v in sim.front_pos)
    if sim.carrying is None:
        move = (sim.move_type, sim.moveColor)
        goals = [p for p, o in objs.items() if ((o.type, o.color) == move) != (mode == "wrong")]
        if front in goals:
            return int(rng.choice([C.PICKUP] * 8 + [C.DROP, C.TOGGLE]))
    else:
        goals = _drop_cells(sim, mode, objs)
        if front in goals:
            return C.DROP
    action = _walk_to_face(sim, goals)
    return int(rng.integers(0, C.NUM_ACTIONS)) if action is None else action


def putnear_script(mg: Any, n_steps: int, seed: int) -> tuple[np.ndarray, Counter]:
    """i32[T] actions (T >= n_steps, whole episodes) and what they do, planned on a copy of
    ``mg`` that mirrors `bridge.lockstep` (reset with ``seed=n`` after action ``n``)."""
    rng = np.random.default_rng(seed)
    sim = copy.deepcopy(mg)
    actions: list[int] = []
    seen: Counter = Counter()
    mode = "wander"
    while True:
        action = _policy(sim, mode, rng)
        front = sim.grid.get(*sim.front_pos)
        holding = sim.carrying is not None
        if front is not None and action in (C.PICKUP, C.DROP, C.TOGGLE):
            seen[(action, front.type)] += 1
        _, reward, terminated, truncated, _ = sim.step(action)
        actions.append(action)
        if action == C.DROP:
            if not holding:
                seen["drop_empty_handed"] += 1
                assert not terminated
            elif front is not None:
                seen["drop_into_occupied"] += 1
                seen[("held_drop", front.type)] += 1
                assert terminated and reward == 0
            else:
                seen["put_near" if reward > 0 else "drop_far"] += 1
                assert terminated
        elif terminated:
            assert action == C.PICKUP and reward == 0
            seen["wrong_pickup"] += 1
        seen["truncated"] += int(truncated and not terminated)
        if terminated or truncated:
            sim.reset(seed=len(actions) - 1)
            if len(actions) >= n_steps:
                return np.asarray(actions, np.int32), seen
            mode = str(rng.choice(MODES, p=MODE_P))


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """A wandering episode, then noisy guided episodes ending in every way PutNear ends."""
    env, mg = bridge.paired(env_id)
    actions, seen = putnear_script(mg, LOCKSTEP_STEPS, seed=CONFIGS[env_id][0])
    counts = bridge.lockstep(env, mg, actions, mission_fn=putnear_mission)
    assert counts["steps"] == len(actions) >= LOCKSTEP_STEPS
    ends = ("put_near", "drop_far", "drop_into_occupied", "wrong_pickup")
    assert counts["terminated"] == sum(seen[end] for end in ends)
    assert counts["reward_nonzero"] == seen["put_near"] >= 20
    for end in ends[1:]:
        assert seen[end] >= 10, f"too few {end} terminations: {seen[end]}"
    assert seen["drop_empty_handed"] >= 10
    assert sum(seen[("held_drop", kind)] for kind in KINDS) >= 10, "few drops onto objects"
    assert counts["truncated"] == seen["truncated"] >= 1
    for action in (C.PICKUP, C.DROP, C.TOGGLE):
        for kind in KINDS:
            assert seen[(action, kind)] >= 2, f"action {action} never tried facing a {kind}"


# ----------------------------------------------------------------------------- layouts


def object_positions(layouts: dist.Layouts, slot: str) -> np.ndarray:
    """i32[N, 2]: the cell of the mission's object to move ("move") or target ("target")."""
    m = layouts.mission
    kind, colour = (
        (missions.KIND, missions.COLOR)
        if slot == "move"
        else (
            missions.KIND2,
            missions.COLOR2,
        )
    )
    mask = (layouts.grid[..., 0] == m[:, kind, None, None]) & (
        layouts.grid[..., 1] == m[:, colour, None, None]
    )
    return dist.single_position(mask)


def chebyshev(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a - b).max(axis=-1)


def putnear_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent, m = layouts.grid, layouts.agent_pos, layouts.mission
    n, _, height = grid.shape[:3]
    kind = grid[..., 0]
    present = np.isin(kind, (C.KEY, C.BALL, C.BOX)).reshape(n, -1)
    flat = np.arange(present.shape[1])
    move, target = object_positions(layouts, "move"), object_positions(layouts, "target")
    counts = [(kind == k).sum(axis=(1, 2)) for k in (C.KEY, C.BALL, C.BOX)]
    return {
        "agent": dist.cell_index(agent, height),
        "agent_dir": layouts.agent_dir,
        "first_object": np.where(present, flat, flat.size).min(axis=1),
        "last_object": np.where(present, flat, -1).max(axis=1),
        "move": dist.cell_index(move, height),
        "target": dist.cell_index(target, height),
        "target_offset": dist.cell_index(target - move + height, 2 * height),
        "agent_to_move": chebyshev(agent, move),
        "kinds": m[:, missions.KIND] * 8 + m[:, missions.KIND2],
        "colours": m[:, missions.COLOR] * 6 + m[:, missions.COLOR2],
        "kind_counts": counts[0] * 16 + counts[1] * 4 + counts[2],
        "move_pair": m[:, missions.KIND] * 6 + m[:, missions.COLOR],
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(env_id, putnear_features, N_LAYOUTS, mission_fn=putnear_mission)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size, num_objs = CONFIGS[env_id]
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, pos, m, n = layouts.grid, layouts.agent_pos, layouts.mission, len(layouts)
    rows = np.arange(n)
    kind = grid[..., 0]
    assert grid.shape == (n, size, size, 3)
    walls = kind == C.WALL
    assert walls[:, [0, -1], :].all() and walls[:, :, [0, -1]].all()
    inside = kind[:, 1:-1, 1:-1]
    assert set(np.unique(inside)) <= {C.EMPTY, C.KEY, C.BALL, C.BOX}
    assert (grid[..., 2] == 0).all(), "boxes are empty, nothing else has a state"
    # num_objs objects, distinct (kind, colour), pairwise more than one cell apart.
    cells = [np.argwhere(kind[i] != C.EMPTY) for i in range(n)]
    for i in range(n):
        objs = cells[i][(cells[i] > 0).all(axis=1) & (cells[i] < size - 1).all(axis=1)]
        assert len(objs) == num_objs
        pairs = {tuple(grid[i, x, y, :2]) for x, y in objs}
        assert len(pairs) == num_objs
        gaps = chebyshev(objs[:, None], objs[None, :]) + 2 * np.eye(num_objs, dtype=int)
        assert gaps.min() >= 2
    # The mission: two different objects; pos is the target's cell; the agent on an empty cell.
    assert (m[:, missions.TEMPLATE] == missions.Template.PUT_NEAR).all()
    move, target = object_positions(layouts, "move"), object_positions(layouts, "target")
    np.testing.assert_array_equal(target, m[:, missions.X : missions.Y + 1])
    assert (move != target).any(axis=1).all()
    np.testing.assert_array_equal(m[:, missions.X2 :], -1)
    assert (kind[rows, pos[:, 0], pos[:, 1]] == C.EMPTY).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}


def _holding_state(front: tuple[int, int, int], near: bool):
    """A 6x6 state: agent at (2, 2) facing right, holding the red key to move near the blue
    ball at (4, 3) (or at (4, 4), two rows away, when not ``near``); ``front`` at (3, 2)."""
    grid = walled_grid(6, 6)
    target = (4, 3) if near else (4, 4)
    grid[target] = (C.BALL, C.BLUE, 0)
    grid[3, 2] = front
    mission = missions.encode(
        missions.Template.PUT_NEAR,
        color=C.RED,
        kind=C.KEY,
        color2=C.BLUE,
        kind2=C.BALL,
        pos=target,
    )
    state = make_state(
        jnp.asarray(grid),
        jnp.array([2, 2]),
        jnp.int32(0),
        mission=mission,
        carrying=jnp.asarray((C.KEY, C.RED, 0), jnp.uint8),
    )
    env = horizax.make("MiniGrid-PutNear-6x6-N2-v0").disable_autoreset()
    ts = env.reset(jax.random.PRNGKey(0))
    return env, ts.replace(state=state.replace(max_steps=jnp.int32(30)))


@pytest.mark.parametrize(
    ("front", "near", "reward"),
    [
        (C.EMPTY_CELL, True, 1 - 0.9 / 30),
        (C.EMPTY_CELL, False, 0.0),
        (C.WALL_CELL, True, 0.0),
        ((C.BOX, C.GREEN, 0), True, 0.0),
    ],
)
def test_every_drop_while_holding_ends_the_episode(front, near, reward):
    """Near the target it pays; far from it, or into an occupied cell (the key stays in hand)
    it does not; all of them terminate, as in MiniGrid."""
    env, ts = _holding_state(front, near)
    ts = env.step(ts, jnp.int32(C.DROP))
    assert bool(ts.is_termination()) and float(ts.reward) == pytest.approx(reward)
    dropped = tuple(front) == tuple(C.EMPTY_CELL)
    assert (int(ts.state.carrying[0]) == C.EMPTY) == dropped


def test_empty_handed_drop_and_right_pickup_go_on():
    env, ts = _holding_state((C.KEY, C.RED, 0), True)
    ts = ts.replace(state=ts.state.replace(carrying=jnp.asarray(C.EMPTY_CELL, jnp.uint8)))
    ts = env.step(ts, jnp.int32(C.DROP))
    assert bool(ts.is_transition())
    ts = env.step(ts, jnp.int32(C.PICKUP))  # the red key: the object to move
    assert bool(ts.is_transition()) and int(ts.state.carrying[0]) == C.KEY


def test_wrong_pickup_ends_the_episode():
    env, ts = _holding_state((C.BOX, C.GREEN, 0), True)
    ts = ts.replace(state=ts.state.replace(carrying=jnp.asarray(C.EMPTY_CELL, jnp.uint8)))
    ts = env.step(ts, jnp.int32(C.PICKUP))
    assert bool(ts.is_termination()) and float(ts.reward) == 0.0


def test_reset_has_no_loops():
    jaxpr = jax.make_jaxpr(putnear_layout(8, 3))(jax.random.PRNGKey(0))
    assert not any(e.primitive.name in ("while", "scatter") for e in jaxpr.eqns)


def test_impossible_configurations_are_rejected():
    with pytest.raises(ValueError, match="num_objs"):
        putnear_layout(6, 1)
    with pytest.raises(ValueError, match="cannot always fit"):
        putnear_layout(5, 2)
