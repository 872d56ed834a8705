"""The termination protocol, and how horizax tells a termination from a truncation.

A termination is ``fn(prev_state, state, params, t) -> bool[]``: called every step with the
state entering it, the state leaving it, the `ScenarioConfig` and the new time; true ends
the episode (`StepOutput.episode_done`).

horizax adds the boundary orbitalgym folds away. Every bundled termination also has
``terminal_events(prev_state, state, params, t) -> bool[]``: its absorbing events (breach,
catch, capture, repel, distance exit) without the step cap. Then

* ``terminated = terminal_events(...)`` — do not bootstrap;
* ``truncated = episode_done & ~terminated`` — the episode ended only by the cap.

For a user's callable without ``terminal_events`` (such as the documentation's
``AndComposite``), the rule is by time: an end before the step cap is a termination, an end
on or after it (``state.step >= params.max_steps``) a truncation. `split_done` applies both.
"""

from __future__ import annotations

from typing import Any, Protocol

import jax.numpy as jnp
from jax import Array

__all__ = ["TerminationFn", "split_done"]


class TerminationFn(Protocol):
    """``(prev_state, state, params, t) -> bool[]``."""

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """True where the episode ends on this step."""
        ...


def split_done(
    termination_fn: Any, done: Array, prev_state: Any, state: Any, params: Any, t: Array
) -> tuple[Array, Array]:
    """``(terminated, truncated)`` for a step whose termination returned ``done``.

    Args:
        termination_fn: the configuration's termination.
        done: bool[], what it returned.
        prev_state: its first argument.
        state: its second argument.
        params: its third argument.
        t: its fourth argument.
    """
    done = jnp.asarray(done, bool)
    events = getattr(termination_fn, "terminal_events", None)
    if callable(events):
        terminated = done & jnp.asarray(events(prev_state, state, params, t), bool)
    else:
        terminated = done & (state.step < params.max_steps)
    return terminated, done & ~terminated
