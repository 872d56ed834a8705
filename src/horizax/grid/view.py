"""The agent's egocentric view: which cells it sees, and MiniGrid's occlusion.

Shared by the observation functions (`horizax.grid.observations`) and the renderer
(`horizax.grid.render`), which draws the same view.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import Array

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


def _view_offsets(view: int) -> np.ndarray:
    """i32[4, view, view, 2]: world offset of each view cell for each agent direction."""
    out = np.zeros((4, view, view, 2), dtype=np.int32)
    for d in range(4):
        dx, dy = C.DIR_TO_VEC[d]
        rx, ry = -dy, dx  # the agent's right-hand side
        for i in range(view):
            for j in range(view):
                forward, lateral = view - 1 - j, i - view // 2
                out[d, i, j] = (forward * dx + lateral * rx, forward * dy + lateral * ry)
    return out


_OFFSETS = _view_offsets(VIEW)


def view_cells(state: State) -> Array:
    """u8[7, 7, 3]: the grid as seen from the agent, before occlusion (off-grid = wall)."""
    grid = state.grid
    width, height = grid.shape[0], grid.shape[1]
    pos = state.agent_pos + jnp.asarray(_OFFSETS)[state.agent_dir]  # [7, 7, 2]
    xs, ys = pos[..., 0], pos[..., 1]
    inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height)
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
    view = transparent.shape[0]
    full = (1 << view) - 1
    weights = jnp.left_shift(1, jnp.arange(view, dtype=jnp.int32))
    rows_t = jnp.sum(transparent.astype(jnp.int32) * weights[:, None], axis=0)  # i32[V]
    table = jnp.asarray(_row_table(view))
    seeds = jnp.int32(1 << (view // 2))
    rows = []
    for j in reversed(range(view)):
        entry = table[(seeds << view) | rows_t[j]]
        rows.append(entry & full)
        seeds = entry >> view
    packed = jnp.stack(rows[::-1])  # i32[V] indexed by j
    return (packed[None, :] & weights[:, None]) != 0


_AGENT_CELL = np.zeros((VIEW, VIEW, 1), dtype=bool)
_AGENT_CELL[VIEW // 2, VIEW - 1] = True


def symbolic_first_person(state: State) -> Array:
    """u8[7, 7, 3]: MiniGrid's egocentric image, occlusion included."""
    view = view_cells(state)
    visible = visibility_mask(cells.see_behind(view))
    image = jnp.where(visible[..., None], view, jnp.uint8(0))
    return cells.visible(jnp.where(_AGENT_CELL, state.carrying, image))


def symbolic_first_person_see_through(state: State) -> Array:
    """u8[7, 7, 3]: the egocentric image without occlusion (MiniGrid's ``see_through_walls``).

    MiniGrid's Empty, DistShift, Dynamic-Obstacles, Fetch, GoToDoor, GoToObject and PutNear
    set ``see_through_walls=True``; their ids default to this view.
    """
    return cells.visible(jnp.where(_AGENT_CELL, state.carrying, view_cells(state)))
