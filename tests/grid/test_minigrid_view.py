"""MiniGrid's object model on horizax's Gymnasium env agrees with MiniGrid on the same state.

MiniGrid is the oracle. For one id of every gridworld family, MiniGrid plays random actions;
at every state the bridge (`tests.grid.minigrid_bridge`, MiniGrid -> horizax, written
independently of `horizax.grid.minigrid_view`) copies its state into horizax's
Gymnasium env, and the object model read from ``env.unwrapped`` must equal MiniGrid's own:
the grid's encoding (box contents included), agent, hand, mission, step count,
``gen_obs``, ``pprint_grid``, ``front_pos``, ``agent_sees``, frames, and every listed
MiniGrid wrapper's observation. Wrappers that act on steps (rewards, deaths, reseeding)
are stepped in lockstep on the deterministic families.
"""

from __future__ import annotations

import copy
import functools
import sys
from typing import Any

import numpy as np
import pytest

from tests.grid import minigrid_bridge as bridge

gymnasium = bridge.gymnasium
wrappers = pytest.importorskip("minigrid.wrappers")

import jax  # noqa: E402

from horizax.adapters import gymnasium as hg  # noqa: E402
from horizax.core import episode as engine  # noqa: E402
from horizax.grid import minigrid_view  # noqa: E402
from tests.grid.envs import (  # noqa: E402
    obstructedmaze_driver,
    pickup_driver,
    test_fetch,
    test_gotodoor,
    test_gotoobject,
    test_lockedroom,
    test_memory,
    test_putnear,
    test_redbluedoors,
)

pytestmark = pytest.mark.reference

# One id per family (two for the families whose objects differ by variant), with the
# function giving the horizax mission array of MiniGrid's current episode.
FAMILIES: dict[str, Any] = {
    "MiniGrid-Empty-Random-6x6-v0": bridge.fixed_mission,
    "MiniGrid-DoorKey-8x8-v0": bridge.fixed_mission,
    "MiniGrid-DistShift1-v0": bridge.fixed_mission,
    "MiniGrid-LavaGapS7-v0": bridge.fixed_mission,
    "MiniGrid-LavaCrossingS9N2-v0": bridge.fixed_mission,
    "MiniGrid-SimpleCrossingS9N1-v0": bridge.fixed_mission,
    "MiniGrid-FourRooms-v0": bridge.fixed_mission,
    "MiniGrid-MultiRoom-N4-S5-v0": bridge.fixed_mission,
    "MiniGrid-Unlock-v0": bridge.fixed_mission,
    "MiniGrid-Dynamic-Obstacles-6x6-v0": bridge.fixed_mission,
    "MiniGrid-Playground-v0": bridge.fixed_mission,
    "MiniGrid-GoToDoor-6x6-v0": test_gotodoor.gotodoor_mission,
    "MiniGrid-GoToObject-8x8-N2-v0": test_gotoobject.gotoobject_mission,
    "MiniGrid-Fetch-8x8-N3-v0": test_fetch.fetch_mission,
    "MiniGrid-PutNear-8x8-N3-v0": test_putnear.putnear_mission,
    "MiniGrid-MemoryS7-v0": test_memory.mission_of,
    "MiniGrid-LockedRoom-v0": test_lockedroom.mission_of,
    "MiniGrid-RedBlueDoors-6x6-v0": test_redbluedoors.mission_of,
    "MiniGrid-KeyCorridorS3R3-v0": pickup_driver.pickup_mission,
    "MiniGrid-UnlockPickup-v0": pickup_driver.pickup_mission,
    "MiniGrid-BlockedUnlockPickup-v0": pickup_driver.pickup_mission,
    "MiniGrid-ObstructedMaze-2Dlhb-v1": obstructedmaze_driver.mission_fn,
}
# Dynamic-Obstacles moves its balls at random: horizax's draws are not MiniGrid's.
STOCHASTIC = {"MiniGrid-Dynamic-Obstacles-6x6-v0"}

OBSERVATION_WRAPPERS = [
    wrappers.FullyObsWrapper,
    wrappers.RGBImgObsWrapper,
    wrappers.RGBImgPartialObsWrapper,
    wrappers.SymbolicObsWrapper,
    wrappers.ImgObsWrapper,
    wrappers.OneHotPartialObsWrapper,
    wrappers.FlatObsWrapper,
    wrappers.DictObservationSpaceWrapper,
    lambda env: wrappers.ViewSizeWrapper(env, agent_view_size=5),
    lambda env: wrappers.ViewSizeWrapper(env, agent_view_size=9),
]


