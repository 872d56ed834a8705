"""The Maze environment, with jumanji's API and dynamics.

One difference from jumanji, on purpose: reaching the time limit is a *truncation* (LAST with
discount 1), not a termination (LAST with discount 0), so value targets bootstrap correctly.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core import specs
from horizax.core.checks import check_key, check_unbatched, int_in_range
from horizax.core.protocol import Step, make_step
from horizax.core.spaces import Box, Dict, Discrete, check_action
from horizax.maze.generator import Generator, RandomGenerator
from horizax.maze.types import (
    Observation,
    Position,
    State,
    StepType,
    TimeStep,
    observation_dict,
    restart,
)

__all__ = ["MOVES", "Maze", "MazeFunctional", "make_maze", "next_episode_key"]

# Row and column change of Up, Right, Down, Left; (0, 0) is the top-left corner.
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], np.int32)
NUM_ACTIONS = 4


def action_mask(walls: Array, position: Position) -> Array:
    """bool[4]: the moves (Up, Right, Down, Left) from ``position`` that stay in the grid and
    do not enter a wall."""
    num_rows, num_cols = walls.shape
    row = position.row + MOVES[:, 0]
    col = position.col + MOVES[:, 1]
    inside = (row >= 0) & (row < num_rows) & (col >= 0) & (col < num_cols)
    blocked = walls[jnp.clip(row, 0, num_rows - 1), jnp.clip(col, 0, num_cols - 1)]
    return inside & ~blocked


def next_episode_key(state_key: Array) -> Array:
    """The key of the next episode, from ``state.key`` of the current one: ``split(...)[0]``.

    jumanji's autoreset wrappers draw the next maze from this key; every horizax path (the
    `AutoReset` wrappers, the protocol view and so every adapter) uses it too, so a seed
    plays the same sequence of mazes everywhere, and with `JumanjiRandomGenerator` the
    sequence jumanji plays.
    """
    return jax.random.split(state_key)[0]


def observe(state: State) -> Observation:
    """The `Observation` of a state (everything but the key)."""
    return Observation(
        agent_position=state.agent_position,
        target_position=state.target_position,
        walls=state.walls,
        action_mask=state.action_mask,
        step_count=state.step_count,
    )


@dataclasses.dataclass(frozen=True)
class Maze:
    """A 2D maze: move the agent to the target cell.

    - observation: `Observation`
        - agent_position: `Position` (row i32[], col i32[]) of the agent.
        - target_position: `Position` (row i32[], col i32[]) of the target.
        - walls: bool[R, C], True on walls.
        - action_mask: bool[4], the available moves (in bounds, not into a wall).
        - step_count: i32[], steps taken in the episode.
    - action: i32[] in [0, 4): Up, Right, Down, Left. A move into a wall or off the grid is a
      no-op that still counts a step. Inside `jit` an out-of-range action is a no-op too;
      concrete out-of-range values raise `ValueError`.
    - reward: f32[], 1.0 when the agent is on the target after the move, else 0.0.
    - termination (LAST, discount 0): the agent reaches the target, or has no move left.
    - truncation (LAST, discount 1): ``step_count`` reaches ``time_limit`` (default R * C);
      termination wins if both happen on one step. jumanji reports this as a termination.
    - state: `State`, the observation's fields plus key: u32[2] (autoreset's randomness).

    ```python
    env = Maze()
    state, timestep = jax.jit(env.reset)(jax.random.PRNGKey(0))
    state, timestep = jax.jit(env.step)(state, env.action_spec.generate_value())
    ```

    Args:
        generator: draws each episode's `State`; default ``RandomGenerator(10, 10)`` (jumanji's
            law of mazes; `JumanjiRandomGenerator` for jumanji's mazes key for key).
        time_limit: steps before truncation (>= 1); default ``num_rows * num_cols``.
        viewer: renders states; default a matplotlib `MazeViewer` in "human" mode.
        env_id: the registered id ("" when built by hand).

    Raises:
        ValueError: ``time_limit < 1``; TypeError: a generator that is not a `Generator`.
    """

    generator: Generator | None = None
    time_limit: int | None = None
    viewer: Any = None
    env_id: str = ""

    def __post_init__(self) -> None:
        generator = RandomGenerator(10, 10) if self.generator is None else self.generator
        if not isinstance(generator, Generator):
            raise TypeError(f"generator must be a maze Generator, got {type(generator)!r}")
        object.__setattr__(self, "generator", generator)
        limit = self.time_limit
        if limit is None:
            limit = generator.num_rows * generator.num_cols
        object.__setattr__(self, "time_limit", int_in_range(limit, "time_limit"))

    @property
    def num_rows(self) -> int:
        """Rows R of the maze."""
        return self.generator.num_rows  # type: ignore[union-attr]

    @property
    def num_cols(self) -> int:
        """Columns C of the maze."""
        return self.generator.num_cols  # type: ignore[union-attr]

    @property
    def shape(self) -> tuple[int, int]:
        """``(R, C)``."""
        return (self.num_rows, self.num_cols)

    def __repr__(self) -> str:
        return (
            f"Maze(num_rows={self.num_rows}, num_cols={self.num_cols}, "
            f"time_limit={self.time_limit}, generator={self.generator!r})"
        )

    def replace(self, **changes: Any) -> Maze:
        """A copy with some configuration changed (``generator``, ``time_limit``, ...)."""
        return dataclasses.replace(self, **changes)

    def __getstate__(self) -> dict[str, Any]:
        # Only the configuration: cached specs are rebuilt on demand, and the default viewer
        # (a matplotlib figure once rendered) must not travel with a pickled environment.
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @functools.cached_property
    def observation_spec(self) -> specs.Spec:
        """Spec of the `Observation`: positions as bounded i32[] pairs, walls bool[R, C],
        action_mask bool[4], step_count i32[]."""
        position = specs.Spec(
            Position,
            "PositionSpec",
            row=specs.BoundedArray((), jnp.int32, 0, self.num_rows - 1, "row_coordinate"),
            col=specs.BoundedArray((), jnp.int32, 0, self.num_cols - 1, "col_coordinate"),
        )
        return specs.Spec(
            Observation,
            "ObservationSpec",
            agent_position=position,
            target_position=position,
            walls=specs.BoundedArray(self.shape, jnp.bool_, False, True, "walls"),
            action_mask=specs.BoundedArray((4,), jnp.bool_, False, True, "action_mask"),
            step_count=specs.Array((), jnp.int32, "step_count"),
        )

    @functools.cached_property
    def action_spec(self) -> specs.DiscreteArray:
        """4 actions: 0 Up, 1 Right, 2 Down, 3 Left."""
        return specs.DiscreteArray(NUM_ACTIONS, name="action")

    @functools.cached_property
    def reward_spec(self) -> specs.Array:
        """f32[] reward."""
        return specs.Array((), jnp.float32, "reward")

    @functools.cached_property
    def discount_spec(self) -> specs.BoundedArray:
        """f32[] discount in [0, 1]."""
        return specs.BoundedArray((), jnp.float32, 0.0, 1.0, "discount")

    def reset(self, key: Array) -> tuple[State, TimeStep]:
        """Draws a new episode from the generator.

        Args:
            key: PRNG key.

        Returns:
            ``(state, timestep)``; the timestep is FIRST with reward 0 and discount 1.
        """
        state = self.generator(check_key(key))  # type: ignore[misc]
        state = state.replace(action_mask=action_mask(state.walls, state.agent_position))
        return state, restart(observe(state))

    def step(self, state: State, action: Any) -> tuple[State, TimeStep]:
        """Moves the agent one cell, unless the move is masked (then it stays put).

        Args:
            state: the current `State`.
            action: i32[] in [0, 4): Up, Right, Down, Left.

        Returns:
            ``(state, timestep)``: MID, or LAST with discount 0 (target reached or no move
            left) or 1 (time limit). Stepping on after LAST continues the same episode.

        Raises:
            TypeError, ValueError: ``action`` is not an integer scalar, or a concrete value
                outside [0, 4); ``state`` holds a batch (use `jax.vmap`).
        """
        check_unbatched(state.step_count, "state")
        action = check_action(action, NUM_ACTIONS)
        index = jnp.clip(action, 0, NUM_ACTIONS - 1)
        moves = (action >= 0) & (action < NUM_ACTIONS) & state.action_mask[index]
        delta = jnp.where(moves, jnp.asarray(MOVES)[index], 0)
        position = Position(
            state.agent_position.row + delta[0], state.agent_position.col + delta[1]
        )
        mask = action_mask(state.walls, position)
        state = state.replace(
            agent_position=position, action_mask=mask, step_count=state.step_count + 1
        )
        at_target = position == state.target_position
        terminated = at_target | ~jnp.any(mask)
        # __post_init__ replaced a None time_limit by its int default.
        truncated = state.step_count >= cast(int, self.time_limit)
        timestep = TimeStep(
            step_type=jnp.where(terminated | truncated, StepType.LAST, StepType.MID).astype(
                jnp.int8
            ),
            reward=at_target.astype(jnp.float32),
            discount=jnp.where(terminated, 0.0, 1.0).astype(jnp.float32),
            observation=observe(state),
            extras={},
        )
        return state, timestep

    def render(self, state: State) -> np.ndarray | None:
        """Draws one (unbatched) state with the viewer: u8[H, W, 3] in "rgb_array" mode."""
        return self._viewer.render(state)

    def animate(
        self, states: Sequence[State], interval: int = 200, save_path: str | None = None
    ) -> Any:
        """A matplotlib animation of ``states``; written as a GIF when ``save_path`` is set."""
        return self._viewer.animate(states, interval=interval, save_path=save_path)

    def close(self) -> None:
        """Closes the viewer's figures."""
        if self.viewer is not None or "_viewer" in self.__dict__:
            self._viewer.close()

    @functools.cached_property
    def _viewer(self) -> Any:
        if self.viewer is not None:
            return self.viewer
        from horizax.maze.viewer import MazeViewer

        return MazeViewer("Maze", render_mode="human")

    def as_functional(self) -> MazeFunctional:
        """This environment behind the core protocol (`MazeFunctional`)."""
        return MazeFunctional(self)


