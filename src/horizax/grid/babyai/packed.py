"""Boolean grid masks packed into uint32 words, for the verifier's per-step bookkeeping.

A mask ``bool[..., W, H]`` becomes ``u32[..., W, N]`` with ``N = ceil(H / 32)``: bit
``y % 32`` of word ``[x, y // 32]`` is cell ``(x, y)``, and the padding bits past ``H`` are
always clear. Intersections, unions and differences of packed masks are the same bitwise
operations on 32 times fewer elements (a 22 x 22 grid: 22 words instead of 484 booleans),
which is what the verifier does to its descriptions' masks on every step.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array

WORD = 32  # bits per word


def num_words(height: int) -> int:
    """Words per column for a grid ``height`` cells high."""
    return -(-height // WORD)


def pack(mask: Array) -> Array:
    """u32[..., W, N]: ``mask`` (bool[..., W, H]) packed along its last axis."""
    mask = jnp.asarray(mask, bool)
    height = mask.shape[-1]
    padding = [(0, 0)] * (mask.ndim - 1) + [(0, num_words(height) * WORD - height)]
    words = jnp.pad(mask, padding).reshape(*mask.shape[:-1], num_words(height), WORD)
    bits = words.astype(jnp.uint32) << jnp.arange(WORD, dtype=jnp.uint32)
    return jnp.sum(bits, axis=-1, dtype=jnp.uint32)  # distinct bits: the sum is their OR


def unpack(bits: Array, height: int) -> Array:
    """bool[..., W, H]: the mask that `pack` turned into ``bits`` (u32[..., W, N]).

    Args:
        bits: u32[..., W, N], a packed mask.
        height: the grid's height H (static).
    """
    shifted = (bits[..., None] >> jnp.arange(WORD, dtype=jnp.uint32)) & 1
    return shifted.reshape(*bits.shape[:-1], -1)[..., :height].astype(bool)


def cell(width: int, height: int, pos: Array) -> Array:
    """u32[W, N]: the packed one-hot mask of ``pos`` (i32[2]); all clear if it is off-grid.

    Args:
        width: the grid's width (static).
        height: the grid's height (static).
        pos: i32[2], ``(x, y)``.
    """
    x, y = pos[0], pos[1]
    xs = jnp.arange(width)[:, None]
    ws = jnp.arange(num_words(height))[None, :]
    # y // WORD of an off-grid y can name a real word (a padding bit): rule it out.
    hit = (xs == x) & (ws == y // WORD) & (y >= 0) & (y < height)
    bit = jnp.left_shift(jnp.uint32(1), (y % WORD).astype(jnp.uint32))
    return jnp.where(hit, bit, jnp.uint32(0))


def overlaps(a: Array, b: Array) -> Array:
    """bool[...]: packed masks ``a`` and ``b`` (u32[..., W, N], broadcast) share a cell."""
    return jnp.any((a & b) != 0, axis=(-2, -1))


def count(bits: Array) -> Array:
    """i32[...]: the cells set in the packed masks ``bits`` (u32[..., W, N])."""
    ones = jnp.bitwise_count(bits).astype(jnp.int32)
    return jnp.sum(ones, axis=(-2, -1), dtype=jnp.int32)
