"""Layout randomness for every gridworld family, in one place.

MiniGrid places things by rejection sampling (``place_obj`` draws a cell until it is
admissible; colours are redrawn until new). The accepted outcome is uniform over what is
admissible, so here it is drawn directly, branch-free and at a fixed cost under `vmap`:

* random words come from `random_bits` / `split_words` (JAX's Threefry words, cheaper to
  compile; `horizax.core.threefry`); `uniform_scores` orders cells as JAX's uniforms do.
  The only other draws are `jax.random.split` of a layout's key into sub-keys (Crossing,
  Dynamic-Obstacles, `random_agent`) and `sample_direction`'s ``jax.random.randint``;
* small uniform integers are mixed-radix digits of those words: `mixed_radix` splits one
  word, `Digits` packs a sequence of digits greedily into as few words as a bias budget
  allows (`draw_digits` is the one-call form; `horizax.grid.draws.sequential_draws` runs a
  layout that draws as it places);
* "uniform among those not drawn yet" is a rank draw mapped by `nth_free` (`distinct`
  applies it to a sequence of draws), which is how `pick_interior_cells` draws distinct cells;
* a cell uniform in a mask is `pick_cell` (one word) or `sample_cell` (one uniform per cell);
  in a 16-bit set of a room's cells, `draw_bit`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar, overload

import jax
import jax.numpy as jnp
from jax import Array, lax

from horizax.core.threefry import random_bits, split_words
from horizax.grid import constants as C

__all__ = [
    "DIGIT_BUDGET",
    "WIDE_DIGIT_BUDGET",
    "Digits",
    "bit",
    "distinct",
    "draw_bit",
    "draw_digits",
    "empty_cells",
    "mixed_radix",
    "nth_free",
    "pick_cell",
    "pick_interior_cells",
    "popcount",
    "random_agent",
    "random_bits",
    "sample_cell",
    "sample_direction",
    "select_bit",
    "split_words",
    "truncating_divmod",
    "uniform_scores",
]

# Default largest product of the radices packed into one 32-bit word: each digit's relative
# modulo bias stays below 2**16 / 2**32 ~ 1.5e-5, far below what any test can resolve.
DIGIT_BUDGET = 1 << 16
# The GoTo layouts' budget: fewer words for their many draws, each digit's relative bias still
# below 2**18 / 2**32 ~ 6.2e-5.
WIDE_DIGIT_BUDGET = 1 << 18


# --- digits of random words -------------------------------------------------------------


def _next_digit(word: Array, radix: int | Array) -> tuple[Array, Array]:
    """``(word mod radix as i32, word div radix)`` for u32 ``word`` and ``radix >= 1``."""
    radix = jnp.broadcast_to(jnp.asarray(radix).astype(jnp.uint32), jnp.shape(word))
    # lax's unsigned rem/div: jnp's % and // add sign and zero-divisor fix-ups.
    return lax.rem(word, radix).astype(jnp.int32), lax.div(word, radix)


def mixed_radix(word: Array, *radices: int | Array) -> list[Array]:
    """Splits u32 ``word`` (any shape) into mixed-radix digits, i32 of the same shape each.

    Digit k lies in ``[0, radices[k])`` and is uniform up to a bias below
    ``prod(radices) / 2**32``: negligible for the few small ranges a layout needs (checked
    against MiniGrid by the distribution tests); callers keep that product below ~10**5.
    """
    out = []
    word = jnp.asarray(word, jnp.uint32)
    for radix in radices:
        digit, word = _next_digit(word, radix)
        out.append(digit)
    return out


_Words = TypeVar("_Words", Array, None)


class Digits(Generic[_Words]):
    """Mixed-radix digits of uniform 32-bit words, packed greedily under a bias budget.

    A digit goes into the current word while the product of its word's static bounds stays
    within ``budget``, else into the next word. With ``words=None`` it only counts the words a
    sequence of draws needs (`count`), so a layout can first replay its static sequence of
    bounds, then draw all the words at once.

    Args:
        words: u32[n] random words, or None to count.
        budget: the largest product of the bounds of one word's digits (<= 2**32).
    """

    @overload
    def __init__(self: Digits[None], words: None = None, *, budget: int = DIGIT_BUDGET) -> None: ...
    @overload
    def __init__(self: Digits[Array], words: Array, *, budget: int = DIGIT_BUDGET) -> None: ...
    def __init__(self, words: Array | None = None, *, budget: int = DIGIT_BUDGET) -> None:
        self.words, self.budget = words, budget
        self.index, self.used = 0, 1
        self.current = None if words is None else words[0]
        self.word_of: list[int] = []  # the word each digit drawn so far came from

    @overload
    def draw(self: Digits[Array], radix: Array | int, bound: int) -> Array: ...
    @overload
    def draw(self: Digits[None], radix: Array | int, bound: int) -> None: ...
    def draw(self, radix: Array | int, bound: int) -> Array | None:
        """i32[]: a digit uniform in ``[0, radix)``, where ``1 <= radix <= bound``.

        ``radix`` may be traced; ``bound`` is its static upper bound. Returns None when
        counting.
        """
        if self.reserve(bound) and self.words is not None:
            self.current = self.words[self.index]
        if self.current is None:  # counting: no words
            return None
        digit, self.current = _next_digit(self.current, radix)
        return digit

    def reserve(self, bound: int) -> bool:
        """Places the next digit (static ``bound``) in the packing, without drawing it:
        whether it starts a new word (``index`` is then that word). `draw` calls it, and
        `horizax.grid.draws.Draws.loop` to tabulate a loop's digits."""
        if not 1 <= bound <= self.budget:
            raise ValueError(f"radix bound {bound} outside [1, {self.budget}]")
        starts = self.used * bound > self.budget
        if starts:
            self.index, self.used = self.index + 1, 1
        self.used *= bound
        self.word_of.append(self.index)
        return starts

    @property
    def count(self) -> int:
        """Words used so far."""
        return self.index + 1


