"""Sampling helpers shared by the GoToDoor and GoToObject layouts (private: not a family).

Both layouts need many small uniform integers per reset (room sizes, door offsets, colours,
cell ranks, a direction, a target index). Drawing a Threefry block per integer would dominate
a vmapped reset, so `draw_digits` packs several integers into each 32-bit word, and
`nth_free` turns "uniform over what is left" draws (MiniGrid's rejection of repeated colours,
of occupied cells) into plain rank draws without sorting or masks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax.numpy as jnp
from jax import Array

from horizax.core.random_bits import random_bits

# Largest product of radices packed into one 32-bit word. A digit's modulo bias is at most
# (product of its word's radices) / 2**32 relative, here < 6.2e-5: far below what a
# distribution test with thousands of samples can resolve.
WORD_BUDGET = 1 << 18


def pack_words(bounds: Sequence[int]) -> list[list[int]]:
    """Groups digit indices into words, greedily, each word's bound product <= `WORD_BUDGET`.

    Args:
        bounds: static upper bounds of the radices, in draw order (each >= 1).

    Returns:
        One list of digit indices per word.
    """
    words: list[list[int]] = []
    product = WORD_BUDGET + 1
    for index, bound in enumerate(bounds):
        if bound < 1 or bound > WORD_BUDGET:
            raise ValueError(f"radix bound {bound} outside [1, {WORD_BUDGET}]")
        if product * bound > WORD_BUDGET:
            words.append([])
            product = 1
        words[-1].append(index)
        product *= bound
    return words


Radix = int | Array | Callable[[list[Array]], Array]


def draw_digits(key: Array, bounds: Sequence[int], radices: Sequence[Radix]) -> list[Array]:
    """Uniform integers ``d_i in [0, radix_i)`` from ONE `random_bits` call.

    Args:
        key: a PRNG key.
        bounds: static upper bounds of the radices (``radix_i <= bounds[i]``); they decide
            the packing, so the traced program depends only on them.
        radices: the ranges, in draw order: Python ints, traced i32[] scalars (each >= 1), or
            callables ``digits_so_far -> i32[]`` for a range that depends on earlier draws
            (GoToDoor's door offsets depend on the room's size).

    Returns:
        One i32[] per radix, each uniform given the earlier ones up to a modulo bias below
        6.2e-5 relative.
    """
    if len(bounds) != len(radices):
        raise ValueError("one bound per radix")
    groups = pack_words(bounds)
    words = random_bits(key, (len(groups),))
    out: list[Array] = []
    for w, group in enumerate(groups):
        word = words[w]
        for index in group:
            radix = radices[index]
            radix = radix(out) if callable(radix) else radix
            radix = jnp.asarray(radix).astype(jnp.uint32)
            out.append((word % radix).astype(jnp.int32))
            word = word // radix
    return out


def nth_free(rank: Array, used: Sequence[Array]) -> Array:
    """i32[]: the ``rank``-th (from 0) non-negative integer that is not in ``used``.

    ``used`` holds distinct i32[] values. Drawing ``rank`` uniformly in ``[0, n - len(used))``
    gives a value uniform over ``{0 .. n-1}`` minus ``used``: the accepted outcome of
    MiniGrid's redraw-until-new loops. Computed as the least fixed point of
    ``x -> rank + #{u in used : u <= x}``, reached from ``x = rank`` in ``len(used)`` steps.
    """
    x = jnp.asarray(rank, jnp.int32)
    for _ in used:
        x = rank + sum((u <= x).astype(jnp.int32) for u in used)
    return x
