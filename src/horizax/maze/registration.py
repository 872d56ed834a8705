"""The Maze's ids: ``Maze-v0``."""

from __future__ import annotations

from horizax.maze.environment import make_maze

ENVIRONMENTS = {"Maze-v0": make_maze}
ALIASES: dict[str, str] = {}
