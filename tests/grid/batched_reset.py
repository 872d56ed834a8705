"""One compiled batched reset per environment, shared by the tests that draw many resets.

The golden layout hashes (`tests.grid.layout_golden`), the random-policy episodes of the
BabyAI levels and the layout-distribution tests (`tests.grid.distribution`) each drew their
resets from their own ``jit(vmap(env.reset))`` over their own number of keys: the same
program compiled up to three times per id in one test process, at 2-7 s each for a BabyAI
level (XLA level 2). Here one program per environment runs the keys in chunks of `CHUNK`,
so a process compiles each id's reset once, whatever the number of keys.

A vmapped reset computes each environment from its own key alone, so a key's state does not
depend on the chunk it runs in: the golden hashes, taken from one batch of 3,000 keys, hold
bit for bit. Smaller batches also run faster where a reset loops until its layout is
accepted (the loop runs until the batch's slowest draw is done): Unlock's 3,000 resets take
7.1 s in chunks of 100, 11.5 s in one batch.

The observation is not computed (none of these tests reads it: a shorter compile), and
imports no MiniGrid, as `tests.grid.layout_golden` needs.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp

from horizax.grid.environment import Environment

CHUNK = 100  # divides every key count the tests use but a few tiny ones (padded)
# Batched resets compile at XLA's default optimisation level, not the suite's level 0
# (tests/conftest.py), as `tests.grid.distribution`'s other batched programs do (its
# BATCH_OPTIONS is this): their run time, not their compile time, dominates (GoTo's 3,000
# resets take 80 s at level 0). Integer results do not depend on it.
BATCH_OPTIONS = {"xla_backend_optimization_level": 2}


def _no_observation(state: Any) -> jax.Array:
    return jnp.zeros((), jnp.uint8)


def without_observation(env: Any) -> Any:
    """``env`` computing no observation (a gridworld; other environments as they are), and
    with autoreset on, so both settings share one program (a reset reads the flag only to
    choose how a batch is drawn, `horizax.core.sparse_reset.draw`, with the same states)."""
    if isinstance(env, Environment):
        return env.replace(observation_fn=_no_observation, autoreset=True)
    return env


# Bounded, as a worker meets hundreds of ids (the golden test alone peaked at 2.1 GB of
# memory keeping all of its 190, and a worker holding 64 crashed once in a later test); the
# tests sharing an id's program run one after another (tests/conftest.py), so a few suffice.
@functools.lru_cache(maxsize=8)
def _program(env: Any, key_shape: tuple[int, ...], key_dtype: Any) -> Any:
    keys = jax.ShapeDtypeStruct((CHUNK, *key_shape), key_dtype)
    return jax.jit(jax.vmap(env.reset), compiler_options=BATCH_OPTIONS).lower(keys).compile()


def reset(env: Any, keys: jax.Array) -> Any:
    """``vmap(env.reset)(keys)`` of ``without_observation(env)``, bit for bit, computed in
    chunks of `CHUNK` keys by the one compiled program of that environment (the last chunk
    padded with copies of the last key, whose results are dropped)."""
    env = without_observation(env)
    keys = jnp.asarray(keys)
    n = len(keys)
    program = _program(env, tuple(keys.shape[1:]), keys.dtype)
    padded = jnp.concatenate([keys, jnp.repeat(keys[-1:], -n % CHUNK, axis=0)])
    chunks = [program(padded[i : i + CHUNK]) for i in range(0, len(padded), CHUNK)]
    if len(chunks) == 1:
        return jax.tree.map(lambda x: x[:n], chunks[0])
    return jax.tree.map(lambda *x: jnp.concatenate(x)[:n], *chunks)