@functools.cache
def _observe(fenv: Any) -> Any:
    return jax.jit(fenv.observe)


def copy_state(henv: Any, mg: Any, mission_fn: Any) -> dict[str, Any]:
    """Puts MiniGrid's current state into horizax's Gymnasium env; returns the observation
    horizax computes for it (through the adapter's own jitted observe and codec)."""
    fenv = henv.fenv
    state = bridge.state_from_minigrid(mg, None, mission_fn, bridge.zero_extra(fenv.env))
    henv._episode = engine.Episode(
        state=state, key=state.key, t=np.int32(mg.step_count), done=np.bool_(False)
    )
    observation, _ = jax.device_get(_observe(fenv)(state))
    return henv._codec.single(observation)


def assert_equal(ours: Any, theirs: Any, what: str) -> None:
    """Observations equal: dicts key by key, arrays by value, dtype and shape."""
    if isinstance(theirs, dict):
        assert set(ours) == set(theirs), what
        for key in theirs:
            assert_equal(ours[key], theirs[key], f"{what}[{key}]")
    elif isinstance(theirs, np.ndarray):
        ours = np.asarray(ours)
        assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} != {theirs.shape}"
        np.testing.assert_array_equal(ours, theirs, err_msg=what)
    else:
        assert ours == theirs, f"{what}: {ours!r} != {theirs!r}"


def encoded_objects(grid: Any) -> np.ndarray:
    """u8[W, H, 3] of a MiniGrid grid with box contents (`bridge.object_encoding`)."""
    return np.array(
        [
            [bridge.object_encoding(grid.get(x, y)) for y in range(grid.height)]
            for x in range(grid.width)
        ],
        dtype=np.uint8,
    )


def random_play(mg: Any, seed: int, n: int) -> Any:
    """Walks MiniGrid's env ``mg`` through ``n`` random, forward-biased steps, yielding the
    index of each state before its step."""
    mg.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = bridge.random_actions(seed, n, mg.action_space.n, forward_bias=0.3)
    for i, action in enumerate(actions):
        yield i
        _, _, terminated, truncated, _ = mg.step(int(action))
        if terminated or truncated:
            mg.reset(seed=int(rng.integers(1 << 30)))


@pytest.mark.parametrize("env_id", list(FAMILIES))
def test_object_model_matches_minigrid(env_id):
    mission_fn = FAMILIES[env_id]
    henv = hg.make(env_id)
    mg = bridge.minigrid_env(env_id)
    views = [(w(henv), w(mg)) for w in OBSERVATION_WRAPPERS]
    counts = {"carrying": 0, "boxes_full": 0, "frames": 0}
    for i in random_play(mg, seed=len(env_id), n=60):
        where = f"{env_id} state {i}"
        obs = copy_state(henv, mg, mission_fn)
        view = henv.unwrapped
        assert view is henv
        np.testing.assert_array_equal(view.grid.encode(), mg.grid.encode(), err_msg=where)
        np.testing.assert_array_equal(
            encoded_objects(view.grid), encoded_objects(mg.grid), err_msg=f"boxes {where}"
        )
        assert view.agent_pos == tuple(int(v) for v in mg.agent_pos), where
        assert view.agent_dir == mg.agent_dir, where
        np.testing.assert_array_equal(
            bridge.carried_encoding(view), bridge.carried_encoding(mg), err_msg=where
        )
        assert view.mission == mg.mission and obs["mission"] == mg.mission, where
        assert (view.step_count, view.width, view.height) == (
            mg.step_count, mg.width, mg.height,
        ), where  # fmt: skip
        assert (view.agent_view_size, view.see_through_walls) == (
            mg.agent_view_size, mg.see_through_walls,
        ), where  # fmt: skip
        assert view.pprint_grid() == mg.pprint_grid(), where
        # Not ``hash()``: MiniGrid hashes ``str(agent_pos)``, whose text depends on whether
        # its layout code left a tuple of ints or of np.int64 there, not on the state.
        np.testing.assert_array_equal(view.front_pos, mg.front_pos, err_msg=where)
        goal = next(
            ((x, y) for x in range(mg.width) for y in range(mg.height)
             if (o := mg.grid.get(x, y)) is not None and o.type == "goal"),
            None,
        )  # fmt: skip
        if goal is not None:
            assert view.agent_sees(*goal) == mg.agent_sees(*goal), where
        mg_obs = mg.gen_obs()
        assert_equal(view.gen_obs(), mg_obs, f"gen_obs {where}")
        assert_equal(obs, mg_obs, f"observation {where}")
        for k, (ours, theirs) in enumerate(views):
            # Copies: SymbolicObsWrapper writes into the dict it is given.
            ours_obs = ours.observation(copy.deepcopy(obs))
            assert_equal(
                ours_obs, theirs.observation(copy.deepcopy(mg_obs)), f"wrapper {k} {where}"
            )
        if i % 15 == 0:  # MiniGrid's rasteriser is slow; a sample of states
            for kwargs in ({}, {"highlight": False}, {"tile_size": 8}, {"agent_pov": True}):
                np.testing.assert_array_equal(
                    view.get_frame(**kwargs), mg.get_frame(**kwargs), err_msg=f"{kwargs} {where}"
                )
            counts["frames"] += 1
        counts["carrying"] += mg.carrying is not None
        counts["boxes_full"] += any(
            o is not None and o.type == "box" and o.contains is not None for o in mg.grid.grid
        )
    assert counts["frames"] >= 4


