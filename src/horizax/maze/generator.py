"""Maze generators: a fixed 5x5 toy maze and two recursive-division random generators.

- `RandomGenerator` (the default of `Maze` and ``Maze-v0``) draws mazes with the law of
  jumanji's recursive-division generator: every wall offset, passage, agent and target is
  distributed as jumanji draws it (proven by the distribution tests), from one
  ``jax.random.bits`` call per maze.
- `JumanjiRandomGenerator` draws, for a given key, the very mazes jumanji 1.1.2's
  ``RandomGenerator`` draws (the same walls, agent, target and state key), by threading the
  key through the division as jumanji does. It costs more than twice as much per maze: keep it
  for lockstep comparisons with jumanji; use `RandomGenerator` to train.

Both divide with a loop of fixed length (`horizax.maze.division`), so under `vmap` no maze
waits on the batch's slowest one.
"""

from __future__ import annotations

import abc
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from horizax.maze import division
from horizax.maze.division import check_size, max_divisions
from horizax.maze.types import Position, State

__all__ = [
    "Generator",
    "JumanjiRandomGenerator",
    "RandomGenerator",
    "ToyGenerator",
    "max_divisions",
]


class Generator(abc.ABC):
    """Draws the initial `State` of an episode from a key.

    Args:
        num_rows: the number of rows R of the maze (>= 1).
        num_cols: the number of columns C of the maze (>= 1).

    Raises:
        ValueError: a size that is not a positive int.
    """

    def __init__(self, num_rows: int, num_cols: int) -> None:
        self.num_rows, self.num_cols = check_size(num_rows, num_cols)

    @abc.abstractmethod
    def __call__(self, key: Array) -> State:
        """A new episode's `State` (its ``action_mask`` is filled in by `Maze.reset`).

        Args:
            key: PRNG key.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_rows={self.num_rows}, num_cols={self.num_cols})"

    # Generators compare by configuration, so two equal `Maze`s are equal (and hash alike):
    # adapters that cache a compiled step per environment then compile it once. A subclass
    # with more configuration than its size must extend both methods.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Generator) or type(self) is not type(other):
            return False
        return (self.num_rows, self.num_cols) == (other.num_rows, other.num_cols)

    def __hash__(self) -> int:
        return hash((type(self), self.num_rows, self.num_cols))


_TOY_WALLS = (
    (0, 1, 0, 0, 0),
    (0, 1, 0, 1, 1),
    (0, 1, 0, 0, 0),
    (0, 0, 0, 1, 1),
    (0, 0, 0, 0, 0),
)


class ToyGenerator(Generator):
    """The fixed 5x5 maze of jumanji's `ToyGenerator`: agent at (0, 0), target at (0, 4)."""

    def __init__(self) -> None:
        super().__init__(num_rows=5, num_cols=5)

    def __repr__(self) -> str:
        return "ToyGenerator()"

    def __call__(self, key: Array) -> State:
        """The toy maze; ``key`` is kept in the state for autoreset."""
        return State(
            agent_position=Position(jnp.int32(0), jnp.int32(0)),
            target_position=Position(jnp.int32(0), jnp.int32(4)),
            walls=jnp.asarray(_TOY_WALLS, jnp.bool_),
            action_mask=jnp.zeros(4, jnp.bool_),
            step_count=jnp.int32(0),
            key=key,
        )


def _two_free_cells(key: Array, walls: Array) -> tuple[Position, Position]:
    """Two distinct non-wall cells, uniformly at random: the two largest of i.i.d. Gumbel
    noise over the free cells (what jumanji's weighted sampling without replacement draws;
    ties have probability 0)."""
    noise = jax.random.gumbel(key, (walls.size,), jnp.float32)
    return _two_largest(jnp.where(walls.reshape(-1), -jnp.inf, noise), -jnp.inf, walls)


def _two_free_cells_from_bits(bits: Array, walls: Array) -> tuple[Position, Position]:
    """Two distinct non-wall cells from u32[R * C] uniform words: the free cells with the
    largest and second-largest word. Every free cell's word is at least 1 and every wall's is
    0, so both are free; two free cells tie with probability below ``(R C)**2 / 2**32`` (the
    lower index wins then), the only departure from uniform."""
    return _two_largest(jnp.where(walls.reshape(-1), jnp.uint32(0), bits | 1), 0, walls)


