"""A distance cap, and the two ways to combine terminations.

`MaxDistanceTermination` ends the episode once any vehicle drifts beyond a distance from the
origin: a guard against a runaway controller in long runs. It has no step cap of its own, as
in orbitalgym; combine it with one through `AnyOfTermination`.

**What a composite's** ``terminal_events`` **is.** A composite ends the episode by combining
its members' results; its ``terminal_events`` is the same combination of its members'
*absorbing events*, i.e. the composite evaluated with every member's step cap removed. So
``terminated`` is true exactly when the episode would have ended without any time limit, and
``truncated = done & ~terminated`` exactly when the time limit was needed for it to end:

* `AnyOfTermination`: ``done = OR_i f_i``, ``terminal_events = OR_i e_i``;
* `AllOfTermination`: ``done = AND_i f_i``, ``terminal_events = AND_i e_i``. One member
  ending only by its cap makes the conjunction a truncation: without the cap it would not
  have held.

Here ``e_i`` is member ``i``'s ``terminal_events`` where it has one. A member without one
(a user's callable) is judged by time, as `split_done` judges such a callable on its own:
``e_i = f_i & (step < max_steps)``, so its ending on or after the cap counts as the cap. As
each ``e_i`` implies ``f_i``, ``terminal_events`` implies the composite's result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.games.proximity import check_length, positions
from horizax.orbital.registry import TerminationFnKey, register

__all__ = ["AllOfTermination", "AnyOfTermination", "MaxDistanceTermination"]


@register(TerminationFnKey.MAX_DISTANCE)
@dataclass(frozen=True)
class MaxDistanceTermination:
    """bool[]: some guard or bandit is strictly farther than ``max_distance_m`` from the
    origin (the lady, in Lady-Bandit-Guard). No step cap; every end is absorbing."""

    max_distance_m: float = 10000.0

    def __post_init__(self) -> None:
        check_length("MaxDistanceTermination", "max_distance_m", self.max_distance_m)

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: some vehicle is beyond the cap."""
        del prev_state, params, t
        everyone = jnp.concatenate([positions(state.guards), positions(state.bandits)], axis=-2)
        return jnp.any(jnp.linalg.norm(everyone, axis=-1) > self.max_distance_m, axis=-1)

    def terminal_events(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: the same as the call, since the cap has no time limit in it."""
        return self(prev_state, state, params, t)


def _member_events(
    member: Callable[..., Array], prev_state: Any, state: Any, params: Any, t: Array
) -> Array:
    events = getattr(member, "terminal_events", None)
    if callable(events):
        return jnp.asarray(events(prev_state, state, params, t), bool)
    ended = jnp.asarray(member(prev_state, state, params, t), bool)
    return jnp.logical_and(ended, state.step < params.max_steps)


@register(TerminationFnKey.ANY_OF)
@dataclass(frozen=True)
class AnyOfTermination:
    """bool[]: the logical OR of ``terminations`` (False for none), e.g. a distance cap on
    top of `LbgEventTermination`. Any iterable is stored as a tuple, so the instance stays
    hashable.

    Attributes:
        terminations: the member terminations, ``(prev_state, state, params, t) -> bool[]``.
    """

    terminations: tuple[Callable[..., Array], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "terminations", tuple(self.terminations))

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: some member ends the episode."""
        result = jnp.asarray(False)
        for term in self.terminations:
            result = jnp.logical_or(result, term(prev_state, state, params, t))
        return result

    def terminal_events(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: some member reached an absorbing event (module docstring)."""
        result = jnp.asarray(False)
        for term in self.terminations:
            result = jnp.logical_or(result, _member_events(term, prev_state, state, params, t))
        return result


@register(TerminationFnKey.ALL_OF)
@dataclass(frozen=True)
class AllOfTermination:
    """bool[]: the logical AND of ``terminations`` (horizax's addition; the documentation's
    ``AndComposite``, with the termination/truncation split). At least one member.

    Attributes:
        terminations: the member terminations, ``(prev_state, state, params, t) -> bool[]``.
    """

    terminations: tuple[Callable[..., Array], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "terminations", tuple(self.terminations))
        if not self.terminations:
            # An empty conjunction is True: every episode would end on its first step.
            raise ValueError("AllOfTermination.terminations needs at least one termination")

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: every member ends the episode."""
        result = jnp.asarray(True)
        for term in self.terminations:
            result = jnp.logical_and(result, term(prev_state, state, params, t))
        return result

    def terminal_events(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: every member reached an absorbing event (module docstring)."""
        result = jnp.asarray(True)
        for term in self.terminations:
            result = jnp.logical_and(result, _member_events(term, prev_state, state, params, t))
        return result
