"""Empty: lockstep against MiniGrid and the start distribution of the -Random- ids."""

from __future__ import annotations

import pytest

import horizax
from tests.grid import minigrid_bridge as bridge

IDS = [
    "MiniGrid-Empty-5x5-v0",
    "MiniGrid-Empty-Random-5x5-v0",
    "MiniGrid-Empty-6x6-v0",
    "MiniGrid-Empty-Random-6x6-v0",
    "MiniGrid-Empty-8x8-v0",
    "MiniGrid-Empty-16x16-v0",
]


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    env = horizax.make(env_id)
    mg = bridge.minigrid_env(env_id)
    mg.reset(seed=0)
    actions = bridge.random_actions(seed=1, n=2000, forward_bias=0.3)
    counts = bridge.lockstep(env, mg, actions)
    assert counts["steps"] == 2000
    assert counts["terminated"] >= 1, "no goal was ever reached: the test lost its teeth"
