"""Objects, doors and the agent placed in the rooms of a room grid, drawn as ranks.

MiniGrid's ``RoomGrid`` places an object with ``place_in_room``: a uniform cell of the
room, drawn again while it is occupied or next to the agent's current position
(``reject_next_to``). While a ``RoomGridLevel`` builds its layout the agent still stands at
the grid's placeholder position (`RoomGrid.default_agent_pos`), so objects keep off that
cell and its four neighbours. ``place_agent`` then draws a free cell of its room and a
direction again while the faced cell holds anything but a wall (an object or a door).

The levels draw each of these as a rank among the admissible choices: the exact
distribution of what MiniGrid accepts, at a fixed cost and without a loop. Cells are flat
grid indices ``x * H + y`` of the whole ``W x H`` grid; the agent's poses are
``cell * 4 + direction``. Where the choices lie in one room, a rank is found among that
room's cells kept as a short list in the grid's order (`listed`, `open_listed`,
`nth_listed`): the same cell as a count over the grid, at a fraction of the work. Used by
the BabyAI room-grid levels (`horizax.grid.envs.babyai_unlock`, `babyai_locked_maze`,
`babyai_levelgen`, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.grid import constants as C
from horizax.grid.babyai import connect
from horizax.grid.roomgrid import RoomGrid

OBJECT_KINDS = (C.KEY, C.BALL, C.BOX)  # MiniGrid's ``add_object`` kinds, consecutive indices
NUM_PAIRS = len(OBJECT_KINDS) * C.NUM_COLORS  # (kind, colour) pairs


def nth_true(mask: np.ndarray | Array, rank: Array) -> Array:
    """i32[]: the flat position of the ``rank``-th (from 0) True of ``mask``."""
    flat = jnp.reshape(mask, (-1,)).astype(jnp.int32)
    return jnp.sum(jnp.cumsum(flat) <= rank, dtype=jnp.int32)


def listed(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each mask's True positions as a list: ``(i32[R, K], bool[R, K])``.

    For ``masks`` bool[R, ...] (one mask per room, say), row r holds the flat positions of
    mask r's Trues in increasing order, padded to the longest list ``K`` with position 0,
    and whether each entry is one of them. `nth_listed` over a row finds the same position
    as `nth_true` over the whole mask, at the cost of ``K`` entries instead of every cell.
    """
    flat = np.asarray(masks, bool).reshape(len(masks), -1)
    size = max(int(flat.sum(axis=1).max()), 1)
    positions = np.zeros((len(flat), size), np.int32)
    valid = np.zeros((len(flat), size), bool)
    for r, row in enumerate(flat):
        found = np.flatnonzero(row)
        positions[r, : len(found)] = found
        valid[r, : len(found)] = True
    return positions, valid


def pose_masks(interiors: np.ndarray) -> np.ndarray:
    """bool[R, W * H * 4]: per room (bool[R, W, H]), its agent poses ``4 cell + direction``,
    as `agent_poses` and `nth_pose` number them; `listed` makes them lists."""
    return np.repeat(np.asarray(interiors, bool).reshape(len(interiors), -1), 4, axis=1)


def nth_listed(positions: Array | np.ndarray, ok: Array, rank: Array, none: int) -> Array:
    """i32[]: ``positions[p]`` for the ``rank``-th (from 0) True ``ok[p]``, or ``none`` when
    ``ok`` has no more than ``rank`` Trues (where `nth_true` over the whole mask gives its
    size, which callers pass as ``none``)."""
    size = ok.shape[0]
    at = jnp.sum(jnp.cumsum(ok.astype(jnp.int32)) <= rank, dtype=jnp.int32)
    return jnp.where(at < size, jnp.asarray(positions)[jnp.minimum(at, size - 1)], none)


def open_listed(
    lists: tuple[np.ndarray, np.ndarray], row: Array | int, taken: Array
) -> tuple[Array, Array]:
    """``(i32[K], bool[K])``: row ``row`` of `listed`'s ``lists`` and which of its positions
    are listed and not ``taken`` (bool[W, H]): what `nth_listed` ranks among. A Python-int
    ``row`` reads the tables as constants."""
    positions, valid = lists
    if not isinstance(row, int):
        positions, valid = jnp.asarray(positions), jnp.asarray(valid)
    cells = positions[row]
    return cells, valid[row] & ~taken.reshape(-1)[cells]


