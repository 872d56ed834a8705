"""Reading the side's view: the per-observer state block and each observer's own state.

A side's policy receives either a belief (an object with ``mean`` of shape
``[n_obs, n_total, d]``) or the flat observation `flatten_observations` makes of the same
numbers: observer ``i``'s row holds every vehicle's state, its own side first, so observer
``i`` sits in cell ``(i, i)`` and the opponents in columns ``n_obs`` onward.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

__all__ = ["IN_PLANE_RTN", "in_plane", "mean_from_view", "own_states"]

# Columns (R, T, Rdot, Tdot) of an RTN state. A NumPy array, so that importing this module
# runs no JAX code; indexing a JAX array with it works the same.
IN_PLANE_RTN = np.array([0, 1, 3, 4])


def mean_from_view(agent_view: Any, n_vehicles: int, n_opponents: int, state_dim: int) -> Array:
    """The ``f32[n_vehicles, n_vehicles + n_opponents, state_dim]`` state block of a view.

    Args:
        agent_view: a belief (its ``mean`` is returned as is) or a flat observation
            ``f32[D]``. ``D`` must be a whole multiple of the block's size: a single
            full-state channel, or several equal-sized ones, of which the last is read (as
            orbitalgym reads a composite observation).
        n_vehicles: observers on the policy's side.
        n_opponents: vehicles on the other side.
        state_dim: numbers per vehicle state (4 for RT, 6 for RTN).

    Raises:
        ValueError: a flat observation whose size is not a multiple of the block's (for
            instance a position-only channel, which cannot supply the velocities).
    """
    if not isinstance(agent_view, jax.Array | np.ndarray):
        return agent_view.mean
    flat = jnp.asarray(agent_view)
    block = n_vehicles * (n_vehicles + n_opponents) * state_dim
    if block == 0 or flat.size % block != 0:
        raise ValueError(
            f"a flat observation of size {flat.size} is not a whole number of "
            f"{n_vehicles} x {n_vehicles + n_opponents} x {state_dim} full-state channels "
            f"(n_vehicles x n_total x state_dim = {block}); read position-only channels "
            "through a belief instead"
        )
    # Several channels: the last one, which a composite observation fills last.
    return flat.reshape((-1, block))[-1].reshape((n_vehicles, n_vehicles + n_opponents, state_dim))


def own_states(mean: Array, n_vehicles: int) -> Array:
    """``f32[n_vehicles, d]``: each observer's estimate of itself, the block's diagonal."""
    idx = jnp.arange(n_vehicles)
    return mean[idx, idx, :]


def in_plane(states: Array, state_dim: int) -> Array:
    """``f32[..., 4]`` in-plane ``(R, T, Rdot, Tdot)`` of RTN (6) or RT (4) states."""
    if state_dim != 6:
        return states
    # Two slices, not a gather: no index array whose dtype would depend on the x64 flag.
    return jnp.concatenate([states[..., 0:2], states[..., 3:5]], axis=-1)
