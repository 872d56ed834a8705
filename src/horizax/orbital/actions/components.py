"""The impulsive manoeuvre: a commanded velocity change, clipped by thrust and propellant.

Per step and vehicle, with ``m_wet = dry + propellant`` (``dry`` without the MASS
component):

* ``|dv|`` is clipped to ``min(max_thrust * dt / m_wet, Isp g0 ln(m_wet / dry))`` (the
  second term, the rocket equation's reach, is infinite without MASS), keeping the direction;
* the propellant drops by ``m_wet (1 - exp(-|dv| / (Isp g0)))``, floored at zero.

A command that is not finite (NaN or infinite in any component) is applied as no thrust and
flagged (``invalid`` below; `StepOutput.info["invalid_action"]`), so a bad action never
turns the state into NaN. orbitalgym has no such rule: NaN propagates into its state.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import Array

__all__ = ["G0", "apply_impulse"]

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
    invalid = ~jnp.all(jnp.isfinite(dv), axis=-1)
    dv = jnp.where(invalid[:, None], jnp.zeros_like(dv), dv)
    magnitude = jnp.linalg.norm(dv, axis=-1)
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