def interior(room_grid: RoomGrid, i: int, j: int) -> np.ndarray:
    """bool[W, H]: the interior cells of room ``(i, j)`` (column ``i``, row ``j``)."""
    step = room_grid.room_size - 1
    mask = np.zeros((room_grid.width, room_grid.height), bool)
    mask[i * step + 1 : (i + 1) * step, j * step + 1 : (j + 1) * step] = True
    return mask


def object_cells(room_grid: RoomGrid, i: int, j: int) -> np.ndarray:
    """bool[W, H]: where ``place_in_room(i, j, ...)`` may put an object while the agent
    stands at the placeholder: the room's interior at Manhattan distance >= 2 from it."""
    xs, ys = np.indices((room_grid.width, room_grid.height))
    agent = room_grid.default_agent_pos()
    far = np.abs(xs - agent[0]) + np.abs(ys - agent[1]) >= 2
    return interior(room_grid, i, j) & far


def taken_by(cells: Sequence[Array], shape: tuple[int, int]) -> Array:
    """bool[W, H]: the flat cells ``cells`` (i32[] each) marked."""
    flat = jnp.zeros(shape[0] * shape[1], bool)
    for cell in cells:
        flat = flat | (jnp.arange(shape[0] * shape[1]) == cell)
    return flat.reshape(shape)


def free_count(allowed: np.ndarray | Array, taken: Array) -> Array:
    """i32[]: how many ``allowed`` cells are not ``taken`` (the radix of the next draw)."""
    return jnp.sum(allowed & ~taken, dtype=jnp.int32)


def nth_cell(allowed: np.ndarray | Array, taken: Array, rank: Array) -> Array:
    """i32[]: the flat index of the ``rank``-th (from 0) allowed cell not taken."""
    return nth_true(allowed & ~taken, rank)


Allowed = np.ndarray | Callable[[Sequence[Array]], Array]
"""Where an object may go: a static bool[W, H], or ``digits -> bool[W, H]`` when the room
(or a cell to keep clear) is itself drawn."""


def placed_cells(
    digits: Sequence[Array], slots: Sequence[tuple[int, Allowed]], shape: tuple[int, int]
) -> list[Array]:
    """The flat cells of the objects placed one after another, as far as ``digits`` go.

    Args:
        digits: the draws so far (a prefix while `draw_digits` asks for a radix).
        slots: per object, ``(index of its rank in digits, where it may go)``, in placing
            order; the k-th object takes the rank-th allowed cell the earlier ones left.
        shape: ``(W, H)``.

    Returns:
        One i32[] per object whose rank is among ``digits``.
    """
    taken = jnp.zeros(shape, bool)
    cells = []
    for index, allowed in slots:
        if index >= len(digits):
            break
        where = allowed(digits) if callable(allowed) else allowed
        cells.append(nth_cell(where, taken, digits[index]))
        taken = taken | taken_by(cells[-1:], shape)
    return cells


def slot_radix(
    slots: Sequence[tuple[int, Allowed]], k: int, shape: tuple[int, int]
) -> Callable[[Sequence[Array]], Array]:
    """``digits -> i32[]``: the radix of object ``k``'s rank, the allowed cells the earlier
    objects of ``slots`` left free (for `draw_digits`)."""

    def radix(digits: Sequence[Array]) -> Array:
        allowed = slots[k][1]
        where = allowed(digits) if callable(allowed) else allowed
        return free_count(where, taken_by(placed_cells(digits, slots[:k], shape), shape))

    return radix


def put(grid: Array, cell: Array, obj: Array | Sequence[Array | int]) -> Array:
    """u8[W, H, 3]: ``grid`` with the encoding ``obj`` (u8[3]) at flat ``cell``."""
    width, height = grid.shape[:2]
    at = (jnp.arange(width * height) == cell).reshape(width, height)
    obj = jnp.stack([jnp.asarray(v, jnp.int32) for v in obj]).astype(jnp.uint8)
    return jnp.where(at[..., None], obj, grid)


