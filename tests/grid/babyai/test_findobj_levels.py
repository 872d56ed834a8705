"""BabyAI's FindObj levels against MiniGrid 3.2.0: lockstep episodes and resets.

Lockstep (`lockstep.play`): the BabyAI bot's episodes (success), random episodes and
deliberate failures (facing a door, which the instruction does not describe, then ``done``
until the time limit). Then MiniGrid's resets against ours per level (`dist.sample_sizes`:
8,000 of ours, 1,000 of MiniGrid's): where the object is, what it is, where the agent
stands, and which walls ``connect_all`` gave doors (their cells, colours and count).
"""

from __future__ import annotations

import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.envs import babyai_findobj
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.test_goto_levels import minigrid_resets
from tests.grid.babyai.test_pickup_levels import our_resets
from tests.grid.babyai.test_unlock_levels import _features

IDS = sorted(babyai_findobj.ENVIRONMENTS)
N_RESETS = 2000


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    policies = ("bot", "random", "fail", "bot")
    counts = lockstep.play(env_id, IDS.index(env_id), lockstep.programs(env_id), policies)
    assert counts["bot_success"] == 2 and counts["failure"] == 1


def _with_doors(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    features = _features(layouts)
    doors = layouts.grid[..., 0] == C.DOOR
    features["door_count"] = doors.sum(axis=(1, 2))
    # Which walls hold a door, as a bit set over the cells of the walls' slots (joint).
    cells = np.flatnonzero(doors.any(axis=0))
    features["door_walls"] = (
        doors.reshape(len(doors), -1)[:, cells] * (1 << (np.arange(len(cells)) % 62))
    ).sum(axis=1) % 1_000_003
    return features


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(env_id, N_RESETS, _with_doors, our_resets, minigrid_resets)
    features = _with_doors(ours)
    assert (features["object_count"] == 1).all()
    # connect_all: every room reachable (8 doors at least join 9 rooms).
    assert (features["door_count"] >= 8).all()
    assert not np.isin(features["front_kind"], (C.KEY, C.BALL, C.BOX)).any()
    if env_id == "BabyAI-PickupAbove-v0":
        # The door above is made before the agent is placed: the agent never faces it (the
        # doors connect_all adds later may be faced).
        front = ours.agent_pos + np.asarray(C.DIR_TO_VEC)[ours.agent_dir]
        top_wall = babyai_findobj.ABOVE.room_size - 1
        rows = np.arange(len(ours))
        faced = ours.grid[rows, front[:, 0], front[:, 1], 0]
        assert not ((front[:, 1] == top_wall) & (faced == C.DOOR)).any(), "faces the door above"
