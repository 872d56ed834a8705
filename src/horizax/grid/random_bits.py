"""Random words for layouts: `jax.random.bits` written out so that it compiles cheaply.

`random_bits(key, shape)` returns exactly ``jax.random.bits(key, shape, jnp.uint32)`` for
Threefry keys (raw ``uint32[2]`` keys from `jax.random.PRNGKey`, or typed keys from
`jax.random.key`) under JAX's default ``jax_threefry_partitionable=True``: the Threefry-2x32
block cipher keyed by the key, applied to the counters ``(0, i)``, the two output words
xor-ed. Other key implementations, and the non-partitionable mode, fall back to
`jax.random.bits` itself, so the words are always JAX's.

Why: on XLA:CPU, JAX lowers Threefry as a rolled loop called out of line, plus one kernel
for each of its prepared inputs, in every program that draws a layout (the reset, and the
step again for autoreset), and compile time grows with the number of kernels. Written here
as 20 unrolled rounds of elementwise integer operations, it fuses into the kernels that use
the words, and is no slower at run time. The words, and so every layout,
are unchanged (`tests/grid/test_random_bits.py` compares them with `jax.random.bits`).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))  # Threefry-2x32's, alternating per 4 rounds
_KEY_PARITY = np.uint32(0x1BD11BDA)  # the Threefry key schedule's parity constant


def _rotate_left(x: Array, bits: int) -> Array:
    return (x << np.uint32(bits)) | (x >> np.uint32(32 - bits))


def _threefry_2x32(k0: Array, k1: Array, x0: Array, x1: Array | np.ndarray) -> tuple[Array, Array]:
    """The Threefry-2x32 block cipher (20 rounds) of the counter ``(x0, x1)`` under ``(k0, k1)``."""
    schedule = (k0, k1, k0 ^ k1 ^ _KEY_PARITY)
    x0, x1 = x0 + schedule[0], schedule[1] + x1  # an Array even for a numpy x1
    for block in range(5):
        for bits in _ROTATIONS[block % 2]:
            x0 = x0 + x1
            x1 = _rotate_left(x1, bits) ^ x0
        x0 = x0 + schedule[(block + 1) % 3]
        x1 = x1 + schedule[(block + 2) % 3] + np.uint32(block + 1)
    return x0, x1


def _threefry_key_data(key: Array) -> Array | None:
    """The ``uint32[2]`` data of a Threefry key; None for other implementations."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        if str(jax.random.key_impl(key)) != "threefry2x32":
            return None
        return jax.random.key_data(key)
    if key.shape != (2,) or key.dtype != jnp.uint32:
        return None
    return key


def _threefry_blocks(key: Array, count: int) -> tuple[Array, Array] | None:
    """Both words of the Threefry blocks of counters ``(0, i)``, i < count (None: use JAX)."""
    data = _threefry_key_data(key)
    if data is None or not jax.threefry_partitionable.value:
        return None
    if count >= 2**32:
        raise ValueError(f"at most 2**32 - 1 Threefry blocks per key, got {count}")
    counter = np.arange(count, dtype=np.uint32)  # the high counter word is 0
    return _threefry_2x32(data[0], data[1], jnp.zeros(count, jnp.uint32), counter)


def random_bits(key: Array, shape: tuple[int, ...] = ()) -> Array:
    """u32[shape]: ``jax.random.bits(key, shape, jnp.uint32)``, cheaper to compile.

    Args:
        key: one PRNG key (typed, or raw ``uint32[2]``); under `vmap` each environment's.
        shape: the shape of the words (fewer than 2**32 of them).

    Returns:
        The same words as `jax.random.bits` (see the module docstring).
    """
    shape = tuple(shape)
    blocks = _threefry_blocks(key, math.prod(shape))
    if blocks is None:
        return jax.random.bits(key, shape, jnp.uint32)
    high, low = blocks
    return (high ^ low).reshape(shape)


def split_words(key: Array, n: int) -> Array:
    """u32[n]: the data of ``jax.random.split(key, ceil(n / 2))``, flattened, first ``n``.

    Two words per Threefry block where `random_bits` keeps one (it xors the halves): half the
    blocks for layouts that need many words. Same fallback as `random_bits`.

    Args:
        key: one PRNG key (typed, or raw ``uint32[2]``).
        n: the number of words (>= 1).
    """
    blocks = _threefry_blocks(key, (n + 1) // 2)
    if blocks is None:
        split = jax.random.split(key, (n + 1) // 2)
        if jnp.issubdtype(split.dtype, jax.dtypes.prng_key):
            split = jax.random.key_data(split)
        return split.reshape(-1)[:n].astype(jnp.uint32)
    return jnp.stack(blocks, axis=-1).reshape(-1)[:n]
