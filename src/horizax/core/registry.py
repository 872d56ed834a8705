"""Environment registry: ids, aliases, lazy loading and did-you-mean errors.

Generic: it names no family. The package above adds a source (`horizax.families`), a
function that registers each family's explicit lists of ids; sources run once, on the first
call to `make`, `resolve` or `registered_ids`, so nothing is registered at import time.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

Factory = Callable[..., Any]


@dataclasses.dataclass(frozen=True)
class Family:
    """A family of environments as listings show it (``horizax list --family``).

    Attributes:
        name: the family's name, e.g. ``"DoorKey"``, ``"Maze"``, ``"LadyBanditGuard"``.
        group: the kind of environment it belongs to: ``"gridworld"``, ``"maze"``, ...
        summary: one line saying what the task is, from the family's own docstring.
        env_ids: its registered ids (aliases excluded), sorted.
    """

    name: str
    group: str
    summary: str
    env_ids: tuple[str, ...]


def family_from_doc(
    doc: str | None, group: str, env_ids: Iterable[str], *, name: str | None = None
) -> Family:
    """A `Family` described by the first line of a docstring.

    A first line ``"DoorKey: pick up the key, ..."`` gives the name ``DoorKey`` (the first
    of several comma-separated names) and the summary after the colon; with ``name`` given,
    the whole first line is the summary.

    Raises:
        ValueError: a docstring without a first line, or without a ``Name:`` heading when
            ``name`` is not given (the family would have no name to list it by).
    """
    # reST literals read as quotes on a terminal: ``done`` -> 'done'.
    first = (doc or "").strip().split("\n", 1)[0].strip().replace("``", "'")
    if name is None:
        heading, colon, first = first.partition(": ")
        name = heading.split(",")[0].strip()
        if not colon or not name or " " in name:
            raise ValueError(f"a family docstring must start with 'Name: summary', got {doc!r}")
    if not first:
        raise ValueError(f"family {name!r} has no docstring summary to list")
    return Family(name, group, first[0].upper() + first[1:], tuple(sorted(env_ids)))


_REGISTRY: dict[str, Factory] = {}
_ALIASES: dict[str, str] = {}
_SOURCES: list[Callable[[], None]] = []
_LOADED = 0  # sources run so far


def register(env_id: str, factory: Factory, *, aliases: tuple[str, ...] = ()) -> None:
    """Registers ``factory`` under ``env_id`` (and optional aliases).

    Raises:
        ValueError: if the id is already taken by another factory or by an alias, or an alias
            collides (see `register_alias`).
    """
    if env_id in _REGISTRY and _REGISTRY[env_id] is not factory:
        raise ValueError(f"environment id {env_id!r} is already registered")
    if env_id in _ALIASES:
        raise ValueError(f"environment id {env_id!r} is already an alias of {_ALIASES[env_id]!r}")
    _REGISTRY[env_id] = factory
    for alias in aliases:
        register_alias(alias, env_id)


def register_alias(alias: str, target: str) -> None:
    """Makes ``alias`` another name of the registered id ``target``.

    Raises:
        ValueError: if ``target`` is not registered, ``alias`` is a registered id, or
            ``alias`` already points to another id (the message names both).
    """
    if target not in _REGISTRY:
        raise ValueError(f"alias {alias!r} points to {target!r}, which is not registered")
    if alias in _REGISTRY:
        raise ValueError(f"alias {alias!r} -> {target!r} collides with the id {alias!r}")
    if _ALIASES.get(alias, target) != target:
        raise ValueError(f"alias {alias!r} points to both {_ALIASES[alias]!r} and {target!r}")
    _ALIASES[alias] = target


def register_all(
    environments: Mapping[str, Factory], aliases: Mapping[str, str] | None = None
) -> None:
    """Registers a family's explicit lists: every id, then every alias."""
    for env_id, factory in environments.items():
        register(env_id, factory)
    for alias, target in (aliases or {}).items():
        register_alias(alias, target)


def add_source(source: Callable[[], None]) -> None:
    """Adds a function that registers environments, run once when ids are first needed."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def _load() -> None:
    global _LOADED
    while len(_SOURCES) > _LOADED:
        # Registering the same factory or alias twice is a no-op, so a failed source reruns.
        _SOURCES[_LOADED]()
        _LOADED += 1


def registered_ids(*, include_aliases: bool = False) -> list[str]:
    """Sorted list of registered environment ids (aliases too if asked)."""
    _load()
    ids = set(_REGISTRY)
    if include_aliases:
        ids |= set(_ALIASES)
    return sorted(ids)


def resolve(env_id: str) -> str:
    """The canonical id for ``env_id`` (itself or the id an alias points to).

    Raises:
        TypeError: if ``env_id`` is not a str.
        ValueError: for an unknown id, naming the closest registered ids.
    """
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a str such as 'MiniGrid-Empty-8x8-v0', got {env_id!r}")
    _load()
    if env_id in _REGISTRY:
        return env_id
    if env_id in _ALIASES:
        return _ALIASES[env_id]
    candidates = registered_ids(include_aliases=True)
    close = difflib.get_close_matches(env_id, candidates, n=5, cutoff=0.5)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise ValueError(
        f"unknown environment id {env_id!r}.{hint} `horizax.registered_ids()` lists them all."
    )


def make(env_id: str, **overrides: Any) -> Any:
    """Builds the environment registered under ``env_id`` (or an alias).

    Args:
        env_id: e.g. ``"MiniGrid-DoorKey-8x8-v0"`` or ``"Navix-DoorKey-8x8-v0"``.
        **overrides: forwarded to the factory, e.g. ``max_steps``, ``observation_fn``,
            ``reward_fn``, ``termination_fn``.

    Raises:
        TypeError: ``env_id`` is not a str, or an override the family does not take.
        ValueError: unknown id (with suggestions) or invalid overrides.
    """
    return _REGISTRY[resolve(env_id)](**overrides)
