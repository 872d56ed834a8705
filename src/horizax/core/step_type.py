"""The gridworld step type and its conversions.

`StepType` numbers the three ways a transition can end:
``TRANSITION = 0`` (the episode goes on), ``TRUNCATION = 1`` (a time limit cut it; the state
is *not* absorbing, so values should bootstrap), ``TERMINATION = 2`` (an absorbing state was
reached). Termination wins when both happen on one step.

This numbering is distinct from dm_env's FIRST/MID/LAST (see `to_dm_env`); the two are never
mixed, and adapters consume explicit ``terminated``/``truncated`` flags instead of integers.
"""

from __future__ import annotations

import enum

import jax.numpy as jnp
from jax import Array


class StepType(enum.IntEnum):
    """Gridworld step types: i32 values stored in `Timestep.step_type`."""

    TRANSITION = 0
    TRUNCATION = 1
    TERMINATION = 2


def check_truncation(terminated: Array, truncated: Array) -> Array:
    """Merges a termination flag and a truncation flag into one `StepType` value.

    Args:
        terminated: bool[], True if the termination function fired.
        truncated: bool[], True if the time limit was reached (``t >= max_steps``).

    Returns:
        i32[]: 2 (TERMINATION) if terminated, else 1 (TRUNCATION) if truncated, else 0
        (TRANSITION). Termination wins over truncation. Batched inputs broadcast.
    """
    terminated = jnp.asarray(terminated, dtype=jnp.bool_)
    truncated = jnp.asarray(truncated, dtype=jnp.bool_)
    return jnp.where(
        terminated,
        jnp.int32(StepType.TERMINATION),
        jnp.where(truncated, jnp.int32(StepType.TRUNCATION), jnp.int32(StepType.TRANSITION)),
    )


def to_flags(step_type: Array) -> tuple[Array, Array]:
    """Splits a `StepType` value into ``(terminated, truncated)`` bool flags (never both)."""
    step_type = jnp.asarray(step_type)
    return step_type == StepType.TERMINATION, step_type == StepType.TRUNCATION


def discount(step_type: Array) -> Array:
    """f32 discount of a transition: 0.0 after a termination, 1.0 otherwise (truncation too)."""
    return jnp.where(jnp.asarray(step_type) == StepType.TERMINATION, 0.0, 1.0).astype(jnp.float32)


def to_dm_env(step_type: Array, is_first: Array) -> tuple[Array, Array]:
    """Converts to dm_env's numbering.

    Args:
        step_type: i32[] gridworld `StepType`.
        is_first: bool[], True for the first timestep of an episode.

    Returns:
        ``(dm_step_type, discount)``: i32[] with FIRST=0, MID=1, LAST=2 (LAST for both
        termination and truncation) and f32[] discount, 0.0 only on termination.
    """
    step_type = jnp.asarray(step_type)
    last = step_type != StepType.TRANSITION
    dm = jnp.where(jnp.asarray(is_first), 0, jnp.where(last, 2, 1)).astype(jnp.int32)
    return dm, discount(step_type)
