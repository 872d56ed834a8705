"""`LbgWithCommsReward`: a distance reward that charges the guards for each broadcast.

Per step::

    guard  = base(guard) - comm_cost * (number of guards with active = True)
    bandit = base(bandit)

with ``base`` `DistanceToReferenceOrbit` by default (``-sum`` of the guards' distances from
the reference orbit; 0 for the bandits). ``active`` is the guards' bool[n_guards] broadcast
flag of the step's command (the COMMUNICATE action component,
`horizax.orbital.actions.components.Communicate`); the environment refuses a configuration
with this reward whose guards lack that component. The bandits never pay: in
Lady-Bandit-Guard only the guards broadcast. orbitalgym's reward, field for field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.orbital.env.types import Side
from horizax.orbital.registry import RewardFnKey, register
from horizax.orbital.rewards.base import RewardScope
from horizax.orbital.rewards.reference import DistanceToReferenceOrbit

__all__ = ["LbgWithCommsReward"]


@register(RewardFnKey.LBG_WITH_COMMS)
@dataclass(frozen=True)
class LbgWithCommsReward:
    """``base_reward`` minus ``comm_cost`` per broadcasting guard (module docstring), f32[].

    Attributes:
        base_reward: the reward before the broadcast charge (`DistanceToReferenceOrbit`).
        comm_cost: reward charged per guard with ``active`` True, each step (finite, >= 0).
        scope: ``PER_SIDE``.
        reads_guard_active: True (a class constant): `OrbitalGymEnv` checks that the guards
            have the COMMUNICATE component.
    """

    base_reward: Any = field(default_factory=DistanceToReferenceOrbit)
    comm_cost: float = 5.0
    scope: RewardScope = RewardScope.PER_SIDE
    reads_guard_active: ClassVar[bool] = True

    def __post_init__(self) -> None:
        cost = self.comm_cost
        number = isinstance(cost, int | float | np.integer | np.floating)
        if isinstance(cost, bool) or not number or not math.isfinite(cost) or cost < 0:
            raise ValueError(
                f"LbgWithCommsReward.comm_cost must be a finite number >= 0 (reward charged "
                f"per broadcasting guard), got {cost!r}"
            )
        if not callable(self.base_reward):
            raise ValueError(
                f"LbgWithCommsReward.base_reward must be a reward callable, got "
                f"{self.base_reward!r}"
            )

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Any, cfg: Any, t: Array
    ) -> Array:
        """f32[]: ``side``'s reward for the step from ``prev_state`` to ``next_state``.

        Raises:
            ValueError: when tracing the guard side's reward with a guard command that has
                no ``active`` field (the guards lack the COMMUNICATE component).
        """
        side = Side(side)
        base = jnp.asarray(self.base_reward(prev_state, actions, next_state, side, cfg, t))
        if side is Side.BANDIT:  # the bandits do not broadcast, so their command is not read
            return base
        command = actions.sides.guard
        if not hasattr(command, "active"):
            raise ValueError(
                "LbgWithCommsReward reads actions.sides.guard.active, but the guard command "
                f"{type(command).__name__} has no such field: put ActionComponentKey."
                "COMMUNICATE in guard_action_components"
            )
        n_active = jnp.sum(jnp.asarray(command.active).astype(base.dtype))
        return base - jnp.asarray(self.comm_cost, base.dtype) * n_active
