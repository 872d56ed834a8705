"""The static geometry of MiniGrid's ``RoomGrid`` (Unlock*, KeyCorridor, ObstructedMaze).

A `RoomGrid` is a ``num_cols`` x ``num_rows`` array of square rooms of side ``room_size``
(walls included) sharing their walls: room ``(i, j)`` (column ``i``, row ``j``) has its
top-left corner at ``(i * (room_size - 1), j * (room_size - 1))``. MiniGrid draws one door
position per wall between two rooms when it builds the grid, whether or not a door is later
put there. The families draw those slots and their placements themselves (MiniGrid's
rejection rules as ranks among admissible cells, from random words), because the masks of a
generic helper cost too much to compile and to run under `vmap`; this module holds what they
share: the sizes, the walls and MiniGrid's placeholder agent position.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from horizax.grid import constants as C
from horizax.grid.state import walled_grid


@dataclasses.dataclass(frozen=True)
class RoomGrid:
    """The static shape of a room grid.

    Attributes:
        room_size: side of each room, walls included (>= 3).
        num_rows, num_cols: rooms per column and per row (>= 1).
    """

    room_size: int
    num_rows: int
    num_cols: int

    def __post_init__(self) -> None:
        if self.room_size < 3 or self.num_rows < 1 or self.num_cols < 1:
            raise ValueError(f"invalid room grid {self}: room_size >= 3, rows/cols >= 1")

    @property
    def width(self) -> int:
        """Grid width in cells."""
        return (self.room_size - 1) * self.num_cols + 1

    @property
    def height(self) -> int:
        """Grid height in cells."""
        return (self.room_size - 1) * self.num_rows + 1

    def walls(self) -> np.ndarray:
        """u8[W, H, 3] numpy grid: every room's walls, nothing inside."""
        grid = walled_grid(self.width, self.height)
        step = self.room_size - 1
        grid[::step, :] = C.WALL_CELL
        grid[:, ::step] = C.WALL_CELL
        return grid

    def default_agent_pos(self) -> np.ndarray:
        """i32[2]: where MiniGrid's ``RoomGrid`` puts the agent before ``place_agent``."""
        half, step = self.room_size // 2, self.room_size - 1
        return np.array(
            [self.num_cols // 2 * step + half, self.num_rows // 2 * step + half], np.int32
        )