def _two_largest(score: Array, lowest: Any, walls: Array) -> tuple[Position, Position]:
    """The cells of the largest and second-largest ``score`` (``lowest`` marks walls).

    Two argmax passes rather than `top_k`: the same indices (a tie resolves to the lower
    index in both), and much cheaper for small batches on CPU.
    """
    agent = jnp.argmax(score)
    target = jnp.argmax(jnp.where(jnp.arange(score.size) == agent, lowest, score))
    return _positions(jnp.stack([agent, target]), walls.shape[1])


def _positions(cells: Array, num_cols: int) -> tuple[Position, Position]:
    row, col = jnp.divmod(cells.astype(jnp.int32), num_cols)
    return Position(row[0], col[0]), Position(row[1], col[1])


def _start(agent: Position, target: Position, walls: Array, key: Array) -> State:
    return State(
        agent_position=agent,
        target_position=target,
        walls=walls,
        action_mask=jnp.zeros(4, jnp.bool_),
        step_count=jnp.int32(0),
        key=key,
    )


class _Division(Generator):
    """Shared checks of the recursive-division generators."""

    def __init__(self, num_rows: int, num_cols: int) -> None:
        super().__init__(num_rows, num_cols)
        if self.num_rows * self.num_cols < 2:
            raise ValueError("a maze needs at least 2 cells (distinct agent and target)")

    @property
    def max_divisions(self) -> int:
        """The fixed number of division trips per maze."""
        return max_divisions(self.num_rows, self.num_cols)


class RandomGenerator(_Division):
    """Random mazes by recursive division; agent and target on two distinct free cells.

    The default generator. Its mazes have the law of jumanji 1.1.2's
    ``RandomGenerator(num_rows, num_cols)``, not its draws: for a given key the maze differs
    from jumanji's (use `JumanjiRandomGenerator` for that). Per maze, one
    ``jax.random.bits`` call gives ``2 * max_divisions + R * C`` words: each wall offset and
    passage is uniform among its positions (`division.uniform_below`), agent and target are
    two distinct free cells, uniform up to ties of probability below ``(R C)**2 / 2**32``.

    Args:
        num_rows: rows R (>= 1, < 65536).
        num_cols: columns C (>= 1, < 65536); R * C >= 2 so that agent and target fit.

    Raises:
        ValueError: a non-positive or too large size, or a single-cell maze.
    """

    def __init__(self, num_rows: int, num_cols: int) -> None:
        super().__init__(num_rows, num_cols)
        if max(self.num_rows, self.num_cols) >= 2**16:  # `uniform_below` takes 16-bit bounds
            size = (self.num_rows, self.num_cols)
            raise ValueError(f"num_rows and num_cols must be < 65536, got {size}")

    def __call__(self, key: Array) -> State:
        """A random maze and start/target cells; the state keeps a key for autoreset."""
        key, draw_key = jax.random.split(key)
        trips, cells = self.max_divisions, self.num_rows * self.num_cols
        bits = jax.random.bits(draw_key, (2 * trips + cells,), jnp.uint32)
        walls = division.divide(bits[:trips], bits[trips : 2 * trips], self.num_rows, self.num_cols)
        agent, target = _two_free_cells_from_bits(bits[2 * trips :], walls)
        return _start(agent, target, walls, key)


class JumanjiRandomGenerator(_Division):
    """jumanji 1.1.2's ``RandomGenerator``, key for key: the same `State` (walls, positions,
    key) for the same key, by the same draws in the same order.

    Use it to compare with jumanji step by step; `RandomGenerator` has the same law and
    costs about half as much per maze.

    Args:
        num_rows: rows R (>= 1).
        num_cols: columns C (>= 1); R * C >= 2 so that agent and target fit.

    Raises:
        ValueError: a non-positive size, or a single-cell maze.
    """

    def __call__(self, key: Array) -> State:
        """jumanji's maze and start/target cells for ``key``; the state keeps a key."""
        key, maze_key, cells_key = jax.random.split(key, 3)
        walls = division.divide_keyed(maze_key, self.num_rows, self.num_cols)
        agent, target = _two_free_cells(cells_key, walls)
        return _start(agent, target, walls, key)
