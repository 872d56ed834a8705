"""RGB frames against MiniGrid 3.2.0's ``get_frame``, pixel for pixel (reference tests).

For one id of every gridworld family, states are drawn from random MiniGrid rollouts (a fresh
seed every few dozen steps and at every episode's end), copied into horizax (the bridge's
encodings, box contents included) and rendered by both. Compared with max abs difference 0:

* tile size 8 (the ``RGBImg(Partial)ObsWrapper`` default), every state: `observations.rgb`
  and `observations.rgb_first_person` as the registered environment binds them (its
  ``see_through_walls``) against ``get_frame(highlight=True)`` and ``get_frame(agent_pov=True)``,
  and `render.render_grid` without highlight against ``get_frame(highlight=False)``;
* tile size 9 (odd, so a tile's centre falls on a pixel), every 20th state, all three frames;
* tile size 32 (``get_frame``'s and ``render()``'s default), every 50th state: the three
  frames, and for a few of them `Environment.render` with and without highlight.

horizax renders each batch of states with one jitted `vmap` (compiled at XLA's default
level, as users' programs are); MiniGrid caches its tiles.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions, observations, render
from horizax.grid.state import State
from tests.grid.batched_reset import BATCH_OPTIONS

from .minigrid_bridge import carried_encoding, grid_encoding, minigrid_env, random_actions

pytestmark = pytest.mark.reference

FAMILY_IDS = (
    "MiniGrid-LavaCrossingS9N1-v0",
    "MiniGrid-DistShift1-v0",
    "MiniGrid-DoorKey-8x8-v0",
    "MiniGrid-Dynamic-Obstacles-6x6-v0",
    "MiniGrid-Empty-Random-6x6-v0",
    "MiniGrid-Fetch-5x5-N2-v0",
    "MiniGrid-FourRooms-v0",
    "MiniGrid-GoToDoor-5x5-v0",
    "MiniGrid-GoToObject-6x6-N2-v0",
    "MiniGrid-KeyCorridorS3R1-v0",
    "MiniGrid-LavaGapS5-v0",
    "MiniGrid-LockedRoom-v0",
    "MiniGrid-MemoryS7-v0",
    "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0",
    "MiniGrid-Playground-v0",
    "MiniGrid-PutNear-6x6-N2-v0",
    "MiniGrid-RedBlueDoors-6x6-v0",
    "MiniGrid-UnlockPickup-v0",
    "MiniGrid-WFC-ObstaclesBlackdots-v0",  # MiniGrid's quickest WFC reset
    "BabyAI-FindObjS5-v0",
    "BabyAI-GoToObjDoor-v0",
    "BabyAI-GoToObjMazeS4R2-v0",
    "BabyAI-Unlock-v0",
    "BabyAI-BossLevel-v0",
    "BabyAI-GoToObjS4-v0",
    "BabyAI-KeyCorridorS3R2-v0",
    "BabyAI-KeyInBox-v0",
    "BabyAI-OneRoomS8-v0",
    "BabyAI-OpenTwoDoors-v0",
    "BabyAI-PickupDist-v0",
    "BabyAI-PutNextLocal-v0",
    "BabyAI-PutNextS5N2Carrying-v0",
)
# Families whose random rollouts pick things up (Fetch's episode ends on the pickup).
CARRYING = (
    "MiniGrid-DoorKey-8x8-v0",
    "MiniGrid-KeyCorridorS3R1-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0",
    "MiniGrid-Playground-v0",
    "MiniGrid-UnlockPickup-v0",
)
NUM_STATES = 1000
# MiniGrid draws its frames tile by tile, most of this test's time: a family's states hold
# at most about `TILE_BUDGET` grid cells in all (MultiRoom's 25 x 25 grid: 200 states, each
# of them 625 tiles), and never fewer than `MIN_STATES`. The `CARRYING` families keep all
# their states: Playground's random agent picks something up only every few hundred steps.
TILE_BUDGET = 100_000
MIN_STATES = 200
STEPS_PER_SEED = 40


def state_count(env_id: str) -> int:
    """How many random states of ``env_id`` are rendered: `NUM_STATES`, fewer on large grids."""
    if env_id in CARRYING:
        return NUM_STATES
    env = horizax.make(env_id)
    return min(NUM_STATES, max(MIN_STATES, TILE_BUDGET // (env.width * env.height)))


def minigrid_states(env_id: str, count: int, seed: int = 0) -> list[dict[str, Any]]:
    """``count`` snapshots of random MiniGrid rollouts: each holds the `State` fields the
    frames read and MiniGrid's frames (`_snapshot`)."""
    mg = minigrid_env(env_id)
    rng_seed = seed * 100_003
    mg.reset(seed=rng_seed)
    actions = random_actions(seed, count, int(mg.action_space.n), forward_bias=0.3)
    snapshots = []
    for n, action in enumerate(actions):
        snapshots.append(_snapshot(mg, n))
        _, _, terminated, truncated, _ = mg.step(int(action))
        if terminated or truncated or (n + 1) % STEPS_PER_SEED == 0:
            rng_seed += 1
            mg.reset(seed=rng_seed)
    return snapshots


