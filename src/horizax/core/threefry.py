"""JAX's Threefry draws written out so that they compile cheaply: the same numbers, fewer kernels.

`random_bits(key, shape)` returns exactly ``jax.random.bits(key, shape, jnp.uint32)`` for
Threefry keys (raw ``uint32[2]`` keys from `jax.random.PRNGKey`, or typed keys from
`jax.random.key`) under JAX's default ``jax_threefry_partitionable=True``: the Threefry-2x32
block cipher keyed by the key, applied to the counters ``(0, i)``, the two output words
xor-ed. Other key implementations, and the non-partitionable mode, fall back to
`jax.random.bits` itself, so the words are always JAX's. On the same terms `split`,
`fold_in`, `uniform`, `normal` and `randint` return exactly what their `jax.random` namesakes return
(float32 draws; other dtypes, e.g. float64 under x64, are JAX's own call), so a family whose
documented streams are JAX's (the orbital games draw their scenarios as orbitalgym does)
keeps them. Their outputs pass an `optimization_barrier`: computed once, not fused into
each of their consumers (XLA copies a producer into every consumer's kernel, which for
twenty rounds of the cipher made a rollout that selects every state leaf 1.4x slower).

Why: on XLA:CPU, JAX lowers Threefry as a rolled loop called out of line, plus one kernel
for each of its prepared inputs, in every program that draws a layout (the reset, and the
step again for autoreset), and compile time grows with the number of kernels (a scenario
reset of the orbital games, with nine Threefry calls, compiled in 1.7 s, 0.9 s written
out; see `benchmarks/RESULTS.md`). Written here as 20 unrolled rounds of elementwise integer
operations, it fuses into the kernels that use the words, and is no slower at run time. The
numbers, and so every layout and scenario, are unchanged (`tests/core/test_threefry.py`
compares them with `jax.random`'s).
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))  # Threefry-2x32's, alternating per 4 rounds
_KEY_PARITY = np.uint32(0x1BD11BDA)  # the Threefry key schedule's parity constant


def _rotate_left(x: Array, bits: int) -> Array:
    return lax.bitwise_or(
        lax.shift_left(x, np.uint32(bits)), lax.shift_right_logical(x, np.uint32(32 - bits))
    )


@jax.jit
def _threefry_2x32(k0: Array, k1: Array, x0: Array, x1: Array | np.ndarray) -> tuple[Array, Array]:
    """The Threefry-2x32 block cipher (20 rounds) of the counter ``(x0, x1)`` under ``(k0, k1)``.

    Written with `jax.lax` primitives (a `jnp` operator is a jitted call of its own) inside
    one `jax.jit`, so that each shape is traced once and, under `vmap`, batched once: traced
    op by op, the hundred operations of every draw cost more tracing time than the kernels
    they save.
    """
    shape = np.broadcast_shapes(np.shape(x0), np.shape(x1))
    x0 = lax.broadcast_in_dim(jnp.asarray(x0, jnp.uint32), shape, tuple(range(np.ndim(x0))))
    x1 = lax.broadcast_in_dim(jnp.asarray(x1, jnp.uint32), shape, tuple(range(np.ndim(x1))))
    k2 = lax.bitwise_xor(lax.bitwise_xor(k0, k1), _KEY_PARITY)
    schedule = (k0, k1, k2)
    x0, x1 = lax.add(x0, k0), lax.add(x1, k1)
    for block in range(5):
        for bits in _ROTATIONS[block % 2]:
            x0 = lax.add(x0, x1)
            x1 = lax.bitwise_xor(_rotate_left(x1, bits), x0)
        x0 = lax.add(x0, schedule[(block + 1) % 3])
        x1 = lax.add(lax.add(x1, schedule[(block + 2) % 3]), np.uint32(block + 1))
    return x0, x1


def _threefry_key_data(key: Array) -> Array | None:
    """The ``uint32[2]`` data of one Threefry key; None for other implementations, for
    arrays of keys and in the non-partitionable mode (JAX's own functions then answer, or
    raise their error)."""
    if not jax.threefry_partitionable.value:
        return None
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        if key.ndim or str(jax.random.key_impl(key)) != "threefry2x32":
            return None
        return jax.random.key_data(key)
    if key.shape != (2,) or key.dtype != jnp.uint32:
        return None
    return key


def _written_out(key: Array) -> bool:
    """Whether this module computes ``key``'s draws itself (else JAX's functions do)."""
    return _threefry_key_data(key) is not None


def _threefry_blocks(key: Array, count: int) -> tuple[Array, Array] | None:
    """Both words of the Threefry blocks of counters ``(0, i)``, i < count (None: use JAX)."""
    data = _threefry_key_data(key)
    if data is None:
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


def _as_key(data: Array, like: Array) -> Array:
    """``data`` (u32[..., 2]) as a key of ``like``'s kind (typed keys keep their impl)."""
    if jnp.issubdtype(like.dtype, jax.dtypes.prng_key):
        return jax.random.wrap_key_data(data, impl=jax.random.key_impl(like))
    return data


def split(key: Array, num: int = 2) -> Array:
    """``jax.random.split(key, num)`` for one key (typed or raw), cheaper to compile.

    Args:
        key: one PRNG key.
        num: the number of keys (>= 1).

    Returns:
        ``num`` keys of ``key``'s kind: [num] typed keys, or u32[num, 2].
    """
    blocks = _threefry_blocks(key, num)
    if blocks is None:
        return jax.random.split(key, num)
    return _as_key(lax.optimization_barrier(jnp.stack(blocks, axis=-1)), key)


