"""The BabyAI OneRoom levels against MiniGrid 3.2.0: lockstep episodes and resets.

The lockstep driver is `test_pickup_levels.play` (the BabyAI bot's successes, random
episodes, and deliberate failures: no other object to face, so ``done`` until the time limit,
``room_size**2`` steps); then MiniGrid's resets against ours per level
(`dist.sample_sizes`: 8,000 of ours, 1,000 of MiniGrid's).
"""

from __future__ import annotations

import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.babyai import one_room
from horizax.grid.envs import babyai_oneroom
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import test_pickup_levels as pickup
from tests.grid.babyai.test_goto_levels import minigrid_resets

IDS = sorted(babyai_oneroom.ENVIRONMENTS)
N_RESETS = 2000


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    counts = pickup.play(env_id, IDS.index(env_id))
    assert counts["bot_success"] == 2 and counts["failure"] == 2


def test_the_ball_avoids_the_rooms_centre_and_its_neighbours():
    # MiniGrid's placeholder agent sits at (room_size // 2, room_size // 2) while the ball
    # is placed; interior coordinates are one less.
    for size in babyai_oneroom.ROOM_SIZES:
        side, centre = size - 2, size // 2 - 1
        cells = one_room.object_cells(size)
        xs, ys = np.divmod(cells, side)
        assert (np.abs(xs - centre) + np.abs(ys - centre) >= 2).all()
        assert len(cells) == side * side - 5, size


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(
        env_id, N_RESETS, pickup._features, pickup.our_resets, minigrid_resets
    )
    features = pickup._features(ours)
    assert (features["object_count"] == 1).all()
    assert (features["object_codes"] // C.NUM_COLORS == C.BALL - C.KEY).all(), "not a ball"
    assert not np.isin(features["front_kind"], pickup.OBJECTS).any(), "the agent faces the ball"
