"""Per-cell predicates over MiniGrid encodings (``u8[..., 3]`` or its object/state channels)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import Array

from horizax.grid import constants as C


def can_overlap(cell: Array) -> Array:
    """bool[...]: the agent may stand on the cell (empty, floor, goal, lava, open door)."""
    obj, state = cell[..., 0], cell[..., 2]
    return (
        (obj == C.EMPTY)
        | (obj == C.FLOOR)
        | (obj == C.GOAL)
        | (obj == C.LAVA)
        | ((obj == C.DOOR) & (state == C.OPEN))
    )


def can_pickup(cell: Array) -> Array:
    """bool[...]: the cell holds a key, ball or box."""
    obj = cell[..., 0]
    return (obj == C.KEY) | (obj == C.BALL) | (obj == C.BOX)


def see_behind(cell: Array) -> Array:
    """bool[...]: light passes through the cell (everything but walls and shut doors)."""
    obj, state = cell[..., 0], cell[..., 2]
    return (obj != C.WALL) & ~((obj == C.DOOR) & (state != C.OPEN))


def is_empty(cell: Array) -> Array:
    """bool[...]: nothing is in the cell (MiniGrid's ``grid.get(...) is None``)."""
    return cell[..., 0] == C.EMPTY


def position_mask(width: int, height: int, pos: Array) -> Array:
    """bool[W, H]: one-hot mask of ``pos`` (all False if ``pos`` is off-grid)."""
    xs = jnp.arange(width)[:, None]
    ys = jnp.arange(height)[None, :]
    return (xs == pos[0]) & (ys == pos[1])


def write_cell(grid: Array, pos: Array, cell: Array) -> Array:
    """u8[W, H, 3]: ``grid`` with ``cell`` written at ``pos`` (no-op if off-grid).

    A one-cell `lax.dynamic_update_slice`: under `vmap` on CPU it updates 3 bytes per
    environment in place, where a masked select over the whole grid rewrote all of them
    (measured 2-4x slower per step on 8x8).
    """
    width, height = grid.shape[0], grid.shape[1]
    inside = (pos[0] >= 0) & (pos[0] < width) & (pos[1] >= 0) & (pos[1] < height)
    x = jnp.clip(pos[0], 0, width - 1)
    y = jnp.clip(pos[1], 0, height - 1)
    cell = jnp.where(inside, jnp.asarray(cell, grid.dtype), grid[x, y])
    return jax.lax.dynamic_update_slice(grid, cell[None, None, :], (x, y, jnp.zeros_like(x)))


def put_inside(grid: Array, pos: Array, cell: Array) -> Array:
    """u8[W, H, 3]: ``grid`` with ``cell`` at ``pos``; off-grid positions are dropped."""
    return grid.at[pos[0], pos[1]].set(
        jnp.asarray(cell, grid.dtype), mode="drop", wrap_negative_indices=False
    )
