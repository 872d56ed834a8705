"""The gridworld behind the core functional protocol (`horizax.core.protocol`).

`GridFunctional` wraps an `Environment` with autoreset off: its state is the gridworld's own
`Timestep` (so adapters can still render it or read its mission), and each `Step` splits the
`StepType` into ``terminated`` and ``truncated``. Stepping after an episode ended keeps
applying actions to that episode; the adapters decide when to reset.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from jax import Array

from horizax.core.protocol import Step, make_step
from horizax.core.spaces import Box, Discrete
from horizax.grid.environment import Environment, Timestep
from horizax.grid.render import render_image

__all__ = ["GridFunctional"]


@dataclasses.dataclass(frozen=True)
class GridFunctional:
    """A gridworld `Environment` as a `horizax.core.protocol.FunctionalEnv`.

    Attributes:
        env: the wrapped environment; its ``autoreset`` setting is ignored (always off here).
    """

    env: Environment

    def __post_init__(self) -> None:
        if not isinstance(self.env, Environment):
            raise TypeError(f"GridFunctional wraps a grid Environment, got {type(self.env)!r}")
        if self.env.autoreset:
            object.__setattr__(self, "env", self.env.disable_autoreset())

    @property
    def observation_space(self) -> Box:
        """The environment's observation space."""
        return self.env.observation_space

    @property
    def action_space(self) -> Discrete:
        """`Discrete(num_actions)`."""
        return self.env.action_space

    @property
    def max_steps(self) -> int:
        """The time limit."""
        return self.env.max_steps

    @property
    def env_id(self) -> str:
        """The registered id ("" if built by hand)."""
        return self.env.env_id

    def reset(self, key: Array) -> tuple[Timestep, Step]:
        """First `Timestep` of an episode drawn from ``key`` and its `Step`."""
        timestep = self.env.reset(key)
        return timestep, make_step(timestep.observation)

    def step(self, key: Array, state: Timestep, action: Array) -> tuple[Timestep, Step]:
        """One step; ``key`` is unused (the gridworld's randomness lives in its state)."""
        del key
        timestep = self.env.step(state, action)
        step = make_step(
            timestep.observation,
            timestep.reward,
            timestep.is_termination(),
            timestep.is_truncation(),
        )
        return timestep, step

    def render(self, state: Timestep, tile_size: int = 32) -> np.ndarray:
        """u8[H*T, W*T, 3] frame of the full grid of one unbatched `Timestep`."""
        return render_image(state.state, tile_size)

    def replace(self, **changes: Any) -> GridFunctional:
        """A view of the environment with some configuration changed."""
        return GridFunctional(self.env.replace(**changes))
