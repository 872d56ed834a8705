"""The one-room BabyAI PutNext levels against MiniGrid 3.2.0: lockstep episodes and resets.

The lockstep driver is `test_pickup_levels.play` (the BabyAI bot's successes, random
episodes, and deliberate failures: facing an undescribed object, then ``done`` until the
time limit, ``2 * room_size**2`` steps); then MiniGrid's resets against ours per level
(`dist.sample_sizes`: 8,000 of ours, 1,000 of MiniGrid's).
"""

from __future__ import annotations

import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.envs import babyai_putnext
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.babyai import test_pickup_levels as pickup
from tests.grid.babyai.test_goto_levels import all_reachable, minigrid_resets

IDS = sorted(babyai_putnext.ENVIRONMENTS)
N_RESETS = 2000
COLOUR_WORDS, KIND_WORDS = 10, 17  # mission_tokens: "red" is word 10, "key" word 17


def _pair_cells(layouts: dist.Layouts) -> tuple[np.ndarray, np.ndarray]:
    """i32[N, 2] cells of the object to move and of the fixed one, read from the mission
    ("put the C K next to the C K": words 2, 3 and 7, 8)."""
    words, grid = layouts.mission, layouts.grid
    found = []
    for colour_at, kind_at in ((2, 3), (7, 8)):
        kind = C.KEY + words[:, kind_at] - KIND_WORDS
        colour = words[:, colour_at] - COLOUR_WORDS
        match = (grid[..., 0] == kind[:, None, None]) & (grid[..., 1] == colour[:, None, None])
        assert (match.sum(axis=(1, 2)) == 1).all(), "each description names one object"
        found.append(np.argwhere(match)[:, 1:])
    return found[0], found[1]


def _features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    a, b = _pair_cells(layouts)
    features = pickup._features(layouts)
    features["pair_distance"] = np.minimum(np.abs(a - b).sum(axis=1), 8)
    features["moved_colour_kind"] = layouts.mission[:, 2] * 64 + layouts.mission[:, 3]
    features["fixed_colour_kind"] = layouts.mission[:, 7] * 64 + layouts.mission[:, 8]
    return features


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    counts = pickup.play(env_id, IDS.index(env_id))
    assert counts["bot_success"] == 2 and counts["failure"] == 2


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_reset_distribution_matches_minigrid(env_id):
    ours = dist.compare_resets(env_id, N_RESETS, _features, pickup.our_resets, minigrid_resets)
    features = _features(ours)
    count = features["object_count"][0]
    assert (features["object_count"] == count).all()
    assert (features["distinct_pairs"] == count).all(), "MiniGrid's pairs are all unique"
    # MiniGrid redraws unreachable layouts and objects already next to each other.
    assert all_reachable(ours).all(), "a reset kept an unreachable object"
    assert (features["pair_distance"] != 1).all(), "a reset kept the pair already next"