def fold_in(key: Array, data: Array | int) -> Array:
    """``jax.random.fold_in(key, data)``, cheaper to compile.

    Args:
        key: one PRNG key (typed or raw).
        data: an integer scalar, taken as uint32 (as `jax.random.fold_in` takes it).

    Returns:
        A key of ``key``'s kind.
    """
    raw = _threefry_key_data(key)
    if raw is None:
        return jax.random.fold_in(key, data)
    # Folding ``data`` in hashes the counter (0, data): the key JAX derives from the seed.
    word = jnp.asarray(data, dtype=jnp.uint32)
    x0, x1 = _threefry_2x32(raw[0], raw[1], jnp.zeros((), jnp.uint32), word)
    return _as_key(lax.optimization_barrier(jnp.stack([x0, x1])), key)


def _float32(dtype: Any) -> bool:
    """Whether a sampler's dtype (None: JAX's default float) is float32."""
    wanted = jax.dtypes.canonicalize_dtype(float if dtype is None else dtype)
    return jnp.dtype(wanted) == jnp.float32


def uniform(
    key: Array,
    shape: tuple[int, ...] = (),
    dtype: Any = None,
    minval: Any = 0.0,
    maxval: Any = 1.0,
) -> Array:
    """``jax.random.uniform(key, shape, dtype, minval, maxval)``, cheaper to compile.

    Float32 (the default without x64) from `random_bits`; any other dtype is JAX's call.

    Args:
        key: one PRNG key (typed or raw).
        shape: the shape of the draws.
        dtype: a float dtype (None: JAX's default float).
        minval: inclusive lower bound, broadcastable to ``shape``.
        maxval: exclusive upper bound, broadcastable to ``shape``.

    Returns:
        ``dtype[shape]`` draws in ``[minval, maxval)``.
    """
    shape = tuple(shape)
    if not _float32(dtype) or not _written_out(key):
        return jax.random.uniform(key, shape, dtype, minval, maxval)
    low = jnp.asarray(minval).astype(jnp.float32)
    high = jnp.asarray(maxval).astype(jnp.float32)
    # The 23 high bits fill the mantissa of a float in [1, 2), as JAX does.
    mantissa = lax.optimization_barrier(random_bits(key, shape)) >> np.uint32(9)
    one = np.array(1.0, np.float32).view(np.uint32)
    floats = jax.lax.bitcast_convert_type(mantissa | one, jnp.float32) - np.float32(1.0)
    return jnp.maximum(low, floats * (high - low) + low)


def normal(key: Array, shape: tuple[int, ...] = (), dtype: Any = None) -> Array:
    """``jax.random.normal(key, shape, dtype)``, cheaper to compile.

    Float32 (the default without x64) through `uniform`; any other dtype is JAX's call.

    Args:
        key: one PRNG key (typed or raw).
        shape: the shape of the draws.
        dtype: a float dtype (None: JAX's default float).

    Returns:
        ``dtype[shape]`` standard normal draws.
    """
    if not _float32(dtype) or not _written_out(key):
        return jax.random.normal(key, shape, dtype)
    low = np.nextafter(np.float32(-1.0), np.float32(0.0))  # JAX's open interval (-1, 1)
    u = uniform(key, shape, jnp.float32, low, np.float32(1.0))
    return np.float32(np.sqrt(2)) * jax.lax.erf_inv(u)


_INT32 = (-(2**31), 2**31 - 1)


def randint(
    key: Array, shape: tuple[int, ...], minval: Any, maxval: Any, dtype: Any = None
) -> Array:
    """``jax.random.randint(key, shape, minval, maxval, dtype)``, cheaper to compile.

    Written out for Python-int bounds within int32 and an int32 result (the default without
    x64), as `Discrete.sample` asks; any other call is JAX's.

    Args:
        key: one PRNG key (typed or raw).
        shape: the shape of the draws.
        minval: inclusive lower bound.
        maxval: exclusive upper bound (``maxval <= minval`` gives ``minval``, as in JAX).
        dtype: an integer dtype (None: JAX's default int).

    Returns:
        ``dtype[shape]`` integers.
    """
    shape = tuple(shape)
    wanted = jnp.dtype(jax.dtypes.canonicalize_dtype(int if dtype is None else dtype))
    bounds = (minval, maxval)
    static = all(type(b) is int and _INT32[0] <= b <= _INT32[1] for b in bounds)
    if wanted != jnp.int32 or not static or not _written_out(key):
        return jax.random.randint(key, shape, minval, maxval, dtype)
    # JAX's rule: two words per draw, reduced modulo the span with 2**32 % span as the
    # multiplier of the high word, all in wrapping uint32 arithmetic.
    span = (maxval - minval) % 2**32 if maxval > minval else 1
    multiplier = ((2**16 % span) ** 2 % 2**32) % span
    k_high, k_low = split(key)
    high, low = random_bits(k_high, shape), random_bits(k_low, shape)
    span_u, multiplier_u = np.uint32(span), np.uint32(multiplier)
    offset = lax.add(lax.mul(lax.rem(high, span_u), multiplier_u), lax.rem(low, span_u))
    offset = lax.rem(offset, span_u)
    drawn = lax.add(lax.convert_element_type(offset, jnp.int32), np.int32(minval))
    return lax.optimization_barrier(drawn)
