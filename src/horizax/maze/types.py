"""The Maze's data: `Position`, `State`, `Observation`, and its dm_env-style `TimeStep`.

`StepType` here is dm_env's numbering (FIRST 0, MID 1, LAST 2), stored as i8 like jumanji's;
it is a different type from the gridworld's `horizax.core.step_type.StepType` (TRANSITION 0,
TRUNCATION 1, TERMINATION 2) and the two are never mixed. A LAST step ends the episode;
its ``discount`` tells why: 0.0 after a termination (do not bootstrap), 1.0 after a
truncation by the time limit (bootstrap from the observation).
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

import jax.numpy as jnp
from jax import Array

from horizax.core.struct import Replaceable, field, pytree_dataclass

__all__ = [
    "Observation",
    "Position",
    "State",
    "StepType",
    "TimeStep",
    "observation_dict",
    "restart",
    "termination",
    "transition",
    "truncation",
]


class Position(NamedTuple):
    """A cell of the maze; (0, 0) is the top-left corner.

    Attributes:
        row: i32[], the row (grows downwards).
        col: i32[], the column (grows rightwards).
    """

    row: Any
    col: Any

    def __eq__(self, other: object) -> Any:  # type: ignore[override]
        """bool[]: element-wise equality of both coordinates (an array, usable under jit)."""
        if not isinstance(other, Position):
            return NotImplemented
        return (jnp.asarray(self.row) == other.row) & (jnp.asarray(self.col) == other.col)

    def __ne__(self, other: object) -> Any:  # type: ignore[override]
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else ~equal

    __hash__ = None  # type: ignore[assignment]  # equality is element-wise, not a bool


@pytree_dataclass
class State(Replaceable):
    """The full state of one Maze episode.

    Attributes:
        agent_position: `Position` of the agent (i32[] each).
        target_position: `Position` of the target (i32[] each).
        walls: bool[R, C], True on wall cells.
        action_mask: bool[4], which of Up, Right, Down, Left stay in the grid and off walls.
        step_count: i32[], steps taken in this episode.
        key: u32[2], the PRNG key autoreset draws the next maze from.
    """

    agent_position: Position
    target_position: Position
    walls: Array
    action_mask: Array
    step_count: Array
    key: Array


class Observation(NamedTuple):
    """What the agent sees: the whole `State` except its key.

    Attributes:
        agent_position: `Position` of the agent (i32[] each).
        target_position: `Position` of the target (i32[] each).
        walls: bool[R, C], True on wall cells.
        action_mask: bool[4], the moves that change the agent's cell.
        step_count: i32[], steps taken in this episode.
    """

    agent_position: Position
    target_position: Position
    walls: Array
    action_mask: Array
    step_count: Array


class StepType(enum.IntEnum):
    """dm_env step types, stored as i8 in `TimeStep.step_type`."""

    FIRST = 0
    MID = 1
    LAST = 2


@pytree_dataclass
class TimeStep(Replaceable):
    """What `Maze.reset` and `Maze.step` return beside the state.

    Attributes:
        step_type: i8[], a `StepType` value.
        reward: f32[], 0.0 on FIRST steps.
        discount: f32[], 1.0 except on a LAST step that terminated (0.0).
        observation: the `Observation`.
        extras: dict of extra arrays (empty, or ``{"next_obs": ...}`` under autoreset).
    """

    step_type: Array
    reward: Array
    discount: Array
    observation: Any
    extras: dict[str, Any] = field(default_factory=dict)

    def first(self) -> Array:
        """bool[]: the first step of an episode."""
        return self.step_type == StepType.FIRST

    def mid(self) -> Array:
        """bool[]: neither first nor last."""
        return self.step_type == StepType.MID

    def last(self) -> Array:
        """bool[]: the episode ended on this step (terminated or truncated)."""
        return self.step_type == StepType.LAST

    def terminated(self) -> Array:
        """bool[]: the episode reached an absorbing state (LAST with discount 0)."""
        return self.last() & (self.discount == 0)

    def truncated(self) -> Array:
        """bool[]: the time limit cut the episode (LAST with a non-zero discount)."""
        return self.last() & (self.discount != 0)


def _timestep(
    step_type: StepType,
    reward: Any,
    discount: Any,
    observation: Any,
    extras: dict | None,
    shape: Any,
    dtype: Any,
) -> TimeStep:
    """The one constructor behind `restart`, `transition`, `termination` and `truncation`."""

    def as_array(value: Any) -> Array:
        # Scalars (the defaults) take ``shape``; given arrays keep their own shape.
        array = jnp.asarray(value, dtype)
        return jnp.broadcast_to(array, shape) if array.ndim == 0 else array

    return TimeStep(
        step_type=jnp.full(shape, int(step_type), jnp.int8),
        reward=as_array(reward),
        discount=as_array(discount),
        observation=observation,
        extras=dict(extras or {}),
    )


def restart(
    observation: Any, extras: dict | None = None, shape: Any = (), dtype: Any = jnp.float32
) -> TimeStep:
    """A FIRST `TimeStep`: reward 0, discount 1.

    Args:
        observation: the first observation of the episode.
        extras: optional extra arrays.
        shape: shape of reward and discount (``()`` for a single agent).
        dtype: dtype of reward and discount.
    """
    return _timestep(StepType.FIRST, 0.0, 1.0, observation, extras, shape, dtype)


def transition(
    reward: Any,
    observation: Any,
    discount: Any = None,
    extras: dict | None = None,
    shape: Any = (),
    dtype: Any = jnp.float32,
) -> TimeStep:
    """A MID `TimeStep` (discount 1 unless given)."""
    discount = 1.0 if discount is None else discount
    return _timestep(StepType.MID, reward, discount, observation, extras, shape, dtype)


def termination(
    reward: Any,
    observation: Any,
    extras: dict | None = None,
    shape: Any = (),
    dtype: Any = jnp.float32,
) -> TimeStep:
    """A LAST `TimeStep` for an absorbing state: discount 0."""
    return _timestep(StepType.LAST, reward, 0.0, observation, extras, shape, dtype)


def truncation(
    reward: Any,
    observation: Any,
    discount: Any = None,
    extras: dict | None = None,
    shape: Any = (),
    dtype: Any = jnp.float32,
) -> TimeStep:
    """A LAST `TimeStep` cut by a time limit: discount 1 unless given (bootstrap from it)."""
    discount = 1.0 if discount is None else discount
    return _timestep(StepType.LAST, reward, discount, observation, extras, shape, dtype)


def observation_dict(observation: Observation) -> dict[str, Array]:
    """The protocol's dict form of an `Observation`; positions become i32[2] (row, col)."""
    return {
        "agent_position": jnp.stack(observation.agent_position).astype(jnp.int32),
        "target_position": jnp.stack(observation.target_position).astype(jnp.int32),
        "walls": observation.walls,
        "action_mask": observation.action_mask,
        "step_count": observation.step_count,
    }
