"""Initial-condition validators: ``validator(config, guards, bandits) -> bool[]``.

Positions are RTN (an RT state has zero cross-track); the reference orbit is the origin.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.registry import ValidatorKey, register
from horizax.orbital.state.components import positions

__all__ = ["MaxRange", "MinSeparation", "SeparationScope", "SideSelector"]


class SeparationScope(StrEnum):
    """Which pairs `MinSeparation` checks."""

    ALL = "all"
    WITHIN_GUARDS = "within_guards"
    WITHIN_BANDITS = "within_bandits"
    CROSS = "cross"


class SideSelector(StrEnum):
    """Which vehicles `MaxRange` checks."""

    ALL = "all"
    GUARDS = "guards"
    BANDITS = "bandits"


def _min_distance(a: Array, b: Array, same: bool) -> Array:
    if a.shape[0] == 0 or b.shape[0] == 0 or (same and a.shape[0] < 2):
        return jnp.asarray(jnp.inf)
    squared = jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
    if same:
        squared = jnp.where(jnp.eye(a.shape[0], dtype=bool), jnp.inf, squared)
    return jnp.sqrt(jnp.min(squared))


@register(ValidatorKey.MIN_SEPARATION)
@dataclass(frozen=True)
class MinSeparation:
    """Holds when every pair in ``scope`` is at least ``distance_m`` apart."""

    distance_m: float
    scope: SeparationScope = SeparationScope.ALL

    def __call__(self, config: Any, guards: Any, bandits: Any) -> Array:
        del config
        pg, pb = positions(guards), positions(bandits)
        scope = SeparationScope(self.scope)
        if scope is SeparationScope.WITHIN_GUARDS:
            d = _min_distance(pg, pg, True)
        elif scope is SeparationScope.WITHIN_BANDITS:
            d = _min_distance(pb, pb, True)
        elif scope is SeparationScope.CROSS:
            d = _min_distance(pg, pb, False)
        else:
            both = jnp.concatenate([pg, pb], axis=0)
            d = _min_distance(both, both, True)
        return d >= self.distance_m


@register(ValidatorKey.MAX_RANGE)
@dataclass(frozen=True)
class MaxRange:
    """Holds when every selected vehicle is within ``distance_m`` of the origin."""

    distance_m: float
    side: SideSelector = SideSelector.ALL

    def __call__(self, config: Any, guards: Any, bandits: Any) -> Array:
        del config
        selector = SideSelector(self.side)
        if selector is SideSelector.GUARDS:
            p = positions(guards)
        elif selector is SideSelector.BANDITS:
            p = positions(bandits)
        else:
            p = jnp.concatenate([positions(guards), positions(bandits)], axis=0)
        return jnp.all(jnp.linalg.norm(p, axis=-1) <= self.distance_m)
