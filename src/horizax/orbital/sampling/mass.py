"""Propellant-mass samplers: ``sampler(n_vehicles, key) -> f32[n_vehicles]`` (kg)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import jax.numpy as jnp
from jax import Array

from horizax.core import threefry
from horizax.orbital.registry import MassSamplerKey, register

__all__ = ["ConstantMass", "UniformMass"]


@register(MassSamplerKey.CONSTANT)
@dataclass(frozen=True)
class ConstantMass:
    """Every vehicle starts with ``propellant_mass_kg`` (>= 0)."""

    propellant_mass_kg: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.propellant_mass_kg) and self.propellant_mass_kg >= 0):
            raise ValueError(
                f"propellant_mass_kg must be finite and >= 0, got {self.propellant_mass_kg}"
            )

    def __call__(self, n_vehicles: int, key: Array) -> Array:
        del key
        return jnp.full((n_vehicles,), self.propellant_mass_kg, jnp.float32)


@register(MassSamplerKey.UNIFORM)
@dataclass(frozen=True)
class UniformMass:
    """Each vehicle's propellant uniform in ``[low_kg, high_kg]`` (0 <= low <= high)."""

    low_kg: float
    high_kg: float

    def __post_init__(self) -> None:
        if not 0 <= self.low_kg <= self.high_kg < math.inf:
            raise ValueError(
                f"UniformMass needs 0 <= low_kg <= high_kg < inf, got {self.low_kg}, {self.high_kg}"
            )

    def __call__(self, n_vehicles: int, key: Array) -> Array:
        return threefry.uniform(key, (n_vehicles,), minval=self.low_kg, maxval=self.high_kg)
