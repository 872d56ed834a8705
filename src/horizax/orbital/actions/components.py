"""The action components: the impulsive manoeuvre and the broadcast (`Communicate`).

**The impulsive manoeuvre**: a commanded velocity change, clipped by thrust and propellant.

Per step and vehicle, with ``m_wet = dry + propellant`` (``dry`` without the MASS
component):

* ``|dv|`` is clipped to ``min(max_thrust * dt / m_wet, Isp g0 ln(m_wet / dry))`` (the
  second term, the rocket equation's reach, is infinite without MASS), keeping the direction;
* the propellant drops by ``m_wet (1 - exp(-|dv| / (Isp g0)))``, floored at zero.

A command that is not finite (NaN or infinite in any component) is applied as no thrust and
flagged (``invalid`` below; `StepOutput.info["invalid_action"]`), so a bad action never
turns the state into NaN. orbitalgym has no such rule: NaN propagates into its state. A
finite command whose float32 norm overflows (beyond about 1.8e19 m/s) counts as not finite:
orbitalgym applies it as no thrust too, but books NaN propellant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.registry import ActionComponentKey, register

__all__ = ["G0", "PAYLOAD_DIM", "Communicate", "apply_impulse"]

G0 = 9.80665
"""Standard gravity (m/s^2), for the specific impulse."""


def apply_impulse(
    dv: Array,
    propellant_mass: Array | None,
    dry_mass_kg: float,
    isp_s: float,
    max_thrust_n: float,
    dt: float,
) -> tuple[Array, Array | None, Array]:
    """Clips the commanded ``dv`` and books its propellant.

    Args:
        dv: f[n, dim], the commanded velocity change (m/s).
        propellant_mass: f[n] (kg), or None when the side does not track mass.
        dry_mass_kg: the dry mass.
        isp_s: specific impulse (s).
        max_thrust_n: the engine's thrust (N); one step delivers at most ``thrust * dt``.
        dt: the step (s).

    Returns:
        ``(applied f[n, dim], propellant after f[n] or None, invalid bool[n])``.
    """
    dtype = dv.dtype
    # One test covers a non-finite component and a finite command whose float32 norm
    # overflows (beyond ~1.8e19 m/s, where limit / |dv| would be 0 and the booked propellant
    # NaN): both are no thrust, flagged. Valid commands keep orbitalgym's arithmetic.
    raw = jnp.linalg.norm(dv, axis=-1)
    invalid = ~jnp.isfinite(raw)
    dv = jnp.where(invalid[:, None], jnp.zeros_like(dv), dv)
    magnitude = jnp.where(invalid, jnp.zeros_like(raw), raw)
    dry = jnp.asarray(dry_mass_kg, dtype)
    # The product in Python first, rounded once (orbitalgym's order: one ulp decides whether a
    # tank that burns its last gram reads exactly 0, which the empty-tank repel tests).
    isp_g0 = jnp.asarray(isp_s * G0, dtype)
    if propellant_mass is not None:
        wet = dry + propellant_mass
        reachable = isp_g0 * jnp.log(wet / dry)
    else:
        wet = jnp.broadcast_to(dry, magnitude.shape)
        reachable = jnp.full_like(magnitude, jnp.inf)
    limit = jnp.minimum(jnp.asarray(max_thrust_n, dtype) * dt / wet, reachable)
    safe = jnp.maximum(magnitude, jnp.asarray(1e-12, dtype))
    scale = jnp.where(magnitude > 0.0, jnp.minimum(1.0, limit / safe), 1.0)
    applied = dv * scale[:, None]
    if propellant_mass is None:
        return applied, None, invalid
    used = wet * (1.0 - jnp.exp(-(magnitude * scale) / isp_g0))
    return applied, jnp.maximum(propellant_mass - used, 0.0), invalid


def command_dim(frame: Any) -> int:
    """Width of a command's ``dv`` in ``frame`` (2 for RT, 3 for RTN)."""
    return frame.dim


PAYLOAD_DIM = 6
"""Width of `Communicate`'s ``payload`` per vehicle (an RTN position and velocity)."""


@register(ActionComponentKey.COMMUNICATE)
@dataclass(frozen=True)
class Communicate:
    """The broadcast: each vehicle says whether it transmits this step, and what.

    It adds two fields to its side's command (`horizax.orbital.env.types.command_class`):

    * ``active``: bool[n], whether each vehicle broadcasts this step (identity: False);
    * ``payload``: f32[n, 6], what it broadcasts, e.g. its estimate of an RTN state
      (identity: zeros). The width is fixed so a command's pytree shape is static.

    Broadcasting moves nothing and costs no propellant: `apply` returns the side's state
    unchanged. Its effects are what other components read from the command:
    `LbgWithCommsReward` charges ``comm_cost`` per active guard. No bundled observation or
    reward reads ``payload`` (nor does orbitalgym's); it is carried for parity and for
    user code.
    """

    def fields(self) -> Mapping[str, tuple[int, ...]]:
        """Per-vehicle shape of each field: ``{"active": (), "payload": (6,)}``."""
        return {"active": (), "payload": (PAYLOAD_DIM,)}

    def zeros(self, n: int) -> dict[str, Array]:
        """The silent command of ``n`` vehicles: ``active`` bool[n] False, ``payload``
        f32[n, 6] zeros."""
        return {
            "active": jnp.zeros((n,), jnp.bool_),
            "payload": jnp.zeros((n, PAYLOAD_DIM), jnp.float32),
        }

    def apply(self, command: Any, side_state: Any, *args: Any) -> Any:
        """``side_state`` unchanged: a broadcast changes no vehicle's state.

        ``*args`` takes orbitalgym's ``(side_params, dt, ref_eci6, key)``; all are ignored.
        """
        del command, args
        return side_state
