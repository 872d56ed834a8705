"""Small configurations shared by the orbital tests (no game-specific builders)."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax.numpy as jnp

from horizax.orbital.config import ScenarioConfig, VehicleParamsSpec
from horizax.orbital.reference_orbit import ReferenceOrbitState
from horizax.orbital.registry import StateComponentKey as K
from horizax.orbital.sampling import ConstantMass, ICSpec, RelativeEllipse

REFERENCE = ReferenceOrbitState(
    position_eci=jnp.array([7000e3, 0.0, 0.0]), velocity_eci=jnp.array([0.0, 7.5e3, 0.0])
)


def plain_config(**overrides: Any) -> ScenarioConfig:
    """A NoGame scenario: one guard with 10 kg of propellant, one bandit without MASS."""
    kwargs: dict[str, Any] = dict(
        n_guards=1,
        n_bandits=1,
        epoch_mjd_utc=60067.0,
        reference_orbit=REFERENCE,
        guard_components=(K.RTN, K.MASS),
        bandit_components=(K.RTN,),
        guard_params=VehicleParamsSpec(100.0, 220.0, 5.0),
        bandit_params=VehicleParamsSpec(50.0, 200.0, 2.0),
        ic_sampler=ICSpec(
            guard_sampler=RelativeEllipse(
                radial_ellipse_m=1000.0,
                phase_rad=0.0,
                sigma_radial_ellipse_m=10.0,
                mass_sampler=ConstantMass(10.0),
            ),
            bandit_sampler=RelativeEllipse(
                radial_ellipse_m=1000.0, phase_rad=jnp.pi, sigma_radial_ellipse_m=10.0
            ),
        ),
        dt=10.0,
        max_horizon_s=200.0,
    )
    kwargs.update(overrides)
    return ScenarioConfig(**kwargs)


def replace(cfg: ScenarioConfig, **changes: Any) -> ScenarioConfig:
    """`dataclasses.replace`, spelled for the tests."""
    return dataclasses.replace(cfg, **changes)
