"""The agent's egocentric view: which cells it sees, and MiniGrid's occlusion.

Shared by the observation functions (`horizax.grid.observations`) and the renderer
(`horizax.grid.render`), which draws the same view.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.grid import cells
from horizax.grid import constants as C
from horizax.grid.state import State

__all__ = [
    "VIEW",
    "symbolic_first_person",
    "symbolic_first_person_see_through",
    "view_cells",
    "visibility_mask",
]

VIEW = C.AGENT_VIEW_SIZE


_FORWARD = np.arange(VIEW - 1, -1, -1, dtype=np.int32)[None, :]  # [1, V]: cells ahead, per j
_LATERAL = np.arange(VIEW, dtype=np.int32)[:, None] - VIEW // 2  # [V, 1]: to the right, per i


def _view_coords(state: State) -> tuple[Array, Array, Array]:
    """``(xs, ys, inside)``, each [V, V] indexed ``[i, j]``: the world cell of each view cell
    (i32, possibly off the grid) and whether it is on the grid.

    Arithmetic on the direction's unit vector, which fuses into the gather that reads the
    cells (a table of offsets per direction would be a gather of its own).
    """
    width, height = state.grid.shape[0], state.grid.shape[1]
    d = state.agent_dir
    dx = jnp.where(d == 0, 1, jnp.where(d == 2, -1, 0))  # `C.DIR_TO_VEC`
    dy = jnp.where(d == 1, 1, jnp.where(d == 3, -1, 0))
    # The agent's right-hand side is (-dy, dx).
    xs = state.agent_pos[0] + _FORWARD * dx - _LATERAL * dy
    ys = state.agent_pos[1] + _FORWARD * dy + _LATERAL * dx
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
    return xs, ys, inside


def view_cells(state: State) -> Array:
    """u8[7, 7, 3]: the grid as seen from the agent, before occlusion (off-grid = wall)."""
    grid = state.grid
    width, height = grid.shape[0], grid.shape[1]
    xs, ys, inside = _view_coords(state)
    gathered = grid[jnp.clip(xs, 0, width - 1), jnp.clip(ys, 0, height - 1)]
    return jnp.where(inside[..., None], gathered, jnp.asarray(C.WALL_CELL, grid.dtype))


def _sweep_row(seeds: int, transparent: int, view: int) -> tuple[int, int]:
    """One row of MiniGrid's ``process_vis``, on bit-packed rows (bit i = column i).

    Returns ``(visible, next_seeds)``: the cells of this row that end up visible, and the cells
    of the next (farther) row that this row lights.
    """
    seen = [(seeds >> i) & 1 for i in range(view)]
    clear = [(transparent >> i) & 1 for i in range(view)]
    lit = [0] * view
    for i in range(view - 1):  # rightward sweep: lights (i, j-1) and (i+1, j-1)
        if seen[i] and clear[i]:
            seen[i + 1] = 1
            lit[i] = lit[i + 1] = 1
    for i in reversed(range(1, view)):  # leftward sweep: lights (i-1, j-1) and (i, j-1)
        if seen[i] and clear[i]:
            seen[i - 1] = 1
            lit[i - 1] = lit[i] = 1
    pack = lambda bits: sum(b << i for i, b in enumerate(bits))  # noqa: E731
    return pack(seen), pack(lit)


@functools.lru_cache(maxsize=4)
def _row_table(view: int) -> np.ndarray:
    """i32[2**(2*view)]: `_sweep_row` for every (seeds, transparent) pair, packed.

    Entry ``seeds << view | transparent`` holds ``visible | next_seeds << view``. Built on
    first use (16,384 entries for the 7x7 view), never at import.
    """
    size = 1 << view
    table = np.empty(size * size, dtype=np.int32)
    for seeds in range(size):
        for transparent in range(size):
            visible, nxt = _sweep_row(seeds, transparent, view)
            table[(seeds << view) | transparent] = visible | (nxt << view)
    return table


def _visible_rows(rows: Array) -> Array:
    """i32[V]: `visibility_mask` on bit-packed rows (``rows[j]`` bit i: cell ``(i, j)`` lets
    light through), its result packed the same way: one table lookup per row."""
    view = rows.shape[0]
    full = (1 << view) - 1
    table = jnp.asarray(_row_table(view))
    seeds = jnp.int32(1 << (view // 2))
    out = []
    for j in reversed(range(view)):
        entry = table[(seeds << view) | rows[j]]
        out.append(entry & full)
        seeds = entry >> view
    return jnp.stack(out[::-1])  # indexed by j


def _bit_weights(view: int) -> Array:
    """i32[V]: ``1 << i``."""
    return jnp.left_shift(1, jnp.arange(view, dtype=jnp.int32))


def visibility_mask(transparent: Array) -> Array:
    """bool[V, V]: MiniGrid's ``Grid.process_vis`` from the agent at ``(V // 2, V - 1)``.

    Rows are swept from the agent's row (j = V-1) to the farthest (j = 0). Within a row,
    visibility spreads right, then left, through transparent cells (the first opaque cell is
    seen but stops the spread), and each visible transparent cell lights its neighbours in the
    next row, in the exact order of MiniGrid's loops (`_sweep_row`). A row's outcome depends
    only on its seeds and its transparency, so it is one lookup in a precomputed table: seven
    gathers per view instead of hundreds of element-wise operations.

    Args:
        transparent: bool[V, V] indexed ``[i, j]``, whether each view cell lets light through.
    """
    weights = _bit_weights(transparent.shape[0])
    rows = jnp.sum(transparent.astype(jnp.int32) * weights[:, None], axis=0)  # i32[V]
    return (_visible_rows(rows)[None, :] & weights[:, None]) != 0


_AGENT_CELL = np.zeros((VIEW, VIEW), dtype=bool)
_AGENT_CELL[VIEW // 2, VIEW - 1] = True

# The observations work on one u32 per cell: its three bytes as MiniGrid shows them
# (`cells.visible` applied), and in bit 24 whether it lets light through.
_SHOWN = int.from_bytes(bytes(cells.VISIBLE_MASK), "little")
_CLEAR = 1 << 24
_WALL = int.from_bytes(bytes(C.WALL_CELL), "little") & _SHOWN  # off the grid; opaque


def _packed(cell: Array) -> Array:
    """u32[...]: a u8[..., 3] encoding's bytes in one word, as `cells.visible` shows them."""
    c = cell.astype(jnp.uint32)
    return (c[..., 0] | (c[..., 1] << 8) | (c[..., 2] << 16)) & jnp.uint32(_SHOWN)


