"""MiniGrid 3.2.0's frames of gridworld states, pixel for pixel: pure JAX, jittable, vmappable.

Every cell of a frame is one ``T x T`` tile chosen by three things: the cell's MiniGrid
encoding ``(object, colour, state)``, the agent standing on it (facing one of four directions,
or no agent) and whether it is highlighted (seen by the agent). `tile_atlas` draws every such
tile once per tile size with `horizax.grid.raster` (MiniGrid's rasterisation rules) and caches
it; rendering a state is a gather of tiles by index and a transpose into image layout (rows =
y, columns = x, while the state grid is indexed ``[x, y]``): no branches, no scatter.

The frames are MiniGrid's ``get_frame``:

* `render_grid` -- ``get_frame(highlight, tile_size, agent_pov=False)``: the whole grid; with
  ``highlight``, the cells of the agent's 7 x 7 view area that it sees (MiniGrid's occlusion,
  or the whole area inside the grid for ``see_through_walls`` environments) are blended 30 %
  towards white.
* `render_view` -- ``get_frame(tile_size=T, agent_pov=True)``: the 7 x 7 view area as the
  agent faces it (off-grid cells are walls, occluded cells empty and not highlighted),
  what the agent carries in its own cell at the bottom centre, the agent facing up.

Example:
    >>> env = horizax.make("MiniGrid-Empty-8x8-v0")
    >>> image = jax.jit(render_grid)(env.reset(jax.random.PRNGKey(0)).state)  # u8[256, 256, 3]
    >>> save_png("/tmp/empty.png", image)  # needs the `render` extra (Pillow)
"""

from __future__ import annotations

import functools
import itertools
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import cells, raster, view
from horizax.grid import constants as C
from horizax.grid.state import State

__all__ = [
    "NO_AGENT",
    "TILE_SIZE",
    "highlight_mask",
    "render_grid",
    "render_image",
    "render_view",
    "save_png",
    "tile_atlas",
    "tile_index",
]

TILE_SIZE = 32
"""Default tile edge in pixels (MiniGrid's ``TILE_PIXELS``, used by its ``render()``)."""

NO_AGENT = 4
"""The agent slot of a cell without the agent (slots 0-3: the agent facing that way)."""

_SLOTS = 5
_NUM_ENCODINGS = C.NUM_OBJECTS * C.NUM_COLORS * C.NUM_STATES
# MiniGrid draws nothing but grid lines for an empty cell; unseen and agent encodings never
# reach its grids, and raster draws them as empty too.
_DRAWN_EMPTY = (C.UNSEEN, C.EMPTY, C.AGENT)
_COLOURLESS = (C.GOAL, C.LAVA)  # drawn the same whatever the colour field says


def _canonical(obj: int, colour: int, state: int) -> tuple[int, int, int]:
    """The encoding drawn like ``(obj, colour, state)`` with the fields it ignores zeroed,
    so each distinct tile is rasterised once."""
    if obj in _DRAWN_EMPTY:
        return (C.EMPTY, 0, 0)
    return (obj, 0 if obj in _COLOURLESS else colour, state if obj == C.DOOR else 0)


@functools.lru_cache(maxsize=8)
def tile_atlas(tile_size: int = TILE_SIZE) -> np.ndarray:
    """Every tile MiniGrid can draw, drawn on first use for each tile size and then cached.

    Args:
        tile_size: the tile edge T in pixels (a positive int).

    Returns:
        u8[NUM_OBJECTS * NUM_COLORS * NUM_STATES * 5 * 2, T, T, 3] (read-only): the tile of
        encoding ``(o, c, s)`` with agent slot ``a`` (`NO_AGENT` or a direction) and highlight
        ``h`` is at row `tile_index`, ``((o * NUM_COLORS + c) * NUM_STATES + s) * 10 + a * 2 +
        h``.

    Raises:
        ValueError: if ``tile_size`` is not a positive int.
    """
    if isinstance(tile_size, bool) or not isinstance(tile_size, int) or tile_size < 1:
        raise ValueError(f"tile_size must be a positive int, got {tile_size!r}")
    shape = (C.NUM_OBJECTS, C.NUM_COLORS, C.NUM_STATES, _SLOTS, 2)
    atlas = np.empty((*shape, tile_size, tile_size, 3), dtype=np.uint8)
    for o, c, s, slot, lit in itertools.product(*map(range, shape)):
        agent_dir = None if slot == NO_AGENT else slot
        atlas[o, c, s, slot, lit] = raster.tile(
            *_canonical(o, c, s), agent_dir, bool(lit), tile_size
        )
    atlas = atlas.reshape(-1, tile_size, tile_size, 3)
    atlas.setflags(write=False)
    return atlas


