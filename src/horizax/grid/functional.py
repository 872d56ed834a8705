"""The gridworld behind the core functional protocol (`horizax.core.protocol`).

`GridFunctional` wraps an `Environment` with autoreset off: its state is the gridworld's own
`Timestep`, and each `Step` splits the `StepType` into ``terminated`` and ``truncated``.
Stepping after an episode ended keeps applying actions to that episode; the episode engine
(`horizax.core.episode`) decides when to reset.

The observation is MiniGrid's user-facing dict, so every adapter shows what MiniGrid users
expect without knowing the gridworld: ``image`` (the environment's ``observation_fn``),
``direction`` (``agent_dir``, `Discrete` 4) and ``mission`` (a `horizax.core.spaces.Text`:
i32[10] inside `jit`, MiniGrid's string once an adapter decodes it).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from jax import Array

from horizax.core.protocol import Step, make_step
from horizax.core.spaces import Box, Dict, Discrete
from horizax.grid.environment import Environment, Timestep
from horizax.grid.missions import mission_space
from horizax.grid.render import render_image

__all__ = ["GridFunctional"]


def _observation(timestep: Timestep) -> dict[str, Array]:
    state = timestep.state
    return {"image": timestep.observation, "direction": state.agent_dir, "mission": state.mission}


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
    def observation_space(self) -> Dict:
        """MiniGrid's dict: ``image`` (u8 images as MiniGrid declares them, ``Box(0, 255)``;
        other dtypes the environment's own space), ``direction`` `Discrete` (4) and
        ``mission`` (`horizax.grid.missions.mission_space`)."""
        image = self.env.observation_space
        if np.dtype(image.dtype) == np.uint8:
            image = Box(0, 255, image.shape, np.uint8)
        return Dict({"image": image, "direction": Discrete(4), "mission": mission_space()})

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
        return timestep, make_step(_observation(timestep))

    def step(self, key: Array, state: Timestep, action: Array) -> tuple[Timestep, Step]:
        """One step; ``key`` is unused (the gridworld's randomness lives in its state)."""
        del key
        timestep = self.env.step(state, action)
        step = make_step(
            _observation(timestep),
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
