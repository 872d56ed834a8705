"""`ZeroReward`: every side gets 0 every step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.registry import RewardFnKey, register

__all__ = ["ZeroReward"]


@register(RewardFnKey.ZERO)
@dataclass(frozen=True)
class ZeroReward:
    """``reward_fn(prev_state, actions, next_state, side, cfg, t) -> f32[]``, always 0."""

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Any, cfg: Any, t: Array
    ) -> Array:
        del prev_state, actions, side, cfg, t
        return jnp.zeros((), next_state.t.dtype)
