"""The reference rewards: `ZeroReward` (0 for every side) and `DistanceToReferenceOrbit`
(the guards' summed distance from the reference orbit, negated)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.env.types import Side
from horizax.orbital.registry import RewardFnKey, register
from horizax.orbital.rewards.base import RewardScope
from horizax.orbital.state.components import positions

__all__ = ["DistanceToReferenceOrbit", "ZeroReward"]


@register(RewardFnKey.ZERO)
@dataclass(frozen=True)
class ZeroReward:
    """``reward_fn(prev_state, actions, next_state, side, cfg, t) -> f32[]``, always 0."""

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Any, cfg: Any, t: Array
    ) -> Array:
        del prev_state, actions, side, cfg, t
        return jnp.zeros((), next_state.t.dtype)


@register(RewardFnKey.DISTANCE_TO_REFERENCE_ORBIT)
@dataclass(frozen=True)
class DistanceToReferenceOrbit:
    """The guard side earns ``-sum_i |r_i|``, f32[]: minus the summed distances (m) of its
    guards from the RTN origin (the reference orbit) at the state leaving the step. The
    bandit side earns 0 (orbitalgym's rule: it has no objective in this reward).

    An RT state's distance is its in-plane one (no cross-track component).

    Attributes:
        scope: ``PER_SIDE``.
    """

    scope: RewardScope = RewardScope.PER_SIDE

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Any, cfg: Any, t: Array
    ) -> Array:
        """f32[]: ``side``'s reward for the step into ``next_state``."""
        del prev_state, actions, cfg, t
        if Side(side) is Side.BANDIT:
            return jnp.zeros((), next_state.t.dtype)
        distances = jnp.linalg.norm(positions(next_state.guards), axis=-1)
        return -jnp.sum(distances).astype(next_state.t.dtype)
