"""Hashes of reset layouts and of autoreset rollouts, shared by the golden test and its
regeneration script (``python -m tests.grid.layout_golden`` rewrites the data file)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from horizax.grid.babyai.verifiers import Progress
from horizax.grid.envs.dynamic_obstacles import BallOrder
from horizax.grid.state import State
from tests.grid import batched_reset

DATA_FILE = Path(__file__).with_name("layout_golden.json")
SEED = 2026
NUM_KEYS = 3000
# Small envs with short episodes, so 300 steps cover many autoresets of varied layouts.
ROLLOUT_IDS = (
    "MiniGrid-DoorKey-5x5-v0",
    "MiniGrid-Fetch-5x5-N2-v0",
    "MiniGrid-GoToDoor-5x5-v0",
    "MiniGrid-KeyCorridorS3R1-v0",
    "MiniGrid-LavaCrossingS9N1-v0",
    "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-ObstructedMaze-1Dlhb-v0",
    "MiniGrid-Dynamic-Obstacles-5x5-v0",
)
ROLLOUT_ENVS = 64
ROLLOUT_STEPS = 300
ROLLOUT_MAX_STEPS = 30  # forces truncation autoresets on top of the terminations


def _legacy_aux(extra: Any, batch_shape: tuple[int, ...]) -> Any:
    """The i32[..., 4] ``aux`` the golden data was hashed with, from today's `State.extra`.

    The hashes predate the typed family state: ``aux`` was zeros, except Dynamic-Obstacles'
    ball order, three 8-bit cell indices per int32 word. Re-encoding ``extra`` that way here
    (test-only) keeps the old hashes, so they still prove every layout unchanged. Families
    added since (BabyAI's `LevelState`) are hashed whole, their verifier progress as the
    boolean masks it held when they were hashed (`_legacy_progress`).
    """
    if isinstance(extra, BallOrder):
        cells = np.asarray(extra.cells, np.int64)
        padded = np.zeros((*cells.shape[:-1], 12), np.int64)
        padded[..., : cells.shape[-1]] = cells
        words = padded.reshape(*cells.shape[:-1], 4, 3) << (8 * np.arange(3))
        return words.sum(axis=-1).astype(np.int32)
    if jax.tree_util.tree_leaves(extra):  # a family newer than the old hashes: all of it
        return _legacy_progress(extra)
    return np.zeros((*batch_shape, 4), np.int32)


def _legacy_progress(extra: Any) -> Any:
    """``extra`` with each BabyAI verifier `Progress` in the leaves it was hashed with: its
    masks were bool[..., 2, W, H] fields then and are packed into words now (the same
    masks, `Progress.tracked` and `Progress.poss` unpack them), then its flags, in order."""

    def legacy(progress: Any) -> Any:
        if not isinstance(progress, Progress):
            return progress
        flags = (progress.carried, progress.pre_carrying, progress.pre_carried)
        return (progress.tracked, progress.poss, *flags, progress.last_step_match)

    return jax.tree_util.tree_map(legacy, extra, is_leaf=lambda x: isinstance(x, Progress))


def _legacy_leaves(state: State) -> list[Any]:
    """The state's leaves in the field order the golden data was hashed in."""
    batch = np.shape(state.agent_dir)
    return [
        state.grid,
        state.agent_pos,
        state.agent_dir,
        state.carrying,
        state.step_count,
        state.max_steps,
        state.mission,
        _legacy_aux(state.extra, batch),
        state.key,
    ]


def digest(tree: Any) -> str:
    """SHA-256 of every leaf of ``tree`` in tree order: dtype, shape and bytes (gridworld
    states hashed as `_legacy_leaves`)."""
    sha = hashlib.sha256()
    tree = jax.tree_util.tree_map(
        lambda x: _legacy_leaves(x) if isinstance(x, State) else x,
        tree,
        is_leaf=lambda x: isinstance(x, State),
    )
    for leaf in jax.tree_util.tree_leaves(tree):
        if jnp.issubdtype(jnp.asarray(leaf).dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        array = np.ascontiguousarray(np.asarray(leaf))
        sha.update(f"{array.dtype.str}{array.shape}".encode())
        sha.update(array.tobytes())
    return sha.hexdigest()


# BabyAI's grammar levels draw up to 25 whole levels per reset, its maze and locked-room
# levels up to 41: their first 500 golden keys pin them (3,000 cost 8-26 s of test time each).
FEW_KEYS = {
    f"BabyAI-{name}-v0": 500
    for name in (
        "GoTo",
        "GoToOpen",
        "Open",
        "Pickup",
        "UnblockPickup",
        "Unlock",
        "GoToImpUnlock",
        "MoveTwoAcrossS8N9",
        "GoToSeq",
        "GoToSeqS5R2",
        "Synth",
        "SynthS5R2",
        "SynthLoc",
        "SynthSeq",
        "MiniBossLevel",
        "BossLevel",
        "BossLevelNoUnlock",
    )
}
# A WFC reset runs a bounded solver loop of up to 8,000 iterations: 200 keys pin it (3,000
# cost 20-40 s of test time each).
FEW_KEYS.update(
    {
        f"MiniGrid-WFC-{name}-v0": 200
        for name in (
            "MazeSimple",
            "DungeonMazeScaled",
            "RoomsFabric",
            "ObstaclesBlackdots",
            "ObstaclesAngular",
            "ObstaclesHogs3",
        )
    }
)


def reset_states(env_id: str, num_keys: int | None = None) -> Any:
    """The state pytree of ``env_id``'s vmapped, jitted reset over the golden keys (a
    gridworld's observation is not hashed, so it is not computed: a quicker compile), by
    the id's one compiled batched reset (`tests.grid.batched_reset`, shared with the other
    tests of the process); ``num_keys`` None: `NUM_KEYS`, or the id's `FEW_KEYS`."""
    num_keys = FEW_KEYS.get(env_id, NUM_KEYS) if num_keys is None else num_keys
    keys = jax.random.split(jax.random.PRNGKey(SEED), num_keys)
    out = batched_reset.reset(horizax.make(env_id), keys)
    # Grid envs return a Timestep holding the state; the Maze returns (state, timestep).
    return out[0] if isinstance(out, tuple) else out.state


def rollout_states(env_id: str) -> Any:
    """The per-step states of a jitted scan of ``vmap(env.step)`` under fixed random actions."""
    env = horizax.make(env_id, max_steps=ROLLOUT_MAX_STEPS)
    keys = jax.random.split(jax.random.PRNGKey(SEED), ROLLOUT_ENVS)
    actions = jax.random.randint(
        jax.random.PRNGKey(SEED + 1), (ROLLOUT_STEPS, ROLLOUT_ENVS), 0, env.action_space.n
    )

    @jax.jit
    def run(keys: jax.Array, actions: jax.Array) -> Any:
        def body(timestep: Any, action: jax.Array) -> tuple[Any, Any]:
            timestep = jax.vmap(env.step)(timestep, action)
            return timestep, (timestep.state, timestep.reward, timestep.step_type)

        return jax.lax.scan(body, jax.vmap(env.reset)(keys), actions)[1]

    return run(keys, actions)


def layout_ids() -> list[str]:
    """The ids whose layouts are pinned here: all but the orbital family, whose continuous
    initial states are pinned against orbitalgym (tests/orbital/test_reference_goldens.py)."""
    return [env_id for env_id in horizax.registered_ids() if not env_id.startswith("Orbital-")]


def compute(env_ids: list[str] | None = None) -> dict[str, dict[str, str]]:
    """``{"reset": {id: hash}, "rollout": {id: hash}}`` from the current code."""
    env_ids = layout_ids() if env_ids is None else env_ids
    return {
        "reset": {env_id: digest(reset_states(env_id)) for env_id in env_ids},
        "rollout": {env_id: digest(rollout_states(env_id)) for env_id in ROLLOUT_IDS},
    }


if __name__ == "__main__":
    import sys

    if "--new" in sys.argv[1:]:  # pin ids added since, every existing hash kept as it is
        data = json.loads(DATA_FILE.read_text())
        new = [env_id for env_id in layout_ids() if env_id not in data["reset"]]
        data["reset"].update({env_id: digest(reset_states(env_id)) for env_id in new})
        print(f"pinned {len(new)} new ids: {new}")
    else:
        data = {"seed": SEED, "num_keys": NUM_KEYS, **compute()}
    DATA_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA_FILE}")
