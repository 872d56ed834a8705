"""BabyAI's maze levels (GoTo, Open, Pickup, UnblockPickup) against MiniGrid 3.2.0.

Lockstep (`lockstep.play`): the BabyAI bot's episodes (success), random episodes and
deliberate failures (facing an object or door the instruction does not describe, then
``done`` until the time limit); levels whose stepping programs are the same share them. Then
MiniGrid's resets against ours per level, as fine a comparison as 2,000 a side (1,000 for
the levels with 18 or 20 objects, whose MiniGrid resets cost ten times more;
`dist.sample_sizes`: four times that of ours, half of MiniGrid's): the agent's pose, the
objects, which walls got doors and the door states; every one of ours must have all its
objects and doors reachable (UnblockPickup: some object or door must NOT be).
"""

from __future__ import annotations

import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.envs import babyai_maze
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.test_door_levels import reached_everything
from tests.grid.babyai.test_findobj_levels import _with_doors
from tests.grid.babyai.test_goto_levels import minigrid_resets
from tests.grid.babyai.test_pickup_levels import our_resets

IDS = sorted(babyai_maze.ENVIRONMENTS)
SHARED_PROGRAMS = {
    "BabyAI-GoToOpen-v0": "BabyAI-GoTo-v0",
    "BabyAI-GoToObjMaze-v0": "BabyAI-GoTo-v0",
    "BabyAI-GoToObjMazeOpen-v0": "BabyAI-GoTo-v0",
    "BabyAI-UnblockPickup-v0": "BabyAI-Pickup-v0",
}
CROWDED = ("BabyAI-GoTo-v0", "BabyAI-GoToOpen-v0", "BabyAI-Open-v0", "BabyAI-Pickup-v0")


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
    counts = lockstep.play(env_id, IDS.index(env_id), progs, ("bot", "random", "fail", "bot"))
    assert counts["bot_success"] == 2 and counts["failure"] == 1


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    n = 1000 if env_id in (*CROWDED, "BabyAI-UnblockPickup-v0") else 2000
    ours = dist.compare_resets(env_id, n, _with_doors, our_resets, minigrid_resets)
    features = _with_doors(ours)
    reached = reached_everything(ours)
    if env_id == "BabyAI-UnblockPickup-v0":
        assert not reached.any(), "a reset kept a layout with nothing to unblock"
    else:
        assert reached.all(), "a reset kept an unreachable object or door"
    expected = C.OPEN if env_id.endswith("Open-v0") and env_id != "BabyAI-Open-v0" else C.CLOSED
    assert (features["door_states"] == expected).all()
    count = 18 if env_id in CROWDED else 20 if "Unblock" in env_id else 1
    assert (features["object_count"] == count).all()
    rooms = 4 if "S4R2" in env_id else 9
    assert (features["door_count"] >= rooms - 1).all()
    assert np.all(features["mission_length"] >= 4)
