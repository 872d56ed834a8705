"""`ZeroControl`: the policy that never thrusts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jax import Array

from horizax.orbital.registry import PolicyKey, register

__all__ = ["ZeroControl"]


@register(PolicyKey.ZERO_CONTROL)
@dataclass(frozen=True)
class ZeroControl:
    """Emits the identity command of its side.

    A policy is ``policy(policy_state, agent_view, key, t) -> (command, policy_state)``. The
    environment fills ``command_cls`` and ``n_vehicles`` (`dataclasses.replace`) for the side
    it drives.
    """

    command_cls: Any = None
    n_vehicles: int = 0

    def __call__(self, policy_state: Any, agent_view: Any, key: Array, t: Array) -> tuple[Any, Any]:
        del agent_view, key, t
        if self.command_cls is None:
            raise ValueError(
                "ZeroControl has no command_cls yet: use it through OrbitalGymEnv or "
                "SingleAgentView, or pass ZeroControl(command_cls=..., n_vehicles=...)"
            )
        return self.command_cls.zeros(self.n_vehicles), policy_state
