"""`SunTrackerBlocker`: thrust along a fixed Sun line, toward the opponent's side of it.

orbitalgym's teaching blocker for Sun-Blocking: the Sun's direction is a static RTN vector
(the true one turns once per orbit in RTN), and every step the policy spends its full
impulse along that line, signed by where the opponent lies along it, so it keeps closing on
the opponent's Sun side. The flat observation is read as ``[own (6), opponent (6), ...]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.orbital.policies.heuristic._checks import (
    check_count,
    check_number,
    require_command_cls,
)
from horizax.orbital.policies.heuristic.lead_intercept import broadcast_command, first_two_states
from horizax.orbital.registry import PolicyKey, register

__all__ = ["SunTrackerBlocker"]


@register(PolicyKey.SUN_TRACKER_BLOCKER)
@dataclass(frozen=True)
class SunTrackerBlocker:
    """Full impulse along the Sun line, toward the opponent's projection on it.

    Attributes:
        sun_dir_rtn: the Sun's direction in RTN (3 finite numbers, not all zero; normalised
            when used). A tuple, so the policy stays hashable static configuration.
        max_dv_mps: the impulse spent every step, m/s.
        n_vehicles: vehicles on the side; all issue the same impulse (filled by the env).
        command_cls: the side's command class (filled by the env).

    Call: ``(policy_state, agent_view f32[D], key, t) -> (command, policy_state)``. When the
    opponent lies exactly across the line (projection within 1e-9 m) it thrusts sunward.
    """

    sun_dir_rtn: tuple[float, float, float] = (1.0, 0.0, 0.0)
    max_dv_mps: float = 0.05
    n_vehicles: int = 0
    command_cls: Any = None

    def __post_init__(self) -> None:
        # numpy, not jnp: building a policy must not touch a JAX device.
        try:
            values = np.asarray(self.sun_dir_rtn, np.float64).reshape(-1)
        except (TypeError, ValueError):
            values = np.array([np.nan])  # not numbers: reported below, naming the field
        direction = tuple(float(x) for x in values)
        finite = all(math.isfinite(x) for x in direction)
        if len(direction) != 3 or not finite or not any(direction):
            raise ValueError(
                "SunTrackerBlocker.sun_dir_rtn must be 3 finite numbers, not all zero; "
                f"got {self.sun_dir_rtn!r}"
            )
        object.__setattr__(self, "sun_dir_rtn", direction)
        check_number("SunTrackerBlocker", "max_dv_mps", self.max_dv_mps)
        check_count("SunTrackerBlocker", "n_vehicles", self.n_vehicles, minimum=0)

    def __call__(self, policy_state: Any, agent_view: Any, key: Array, t: Array) -> tuple[Any, Any]:
        """One decision (see the class docstring)."""
        del key, t
        command_cls = require_command_cls("SunTrackerBlocker", self.command_cls)
        own, opponent = first_two_states("SunTrackerBlocker", agent_view)
        sun = jnp.asarray(self.sun_dir_rtn, own.dtype)
        sun = sun / (jnp.linalg.norm(sun) + 1e-12)
        along = jnp.dot(opponent[:3] - own[:3], sun)
        sign = jnp.where(jnp.abs(along) > 1e-9, jnp.sign(along), 1.0)
        dv = sun * sign * self.max_dv_mps
        return broadcast_command(dv, command_cls, self.n_vehicles), policy_state
