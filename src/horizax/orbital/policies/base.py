"""The policy protocol: ``policy(policy_state, agent_view, key, t) -> (command, state)``."""

from __future__ import annotations

from typing import Any, Protocol

from jax import Array

__all__ = ["Policy"]


class Policy(Protocol):
    """A pure callable from ``(policy_state, agent_view, key, t)`` to ``(command,
    next_policy_state)``; ``agent_view`` is the side's flat observation."""

    def __call__(self, policy_state: Any, agent_view: Any, key: Array, t: Array) -> tuple[Any, Any]:
        """One decision."""
        ...
