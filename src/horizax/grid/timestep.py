"""`Timestep`: what a gridworld's `reset` and `step` return (`horizax.grid.Environment`).

The episode boundary lives in ``step_type`` (`horizax.core.step_type.StepType`): a time limit
is TRUNCATION, never TERMINATION, so a learner knows when to bootstrap.
"""

from __future__ import annotations

from typing import Any

from jax import Array

from horizax.core.step_type import StepType
from horizax.core.struct import field, pytree_dataclass
from horizax.grid.state import State


@pytree_dataclass
class Timestep:
    """One step of a gridworld episode.

    Attributes:
        observation: the observation of ``state`` (shape/dtype from the env's space).
        action: i32[], the action that led here (-1 on the first timestep).
        reward: f32[], the reward for that action.
        step_type: i32[], a `StepType` (0 transition, 1 truncation, 2 termination).
        state: the `State` after the action.
        info: a dict of extra arrays (empty for the gridworlds).
    """

    observation: Array
    action: Array
    reward: Array
    step_type: Array
    state: State
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def t(self) -> Array:
        """i32[]: steps taken in this episode (0 on the first timestep)."""
        return self.state.step_count

    def is_done(self) -> Array:
        """bool[]: the episode ended here (termination or truncation)."""
        return self.step_type != StepType.TRANSITION

    def is_termination(self) -> Array:
        """bool[]: an absorbing state was reached (do not bootstrap)."""
        return self.step_type == StepType.TERMINATION

    def is_truncation(self) -> Array:
        """bool[]: the time limit cut the episode (bootstrap from ``observation``)."""
        return self.step_type == StepType.TRUNCATION

    def is_transition(self) -> Array:
        """bool[]: the episode goes on."""
        return self.step_type == StepType.TRANSITION

    def is_start(self) -> Array:
        """bool[]: the first timestep of an episode."""
        return self.state.step_count == 0
