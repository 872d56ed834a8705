"""`FullObservation`: every vehicle's true state, seen by every observer, without noise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.env.types import Side
from horizax.orbital.observations.types import Observation
from horizax.orbital.registry import ObservationFnKey, register
from horizax.orbital.state.components import truth_state

__all__ = ["FullObservation"]


@register(ObservationFnKey.FULL)
@dataclass(frozen=True)
class FullObservation:
    """One channel: for each of the side's ``n_self`` observers, the truth-frame states of
    all ``n_self + n_other`` vehicles (own side first), all visible, ``H = I``,
    ``R = epsilon I``.

    Attributes:
        layout: accepted for orbitalgym's signature; unused (the shapes come from the state).
        epsilon: the nominal measurement variance.
    """

    layout: Any = None
    epsilon: float = 1e-6

    def __call__(
        self, env_state: Any, actions: Any, side: Side, params: Any, key: Array, t: Array
    ) -> tuple[Observation, ...]:
        del actions, params, key, t
        own, other = (
            (env_state.guards, env_state.bandits)
            if Side(side) is Side.GUARD
            else (env_state.bandits, env_state.guards)
        )
        own_truth, other_truth = truth_state(own), truth_state(other)
        n_self = own_truth.shape[0]
        stacked = jnp.concatenate([own_truth, other_truth], axis=0)
        d = stacked.shape[-1]
        return (
            Observation(
                obs=jnp.broadcast_to(stacked[None], (n_self, *stacked.shape)),
                visible=jnp.ones((n_self, stacked.shape[0]), bool),
                obs_matrix=jnp.eye(d, dtype=stacked.dtype),
                obs_noise=jnp.eye(d, dtype=stacked.dtype) * self.epsilon,
            ),
        )
