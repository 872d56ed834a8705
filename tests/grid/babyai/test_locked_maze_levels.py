"""BabyAI's Unlock and GoToImpUnlock against MiniGrid 3.2.0: lockstep episodes and resets.

Lockstep (`lockstep.play`): the BabyAI bot's episodes (success: it fetches the key and
unlocks the door), random episodes and deliberate failures (facing an object or door the
instruction does not describe, then ``done`` until the time limit); the two levels share
their stepping programs. Then MiniGrid's resets against ours per level, as fine a
comparison as 1,000 a side (theirs cost about 10 ms each; `dist.sample_sizes`: 4,000 of
ours, 500 of MiniGrid's): the locked door, its key, the objects, which walls got doors, the agent.
"""

from __future__ import annotations

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs import babyai_locked_maze
from tests import code_families
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.test_door_levels import reached_everything
from tests.grid.babyai.test_findobj_levels import _with_doors
from tests.grid.babyai.test_goto_levels import minigrid_resets
from tests.grid.babyai.test_pickup_levels import our_resets

IDS = sorted(babyai_locked_maze.ENVIRONMENTS)
N_RESETS = 1000


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


def test_levels_share_their_stepping_shape():
    a, b = (horizax.make(i) for i in IDS)
    assert (a.width, a.height, a.max_steps) == (b.width, b.height, b.max_steps)
    assert code_families.code(a.step) == code_families.code(b.step)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    progs = lockstep.programs(env_id)
    counts = lockstep.play(env_id, IDS.index(env_id), progs, ("bot", "random", "fail", "bot"))
    assert counts["bot_success"] == 2 and counts["failure"] == 1


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(env_id, N_RESETS, _with_doors, our_resets, minigrid_resets)
    features = _with_doors(ours)
    assert ((features["door_states"] == C.LOCKED).sum()) == len(ours), "one locked door"
    count = 28 if env_id == "BabyAI-Unlock-v0" else 20
    assert (features["object_count"] == count).all()
    if env_id == "BabyAI-Unlock-v0":
        assert reached_everything(ours).all(), "a reset kept an unreachable object or door"
    # The locked door's key is in the layout.
    kind, colour, state = (ours.grid[..., c] for c in range(3))
    for i in range(len(ours)):
        locked = colour[i][(kind[i] == C.DOOR) & (state[i] == C.LOCKED)]
        assert locked[0] in colour[i][kind[i] == C.KEY], f"reset {i}: no key"
    assert not np.isin(features["front_kind"], (C.KEY, C.BALL, C.BOX, C.DOOR)).any()
