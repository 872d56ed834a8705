"""BabyAI's two-room PutNext and MoveTwoAcross levels against MiniGrid 3.2.0.

Lockstep (`lockstep.play`): the BabyAI bot's episodes (success) where it can play the level
(MiniGrid says it cannot play the ``…Carrying`` levels: a scripted drop next to the fixed
object stands in), random episodes and deliberate failures (facing an object the first
clause does not describe, then ``done`` until the time limit). Levels whose stepping
programs are the same share them. Then MiniGrid's resets against ours per level
(`dist.sample_sizes`: 8,000 of ours, 1,000 of MiniGrid's).
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import mission_tokens
from horizax.grid.envs import babyai_putnext_across
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.test_goto_levels import minigrid_resets
from tests.grid.babyai.test_pickup_levels import our_resets

IDS = sorted(babyai_putnext_across.ENVIRONMENTS)
OBJECTS = (C.KEY, C.BALL, C.BOX)
N_RESETS = 2000
# Levels whose stepping programs are the same: they differ in their layouts alone.
SHARED_PROGRAMS = {
    "BabyAI-PutNextS5N1-v0": "BabyAI-PutNextS5N2-v0",
    "BabyAI-PutNextS5N2Carrying-v0": "BabyAI-PutNextS5N2-v0",
    "BabyAI-PutNextS6N3Carrying-v0": "BabyAI-PutNextS6N3-v0",
    "BabyAI-PutNextS7N4Carrying-v0": "BabyAI-PutNextS7N4-v0",
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
    first = "drop_next" if env_id.endswith("Carrying-v0") else "bot"
    counts = lockstep.play(env_id, IDS.index(env_id), progs, (first, "random", "fail", first))
    assert counts["bot_success"] + counts["scripted_success"] == 2 and counts["failure"] == 1


def test_carrying_starts_with_the_moved_object_in_hand():
    """The object to move is in the hand, off the grid, and named with "the" (MiniGrid
    words the mission while it is still on the grid); the verifier follows it in the hand."""
    env = horizax.make("BabyAI-PutNextS6N3Carrying-v0")
    state = jax.jit(env.reset)(jax.random.PRNGKey(5)).state
    words = np.asarray(state.mission)
    kind, colour = int(state.carrying[0]), int(state.carrying[1])
    assert kind in OBJECTS
    said = mission_tokens.text_tokens(f"put the {C.COLOR_NAMES[colour]} {C.OBJECT_NAMES[kind]}")
    said = said[said != 0]
    np.testing.assert_array_equal(words[: len(said)], said)
    grid = np.asarray(state.grid)
    assert not ((grid[..., 0] == kind) & (grid[..., 1] == colour)).any()
    assert (grid[..., 0] != C.EMPTY).sum() > 0 and int(grid[..., 0].max()) <= C.BOX
    assert bool(state.extra.progress.carried[0]) and not bool(state.extra.progress.pre_carried)
    assert not bool(state.extra.progress.tracked[0].any())


# --- resets ------------------------------------------------------------------------------


def _features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, agent = layouts.grid, layouts.agent_pos
    n, height = len(grid), grid.shape[2]
    kind, colour = grid[..., 0].astype(np.int32), grid[..., 1].astype(np.int32)
    objects = np.isin(kind, OBJECTS)
    code = np.where(objects, (kind - C.KEY) * C.NUM_COLORS + colour, -1)
    at = np.argwhere(objects)
    words = layouts.mission
    length = (words != 0).sum(axis=1)
    # Where each named object lies: its column, or -1 when it is not on the grid (carried).
    named = []
    for i in range(n):
        # "put the C K next to the C K[, then put the C K next to the C K]": the C K at
        for start in (2, 7, 13, 19):
            if start + 1 >= length[i]:
                break
            c = C.COLOR_NAMES.index(mission_tokens.VOCABULARY[words[i, start]])
            k = C.OBJECT_NAMES.index(mission_tokens.VOCABULARY[words[i, start + 1]])
            cell = np.argwhere((kind[i] == k) & (colour[i] == c))
            named.append(start * 64 + (cell[0, 0] if len(cell) else 63))
    # How far the nearest object is from the agent (the left room's keep off its neighbours).
    nearest = np.full(n, 99)
    for i, x, y in at:
        nearest[i] = min(nearest[i], abs(x - agent[i, 0]) + abs(y - agent[i, 1]))
    return {
        "agent_pose": dist.cell_index(agent, height) * 4 + layouts.agent_dir,
        "nearest_object": np.minimum(nearest, 8),
        "object_count": objects.sum(axis=(1, 2)),
        "object_cell_code": (at[:, 1] * height + at[:, 2]) * 32 + code[objects],
        "distinct_pairs": np.array([len(set(c[c >= 0])) for c in code.reshape(n, -1)]),
        "named_columns": np.asarray(named),
        "middle_walls": (kind[:, (grid.shape[1] - 1) // 2, :] == C.WALL).sum(axis=1),
        "words": words[:, 2] * 64 + words[:, 3],
        "mission_length": length,
    }


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(env_id, N_RESETS, _features, our_resets, minigrid_resets)
    features = _features(ours)
    env = horizax.make(env_id)
    per_room = int(env_id.split("N")[-1].split("-")[0].removesuffix("Carrying"))
    carried = 1 if env_id.endswith("Carrying-v0") else 0
    assert (features["object_count"] == 2 * per_room - carried).all()
    assert (features["distinct_pairs"] == 2 * per_room - carried).all()
    assert (features["nearest_object"] >= 2).all(), "an object next to the agent"
    # The wall between the rooms is gone: its column holds the two outer walls only.
    assert (features["middle_walls"] == 2).all(), env.env_id
