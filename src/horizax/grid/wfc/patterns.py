"""The overlapping model's tables: tiles, patterns, their weights and their adjacency.

Built on the host, once per preset (`tables` is cached), from the shipped pattern image,
following MiniGrid 3.2.0's ``wfclogic`` (itself ikarth's ``wfc_2019f``):

* tiles: each distinct pixel colour is a tile (one pixel per tile). A tile is a wall when
  its red channel is 0: MiniGrid compares the output image with black channel by channel
  and keeps channel 0.
* symmetry walk: MiniGrid extracts patterns from 8 grids, each the previous one transformed
  by the next of identity, mirror, rotate, mirror, rotate, mirror, rotate, mirror (mirror:
  left-right flip; rotate: a quarter turn clockwise). Because a mirror undoes half of the
  rotation before it, the walk only visits 4 orientations (identity, mirror, mirror then
  rotate, a quarter turn anticlockwise), each twice. This is reproduced as is; it is not
  the full dihedral group.
* patterns: every ``k x k`` window of each grid, the grid wrapping around (MiniGrid pads
  with ``mode="wrap"`` whether or not the input is periodic).
* weights: a pattern's weight is the number of those 8 grids it occurs in (MiniGrid counts
  each grid's *unique* windows, not their occurrences), so weights lie in 1 .. 8.
* adjacency: pattern ``j`` may sit at offset ``(dx, dy)`` from pattern ``i`` when they agree
  on their overlap: ``p_i[r, c] == p_j[r - dy, c - dx]`` (rows ``r``, columns ``c``).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from horizax.grid.wfc import png, presets

# The four neighbour offsets ``(dx, dy)`` in MiniGrid's order: up, right, down, left.
DIRECTIONS = ((0, -1), (1, 0), (0, 1), (-1, 0))


@dataclasses.dataclass(frozen=True, eq=False)
class Tables:
    """A preset's overlapping model (numpy arrays, read-only).

    Attributes:
        patterns: i32[P, k, k], tile ids of each pattern, ``[row, column]``.
        weights: f32[P], each pattern's weight (1 .. 8).
        compatible: bool[4, P, P], ``[d, i, j]``: ``j`` may sit at offset `DIRECTIONS`[d]
            from ``i``.
        tile_walls: bool[T], which tiles are walls.
        pattern_walls: bool[P], whether a pattern's top-left tile (the tile it writes to
            the output) is a wall.
    """

    patterns: np.ndarray
    weights: np.ndarray
    compatible: np.ndarray
    tile_walls: np.ndarray
    pattern_walls: np.ndarray

    @property
    def num_patterns(self) -> int:
        return len(self.weights)


def tile_grid(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(i32[H, W] tile ids, bool[T] wall tiles)`` of u8[H, W, 3] ``image``."""
    colours, ids = np.unique(image.reshape(-1, 3), axis=0, return_inverse=True)
    return ids.reshape(image.shape[:2]).astype(np.int32), colours[:, 0] == 0


def symmetry_walk(grid: np.ndarray) -> list[np.ndarray]:
    """MiniGrid's 8 grids: each the previous one after identity, mirror, rotate, mirror, ..."""
    out, current = [], grid
    for step in range(8):
        if step % 2:
            current = np.fliplr(current)
        elif step:
            current = np.rot90(current, axes=(1, 0))  # a quarter turn clockwise
        out.append(current)
    return out


def windows(grid: np.ndarray, k: int) -> np.ndarray:
    """i32[H * W, k, k]: every ``k x k`` window of ``grid``, wrapping around its edges."""
    padded = np.pad(grid, ((0, k - 1), (0, k - 1)), mode="wrap")
    h, w = grid.shape
    return np.stack([padded[r : r + k, c : c + k] for r in range(h) for c in range(w)])


def agree(p: np.ndarray, q: np.ndarray, dx: int, dy: int) -> bool:
    """Whether ``q`` at offset ``(dx, dy)`` from ``p`` agrees with it on their overlap."""
    k = len(p)
    rows, cols = slice(max(0, dy), min(k, k + dy)), slice(max(0, dx), min(k, k + dx))
    shifted = slice(max(0, -dy), min(k, k - dy)), slice(max(0, -dx), min(k, k - dx))
    return bool(np.array_equal(p[rows, cols], q[shifted]))


def build(image: np.ndarray, k: int) -> Tables:
    """The overlapping model of u8[H, W, 3] ``image`` with ``k x k`` patterns."""
    grid, tile_walls = tile_grid(image)
    weight: dict[bytes, int] = {}
    shape = (k, k)
    for variant in symmetry_walk(grid):
        for window in np.unique(windows(variant, k), axis=0):
            key = window.astype(np.int32).tobytes()
            weight[key] = weight.get(key, 0) + 1
    keys = sorted(weight)  # a fixed order (MiniGrid orders by hash; no effect on the output)
    patterns = np.stack([np.frombuffer(key, np.int32).reshape(shape) for key in keys])
    compatible = np.array(
        [[[agree(p, q, dx, dy) for q in patterns] for p in patterns] for dx, dy in DIRECTIONS]
    )
    return Tables(
        patterns=patterns,
        weights=np.array([weight[key] for key in keys], np.float32),
        compatible=compatible,
        tile_walls=tile_walls,
        pattern_walls=tile_walls[patterns[:, 0, 0]],
    )


@functools.cache
def tables(name: str) -> Tables:
    """The tables of the preset ``name`` (`horizax.grid.wfc.presets.PRESETS`), read on
    first use and cached."""
    preset = presets.PRESETS[name]
    image = png.read_rgb(presets.pattern_file(preset.image))
    return build(image, preset.pattern_width)
