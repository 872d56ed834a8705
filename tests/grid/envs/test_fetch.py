"""Fetch: lockstep against MiniGrid, layout distribution and structure of every layout."""

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
from horizax.grid.envs.fetch import fetch_layout
from horizax.grid.state import make_state, walled_grid
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

CONFIGS = {f"MiniGrid-Fetch-{s}x{s}-N{n}-v0": (s, n) for s, n in ((5, 2), (6, 2), (8, 3))}
IDS = list(CONFIGS)
N_LAYOUTS = 4000
LOCKSTEP_STEPS = 2000  # per id


def fetch_mission(mg: Any) -> jax.Array:
    """The mission array of a MiniGrid FetchEnv (the phrasing parsed from its string)."""
    suffix = f" {mg.targetColor} {mg.targetType}"
    assert mg.mission.endswith(suffix), mg.mission
    return missions.encode(
        missions.Template.FETCH,
        color=C.COLOR_NAMES.index(mg.targetColor),
        kind=C.OBJECT_NAMES.index(mg.targetType),
        variant=missions.FETCH_PHRASES.index(mg.mission.removesuffix(suffix)),
    )


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)
    size, num_objs = CONFIGS[env_id]
    mg = bridge.minigrid_env(env_id)
    assert (mg.width, mg.height, mg.max_steps, mg.numObjs) == (size, size, 5 * size**2, num_objs)
    assert mg.see_through_walls


# ----------------------------------------------------------------------------- lockstep

MODES = ("right", "wrong", "random")  # after one first "wander" episode


def _objects(sim: Any) -> list[tuple[tuple[int, int], Any]]:
    return [
        ((x, y), obj)
        for x in range(sim.width)
        for y in range(sim.height)
        if (obj := sim.grid.get(x, y)) is not None and obj.type in ("key", "ball")
    ]


def _policy(sim: Any, mode: str, rng: np.random.Generator) -> int:
    """One action of a noisy driver: walk to the target (or a non-target) and pick it up.

    "wander" never picks anything up (the episode runs into the time limit); "random" is
    uniform. Facing the chosen object the driver sometimes drops or toggles first (no-ops in
    Fetch) so those actions are compared in front of every kind too.
    """
    if mode == "wander":
        return int(rng.choice([C.LEFT, C.RIGHT, C.FORWARD, C.FORWARD, C.DROP, C.TOGGLE, C.DONE]))
    if mode == "random" or rng.random() < 0.1:
        return int(rng.integers(0, C.NUM_ACTIONS))
    objs = _objects(sim)
    right = [p for p, o in objs if (o.type, o.color) == (sim.targetType, sim.targetColor)]
    wrong = [p for p, o in objs if (o.type, o.color) != (sim.targetType, sim.targetColor)]
    goals = right if mode == "right" else (wrong or right)
    if tuple(int(v) for v in sim.front_pos) in goals:
        return int(rng.choice([C.PICKUP, C.PICKUP, C.PICKUP, C.DROP, C.TOGGLE]))
    grid = sim.grid.encode()
    for goal in goals:
        action = dist._first_action_to_face(grid, sim.agent_pos, int(sim.agent_dir), goal)
        if action is not None:
            return int(action)
    return int(rng.integers(0, C.NUM_ACTIONS))


def fetch_script(mg: Any, n_steps: int, seed: int) -> tuple[np.ndarray, Counter]:
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
        target = (sim.targetType, sim.targetColor)
        copies = sum((o.type, o.color) == target for _, o in _objects(sim))
        if front is not None and action in (C.PICKUP, C.DROP, C.TOGGLE):
            seen[(action, front.type)] += 1
        _, reward, terminated, truncated, _ = sim.step(action)
        actions.append(action)
        if terminated:
            assert action == C.PICKUP
            seen["right_pickup" if reward > 0 else "wrong_pickup"] += 1
            seen["right_pickup_among_copies"] += int(reward > 0 and copies > 1)
        elif truncated:
            seen["truncated"] += 1
        if terminated or truncated:
            sim.reset(seed=len(actions) - 1)
            if len(actions) >= n_steps:
                return np.asarray(actions, np.int32), seen
            mode = str(rng.choice(MODES, p=[0.45, 0.35, 0.2]))


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """A wandering episode (time limit), then noisy right/wrong fetches and random episodes."""
    env, mg = bridge.paired(env_id)
    actions, seen = fetch_script(mg, LOCKSTEP_STEPS, seed=CONFIGS[env_id][0])
    counts = bridge.lockstep(env, mg, actions, mission_fn=fetch_mission)
    assert counts["steps"] == len(actions) >= LOCKSTEP_STEPS
    # Every episode ends with a pickup or the time limit; only right pickups pay.
    assert counts["terminated"] == seen["right_pickup"] + seen["wrong_pickup"]
    assert counts["reward_nonzero"] == seen["right_pickup"] >= 20
    assert seen["wrong_pickup"] >= 20
    assert seen["right_pickup_among_copies"] >= 1, "no duplicate of the target was fetched"
    assert counts["truncated"] == seen["truncated"] >= 1
    for action in (C.PICKUP, C.DROP, C.TOGGLE):
        for kind in ("key", "ball"):
            assert seen[(action, kind)] >= 3, f"action {action} never tried facing a {kind}"


# ----------------------------------------------------------------------------- layouts


def object_codes(grid: np.ndarray) -> np.ndarray:
    """i32[N, W, H]: ``kind_index * 6 + colour`` for keys (0..5) and balls (6..11), else -1."""
    kind = grid[..., 0]
    code = np.where(kind == C.BALL, 6, 0) + grid[..., 1].astype(np.int32)
    return np.where((kind == C.KEY) | (kind == C.BALL), code, -1)


