"""Environment registry: ids, aliases, lazy discovery and did-you-mean errors.

Nothing is registered at import time. The first call to `make` or `registered_ids` imports the
family modules listed in `_PROVIDERS` (each exposes ``ENVIRONMENTS: dict[str, factory]`` and
optionally ``ALIASES: dict[str, str]``) and records their ids.
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

Factory = Callable[..., Any]

_REGISTRY: dict[str, Factory] = {}
_ALIASES: dict[str, str] = {}
_DISCOVERED = False

# Packages whose every module may declare ENVIRONMENTS / ALIASES.
_PROVIDERS: tuple[str, ...] = ("horizax.grid.envs",)
# Single modules that may declare ENVIRONMENTS / ALIASES.
_PROVIDER_MODULES: tuple[str, ...] = ("horizax.maze.environment",)


def register(env_id: str, factory: Factory, *, aliases: tuple[str, ...] = ()) -> None:
    """Registers ``factory`` under ``env_id`` (and optional aliases).

    Raises:
        ValueError: if the id or an alias is already taken by another factory.
    """
    if env_id in _REGISTRY and _REGISTRY[env_id] is not factory:
        raise ValueError(f"environment id {env_id!r} is already registered")
    _REGISTRY[env_id] = factory
    for alias in aliases:
        if alias in _ALIASES and _ALIASES[alias] != env_id:
            raise ValueError(f"alias {alias!r} already points to {_ALIASES[alias]!r}")
        _ALIASES[alias] = env_id


def _load(module: Any) -> None:
    for env_id, factory in getattr(module, "ENVIRONMENTS", {}).items():
        register(env_id, factory)
    for alias, target in getattr(module, "ALIASES", {}).items():
        _ALIASES[alias] = target


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    for package_name in _PROVIDERS:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                _load(importlib.import_module(f"{package_name}.{info.name}"))
    for module_name in _PROVIDER_MODULES:
        _load(importlib.import_module(module_name))
    _DISCOVERED = True


def registered_ids(*, include_aliases: bool = False) -> list[str]:
    """Sorted list of registered environment ids (aliases too if asked)."""
    _discover()
    ids = set(_REGISTRY)
    if include_aliases:
        ids |= set(_ALIASES)
    return sorted(ids)


def resolve(env_id: str) -> str:
    """The canonical id for ``env_id`` (itself or the id an alias points to).

    Raises:
        ValueError: for an unknown id, naming the closest registered ids.
    """
    _discover()
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
        ValueError: unknown id (with suggestions) or invalid overrides.
    """
    return _REGISTRY[resolve(env_id)](**overrides)
