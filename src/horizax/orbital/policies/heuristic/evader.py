"""`OrthogonalEvader`: a constant-size impulse at right angles to the relative velocity.

The direction is the along-track axis with its component along the relative velocity
``v_opp - v_own`` removed; where that leaves nothing (the relative velocity along-track,
or zero) the radial axis, treated the same way, is used. Positions play no part. The flat
observation is read as orbitalgym's one-on-one RTN layout, ``[own (6), opponent (6), ...]``.
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
from horizax.orbital.policies.heuristic.lead_intercept import broadcast_command, first_two_states
from horizax.orbital.registry import PolicyKey, register

__all__ = ["OrthogonalEvader"]


@register(PolicyKey.ORTHOGONAL_EVADER)
@dataclass(frozen=True)
class OrthogonalEvader:
    """Sidestep the opponent's approach by thrusting across the relative velocity.

    With zero relative velocity the along-track axis would be "orthogonal" to it but the
    projection used here leaves nothing of it, so the impulse is radial, as in orbitalgym.

    Attributes:
        max_dv_mps: the impulse spent every step, m/s.
        n_vehicles: vehicles on the side; all issue the same impulse (filled by the env).
        command_cls: the side's command class (filled by the env).

    Call: ``(policy_state, agent_view f32[D], key, t) -> (command, policy_state)``.
    """

    max_dv_mps: float = 0.05
    n_vehicles: int = 0
    command_cls: Any = None

    def __post_init__(self) -> None:
        check_number("OrthogonalEvader", "max_dv_mps", self.max_dv_mps)
        check_count("OrthogonalEvader", "n_vehicles", self.n_vehicles, minimum=0)

    def __call__(self, policy_state: Any, agent_view: Any, key: Array, t: Array) -> tuple[Any, Any]:
        """One decision (see the class docstring)."""
        del key, t
        command_cls = require_command_cls("OrthogonalEvader", self.command_cls)
        own, opponent = first_two_states("OrthogonalEvader", agent_view)
        dtype = own.dtype
        along = jnp.array([0.0, 1.0, 0.0], dtype)
        radial = jnp.array([1.0, 0.0, 0.0], dtype)
        rel_v = opponent[3:6] - own[3:6]
        speed = jnp.linalg.norm(rel_v)
        # A zero relative velocity takes the along-track axis as its direction, which the
        # projection below then cancels: the radial axis is what comes out.
        unit_v = jnp.where(speed > 1e-9, rel_v / (speed + 1e-12), along)
        across = along - jnp.dot(along, unit_v) * unit_v
        fallback = radial - jnp.dot(radial, unit_v) * unit_v
        ortho = jnp.where(jnp.linalg.norm(across) > 1e-6, across, fallback)
        dv = ortho / (jnp.linalg.norm(ortho) + 1e-12) * self.max_dv_mps
        return broadcast_command(dv, command_cls, self.n_vehicles), policy_state