Radix = int | Array | Callable[[list[Array]], Array]


def draw_digits(
    key: Array, bounds: Sequence[int], radices: Sequence[Radix], *, budget: int = DIGIT_BUDGET
) -> list[Array]:
    """Uniform integers ``d_i in [0, radix_i)`` packed by `Digits`, from ONE `random_bits` call.

    Args:
        key: a PRNG key.
        bounds: static upper bounds of the radices (``radix_i <= bounds[i]``); they decide
            the packing, so the traced program depends only on them.
        radices: the ranges, in draw order: Python ints, traced i32[] scalars (each >= 1), or
            callables ``digits_so_far -> i32[]`` for a range that depends on earlier draws
            (GoToDoor's door offsets depend on the room's size).
        budget: see `Digits`.

    Returns:
        One i32[] per radix, each uniform given the earlier ones up to a modulo bias below
        ``budget / 2**32`` relative.
    """
    if len(bounds) != len(radices):
        raise ValueError("one bound per radix")
    counter = Digits(budget=budget)
    for bound in bounds:
        counter.draw(bound, bound)
    digits = Digits(random_bits(key, (counter.count,)), budget=budget)
    out: list[Array] = []
    for bound, radix in zip(bounds, radices, strict=True):
        out.append(digits.draw(radix(out) if callable(radix) else radix, bound))
    return out


def truncating_divmod(value: Array, divisor: int | Array) -> tuple[Array, Array]:
    """``(value // divisor, value % divisor)`` for non-negative i32 ``value`` and positive
    ``divisor``: plain truncating division, without the sign fix-ups of ``//`` and ``%``."""
    divisor = jnp.broadcast_to(jnp.asarray(divisor, value.dtype), jnp.shape(value))
    return lax.div(value, divisor), lax.rem(value, divisor)


# --- distinct draws -----------------------------------------------------------------------


def nth_free(rank: Array, used: Sequence[Array]) -> Array:
    """i32[]: the ``rank``-th (from 0) non-negative integer that is not in ``used``.

    ``used`` holds distinct i32[] values. Drawing ``rank`` uniformly in ``[0, n - len(used))``
    gives a value uniform over ``{0 .. n-1}`` minus ``used``: the accepted outcome of
    MiniGrid's redraw-until-new loops. Computed as the least fixed point of
    ``x -> rank + #{u in used : u <= x}``: each pass that moves ``x`` passes at least one
    more used value, so ``len(used)`` passes from ``x = rank`` reach it.
    """
    x = jnp.asarray(rank, jnp.int32)
    for _ in used:
        x = rank + sum((u <= x).astype(jnp.int32) for u in used)
    return x


def distinct(ranks: Sequence[Array]) -> list[Array]:
    """Distinct i32[] values, the i-th the ``ranks[i]``-th not among the earlier ones.

    With ``ranks[i]`` uniform in ``[0, n - i)`` the result is ``len(ranks)`` draws without
    replacement from ``{0 .. n-1}``, in order (no sorting, masks or scatters).
    """
    out: list[Array] = []
    for rank in ranks:
        out.append(nth_free(rank, out))
    return out


# --- cells ----------------------------------------------------------------------------------


def empty_cells(grid: Array) -> Array:
    """bool[W, H]: cells with nothing in them (MiniGrid's ``grid.get(x, y) is None``)."""
    return grid[..., 0] == C.EMPTY