def _snapshot(mg: Any, index: int) -> dict[str, Any]:
    frames = {
        ("grid", 8, True): mg.get_frame(highlight=True, tile_size=8),
        ("grid", 8, False): mg.get_frame(highlight=False, tile_size=8),
        ("view", 8, True): mg.get_frame(tile_size=8, agent_pov=True),
    }
    sizes = [9] * (index % 20 == 0) + [32] * (index % 50 == 0)
    for t in sizes:
        frames[("grid", t, True)] = mg.get_frame(highlight=True, tile_size=t)
        frames[("grid", t, False)] = mg.get_frame(highlight=False, tile_size=t)
        frames[("view", t, True)] = mg.get_frame(tile_size=t, agent_pov=True)
    return {**state_fields(mg), "frames": frames}


def state_fields(mg: Any) -> dict[str, Any]:
    """MiniGrid's current state as the horizax `State` fields that frames read."""
    return {
        "grid": grid_encoding(mg),
        "agent_pos": np.asarray(mg.agent_pos, np.int32),
        "agent_dir": np.asarray(mg.agent_dir, np.int32),
        "carrying": carried_encoding(mg),
    }


def stacked_state(snapshots: list[dict[str, Any]]) -> State:
    """One batched `State` (numpy leaves) of the snapshots; fields the frames do not read
    are zeros."""
    n = len(snapshots)
    return State(
        grid=np.stack([s["grid"] for s in snapshots]),
        agent_pos=np.stack([s["agent_pos"] for s in snapshots]),
        agent_dir=np.stack([s["agent_dir"] for s in snapshots]),
        carrying=np.stack([s["carrying"] for s in snapshots]),
        step_count=np.zeros(n, np.int32),
        max_steps=np.ones(n, np.int32),
        mission=np.zeros((n, missions.MISSION_SIZE), np.int32),
        extra=(),
        key=np.zeros((n, 2), np.uint32),
    )


def _batched(env_id: str, tile_size: int) -> Any:
    """Jitted ``states -> {(kind, T, highlight): frames}`` through the public entry points:
    the registered environment's RGB observations (bound to its ``see_through_walls``) and
    `render.render_grid`."""
    grid_obs = horizax.make(env_id, observation_fn=observations.rgb_observation(tile_size))
    view_obs = horizax.make(
        env_id, observation_fn=observations.rgb_first_person_observation(tile_size)
    )
    return _frames_program(grid_obs.observation_fn, view_obs.observation_fn)


@functools.cache
def _frames_program(grid_fn: Any, view_fn: Any) -> Any:
    """One jitted program per pair of bound observation functions (equal values, one key):
    ids with the same flag and grid size share its compiled program."""
    tile_size, see_through = grid_fn.tile_size, grid_fn.see_through_walls

    def frames(state: State) -> dict[tuple[str, int, bool], jax.Array]:
        return {
            ("grid", tile_size, True): grid_fn(state),
            ("grid", tile_size, False): render.render_grid(state, tile_size, False, see_through),
            ("view", tile_size, True): view_fn(state),
        }

    # A batch of 1,000 frames: XLA's default level, as the suite's other batched programs
    # (`tests.grid.batched_reset`); 2.3x quicker in all on MultiRoom's 25 x 25 frames.
    return jax.jit(jax.vmap(frames), compiler_options=BATCH_OPTIONS)


def assert_frames_equal(env_id: str, snapshots: list[dict[str, Any]], tile_size: int) -> int:
    """Renders the snapshots that hold MiniGrid frames at ``tile_size`` and compares them all;
    returns how many frames were compared."""
    chosen = [s for s in snapshots if ("grid", tile_size, True) in s["frames"]]
    ours = _batched(env_id, tile_size)(stacked_state(chosen))
    for key, batch in ours.items():
        theirs = np.stack([s["frames"][key] for s in chosen])
        batch = np.asarray(batch)
        assert batch.dtype == np.uint8 and batch.shape == theirs.shape, (env_id, key)
        # Max abs difference 0 is equality: compared as bytes, the differences (in int16,
        # a pass over hundreds of MB for the large grids) computed only for the message.
        bad = np.nonzero((batch != theirs).reshape(len(chosen), -1).any(axis=1))[0]
        if bad.size:
            diff = np.abs(batch[bad].astype(np.int16) - theirs[bad].astype(np.int16))
            raise AssertionError(
                f"{env_id} {key}: {bad.size} of {len(chosen)} frames differ from MiniGrid's "
                f"(first: state {bad[0]}, max abs diff {diff.max()})"
            )
    return len(chosen) * len(ours)


