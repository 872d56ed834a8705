"""Small random draws from 32-bit words, shared by the Unlock* and KeyCorridor layouts.

Their layouts run inside the autoreset of every vmapped step, so they make one PRNG call for
a handful of u32 words and split each word into several small uniform digits. Divisions use
`lax.div`/`lax.rem` on non-negative values: ``//`` and ``%`` add sign fix-ups that cost
compile time and nothing else here.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array, lax


def digits(word: Array, *radices: int | Array) -> list[Array]:
    """Splits u32 ``word`` (any shape) into mixed-radix digits, i32 of the same shape each.

    Digit k lies in ``[0, radices[k])`` and is uniform up to a bias below
    ``prod(radices) / 2**32``; callers keep that product small (below 10**5).
    """
    out = []
    word = jnp.asarray(word, jnp.uint32)
    for radix in radices:
        radix = jnp.broadcast_to(jnp.asarray(radix, jnp.uint32), word.shape)
        out.append(lax.rem(word, radix).astype(jnp.int32))
        word = lax.div(word, radix)
    return out


def divmod_(value: Array, divisor: int | Array) -> tuple[Array, Array]:
    """``(value // divisor, value % divisor)`` for non-negative i32 ``value`` and positive
    ``divisor``: plain truncating division, without the sign fix-ups of ``//`` and ``%``."""
    divisor = jnp.broadcast_to(jnp.asarray(divisor, value.dtype), jnp.shape(value))
    return lax.div(value, divisor), lax.rem(value, divisor)
