"""Advantages and value targets that keep truncation and termination apart.

A time limit is not an absorbing state: the episode could have gone on, so its value target
must bootstrap from the value of the episode's **real** last observation (the one the limit
cut off), never from the next episode's first observation and never from zero. A genuine
termination bootstraps from zero. Treating a truncation as a termination (the common
mistake, `truncation_as_termination=True` here, for comparison) biases every value near the
time limit towards zero.

Generalized advantage estimation (Schulman et al., 2016), per step ``t`` of a ``[T, N]``
rollout::

    delta[t] = reward[t] + gamma * (1 - terminated[t]) * next_value[t] - value[t]
    adv[t]   = delta[t] + gamma * lam * (1 - done[t]) * adv[t + 1]      (adv[T] = 0)
    target[t] = adv[t] + value[t]

where ``done = terminated | truncated`` (an advantage never flows across an episode
boundary) and ``next_value[t]`` is the value of the observation that step ``t`` led to in
the same episode: SAME_STEP's `horizax.core.episode.Final` observation where an episode ended
(`bootstrap_values` picks it), the next step's observation elsewhere.

The rollout must hold real transitions only: the engine's SAME_STEP (or DISABLED with
restarts) gives exactly that; a NEXT_STEP rollout's reset steps (whose action is ignored)
must be removed first.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

__all__ = ["bootstrap_values", "gae"]


def bootstrap_values(next_values: Array, final_values: Array, final_mask: Array) -> Array:
    """f32[T, N]: the value of each step's real next observation.

    Args:
        next_values: f32[T, N], the value of the observation returned by each step (under
            SAME_STEP, the next episode's first observation where an episode ended).
        final_values: f32[T, N], the value of `Final.observation` (the episode's real last
            observation; meaningful where ``final_mask``).
        final_mask: bool[T, N], `Final.mask`: the step ended an episode.
    """
    return jnp.where(final_mask, final_values, next_values)


def gae(
    rewards: Array,
    values: Array,
    next_values: Array,
    terminated: Array,
    truncated: Array,
    *,
    gamma: float,
    lam: float,
    truncation_as_termination: bool = False,
) -> tuple[Array, Array]:
    """Generalized advantages and value targets with exact bootstrapping (module docstring).

    Args:
        rewards: f32[T, N].
        values: f32[T, N], the value of the observation each step acted on.
        next_values: f32[T, N], the value of each step's real next observation
            (`bootstrap_values`).
        terminated: bool[T, N]; truncated: bool[T, N] (never both true).
        gamma: the discount, in [0, 1].
        lam: the GAE parameter, in [0, 1].
        truncation_as_termination: bootstrap from zero on truncations too (the common
            mistake), for ablations.

    Returns:
        ``(advantages, targets)``, both f32[T, N].

    Raises:
        ValueError: ``gamma`` or ``lam`` outside [0, 1], or arrays of different shapes.
    """
    for name, value in (("gamma", gamma), ("lam", lam)):
        if not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {value}")
    shape = jnp.shape(rewards)
    arrays = {"values": values, "next_values": next_values}
    arrays |= {"terminated": terminated, "truncated": truncated}
    for name, array in arrays.items():
        if jnp.shape(array) != shape:
            raise ValueError(
                f"{name} must have the shape of rewards {shape}, got {jnp.shape(array)}"
            )
    terminated = jnp.asarray(terminated, jnp.bool_)
    truncated = jnp.asarray(truncated, jnp.bool_)
    absorbing = (terminated | truncated) if truncation_as_termination else terminated
    not_absorbing = 1.0 - absorbing.astype(jnp.float32)
    continues = 1.0 - (terminated | truncated).astype(jnp.float32)
    deltas = rewards + gamma * not_absorbing * next_values - values

    def backward(next_advantage: Array, step: Any) -> tuple[Array, Array]:
        delta, carry_on = step
        advantage = delta + gamma * lam * carry_on * next_advantage
        return advantage, advantage

    _, advantages = jax.lax.scan(
        backward, jnp.zeros(shape[1:], jnp.float32), (deltas, continues), reverse=True
    )
    return advantages, advantages + values