def make_maze(
    num_rows: int = 10,
    num_cols: int = 10,
    time_limit: int | None = None,
    generator: Generator | None = None,
    viewer: Any = None,
) -> Maze:
    """The factory behind ``horizax.make("Maze-v0", **overrides)``.

    Args:
        num_rows: rows of the default `RandomGenerator` (ignored with ``generator``).
        num_cols: columns of the default `RandomGenerator` (ignored with ``generator``).
        time_limit: default ``num_rows * num_cols`` of the generator.
        generator: a `Generator` to use instead of ``RandomGenerator(num_rows, num_cols)``.
        viewer: a viewer to use instead of the matplotlib default.
    """
    if generator is None:
        generator = RandomGenerator(num_rows, num_cols)
    return Maze(generator=generator, time_limit=time_limit, viewer=viewer, env_id="Maze-v0")


# --- the protocol view ------------------------------------------------------------------------
# The Maze behind `horizax.core.protocol`: `MazeFunctional` wraps a `Maze` without autoreset;
# its state is the Maze's `State`, and each `Step` carries the dict observation and the two
# flags read off the `TimeStep` (LAST with discount 0 is ``terminated``, LAST with discount 1
# is ``truncated``). Stepping after an episode ended keeps moving the agent in that episode;
# the episode engine decides when to reset.


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
