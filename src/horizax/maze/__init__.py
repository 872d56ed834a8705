"""The Maze: jumanji's Maze API, except that the time limit truncates.

``Maze``, its generators (``ToyGenerator``, ``RandomGenerator`` -- the default -- and the
key-exact ``JumanjiRandomGenerator``), types (``State``, ``Observation``, ``TimeStep``,
``StepType``) and autoreset helpers (``AutoReset``, ``VmapAutoReset``);
``horizax.make("Maze-v0")`` builds one. See docs/maze.md.
"""

from horizax.maze.autoreset import AutoReset, VmapAutoReset
from horizax.maze.environment import Maze, make_maze
from horizax.maze.generator import (
    Generator,
    JumanjiRandomGenerator,
    RandomGenerator,
    ToyGenerator,
    max_divisions,
)
from horizax.maze.types import (
    Observation,
    Position,
    State,
    StepType,
    TimeStep,
    restart,
    termination,
    transition,
    truncation,
)

__all__ = [
    "AutoReset",
    "Generator",
    "JumanjiRandomGenerator",
    "Maze",
    "Observation",
    "Position",
    "RandomGenerator",
    "State",
    "StepType",
    "TimeStep",
    "ToyGenerator",
    "VmapAutoReset",
    "make_maze",
    "max_divisions",
    "restart",
    "termination",
    "transition",
    "truncation",
]
