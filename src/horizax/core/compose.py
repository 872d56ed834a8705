"""Combining per-step functions ``fn(prev_state, action, state)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from jax import Array

StepFn = Callable[[Any, Array, Any], Array]


def compose(*fns: StepFn, operator: Callable[..., Array] = jnp.any) -> StepFn:
    """Combines several ``(prev_state, action, state) -> Array`` functions into one.

    The results are stacked on a new leading axis and reduced with ``operator(stacked,
    axis=0)``. With the default `jnp.any` this ORs termination functions; pass `jnp.sum` to add
    reward functions.

    Args:
        *fns: the functions to combine; at least one.
        operator: reduction over the stacked results, called as ``operator(x, axis=0)``.

    Returns:
        A single ``(prev_state, action, state) -> Array`` function.

    Raises:
        ValueError: if no function is given, or one is not callable.
    """
    if not fns:
        raise ValueError("compose() needs at least one function")
    for f in fns:
        if not callable(f):
            raise ValueError(f"compose() got a non-callable argument: {f!r}")

    def composed(prev_state: Any, action: Array, state: Any) -> Array:
        results = jnp.stack([jnp.asarray(f(prev_state, action, state)) for f in fns])
        return operator(results, axis=0)

    composed.__name__ = "compose(" + ", ".join(getattr(f, "__name__", "fn") for f in fns) + ")"
    return composed
