"""`LeadInterceptPursuer`: a full-budget impulse toward where the opponent will be next step.

The opponent's next position is predicted by a straight-line drift, ``p + v dt`` (not the
HCW transition), and every step spends the whole ``max_dv_mps`` along the line to it. The
policy reads the flat observation as orbitalgym's one-on-one RTN layout, ``[own (6),
opponent (6), ...]``: the first two state slots of observer 0's row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.policies.heuristic._checks import (
    check_count,
    check_number,
    require_command_cls,
)
from horizax.orbital.registry import PolicyKey, register

__all__ = ["LeadInterceptPursuer", "first_two_states"]


def first_two_states(owner: str, agent_view: Any) -> tuple[Array, Array]:
    """``(own f32[6], other f32[6])``: the first two 6-number slots of a flat observation.

    In orbitalgym's flat layout these are observer 0's own state and the next vehicle's: the
    opponent when the side has one vehicle, a teammate otherwise.

    Raises:
        ValueError: a view with fewer than 12 numbers.
    """
    flat = jnp.asarray(agent_view)
    if flat.ndim != 1 or flat.shape[0] < 12:
        raise ValueError(
            f"{owner} reads a flat observation [own (6), opponent (6), ...]; got shape {flat.shape}"
        )
    return flat[0:6], flat[6:12]


def broadcast_command(dv: Array, command_cls: Any, n_vehicles: int) -> Any:
    """The side's command with the same ``dv`` (cut to the command's width) for every vehicle."""
    template = command_cls.zeros(n_vehicles)
    width = template.dv.shape[-1]
    return template.replace(dv=jnp.broadcast_to(dv[:width], (n_vehicles, width)))


@register(PolicyKey.LEAD_INTERCEPT_PURSUER)
@dataclass(frozen=True)
class LeadInterceptPursuer:
    """Close on the opponent at full budget, aiming one step ahead of it.

    Attributes:
        max_dv_mps: the impulse spent every step, m/s.
        dt: s, the lead time of the prediction.
        n_vehicles: vehicles on the side; all issue the same impulse (filled by the env).
        command_cls: the side's command class (filled by the env).

    Call: ``(policy_state, agent_view f32[D], key, t) -> (command, policy_state)``; the
    state passes through, ``dv`` is ``max_dv_mps`` along ``p_opp + v_opp dt - p_own``.
    """

    max_dv_mps: float = 0.05
    dt: float = 10.0
    n_vehicles: int = 0
    command_cls: Any = None

    def __post_init__(self) -> None:
        check_number("LeadInterceptPursuer", "max_dv_mps", self.max_dv_mps)
        check_number("LeadInterceptPursuer", "dt", self.dt)
        check_count("LeadInterceptPursuer", "n_vehicles", self.n_vehicles, minimum=0)

    def __call__(self, policy_state: Any, agent_view: Any, key: Array, t: Array) -> tuple[Any, Any]:
        """One decision (see the class docstring)."""
        del key, t
        command_cls = require_command_cls("LeadInterceptPursuer", self.command_cls)
        own, opponent = first_two_states("LeadInterceptPursuer", agent_view)
        aim = opponent[0:3] + opponent[3:6] * self.dt - own[0:3]
        dv = aim / (jnp.linalg.norm(aim) + 1e-9) * self.max_dv_mps
        return broadcast_command(dv, command_cls, self.n_vehicles), policy_state
