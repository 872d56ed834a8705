"""`MaxStepsOnly`: the episode ends at the step cap, and that end is a truncation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.registry import TerminationFnKey, register

__all__ = ["MaxStepsOnly"]


@register(TerminationFnKey.MAX_STEPS_ONLY)
@dataclass(frozen=True)
class MaxStepsOnly:
    """``state.step >= params.max_steps``, with ``max_steps`` read at call time (so it can
    be built without a configuration in scope). It has no absorbing event: an episode it
    ends is truncated."""

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        del prev_state, t
        return state.step >= params.max_steps

    def terminal_events(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """Always False: the step cap is a truncation."""
        del prev_state, params, t
        return jnp.zeros_like(state.step, dtype=bool)