def modules_of(registry: Any, env_id: str) -> list[Any]:
    return [m for m in registry.FAMILY_MODULES if env_id in m.ENVIRONMENTS]


def test_the_ids_cover_every_family_and_the_see_through_flag_is_minigrids():
    from horizax.grid import registry

    covered = {registry.ENVIRONMENTS[i]().env_id for i in FAMILY_IDS}
    assert covered == set(FAMILY_IDS)
    modules = {m.__name__ for m in registry.FAMILY_MODULES}
    owners = {
        m.__name__ for m in registry.FAMILY_MODULES for i in FAMILY_IDS if i in m.ENVIRONMENTS
    }
    assert owners == modules, f"families without an id here: {sorted(modules - owners)}"
    for env_id in FAMILY_IDS:
        mg = minigrid_env(env_id)
        assert horizax.make(env_id).see_through_walls == mg.see_through_walls, env_id


@pytest.mark.slow
@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_frames_equal_minigrids_on_random_states(env_id):
    count = state_count(env_id)
    snapshots = minigrid_states(env_id, count)
    compared = sum(assert_frames_equal(env_id, snapshots, t) for t in (8, 9, 32))
    assert compared == 3 * (count + -(-count // 20) + -(-count // 50))
    env = horizax.make(env_id)
    for snapshot in [s for s in snapshots if ("grid", 32, True) in s["frames"]][:3]:
        state = jax.tree.map(lambda x: x[0], stacked_state([snapshot]))
        for highlight in (True, False):
            np.testing.assert_array_equal(
                env.render(state, highlight=highlight),
                snapshot["frames"][("grid", 32, highlight)],
                err_msg=f"{env_id}: Environment.render(highlight={highlight})",
            )
    # The rollouts must show the agent in many places, not one corner of one layout. The
    # smallest families have few states in all (LavaGapS5: 6 free cells, 4 directions, a few
    # layouts; Empty-Random-6x6: 64), so the bar is what every family can reach.
    seen = {(s["grid"].tobytes(), s["agent_pos"].tobytes(), int(s["agent_dir"])) for s in snapshots}
    assert len(seen) >= 40, f"{env_id}: only {len(seen)} distinct states"
    if env_id in CARRYING:
        carried = sum(int(s["carrying"][0]) not in (C.EMPTY, C.UNSEEN) for s in snapshots)
        assert carried >= 5, f"{env_id}: the agent carried something in {carried} states"


@pytest.mark.parametrize(
    "env_id", ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-Fetch-5x5-N2-v0", "MiniGrid-UnlockPickup-v0"]
)
def test_frames_equal_minigrids_quick(env_id):
    # A fast subset of the slow test: an occluded family, a see-through one, boxes carried.
    snapshots = minigrid_states(env_id, 50, seed=7)
    assert assert_frames_equal(env_id, snapshots, 8) == 150
    assert assert_frames_equal(env_id, snapshots, 32) == 3


def test_rgb_observations_are_the_wrappers_images():
    # The defaults (tile size 8, highlight) are those of MiniGrid's pixel wrappers.
    wrappers = pytest.importorskip("minigrid.wrappers")
    for env_id in ("MiniGrid-DoorKey-5x5-v0", "MiniGrid-GoToDoor-5x5-v0"):
        mg = minigrid_env(env_id)
        mg.reset(seed=5)
        for action in random_actions(5, 12, int(mg.action_space.n), forward_bias=0.3):
            mg.step(int(action))
        state = jax.tree.map(lambda x: x[0], stacked_state([state_fields(mg)]))
        for fn, wrapper in (
            (observations.rgb, wrappers.RGBImgObsWrapper),
            (observations.rgb_first_person, wrappers.RGBImgPartialObsWrapper),
        ):
            env = horizax.make(env_id, observation_fn=fn)
            ours = np.asarray(env.observation_fn(state))
            theirs = wrapper(mg).observation({})["image"]
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{env_id} {fn.__name__}")
            assert env.observation_space.shape == theirs.shape, (env_id, fn.__name__)
