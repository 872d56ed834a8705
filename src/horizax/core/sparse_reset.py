"""The sparse batched reset: under `vmap`, new layouts only for the environments that need one.

The autoreset rule is per environment: ``initial_state(key) if done else state``. Written as
`lax.cond`, `vmap` turns it into a select that draws a fresh layout for *every* environment
at *every* step -- for costly layouts (MultiRoom, ObstructedMaze, KeyCorridor) that is most
of a step's work, although only a handful of a batch's environments end on any given step.

`reset_where` keeps the per-environment meaning and gives `vmap` a better rule
(`jax.custom_batching.custom_vmap`): layouts are drawn for the done environments in rounds
of ``max(1, batch_size // ROUND_FRACTION)`` environments (the first ones still waiting,
found with `lax.top_k`), each round scattered into place (a `while_loop` with
``ceil(done / round)`` trips: none at all on the
many steps where no environment finished, one on most others, and about as much work as
drawing every layout when a whole batch truncates in sync). The layout is compiled once for
the step, in the loop's body. Results are those of the per-environment rule, since a layout
is a pure function of its key. Unbatched, and batched with a single environment, it is a real
`lax.cond`: only one branch runs, without the rounds' ranking, loop and scatter.

For a layout of a few elementwise operations (Memory's), the rounds buy nothing: drawing a
layout for every environment fuses into the select, runs as fast, and compiles without the
loop's dozen kernels. ``reset_where(..., rounds=False)`` is that plain select.

`draw_batch` draws a whole batch's first layouts (the engine's `start_episodes`; `draw` is the
same rule as a per-environment function, for a ``jax.vmap``-ped reset) in chunks of
one round's size: XLA:CPU compiles a layout's kernels once per shape, so a program that starts
a batch and steps it with autoreset (a training loop, a benchmark's rollout) then compiles
the layout once instead of twice. For the orbital games that is about 1.4 s of a 6.5 s
compile (`benchmarks/RESULTS.md`).

The episode engine (`horizax.core.episode`) builds its autoreset modes on `reset_where`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array
from jax.core import Tracer
from jax.custom_batching import custom_vmap

S = TypeVar("S")

ROUND_FRACTION = 32  # each round draws batch_size // 32 layouts (at least one)


def _broadcast(value: Any, batched: bool, size: int) -> Any:
    return value if batched else jnp.broadcast_to(value, (size, *jnp.shape(value)))


def shared_jit(fn: Callable[..., S]) -> Callable[..., S]:
    """``jax.jit(fn)`` whose trace is shared by every tracing context of one program.

    `jax.jit` keys its trace cache on the tracing context as well as the arguments' types.
    Outside a transformation the abstract-mesh setting is unset; while `vmap` batches a
    `lax.scan` body it re-evaluates the body's equations, each under its recorded context,
    where the same (empty) mesh is set explicitly. The two keys differ, so the sparse reset's
    batching rule (`reset_where`, `draw`), run during that re-evaluation, traced a layout that
    the unbatched trace had already traced: a BabyAI level's layout took seconds more under
    ``jax.vmap`` of a scanned rollout. Calling the jitted function under the mesh that is in
    effect, set explicitly (`jax.sharding.use_abstract_mesh`, a no-op inside a user's mesh),
    gives both one key.

    Args:
        fn: the function to jit; it must accept a weak reference (as `jax.jit` requires).

    Returns:
        A callable with ``fn``'s signature.
    """
    jitted = jax.jit(fn)
    use_abstract_mesh = getattr(jax.sharding, "use_abstract_mesh", None)
    if use_abstract_mesh is None:
        # JAX 0.7 has no public setting: the plain jit, which a vmapped scan traces twice.
        return jitted

    @functools.wraps(fn)
    def call(*args: Any) -> S:
        with use_abstract_mesh(jax.sharding.get_abstract_mesh()):
            return jitted(*args)

    return call


def round_size(batch_size: int) -> int:
    """Environments drawn per round under `vmap` over ``batch_size`` environments."""
    return min(batch_size, max(1, batch_size // ROUND_FRACTION))


def draw_batch(initial_state: Callable[[Any], S], keys: Any, *, rounds: bool = True) -> S:
    """``jax.vmap(initial_state)(keys)``, drawn in chunks of `round_size` when ``rounds``.

    The result is the same either way (a layout is a pure function of its key); chunking
    makes the layout program the one `reset_where`'s rounds run, so within one compiled
    program it is compiled once. The chunks run one after another (`lax.map`): a one-off
    cost at the start of a rollout, paid for in compile time saved.

    Args:
        initial_state: ``key -> state``, pure.
        keys: a pytree of arrays with a leading batch axis ``B`` (typed or raw PRNG keys).
        rounds: chunk as the rounds do; False is a plain `vmap`.

    Returns:
        The states, with a leading axis ``B``.
    """
    batch = jax.tree.leaves(keys)[0].shape[0]
    size = round_size(batch)
    if not rounds or size == batch:
        return jax.vmap(initial_state)(keys)
    chunks = -(-batch // size)
    pad = chunks * size - batch  # padded with copies of the first key, then dropped

    def as_chunks(k: Array) -> Array:
        if pad:
            k = jnp.concatenate([k, jnp.broadcast_to(k[:1], (pad, *k.shape[1:]))])
        return k.reshape(chunks, size, *k.shape[1:])

    out = jax.lax.map(jax.vmap(initial_state), jax.tree.map(as_chunks, keys))
    return jax.tree.map(lambda x: x.reshape(chunks * size, *x.shape[2:])[:batch], out)


# Batches up to this size are drawn in the rounds' shape by `draw`: measured faster to compile
# at B = 1 and 64 with the same steps/s, while a B = 1,024 BabyAI rollout stepped slower
# (benchmarks/RESULTS.md, "a vmapped reset in the rounds' shape").
DRAW_IN_ROUNDS_UP_TO = 64


def _eager(tree: Any) -> bool:
    """Whether every leaf of ``tree`` is a concrete array, seen through eager `vmap`s.

    A `vmap`'s tracer holds its batched value in ``val``: an array when the `vmap` runs
    eagerly, a tracer (or a jaxpr variable) inside `jit`, `scan` or a nested transformation.
    Any other tracer counts as traced, which only costs the eager shortcut.
    """
    for leaf in jax.tree.leaves(tree):
        while isinstance(leaf, Tracer):
            leaf = getattr(leaf, "val", None)
        if not isinstance(leaf, (jax.Array, np.ndarray)):
            return False
    return True


def draw(initial_state: Callable[[Any], S], key: Any, *, rounds: bool = True) -> S:
    """``initial_state(key)``; under `vmap`, drawn as `draw_batch` draws a batch.

    A batched reset of at most `DRAW_IN_ROUNDS_UP_TO` environments then runs its layout in
    the shape `reset_where`'s rounds run it (one environment: unbatched, as the
    single-environment branch), so a program that resets a batch and steps it with
    autoreset compiles the layout's kernels once. Larger batches are a plain `vmap`, and so
    is an eager (un-jitted) `vmap`, which has no later program to share kernels with.

    Args:
        initial_state: ``key -> state``, pure.
        key: the key (or pytree of arrays) ``initial_state`` takes.
        rounds: False: a plain call (a plain `vmap` under `vmap`).

    Returns:
        ``initial_state(key)``, under `vmap` with a leading batch axis.
    """
    # Outside any compiled trace (an eager call, eagerly `vmap`-ped or not) the plain call runs
    # the family's own jitted parts without compiling anything new; the wrapped rule would be
    # traced and compiled afresh on every call.
    if not rounds or _eager(key):
        return initial_state(key)
    initial_state = jax.jit(initial_state)

    @custom_vmap
    def one(key: Any) -> S:
        return initial_state(key)

    @one.def_vmap
    def batched(axis_size: int, in_batched: list[Any], key: Any) -> tuple[S, Any]:
        (key_batched,) = in_batched
        key = jax.tree.map(lambda k, b: _broadcast(k, b, axis_size), key, key_batched)
        if axis_size == 1:
            single = initial_state(jax.tree.map(lambda k: k[0], key))
            out = jax.tree.map(lambda x: x[None], single)
        elif axis_size > DRAW_IN_ROUNDS_UP_TO:
            out = jax.vmap(initial_state)(key)
        else:
            out = draw_batch(initial_state, key)
        return out, jax.tree.map(lambda _: True, out)

    return one(key)


SMALL_ROW = 16  # fields with at most this many elements per environment are selected


def _place(old: Array, new: Array, index: Array, slot: Array, taken: Array) -> Array:
    """``old`` with row ``index[j]`` replaced by ``new[j]`` (``index`` out of range: dropped).

    Large rows (the grid) are scattered: only the round's rows are written. Small rows are
    an elementwise select over the batch (``new[slot]`` where ``taken``): one fused loop,
    with a constant row (an empty hand, direction 0) folded in. A scatter would compile to
    a kernel of its own, plus one that broadcasts a constant update, to save little per
    round.
    """
    if old[0].size > SMALL_ROW:
        return old.at[index].set(new, mode="drop")
    rows = taken.reshape(taken.shape + (1,) * (old.ndim - 1))
    return jnp.where(rows, new[jnp.maximum(slot, 0)], old)


def reset_where(
    initial_state: Callable[[Any], S], done: Array, key: Any, state: S, *, rounds: bool = True
) -> S:
    """``initial_state(key)`` where ``done``, else ``state`` (per environment).

    Args:
        initial_state: ``key -> state``, pure; called on a subset of keys under `vmap`.
        done: bool[], whether this environment starts a new episode.
        key: the PRNG key of the new episode, or any pytree of arrays ``initial_state``
            takes (under `vmap` only the rows of the environments that reset are gathered).
        state: the state to keep when not done (a pytree of arrays).
        rounds: under `vmap`, draw layouts only for the done environments, in rounds (see
            the module docstring); False draws one for every environment and selects.
            Both give the same result.

    Returns:
        A state pytree shaped like ``state``.
    """
    # Traced once: `custom_vmap` traces the unbatched rule, and the batched rule reuses it.
    initial_state = jax.jit(initial_state)
    if not rounds:
        return jax.lax.cond(done, lambda: initial_state(key), lambda: state)

    @custom_vmap
    def select(done: Array, key: Any, state: S) -> S:
        return jax.lax.cond(done, lambda: initial_state(key), lambda: state)

    @select.def_vmap
    def select_batched(
        axis_size: int, in_batched: list[Any], done: Array, key: Any, state: S
    ) -> tuple[S, Any]:
        done_batched, key_batched, state_batched = in_batched
        done = _broadcast(done, done_batched, axis_size)
        key = jax.tree.map(lambda k, b: _broadcast(k, b, axis_size), key, key_batched)
        state = jax.tree.map(lambda x, b: _broadcast(x, b, axis_size), state, state_batched)
        if axis_size == 1:
            # One environment: a real branch, as unbatched (no ranking, loop or scatter).
            row = lambda tree: jax.tree.map(lambda x: x[0], tree)  # noqa: E731
            single = jax.lax.cond(done[0], lambda: initial_state(row(key)), lambda: row(state))
            out = jax.tree.map(lambda x: x[None], single)
            return out, jax.tree.map(lambda _: True, out)
        size = round_size(axis_size)
        # Earlier environments rank higher; f32 is exact for any batch below 2**24.
        priority = jnp.arange(axis_size, 0, -1).astype(jnp.float32)

        def one_round(carry: tuple[S, Array]) -> tuple[S, Array]:
            state, waiting = carry
            # The (up to) `size` first environments still waiting for a layout: `top_k`
            # avoids `jnp.nonzero`'s cumsum over the whole batch.
            rank, index = jax.lax.top_k(jnp.where(waiting, priority, 0.0), size)
            index = jnp.where(rank > 0, index, axis_size)  # out of range: writes dropped
            rows = jnp.minimum(index, axis_size - 1)
            fresh = jax.vmap(initial_state)(jax.tree.map(lambda k: k[rows], key))
            # slot[b]: which of this round's layouts environment b takes (-1: none).
            slot = jnp.full(axis_size, -1, jnp.int32)
            slot = slot.at[index].set(jnp.arange(size, dtype=jnp.int32), mode="drop")
            taken = slot >= 0
            state = jax.tree.map(
                lambda old, new: _place(old, new, index, slot, taken), state, fresh
            )
            return state, waiting & ~taken

        out, _ = jax.lax.while_loop(lambda carry: jnp.any(carry[1]), one_round, (state, done))
        return out, jax.tree.map(lambda _: True, out)

    return select(done, key, state)
