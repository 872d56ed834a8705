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


def factory(
    env_id: str,
    layout_options: tuple[Callable[..., Any], frozenset[str]] | None = None,
    **defaults: Any,
) -> Callable[..., Environment]:
    """A factory building `Environment(**defaults)` with user overrides applied.

    Args:
        env_id: the id recorded in ``Environment.env_id``.
        layout_options: ``(make_layout, names)``: the family's layout arguments that users may
            pass as overrides, as MiniGrid's constructor takes them (FourRooms' ``agent_pos``
            and ``goal_pos``); given any, ``layout_fn = make_layout(**those)``.
        **defaults: every `Environment` field the family fixes (layout_fn, sizes, ...).

    Returns:
        ``make(**overrides) -> Environment``; raises `ValueError` naming unknown overrides.
    """
    make_layout, layout_names = layout_options or (None, frozenset())
    allowed = OVERRIDABLE | layout_names

    def make(**overrides: Any) -> Environment:
        unknown = sorted(set(overrides) - allowed)
        if unknown:
            raise ValueError(f"{env_id}: unknown override(s) {unknown}; allowed: {sorted(allowed)}")
        layout_args = {k: overrides.pop(k) for k in layout_names & set(overrides)}
        if make_layout is not None and any(v is not None for v in layout_args.values()):
            overrides["layout_fn"] = make_layout(**layout_args)
        if "max_steps" in overrides:  # a fixed limit for every episode, as in MiniGrid
            overrides["episode_max_steps"] = None
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
