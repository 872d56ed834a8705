"""A tiny protocol environment with a Dict observation, for adapter tests.

An agent walks a corridor of ``length`` cells (action 0 left, 1 right) from a start cell drawn
from the reset key; reaching the last cell terminates with reward 1, ``max_steps`` truncates.
The observation is ``{"position": i32[], "action_mask": bool[2]}``, so adapters meet a Dict
space with an integer and a boolean Box, as the Maze's will be.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.protocol import Step, make_step
from horizax.core.spaces import Box, Dict, Discrete
from horizax.core.struct import pytree_dataclass


@pytree_dataclass
class CorridorState:
    position: Array  # i32[]
    t: Array  # i32[]


@dataclasses.dataclass(frozen=True)
class Corridor:
    """`horizax.core.protocol.FunctionalEnv` over a 1-D corridor."""

    length: int = 5
    max_steps: int = 6
    env_id: str = "Corridor-v0"

    @property
    def observation_space(self) -> Dict:
        return Dict(
            {
                "position": Box(0, self.length - 1, (), jnp.int32),
                "action_mask": Box(False, True, (2,), jnp.bool_),
            }
        )

    @property
    def action_space(self) -> Discrete:
        return Discrete(2)

    def _observation(self, position: Array) -> dict[str, Array]:
        mask = jnp.stack([position > 0, position < self.length - 1])
        return {"position": position, "action_mask": mask}

    def reset(self, key: Array) -> tuple[CorridorState, Step]:
        position = jax.random.randint(key, (), 0, self.length - 2)
        return CorridorState(position, jnp.int32(0)), make_step(self._observation(position))

    def step(self, key: Array, state: CorridorState, action: Array) -> tuple[CorridorState, Step]:
        del key
        move = jnp.where(action == 1, 1, -1)
        position = jnp.clip(state.position + move, 0, self.length - 1).astype(jnp.int32)
        t = state.t + 1
        goal = position == self.length - 1
        state = CorridorState(position, t)
        step = make_step(
            self._observation(position), goal.astype(jnp.float32), goal, t >= self.max_steps
        )
        return state, step

    def render(self, state: Any) -> np.ndarray:
        frame = np.zeros((1, self.length, 3), np.uint8)
        frame[0, int(state.position)] = 255
        return frame
