"""Maze generators: a fixed 5x5 toy maze and recursive-division random mazes.

`RandomGenerator` draws the same mazes as jumanji's recursive-division generator -- for a
given key, the very same walls, agent and target -- but with a loop whose cost is fixed.

Recursive division starts from one empty chamber (the whole grid) and repeatedly takes a
chamber off a stack, splits it with a wall of thickness one (a vertical wall when the chamber
is at least as wide as it is tall, else a horizontal one) at an odd offset, opens one passage
at an even offset along the wall, and pushes the two sub-chambers that are still at least
2x2. jumanji runs this as a `while_loop` until the stack is empty, with a `lax.cond` choosing
the wall's orientation and two `fori_loop`s of data-dependent length drawing it. Under `vmap`
all of them become masked loops that run as long as the batch's slowest maze, and both branches
of the `cond` execute on every trip.

Here the loop has a fixed trip count, `max_divisions(num_rows, num_cols)`: the largest number
of chambers any maze of that size can split, computed exactly once in Python (17 for 10x10).
Trips after the stack is empty change nothing. A trip is branch-free integer work: the
orientation picks operands with `where`, and the wall is one comparison over the
``bool[R, C]`` grid. Chambers are split in jumanji's order and the PRNG key is threaded through
the trips as jumanji threads it, so the draws match jumanji's key for key (the distribution is
what the tests require; equal draws make the proof direct). Every random number is drawn
before the loop (`_division_draws`), because on CPU each threefry call is a small loop of its
own and a trip would otherwise wait on several of them in sequence.

Agent and target are two distinct free cells, uniformly at random: Gumbel noise on every cell,
walls masked to -inf, the two largest kept (the same draw jumanji's weighted
`jax.random.choice` without replacement makes).
"""

from __future__ import annotations

import abc
import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from horizax.maze.types import Position, State

__all__ = ["Generator", "RandomGenerator", "ToyGenerator", "max_divisions"]


