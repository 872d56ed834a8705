"""Autoreset for the Maze's own API, single and vmapped (jumanji's wrappers, cheaper).

On a LAST step the returned state is a new episode, drawn by the episode engine's autoreset
rule (`horizax.core.episode.restart_finished`) from the Maze's next-episode key
(`horizax.maze.environment.next_episode_key`: ``split(state.key)[0]``, as jumanji's
`AutoResetWrapper` draws it, and as every other horizax path does); the returned `TimeStep`
keeps the LAST step type, reward and discount of the transition, carries the new episode's
first observation, and keeps the transition's own (terminal) observation in
``extras["next_obs"]`` -- on every step, so the pytree structure is fixed and the terminal
observation of a truncated episode is never lost.

`VmapAutoReset` runs a batch. The engine's rule is the sparse batched reset: under `vmap`
only the environments that just finished draw a maze, where jumanji's
`VmapAutoResetWrapper` (a `lax.cond` under `vmap`, i.e. a select) draws a maze for every
environment on every step and keeps most of them unused.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.core
import numpy as np
from jax import Array

from horizax.core import episode as engine
from horizax.maze.environment import Maze, observe
from horizax.maze.types import State, TimeStep

__all__ = ["AutoReset", "VmapAutoReset"]


@dataclasses.dataclass(frozen=True)
class AutoReset:
    """A `Maze` that starts a new episode inside the step that ends one.

    Attributes:
        env: the wrapped environment. Its other attributes (specs, ``render``, ...) are
            reachable on the wrapper.
    """

    env: Maze

    def __getattr__(self, name: str) -> Any:
        if name == "env":  # not set yet (e.g. while unpickling)
            raise AttributeError(name)
        return getattr(self.env, name)

    @property
    def unwrapped(self) -> Maze:
        """The wrapped `Maze`."""
        return self.env

    def _first_state(self, key: Array) -> State:
        return self.env.reset(key)[0]

    def reset(self, key: Array) -> tuple[State, TimeStep]:
        """`Maze.reset`, with ``extras["next_obs"]`` set to the first observation."""
        state, timestep = self.env.reset(key)
        extras = {**timestep.extras, "next_obs": timestep.observation}
        return state, timestep.replace(extras=extras)

    def step(self, state: State, action: Any) -> tuple[State, TimeStep]:
        """`Maze.step`; where the step is LAST, the state and observation of a new episode.

        Args:
            state: the current `State`.
            action: i32[] in [0, 4).

        Returns:
            ``(state, timestep)``. ``timestep.extras["next_obs"]`` is the transition's own
            observation (the terminal one on a LAST step).
        """
        state, timestep = self.env.step(state, action)
        state = engine.restart_finished(
            self.env.as_functional(), self._first_state, timestep.last(), state.key, state, state
        )
        extras = {**timestep.extras, "next_obs": timestep.observation}
        return state, timestep.replace(observation=observe(state), extras=extras)


@dataclasses.dataclass(frozen=True)
class VmapAutoReset(AutoReset):
    """`AutoReset` over a leading batch axis: ``reset(keys)`` with keys u32[B, 2] and
    ``step(states, actions)`` with actions i32[B]. Only finished environments draw a maze."""

    def reset(self, key: Array) -> tuple[State, TimeStep]:
        """Resets a batch, one environment per key (u32[B, 2])."""
        return jax.vmap(super().reset)(key)

    def step(self, state: State, action: Any) -> tuple[State, TimeStep]:
        """Steps a batch (actions i32[B]), resetting the environments that finished.

        Raises:
            ValueError: ``action`` is not one-dimensional, or holds a concrete value
                outside [0, 4) (traced values cannot be checked: they are no-ops).
        """
        if np.ndim(action) != 1:
            raise ValueError(f"action must be i32[B], got shape {np.shape(action)}")
        if not isinstance(action, jax.core.Tracer):
            values = np.asarray(action)
            if np.issubdtype(values.dtype, np.integer) and ((values < 0) | (values >= 4)).any():
                raise ValueError(f"actions outside the action space [0, 4): {values.tolist()}")
        return jax.vmap(super().step)(state, action)
