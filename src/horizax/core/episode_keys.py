"""Cheap, deterministic derivation of per-episode and per-purpose PRNG keys.

The next episode's key is computed on every step (autoreset selects it where an episode
ended), so it must be cheap. `jax.random.split` is a Threefry hash; here the next episode's
key is the next *stream* of the current one instead: its last key word plus an odd constant.
Threefry is a keyed block cipher whose distinct keys select independent streams (the
counter-based design of Random123, on which JAX's PRNG is built), so episodes ``k, k+c,
k+2c, ...`` draw independent layouts, with a period of 2**32 episodes per environment, at
the cost of one integer add. Stochastic dynamics use a third stream (first key word xor a
constant), folded with the step count, so they never reuse the layout's random words.

Both raw ``uint32[2]`` keys (`jax.random.PRNGKey`) and typed keys (`jax.random.key`) work.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import Array

_EPISODE_STRIDE = 0x9E3779B9  # odd: the low-word sequence k + n*c has period 2**32
_DYNAMICS_SALT = 0x85EBCA6B


def _data(key: Array) -> tuple[Array, bool]:
    typed = jnp.issubdtype(key.dtype, jax.dtypes.prng_key)
    return (jax.random.key_data(key) if typed else key), typed


def _wrap(data: Array, like: Array, typed: bool) -> Array:
    if typed:
        return jax.random.wrap_key_data(data, impl=jax.random.key_impl(like))
    return data


def next_episode_key(key: Array) -> Array:
    """The key of the episode after the one drawn from ``key`` (same shape and type)."""
    data, typed = _data(key)
    stride = jnp.zeros(data.shape[-1], jnp.uint32).at[-1].set(_EPISODE_STRIDE)  # a constant
    data = data + stride
    return _wrap(data, key, typed)


def dynamics_key(key: Array) -> Array:
    """A key for an episode's stochastic dynamics, independent of its layout stream."""
    data, typed = _data(key)
    salt = jnp.zeros(data.shape[-1], jnp.uint32).at[0].set(_DYNAMICS_SALT)  # a constant
    data = data ^ salt
    return _wrap(data, key, typed)
