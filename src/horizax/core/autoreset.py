"""Autoreset that, under `vmap`, draws new layouts only for the environments that need one.

The autoreset rule is per environment: ``initial_state(key) if done else state``. Written as
`lax.cond`, `vmap` turns it into a select that draws a fresh layout for *every* environment
at *every* step -- for costly layouts (MultiRoom, ObstructedMaze, KeyCorridor) that is most
of a step's work, although only a handful of a batch's environments end on any given step.

`reset_where` keeps the per-environment meaning and gives `vmap` a better rule
(`jax.custom_batching.custom_vmap`): when at most ``batch_size // SPARSE_FRACTION`` of the
batch is done this step, only that many layouts are drawn (for the done environments) and
scattered into place; otherwise (e.g. a batch truncating in sync) every
environment's layout is drawn, as before. Both paths give identical results, since a layout
is a pure function of its key. Unbatched, it is a real `lax.cond`: only one branch runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
from jax import Array
from jax.custom_batching import custom_vmap

S = TypeVar("S")

SPARSE_FRACTION = 8  # draw at most batch_size // 8 layouts per step on the sparse path


def _broadcast(value: Any, batched: bool, size: int) -> Any:
    return value if batched else jnp.broadcast_to(value, (size, *jnp.shape(value)))


def _select(done: Array, fresh: Any, current: Any) -> Any:
    def pick(new: Array, old: Array) -> Array:
        mask = done.reshape(done.shape + (1,) * (old.ndim - done.ndim))
        return jnp.where(mask, new, old)

    return jax.tree.map(pick, fresh, current)


def reset_where(initial_state: Callable[[Array], S], done: Array, key: Array, state: S) -> S:
    """``initial_state(key)`` where ``done``, else ``state`` (per environment).

    Args:
        initial_state: ``key -> state``, pure; called on a subset of keys under `vmap`.
        done: bool[], whether this environment starts a new episode.
        key: the PRNG key of the new episode.
        state: the state to keep when not done (a pytree of arrays).

    Returns:
        A state pytree shaped like ``state``.
    """

    @custom_vmap
    def select(done: Array, key: Array, state: S) -> S:
        return jax.lax.cond(done, lambda: initial_state(key), lambda: state)

    @select.def_vmap
    def select_batched(
        axis_size: int, in_batched: list[Any], done: Array, key: Array, state: S
    ) -> tuple[S, Any]:
        done_batched, key_batched, state_batched = in_batched
        done = _broadcast(done, done_batched, axis_size)
        key = _broadcast(key, key_batched, axis_size)
        state = jax.tree.map(lambda x, b: _broadcast(x, b, axis_size), state, state_batched)
        capacity = max(1, axis_size // SPARSE_FRACTION)

        def sparse() -> S:
            # The done environments' indices, padded with an out-of-range index whose writes
            # are dropped: draw `capacity` layouts and scatter them into place (only the
            # rows of the done environments are touched).
            (index,) = jnp.nonzero(done, size=capacity, fill_value=axis_size)
            fresh = jax.vmap(initial_state)(key[jnp.minimum(index, axis_size - 1)])
            return jax.tree.map(lambda old, new: old.at[index].set(new, mode="drop"), state, fresh)

        def dense() -> S:
            return _select(done, jax.vmap(initial_state)(key), state)

        out = jax.lax.cond(jnp.sum(done) <= capacity, sparse, dense)
        return out, jax.tree.map(lambda _: True, out)

    return select(done, key, state)
