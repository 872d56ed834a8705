"""Counting a layout's random draws, for the tests that keep layouts one draw and loop-free."""

from collections.abc import Callable
from typing import Any
from unittest import mock

import jax

from horizax.core import threefry

# JAX's own PRNG primitives: a layout draws through `horizax.core.threefry` instead.
JAX_PRNG_PRIMITIVES = frozenset({"random_bits", "random_split", "random_fold_in", "threefry2x32"})


def trace_counting_draws(fn: Callable[..., Any], *args: Any) -> tuple[Any, int]:
    """``(jaxpr, draws)``: ``fn`` traced, and how many Threefry evaluations it asked
    `horizax.core.threefry` for (each one batch of counters, however many words)."""
    calls = []
    original = threefry._threefry_blocks

    def counting(*inner: Any) -> Any:
        calls.append(inner)
        return original(*inner)

    with mock.patch.object(threefry, "_threefry_blocks", counting):
        jaxpr = jax.make_jaxpr(fn)(*args)
    return jaxpr, len(calls)