def _positive_int(label: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{label} must be a positive int, got {value!r}")
    return int(value)


def _check_size(num_rows: object, num_cols: object) -> tuple[int, int]:
    return _positive_int("num_rows", num_rows), _positive_int("num_cols", num_cols)


class Generator(abc.ABC):
    """Draws the initial `State` of an episode from a key.

    Args:
        num_rows: the number of rows R of the maze (>= 1).
        num_cols: the number of columns C of the maze (>= 1).

    Raises:
        ValueError: a size that is not a positive int.
    """

    def __init__(self, num_rows: int, num_cols: int) -> None:
        self.num_rows, self.num_cols = _check_size(num_rows, num_cols)

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


# The three rules of a division, one place each (the distribution tests break them on purpose).
def _splits_vertically(width: Any, height: Any) -> Any:
    """A chamber at least as wide as it is tall gets a vertical wall (jumanji's rule)."""
    return width >= height


def _wall_offset(draw: Array) -> Array:
    """Walls lie at odd offsets from the chamber's corner: ``randint(0, across // 2)`` -> odd."""
    return draw * 2 + 1


def _passage_offset(draw: Array) -> Array:
    """Passages lie at even offsets along the wall: ``randint(0, (along + 1) // 2)`` -> even."""
    return draw * 2


def _children(width: int, height: int, offset: int) -> tuple[tuple[int, int], ...]:
    if _splits_vertically(width, height):  # a vertical wall at column `offset`
        return (offset, height), (width - offset - 1, height)
    return (width, offset), (width, height - offset - 1)


@functools.cache
def _most_splits(width: int, height: int) -> int:
    # Splits of a chamber that was pushed, over the worst choice of wall offsets.
    span = width if _splits_vertically(width, height) else height
    worst = 0
    for offset in range(1, max(span, 2), 2):
        kids = _children(width, height, offset)
        worst = max(worst, sum(_most_splits(w, h) for w, h in kids if w > 1 and h > 1))
    return 1 + worst


def max_divisions(num_rows: int, num_cols: int) -> int:
    """The most chambers recursive division can split in an R x C maze (a tight bound).

    The whole grid is always split once (even when it is a single row or column: that split
    draws no wall that stays); a sub-chamber is split only while it is at least 2x2. The bound
    is the maximum over every choice of wall offsets, e.g. 3 for 5x5, 11 for 11x7, 17 for
    10x10, 59 for 20x20.
    """
    num_rows, num_cols = _check_size(num_rows, num_cols)
    return _most_splits(num_cols, num_rows)


def _division_draws(key: Array, trips: int, longest: int) -> tuple[Array, Array]:
    """Every random draw of the division loop, made before it.

    Trip ``i`` of jumanji's loop splits its key into (next key, wall key, passage key) and
    draws ``randint(wall_key, (), 0, n)`` and ``randint(passage_key, (), 0, m)``, where ``n``
    and ``m`` depend on the chamber being split. The keys depend on nothing but the trip, so
    they are drawn first (a scan of one split per trip), and each key's draw is tabulated for
    every possible bound (``randint`` of one key for several bounds shares the key's bits).
    The loop then reads the table: on CPU, where each threefry call is a loop of its own,
    this keeps all but one of them out of the trip's sequential path.

    Returns:
        i32[trips, longest // 2 + 2] twice: wall and passage draws for bounds 0, 1, ...
    """

    def next_keys(key: Array, _: None) -> tuple[Array, tuple[Array, Array]]:
        key, wall_key, passage_key = jax.random.split(key, 3)
        return key, (wall_key, passage_key)

    _, (wall_keys, passage_keys) = jax.lax.scan(next_keys, key, None, length=trips)
    bounds = jnp.arange(longest // 2 + 2, dtype=jnp.int32)

    def table(keys: Array) -> Array:
        draw = jax.vmap(lambda k, n: jax.random.randint(k, (), 0, n), in_axes=(None, 0))
        return jax.vmap(draw, in_axes=(0, None))(keys, bounds)

    return table(wall_keys), table(passage_keys)


def _recursive_division(key: Array, num_rows: int, num_cols: int) -> Array:
    """bool[R, C] walls of one maze; the trips and their key use match jumanji's generator."""
    trips = max_divisions(num_rows, num_cols)
    wall_draws, passage_draws = _division_draws(key, trips, max(num_rows, num_cols))
    rows = jnp.arange(num_rows, dtype=jnp.int32)[:, None]
    cols = jnp.arange(num_cols, dtype=jnp.int32)[None, :]
    # A chamber is (x, y, width, height); the stack never holds more than `trips` of them.
    stack = jnp.zeros((trips + 1, 4), jnp.int32).at[0].set(jnp.array([0, 0, num_cols, num_rows]))

    def divide(trip: Array, carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        walls, stack, size = carry
        busy = size > 0  # False once every chamber is split: the trip changes nothing
        size = size - busy.astype(jnp.int32)
        x, y, width, height = stack[size]
        vertical = _splits_vertically(width, height)
        across = jnp.where(vertical, width, height)  # the wall's offset is drawn across it
        along = jnp.where(vertical, height, width)  # the passage is drawn along it
        offset = _wall_offset(wall_draws[trip, across // 2])  # odd, in [1, across)
        passage = _passage_offset(passage_draws[trip, (along + 1) // 2])  # even, in [0, along)
        # Both orientations as one expression: the wall line, minus the passage cell.
        line, pos = jnp.where(vertical, cols, rows), jnp.where(vertical, rows, cols)
        start = jnp.where(vertical, x, y)
        first = jnp.where(vertical, y, x)
        wall = (line == start + offset) & (pos >= first) & (pos < first + along)
        walls = walls | (busy & wall & (pos != first + passage))
        before = jnp.where(
            vertical, jnp.stack([x, y, offset, height]), jnp.stack([x, y, width, offset])
        )
        after = jnp.where(
            vertical,
            jnp.stack([x + offset + 1, y, width - offset - 1, height]),
            jnp.stack([x, y + offset + 1, width, height - offset - 1]),
        )
        for chamber in (before, after):
            push = busy & (chamber[2] > 1) & (chamber[3] > 1)
            stack = stack.at[size].set(jnp.where(push, chamber, stack[size]))
            size = size + push.astype(jnp.int32)
        return walls, stack, size

    walls = jnp.zeros((num_rows, num_cols), jnp.bool_)
    return jax.lax.fori_loop(0, trips, divide, (walls, stack, jnp.int32(1)))[0]


def _two_free_cells(key: Array, walls: Array) -> tuple[Position, Position]:
    """Two distinct non-wall cells, uniformly at random: the two largest of i.i.d. Gumbel
    noise over the free cells (what weighted sampling without replacement draws)."""
    noise = jax.random.gumbel(key, (walls.size,), jnp.float32)
    noise = jnp.where(walls.reshape(-1), -jnp.inf, noise)
    # Two argmax passes rather than `top_k`: the same indices (ties have probability 0 and
    # would resolve to the lower index in both), and much cheaper for small batches on CPU.
    agent = jnp.argmax(noise)
    target = jnp.argmax(jnp.where(jnp.arange(walls.size) == agent, -jnp.inf, noise))
    row, col = jnp.divmod(jnp.stack([agent, target]).astype(jnp.int32), walls.shape[1])
    return Position(row[0], col[0]), Position(row[1], col[1])


class RandomGenerator(Generator):
    """Random mazes by recursive division; agent and target on two distinct free cells.

    For the same key it returns the same `State` (walls, positions, key) as jumanji 1.1.2's
    ``RandomGenerator(num_rows, num_cols)``.

    Args:
        num_rows: rows R (>= 1).
        num_cols: columns C (>= 1); R * C >= 2 so that agent and target fit.

    Raises:
        ValueError: a non-positive size, or a single-cell maze.
    """

    def __init__(self, num_rows: int, num_cols: int) -> None:
        super().__init__(num_rows, num_cols)
        if self.num_rows * self.num_cols < 2:
            raise ValueError("a maze needs at least 2 cells (distinct agent and target)")

    @property
    def max_divisions(self) -> int:
        """The fixed number of division trips per maze."""
        return max_divisions(self.num_rows, self.num_cols)

    def __call__(self, key: Array) -> State:
        """A random maze and start/target cells; the state keeps a key for autoreset."""
        key, maze_key, cells_key = jax.random.split(key, 3)
        walls = _recursive_division(maze_key, self.num_rows, self.num_cols)
        agent, target = _two_free_cells(cells_key, walls)
        return State(
            agent_position=agent,
            target_position=target,
            walls=walls,
            action_mask=jnp.zeros(4, jnp.bool_),
            step_count=jnp.int32(0),
            key=key,
        )
