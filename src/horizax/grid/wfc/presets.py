"""MiniGrid 3.2.0's six registered WFC presets: which pattern image, and how WFC reads it.

Every preset keeps the defaults of MiniGrid's ``WFCConfig`` that these ids do not set:
one pixel per tile, all 8 steps of its symmetry walk (`horizax.grid.wfc.patterns`), the
"entropy" location heuristic (fewest remaining patterns, ties broken by a per-reset random
cell priority), the "weighted" pattern choice and no backtracking (`horizax.grid.wfc.solver`).
MiniGrid's ``input_periodic`` does not change its pattern extraction (the input always
wraps), so only ``periodic_output`` matters; it is kept here for the record.

The images in `PATTERN_DIR` are byte-for-byte MiniGrid's ``minigrid/envs/wfc/patterns``
files (Farama-Foundation/Minigrid, Apache-2.0; unchanged there since the WFC environments
were added in 2024), which MiniGrid 3.2.0's wheel and sdist leave out.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

PATTERN_DIR = Path(__file__).with_name("patterns")


@dataclasses.dataclass(frozen=True)
class Preset:
    """One WFC configuration.

    Attributes:
        name: MiniGrid's preset name (the id is ``MiniGrid-WFC-<name>-v0``).
        image: the pattern image's file name in `PATTERN_DIR`.
        pattern_width: side of the square patterns, in tiles (pixels).
        periodic_input: MiniGrid's ``input_periodic`` (no effect: its input always wraps).
        periodic_output: the output wraps around its edges (neighbours across the border).
    """

    name: str
    image: str
    pattern_width: int
    periodic_input: bool
    periodic_output: bool


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset("MazeSimple", "SimpleMaze.png", 2, False, False),
        Preset("DungeonMazeScaled", "ScaledMaze.png", 2, True, True),
        Preset("RoomsFabric", "Fabric.png", 3, False, False),
        Preset("ObstaclesBlackdots", "Blackdots.png", 2, False, False),
        Preset("ObstaclesAngular", "Angular.png", 3, True, True),
        Preset("ObstaclesHogs3", "Hogs.png", 3, True, True),
    )
}


def pattern_file(image: str) -> Path:
    """The path of a shipped pattern image (package data of ``horizax``)."""
    return PATTERN_DIR / image
