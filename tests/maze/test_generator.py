"""Maze generators: the toy layout, random mazes' invariants (both random generators), the
fixed trip bound, errors. `RandomGenerator`'s kernel is checked against a plain-Python
division fed the same words in `test_division.py`."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.maze import division
from horizax.maze import generator as gen
from horizax.maze.generator import (
    JumanjiRandomGenerator,
    RandomGenerator,
    ToyGenerator,
    max_divisions,
)
from horizax.maze.types import State
from tests.maze.maze_stats import summarize

TOY = np.array(
    [
        [0, 1, 0, 0, 0],
        [0, 1, 0, 1, 1],
        [0, 1, 0, 0, 0],
        [0, 0, 0, 1, 1],
        [0, 0, 0, 0, 0],
    ],
    bool,
)


def _batch(generator, n, seed=0):
    return jax.jit(jax.vmap(generator))(jax.random.split(jax.random.PRNGKey(seed), n))


RANDOM = [RandomGenerator, JumanjiRandomGenerator]


@functools.cache
def _random_batch(shape, n=300, seed=0, kind=RandomGenerator):
    """A batch of random mazes, drawn once per shape for all tests (compiles cost seconds)."""
    return _batch(kind(*shape), n, seed)


def test_toy_generator_is_jumanjis_fixed_maze():
    key = jax.random.PRNGKey(3)
    state = ToyGenerator()(key)
    assert isinstance(state, State)
    np.testing.assert_array_equal(state.walls, TOY)
    assert (int(state.agent_position.row), int(state.agent_position.col)) == (0, 0)
    assert (int(state.target_position.row), int(state.target_position.col)) == (0, 4)
    assert int(state.step_count) == 0 and state.step_count.dtype == jnp.int32
    np.testing.assert_array_equal(state.key, key)  # kept for autoreset


@pytest.mark.parametrize("kind", RANDOM)
@pytest.mark.parametrize("shape", [(10, 10), (11, 7), (5, 5), (2, 2), (6, 1), (1, 6), (9, 37)])
def test_random_mazes_are_connected_with_distinct_free_start_and_target(shape, kind):
    states = _random_batch(shape, kind=kind)
    assert states.walls.shape == (300, *shape) and states.walls.dtype == jnp.bool_
    stats = summarize(states)
    np.testing.assert_array_equal(stats["reachable"], 1.0, "every free cell reachable")
    assert (stats["distance"] > 0).all(), "target is a free cell distinct from the agent"
    agent = np.asarray(
        states.walls[np.arange(300), states.agent_position.row, states.agent_position.col]
    )
    assert not agent.any(), "agent on a wall"
    # Recursive division never walls a cell whose row and column are both even.
    assert not stats["walls"][:, ::2, ::2].any()


@pytest.mark.parametrize("kind", RANDOM)
def test_walls_are_odd_lines_and_passages_even(kind):
    walls = np.asarray(_random_batch((11, 7), kind=kind).walls)
    # A wall cell is on an odd row or an odd column.
    rows, cols = np.nonzero(walls.any(axis=0))
    assert ((rows % 2 == 1) | (cols % 2 == 1)).all()
    # Cells on an odd row AND odd column are wall junctions: walls more often than not.
    assert walls[:, 1::2, 1::2].mean() > 0.5


@pytest.mark.parametrize("kind", RANDOM)
def test_start_and_target_are_uniform_over_free_cells(kind):
    # On the toy-sized 5x5 maze, every free cell must be picked about equally often.
    states = _random_batch((5, 5), 4000, kind=kind)
    walls = np.asarray(states.walls)
    counts = np.zeros((5, 5))
    free = np.zeros((5, 5))
    np.add.at(
        counts, (np.asarray(states.agent_position.row), np.asarray(states.agent_position.col)), 1
    )
    free += (~walls).sum(axis=0)
    # P(agent at cell) = E[1{free} / #free]; compare with the empirical frequency.
    expected = ((~walls) / (~walls).sum(axis=(1, 2), keepdims=True)).sum(axis=0)
    z = (counts - expected) / np.sqrt(expected + 1e-9)
    assert np.abs(z[free > 0]).max() < 5, z


@pytest.mark.parametrize("kind", RANDOM)
def test_same_key_same_maze_and_different_keys_differ(kind):
    # The vmapped batch's element i is exactly the unbatched maze of key i.
    batch = _random_batch((10, 10), kind=kind)
    keys = jax.random.split(jax.random.PRNGKey(0), 300)
    single = jax.jit(kind(10, 10))
    for i in (0, 123, 299):
        one = single(keys[i])
        for x, y in zip(jax.tree.leaves(one), jax.tree.leaves(batch), strict=True):
            np.testing.assert_array_equal(x, np.asarray(y)[i])
    walls = np.asarray(batch.walls).reshape(300, -1)
    assert len({w.tobytes() for w in walls}) == 300


def test_max_divisions_values():
    assert [max_divisions(*s) for s in [(5, 5), (10, 10), (11, 7), (7, 11), (20, 20)]] == [
        3,
        17,
        11,
        11,
        59,
    ]
    assert max_divisions(1, 1) == 1 and max_divisions(1, 9) == 1 and max_divisions(3, 3) == 1
    assert RandomGenerator(10, 10).max_divisions == 17
    assert JumanjiRandomGenerator(10, 10).max_divisions == 17


@pytest.mark.parametrize("kind", RANDOM)
def test_the_trip_bound_is_needed(kind, monkeypatch):
    # With one trip fewer than the bound, some 5x5 mazes lose their last wall: the bound is
    # what keeps every maze complete (test_reference and test_division show it is enough).
    full = np.asarray(_random_batch((5, 5), 4000, kind=kind).walls)
    monkeypatch.setattr(gen, "max_divisions", lambda r, c: 2)
    monkeypatch.setattr(division, "max_divisions", lambda r, c: 2)
    short = np.asarray(_batch(kind(5, 5), 4000).walls)
    assert (full.sum(axis=(1, 2)) >= short.sum(axis=(1, 2))).all()
    assert (full != short).any()


@pytest.mark.parametrize("kind", RANDOM)
@pytest.mark.parametrize("bad", [0, -3, 2.5, True, None, "4"])
def test_bad_sizes_raise_value_error(bad, kind):
    with pytest.raises(ValueError, match="num_rows"):
        kind(bad, 5)
    with pytest.raises(ValueError, match="num_cols"):
        kind(5, bad)


@pytest.mark.parametrize("kind", RANDOM)
def test_single_cell_maze_is_rejected(kind):
    with pytest.raises(ValueError, match="at least 2 cells"):
        kind(1, 1)


def test_random_generator_takes_sizes_below_65536():
    # Its draws multiply a 32-bit word by a 16-bit bound (`division.uniform_below`).
    assert RandomGenerator(65535, 1).num_rows == 65535
    with pytest.raises(ValueError, match="< 65536"):
        RandomGenerator(2, 65536)


def test_the_two_random_generators_differ_in_draws_not_in_kind():
    # Same size, different generator: not equal (an adapter must not share their programs).
    assert RandomGenerator(5, 5) != JumanjiRandomGenerator(5, 5)
    assert JumanjiRandomGenerator(5, 5) == JumanjiRandomGenerator(5, 5)
    key = jax.random.PRNGKey(4)
    assert (RandomGenerator(10, 10)(key).walls != JumanjiRandomGenerator(10, 10)(key).walls).any()


def test_repr():
    assert repr(RandomGenerator(3, 4)) == "RandomGenerator(num_rows=3, num_cols=4)"
    assert repr(JumanjiRandomGenerator(3, 4)) == "JumanjiRandomGenerator(num_rows=3, num_cols=4)"
    assert repr(ToyGenerator()) == "ToyGenerator()"
