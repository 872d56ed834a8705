"""MiniGrid's ``RoomGrid`` as jittable layout helpers (Unlock*, KeyCorridor, ObstructedMaze).

A `RoomGrid` is a ``num_cols`` x ``num_rows`` array of square rooms of side ``room_size``
(walls included) sharing their walls: room ``(i, j)`` (column ``i``, row ``j``) has its
top-left corner at ``(i * (room_size - 1), j * (room_size - 1))``. MiniGrid draws one door
position per wall between two rooms when it builds the grid, whether or not a door is later
put there; `draw_door_slots` draws all of them at once and `door_position` reads them.

Placement follows MiniGrid's rejection samplers, drawn directly from masks (the accepted
outcome of a rejection loop is uniform over the admissible outcomes):

* `place_in_room` -- ``place_in_room``/``add_object``: a cell of the room's rectangle that is
  empty, not the agent's, and at Manhattan distance >= 2 from the agent (``reject_next_to``).
  Before the agent is placed MiniGrid's "agent" is the centre of the middle room
  (`RoomGrid.default_agent_pos`), so early objects also avoid that neighbourhood.
* `place_agent` -- a uniform (cell, direction) pair among those whose cell is empty and whose
  front cell is empty or a wall (MiniGrid redraws both until that holds).

Indices ``i``, ``j`` and door indices may be traced: every helper builds its masks
arithmetically, so layouts stay branch-free under `vmap`.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.layout import sample_cell
from horizax.grid.state import walled_grid

# Door indices (MiniGrid's): 0 right, 1 down, 2 left, 3 up.
RIGHT, DOWN, LEFT, UP = range(4)


@dataclasses.dataclass(frozen=True)
class RoomGrid:
    """The static shape of a room grid.

    Attributes:
        room_size: side of each room, walls included (>= 3).
        num_rows, num_cols: rooms per column and per row (>= 1).
    """

    room_size: int
    num_rows: int
    num_cols: int

    def __post_init__(self) -> None:
        if self.room_size < 3 or self.num_rows < 1 or self.num_cols < 1:
            raise ValueError(f"invalid room grid {self}: room_size >= 3, rows/cols >= 1")

    @property
    def width(self) -> int:
        """Grid width in cells."""
        return (self.room_size - 1) * self.num_cols + 1

    @property
    def height(self) -> int:
        """Grid height in cells."""
        return (self.room_size - 1) * self.num_rows + 1

    def walls(self) -> np.ndarray:
        """u8[W, H, 3] numpy grid: every room's walls, nothing inside."""
        grid = walled_grid(self.width, self.height)
        step = self.room_size - 1
        grid[::step, :] = C.WALL_CELL
        grid[:, ::step] = C.WALL_CELL
        return grid

    def default_agent_pos(self) -> np.ndarray:
        """i32[2]: where MiniGrid's ``RoomGrid`` puts the agent before ``place_agent``."""
        half, step = self.room_size // 2, self.room_size - 1
        return np.array(
            [self.num_cols // 2 * step + half, self.num_rows // 2 * step + half], np.int32
        )

    def room_mask(self, i: Array | int, j: Array | int) -> Array:
        """bool[W, H]: the rectangle of room ``(i, j)``, its walls included."""
        step = self.room_size - 1
        xs = jnp.arange(self.width)[:, None]
        ys = jnp.arange(self.height)[None, :]
        x0, y0 = i * step, j * step
        return (xs >= x0) & (xs <= x0 + step) & (ys >= y0) & (ys <= y0 + step)


def draw_door_slots(key: Array, rg: RoomGrid) -> Array:
    """i32[num_rows, num_cols, 2]: each room's right-door ``y`` and down-door ``x``.

    MiniGrid draws ``_rand_int(top + 1, top + room_size - 1)`` for the right wall of every room
    but the last column and the bottom wall of every room but the last row; the draws are
    independent, so drawing them all (unused ones included) gives the same distribution.
    """
    step = rg.room_size - 1
    offsets = jax.random.randint(key, (rg.num_rows, rg.num_cols, 2), 1, step, dtype=jnp.int32)
    tops = jnp.stack(
        [
            jnp.broadcast_to(jnp.arange(rg.num_rows)[:, None] * step, (rg.num_rows, rg.num_cols)),
            jnp.broadcast_to(jnp.arange(rg.num_cols)[None, :] * step, (rg.num_rows, rg.num_cols)),
        ],
        axis=-1,
    )
    return tops + offsets


def door_position(
    slots: Array, rg: RoomGrid, i: Array | int, j: Array | int, idx: Array | int
) -> Array:
    """i32[2]: the position of door ``idx`` of room ``(i, j)`` (MiniGrid's ``door_pos``).

    The caller guarantees that the neighbour exists (``idx`` 0 needs ``i < num_cols - 1``,
    1 ``j < num_rows - 1``, 2 ``i > 0``, 3 ``j > 0``); indices are clipped otherwise.
    """
    step = rg.room_size - 1
    i, j, idx = (jnp.asarray(v, jnp.int32) for v in (i, j, idx))
    left_i = jnp.maximum(i - 1, 0)
    up_j = jnp.maximum(j - 1, 0)
    candidates = jnp.stack(
        [
            jnp.stack([i * step + step, slots[j, i, 0]]),
            jnp.stack([slots[j, i, 1], j * step + step]),
            jnp.stack([i * step, slots[j, left_i, 0]]),
            jnp.stack([slots[up_j, i, 1], j * step]),
        ]
    )
    return candidates[idx]


def has_neighbour(rg: RoomGrid, i: Array | int, j: Array | int, idx: Array | int) -> Array:
    """bool[]: room ``(i, j)`` has a neighbour through wall ``idx``."""
    return jnp.stack(
        [
            jnp.asarray(i) < rg.num_cols - 1,
            jnp.asarray(j) < rg.num_rows - 1,
            jnp.asarray(i) > 0,
            jnp.asarray(j) > 0,
        ]
    )[idx]


def place_in_room(
    key: Array, grid: Array, rg: RoomGrid, i: Array | int, j: Array | int, agent_pos: Array
) -> Array:
    """i32[2]: MiniGrid's ``place_in_room`` cell for a new object in room ``(i, j)``.

    Args:
        key: PRNG key.
        grid: u8[W, H, 3], the grid so far.
        rg: the room grid.
        i, j: the room.
        agent_pos: i32[2], the agent's position so far (`RoomGrid.default_agent_pos` before
            the agent is placed).
    """
    xs = jnp.arange(rg.width)[:, None]
    ys = jnp.arange(rg.height)[None, :]
    far = (jnp.abs(xs - agent_pos[0]) + jnp.abs(ys - agent_pos[1])) >= 2
    mask = rg.room_mask(i, j) & (grid[..., 0] == C.EMPTY) & far
    return sample_cell(key, mask)


def place_agent(
    key: Array, grid: Array, rg: RoomGrid, i: Array | int, j: Array | int
) -> tuple[Array, Array]:
    """``(pos i32[2], dir i32[])``: MiniGrid's ``RoomGrid.place_agent`` in room ``(i, j)``.

    Uniform over the (empty cell of the room, direction) pairs whose front cell is empty or a
    wall -- the pairs MiniGrid's redraw loop accepts.
    """
    kinds = grid[..., 0]
    ok_front = (kinds == C.EMPTY) | (kinds == C.WALL)
    # The grid's border is walls, so a shifted view never needs a cell beyond it for an
    # admissible (empty) cell; pad with True to keep shapes.
    padded = jnp.pad(ok_front, 1, constant_values=True)
    width, height = rg.width, rg.height
    fronts = []
    for dx, dy in C.DIR_TO_VEC:
        fronts.append(padded[1 + dx : 1 + dx + width, 1 + dy : 1 + dy + height])
    here = rg.room_mask(i, j) & (kinds == C.EMPTY)
    pairs = here[None] & jnp.stack(fronts)  # [4, W, H]
    flat = sample_cell(key, pairs.reshape(4 * width, height))
    direction = flat[0] // width
    return jnp.stack([flat[0] % width, flat[1]]), direction
