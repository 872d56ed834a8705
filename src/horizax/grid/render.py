"""Tile rendering of gridworld states: pure JAX, jittable, vmappable and branch-free.

Every MiniGrid encoding ``(object, colour, state)`` owns one ``T x T`` RGB tile of an atlas
that is drawn once per tile size with numpy and cached (`tile_atlas`). Rendering a state is
then a gather of tiles by encoding index, a transpose into image layout (rows = y, columns =
x, while the state grid is indexed ``[x, y]``) and a red triangle composited over the agent's
cell. The look follows MiniGrid's (black floor, thin grey grid lines on each tile's top and
left edges, a red triangle for the agent); the drawing itself is horizax's own.

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

from horizax.grid import cells, view
from horizax.grid import constants as C
from horizax.grid.state import State

TILE_SIZE = 32
"""Default tile edge in pixels (MiniGrid's ``TILE_PIXELS``)."""

_SUPERSAMPLE = 3  # tiles are drawn at 3x and box-filtered down: cheap anti-aliasing
_LINE_RGB = (100, 100, 100)
_AGENT_RGB = (255, 0, 0)
_LAVA_RGB = (255, 128, 0)
_BLACK = (0, 0, 0)
_COLOURLESS = (C.UNSEEN, C.EMPTY, C.LAVA)  # objects drawn the same in every colour
_STATEFUL = (C.DOOR, C.AGENT)  # objects whose state channel changes the picture


class _Canvas:
    """One supersampled tile being drawn.

    Attributes:
        x, y: f64[n, n], pixel-centre coordinates in tile units ``[0, 1]``; rows are y (down).
        rgb: f64[n, n, 3], the paint so far.
        px: the width of one output pixel in tile units.
    """

    def __init__(self, tile_size: int):
        n = tile_size * _SUPERSAMPLE
        centres = (np.arange(n) + 0.5) / n
        self.y, self.x = np.meshgrid(centres, centres, indexing="ij")
        self.rgb = np.zeros((n, n, 3))
        self.px = 1.0 / tile_size
        self.tile_size = tile_size

    def fill(self, mask: np.ndarray, rgb) -> None:
        self.rgb[mask] = np.asarray(rgb, dtype=np.float64)

    def rect(self, x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
        return (self.x >= x0) & (self.x < x1) & (self.y >= y0) & (self.y < y1)

    def disc(self, cx: float, cy: float, r: float) -> np.ndarray:
        return (self.x - cx) ** 2 + (self.y - cy) ** 2 <= r * r

    def triangle(self, a, b, c) -> np.ndarray:
        """The pixels on the inner side of all three edges (either winding)."""
        sides = []
        for (x0, y0), (x1, y1) in ((a, b), (b, c), (c, a)):
            sides.append((x1 - x0) * (self.y - y0) - (y1 - y0) * (self.x - x0))
        sides = np.stack(sides)
        return np.all(sides >= 0, axis=0) | np.all(sides <= 0, axis=0)

    def grid_lines(self) -> None:
        """One output pixel of grey on the top and left edges; neighbours supply the rest."""
        self.fill((self.x < self.px) | (self.y < self.px), _LINE_RGB)

    def tile(self) -> np.ndarray:
        """u8[T, T, 3]: the paint box-filtered down to the output resolution."""
        t, s = self.tile_size, _SUPERSAMPLE
        mean = self.rgb.reshape(t, s, t, s, 3).mean(axis=(1, 3))
        return np.clip(np.round(mean), 0, 255).astype(np.uint8)

    def coverage(self, mask: np.ndarray) -> np.ndarray:
        """f32[T, T]: the fraction of each output pixel that ``mask`` covers."""
        t, s = self.tile_size, _SUPERSAMPLE
        return mask.reshape(t, s, t, s).mean(axis=(1, 3)).astype(np.float32)


def _agent_mask(canvas: _Canvas) -> np.ndarray:
    """bool[n, n]: the agent's triangle pointing right (direction 0)."""
    return canvas.triangle((0.16, 0.2), (0.86, 0.5), (0.16, 0.8))


def _draw_door(cv: _Canvas, rgb: np.ndarray, state: int) -> None:
    w = 0.06  # frame thickness
    if state == C.OPEN:
        # Swung fully open: the leaf seen edge-on against the right-hand side of the frame.
        cv.fill(cv.rect(0.84, 1.0, 0.0, 1.0), rgb)
        cv.fill(cv.rect(0.89, 0.95, 0.06, 0.94), _BLACK)
        return
    cv.fill(cv.rect(0, 1, 0, 1), rgb)
    if state == C.LOCKED:
        # A dim, solid leaf with a black keyhole: reads as "shut and needs a key".
        cv.fill(cv.rect(w, 1 - w, w, 1 - w), 0.45 * rgb)
        keyhole = cv.disc(0.5, 0.44, 0.09) | cv.triangle((0.5, 0.42), (0.4, 0.68), (0.6, 0.68))
        cv.fill(keyhole, _BLACK)
        return
    # Closed: frame, an inset panel outline and a round handle.
    cv.fill(cv.rect(w, 1 - w, w, 1 - w), _BLACK)
    cv.fill(cv.rect(0.14, 0.86, 0.14, 0.86), rgb)
    cv.fill(cv.rect(0.19, 0.81, 0.19, 0.81), _BLACK)
    cv.fill(cv.disc(0.7, 0.5, 0.065), rgb)


def _draw_object(cv: _Canvas, obj: int, colour: int, state: int) -> None:
    """Paints one encoding onto a fresh canvas (grid lines already drawn where they show)."""
    rgb = C.COLOR_RGB[colour].astype(np.float64)
    if obj == C.WALL:
        # Solid colour with a faint running-bond brick pattern; the pattern keeps a green
        # wall distinguishable from a green goal, which MiniGrid draws identically.
        cv.fill(cv.rect(0, 1, 0, 1), rgb)
        px = cv.px
        mortar = (cv.y < px) | ((cv.y >= 0.5) & (cv.y < 0.5 + px))
        mortar |= (cv.y < 0.5) & (cv.x >= 0.5) & (cv.x < 0.5 + px)
        mortar |= (cv.y >= 0.5) & (cv.x < px)
        cv.fill(mortar, 0.72 * rgb)
    elif obj == C.FLOOR:
        cv.fill(cv.rect(cv.px, 1, cv.px, 1), 0.5 * rgb)
    elif obj == C.GOAL:
        cv.fill(cv.rect(0, 1, 0, 1), rgb)
    elif obj == C.LAVA:
        cv.fill(cv.rect(0, 1, 0, 1), _LAVA_RGB)
        for y0 in (0.3, 0.5, 0.7):  # three sine ripples, ~1 px thick (vertical distance)
            wave = y0 + 0.05 * np.sin(2 * np.pi * (cv.x - 0.1) / 0.4)
            cv.fill((np.abs(cv.y - wave) < 0.035) & (cv.x > 0.1) & (cv.x < 0.9), _BLACK)
    elif obj == C.DOOR:
        _draw_door(cv, rgb, state)
    elif obj == C.KEY:
        cv.fill(cv.disc(0.5, 0.3, 0.18) & ~cv.disc(0.5, 0.3, 0.075), rgb)  # bow
        cv.fill(cv.rect(0.44, 0.56, 0.46, 0.88), rgb)  # shank
        cv.fill(cv.rect(0.56, 0.7, 0.62, 0.69) | cv.rect(0.56, 0.7, 0.79, 0.88), rgb)  # bit
    elif obj == C.BALL:
        cv.fill(cv.disc(0.5, 0.5, 0.31), rgb)
        cv.fill(cv.disc(0.4, 0.4, 0.07), rgb + 0.55 * (255 - rgb))  # a glint
    elif obj == C.BOX:
        cv.fill(cv.rect(0.13, 0.87, 0.13, 0.87), rgb)
        cv.fill(cv.rect(0.19, 0.81, 0.19, 0.81), _BLACK)
        cv.fill(cv.rect(0.17, 0.83, 0.38, 0.44), rgb)  # lid seam
        cv.fill(cv.rect(0.44, 0.56, 0.44, 0.56), rgb)  # latch
    elif obj == C.AGENT:
        # Only in `symbolic`-style encodings, whose state channel is the direction; the atlas
        # has NUM_STATES (3) states, so direction 3 (up) clamps to 2. States render agents
        # through `agent_alpha` instead, which has all four.
        mask = np.rot90(_agent_mask(cv), k=-state)
        cv.fill(mask, _AGENT_RGB)


def _draw_tile(obj: int, colour: int, state: int, tile_size: int) -> np.ndarray:
    """u8[T, T, 3]: the tile of encoding ``(obj, colour, state)``."""
    cv = _Canvas(tile_size)
    if obj != C.UNSEEN:  # unseen stays pure black, without grid lines
        cv.grid_lines()
        _draw_object(cv, obj, colour, state)
    return cv.tile()


@functools.lru_cache(maxsize=8)
def tile_atlas(tile_size: int = TILE_SIZE) -> np.ndarray:
    """The tile of every encoding, drawn on first use for each tile size and then cached.

    Args:
        tile_size: the tile edge T in pixels.

    Returns:
        u8[NUM_OBJECTS * NUM_COLORS * NUM_STATES, T, T, 3] (read-only), where encoding
        ``(o, c, s)`` is at row ``(o * NUM_COLORS + c) * NUM_STATES + s``.
    """
    if tile_size < 1:
        raise ValueError(f"tile_size must be a positive int, got {tile_size!r}")
    shape = (C.NUM_OBJECTS, C.NUM_COLORS, C.NUM_STATES)
    atlas = np.zeros((*shape, tile_size, tile_size, 3), dtype=np.uint8)
    drawn: dict[tuple[int, int, int], np.ndarray] = {}
    for o, c, s in itertools.product(*map(range, shape)):
        # Fields an object ignores are zeroed so that equal-looking tiles are drawn once.
        key = (o, 0 if o in _COLOURLESS else c, s if o in _STATEFUL else 0)
        if key not in drawn:
            drawn[key] = _draw_tile(*key, tile_size)
        atlas[o, c, s] = drawn[key]
    atlas = atlas.reshape(-1, tile_size, tile_size, 3)
    atlas.setflags(write=False)
    return atlas


@functools.lru_cache(maxsize=8)
def agent_alpha(tile_size: int = TILE_SIZE) -> np.ndarray:
    """f32[4, T, T]: per direction, the fraction of each pixel the agent's triangle covers."""
    cv = _Canvas(tile_size)
    right = _agent_mask(cv)
    # np.rot90 with k = -d turns the picture clockwise by d quarter turns: right, down, ...
    alpha = np.stack([cv.coverage(np.rot90(right, k=-d)) for d in range(4)])
    alpha.setflags(write=False)
    return alpha


def encoding_index(encoding: Array) -> Array:
    """i32[...]: the atlas row of each encoding ``u8[..., 3]`` (out-of-range fields clamp)."""
    enc = encoding.astype(jnp.int32)
    obj = jnp.clip(enc[..., 0], 0, C.NUM_OBJECTS - 1)
    colour = jnp.clip(enc[..., 1], 0, C.NUM_COLORS - 1)
    state = jnp.clip(enc[..., 2], 0, C.NUM_STATES - 1)
    return (obj * C.NUM_COLORS + colour) * C.NUM_STATES + state


def _compose(encoding: Array, agent_pos: Array, agent_dir: Array, tile_size: int) -> Array:
    """u8[H*T, W*T, 3]: tiles of ``encoding`` (u8[W, H, 3], indexed [x, y]) plus the agent."""
    width, height = encoding.shape[0], encoding.shape[1]
    tiles = jnp.asarray(tile_atlas(tile_size))[encoding_index(encoding)]  # [W, H, T, T, 3]
    # Composite the triangle over the one tile the agent stands on, then select it into place
    # with a mask: no data-dependent scatter, and an off-grid agent simply is not drawn.
    x = jnp.clip(agent_pos[0], 0, width - 1)
    y = jnp.clip(agent_pos[1], 0, height - 1)
    alpha = jnp.asarray(agent_alpha(tile_size))[agent_dir % 4][..., None]
    under = tiles[x, y].astype(jnp.float32)
    red = jnp.asarray(_AGENT_RGB, jnp.float32)
    agent_tile = jnp.round(under + alpha * (red - under)).astype(jnp.uint8)
    here = cells.position_mask(width, height, agent_pos)[:, :, None, None, None]
    tiles = jnp.where(here, agent_tile, tiles)
    # [x, y, row, col, rgb] -> [y, row, x, col, rgb] -> image rows (y) and columns (x).
    return tiles.transpose(1, 2, 0, 3, 4).reshape(height * tile_size, width * tile_size, 3)


def render_grid(state: State, tile_size: int = TILE_SIZE) -> Array:
    """Renders the full grid with the agent, as an image.

    Args:
        state: a `State` whose grid is u8[W, H, 3] indexed ``[x, y]``.
        tile_size: the tile edge T in pixels; a static Python int.

    Returns:
        u8[H*T, W*T, 3], rows = y and columns = x (the image convention).
    """
    return _compose(state.grid, state.agent_pos, state.agent_dir, tile_size)


def render_view(state: State, tile_size: int = TILE_SIZE) -> Array:
    """Renders the agent's occluded egocentric view (`horizax.grid.view.symbolic_first_person`).

    The agent is drawn at view cell ``(3, 6)`` pointing up, over whatever it carries; cells
    it cannot see are black, without grid lines.

    Args:
        state: a `State`.
        tile_size: the tile edge T in pixels; a static Python int.

    Returns:
        u8[7*T, 7*T, 3], rows = the view's j (far to near), columns = its i (left to right).
    """
    image = view.symbolic_first_person(state)
    centre = jnp.asarray([C.AGENT_VIEW_SIZE // 2, C.AGENT_VIEW_SIZE - 1], jnp.int32)
    return _compose(image, centre, jnp.int32(3), tile_size)


@functools.partial(jax.jit, static_argnames=("tile_size", "first_person"))
def _render_jit(state: State, tile_size: int, first_person: bool) -> Array:
    return render_view(state, tile_size) if first_person else render_grid(state, tile_size)


def render_image(
    state: State, tile_size: int = TILE_SIZE, *, first_person: bool = False
) -> np.ndarray:
    """A numpy image of one (unbatched) state, for people: compiled once per configuration.

    Args:
        state: a `State`.
        tile_size: the tile edge T in pixels.
        first_person: render the egocentric view instead of the full grid.

    Returns:
        u8[H*T, W*T, 3] (or u8[7*T, 7*T, 3] with ``first_person``) numpy array.
    """
    return np.asarray(_render_jit(state, tile_size=int(tile_size), first_person=first_person))


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
