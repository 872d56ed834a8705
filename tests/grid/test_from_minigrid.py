"""`horizax.grid.from_minigrid.grid_encoding` against MiniGrid's own ``Grid.encode``."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid import from_minigrid
from tests.grid.minigrid_bridge import minigrid_env

pytestmark = pytest.mark.reference

# Boxes with and without contents (ObstructedMaze, KeyInBox), doors in every state, lava,
# balls and keys, square and oblong grids.
IDS = [
    "MiniGrid-ObstructedMaze-Full-v0",
    "BabyAI-KeyInBox-v0",
    "MiniGrid-KeyCorridorS4R3-v0",
    "MiniGrid-LavaCrossingS9N2-v0",
    "BabyAI-UnlockPickup-v0",
    "MiniGrid-Playground-v0",
]


@pytest.mark.parametrize("env_id", IDS)
def test_grid_encoding_is_minigrids_with_box_contents(env_id):
    mg = minigrid_env(env_id)
    rng = np.random.default_rng(0)
    for seed in range(20):
        with contextlib.redirect_stdout(io.StringIO()):
            mg.reset(seed=seed)
        for action in rng.integers(0, mg.action_space.n, 10):
            mg.step(int(action))  # doors opened, objects picked up and dropped
        got = from_minigrid.grid_encoding(mg)
        expected = mg.grid.encode()
        for x in range(mg.grid.width):
            for y in range(mg.grid.height):
                obj = mg.grid.get(x, y)
                if obj is not None and obj.type == "box":
                    expected[x, y] = from_minigrid.object_encoding(obj)
        assert got.dtype == np.uint8 and got.shape == (mg.grid.width, mg.grid.height, 3)
        assert got.flags.c_contiguous and got.flags.writeable
        np.testing.assert_array_equal(got, expected, err_msg=f"{env_id} seed {seed}")


def test_a_box_holding_a_key_is_not_minigrids_bare_box():
    mg = minigrid_env("BabyAI-KeyInBox-v0")
    mg.reset(seed=0)
    got = from_minigrid.grid_encoding(mg)
    boxes = got[..., 0] == C.BOX
    assert boxes.sum() == 1
    assert (got[boxes] != mg.grid.encode()[boxes]).any(), "the box's contents were not read"