def test_boxes_and_carried_objects_round_trip():
    """What random walks rarely reach: a box holding each kind, carried boxes and doors."""
    from minigrid.core.world_object import Ball, Box, Door, Key

    mg = bridge.minigrid_env("MiniGrid-ObstructedMaze-1Dlhb-v0")
    mg.reset(seed=0)
    mg.grid.set(1, 1, Box("red", contains=Key("blue")))
    mg.grid.set(2, 1, Box("green", contains=Ball("purple")))
    mg.grid.set(3, 1, Box("grey", contains=Box("yellow")))
    mg.grid.set(4, 1, Door("yellow", is_open=True))
    mg.grid.set(5, 1, Door("yellow", is_locked=True))
    mg.carrying = Box("blue", contains=Key("red"))
    henv = hg.make("MiniGrid-ObstructedMaze-1Dlhb-v0")
    copy_state(henv, mg, obstructedmaze_driver.mission_fn)
    ours = henv.unwrapped.grid
    for x in range(1, 6):
        assert bridge.object_encoding(ours.get(x, 1)) == bridge.object_encoding(mg.grid.get(x, 1))
    assert ours.get(3, 1).contains.type == "box" and ours.get(3, 1).contains.contains is None
    assert ours.get(5, 1).is_locked and ours.get(4, 1).is_open
    carried = henv.unwrapped.carrying
    assert (carried.type, carried.color, carried.contains.type) == ("box", "blue", "key")


STEP_WRAPPERS = {
    "ActionBonus": wrappers.ActionBonus,
    "PositionBonus": wrappers.PositionBonus,
    "NoDeath-lava": lambda env: wrappers.NoDeath(env, ("lava",), -1.0),
    "StochasticAction": lambda env: wrappers.StochasticActionWrapper(env, prob=0.7),
    "DirectionObs": lambda env: wrappers.DirectionObsWrapper(env, type="angle_atan2"),
}


@pytest.mark.parametrize("name", list(STEP_WRAPPERS))
@pytest.mark.parametrize("env_id", ["MiniGrid-LavaGapS5-v0", "MiniGrid-DoorKey-5x5-v0"])
def test_step_wrappers_match_minigrid(env_id, name):
    """Both envs wrapped alike, stepped alike from the same states: equal outputs."""
    make = STEP_WRAPPERS[name]
    henv = hg.make(env_id)
    ours, theirs = make(henv), make(gymnasium.make(env_id).unwrapped)
    mg = theirs.unwrapped
    ours.reset(seed=3)
    theirs.reset(seed=3)
    rng = np.random.default_rng(0)
    deaths = 0
    for i in range(120):
        copy_state(henv, mg, bridge.fixed_mission)
        if name == "StochasticAction":  # the wrapper draws from its env's generator
            henv.np_random = np.random.default_rng(i)
            mg.np_random = np.random.default_rng(i)
        action = int(rng.choice([0, 1, 2, 2, 2, 3, 5]))
        out_h = ours.step(action)
        out_m = theirs.step(action)
        where = f"{name} {env_id} step {i}"
        assert_equal(out_h[0], out_m[0], f"obs {where}")
        # horizax rewards are f32; MiniGrid's f64 reward rounds to the same f32.
        assert abs(out_h[1] - out_m[1]) <= 1e-6, where
        assert out_h[2:4] == out_m[2:4], where
        deaths += name.startswith("NoDeath") and out_m[1] < 0
        if out_m[2] or out_m[3]:
            theirs.reset(seed=i)
    if name.startswith("NoDeath") and "Lava" in env_id:
        assert deaths >= 1, "the walk never stepped into lava"


