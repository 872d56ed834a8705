"""BabyAI's KeyCorridor levels against MiniGrid 3.2.0: lockstep episodes and resets.

The layout is the classic KeyCorridor's (the same MiniGrid code, proven in
``tests/grid/envs/test_keycorridor.py``); here the BabyAI levels are proven whole: the
BabyAI bot's episodes (success), random episodes and failures (facing the key, which the
instruction does not describe, then ``done`` until the time limit), step by step, and resets
per level against MiniGrid's BabyAI class (`dist.sample_sizes`: 8,000 of ours, 1,000 of
MiniGrid's).
"""

from __future__ import annotations

import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs import babyai_keycorridor
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import lockstep
from tests.grid.babyai.test_goto_levels import minigrid_resets
from tests.grid.babyai.test_pickup_levels import our_resets
from tests.grid.babyai.test_unlock_levels import _features

IDS = sorted(babyai_keycorridor.ENVIRONMENTS)
N_RESETS = 2000
# The smaller levels run whole; the largest (rooms of side 6) only as its S6R3 twin.
LOCKSTEP_IDS = [i for i in IDS if i != "BabyAI-KeyCorridor-v0"]


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


def test_keycorridor_v0_is_s6r3():
    a, b = (horizax.make(f"BabyAI-KeyCorridor{s}-v0") for s in ("", "S6R3"))
    assert (a.width, a.height, a.max_steps) == (b.width, b.height, b.max_steps)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", LOCKSTEP_IDS)
def test_lockstep_with_minigrid(env_id):
    counts = lockstep.play(env_id, IDS.index(env_id), lockstep.programs(env_id), ("bot", "fail"))
    assert counts["bot_success"] == 1 and counts["failure"] == 1


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(env_id, N_RESETS, _features, our_resets, minigrid_resets)
    features = _features(ours)
    # One locked door; its key in the layout.
    assert ((features["door_states"] == C.LOCKED).reshape(-1).sum()) == len(ours)
    kind = ours.grid[..., 0]
    assert ((kind == C.BALL).sum(axis=(1, 2)) == 1).all()
    assert np.all((kind == C.KEY).sum(axis=(1, 2)) == 1)
