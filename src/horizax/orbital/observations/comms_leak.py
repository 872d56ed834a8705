"""`CommsLeakObservation`: the bandits overhear the guards' broadcasts.

One channel, laid out as `FullObservation`'s (each of the side's ``n_self`` observers sees
the truth-frame states of all ``n_self + n_other`` vehicles, own side first). Only the
bandits can overhear: on the bandit side, the guards' columns are visible exactly on a step
whose command has *any* guard with ``active`` True, and then with the tiny noise
``epsilon I``; the bandits' own columns are never visible. On the guard side nothing is
visible. Invisible pairs flatten to zeros (`flatten_observations`).

The observation reads the step's actions, so it leaks on the step the broadcast is made; a
reset (and the opponent's observation in `SingleAgentView`, taken with identity actions)
sees no broadcast. The guards need the COMMUNICATE action component; `OrbitalGymEnv`
checks it. orbitalgym's observation, field for field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import jax.numpy as jnp
from jax import Array

from horizax.orbital.env.types import Side
from horizax.orbital.observations.types import Observation
from horizax.orbital.registry import ObservationFnKey, register
from horizax.orbital.state.components import truth_state

__all__ = ["CommsLeakObservation"]


@register(ObservationFnKey.COMMS_LEAK)
@dataclass(frozen=True)
class CommsLeakObservation:
    """``(env_state, actions, side, cfg, key, t) -> (Observation,)`` (module docstring).

    Attributes:
        layout: accepted for orbitalgym's signature; unused (the shapes come from the state).
        epsilon: the measurement variance of an overheard state.
        reads_guard_active: True (a class constant): `OrbitalGymEnv` checks that the guards
            have the COMMUNICATE component.
    """

    layout: Any = None
    epsilon: float = 1e-6
    reads_guard_active: ClassVar[bool] = True

    def __call__(
        self, env_state: Any, actions: Any, side: Any, params: Any, key: Array, t: Array
    ) -> tuple[Observation, ...]:
        """One `Observation`: obs f32[n_self, n_total, d], visible bool[n_self, n_total].

        Raises:
            ValueError: when tracing the bandit side with a guard command that has no
                ``active`` field (the guards lack the COMMUNICATE component).
        """
        del params, key, t
        side = Side(side)
        own, other = (
            (env_state.guards, env_state.bandits)
            if side is Side.GUARD
            else (env_state.bandits, env_state.guards)
        )
        own_truth, other_truth = truth_state(own), truth_state(other)
        n_self = own_truth.shape[0]
        stacked = jnp.concatenate([own_truth, other_truth], axis=0)
        n_total, d = stacked.shape
        opposing = jnp.broadcast_to(jnp.arange(n_total) >= n_self, (n_self, n_total))
        if side is Side.BANDIT:
            command = actions.sides.guard
            if not hasattr(command, "active"):
                raise ValueError(
                    "CommsLeakObservation reads actions.sides.guard.active, but the guard "
                    f"command {type(command).__name__} has no such field: put "
                    "ActionComponentKey.COMMUNICATE in guard_action_components"
                )
            visible = opposing & jnp.any(command.active)
        else:
            visible = jnp.zeros((n_self, n_total), bool)
        return (
            Observation(
                obs=jnp.broadcast_to(stacked[None], (n_self, n_total, d)),
                visible=visible,
                obs_matrix=jnp.eye(d, dtype=stacked.dtype),
                obs_noise=jnp.eye(d, dtype=stacked.dtype) * self.epsilon,
            ),
        )
