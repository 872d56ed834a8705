"""Where MiniGrid's one-room BabyAI levels put objects and the agent, as ranks.

In a one-room ``RoomGridLevel`` MiniGrid places objects before the agent, while the agent
still stands at ``RoomGrid``'s placeholder, the room's centre: ``reject_next_to`` keeps
objects off that cell and its four neighbours. ``place_agent`` then draws a free cell and a
direction again while the faced cell holds an object. The levels draw both as ranks among
the admissible choices (the exact distribution of what MiniGrid accepts, at a fixed cost);
these are the shared pieces. Cells are interior cells ``x * side + y`` in interior
coordinates (the wall ring left out), ``side = room_size - 2``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.roomgrid import RoomGrid


def object_cells(room_size: int) -> np.ndarray:
    """i32[K]: the interior cells an object may take, at Manhattan distance >= 2 from the
    placeholder agent position (the room's centre)."""
    side = room_size - 2
    centre = RoomGrid(room_size=room_size, num_rows=1, num_cols=1).default_agent_pos() - 1
    xs, ys = np.divmod(np.arange(side * side), side)
    return np.flatnonzero(np.abs(xs - centre[0]) + np.abs(ys - centre[1]) >= 2).astype(np.int32)


def occupied(cells: Array, side: int) -> Array:
    """bool[side, side]: the interior cells in ``cells`` (i32[n])."""
    flat = jnp.arange(side * side)[:, None] == jnp.reshape(cells, (1, -1))
    return jnp.any(flat, axis=1).reshape(side, side)


def admissible_poses(taken: Array, doors: Array | None = None) -> Array:
    """bool[side * side * 4]: ``(cell, direction)`` pairs (``cell * 4 + direction``) on a
    free cell and not facing an object (a wall may be faced, a door may not).

    Args:
        taken: bool[side, side], the interior cells holding an object.
        doors: bool[side + 2, side + 2], the room's cells walls included (room coordinates)
            holding a door; None: no door.
    """
    side = taken.shape[0]
    padded = jnp.pad(taken, 1)  # the walls around the interior hold no object
    if doors is not None:
        padded = padded | doors
    xs, ys = np.divmod(np.arange(side * side), side)
    facing = jnp.stack([padded[xs + 1 + dx, ys + 1 + dy] for dx, dy in C.DIR_TO_VEC], axis=1)
    return (~taken.reshape(-1)[:, None] & ~facing).reshape(-1)


def nth_pose(admissible: Array, rank: Array) -> tuple[Array, Array]:
    """The interior cell and direction of the ``rank``-th admissible pose (counting from 0):
    the number of poses with at most ``rank`` admissible poses up to and including them."""
    pose = jnp.sum(jnp.cumsum(admissible.astype(jnp.int32)) <= rank, dtype=jnp.int32)
    return pose // 4, pose % 4