def sample_cell(key: Array, mask: Array) -> Array:
    """i32[2]: an ``(x, y)`` drawn uniformly among the True cells of ``mask`` (bool[W, H]).

    If ``mask`` has no True cell the result is ``(0, 0)``; callers build masks that cannot
    be empty (checked in the tests of each family).
    """
    width, height = mask.shape
    flat = jnp.argmax(jnp.where(mask.reshape(-1), uniform_scores(key, (width * height,)), -1))
    return jnp.stack([flat // height, flat % height]).astype(jnp.int32)


def uniform_scores(key: Array, shape: tuple[int, ...]) -> Array:
    """i32[shape] in ``[0, 2**23)``: ``jax.random.uniform(key, shape)`` times ``2**23``.

    The same order, ties included, as JAX's f32 uniforms (the 23 high bits of each word, the
    mantissa `jax.random.uniform` builds), so argmax and top-k pick the same cells, from
    `random_bits` words and without the float conversion.
    """
    return jnp.right_shift(random_bits(key, shape), jnp.uint32(9)).astype(jnp.int32)


def sample_direction(key: Array) -> Array:
    """i32[]: a direction drawn uniformly from 0..3 (MiniGrid's ``_rand_int(0, 4)``)."""
    return jax.random.randint(key, (), 0, 4, dtype=jnp.int32)


def random_agent(key: Array, grid: Array) -> tuple[Array, Array]:
    """``(pos i32[2], dir i32[])``: MiniGrid's ``place_agent()`` on the whole grid.

    A uniform empty cell and a uniform direction (Empty-Random, DistShift with no fixed start).
    """
    pos_key, dir_key = jax.random.split(key)
    return sample_cell(pos_key, empty_cells(grid)), sample_direction(dir_key)


def pick_cell(mask: Array, bits: Array) -> Array:
    """i32[2]: a uniform True cell of ``mask`` (bool[W, H]) from 32 random ``bits`` (u32[]).

    Draws a rank among the True cells (modulo bias < count / 2**32) and finds that cell in two
    short prefix sums, over the column counts and then within the chosen column. It costs one
    random word per draw instead of `sample_cell`'s one per cell (threefry per cell dominates
    a vmapped reset on CPU), and avoids a prefix sum over all W*H cells (XLA's CPU cumsum is
    quadratic in its length). An empty mask gives ``(0, 0)``.
    """
    per_column = mask.sum(axis=1, dtype=jnp.int32)  # i32[W]
    rank = (bits % jnp.maximum(per_column.sum(), 1).astype(jnp.uint32)).astype(jnp.int32)
    through = jnp.cumsum(per_column)  # True cells in columns 0..x
    x = jnp.argmax(through > rank)
    rank_in_column = rank - (through[x] - per_column[x])
    y = jnp.argmax(jnp.cumsum(mask[x].astype(jnp.int32)) > rank_in_column)
    return jnp.stack([x, y]).astype(jnp.int32)


def pick_interior_cells(bits: Array, width: int, height: int) -> Array:
    """i32[k, 2]: ``k`` distinct interior cells of an empty walled room, drawn in order.

    Cell ``i`` is uniform among the interior cells not drawn before it, from the 32 random
    ``bits[i]`` (u32[k]). The result equals ``k`` successive `pick_cell` calls on the empty
    mask of a ``width`` x ``height`` walled grid into which each drawn cell is filled before
    the next draw (MiniGrid's ``place_obj`` one object after the other): both rank the free
    cells in x-major order and take ``bits[i] % free_count``. Here it is `distinct` on the
    ranks -- no mask, prefix sum or argmax per draw -- which keeps a layout's compiled
    program (and so reset and autoreset compile time) small.

    Args:
        bits: u32[k] random words, one per cell.
        width: the room's width, walls included (interior ``width-2`` wide).
        height: the room's height, walls included (interior ``height-2`` high).

    Raises:
        ValueError: if the interior has fewer than ``k`` cells.
    """
    inner_height = height - 2
    count = (width - 2) * inner_height
    if bits.shape[0] > count:
        raise ValueError(f"cannot draw {bits.shape[0]} distinct cells from {count}")
    ranks = [mixed_radix(bits[i], count - i)[0] for i in range(bits.shape[0])]
    column, row = truncating_divmod(jnp.stack(distinct(ranks)), inner_height)
    return jnp.stack([column, row], axis=-1) + 1


# --- 16-bit sets of a room's cells --------------------------------------------------------
# A room's 4 x 4 interior is a 16-bit set (cell ``(dx, dy)`` is bit ``4 * dx + dy``); a
# uniform draw among its admissible cells is a uniform rank below the set's population count
# followed by the position of the set bit of that rank. Under `vmap` that is far cheaper to
# compile and run than masks reduced with `argmax` or cumulative sums.


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


def draw_bit(digits: Digits[Array], word: Array | int, width: int = 16) -> Array:
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
