"""BabyAI's unlock levels against MiniGrid 3.2.0: lockstep episodes and resets.

Lockstep (`lockstep.play`): the BabyAI bot's episodes (success) where the bot can play the
level (MiniGrid says it cannot play KeyInBox: there a scripted opening of the box, pickup
of the key and unlocking of the door stands in), random episodes and deliberate failures
(facing an object the instruction does not describe, then ``done`` until the time limit).
Levels that differ in their layouts alone share one set of compiled programs. Then
MiniGrid's resets against ours per level (`dist.sample_sizes`: 8,000 of ours, 1,000 of MiniGrid's).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import cells
from horizax.grid import constants as C
from horizax.grid.envs import babyai_unlock
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.test_goto_levels import minigrid_resets
from tests.grid.babyai.test_pickup_levels import our_resets

IDS = sorted(babyai_unlock.ENVIRONMENTS)
OBJECTS = (C.KEY, C.BALL, C.BOX)
N_RESETS = 2000
# Levels whose stepping programs are the same: they differ in their layouts alone.
SHARED_PROGRAMS = {
    "BabyAI-KeyInBox-v0": "BabyAI-UnlockLocal-v0",
    "BabyAI-UnlockLocalDist-v0": "BabyAI-UnlockLocal-v0",
    "BabyAI-UnlockPickupDist-v0": "BabyAI-UnlockPickup-v0",
}


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


def test_shared_programs_differ_in_layouts_alone():
    lockstep.assert_programs_shared(SHARED_PROGRAMS)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    progs = lockstep.programs(SHARED_PROGRAMS.get(env_id, env_id))
    if env_id == "BabyAI-KeyInBox-v0":
        policies = ("key_in_box", "random", "fail", "key_in_box")
        counts = lockstep.play(env_id, IDS.index(env_id), progs, policies)
        assert counts["scripted_success"] == 2 and counts["failure"] == 1
        return
    counts = lockstep.play(env_id, IDS.index(env_id), progs, ("bot", "random", "fail", "bot"))
    assert counts["bot_success"] == 2 and counts["failure"] == 1


# --- resets ------------------------------------------------------------------------------


def _features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent = layouts.grid, layouts.agent_pos
    n, height = len(grid), grid.shape[2]
    kind, colour = grid[..., 0].astype(np.int32), grid[..., 1].astype(np.int32)
    state = grid[..., 2].astype(np.int32)
    objects, doors = np.isin(kind, OBJECTS), kind == C.DOOR
    code = np.where(objects, (kind - C.KEY) * C.NUM_COLORS + colour, -1)
    rows = np.arange(n)
    front = agent + np.asarray(C.DIR_TO_VEC)[layouts.agent_dir]
    at = np.argwhere(objects)
    door_at = np.argwhere(doors)
    # Per key: the column of the door of its colour (-1: none), joint with the key's column.
    key_to_door = []
    for i, x, y in np.argwhere(kind == C.KEY):
        same = np.argwhere(doors[i] & (colour[i] == colour[i, x, y]))
        key_to_door.append(x * 64 + (same[0, 0] if len(same) else 63))
    # Per object: where it is from the first door (BlockedUnlockPickup's ball is in front).
    first_door = {int(i): (x, y) for i, x, y in door_at[::-1]}
    offsets = [(x - first_door[i][0] + 32) * 64 + (y - first_door[i][1] + 32) for i, x, y in at]
    words = layouts.mission
    length = (words != 0).sum(axis=1)
    return {
        "agent_pose": dist.cell_index(agent, height) * 4 + layouts.agent_dir,
        "front_kind": kind[rows, front[:, 0], front[:, 1]],
        "object_count": objects.sum(axis=(1, 2)),
        "object_cell_code": (at[:, 1] * height + at[:, 2]) * 32 + code[objects],
        "box_contents": state[kind == C.BOX],
        "door_cell_colour": (door_at[:, 1] * height + door_at[:, 2]) * 8 + colour[doors],
        "door_states": state[doors],
        "key_to_door": np.asarray(key_to_door),
        "from_door": np.asarray(offsets),
        "words": words[:, 0] * 64 + words[:, 3],
        "colour_word": words[:, 4],
        "mission_length": length,
        "last_word": words[rows, np.maximum(length - 1, 0)],
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(env_id, N_RESETS, _features, our_resets, minigrid_resets)
    features = _features(ours)
    assert not np.isin(features["front_kind"], (*OBJECTS, C.DOOR)).any(), "a pose faces a thing"
    assert (features["door_states"] == C.LOCKED).all()
    doors = 2 if env_id == "BabyAI-UnlockToUnlock-v0" else 1
    assert len(features["door_states"]) == doors * len(ours)
    # Every door's key is in the layout, on the floor or in a box.
    kind, colour = ours.grid[..., 0], ours.grid[..., 1]
    inside = np.asarray(cells.box_content(jnp.asarray(ours.grid)))
    for i in range(len(ours)):
        keys = set(colour[i][kind[i] == C.KEY]) | set(inside[i][..., 1][inside[i][..., 0] == C.KEY])
        assert set(colour[i][kind[i] == C.DOOR]) <= keys, f"reset {i}: a door without its key"
