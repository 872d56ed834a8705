"""Tests of the layout sampling helpers that are not covered through a family's own tests."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid.cells import write_cell
from horizax.grid.sampling import (
    WIDE_DIGIT_BUDGET,
    Digits,
    distinct,
    draw_digits,
    empty_cells,
    mixed_radix,
    nth_free,
    pick_cell,
    pick_interior_cells,
    select_bit,
    uniform_scores,
)
from horizax.grid.state import walled_grid


def _one_by_one(bits: jax.Array, width: int, height: int) -> jax.Array:
    """The reference: `pick_cell` on the empty mask, filling each drawn cell before the next."""
    grid = jnp.asarray(walled_grid(width, height))
    drawn = []
    for word in bits:
        cell = pick_cell(empty_cells(grid), word)
        grid = write_cell(grid, cell, jnp.asarray(C.WALL_CELL, jnp.uint8))
        drawn.append(cell)
    return jnp.stack(drawn)


@pytest.mark.parametrize(("width", "height", "count"), [(5, 5, 3), (8, 8, 4), (6, 9, 6), (4, 4, 4)])
def test_pick_interior_cells_equals_successive_pick_cell(width, height, count):
    words = jax.random.bits(jax.random.key(width * height + count), (300, count), jnp.uint32)
    # Extreme words too: the first and the last free cell of every draw.
    extremes = jnp.asarray([[0] * count, [0xFFFFFFFF] * count], jnp.uint32)
    words = jnp.concatenate([words, extremes])
    fast = jax.jit(jax.vmap(lambda w: pick_interior_cells(w, width, height)))(words)
    # The reference vmapped too: one compiled program, not 302 x count eager draws.
    slow = jax.jit(jax.vmap(lambda w: _one_by_one(w, width, height)))(words)
    rows = zip(np.asarray(words), np.asarray(fast), np.asarray(slow), strict=True)
    for row, cells, expected in rows:
        np.testing.assert_array_equal(cells, expected, err_msg=str(row))


def test_pick_interior_cells_fills_a_whole_room_with_distinct_cells():
    words = jax.random.bits(jax.random.key(0), (50, 9), jnp.uint32)
    cells = np.asarray(jax.vmap(lambda w: pick_interior_cells(w, 5, 5))(words))
    assert cells.min() == 1 and cells.max() == 3
    for draw in cells:
        assert len({tuple(c) for c in draw}) == 9


def test_pick_interior_cells_rejects_more_cells_than_the_room_has():
    with pytest.raises(ValueError, match="cannot draw 5 distinct cells from 4"):
        pick_interior_cells(jnp.zeros(5, jnp.uint32), 4, 4)


def test_nth_free_enumerates_what_is_left():
    """The rank-th value not taken yet: the map behind every draw without replacement."""
    for used in itertools.permutations(range(7), 3):
        free = [v for v in range(7) if v not in used]
        got = [int(nth_free(jnp.int32(r), [jnp.int32(u) for u in used])) for r in range(4)]
        assert got == free, used


def test_distinct_enumerates_every_ordered_draw_once():
    """All rank sequences give all ordered draws of 3 of 5, each exactly once."""
    draws = {
        tuple(int(v) for v in distinct([jnp.int32(a), jnp.int32(b), jnp.int32(c)]))
        for a in range(5)
        for b in range(4)
        for c in range(3)
    }
    assert draws == set(itertools.permutations(range(5), 3))


def test_digits_pack_greedily_under_the_budget():
    """A digit opens a new word exactly when its bound would push the product over budget."""
    digits = Digits(budget=WIDE_DIGIT_BUDGET)
    for bound in [4, 4, 4, 4, 4, 4, 6, 5, 4, 3, 36, 4, 4]:
        digits.draw(bound, bound)
    assert digits.word_of == [0] * 8 + [1] * 5 and digits.count == 2
    with pytest.raises(ValueError, match="outside"):
        Digits(budget=16).draw(17, 17)


def test_digits_are_the_mixed_radix_digits_of_their_words():
    """`Digits` and `draw_digits` read the same digits as `mixed_radix` on each word."""
    key = jax.random.key(3)
    bounds = [6, 5, 4, 3, 20, 300, 7]  # 7200 in word 0, then 300 * 7 in word 1
    words = jax.random.bits(key, (2,), jnp.uint32)
    expected = mixed_radix(words[0], 6, 5, 4, 3, 20) + mixed_radix(words[1], 300, 7)
    got = draw_digits(key, bounds, bounds)
    np.testing.assert_array_equal(jnp.stack(got), jnp.stack(expected))
    # Traced radices below their bounds, and a radix computed from the earlier digits.
    radices = [2, 5, 4, 3, 20, lambda d: 1 + d[0], 7]
    got = draw_digits(key, bounds, radices)
    expected = mixed_radix(words[0], 2, 5, 4, 3, 20) + mixed_radix(words[1], 1 + got[0], 7)
    np.testing.assert_array_equal(jnp.stack(got), jnp.stack(expected))


def test_select_bit_finds_the_set_bit_of_each_rank():
    """`select_bit` against a direct enumeration, for each window width."""
    rng = np.random.default_rng(0)
    select = jax.jit(jax.vmap(select_bit, in_axes=(0, 0, None)), static_argnums=2)
    for width in (8, 16, 32):
        words = rng.integers(1, 2**width, size=4000, dtype=np.uint64).astype(np.uint32)
        ranks = np.array([rng.integers(0, bin(int(w)).count("1")) for w in words], np.int32)
        bits = [[p for p in range(width) if int(w) >> p & 1] for w in words]
        expected = [positions[r] for positions, r in zip(bits, ranks, strict=True)]
        np.testing.assert_array_equal(np.asarray(select(words, ranks, width)), expected)


@pytest.mark.parametrize("make_key", [jax.random.PRNGKey, jax.random.key])
def test_uniform_scores_are_jax_uniforms_scaled_to_integers(make_key):
    """Same order as `jax.random.uniform`, so the cells a layout picks stay those of JAX's."""
    keys = jax.random.split(make_key(5), 500)
    floats = jax.vmap(lambda k: jax.random.uniform(k, (40,)))(keys)
    scores = jax.jit(jax.vmap(lambda k: uniform_scores(k, (40,))))(keys)
    np.testing.assert_array_equal(np.asarray(floats) * 2**23, np.asarray(scores))
