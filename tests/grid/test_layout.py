"""Tests of the layout helpers that are not covered through a family's own tests."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.layout import empty_cells, pick_cell, pick_interior_cells, put
from horizax.grid.state import walled_grid


def _one_by_one(bits: jax.Array, width: int, height: int) -> np.ndarray:
    """The reference: `pick_cell` on the empty mask, filling each drawn cell before the next."""
    grid = jnp.asarray(walled_grid(width, height))
    drawn = []
    for word in bits:
        cell = pick_cell(empty_cells(grid), word)
        grid = put(grid, cell, jnp.asarray(C.WALL_CELL, jnp.uint8))
        drawn.append(cell)
    return np.asarray(jnp.stack(drawn))


@pytest.mark.parametrize(("width", "height", "count"), [(5, 5, 3), (8, 8, 4), (6, 9, 6), (4, 4, 4)])
def test_pick_interior_cells_equals_successive_pick_cell(width, height, count):
    words = jax.random.bits(jax.random.key(width * height + count), (300, count), jnp.uint32)
    # Extreme words too: the first and the last free cell of every draw.
    extremes = jnp.asarray([[0] * count, [0xFFFFFFFF] * count], jnp.uint32)
    words = jnp.concatenate([words, extremes])
    fast = jax.jit(jax.vmap(lambda w: pick_interior_cells(w, width, height)))(words)
    for row, cells in zip(np.asarray(words), np.asarray(fast), strict=True):
        np.testing.assert_array_equal(cells, _one_by_one(jnp.asarray(row), width, height))


def test_pick_interior_cells_fills_a_whole_room_with_distinct_cells():
    words = jax.random.bits(jax.random.key(0), (50, 9), jnp.uint32)
    cells = np.asarray(jax.vmap(lambda w: pick_interior_cells(w, 5, 5))(words))
    assert cells.min() == 1 and cells.max() == 3
    for draw in cells:
        assert len({tuple(c) for c in draw}) == 9


def test_pick_interior_cells_rejects_more_cells_than_the_room_has():
    with pytest.raises(ValueError, match="cannot draw 5 distinct cells from 4"):
        pick_interior_cells(jnp.zeros(5, jnp.uint32), 4, 4)
