"""The Maze's ids: ``Maze-v0``."""

from __future__ import annotations

from horizax.core.registry import Family, family_from_doc
from horizax.maze.environment import Maze, make_maze

ENVIRONMENTS = {"Maze-v0": make_maze}
ALIASES: dict[str, str] = {}


def families() -> list[Family]:
    """The Maze family, summarised by `Maze`'s docstring."""
    return [family_from_doc(Maze.__doc__, "maze", ENVIRONMENTS, name="Maze")]
