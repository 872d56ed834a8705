"""Per-cell predicates over MiniGrid encodings (``u8[..., 3]`` or its object/state channels).

Box contents. MiniGrid's boxes may hold one object (ObstructedMaze hides keys in them), and a
box's encoding shows ``state = 0`` whatever it holds. horizax keeps the content in the box's
own state channel, ``content_kind << 5 | content_colour << 2`` (0 for an empty box), so a box
carries its content when picked up, dropped or toggled with no extra array. The two low bits
are always 0 for a box and hold every other state there is (door states 0..2, the agent's
direction 0..3 in `symbolic`), so `visible` -- what every observation goes through -- is one
bitwise AND that shows boxes with state 0 exactly as MiniGrid encodes them.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from horizax.grid import constants as C

CONTENT_KIND_SHIFT = 5  # a box's content kind (5..7) in bits 5..7 of its state channel
CONTENT_COLOUR_SHIFT = 2  # its colour (0..5) in bits 2..4
VISIBLE_MASK = (0xFF, 0xFF, 0x03)  # keeps door states and directions, drops box contents


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


def position_mask(width: int, height: int, pos: Array) -> Array:
    """bool[W, H]: one-hot mask of ``pos`` (all False if ``pos`` is off-grid)."""
    xs = jnp.arange(width)[:, None]
    ys = jnp.arange(height)[None, :]
    return (xs == pos[0]) & (ys == pos[1])


def clamped_cell(grid: Array, pos: Array) -> tuple[Array, tuple[Array, Array, Array], Array]:
    """``(inside, start, cell)``: whether ``pos`` is on the grid, the clamped slice start of
    its cell, and that cell (u8[1, 1, 3]).

    `lax.dynamic_slice`, not ``grid[x, y]``: the same gather once batched, traced in a
    fraction of the time of NumPy-style indexing (the step is traced under `vmap` at every
    compile).
    """
    width, height = grid.shape[0], grid.shape[1]
    inside = (pos[0] >= 0) & (pos[0] < width) & (pos[1] >= 0) & (pos[1] < height)
    x = jnp.clip(pos[0], 0, width - 1)
    y = jnp.clip(pos[1], 0, height - 1)
    start = (x, y, jnp.zeros_like(x))
    return inside, start, jax.lax.dynamic_slice(grid, start, (1, 1, grid.shape[2]))


def write_cell(grid: Array, pos: Array, cell: Array) -> Array:
    """u8[W, H, 3]: ``grid`` with ``cell`` written at ``pos`` (no-op if off-grid).

    A one-cell `lax.dynamic_update_slice`: under `vmap` on CPU it updates 3 bytes per
    environment in place, where a masked select over the whole grid would rewrite all of them.
    """
    inside, start, current = clamped_cell(grid, pos)
    cell = jnp.where(inside, jnp.asarray(cell, grid.dtype)[None, None, :], current)
    return jax.lax.dynamic_update_slice(grid, cell, start)


def put_inside(grid: Array, pos: Array, cell: Array) -> Array:
    """u8[W, H, 3]: ``grid`` with ``cell`` at ``pos``; off-grid positions are dropped.

    The full symbolic observation is built this way on every step, so the form is chosen for
    speed under `vmap` on XLA:CPU, by the grid's static size (both forms give equal results):

    * a one-cell scatter when ``W * H`` is a multiple of 64 (each environment's grid then
      fills whole 64-byte lines, and copying it is cheapest);
    * otherwise an elementwise select against `position_mask`, which fuses with the copy.

    The rule follows the benchmark harness's comparison of both forms over the registered
    sizes (`benchmarks/`); which is faster depends on the grid's area, not on the family.
    """
    width, height = grid.shape[0], grid.shape[1]
    cell = jnp.asarray(cell, grid.dtype)
    if (width * height) % 64 == 0:
        return grid.at[pos[0], pos[1]].set(cell, mode="drop", wrap_negative_indices=False)
    return jnp.where(position_mask(width, height, pos)[..., None], cell, grid)


def box_cell(colour: Any, content: tuple[Any, Any] | None = None) -> tuple[Any, Any, Any]:
    """The encoding of a box of ``colour`` holding ``content = (kind, colour)`` (or nothing).

    Args:
        colour: the box's colour index (an int or a traced i32[]).
        content: ``(object, colour)`` of the object inside, e.g. ``(C.KEY, C.RED)``; the
            colour may be traced (e.g. drawn in a layout), the kind must be a Python int.

    Raises:
        ValueError: for a content kind other than key, ball or box, or a concrete colour out
            of range.
    """
    if content is None:
        return (C.BOX, colour, 0)
    kind, content_colour = content
    bad_colour = isinstance(content_colour, int) and not 0 <= content_colour < C.NUM_COLORS
    if kind not in (C.KEY, C.BALL, C.BOX) or bad_colour:
        raise ValueError(f"a box can hold a key, ball or box of a valid colour, got {content}")
    return (C.BOX, colour, (kind << CONTENT_KIND_SHIFT) | (content_colour << CONTENT_COLOUR_SHIFT))


def box_content(cell: Array) -> Array:
    """u8[..., 3]: what toggling the box ``cell`` leaves behind (the empty cell if nothing)."""
    packed = cell[..., 2].astype(jnp.int32)
    kind = jnp.where(packed == 0, C.EMPTY, packed >> CONTENT_KIND_SHIFT)
    colour = jnp.where(packed == 0, 0, (packed >> CONTENT_COLOUR_SHIFT) & 7)
    return jnp.stack([kind, colour, jnp.zeros_like(kind)], axis=-1).astype(cell.dtype)


def visible(cell: Array) -> Array:
    """u8[..., 3]: the encoding as MiniGrid shows it: boxes with ``state = 0``."""
    return cell & jnp.asarray(VISIBLE_MASK, cell.dtype)
