"""The start-state features compared with MiniGrid's WFC: one categorical value per reset.

Each feature reads one value off each start state (`tests.grid.wfc.reference.Samples`), so
a feature's values are independent across resets and the chi-square homogeneity test of
`tests.grid.distribution` applies. The features cover what the WFC ids promise: the cell-type
frequencies of the WFC output (free cells overall and per band of rows and of columns, the
3 x 3 wall patterns at fixed places: the centre, the corners, the middle of two edges), its
connectivity (components before the largest-component step, cells that step walls up, free
cells kept), the placement (agent coordinates, direction, agent-goal distance), how often
WFC restarts (attempts) and a uniform random policy's episode from the start state (success,
length).
"""

from __future__ import annotations

import numpy as np

from horizax.grid.wfc import patterns
from tests.grid.wfc.reference import PRESET_OF, Samples

# Bands of the 23 output rows (or columns): the edges, where a non-wrapping output differs,
# the next five on each side and the middle.
BANDS = ((0, 1), (1, 6), (6, 17), (17, 22), (22, 23))
# Top-left cells (output [x, y]) of the 3 x 3 windows read as 9-bit codes.
WINDOWS = {
    "centre": (10, 10),
    "x0y0": (0, 0),
    "x20y20": (20, 20),
    "x0y10": (0, 10),
    "x10y0": (10, 0),
}


def components(free: np.ndarray) -> np.ndarray:
    """i32[N]: 4-connected components of each bool[N, S, S] ``free``."""
    from scipy import ndimage

    return np.array([ndimage.label(f)[1] for f in free], np.int32)


def pattern_shapes(env_id: str) -> np.ndarray:
    """bool[16]: the 2 x 2 wall shapes (code ``sum(wall[x + dx, y + dy] << (2 dx + dy))``,
    ``[x, y]`` as the output) that occur inside the patterns of ``env_id``'s preset."""
    tables = patterns.tables(PRESET_OF[env_id])
    walls = tables.tile_walls[tables.patterns].transpose(0, 2, 1)  # [x, y], as outputs
    k = walls.shape[1]
    out = np.zeros(16, bool)
    for x in range(k - 1):
        for y in range(k - 1):
            code = sum(walls[:, x + dx, y + dy] << (2 * dx + dy) for dx in (0, 1) for dy in (0, 1))
            out[code] = True
    return out


def of(samples: Samples, env_id: str) -> dict[str, np.ndarray]:
    """``{name: i32[N]}``: every feature of every reset."""
    raw_free = ~samples.raw_walls  # bool[N, 23, 23], [x, y]
    free = ~samples.walls[:, 1:-1, 1:-1]
    raw_count = raw_free.sum(axis=(1, 2))
    count = free.sum(axis=(1, 2))
    removed = raw_count - count
    out = {
        "free_cells": count // 10,
        "raw_free_cells": raw_count // 10,
        "removed_cells": np.digitize(removed, [1, 3, 10, 30, 100]),
        "raw_components": np.minimum(components(raw_free), 20),
        "agent_x": samples.agent[:, 0],
        "agent_y": samples.agent[:, 1],
        "agent_dir": samples.agent_dir,
        "distance": np.abs(samples.agent - samples.goal).sum(axis=1) // 3,
        "attempts": np.minimum(samples.attempts, 3),
        "episode_success": samples.episode_success,
        # Length bins of 50 steps (bin 10: the 500-step limit), apart for successes.
        "episode": samples.episode_success * 11 + np.minimum(samples.episode_length // 50, 10),
    }
    for b, (lo, hi) in enumerate(BANDS):
        out[f"raw_free_x{b}"] = raw_free[:, lo:hi].sum(axis=(1, 2)) // max(1, (hi - lo) * 2)
        out[f"raw_free_y{b}"] = raw_free[:, :, lo:hi].sum(axis=(1, 2)) // max(1, (hi - lo) * 2)
    codes = 1 << np.arange(9)
    for name, (x, y) in WINDOWS.items():
        window = samples.raw_walls[:, x : x + 3, y : y + 3].reshape(len(samples), 9)
        out[f"window_{name}"] = window @ codes
    # Texture: how many of a layout's 2 x 2 windows (wrapping) have each of the 16 shapes.
    walls = samples.raw_walls.astype(np.int32)
    shape = sum(
        np.roll(walls, (-dx, -dy), axis=(1, 2)) << (2 * dx + dy) for dx in (0, 1) for dy in (0, 1)
    )
    for code in range(16):
        out[f"shape2_{code}"] = (shape == code).sum(axis=(1, 2)) // 6
    # The seam: 2 x 2 windows across the output's edges (wrapping around) that no pattern
    # holds; a wrapping output has none.
    seam = np.concatenate([shape[:, -1, :], shape[:, :-1, -1]], axis=1)
    out["seam_breaks"] = np.minimum((~pattern_shapes(env_id)[seam]).sum(axis=1), 10)
    return {k: np.asarray(v, np.int32) for k, v in out.items()}


def histograms(features: dict[str, np.ndarray]) -> dict[str, dict[str, int]]:
    """``{name: {value: count}}`` (JSON-ready)."""
    out = {}
    for name, values in features.items():
        cats, counts = np.unique(values, return_counts=True)
        out[name] = {str(int(c)): int(n) for c, n in zip(cats, counts, strict=True)}
    return out


def from_histograms(hist: dict[str, dict[str, int]]) -> dict[str, np.ndarray]:
    """The samples back from `histograms` (sorted values, as the chi-square test needs no
    order)."""
    return {
        name: np.repeat(np.array([int(c) for c in h], np.int32), list(h.values()))
        for name, h in hist.items()
    }
