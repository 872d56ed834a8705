"""Turning a family's layout into registered, overridable environment factories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from horizax.grid.environment import Environment

# Configuration a user may override through `horizax.make(id, **overrides)`.
OVERRIDABLE = frozenset(
    {
        "max_steps",
        "observation_fn",
        "reward_fn",
        "termination_fn",
        "autoreset",
        "autoreset_rounds",
        "observation_space_override",
    }
)


def factory(env_id: str, **defaults: Any) -> Callable[..., Environment]:
    """A factory building `Environment(**defaults)` with user overrides applied.

    Args:
        env_id: the id recorded in ``Environment.env_id``.
        **defaults: every `Environment` field the family fixes (layout_fn, sizes, ...).

    Returns:
        ``make(**overrides) -> Environment``; raises `ValueError` naming unknown overrides.
    """

    def make(**overrides: Any) -> Environment:
        unknown = sorted(set(overrides) - OVERRIDABLE)
        if unknown:
            raise ValueError(
                f"{env_id}: unknown override(s) {unknown}; allowed: {sorted(OVERRIDABLE)}"
            )
        return Environment(**{**defaults, **overrides, "env_id": env_id})

    make.__name__ = f"make_{env_id}"
    return make


def navix_aliases(env_ids: list[str] | tuple[str, ...]) -> dict[str, str]:
    """``Navix-<name>`` aliases for ``MiniGrid-<name>`` ids."""
    return {
        "Navix-" + env_id.removeprefix("MiniGrid-"): env_id
        for env_id in env_ids
        if env_id.startswith("MiniGrid-")
    }
