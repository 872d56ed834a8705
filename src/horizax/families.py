"""The environment families `horizax.make` knows: the one list of their registrations.

Each family has a registration module with explicit ``ENVIRONMENTS`` and ``ALIASES``;
`register_families` imports them and registers their ids in `horizax.core.registry`.
`horizax/__init__.py` adds it there as a source, which runs on the first `make` or
`registered_ids`: importing horizax registers nothing and imports no family.
"""

from __future__ import annotations

from horizax.core import registry


def register_families() -> None:
    """Registers every family's ids and aliases (the registry calls this once, lazily)."""
    from horizax.grid import registry as grid
    from horizax.maze import registration as maze
    from horizax.orbital import registration as orbital

    for family in (grid, maze, orbital):
        registry.register_all(family.ENVIRONMENTS, family.ALIASES)


def family_catalog() -> list[registry.Family]:
    """Every family with its ids and one-line summary, in registration order (gridworlds,
    the Maze, the orbital games); each summary is the family's own docstring's first line."""
    from horizax.grid import registry as grid
    from horizax.maze import registration as maze
    from horizax.orbital import registration as orbital

    return [*grid.families(), *maze.families(), *orbital.families()]