def write_cell(grid: Array, cell: Array, value: Array | bool | Sequence[Array | int]) -> Array:
    """``grid`` (u8[W, H, 3] or bool[W, H]) with ``value`` at flat ``cell``, nothing written
    when ``cell`` is past the grid: `put` (or a `taken_by` mark) as a one-cell
    `lax.dynamic_update_slice`, which a loop updates in place where a select rewrites every
    cell."""
    width, height = grid.shape[:2]
    x, y = lax.div(cell, jnp.int32(height)), lax.rem(cell, jnp.int32(height))
    start = (x, y) + (jnp.int32(0),) * (grid.ndim - 2)
    if isinstance(value, bool | Array):
        written = jnp.asarray(value, grid.dtype)
    else:
        written = jnp.stack([jnp.asarray(v, jnp.int32) for v in value]).astype(grid.dtype)
    shape = (1, 1, *grid.shape[2:])
    old = lax.dynamic_slice(grid, start, shape)
    new = jnp.where(cell < width * height, jnp.reshape(written, shape), old)
    return lax.dynamic_update_slice(grid, new, start)


def door_slot(room_grid: RoomGrid, i: int, j: int, wall: int | Array, offset: Array) -> Array:
    """i32[]: the flat cell of room ``(i, j)``'s door slot on ``wall`` (0 right, 1 down,
    2 left, 3 up; an int or a traced i32[]) at ``offset`` in ``[0, room_size - 2)`` along it
    (`RoomGrid`'s draw)."""
    step = room_grid.room_size - 1
    x0, y0 = jnp.int32(i * step), jnp.int32(j * step)
    along = 1 + jnp.asarray(offset, jnp.int32)
    x = jnp.stack([x0 + step, x0 + along, x0, x0 + along])[wall]
    y = jnp.stack([y0 + along, y0 + step, y0 + along, y0])[wall]
    return x * room_grid.height + y


def agent_poses(grid: Array, room: np.ndarray | Array) -> Array:
    """bool[W * H * 4]: ``place_agent``'s accepted poses in ``room`` (bool[W, H], its
    interior): an empty cell, facing an empty cell or a wall."""
    kind = grid[..., 0]
    padded = jnp.pad(kind, 1, constant_values=C.WALL)
    width, height = kind.shape
    facing = jnp.stack(
        [padded[1 + dx : 1 + dx + width, 1 + dy : 1 + dy + height] for dx, dy in C.DIR_TO_VEC],
        axis=-1,
    )
    ok = (kind == C.EMPTY)[..., None] & ((facing == C.EMPTY) | (facing == C.WALL))
    return (jnp.asarray(room)[..., None] & ok).reshape(-1)


def nth_pose(admissible: Array, rank: Array, height: int) -> tuple[Array, Array]:
    """``(agent_pos i32[2], agent_dir i32[])`` of the ``rank``-th admissible pose."""
    pose = nth_true(admissible, rank)
    cell = pose // 4
    return jnp.stack([cell // height, cell % height]), pose % 4


def door_slots(room_grid: RoomGrid, offsets: Sequence[Array] | Array) -> Array:
    """i32[E]: the flat cell of each wall's door slot, for the walls of
    `horizax.grid.babyai.connect.walls` and their drawn ``offsets`` (`door_slot` of every
    wall at once).

    A wall's slot is a constant plus its offset times a constant stride (1 along a right
    wall, ``height`` along a bottom one), so the whole vector is one multiply-add on numpy
    constants: `door_slot` per wall traced some sixty operations each, a fifth of a
    3 x 3 level's layout.
    """
    walls = connect.walls(room_grid.num_cols, room_grid.num_rows)
    step, height = room_grid.room_size - 1, room_grid.height
    x0, y0, bottom = walls[:, 0] * step, walls[:, 1] * step, walls[:, 2] == 1
    # Right wall: (x0 + step, y0 + 1 + offset); bottom wall: (x0 + 1 + offset, y0 + step).
    base = np.where(bottom, (x0 + 1) * height + y0 + step, (x0 + step) * height + y0 + 1)
    stride = np.where(bottom, height, 1)
    along = jnp.asarray(offsets, jnp.int32)
    return jnp.asarray(base, jnp.int32) + along * jnp.asarray(stride, jnp.int32)


def with_doors(room_grid: RoomGrid, grid: Array, doors: Array, offsets, colours) -> Array:
    """u8[W, H, 3]: ``grid`` with a closed door of ``colours[e]`` at the slot (offset
    ``offsets[e]``) of every wall ``e`` of `horizax.grid.babyai.connect.walls` where
    ``doors[e]``."""
    for e, slot in enumerate(door_slots(room_grid, offsets)):
        grid = jnp.where(doors[e], put(grid, slot, (C.DOOR, colours[e], C.CLOSED)), grid)
    return grid
