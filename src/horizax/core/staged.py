"""The staged family contract: a step as a transition, then one observation.

A family whose observation is the costly part of its step (the gridworld's) offers its step
in stages, so the episode engine (`horizax.core.episode.staged_next_step`) can choose
between the stepped state and the next episode's first state before observing, and observe
once per step. `staged_reset` and `staged_step` build the protocol's ``reset`` and ``step``
from the stages, so both paths give the same results.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from jax import Array

from horizax.core.protocol import Step, make_step

__all__ = ["StagedEnv", "is_staged", "staged_reset", "staged_step"]


@runtime_checkable
class StagedEnv(Protocol):
    """A family whose step the engine may run in two stages, so each step observes once.

    With these three methods NEXT_STEP autoreset chooses between the stepped state and the
    next episode's first state *before* observing (the observation is the costly part of a
    gridworld step). The family's ``reset`` and ``step`` must be `staged_reset` and
    `staged_step` of them; `horizax.core.episode.step_episode` uses the staged path for
    NEXT_STEP whenever a family offers it, and its results equal the plain path's.
    """

    def initial_state(self, key: Array) -> Any:
        """The first state of the episode drawn from ``key`` (no observation)."""
        ...

    def transition(self, key: Array, state: Any, action: Array) -> tuple[Any, Array, Array, Array]:
        """``(state, reward f32[], terminated bool[], truncated bool[])`` after ``action``."""
        ...

    def observe(self, state: Any) -> tuple[Any, dict[str, Any]]:
        """``(observation, info)`` of ``state``."""
        ...


def is_staged(fenv: Any) -> bool:
    """Whether ``fenv`` offers the `StagedEnv` methods."""
    return all(callable(getattr(fenv, n, None)) for n in ("initial_state", "transition", "observe"))


def staged_reset(fenv: StagedEnv, key: Array) -> tuple[Any, Step]:
    """A staged family's ``reset``: its initial state and that state's first `Step`."""
    state = fenv.initial_state(key)
    observation, info = fenv.observe(state)
    return state, make_step(observation, info=info)


def staged_step(fenv: StagedEnv, key: Array, state: Any, action: Array) -> tuple[Any, Step]:
    """A staged family's ``step``: its transition, then the observation of the result."""
    state, reward, terminated, truncated = fenv.transition(key, state, action)
    observation, info = fenv.observe(state)
    return state, make_step(observation, reward, terminated, truncated, info)