def tile_index(encoding: Array, agent_slot: Array, highlight: Array) -> Array:
    """i32[...]: the `tile_atlas` row of each cell.

    Args:
        encoding: u8[..., 3] MiniGrid encodings (out-of-range fields clamp; boxes may hold
            their content in the state channel, which MiniGrid does not draw).
        agent_slot: i32[...], the agent's direction on that cell or `NO_AGENT`.
        highlight: bool[...], whether the cell is highlighted.
    """
    enc = cells.visible(encoding).astype(jnp.int32)
    obj = jnp.clip(enc[..., 0], 0, C.NUM_OBJECTS - 1)
    colour = jnp.clip(enc[..., 1], 0, C.NUM_COLORS - 1)
    state = jnp.clip(enc[..., 2], 0, C.NUM_STATES - 1)
    row = (obj * C.NUM_COLORS + colour) * C.NUM_STATES + state
    slot = jnp.clip(agent_slot, 0, NO_AGENT)
    return (row * _SLOTS + slot) * 2 + jnp.asarray(highlight).astype(jnp.int32)


def _compose(encoding: Array, agent_slot: Array, highlight: Array, tile_size: int) -> Array:
    """u8[H*T, W*T, 3]: the tiles of a u8[W, H, 3] grid (indexed [x, y]) in image layout."""
    width, height = encoding.shape[0], encoding.shape[1]
    atlas = jnp.asarray(tile_atlas(tile_size))
    tiles = atlas[tile_index(encoding, agent_slot, highlight)]  # [W, H, T, T, 3]
    # [x, y, row, col, rgb] -> [y, row, x, col, rgb] -> image rows (y) and columns (x).
    return tiles.transpose(1, 2, 0, 3, 4).reshape(height * tile_size, width * tile_size, 3)


def _seen(view_encoding: Array, see_through_walls: bool) -> Array:
    """bool[7, 7]: the view cells the agent sees (MiniGrid's ``gen_obs_grid`` mask)."""
    if see_through_walls:
        return jnp.ones(view_encoding.shape[:2], jnp.bool_)
    return view.visibility_mask(cells.see_behind(view_encoding))


def highlight_mask(state: State, see_through_walls: bool = False) -> Array:
    """bool[W, H]: the grid cells MiniGrid highlights in a full frame.

    A cell is highlighted when it lies in the agent's 7 x 7 view area and the agent sees it
    (`horizax.grid.view.visibility_mask`; every cell of the area with ``see_through_walls``).
    Each grid cell is mapped into the view (its distance ahead and to the right of the agent),
    so the mask is a gather, without a scatter.

    Args:
        state: a `State`.
        see_through_walls: the environment's MiniGrid ``see_through_walls`` (a Python bool).
    """
    width, height = state.grid.shape[0], state.grid.shape[1]
    seen = _seen(view.view_cells(state), see_through_walls)  # [i, j]
    ahead = jnp.asarray(C.DIR_TO_VEC)[state.agent_dir % 4]
    right = jnp.stack([-ahead[1], ahead[0]])
    dx = jnp.arange(width)[:, None] - state.agent_pos[0]
    dy = jnp.arange(height)[None, :] - state.agent_pos[1]
    i = dx * right[0] + dy * right[1] + view.VIEW // 2
    j = view.VIEW - 1 - (dx * ahead[0] + dy * ahead[1])
    inside = (i >= 0) & (i < view.VIEW) & (j >= 0) & (j < view.VIEW)
    return inside & seen[jnp.clip(i, 0, view.VIEW - 1), jnp.clip(j, 0, view.VIEW - 1)]


