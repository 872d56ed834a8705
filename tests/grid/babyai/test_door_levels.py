"""BabyAI's door levels against MiniGrid 3.2.0: lockstep episodes and resets.

Lockstep (`lockstep.play`): the BabyAI bot's episodes (success), random episodes and
deliberate failures: facing a door or object the instruction does not describe, then
``done`` until the time limit, or, on OpenDoorDebug (strict), toggling that door, which
must terminate with reward 0. Then MiniGrid's resets against ours per level
(`dist.sample_sizes`: 8,000 of ours, 1,000 of MiniGrid's).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import mission_tokens
from horizax.grid.babyai import door_room, level
from horizax.grid.babyai import verifiers as V
from horizax.grid.envs import babyai_doors
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.test_goto_levels import minigrid_resets
from tests.grid.babyai.test_pickup_levels import our_resets

IDS = sorted(babyai_doors.ENVIRONMENTS)
OBJECTS = (C.KEY, C.BALL, C.BOX)
N_RESETS = 2000


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    counts = lockstep.play(env_id, IDS.index(env_id), lockstep.programs(env_id))
    assert counts["bot_success"] == 2 and counts["failure"] == 2


def test_room_size_is_read_off_the_environment():
    assert level.level_room_size(horizax.make("BabyAI-OpenDoor-v0")) == 8
    assert level.level_room_size(horizax.make("BabyAI-OpenRedDoor-v0")) == 5
    assert level.level_room_size(horizax.make("BabyAI-GoToLocalS6N4-v0")) == 6
    with pytest.raises(ValueError, match="env"):
        level.level_room_size(horizax.make("MiniGrid-Empty-5x5-v0"))


def test_door_slots_are_on_the_walls_between_rooms():
    for size in (5, 7, 8):
        for wall in range(door_room.NUM_WALLS):
            for offset in range(size - 2):
                x, y = (int(v) for v in door_room.door_at(size, wall, offset))
                on_wall = x in (0, size - 1) or y in (0, size - 1)
                corner = x in (0, size - 1) and y in (0, size - 1)
                assert on_wall and not corner, (size, wall, offset)


def test_open_door_debug_is_open_door_made_strict():
    plain, debug = (
        jax.jit(horizax.make(i).layout_fn)
        for i in ("BabyAI-OpenDoor-v0", "BabyAI-OpenDoorDebug-v0")
    )
    key = jax.random.PRNGKey(4)
    a, b = plain(key), debug(key)
    assert int(a.extra.instr[1]) == 0 and int(b.extra.instr[1]) == 1
    np.testing.assert_array_equal(a.extra.instr[2:], b.extra.instr[2:])
    np.testing.assert_array_equal(a.grid, b.grid)
    assert int(a.extra.instr[0]) == V.Instr.OPEN


# --- resets ------------------------------------------------------------------------------


def reached_everything(layouts: dist.Layouts) -> np.ndarray:
    """bool[N]: every object and door can be reached without moving an object (MiniGrid's
    ``check_objs_reachable``: doors are walked through, objects are not)."""
    kind = layouts.grid[..., 0]
    walk = dist.reachable_batch((kind == C.EMPTY) | (kind == C.DOOR), layouts.agent_pos)
    things = np.isin(kind, (*OBJECTS, C.DOOR))
    return (dist.neighbourhood(walk) | ~things).all(axis=(1, 2))


def _features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent = layouts.grid, layouts.agent_pos
    height = grid.shape[2]
    kind, colour = grid[..., 0].astype(np.int32), grid[..., 1].astype(np.int32)
    state = grid[..., 2].astype(np.int32)
    objects, doors = np.isin(kind, OBJECTS), kind == C.DOOR
    code = np.where(objects, (kind - C.KEY) * C.NUM_COLORS + colour, -1)
    codes = code.reshape(len(kind), -1)
    rows = np.arange(len(kind))
    front = agent + np.asarray(C.DIR_TO_VEC)[layouts.agent_dir]
    door_at = np.argwhere(doors)
    words = layouts.mission
    length = (words != 0).sum(axis=1)
    # Where the door of the mission's colour word is (-1: none named or none there).
    named = np.full(len(kind), -1)
    for c, name in enumerate(C.COLOR_NAMES):
        said = (words == mission_tokens.text_tokens(name)[0]).any(axis=1)
        for i in np.flatnonzero(said):
            at = np.argwhere(doors[i] & (colour[i] == c))
            named[i] = at[0, 0] * height + at[0, 1] if len(at) else -1
    return {
        "agent": dist.cell_index(agent, height),
        "agent_pose": dist.cell_index(agent, height) * 4 + layouts.agent_dir,
        "front_kind": kind[rows, front[:, 0], front[:, 1]],
        "object_count": objects.sum(axis=(1, 2)),
        "distinct_pairs": np.array([len(set(c[c >= 0])) for c in codes]),
        "object_cells": np.argwhere(objects)[:, 1] * height + np.argwhere(objects)[:, 2],
        "object_codes": code[objects],
        "door_count": doors.sum(axis=(1, 2)),
        "door_cells": door_at[:, 1] * height + door_at[:, 2],
        "door_colours": colour[doors],
        "door_states": state[doors],
        "door_cell_colour": (door_at[:, 1] * height + door_at[:, 2]) * 8 + colour[doors],
        "distinct_door_colours": np.array(
            [len(set(c[d])) for c, d in zip(colour, doors, strict=True)]
        ),
        "named_door_cell": named,
        "determiner": words[:, 2],
        "verb": words[:, 0],
        "word_3": words[:, 3],
        "word_4": words[:, 4],
        "words_3_4": words[:, 3] * 64 + words[:, 4],
        "mission_length": length,
        "last_word": words[rows, np.maximum(length - 1, 0)],
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(env_id, N_RESETS, _features, our_resets, minigrid_resets)
    features = _features(ours)
    expected_doors = 1 if env_id == "BabyAI-OpenRedDoor-v0" else 4
    assert (features["door_count"] == expected_doors).all()
    if env_id != "BabyAI-GoToObjDoor-v0":  # the agent is placed last: it faces no door
        assert not np.isin(features["front_kind"], (*OBJECTS, C.DOOR)).any()
    if env_id == "BabyAI-GoToObjDoor-v0":
        # MiniGrid redraws a layout with an unreachable object or door.
        assert reached_everything(ours).all(), "a reset kept an unreachable object"
        assert (features["object_count"] == 8).all()
    if env_id == "BabyAI-ActionObjDoor-v0":
        assert (features["distinct_pairs"] == 5).all() and (features["object_count"] == 5).all()
    if env_id.startswith("BabyAI-OpenDoor"):
        assert (features["distinct_door_colours"] == 4).all()
