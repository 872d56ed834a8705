"""Recursive division: the rules of a split, their static bounds, and two wall kernels.

Recursive division starts from one chamber (the whole grid) and repeatedly takes a chamber
off a stack, splits it with a wall of thickness one (a vertical wall when the chamber is at
least as wide as it is tall, else a horizontal one) at an odd offset, opens one passage at an
even offset along the wall, and pushes the two sub-chambers that are still at least 2x2.

Both kernels run a loop with a fixed trip count, `max_divisions(R, C)`: the most chambers any
R x C maze can split, computed once in Python. Trips after the last split change nothing, so
the cost is the same for every maze and nothing is masked under `vmap` beyond that bound.

- `divide_keyed` threads the key through the trips exactly as jumanji 1.1.2 does, so its
  walls equal jumanji's key for key (`JumanjiRandomGenerator`).
- `divide` takes its draws as raw 32-bit words from one `jax.random.bits` call and keeps the
  walls as bit rows (`RandomGenerator`, the default): the same law, a cheaper program.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from horizax.core.checks import int_in_range

__all__ = ["check_size", "divide", "divide_keyed", "max_deferred", "max_divisions", "uniform_below"]


def check_size(num_rows: object, num_cols: object) -> tuple[int, int]:
    """``(num_rows, num_cols)`` as ints; ValueError naming the first that is not positive."""
    return int_in_range(num_rows, "num_rows"), int_in_range(num_cols, "num_cols")


# The three rules of a division, one place each (the distribution tests break them on purpose;
# both kernels read them from this module at trace time).
def _splits_vertically(width: Any, height: Any) -> Any:
    """A chamber at least as wide as it is tall gets a vertical wall (jumanji's rule)."""
    return width >= height


def _wall_offset(draw: Array) -> Array:
    """Walls lie at odd offsets from the chamber's corner: ``randint(0, across // 2)`` -> odd."""
    return draw * 2 + 1


def _passage_offset(draw: Array) -> Array:
    """Passages lie at even offsets along the wall: ``randint(0, (along + 1) // 2)`` -> even."""
    return draw * 2


def _split_children(width: int, height: int) -> list[tuple[tuple[int, int], ...]]:
    """For every wall offset a chamber can draw, its sub-chambers that are split in turn."""
    vertical = _splits_vertically(width, height)
    span = width if vertical else height
    options = []
    for offset in range(1, max(span, 2), 2):
        if vertical:  # a vertical wall at column `offset`
            kids = ((offset, height), (width - offset - 1, height))
        else:
            kids = ((width, offset), (width, height - offset - 1))
        options.append(tuple(k for k in kids if k[0] > 1 and k[1] > 1))
    return options


@functools.cache
def _most_splits(width: int, height: int) -> int:
    # Splits of a chamber that was pushed, over the worst choice of wall offsets.
    return 1 + max(sum(_most_splits(*k) for k in kids) for kids in _split_children(width, height))


@functools.cache
def _most_deferred(width: int, height: int) -> int:
    # Chambers set aside at once while this one's subtree is divided: when both halves are
    # split, the first waits while the second's subtree is divided.
    worst = 0
    for kids in _split_children(width, height):
        if len(kids) == 2:
            worst = max(worst, _most_deferred(*kids[0]), 1 + _most_deferred(*kids[1]))
        elif kids:
            worst = max(worst, _most_deferred(*kids[0]))
    return worst


def max_divisions(num_rows: int, num_cols: int) -> int:
    """The most chambers recursive division can split in an R x C maze (a tight bound).

    The whole grid is always split once (even when it is a single row or column: that split
    draws no wall that stays); a sub-chamber is split only while it is at least 2x2. The bound
    is the maximum over every choice of wall offsets, e.g. 3 for 5x5, 11 for 11x7, 17 for
    10x10, 59 for 20x20.

    Raises:
        ValueError: a size that is not a positive int.
    """
    num_rows, num_cols = check_size(num_rows, num_cols)
    return _most_splits(num_cols, num_rows)


def max_deferred(num_rows: int, num_cols: int) -> int:
    """The most chambers `divide` ever holds back at once (its stack's size), e.g. 4 for 10x10."""
    num_rows, num_cols = check_size(num_rows, num_cols)
    return _most_deferred(num_cols, num_rows)


def uniform_below(bits: Array, bound: Array) -> Array:
    """i32: ``floor(bits * bound / 2**32)``, uniform on ``[0, bound)`` for uniform u32 ``bits``.

    The multiply-high of a 32-bit word by ``bound < 2**16``, exact in 32-bit arithmetic from
    16-bit halves; each value's probability is within ``1 / 2**32`` of ``1 / bound``.
    ``bound = 0`` gives 0.
    """
    bound = bound.astype(jnp.uint32)
    high, low = bits >> 16, bits & 0xFFFF
    return ((high * bound + ((low * bound) >> 16)) >> 16).astype(jnp.int32)


def _bit_range(start: Array, stop: Array, word: int) -> Array:
    """u32: the bits of columns ``[start, stop)`` that fall in 32-column word ``word``."""

    def below(n: Array) -> Array:  # the lowest n bits, 0 <= n <= 32 (a shift by 32 is undefined)
        n = jnp.clip(n - 32 * word, 0, 32).astype(jnp.uint32)
        return jnp.where(n == 32, jnp.uint32(0xFFFFFFFF), (jnp.uint32(1) << (n & 31)) - 1)

    return below(stop) & ~below(start)


def divide(wall_bits: Array, passage_bits: Array, num_rows: int, num_cols: int) -> Array:
    """bool[R, C] walls of one maze, from u32[max_divisions] words per draw kind.

    Trip ``i`` splits the current chamber with ``uniform_below(wall_bits[i], across // 2)``
    and ``uniform_below(passage_bits[i], (along + 1) // 2)``, the draws jumanji's ``randint``
    makes. The order is jumanji's (the second sub-chamber first), but the current chamber is
    carried in the loop rather than pushed and popped: the stack only holds first halves set
    aside, at most `max_deferred` of them. Walls are bit rows, ``u32[R, ceil(C / 32)]``, so a
    trip writes R words, not R * C cells.
    """
    depth = max(max_deferred(num_rows, num_cols), 1)
    words = -(-num_cols // 32)
    slots = jnp.arange(depth, dtype=jnp.int32)
    rows = jnp.arange(num_rows, dtype=jnp.int32)[:, None]

    def trip(carry: tuple[Any, ...], draws: tuple[Array, Array]) -> tuple[tuple[Any, ...], None]:
        walls, (x, y, width, height), busy, stack, size = carry
        vertical = _splits_vertically(width, height)
        across = jnp.where(vertical, width, height)
        along = jnp.where(vertical, height, width)
        offset = _wall_offset(uniform_below(draws[0], across // 2))  # odd, in [1, across)
        passage = _passage_offset(uniform_below(draws[1], (along + 1) // 2))  # even
        line = jnp.where(vertical, x, y) + offset
        gap = jnp.where(vertical, y, x) + passage
        # A vertical wall sets one bit in rows [y, y + height) but the passage's; a horizontal
        # one sets columns [x, x + width) but the passage's in row `line`.
        in_column = (rows >= y) & (rows < y + height) & (rows != gap)
        new = []
        for word in range(words):
            column_bit = _bit_range(line, line + 1, word)
            row_bits = _bit_range(x, x + width, word) & ~_bit_range(gap, gap + 1, word)
            add = jnp.where(vertical & in_column, column_bit, 0)
            add = add | jnp.where(~vertical & (rows == line), row_bits, 0)
            new.append(jnp.where(busy, add, 0))
        walls = walls | jnp.concatenate(new, axis=1).astype(jnp.uint32)
        first = (x, y, jnp.where(vertical, offset, width), jnp.where(vertical, height, offset))
        second = (
            jnp.where(vertical, line + 1, x),
            jnp.where(vertical, y, line + 1),
            jnp.where(vertical, width - offset - 1, width),
            jnp.where(vertical, height, height - offset - 1),
        )
        split_first = busy & (first[2] > 1) & (first[3] > 1)
        split_second = busy & (second[2] > 1) & (second[3] > 1)
        set_aside = split_first & split_second
        take_back = ~split_first & ~split_second & (size > 0)
        top = slots == size - 1
        taken = tuple(jnp.sum(jnp.where(top, field, 0)) for field in stack)
        stack = tuple(
            jnp.where(set_aside & (slots == size), value, field)
            for value, field in zip(first, stack, strict=True)
        )
        current = tuple(
            jnp.where(split_second, b, jnp.where(split_first, a, t))
            for a, b, t in zip(first, second, taken, strict=True)
        )
        size = size + set_aside.astype(jnp.int32) - take_back.astype(jnp.int32)
        return (walls, current, split_first | split_second | take_back, stack, size), None

    zero = jnp.int32(0)
    init = (
        jnp.zeros((num_rows, words), jnp.uint32),
        (zero, zero, jnp.int32(num_cols), jnp.int32(num_rows)),
        jnp.bool_(True),
        tuple(jnp.zeros(depth, jnp.int32) for _ in range(4)),
        zero,
    )
    (walls, *_), _ = jax.lax.scan(trip, init, (wall_bits, passage_bits))
    columns = jnp.arange(num_cols, dtype=jnp.uint32)
    return ((walls[:, columns // 32] >> (columns % 32)) & 1).astype(jnp.bool_)


def _keyed_draws(key: Array, trips: int, longest: int) -> tuple[Array, Array]:
    """Every random draw of jumanji's division loop, made before it.

    Trip ``i`` of jumanji's loop splits its key into (next key, wall key, passage key) and
    draws ``randint(wall_key, (), 0, n)`` and ``randint(passage_key, (), 0, m)``, where ``n``
    and ``m`` depend on the chamber being split. The keys depend on nothing but the trip, so
    they are drawn first (a scan of one split per trip), and each key's draw is tabulated for
    every possible bound (``randint`` of one key for several bounds shares the key's bits).
    On CPU, where each threefry call is a loop of its own, this keeps all but one of them out
    of the trip's sequential path.

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


def divide_keyed(key: Array, num_rows: int, num_cols: int) -> Array:
    """bool[R, C] walls of one maze; the trips and their key use match jumanji's generator.

    Chambers are split in jumanji's order off an explicit stack (``i32[trips + 1, 4]`` of
    x, y, width, height), and a wall is one comparison over the ``bool[R, C]`` grid.
    """
    trips = max_divisions(num_rows, num_cols)
    wall_draws, passage_draws = _keyed_draws(key, trips, max(num_rows, num_cols))
    rows = jnp.arange(num_rows, dtype=jnp.int32)[:, None]
    cols = jnp.arange(num_cols, dtype=jnp.int32)[None, :]
    stack = jnp.zeros((trips + 1, 4), jnp.int32).at[0].set(jnp.array([0, 0, num_cols, num_rows]))

    def trip(i: Array, carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        walls, stack, size = carry
        busy = size > 0  # False once every chamber is split: the trip changes nothing
        size = size - busy.astype(jnp.int32)
        x, y, width, height = stack[size]
        vertical = _splits_vertically(width, height)
        across = jnp.where(vertical, width, height)  # the wall's offset is drawn across it
        along = jnp.where(vertical, height, width)  # the passage is drawn along it
        offset = _wall_offset(wall_draws[i, across // 2])  # odd, in [1, across)
        passage = _passage_offset(passage_draws[i, (along + 1) // 2])  # even, in [0, along)
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
    return jax.lax.fori_loop(0, trips, trip, (walls, stack, jnp.int32(1)))[0]
