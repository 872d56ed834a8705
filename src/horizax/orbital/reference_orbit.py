"""The reference orbit that the relative (RTN) frame rides on, and its two-body motion.

orbitalgym integrates the reference orbit with RK4 on every step, even where nothing reads
it; horizax keeps the reference orbit of the episode's start in the state and propagates it
in closed form (Kepler's equation) only when asked, `reference_orbit_at`.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass

__all__ = [
    "MU_EARTH",
    "ReferenceOrbitState",
    "mean_motion",
    "reference_orbit_at",
    "rotation_rtn_to_eci",
]

MU_EARTH = 3.986004418e14
"""Earth's gravitational parameter, m^3/s^2 (EGM-96/WGS-84)."""

_KEPLER_ITERATIONS = 8  # Newton on E - e sin E = M: quadratic, so 8 is far past f64 accuracy


@pytree_dataclass
class ReferenceOrbitState(Replaceable):
    """The reference spacecraft's absolute state.

    Attributes:
        position_eci: f[3], ECI position (m).
        velocity_eci: f[3], ECI velocity (m/s).
    """

    position_eci: Array
    velocity_eci: Array


def mean_motion(reference: ReferenceOrbitState) -> float:
    """The reference orbit's mean motion ``n = sqrt(mu / a^3)`` (rad/s), with the semi-major
    axis from vis-viva, ``1/a = 2/r - v^2/mu``, computed in float64 on the host.

    Raises:
        ValueError: if the orbit is not bound (``a <= 0``: parabolic or hyperbolic).
    """
    r = float(np.linalg.norm(np.asarray(reference.position_eci, np.float64)))
    v = float(np.linalg.norm(np.asarray(reference.velocity_eci, np.float64)))
    inverse_a = 2.0 / r - v * v / MU_EARTH
    if not inverse_a > 0:
        raise ValueError(
            f"reference_orbit is not a bound orbit (r={r} m, v={v} m/s); "
            "HCW needs an elliptical reference"
        )
    return math.sqrt(MU_EARTH * inverse_a**3)


def reference_orbit_at(reference: ReferenceOrbitState, t: Array) -> ReferenceOrbitState:
    """The two-body motion of ``reference`` after ``t`` seconds, in closed form.

    Solves Kepler's equation by Newton's method from the mean anomaly and maps back with the
    Lagrange f and g coefficients; elliptical orbits only (as HCW needs). Works under `jit`
    and `vmap`; the dtype follows ``reference``'s.

    Args:
        reference: the state at time 0.
        t: f[], seconds since then.
    """
    r0 = reference.position_eci
    v0 = reference.velocity_eci
    mu = MU_EARTH
    r0n = jnp.linalg.norm(r0)
    v0sq = jnp.dot(v0, v0)
    sigma0 = jnp.dot(r0, v0) / jnp.sqrt(mu)
    alpha = 2.0 / r0n - v0sq / mu  # 1/a
    a = 1.0 / alpha
    n = jnp.sqrt(mu * alpha**3)
    # Eccentric-anomaly increment dE solves n t = dE - (1 - r0/a) sin dE + sigma0/sqrt(a)
    # (1 - cos dE), Kepler's equation written relative to the start.
    ecos = 1.0 - r0n * alpha
    esin = sigma0 * jnp.sqrt(alpha)
    m = n * t
    d_e = m
    for _ in range(_KEPLER_ITERATIONS):
        s, c = jnp.sin(d_e), jnp.cos(d_e)
        f = d_e - ecos * s + esin * (1.0 - c) - m
        df = 1.0 - ecos * c + esin * s
        d_e = d_e - f / df
    s, c = jnp.sin(d_e), jnp.cos(d_e)
    r = a + (r0n - a) * c + sigma0 * jnp.sqrt(a) * s
    f_coef = 1.0 - a / r0n * (1.0 - c)
    g_coef = t - jnp.sqrt(a**3 / mu) * (d_e - s)
    fdot = -jnp.sqrt(mu * a) / (r * r0n) * s
    gdot = 1.0 - a / r * (1.0 - c)
    return ReferenceOrbitState(
        position_eci=f_coef * r0 + g_coef * v0, velocity_eci=fdot * r0 + gdot * v0
    )


def rotation_rtn_to_eci(reference: ReferenceOrbitState) -> Array:
    """f[3, 3]: the rotation taking RTN vectors to ECI at ``reference``, columns R, T, N.

    ``R = r / |r|`` (radial), ``N = r x v / |r x v|`` (orbit normal), ``T = N x R``
    (along-track), so ``eci = reference.position_eci + rotation @ rtn``.
    """
    r = reference.position_eci
    h = jnp.cross(r, reference.velocity_eci)
    radial = r / jnp.linalg.norm(r)
    normal = h / jnp.linalg.norm(h)
    along = jnp.cross(normal, radial)
    return jnp.stack([radial, along, normal], axis=-1)
