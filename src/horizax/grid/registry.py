"""The gridworld ids: an explicit list of the family modules whose environments are registered.

Each module of `horizax.grid.envs` listed here defines ``ENVIRONMENTS`` (id -> factory) and
optionally ``ALIASES`` (alias -> id); their union is this family's registration. Importing
this module imports every gridworld family, so only `horizax.families` does, on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from horizax.core.registry import Family, family_from_doc
from horizax.grid.envs import (
    babyai_door_order,
    babyai_doors,
    babyai_findobj,
    babyai_goto,
    babyai_keycorridor,
    babyai_levelgen,
    babyai_locked_maze,
    babyai_maze,
    babyai_oneroom,
    babyai_pickup,
    babyai_putnext,
    babyai_putnext_across,
    babyai_unlock,
    crossing,
    distshift,
    doorkey,
    dynamic_obstacles,
    empty,
    fetch,
    fourrooms,
    gotodoor,
    gotoobject,
    keycorridor,
    lavagap,
    lockedroom,
    memory,
    multiroom,
    obstructedmaze,
    playground,
    putnear,
    redbluedoors,
    unlock,
    wfc,
)

FAMILY_MODULES: tuple[ModuleType, ...] = (
    crossing,
    distshift,
    doorkey,
    dynamic_obstacles,
    empty,
    fetch,
    fourrooms,
    gotodoor,
    gotoobject,
    keycorridor,
    lavagap,
    lockedroom,
    memory,
    multiroom,
    obstructedmaze,
    playground,
    putnear,
    redbluedoors,
    unlock,
    wfc,
    babyai_goto,  # BabyAI's levels after MiniGrid's classic families
    babyai_pickup,
    babyai_putnext,
    babyai_oneroom,
    babyai_doors,
    babyai_door_order,
    babyai_unlock,
    babyai_putnext_across,
    babyai_keycorridor,
    babyai_findobj,
    babyai_maze,
    babyai_locked_maze,
    babyai_levelgen,
)


def _union(name: str) -> dict[str, Any]:
    """The union of the modules' ``name`` dicts; a key in two modules raises ValueError."""
    out: dict[str, Any] = {}
    for module in FAMILY_MODULES:
        table: Mapping[str, Any] = getattr(module, name, {})
        for key, value in table.items():
            if key in out:
                raise ValueError(f"{key!r} is defined twice in {name} ({module.__name__})")
            out[key] = value
    return out


ENVIRONMENTS: dict[str, Callable[..., Any]] = _union("ENVIRONMENTS")
ALIASES: dict[str, str] = _union("ALIASES")


def families() -> list[Family]:
    """One `Family` per module, named and summarised by its docstring's first line."""
    return [
        family_from_doc(module.__doc__, "gridworld", module.ENVIRONMENTS)
        for module in FAMILY_MODULES
    ]
