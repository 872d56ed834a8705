"""The reward protocol and its scope.

A reward is ``reward_fn(prev_state, actions, next_state, side, cfg, t) -> f32[]``: the state
entering the step, both sides' `Actions`, the state leaving it, the `Side` being paid (a
Python value, so a reward may branch on it), the `ScenarioConfig` and the time *entering*
the step (orbitalgym passes the pre-step ``t``). ``actions`` carries both sides' commands so
that a reward may price the opponent's too.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Protocol

from jax import Array

from horizax.orbital.env.types import Actions, Side

__all__ = ["RewardFn", "RewardScope"]


class RewardScope(StrEnum):
    """The shape a reward returns: one number per side (``f32[]``, every bundled reward) or
    one per vehicle of the side (``f32[n_side]``)."""

    PER_VEHICLE = "per_vehicle"
    PER_SIDE = "per_side"


class RewardFn(Protocol):
    """``(prev_state, actions, next_state, side, cfg, t) -> f32[]`` (``PER_SIDE``) or
    ``f32[n_side]`` (``PER_VEHICLE``)."""

    scope: RewardScope

    def __call__(
        self,
        prev_state: Any,
        actions: Actions,
        next_state: Any,
        side: Side,
        cfg: Any,
        t: Array,
    ) -> Array:
        """The reward ``side`` earns for the step from ``prev_state`` to ``next_state``."""
        ...