def render_grid(
    state: State,
    tile_size: int = TILE_SIZE,
    highlight: bool = True,
    see_through_walls: bool = False,
) -> Array:
    """MiniGrid's full frame, ``get_frame(highlight, tile_size, agent_pov=False)``.

    Args:
        state: a `State` whose grid is u8[W, H, 3] indexed ``[x, y]``.
        tile_size: the tile edge T in pixels; a static Python int.
        highlight: lighten the cells the agent sees (`highlight_mask`); a Python bool.
        see_through_walls: the environment's MiniGrid ``see_through_walls`` (which cells the
            agent sees); a Python bool.

    Returns:
        u8[H*T, W*T, 3], rows = y and columns = x (the image convention).
    """
    grid = state.grid
    width, height = grid.shape[0], grid.shape[1]
    here = cells.position_mask(width, height, state.agent_pos)
    slot = jnp.where(here, state.agent_dir % 4, NO_AGENT)
    if highlight:
        lit = highlight_mask(state, see_through_walls)
    else:
        lit = jnp.zeros((width, height), jnp.bool_)
    return _compose(grid, slot, lit, tile_size)


_AGENT_CELL = np.zeros((view.VIEW, view.VIEW), dtype=bool)
_AGENT_CELL[view.VIEW // 2, view.VIEW - 1] = True
_POV_SLOTS = np.where(_AGENT_CELL, 3, NO_AGENT).astype(np.int32)  # the agent faces up


def render_view(state: State, tile_size: int = TILE_SIZE, see_through_walls: bool = False) -> Array:
    """MiniGrid's first-person frame, ``get_frame(tile_size=T, agent_pov=True)``.

    The 7 x 7 view area as the agent faces it: off-grid cells are walls, what the agent
    carries lies in its own cell ``(3, 6)`` under the agent drawn facing up, and the cells the
    agent sees are highlighted (all of them with ``see_through_walls``). Occluded cells are
    drawn as they are, only not highlighted, as MiniGrid does.

    Args:
        state: a `State`.
        tile_size: the tile edge T in pixels; a static Python int.
        see_through_walls: the environment's MiniGrid ``see_through_walls``; a Python bool.

    Returns:
        u8[7*T, 7*T, 3], rows = the view's j (far to near), columns = its i (left to right).
    """
    area = view.view_cells(state)
    seen = _seen(area, see_through_walls)
    # MiniGrid's occlusion empties the cells the agent does not see before drawing them.
    area = jnp.where(seen[..., None], area, jnp.asarray(C.EMPTY_CELL, area.dtype))
    area = jnp.where(_AGENT_CELL[..., None], state.carrying, area)
    return _compose(area, jnp.asarray(_POV_SLOTS), seen, tile_size)


@functools.partial(
    jax.jit, static_argnames=("tile_size", "first_person", "highlight", "see_through_walls")
)
def _render_jit(
    state: State, tile_size: int, first_person: bool, highlight: bool, see_through_walls: bool
) -> Array:
    if first_person:
        return render_view(state, tile_size, see_through_walls)
    return render_grid(state, tile_size, highlight, see_through_walls)


def render_image(
    state: State,
    tile_size: int = TILE_SIZE,
    *,
    first_person: bool = False,
    highlight: bool = True,
    see_through_walls: bool = False,
) -> np.ndarray:
    """A numpy frame of one (unbatched) state, for people: compiled once per configuration.

    Args:
        state: a `State`.
        tile_size: the tile edge T in pixels.
        first_person: render the agent's view (`render_view`) instead of the grid.
        highlight: highlight what the agent sees in the full grid (`render_grid`; the
            first-person frame always highlights, as MiniGrid's does).
        see_through_walls: the environment's MiniGrid ``see_through_walls``.

    Returns:
        u8[H*T, W*T, 3] (or u8[7*T, 7*T, 3] with ``first_person``) numpy array.
    """
    return np.asarray(
        _render_jit(
            state,
            tile_size=int(tile_size),
            first_person=bool(first_person),
            highlight=bool(highlight),
            see_through_walls=bool(see_through_walls),
        )
    )


def save_png(path: str | os.PathLike[str], image: Array | np.ndarray) -> None:
    """Writes a u8[H, W, 3] image to ``path`` as a PNG (needs Pillow, the `render` extra).

    Raises:
        ImportError: if Pillow is not installed.
        ValueError: if ``image`` is not u8[H, W, 3].
    """
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError(
            "save_png needs Pillow: install the render extra, `pip install 'horizax[render]'`"
        ) from err
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim != 3 or array.shape[-1] != 3:
        raise ValueError(f"expected a u8[H, W, 3] image, got {array.dtype}{list(array.shape)}")
    Image.fromarray(np.ascontiguousarray(array)).save(os.fspath(path), format="PNG")
