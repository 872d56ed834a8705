"""`RelativeEllipse`: bounded relative orbits drawn by their size and phase.

A vehicle on a closed HCW ellipse of radial half-size ``R``, cross-track amplitude ``C`` and
along-track offset ``A``, at phase ``phi``, with secular drift ``d`` metres per orbit
(``da = d / 2 pi``), has the RTN state

    r = -R cos(phi) + da        t = 2 R sin(phi) + A        n = C sin(phi)
    dr = n_m R sin(phi)         dt = 2 n_m R cos(phi) - 1.5 n_m da      dn = n_m C cos(phi)

with ``n_m`` the reference orbit's mean motion. The key is split as orbitalgym splits it, so
a configuration draws the same initial states here as there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.core import threefry
from horizax.orbital.reference_orbit import mean_motion
from horizax.orbital.registry import SideSamplerKey, StateComponentKey, register
from horizax.orbital.sampling.mass import ConstantMass, UniformMass
from horizax.orbital.state import components as side_states

__all__ = ["RelativeEllipse"]


def _per_vehicle(value: Any, n: int, name: str) -> Array:
    array = jnp.asarray(value, jnp.float32)
    if array.ndim == 0:
        return jnp.broadcast_to(array, (n,))
    if array.shape == (n,):
        return array
    raise ValueError(
        f"RelativeEllipse.{name} must be a scalar or have shape ({n},), got {array.shape}"
    )


def _spread(value: Array, sigma: Any, key: Array, n: int, name: str) -> Array:
    """``value + sigma * N(0, 1)``; a spread that is a Python zero draws nothing (the same
    values: ``x + 0 * z == x``), which spares a reset two Threefry calls per side."""
    if isinstance(sigma, int | float) and sigma == 0:
        return value
    return value + _per_vehicle(sigma, n, name) * threefry.normal(key, (n,))


@register(SideSamplerKey.RELATIVE_ELLIPSE)
@dataclass(frozen=True)
class RelativeEllipse:
    """Side sampler of bounded relative orbits (all lengths in m; scalars or f32[n]).

    Attributes:
        radial_ellipse_m: R, the radial half-size of the ellipse.
        cross_track_m: C, the cross-track amplitude.
        along_track_offset_m: A, the along-track centre.
        along_track_drift_m_per_orbit: d, the secular drift (0: a closed ellipse).
        sigma_radial_ellipse_m: Gaussian spread added to R.
        sigma_cross_track_m: spread added to C.
        sigma_along_track_offset_m: spread added to A.
        phase_rad: phi; None draws it uniformly in [0, 2 pi) per vehicle.
        mass_sampler: the propellant sampler, required when the side has MASS.
    """

    radial_ellipse_m: Any = 0.0
    cross_track_m: Any = 0.0
    along_track_offset_m: Any = 0.0
    along_track_drift_m_per_orbit: Any = 0.0
    sigma_radial_ellipse_m: Any = 0.0
    sigma_cross_track_m: Any = 0.0
    sigma_along_track_offset_m: Any = 0.0
    phase_rad: Any = None
    mass_sampler: ConstantMass | UniformMass | None = None

    def __call__(
        self,
        config: Any,
        key: Array,
        *,
        n_vehicles: int,
        components: Sequence[StateComponentKey],
        class_name: str = "",
    ) -> side_states.SideState:
        """Draws the states of ``n_vehicles`` vehicles with the given components."""
        del class_name
        n = n_vehicles
        k_extents, k_phase, k_mass, _ = threefry.split(key, 4)
        n_m = mean_motion(config.reference_orbit)
        k1, k2, k3 = threefry.split(k_extents, 3)
        radial = _per_vehicle(self.radial_ellipse_m, n, "radial_ellipse_m")
        cross = _per_vehicle(self.cross_track_m, n, "cross_track_m")
        along = _per_vehicle(self.along_track_offset_m, n, "along_track_offset_m")
        drift = _per_vehicle(self.along_track_drift_m_per_orbit, n, "drift")
        radial = _spread(radial, self.sigma_radial_ellipse_m, k1, n, "sigma_radial_ellipse_m")
        cross = _spread(cross, self.sigma_cross_track_m, k2, n, "sigma_cross_track_m")
        along = _spread(along, self.sigma_along_track_offset_m, k3, n, "sigma_along_track_offset_m")
        if self.phase_rad is None:
            phase = threefry.uniform(k_phase, (n,), minval=0.0, maxval=2 * jnp.pi)
        else:
            phase = _per_vehicle(self.phase_rad, n, "phase_rad")
        da = drift / (2.0 * jnp.pi)
        cp, sp = jnp.cos(phase), jnp.sin(phase)
        r, t, nn = -radial * cp + da, 2.0 * radial * sp + along, cross * sp
        dr = n_m * radial * sp
        dt = 2.0 * n_m * radial * cp - 1.5 * n_m * da
        dn = n_m * cross * cp
        components_tuple = tuple(components)
        side = side_states.zeros(components_tuple, n)
        if side.rtn is not None:
            side = side.replace(rtn=jnp.stack([r, t, nn, dr, dt, dn], axis=-1))
        if side.rt is not None:
            side = side.replace(rt=jnp.stack([r, t, dr, dt], axis=-1))
        if StateComponentKey.MASS in components_tuple:
            if self.mass_sampler is None:
                raise ValueError(
                    "the side has the MASS component but its RelativeEllipse has no "
                    "mass_sampler (use ConstantMass(...) or UniformMass(...))"
                )
            side = side.replace(
                propellant_mass=jnp.asarray(
                    self.mass_sampler(n_vehicles=n, key=k_mass), jnp.float32
                )
            )
        return side
