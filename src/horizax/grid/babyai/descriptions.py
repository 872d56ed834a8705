"""BabyAI object descriptions as arrays, and the objects they match.

A description is ``i32[3]``: ``(kind, colour, location)``. ``kind`` is an object index of
`horizax.grid.constants` (BabyAI describes doors, keys, balls and boxes) or `ANY` ("object"),
``colour`` a colour index or `ANY`, ``location`` one of the `Loc` codes. It is MiniGrid
3.2.0's ``ObjDesc`` (``minigrid/envs/babyai/core/verifier.py``) with its matching rule:

* every non-empty cell of the grid is a candidate -- walls, floors and goals included, so an
  "any kind" description of a grey object matches grey walls, as it does in MiniGrid;
* kind and colour must equal the description's unless it says `ANY`;
* a location keeps only the objects inside the room the agent starts in (walls and doors of
  that room included) whose displacement ``v`` from the agent's start position has a dot
  product of the right sign with the start direction ``d1`` (front: > 0, behind: < 0) or
  with ``d2 = (-d1.y, d1.x)`` (right: > 0, left: < 0). The agent's own cell is on no side.

Locations are always measured from the episode's START position and direction: the verifier
fixes the matched set once, at reset, and follows those objects afterwards
(`horizax.grid.babyai.verifiers`).
"""

from __future__ import annotations

import enum

import jax.numpy as jnp
import numpy as np
from jax import Array, lax
from jax.typing import ArrayLike

from horizax.grid import constants as C

ANY = -1  # kind or colour left unspecified ("object", no colour word)
DESC_SIZE = 3

DESCRIBABLE_KINDS = (C.DOOR, C.KEY, C.BALL, C.BOX)


class Loc(enum.IntEnum):
    """Where a description places its object, relative to the agent's start."""

    NONE = 0
    LEFT = 1
    RIGHT = 2
    FRONT = 3
    BEHIND = 4


def describe(kind: int = ANY, colour: int = ANY, loc: int = Loc.NONE) -> np.ndarray:
    """i32[3]: the description ``(kind, colour, loc)``, checked on the host.

    Args:
        kind: `C.DOOR`, `C.KEY`, `C.BALL`, `C.BOX` or `ANY`.
        colour: a colour index in ``[0, 6)`` or `ANY`.
        loc: a `Loc` code.

    Raises:
        ValueError: naming the argument that is out of range.
    """
    if kind != ANY and kind not in DESCRIBABLE_KINDS:
        raise ValueError(f"kind={kind}: BabyAI describes only doors, keys, balls, boxes or ANY")
    if colour != ANY and not 0 <= colour < C.NUM_COLORS:
        raise ValueError(f"colour={colour}: expected ANY or a colour index in [0, 6)")
    if loc not in tuple(Loc):
        raise ValueError(f"loc={loc}: expected a Loc code in [0, 5)")
    return np.array([kind, colour, loc], dtype=np.int32)


def start_room_corner(start_pos: ArrayLike, room_size: int) -> Array:
    """i32[2]: the top-left cell (walls included) of the room holding ``start_pos``.

    MiniGrid's ``RoomGrid.room_from_pos`` divides by ``room_size - 1``.
    """
    if room_size < 3:
        raise ValueError(f"room_size={room_size}: a room needs at least 3 cells a side")
    step = room_size - 1
    # Positions are never negative: a truncating division is the floor, without the sign
    # fix-ups of ``//`` (XLA:CPU recomputes this scalar in every cell's loop iteration).
    return lax.div(jnp.asarray(start_pos, jnp.int32), jnp.int32(step)) * step


def start_room_mask(width: int, height: int, start_pos: ArrayLike, room_size: int) -> Array:
    """bool[W, H]: the cells of the room holding ``start_pos``, its walls included.

    ``Room.pos_inside`` accepts ``top <= p < top + room_size`` on each axis.
    """
    top = start_room_corner(start_pos, room_size)
    xs = jnp.arange(width)[:, None]
    ys = jnp.arange(height)[None, :]
    return (xs >= top[0]) & (xs < top[0] + room_size) & (ys >= top[1]) & (ys < top[1] + room_size)


def side_masks(width: int, height: int, start_pos: ArrayLike, start_dir: ArrayLike) -> Array:
    """bool[4, W, H]: the cells on the agent's left, right, in front of it and behind it
    (`Loc` codes 1-4 in order), by the signs of MiniGrid's dot products with its direction
    and its right; not limited to a room."""
    start_pos = jnp.asarray(start_pos, jnp.int32)
    d1 = jnp.asarray(C.DIR_TO_VEC)[jnp.asarray(start_dir, jnp.int32)]
    vx = jnp.arange(width, dtype=jnp.int32)[:, None] - start_pos[0]
    vy = jnp.arange(height, dtype=jnp.int32)[None, :] - start_pos[1]
    ahead = vx * d1[0] + vy * d1[1]  # v . d1
    rightward = vx * -d1[1] + vy * d1[0]  # v . d2, d2 = (-d1.y, d1.x)
    return jnp.stack([rightward < 0, rightward > 0, ahead > 0, ahead < 0])


def location_masks(
    width: int, height: int, start_pos: ArrayLike, start_dir: ArrayLike, *, room_size: int
) -> Array:
    """bool[5, W, H]: per `Loc` code, the cells a description with that location may match
    (every cell for `Loc.NONE`; otherwise the start room's cells on that side).

    Args:
        width: the grid's width.
        height: the grid's height.
        start_pos: i32[2], the agent's position when the instruction was given.
        start_dir: i32[], its direction then.
        room_size: the side of the level's rooms, walls included (static).
    """
    in_room = start_room_mask(width, height, start_pos, room_size)
    sides = side_masks(width, height, start_pos, start_dir) & in_room
    return jnp.concatenate([jnp.ones((1, width, height), bool), sides])


def find_matching(
    desc: ArrayLike, grid: ArrayLike, start_pos: ArrayLike, start_dir: ArrayLike, *, room_size: int
) -> Array:
    """bool[W, H]: the cells whose objects ``desc`` matches (MiniGrid's ``find_matching_objs``).

    Args:
        desc: i32[3], a description from `describe`.
        grid: u8[W, H, 3], the grid encoding (the agent not drawn in it).
        start_pos: i32[2], the agent's position when the instruction was given.
        start_dir: i32[], the agent's direction then (0 right, 1 down, 2 left, 3 up).
        room_size: the side of the level's rooms, walls included (static).

    Returns:
        bool[W, H], True where a matching object lies.
    """
    desc = jnp.asarray(desc, jnp.int32)
    grid = jnp.asarray(grid)
    width, height = grid.shape[0], grid.shape[1]
    kind, colour = grid[..., 0].astype(jnp.int32), grid[..., 1].astype(jnp.int32)
    present = kind != C.EMPTY
    kind_ok = (desc[0] == ANY) | (kind == desc[0])
    colour_ok = (desc[1] == ANY) | (colour == desc[1])

    sides = location_masks(width, height, start_pos, start_dir, room_size=room_size)
    loc_ok = sides[jnp.clip(desc[2], 0, len(Loc) - 1)]
    return present & kind_ok & colour_ok & loc_ok
