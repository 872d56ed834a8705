"""A gridworld-style `Timestep` API over any environment of the core protocol.

`horizax.adapters.gymnax.ToGymnax` is written against the gridworld's `Timestep` (seed 004:
``state.timestep.step_type``, ``timestep.t``, ``is_done()``, ...). `FunctionalTimestepEnv`
gives any `horizax.core.protocol.FunctionalEnv` (the Maze, for one) that same shape, so the
adapter serves every family without a second code path:

* `FunctionalTimestep` holds the protocol state, its last `Step`, the step count ``t`` and the
  episode key, and answers ``observation``, ``reward``, ``step_type`` (the gridworld's
  `StepType`: 2 termination, 1 truncation, 0 otherwise), ``is_done()`` and friends.
* `FunctionalTimestepEnv.step` autoresets as the gridworld does: the step after an ending one
  ignores its action and returns the first timestep of a new episode, drawn from the next
  stream of the episode key (`horizax.core.episode_keys`); under `vmap` only the finished
  environments draw one (`horizax.core.autoreset.reset_where`).
* The protocol's ``step`` key is derived from the episode key and ``t``, so a run is a pure
  function of the reset key.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from horizax.core import episode_keys
from horizax.core.autoreset import reset_where
from horizax.core.protocol import FunctionalEnv, Step
from horizax.core.step_type import check_truncation
from horizax.core.struct import pytree_dataclass

__all__ = ["FunctionalTimestep", "FunctionalTimestepEnv"]


@pytree_dataclass
class FunctionalTimestep:
    """One step of a protocol environment, with the gridworld `Timestep`'s accessors.

    Attributes:
        state: the protocol state (opaque pytree).
        last: the `Step` that produced ``state``.
        t: i32[], steps taken in this episode (0 after a reset).
        key: the key the episode was drawn from (seeds the next episode).
    """

    state: Any
    last: Step
    t: Array
    key: Array

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
        return self.last.terminated | self.last.truncated

    def is_termination(self) -> Array:
        """bool[]: an absorbing state was reached."""
        return self.last.terminated

    def is_truncation(self) -> Array:
        """bool[]: the time limit cut the episode."""
        return self.last.truncated


@dataclasses.dataclass(frozen=True)
class FunctionalTimestepEnv:
    """A protocol environment with the gridworld's ``reset(key)`` / ``step(timestep, action)``.

    Attributes:
        fenv: the wrapped `FunctionalEnv`.
    """

    fenv: FunctionalEnv

    @property
    def num_actions(self) -> int:
        """Size of the discrete action space."""
        return int(self.fenv.action_space.n)

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

    def _first(self, key: Array) -> FunctionalTimestep:
        state, step = self.fenv.reset(key)
        return FunctionalTimestep(state=state, last=step, t=jnp.int32(0), key=key)

    def reset(self, key: Array) -> FunctionalTimestep:
        """The first timestep of an episode drawn from ``key``."""
        return self._first(key)

    def step(self, timestep: FunctionalTimestep, action: Array) -> FunctionalTimestep:
        """One step, or a new episode's first timestep after an ending one."""
        step_key = jax.random.fold_in(episode_keys.dynamics_key(timestep.key), timestep.t)
        state, step = self.fenv.step(step_key, timestep.state, action)
        advanced = FunctionalTimestep(state=state, last=step, t=timestep.t + 1, key=timestep.key)
        return reset_where(
            self._first, timestep.is_done(), episode_keys.next_episode_key(timestep.key), advanced
        )