def fetch_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent, mission = layouts.grid, layouts.agent_pos, layouts.mission
    n, _, height = grid.shape[:3]
    codes = object_codes(grid).reshape(n, -1)
    present = codes >= 0
    flat = np.arange(codes.shape[1])
    first = np.where(present, flat, codes.shape[1]).min(axis=1)
    last = np.where(present, flat, -1).max(axis=1)
    ordered = np.sort(np.where(present, codes, 99), axis=1)[:, : present.sum(axis=1).max()]
    multiset = (ordered * 12 ** np.arange(ordered.shape[1])).sum(axis=1)
    target_code = np.where(mission[:, missions.KIND] == C.BALL, 6, 0) + mission[:, missions.COLOR]
    kind = grid[..., 0]
    x, y = agent[:, 0], agent[:, 1]
    rows = np.arange(n)
    around = [kind[rows, x + dx, y + dy] for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    return {
        "agent": dist.cell_index(agent, height),
        "agent_dir": layouts.agent_dir,
        "first_object": first,
        "last_object": last,
        "objects": multiset,
        "distinct_objects": np.array([len(set(row[row >= 0])) for row in codes]),
        "n_keys": (codes.reshape(n, -1) // 6 == 0).sum(axis=1),
        "target": target_code,
        "variant": mission[:, missions.VARIANT],
        "target_copies": (codes == target_code[:, None]).sum(axis=1),
        "target_is_first": (codes[rows, first] == target_code).astype(np.int32),
        "objects_next_to_agent": sum((k == C.KEY) | (k == C.BALL) for k in around),
        "target_and_variant": target_code * 5 + mission[:, missions.VARIANT],
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    dist.compare_with_minigrid(env_id, fetch_features, N_LAYOUTS, mission_fn=fetch_mission)


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size, num_objs = CONFIGS[env_id]
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, pos, mission, n = layouts.grid, layouts.agent_pos, layouts.mission, len(layouts)
    rows = np.arange(n)
    kind = grid[..., 0]
    assert grid.shape == (n, size, size, 3)
    # Walls exactly on the border; inside only empty cells and num_objs keys/balls.
    walls = kind == C.WALL
    assert walls[:, [0, -1], :].all() and walls[:, :, [0, -1]].all()
    inside = kind[:, 1:-1, 1:-1]
    assert set(np.unique(inside)) <= {C.EMPTY, C.KEY, C.BALL}
    assert ((inside != C.EMPTY).sum(axis=(1, 2)) == num_objs).all()
    assert (grid[..., 2] == 0).all() and (grid[..., 1] < C.NUM_COLORS).all()
    # The agent on an empty cell; every direction, phrasing and both kinds occur.
    assert (kind[rows, pos[:, 0], pos[:, 1]] == C.EMPTY).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    assert set(np.unique(mission[:, missions.VARIANT])) == set(range(5))
    assert set(np.unique(mission[:, missions.KIND])) == {C.KEY, C.BALL}
    assert (mission[:, missions.TEMPLATE] == missions.Template.FETCH).all()
    np.testing.assert_array_equal(mission[:, missions.X :], -1)
    # The mission names an object that is in the room.
    target = (kind == mission[:, None, None, missions.KIND]) & (
        grid[..., 1] == mission[:, None, None, missions.COLOR]
    )
    assert target.any(axis=(1, 2)).all()


def test_duplicates_are_allowed_and_any_copy_pays():
    """Two identical red balls: picking up the one that is not "the" target still succeeds."""
    env = horizax.make("MiniGrid-Fetch-5x5-N2-v0").disable_autoreset()
    grid = walled_grid(5, 5)
    grid[2, 1] = grid[3, 3] = (C.BALL, C.RED, 0)
    mission = missions.encode(missions.Template.FETCH, color=C.RED, kind=C.BALL, variant=4)
    state = make_state(jnp.asarray(grid), jnp.array([2, 2]), jnp.int32(3), mission=mission)
    ts = env.reset(jax.random.PRNGKey(0)).replace(state=state.replace(max_steps=jnp.int32(125)))
    assert missions.mission_text(ts.state) == "you must fetch a red ball"
    ts = env.step(ts, jnp.int32(C.PICKUP))
    assert bool(ts.is_termination()) and float(ts.reward) == pytest.approx(1 - 0.9 / 125)


def test_wrong_pickup_ends_without_reward_and_noops_do_not():
    env = horizax.make("MiniGrid-Fetch-5x5-N2-v0").disable_autoreset()
    grid = walled_grid(5, 5)
    grid[2, 1] = (C.KEY, C.RED, 0)
    grid[3, 3] = (C.BALL, C.RED, 0)
    mission = missions.encode(missions.Template.FETCH, color=C.RED, kind=C.BALL)
    state = make_state(jnp.asarray(grid), jnp.array([2, 2]), jnp.int32(3), mission=mission)
    ts = env.reset(jax.random.PRNGKey(0)).replace(state=state.replace(max_steps=jnp.int32(125)))
    for action in (C.DROP, C.TOGGLE, C.DONE):
        ts = env.step(ts, jnp.int32(action))
        assert bool(ts.is_transition()) and float(ts.reward) == 0.0
    ts = env.step(ts, jnp.int32(C.PICKUP))
    assert bool(ts.is_termination()) and float(ts.reward) == 0.0


def test_reset_has_no_loops():
    jaxpr = jax.make_jaxpr(fetch_layout(8, 3))(jax.random.PRNGKey(0))
    assert not any(e.primitive.name in ("while", "scatter") for e in jaxpr.eqns)


def test_impossible_configurations_are_rejected():
    with pytest.raises(ValueError, match="num_objs"):
        fetch_layout(3, 1)
    with pytest.raises(ValueError, match="num_objs"):
        fetch_layout(5, 0)
