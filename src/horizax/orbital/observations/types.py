"""Observation channels and their flat form.

An observation function returns a tuple of `Observation` channels. `flatten_observations`
concatenates them into one vector (invisible pairs zero), the form the single-agent view and
the adapters publish.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass

__all__ = ["Observation", "flatten_observations", "flatten_observations_per_agent"]


@pytree_dataclass
class Observation(Replaceable):
    """One sensor channel.

    Attributes:
        obs: f32[n_obs, n_total, m], what each observer measures of each vehicle (own side
            first, then the other side).
        visible: bool[n_obs, n_total], which pairs were measured.
        obs_matrix: f32[m, d], the linear measurement matrix H.
        obs_noise: f32[m, m], the measurement noise R.
    """

    obs: Array
    visible: Array
    obs_matrix: Array
    obs_noise: Array


def flatten_observations(channels: tuple[Observation, ...]) -> Array:
    """f32[D], every channel's ``obs`` with invisible pairs zeroed, flattened and joined.

    Raises:
        ValueError: for an empty tuple.
    """
    if not channels:
        raise ValueError("flatten_observations needs at least one channel")
    return jnp.concatenate(
        [jnp.where(c.visible[..., None], c.obs, 0).reshape(-1) for c in channels]
    )


def flatten_observations_per_agent(channels: tuple[Observation, ...]) -> Array:
    """f32[n_obs, D_agent], one row per observer (invisible pairs zeroed)."""
    if not channels:
        raise ValueError("flatten_observations_per_agent needs at least one channel")
    return jnp.concatenate(
        [jnp.where(c.visible[..., None], c.obs, 0).reshape(c.obs.shape[0], -1) for c in channels],
        axis=-1,
    )
