"""The Maze behind the core functional protocol (`horizax.core.protocol`).

`MazeFunctional` wraps a `Maze` without autoreset: its state is the Maze's `State`, and each
`Step` carries a dict observation and the two flags read off the `TimeStep` (LAST with
discount 0 is ``terminated``, LAST with discount 1 is ``truncated``). Stepping after an
episode ended keeps moving the agent in that episode (``step_count`` keeps counting and every
further step past the time limit is truncated again); the adapters decide when to reset.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.protocol import Step, make_step
from horizax.core.spaces import Box, Dict, Discrete
from horizax.maze.environment import NUM_ACTIONS, Maze, next_episode_key
from horizax.maze.types import Observation, State, TimeStep

__all__ = ["MazeFunctional", "observation_dict"]


def observation_dict(observation: Observation) -> dict[str, Array]:
    """The protocol's dict form of an `Observation`; positions become i32[2] (row, col)."""
    return {
        "agent_position": jnp.stack(observation.agent_position).astype(jnp.int32),
        "target_position": jnp.stack(observation.target_position).astype(jnp.int32),
        "walls": observation.walls,
        "action_mask": observation.action_mask,
        "step_count": observation.step_count,
    }


def _to_step(timestep: TimeStep) -> Step:
    return make_step(
        observation_dict(timestep.observation),
        timestep.reward,
        timestep.terminated(),
        timestep.truncated(),
    )


@dataclasses.dataclass(frozen=True)
class MazeFunctional:
    """A `Maze` as a `horizax.core.protocol.FunctionalEnv`.

    Attributes:
        env: the wrapped environment.
    """

    env: Maze

    def __post_init__(self) -> None:
        if not isinstance(self.env, Maze):
            raise TypeError(f"MazeFunctional wraps a Maze, got {type(self.env)!r}")

    @property
    def observation_space(self) -> Dict:
        """Dict of agent_position / target_position i32[2] (row, col), walls bool[R, C],
        action_mask bool[4], step_count i32[] (0 to 2**31 - 1)."""
        num_rows, num_cols = self.env.shape
        position = Box(
            low=0, high=np.array([num_rows - 1, num_cols - 1]), shape=(2,), dtype=jnp.int32
        )
        return Dict(
            {
                "agent_position": position,
                "target_position": position,
                "walls": Box(low=False, high=True, shape=(num_rows, num_cols), dtype=jnp.bool_),
                "action_mask": Box(low=False, high=True, shape=(NUM_ACTIONS,), dtype=jnp.bool_),
                "step_count": Box(low=0, high=np.iinfo(np.int32).max, shape=(), dtype=jnp.int32),
            }
        )

    @property
    def action_space(self) -> Discrete:
        """`Discrete(4)`: Up, Right, Down, Left."""
        return Discrete(NUM_ACTIONS)

    @property
    def max_steps(self) -> int:
        """The time limit."""
        return self.env.time_limit  # type: ignore[return-value]

    @property
    def env_id(self) -> str:
        """The registered id ("" if built by hand)."""
        return self.env.env_id

    def reset(self, key: Array) -> tuple[State, Step]:
        """First `State` of an episode drawn from ``key`` and its `Step`."""
        state, timestep = self.env.reset(key)
        return state, _to_step(timestep)

    def step(self, key: Array, state: State, action: Array) -> tuple[State, Step]:
        """One step; ``key`` is unused (the Maze's randomness lives in its state)."""
        del key
        state, timestep = self.env.step(state, action)
        return state, _to_step(timestep)

    def next_episode_key(self, key: Array, state: State) -> Array:
        """The Maze's own next-episode key (jumanji's threading): ``split(state.key)[0]``."""
        del key
        return next_episode_key(state.key)

    def render(self, state: State, cell_size: int = 16) -> np.ndarray:
        """u8[R*cell_size, C*cell_size, 3] frame of one unbatched state (numpy, no
        matplotlib): walls black, floor white, agent green, target red."""
        from horizax.maze.viewer import rgb_frame

        return rgb_frame(state, cell_size)

    def replace(self, **changes: Any) -> MazeFunctional:
        """A view with some configuration changed; ``max_steps`` sets the time limit."""
        if "max_steps" in changes:
            changes["time_limit"] = changes.pop("max_steps")
        return MazeFunctional(self.env.replace(**changes))
