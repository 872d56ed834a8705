"""Counting a layout's random draws, for the tests that keep layouts one draw and loop-free."""

from collections.abc import Callable
from typing import Any
from unittest import mock

import jax

from horizax.grid import random_bits

# JAX's own PRNG primitives: a layout draws through `horizax.grid.random_bits` instead.
JAX_PRNG_PRIMITIVES = frozenset({"random_bits", "random_split", "random_fold_in", "threefry2x32"})


def trace_counting_draws(fn: Callable[..., Any], *args: Any) -> tuple[Any, int]:
    """``(jaxpr, draws)``: ``fn`` traced, and how many Threefry evaluations it asked
    `horizax.grid.random_bits` for (each one batch of counters, however many words)."""
    calls = []
    original = random_bits._threefry_blocks

    def counting(*inner: Any) -> Any:
        calls.append(inner)
        return original(*inner)

    with mock.patch.object(random_bits, "_threefry_blocks", counting):
        jaxpr = jax.make_jaxpr(fn)(*args)
    return jaxpr, len(calls)
