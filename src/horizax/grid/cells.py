"""Per-cell predicates over MiniGrid encodings (``u8[..., 3]`` or its object/state channels)."""

from __future__ import annotations

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

    A masked select rather than a scatter: under `vmap` on CPU it fuses with its neighbours.
    """
    mask = position_mask(grid.shape[0], grid.shape[1], pos)
    return jnp.where(mask[..., None], jnp.asarray(cell, grid.dtype), grid)
