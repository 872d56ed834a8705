"""One room of a room grid with doors in its walls, built as a block and pasted in.

BabyAI's door levels (`horizax.grid.envs.babyai_doors`) play in one room of a
``RoomGridLevel`` -- the centre room ``(1, 1)`` of a 3 x 3 grid, or the left room of two --
and put doors only in that room's walls; every other room stays empty and closed. The room is
built here as a ``room_size`` square block in room coordinates (walls included, the interior
from 1 to ``side = room_size - 2``) and pasted into the walls of the whole grid.

MiniGrid's door slots: one per wall between two rooms, drawn when the grid is built, at a
uniform offset ``o`` in ``[0, side)`` along the wall (``RoomGrid._gen_grid``). Walls are
numbered as MiniGrid's ``Room.doors``: 0 right, 1 down, 2 left, 3 up.

Interior cells are numbered ``x * side + y`` in interior coordinates, as in
`horizax.grid.babyai.one_room`, whose pose helpers apply to the block unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import one_room
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.state import State, make_state

NUM_WALLS = 4  # right, down, left, up


def door_at(room_size: int, wall: int | Array, offset: Array) -> tuple[Array, Array]:
    """The room coordinates of the door slot on ``wall`` (an int or a traced i32[]) at
    ``offset`` (in ``[0, side)``)."""
    last, along = jnp.int32(room_size - 1), 1 + jnp.asarray(offset, jnp.int32)
    zero = jnp.int32(0)
    xs, ys = jnp.stack([last, along, zero, along]), jnp.stack([along, last, along, zero])
    return xs[wall], ys[wall]


def block_with_doors(
    room_size: int,
    walls: Sequence[int | Array],
    offsets: Sequence[Array],
    doors: Sequence[Array],
) -> tuple[Array, Array]:
    """The room as a block: walls, an empty interior and the given doors.

    Args:
        room_size: the room's side, walls included (static).
        walls: the wall of each door (ints, or traced i32[] for doors on random walls).
        offsets: i32[] per door, its slot's offset along the wall.
        doors: u8[3] per door, its encoding (``C.DOOR``, colour, state).

    Returns:
        ``(block u8[S, S, 3], door bool[S, S])``, the second marking the door cells.
    """
    block = jnp.asarray(RoomGrid(room_size=room_size, num_rows=1, num_cols=1).walls())
    xs = np.arange(room_size)[:, None]
    ys = np.arange(room_size)[None, :]
    is_door = jnp.zeros((room_size, room_size), bool)
    for wall, offset, door in zip(walls, offsets, doors, strict=True):
        x, y = door_at(room_size, wall, offset)
        at = (xs == x) & (ys == y)
        block = jnp.where(at[..., None], jnp.asarray(door, jnp.uint8), block)
        is_door = is_door | at
    return block, is_door


def door_cell(colour: Array, state: Array | int) -> Array:
    """u8[3]: a door of ``colour`` in ``state`` (``C.OPEN``, ``C.CLOSED`` or ``C.LOCKED``)."""
    return jnp.stack([jnp.int32(C.DOOR), colour, jnp.asarray(state, jnp.int32)]).astype(jnp.uint8)


def object_cell(kind: Array | int, colour: Array) -> Array:
    """u8[3]: an object of ``kind`` (key, ball or box) and ``colour``."""
    return jnp.stack([jnp.asarray(kind, jnp.int32), colour, jnp.int32(0)]).astype(jnp.uint8)


def with_objects(block: Array, cells: Sequence[Array], objects: Sequence[Array]) -> Array:
    """The block with ``objects`` (u8[3] each) put on the interior ``cells`` (i32[] each)."""
    room_size = block.shape[0]
    side = room_size - 2
    xs = np.arange(room_size)[:, None]
    ys = np.arange(room_size)[None, :]
    for cell, obj in zip(cells, objects, strict=True):
        at = (xs == 1 + cell // side) & (ys == 1 + cell % side)
        block = jnp.where(at[..., None], obj, block)
    return block


def paste(grid: np.ndarray, block: Array, corner: tuple[int, int]) -> Array:
    """u8[W, H, 3]: ``grid`` (the room grid's walls) with ``block`` at its top-left ``corner``."""
    x, y = corner
    size = block.shape[0]
    return jnp.asarray(grid).at[x : x + size, y : y + size].set(block)


def interior_pos(corner: tuple[int, int], cell: Array, side: int) -> Array:
    """i32[2]: the grid position of interior ``cell`` of the room at ``corner``."""
    return jnp.stack([corner[0] + 1 + cell // side, corner[1] + 1 + cell % side])


def admissible_poses(taken_cells: Sequence[Array], is_door: Array, side: int) -> Array:
    """bool[side * side * 4]: the agent's poses on a free cell, facing no object or door
    (`one_room.admissible_poses` around these interior ``taken_cells`` and door cells)."""
    taken = jnp.zeros((side, side), bool)
    if taken_cells:
        taken = one_room.occupied(jnp.stack(list(taken_cells)), side)
    return one_room.admissible_poses(taken, is_door)


def pose_count(taken_cells: Sequence[Array], is_door: Array, side: int) -> Array:
    """i32[]: how many `admissible_poses` there are (the radix of the agent's pose draw)."""
    return jnp.sum(admissible_poses(taken_cells, is_door, side), dtype=jnp.int32)


def grid_state(
    room_grid: RoomGrid, corner: tuple[int, int], block: Array, cell: Array, direction: Array
) -> State:
    """The layout's `State`: ``block`` pasted at ``corner`` of the room grid's walls, the
    agent on interior ``cell`` of that room, facing ``direction``."""
    grid = paste(room_grid.walls(), block, corner)
    side = block.shape[0] - 2
    return make_state(grid, interior_pos(corner, cell, side), direction)


def posed_state(
    room_grid: RoomGrid,
    corner: tuple[int, int],
    block: Array,
    is_door: Array,
    taken_cells: Sequence[Array],
    rank: Array,
) -> State:
    """`grid_state` with the agent at the ``rank``-th of the `admissible_poses`."""
    side = block.shape[0] - 2
    cell, direction = one_room.nth_pose(admissible_poses(taken_cells, is_door, side), rank)
    return grid_state(room_grid, corner, block, cell, direction)
