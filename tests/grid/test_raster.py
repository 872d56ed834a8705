"""`horizax.grid.raster` draws MiniGrid 3.2.0's tiles pixel for pixel (reference test)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.raster import tile

pytestmark = pytest.mark.reference

minigrid_grid = pytest.importorskip("minigrid.core.grid")
world_object = pytest.importorskip("minigrid.core.world_object")

ENCODINGS = [
    (o, c, s)
    for o, c, s in itertools.product(range(C.NUM_OBJECTS), range(C.NUM_COLORS), range(C.NUM_STATES))
    if o not in (C.UNSEEN, C.AGENT) and (o == C.DOOR or s == 0)
]


def _reference(obj, colour, state, agent_dir, highlight, tile_size):
    cell = world_object.WorldObj.decode(obj, colour, state)
    minigrid_grid.Grid.tile_cache = {}
    return minigrid_grid.Grid.render_tile(
        cell, agent_dir=agent_dir, highlight=highlight, tile_size=tile_size
    )


# The agent in each direction over one cell of every object kind and door state (colour 0):
# its triangle is drawn over whatever the cell drew, so every colour under it adds nothing
# that the exhaustive 9 px case and the agent-less 32 px case do not already check, at a
# quarter of the time (MiniGrid supersamples each 32 px tile 3x in numpy).
AGENT_OVER = [(o, c, s) for o, c, s in ENCODINGS if c == 0]


@pytest.mark.parametrize("tile_size", [32, 9])
@pytest.mark.parametrize("agent_dir", [None, 0, 1, 2, 3])
def test_every_tile_equals_minigrids(tile_size, agent_dir):
    """Every encoding at 9 px; at 32 px (MiniGrid's render size) every encoding without the
    agent and `AGENT_OVER` with it."""
    encodings = AGENT_OVER if tile_size == 32 and agent_dir is not None else ENCODINGS
    for encoding, highlight in itertools.product(encodings, (False, True)):
        ours = tile(*encoding, agent_dir, highlight, tile_size)
        theirs = _reference(*encoding, agent_dir, highlight, tile_size)
        assert ours.shape == (tile_size, tile_size, 3) and ours.dtype == np.uint8
        np.testing.assert_array_equal(
            ours, theirs.astype(np.uint8), err_msg=f"{encoding} dir {agent_dir} hl {highlight}"
        )
