"""`horizax.maze.division.divide` against a plain-Python recursive division fed the same words.

The reference below is the textbook algorithm (an explicit stack of chambers, jumanji's order:
the second half is divided first) with the draw of `uniform_below` written with Python ints.
Equal walls for every maze show the kernel's fixed trip count, its carried chamber, its
bounded stack and its bit rows (one word and several words per row) lose nothing.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.maze import division

SIZES = [(10, 10), (11, 7), (7, 11), (2, 2), (1, 6), (6, 1), (3, 3), (5, 40), (40, 5), (33, 70)]
MAZES = 200


def reference_walls(wall_words, passage_words, num_rows, num_cols):
    """bool[R, C] walls, the trips taken and the most chambers waiting at once."""
    walls = np.zeros((num_rows, num_cols), bool)
    stack = [(0, 0, num_cols, num_rows)]
    trips = waiting = 0
    while stack:
        x, y, width, height = stack.pop()
        waiting = max(waiting, len(stack))
        vertical = width >= height
        across, along = (width, height) if vertical else (height, width)
        offset = 2 * ((int(wall_words[trips]) * (across // 2)) >> 32) + 1
        passage = 2 * ((int(passage_words[trips]) * ((along + 1) // 2)) >> 32)
        trips += 1
        if vertical:
            rows = [r for r in range(y, y + height) if r != y + passage]
            walls[rows, x + offset] = True
            halves = [(x, y, offset, height), (x + offset + 1, y, width - offset - 1, height)]
        else:
            cols = [c for c in range(x, x + width) if c != x + passage]
            walls[y + offset, cols] = True
            halves = [(x, y, width, offset), (x, y + offset + 1, width, height - offset - 1)]
        stack += [c for c in halves if c[2] > 1 and c[3] > 1]
    return walls, trips, waiting


def _words(shape, seed, mazes=MAZES):
    trips = division.max_divisions(*shape)
    words = jax.random.bits(jax.random.PRNGKey(seed), (mazes, 2, trips), jnp.uint32)
    return np.asarray(words)


@pytest.mark.parametrize("shape", SIZES)
def test_divide_equals_the_textbook_division_fed_the_same_words(shape):
    words = _words(shape, seed=sum(shape))
    ours = np.asarray(jax.jit(jax.vmap(lambda w: division.divide(w[0], w[1], *shape)))(words))
    for i in range(MAZES):
        walls, trips, waiting = reference_walls(words[i, 0], words[i, 1], *shape)
        np.testing.assert_array_equal(ours[i], walls, err_msg=f"maze {i} of {shape}")
        assert trips <= division.max_divisions(*shape)
        assert waiting <= division.max_deferred(*shape)


def test_the_stack_bound_is_reached_and_needed(monkeypatch):
    # About 1 maze in 200 of 10x10 sets 4 chambers aside at once; with room for 3, those
    # mazes lose walls.
    shape = (10, 10)
    assert division.max_deferred(*shape) == 4
    words = _words(shape, seed=5, mazes=2000)
    reference = [reference_walls(w[0], w[1], *shape) for w in words]
    assert max(waiting for _, _, waiting in reference) == 4
    monkeypatch.setattr(division, "max_deferred", lambda r, c: 3)
    short = np.asarray(jax.jit(jax.vmap(lambda w: division.divide(w[0], w[1], *shape)))(words))
    full = np.stack([walls for walls, _, _ in reference])
    assert (short.sum(axis=(1, 2)) <= full.sum(axis=(1, 2))).all()
    assert (short != full).any()


def test_bounds_values():
    shapes = [(5, 5), (10, 10), (11, 7), (20, 20), (1, 9)]
    assert [division.max_deferred(*s) for s in shapes] == [0, 4, 3, 8, 0]
    with pytest.raises(ValueError, match="num_cols"):
        division.max_deferred(3, 0)


def test_uniform_below_is_the_multiply_high():
    words = np.asarray(jax.random.bits(jax.random.PRNGKey(0), (4096,), jnp.uint32))
    words = np.concatenate([words, [0, 1, 2**16 - 1, 2**16, 2**31, 2**32 - 1]]).astype(np.uint32)
    bounds = np.array([0, 1, 2, 3, 5, 7, 100, 4097, 2**15 + 1, 2**16 - 1], np.uint32)
    got = np.asarray(jax.jit(division.uniform_below)(words[:, None], bounds[None, :]))
    want = (words[:, None].astype(np.uint64) * bounds[None, :].astype(np.uint64)) >> 32
    np.testing.assert_array_equal(got, want.astype(np.int32))
    assert got.dtype == np.int32


@pytest.mark.parametrize("bound", [1, 3, 5, 6, 65535])
def test_uniform_below_splits_the_words_into_near_equal_runs(bound):
    # Value k takes the words in [ceil(k 2**32 / n), ceil((k + 1) 2**32 / n)): check both ends
    # of every run, so every value's share is within one word in 2**32 of 1 / n.
    ks = list(range(min(bound, 2048)))
    starts = [-(-(k << 32) // bound) for k in ks]
    ends = [-(-((k + 1) << 32) // bound) - 1 for k in ks]
    words = np.array(starts + ends, np.uint32)
    got = np.asarray(division.uniform_below(jnp.asarray(words), jnp.uint32(bound)))
    np.testing.assert_array_equal(got, np.array(ks + ks, np.int32))
    assert max(abs(e - s + 1 - 2**32 / bound) for s, e in zip(starts, ends, strict=True)) <= 1
