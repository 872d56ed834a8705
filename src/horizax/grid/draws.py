"""Layouts that draw as they place: `sequential_draws`, and its draws inside a loop.

A layout that places objects one by one draws each object's cell among the cells the earlier
ones left, so a draw's range is known only once the earlier draws are made.
`sequential_draws` runs such a layout on mixed-radix digits of ONE `random_bits` call
(`horizax.grid.sampling.Digits`): the layout calls ``draw(radix, bound)`` for each digit.

Written as a Python loop, a layout that places tens of objects traces, and compiles, its
placement once per object (BabyAI-Unlock's 27 objects were some 560 of its rollout's 1,200
XLA kernels). `Draws.loop` runs the same draws in a `jax.lax.fori_loop`, so the placement
is compiled once, and gives exactly the digits the unrolled loop gets: which word each digit
comes from is decided by the static bounds alone, so the packing is worked out while
tracing, as a table the loop reads, and the loop carries the word being consumed.

A departure from the architecture's one layout-randomness module: this belongs with
`horizax.grid.sampling` (it draws from its `Digits`), and sits in a module of its own only
because sampling's would pass the ~400-line aim with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.core.threefry import random_bits
from horizax.grid.sampling import DIGIT_BUDGET, Digits, _next_digit

C = TypeVar("C")

Digit = Callable[[int, Array | int], Array]
"""A loop body's ``digit(d, radix)``: its ``d``-th digit this iteration, i32[] in
``[0, radix)`` (``radix`` at most the loop's ``bounds[d]``, and may be traced)."""


class Draws:
    """The ``draw`` a `sequential_draws` program receives.

    ``draw(radix, bound)`` returns one i32[] digit uniform in ``[0, radix)``, where
    ``1 <= radix <= bound`` (``radix`` may be traced, ``bound`` is static); `loop` draws
    inside a `jax.lax.fori_loop`.

    Args:
        digits: the digits to draw from; ``Digits(words=None)`` counts words instead, and
            every draw then returns a placeholder 0.
    """

    def __init__(self, digits: Digits[Any]) -> None:
        self._digits = digits

    @property
    def _counting(self) -> bool:
        return self._digits.words is None

    def __call__(self, radix: Array | int, bound: int) -> Array:
        if self._counting:
            self._digits.draw(bound, bound)
            return jnp.int32(0)
        return self._digits.draw(radix, bound)

    def loop(
        self, count: int, bounds: Sequence[int], body: Callable[[Array, Digit, C], C], init: C
    ) -> C:
        """``count`` iterations of ``body(i, digit, carry) -> carry`` as one `fori_loop`.

        Each iteration calls ``digit(d, radix)`` for ``d = 0, 1, ...`` in order, once each,
        ``bounds[d]`` being the static bound of its radix. The digits are those of
        ``count`` unrolled iterations making the same ``draw(radix, bounds[d])`` calls, and
        draws after the loop continue where they would: the loop only saves compiling the
        body ``count`` times.

        Args:
            count: the number of iterations (static, >= 0).
            bounds: the static bounds of one iteration's digits, in draw order.
            body: ``(i i32[], digit, carry) -> carry``.
            init: the initial carry (a pytree of arrays).

        Returns:
            The final carry.

        Raises:
            ValueError: if a body draws its digits out of order, or not all of them.
        """
        digits, bounds = self._digits, tuple(bounds)
        if count <= 1:  # inline: a loop of one iteration only adds the loop (GoToObjMaze)
            for i in range(count):
                init = _run(body, jnp.int32(i), init, bounds, lambda d, r: self(r, bounds[d]))
            return init
        # `Digits`' greedy packing of the loop's digits, worked out on the bounds: per digit,
        # whether it starts a new word, and which (``digits.current`` comes from the carry).
        load = np.zeros((count, len(bounds)), bool)
        word = np.zeros((count, len(bounds)), np.int32)
        for i in range(count):
            for d, bound in enumerate(bounds):
                load[i, d] = digits.reserve(bound)
                word[i, d] = digits.index
        words = digits.words
        if words is None:  # counting: placeholder digits
            return lax.fori_loop(0, count, lambda i, c: _run(body, i, c, bounds, None), init)
        load_table, word_table = jnp.asarray(load), jnp.asarray(word)

        def step(i: Array, carry: tuple[C, Array]) -> tuple[C, Array]:
            state, current = carry
            cell = [current]

            def digit(d: int, radix: Array | int) -> Array:
                fresh = words[word_table[i, d]]
                value, cell[0] = _next_digit(jnp.where(load_table[i, d], fresh, cell[0]), radix)
                return value

            state = _run(body, i, state, bounds, digit)
            return state, cell[0]

        out, digits.current = lax.fori_loop(0, count, step, (init, digits.current))
        return out


def _run(
    body: Callable[..., Any], i: Array, carry: Any, bounds: tuple[int, ...], digit: Digit | None
) -> Any:
    """``body(i, digit, carry)``, checking it draws each of ``bounds``' digits once, in order
    (``digit`` None: placeholder zeros, for counting)."""
    drawn: list[int] = []

    def checked(d: int, radix: Array | int) -> Array:
        if d != len(drawn) or d >= len(bounds):
            raise ValueError(f"a loop body drew digit {d} after {drawn} (bounds {bounds})")
        drawn.append(d)
        return jnp.int32(0) if digit is None else digit(d, radix)

    out = body(i, checked, carry)
    if len(drawn) != len(bounds):
        raise ValueError(f"a loop body drew {len(drawn)} digits, its bounds are {bounds}")
    return out


def sequential_draws(
    key: Array, program: Callable[[Draws], Any], *, budget: int = DIGIT_BUDGET
) -> Any:
    """Runs ``program(draw)`` on uniform digits from ONE `random_bits` call, where each
    ``draw(radix, bound)`` may depend on anything computed from the earlier draws (a layout
    placing objects one by one, each among the cells the earlier ones left).

    The program runs twice while tracing: once with placeholder zeros, to count the words its
    static sequence of bounds needs (that pass computes nothing that is kept, so `jit`
    removes it), then on the words. Its sequence of bounds must not depend on the digits.

    Args:
        key: a PRNG key.
        program: ``draw -> result``; ``draw`` is a `Draws`: ``draw(radix, bound)`` returns an
            i32[] uniform in ``[0, radix)`` with ``1 <= radix <= bound`` (``radix`` may be
            traced, ``bound`` a static int), and ``draw.loop`` draws inside a loop.
        budget: see `horizax.grid.sampling.Digits`.

    Returns:
        What ``program`` returns on the real digits.
    """
    counter = Digits(budget=budget)
    program(Draws(counter))
    return program(Draws(Digits(random_bits(key, (counter.count,)), budget=budget)))
