"""A gridworld-style `Timestep` API over any environment of the core protocol.

`horizax.adapters.gymnax.ToGymnax` is written against the gridworld's `Timestep` (navix's API:
``state.timestep.step_type``, ``timestep.t``, ``is_done()``, ...). `FunctionalTimestepEnv`
gives any `horizax.core.protocol.FunctionalEnv` (the Maze, for one) that same shape, so the
adapter serves every family without a second code path. It adds no autoreset of its own: it
is the episode engine's NEXT_STEP mode (`horizax.core.episode`: the step after an ending one
ignores its action and starts a new episode from the family's next-episode key; under `vmap`
only the finished environments draw one), plus the last `Step`, from which the accessors read.
Actions go to the protocol view as they are: a ``Discrete`` or a ``Box`` action space alike
(the adapter on top checks them, `horizax.adapters.actions`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Protocol, runtime_checkable

from jax import Array

from horizax.core import episode as engine
from horizax.core import spaces
from horizax.core.protocol import FunctionalEnv, Step
from horizax.core.step_type import check_truncation
from horizax.core.struct import pytree_dataclass

__all__ = ["FunctionalTimestep", "FunctionalTimestepEnv"]


@pytree_dataclass
class FunctionalTimestep:
    """One step of a protocol environment, with the gridworld `Timestep`'s accessors.

    Attributes:
        episode: the environment's `horizax.core.engine.Episode` (protocol state, episode
            key, step count, done flag).
        last: the `Step` that produced ``episode.state``.
    """

    episode: engine.Episode
    last: Step

    @property
    def state(self) -> Any:
        """The protocol state (opaque pytree)."""
        return self.episode.state

    @property
    def t(self) -> Array:
        """i32[]: steps taken in this episode (0 after a reset)."""
        return self.episode.t

    @property
    def observation(self) -> Any:
        """The observation of ``state``."""
        return self.last.observation

    @property
    def reward(self) -> Array:
        """f32[]: the reward of the step that led here."""
        return self.last.reward

    @property
    def step_type(self) -> Array:
        """i32[]: the gridworld `StepType` of the step that led here."""
        return check_truncation(self.last.terminated, self.last.truncated)

    def is_done(self) -> Array:
        """bool[]: the episode ended here."""
        return self.last.done

    def is_termination(self) -> Array:
        """bool[]: an absorbing state was reached."""
        return self.last.terminated

    def is_truncation(self) -> Array:
        """bool[]: the time limit cut the episode."""
        return self.last.truncated


@runtime_checkable
class TimestepEnv(Protocol):
    """An environment with a native ``Timestep`` API (the gridworld's), which
    `horizax.adapters.gymnax.ToGymnax` wraps as it is; `FunctionalTimestepEnv` gives any
    protocol environment this shape.

    Its timesteps have ``state``, ``t``, ``observation``, ``reward``, ``step_type`` and
    ``is_done()`` / ``is_termination()`` / ``is_truncation()``; ``step`` applies its own
    autoreset.
    """

    num_actions: int
    action_space: Any
    max_steps: int
    env_id: str
    observation_space: Any

    def reset(self, key: Array) -> Any:
        """The first timestep of an episode drawn from ``key``."""
        ...

    def step(self, timestep: Any, action: Array) -> Any:
        """The next timestep (a new episode's first after an ending one)."""
        ...


@dataclasses.dataclass(frozen=True)
class FunctionalTimestepEnv:
    """A protocol environment with the gridworld's ``reset(key)`` / ``step(timestep, action)``.

    Attributes:
        fenv: the wrapped `FunctionalEnv`.
    """

    fenv: FunctionalEnv

    @property
    def num_actions(self) -> int:
        """Size of a ``Discrete`` action space; for a ``Box``, its number of components (the
        action dimension, as gymnax's continuous environments report ``num_actions``)."""
        space = self.fenv.action_space
        if isinstance(space, spaces.Discrete):
            return int(space.n)
        return math.prod(space.shape)

    @property
    def action_space(self) -> Any:
        """The protocol's action space (``Discrete`` or ``Box``)."""
        return self.fenv.action_space

    @property
    def max_steps(self) -> int:
        """The time limit."""
        return int(self.fenv.max_steps)

    @property
    def env_id(self) -> str:
        """The registered id ("" if none)."""
        return self.fenv.env_id

    @property
    def observation_space(self) -> Any:
        """The protocol's observation space."""
        return self.fenv.observation_space

    def reset(self, key: Array) -> FunctionalTimestep:
        """The first timestep of an episode drawn from ``key``."""
        episode, step = engine.start_episode(self.fenv, key)
        return FunctionalTimestep(episode=episode, last=step)

    def step(self, timestep: FunctionalTimestep, action: Array) -> FunctionalTimestep:
        """One step, or a new episode's first timestep after an ending one (NEXT_STEP)."""
        episode, step, _ = engine.step_episode(
            self.fenv, engine.AutoresetMode.NEXT_STEP, timestep.episode, action
        )
        return FunctionalTimestep(episode=episode, last=step)
