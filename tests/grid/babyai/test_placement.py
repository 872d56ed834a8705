"""`horizax.grid.babyai.placement`'s room lists against the whole-grid forms they replace."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.babyai import placement as P
from horizax.grid.roomgrid import RoomGrid

ROOMS = RoomGrid(room_size=8, num_rows=3, num_cols=3)
SHAPE = (ROOMS.width, ROOMS.height)


def _masks() -> np.ndarray:
    return np.stack([P.object_cells(ROOMS, i, j) for j in range(3) for i in range(3)])


def test_listed_holds_each_masks_positions_in_order():
    masks = _masks()
    positions, valid = P.listed(masks)
    for mask, row, ok in zip(masks, positions, valid, strict=True):
        np.testing.assert_array_equal(row[ok], np.flatnonzero(mask))


@pytest.mark.parametrize("room", [0, 4, 8])
def test_nth_listed_finds_what_a_count_over_the_grid_finds(room):
    rng = np.random.default_rng(room)
    lists = P.listed(_masks())
    here = jnp.asarray(_masks()[room])

    @jax.jit
    def both(taken, rank):
        cells, ok = P.open_listed(lists, jnp.int32(room), taken)
        listed = P.nth_listed(cells, ok, rank, SHAPE[0] * SHAPE[1])
        return listed, P.nth_cell(here, taken, rank), jnp.sum(ok), P.free_count(here, taken)

    for _ in range(50):
        taken = jnp.asarray(rng.random(SHAPE) < rng.uniform(0, 1))
        free = int(P.free_count(here, taken))
        for rank in {0, max(free - 1, 0), free, free + 3, int(rng.integers(0, free + 1))}:
            listed, counted, n_listed, n_counted = both(taken, jnp.int32(rank))
            assert int(listed) == int(counted), (rank, free)  # past the last: both W * H
            assert int(n_listed) == int(n_counted)


def test_pose_lists_number_poses_as_nth_pose_does():
    interiors = np.stack([P.interior(ROOMS, i, j) for j in range(3) for i in range(3)])
    poses, valid = P.listed(P.pose_masks(interiors))
    assert valid.all()
    grid = jnp.zeros((*SHAPE, 3), jnp.uint8).at[..., 0].set(C.EMPTY)
    grid = grid.at[9, 10].set(jnp.asarray([C.BALL, 0, 0], jnp.uint8))
    for room in (0, 4):
        whole = P.agent_poses(grid, interiors[room])
        ok = P.agent_poses(grid, np.ones(SHAPE, bool))[poses[room]]
        for rank in range(0, int(whole.sum()), 7):
            pos, direction = P.nth_pose(whole, jnp.int32(rank), SHAPE[1])
            pose = int(P.nth_listed(poses[room], ok, jnp.int32(rank), 4 * SHAPE[0] * SHAPE[1]))
            assert (pose // 4 // SHAPE[1], pose // 4 % SHAPE[1], pose % 4) == (
                int(pos[0]),
                int(pos[1]),
                int(direction),
            )


def test_write_cell_is_put_and_writes_nothing_past_the_grid():
    grid = jnp.asarray(np.random.default_rng(0).integers(0, 9, (*SHAPE, 3)), jnp.uint8)
    taken = jnp.zeros(SHAPE, bool)
    obj = (C.BOX, 2, 0)
    for cell in (0, 23, SHAPE[0] * SHAPE[1] - 1):
        np.testing.assert_array_equal(
            P.write_cell(grid, jnp.int32(cell), obj), P.put(grid, jnp.int32(cell), obj)
        )
        np.testing.assert_array_equal(
            P.write_cell(taken, jnp.int32(cell), True), P.taken_by([jnp.int32(cell)], SHAPE)
        )
    past = jnp.int32(SHAPE[0] * SHAPE[1])
    np.testing.assert_array_equal(P.write_cell(grid, past, obj), grid)
    np.testing.assert_array_equal(P.write_cell(taken, past, True), taken)
