"""MiniGrid 3.2.0's tiles, pixel for pixel: its rasterisation rules, horizax's code.

A tile of edge ``T`` is painted on a ``3T x 3T`` uint8 canvas. A shape paints the pixels
whose centres ``((i + 0.5) / 3T, (j + 0.5) / 3T)`` satisfy its predicate: rectangles with
inclusive bounds, discs, segments thickened to a radius, and a triangle tested in barycentric
coordinates, rotated for the agent's direction. Colours are stored with numpy's uint8 cast,
so a fractional colour truncates (``0.45 * 255`` paints 114). A highlighted tile is blended
30 % towards white on the canvas; the tile is then the mean of each 3 x 3 block, columns first,
truncated to uint8. Every tile depends only on ``(object, colour, state)``, the agent's
direction (or none) and the highlight, so `tile` results are cached.

The float types follow MiniGrid's arithmetic step for step (its triangle and segment
constants are float32, the pixel coordinates float64), because a pixel whose centre lies on
an edge depends on them; `tests/grid/test_raster.py` compares every tile with MiniGrid's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from horizax.grid import constants as C

__all__ = ["SUBDIVISIONS", "tile"]

SUBDIVISIONS = 3
_LINE = (100, 100, 100)
_LAVA = (255, 128, 0)
_BLACK = (0, 0, 0)
_AGENT = (255, 0, 0)
_HIGHLIGHT_ALPHA = 0.30

Mask = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _rect(xmin: float, xmax: float, ymin: float, ymax: float) -> Mask:
    return lambda x, y: (x >= xmin) & (x <= xmax) & (y >= ymin) & (y <= ymax)


def _disc(cx: float, cy: float, r: float) -> Mask:
    return lambda x, y: (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r


def _segment(x0: float, y0: float, x1: float, y1: float, r: float) -> Mask:
    """Pixels within ``r`` of the segment (MiniGrid: float32 ends and direction)."""
    p0 = np.array([x0, y0], dtype=np.float32)
    direction = np.array([x1, y1], dtype=np.float32) - p0
    length = np.linalg.norm(direction)
    direction = direction / length
    box = (min(x0, x1) - r, max(x0, x1) + r, min(y0, y1) - r, max(y0, y1) + r)

    def mask(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.zeros(x.shape, dtype=bool)
        inside = (x >= box[0]) & (x <= box[1]) & (y >= box[2]) & (y <= box[3])
        for index in zip(*np.nonzero(inside), strict=True):
            q = np.array([x[index], y[index]])
            along = np.clip(np.dot(q - p0, direction), 0, length)
            out[index] = np.linalg.norm(q - (p0 + along * direction)) <= r
        return out

    return mask


def _agent_triangle(direction: int) -> Mask:
    """The agent's triangle, pointing right, rotated by ``direction`` quarter turns about the
    tile's centre; each pixel tested as MiniGrid does (float32 corners, float64 points)."""
    a = np.array((0.12, 0.19), dtype=np.float32)
    b = np.array((0.87, 0.50), dtype=np.float32)
    c = np.array((0.12, 0.81), dtype=np.float32)
    v0, v1 = c - a, b - a
    dot00, dot01, dot11 = np.dot(v0, v0), np.dot(v0, v1), np.dot(v1, v1)
    inv_denom = 1 / (dot00 * dot11 - dot01 * dot01)
    theta = 0.5 * math.pi * direction
    cos, sin = math.cos(-theta), math.sin(-theta)

    def mask(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.zeros(x.shape, dtype=bool)
        for index in np.ndindex(x.shape):
            dx, dy = float(x[index]) - 0.5, float(y[index]) - 0.5
            v2 = np.array((0.5 + dx * cos - dy * sin, 0.5 + dy * cos + dx * sin)) - a
            dot02, dot12 = np.dot(v0, v2), np.dot(v1, v2)
            u = (dot11 * dot02 - dot01 * dot12) * inv_denom
            v = (dot00 * dot12 - dot01 * dot02) * inv_denom
            out[index] = (u >= 0) and (v >= 0) and (u + v) < 1
        return out

    return mask


def _shapes(obj: int, colour: int, state: int) -> list[tuple[Mask, ArrayLike]]:
    """``(mask, colour)`` pairs painting one encoding, in order (grid lines excluded)."""
    rgb = C.COLOR_RGB[colour]
    if obj in (C.WALL, C.GOAL):
        return [(_rect(0, 1, 0, 1), rgb if obj == C.WALL else C.COLOR_RGB[C.GREEN])]
    if obj == C.FLOOR:
        return [(_rect(0.031, 1, 0.031, 1), rgb / 2)]
    if obj == C.LAVA:
        shapes: list[tuple[Mask, ArrayLike]] = [(_rect(0, 1, 0, 1), _LAVA)]
        for i in range(3):
            low, high = 0.3 + 0.2 * i, 0.4 + 0.2 * i
            for x0, y0, x1, y1 in ((0.1, low, 0.3, high), (0.3, high, 0.5, low)):
                shapes.append((_segment(x0, y0, x1, y1, 0.03), _BLACK))
            for x0, y0, x1, y1 in ((0.5, low, 0.7, high), (0.7, high, 0.9, low)):
                shapes.append((_segment(x0, y0, x1, y1, 0.03), _BLACK))
        return shapes
    if obj == C.DOOR:
        if state == C.OPEN:
            return [(_rect(0.88, 1.00, 0.00, 1.00), rgb), (_rect(0.92, 0.96, 0.04, 0.96), _BLACK)]
        if state == C.LOCKED:
            return [
                (_rect(0.00, 1.00, 0.00, 1.00), rgb),
                (_rect(0.06, 0.94, 0.06, 0.94), 0.45 * rgb),
                (_rect(0.52, 0.75, 0.50, 0.56), rgb),  # the key slot
            ]
        return [
            (_rect(0.00, 1.00, 0.00, 1.00), rgb),
            (_rect(0.04, 0.96, 0.04, 0.96), _BLACK),
            (_rect(0.08, 0.92, 0.08, 0.92), rgb),
            (_rect(0.12, 0.88, 0.12, 0.88), _BLACK),
            (_disc(0.75, 0.50, 0.08), rgb),  # the handle
        ]
    if obj == C.KEY:
        return [
            (_rect(0.50, 0.63, 0.31, 0.88), rgb),  # the shank
            (_rect(0.38, 0.50, 0.59, 0.66), rgb),  # two teeth
            (_rect(0.38, 0.50, 0.81, 0.88), rgb),
            (_disc(0.56, 0.28, 0.190), rgb),  # the ring
            (_disc(0.56, 0.28, 0.064), _BLACK),
        ]
    if obj == C.BALL:
        return [(_disc(0.5, 0.5, 0.31), rgb)]
    if obj == C.BOX:
        return [
            (_rect(0.12, 0.88, 0.12, 0.88), rgb),
            (_rect(0.18, 0.82, 0.18, 0.82), _BLACK),
            (_rect(0.16, 0.84, 0.47, 0.53), rgb),  # the slit
        ]
    return []  # unseen, empty and agent encodings: an empty cell


@functools.cache
def _canvas_coordinates(size: int) -> tuple[np.ndarray, np.ndarray]:
    centres = (np.arange(size) + 0.5) / size
    y, x = np.meshgrid(centres, centres, indexing="ij")
    return x, y


@functools.cache
def _agent_mask(direction: int, size: int) -> np.ndarray:
    mask = _agent_triangle(direction)(*_canvas_coordinates(size))
    mask.setflags(write=False)
    return mask


@functools.lru_cache(maxsize=4096)
def tile(
    obj: int, colour: int, state: int, agent_dir: int | None, highlight: bool, tile_size: int
) -> np.ndarray:
    """u8[T, T, 3]: MiniGrid's tile of encoding ``(obj, colour, state)`` (read-only).

    Args:
        obj: the cell's MiniGrid object index (empty, unseen and agent draw an empty cell,
            as MiniGrid's ``None``).
        colour: the cell's MiniGrid colour index.
        state: the cell's MiniGrid state index (a door's open, closed or locked).
        agent_dir: the direction of an agent standing on the cell (0 right, 1 down, 2 left,
            3 up), or None.
        highlight: blend the tile towards white (MiniGrid's agent-view highlight).
        tile_size: the tile edge ``T`` in pixels.
    """
    size = tile_size * SUBDIVISIONS
    x, y = _canvas_coordinates(size)
    canvas = np.zeros((size, size, 3), dtype=np.uint8)
    canvas[_rect(0, 0.031, 0, 1)(x, y)] = _LINE  # grid lines: the left and top edges
    canvas[_rect(0, 1, 0, 0.031)(x, y)] = _LINE
    for mask, rgb in _shapes(obj, colour, state):
        canvas[mask(x, y)] = rgb
    if agent_dir is not None:
        canvas[_agent_mask(int(agent_dir) % 4, size)] = _AGENT
    if highlight:
        white = np.array((255, 255, 255), dtype=np.uint8)
        blended = canvas + _HIGHLIGHT_ALPHA * (white - canvas)
        canvas = blended.clip(0, 255).astype(np.uint8)
    blocks = canvas.reshape(tile_size, SUBDIVISIONS, tile_size, SUBDIVISIONS, 3)
    out = blocks.mean(axis=3).mean(axis=1).astype(np.uint8)
    out.setflags(write=False)
    return out