def test_reseed_wrapper_replays_the_seeds():
    """ReseedWrapper calls reset(seed=...): the episodes of those seeds, in turn."""
    env = wrappers.ReseedWrapper(hg.make("MiniGrid-FourRooms-v0"), seeds=(5, 9))
    plain = hg.make("MiniGrid-FourRooms-v0")
    for seed in (5, 9, 5):
        obs, _ = env.reset()
        expected, _ = plain.reset(seed=seed)
        assert_equal(obs, expected, f"seed {seed}")
        assert env.unwrapped.pprint_grid() == plain.unwrapped.pprint_grid()


def test_state_attributes_are_read_only_and_options_settable():
    env = hg.make("MiniGrid-Empty-5x5-v0")
    env.reset(seed=0)
    with pytest.raises(AttributeError, match="read-only view of the horizax state"):
        env.agent_pos = (1, 1)
    with pytest.raises(AttributeError, match="read-only"):
        env.agent_view_size = 5
    env.highlight = False
    assert env.highlight is False and env.object_view.highlight is False
    env.step(2)  # a rebuilt state keeps the option
    assert env.object_view.highlight is False


def test_view_follows_each_step_and_pickles():
    import pickle

    env = hg.make("MiniGrid-Empty-8x8-v0")
    env.reset(seed=0)
    before = env.agent_pos
    env.step(2)
    assert env.agent_pos != before and env.step_count == 1
    clone = pickle.loads(pickle.dumps(env))
    assert clone.pprint_grid() == env.pprint_grid()


def test_maze_has_no_object_model():
    env = hg.make("Maze-v0")
    with pytest.raises(AttributeError):
        _ = env.grid


def test_object_model_without_minigrid_raises_import_error_naming_the_extra(monkeypatch):
    env = hg.make("MiniGrid-Empty-5x5-v0")
    env.reset(seed=0)
    assert env.step(2)[1] == 0.0  # the adapter itself needs no MiniGrid
    for name in [m for m in sys.modules if m == "minigrid" or m.startswith("minigrid.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"horizax\[reference\]"):
        _ = env.grid
    assert {"grid", "agent_pos", "get_frame", "gen_obs_grid"} <= minigrid_view.OBJECT_MODEL


@pytest.mark.parametrize("action", [3, 4, 6, 100])
def test_dynamic_obstacles_maps_actions_above_range_to_left_like_minigrid(action):
    env_id = "MiniGrid-Dynamic-Obstacles-6x6-v0"
    mg = bridge.minigrid_env(env_id)
    mg.reset(seed=1)
    henv = hg.make(env_id)
    copy_state(henv, mg, bridge.fixed_mission)
    turned = (mg.agent_dir - 1) % 4
    mg.step(action)  # MiniGrid: `left` in place of an action >= 3
    assert mg.agent_dir == turned
    _, reward, terminated, truncated, _ = henv.step(action)
    assert (henv.agent_dir, henv.agent_pos, henv.step_count) == (
        mg.agent_dir,
        tuple(int(v) for v in mg.agent_pos),
        1,
    )
    assert (reward, terminated, truncated) == (0.0, False, False)
    envs = hg.make_vec(env_id, 2)
    envs.reset(seed=0)
    envs.step(np.array([action, 0]))  # the vector env maps the same way
    with pytest.raises(ValueError, match="outside the action space"):
        henv.step(-1)  # MiniGrid's step raises ValueError("Unknown action") for it too


@pytest.mark.parametrize("env_id", ["MiniGrid-Empty-5x5-v0", "MiniGrid-MemoryS7-v0"])
def test_other_ids_raise_value_error_for_actions_out_of_range_like_minigrid(env_id):
    mg = bridge.minigrid_env(env_id)
    mg.reset(seed=0)
    with pytest.raises(ValueError, match="Unknown action"):
        mg.step(7)
    henv = hg.make(env_id)
    henv.reset(seed=0)
    for action in (7, -1):
        with pytest.raises(ValueError, match="outside the action space"):
            henv.step(action)
