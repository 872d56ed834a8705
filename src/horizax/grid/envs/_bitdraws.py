"""Uniform draws over small sets held as bit sets, in elementwise integer arithmetic.

A room's 4 x 4 interior is a 16-bit set (cell ``(dx, dy)`` is bit ``4 * dx + dy``); a
uniform draw among its admissible cells -- the accepted outcome of MiniGrid's rejection
loop -- is a uniform rank below the set's population count followed by the position of the
set bit of that rank (a binary search of a few integer operations per halving). Under
`vmap` that is far cheaper to compile and run than masks reduced with `argmax` or
cumulative sums: the layouts run at every autoreset, and the compile time of a rollout
grows with the size of their traced program.

The random numbers are mixed-radix digits of uniform 32-bit words (`Digits`), all drawn by
one ``random_bits`` call.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array, lax

# The product of the radices (upper bounds) of the digits drawn from one 32-bit word stays
# <= WORD_BUDGET, so each digit's relative modulo bias is below 2**16 / 2**32 ~ 1.5e-5, far
# below what any test can resolve.
WORD_BUDGET = 1 << 16


class Digits:
    """Mixed-radix digits of uniform 32-bit words, allocated greedily (see `WORD_BUDGET`).

    With ``words=None`` it only counts the words a sequence of draws needs (``count``), so a
    layout can first replay its static sequence of bounds, then draw all words at once.
    """

    def __init__(self, words: Array | None = None) -> None:
        self.words = words
        self.index, self.used = 0, 1
        self.current = None if words is None else words[0]

    def draw(self, radix: Array | int, bound: int) -> Array | None:
        """i32[]: a digit uniform in ``[0, radix)``, where ``1 <= radix <= bound``.

        ``radix`` may be traced; ``bound`` is its static upper bound.
        """
        if self.used * bound > WORD_BUDGET:
            self.index, self.used = self.index + 1, 1
            self.current = None if self.words is None else self.words[self.index]
        self.used *= bound
        if self.words is None:
            return None
        radix = jnp.asarray(radix).astype(jnp.uint32)
        # lax's unsigned rem/div: jnp's % and // add sign and zero-divisor corrections.
        digit = lax.rem(self.current, radix)
        self.current = lax.div(self.current, radix)
        return digit.astype(jnp.int32)

    @property
    def count(self) -> int:
        """Words used so far."""
        return self.index + 1


def bit(index: Array | int) -> Array:
    """u32[]: the set holding only ``index`` (``index`` in [0, 32))."""
    return jnp.left_shift(jnp.uint32(1), jnp.asarray(index).astype(jnp.uint32))


def popcount(word: Array) -> Array:
    """i32[]: the number of set bits of a u32 word."""
    return lax.population_count(word).astype(jnp.int32)


def select_bit(word: Array, rank: Array, width: int = 16) -> Array:
    """i32[]: the position of the ``rank``-th (0-based) set bit of ``word``'s low ``width`` bits.

    A binary search over halves of the window (``width`` a power of two): ``log2(width)``
    steps of a shift, a mask and a population count. Cheaper to compile under `vmap` than a
    lookup table, whose gather XLA cannot fuse with what follows. ``rank`` must be below
    ``popcount(word)``.
    """
    pos = jnp.zeros((), jnp.uint32)
    rank = jnp.asarray(rank).astype(jnp.uint32)
    half = width // 2
    while half:
        low = jnp.right_shift(word, pos) & jnp.uint32((1 << half) - 1)
        count = lax.population_count(low)
        upper = rank >= count
        rank = jnp.where(upper, rank - count, rank)
        pos = jnp.where(upper, pos + half, pos)
        half //= 2
    return pos.astype(jnp.int32)


def draw_bit(digits: Digits, word: Array | int, width: int = 16) -> Array:
    """i32[]: a set bit of ``word`` drawn uniformly (``word`` must not be empty).

    A static ``word`` (a Python int, e.g. a room nothing was placed in yet) needs no search:
    the rank itself when the set is ``{0, ..., n - 1}``, else a lookup in its few positions.
    """
    if isinstance(word, int):
        positions = [p for p in range(width) if word >> p & 1]
        rank = digits.draw(len(positions), width)
        if positions == list(range(len(positions))):
            return rank
        return jnp.asarray(positions, jnp.int32).at[rank].get(mode="promise_in_bounds")
    return select_bit(word, digits.draw(popcount(word), width), width)


def choose(index: Array | int, options: list) -> Array:
    """The ``index``-th of a short static list of equally shaped arrays (a select chain)."""
    out = jnp.asarray(options[0])
    for k, option in enumerate(options[1:], start=1):
        out = jnp.where(index == k, jnp.asarray(option), out)
    return out