def _unpacked(word: Array) -> Array:
    """u8[..., 3]: `_packed`'s word back to bytes (bit 24 dropped)."""
    return jnp.stack([((word >> s) & 0xFF).astype(jnp.uint8) for s in (0, 8, 16)], axis=-1)


def _view_words(state: State, grid_words: Array) -> Array:
    """u32[7, 7]: ``grid_words`` (u32[W, H], one word per grid cell) read at the view's
    cells, `_WALL` off the grid.

    The whole grid is packed first (a few hundred cells at most), so the occlusion reads one
    word per view cell instead of three bytes.
    """
    width, height = grid_words.shape
    xs, ys, inside = _view_coords(state)
    gathered = grid_words[jnp.clip(xs, 0, width - 1), jnp.clip(ys, 0, height - 1)]
    return jnp.where(inside, gathered, jnp.uint32(_WALL))


def symbolic_first_person(state: State) -> Array:
    """u8[7, 7, 3]: MiniGrid's egocentric image, occlusion included.

    `view_cells`, `visibility_mask` and `cells.visible`, computed on one u32 per cell.
    """
    clear = cells.see_behind(state.grid).astype(jnp.uint32) * jnp.uint32(_CLEAR)
    # Materialised: fused into their users, the words and the row lookups would be
    # recomputed for every byte of the image.
    words = lax.optimization_barrier(_view_words(state, _packed(state.grid) | clear))
    weights = _bit_weights(VIEW)
    light = jnp.where((words & _CLEAR) != 0, weights[:, None], 0)
    rows = lax.optimization_barrier(_visible_rows(jnp.sum(light, axis=0)))  # i32[7], by j
    visible = (rows[None, :] & weights[:, None]) != 0
    image = jnp.where(visible, words, jnp.uint32(0))
    return _unpacked(jnp.where(_AGENT_CELL, _packed(state.carrying), image))


def symbolic_first_person_see_through(state: State) -> Array:
    """u8[7, 7, 3]: the egocentric image without occlusion (MiniGrid's ``see_through_walls``).

    MiniGrid's Empty, DistShift, Dynamic-Obstacles, Fetch, GoToDoor, GoToObject and PutNear
    set ``see_through_walls=True``; their ids default to this view.
    """
    # Bytes, not `_packed` words: with nothing to occlude, packing costs more than it saves.
    return cells.visible(jnp.where(_AGENT_CELL[..., None], state.carrying, view_cells(state)))
