"""Autoreset that, under `vmap`, draws new layouts only for the environments that need one.

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
is a pure function of its key. Unbatched, it is a real `lax.cond`: only one branch runs.

For a layout of a few elementwise operations (Memory's), the rounds buy nothing: drawing a
layout for every environment fuses into the select, runs as fast, and compiles without the
loop's dozen kernels. ``reset_where(..., rounds=False)`` is that plain select.

The second half of the module builds Gymnasium 1.x's three autoreset modes (`AutoresetMode`:
NEXT_STEP, SAME_STEP, DISABLED) over the core functional protocol, as pure per-environment
functions (`start_episode`, `step_episode`, `restart_where`) on an `Episode` pytree; the
Gymnasium, dm_env and TorchRL adapters `vmap` them instead of resetting in Python.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
from jax import Array
from jax.custom_batching import custom_vmap

from horizax.core import episode_keys
from horizax.core.struct import pytree_dataclass

S = TypeVar("S")

ROUND_FRACTION = 32  # each round draws batch_size // 32 layouts (at least one)


def _broadcast(value: Any, batched: bool, size: int) -> Any:
    return value if batched else jnp.broadcast_to(value, (size, *jnp.shape(value)))


SMALL_ROW = 16  # fields with at most this many elements per environment are selected


def _place(old: Array, new: Array, index: Array, slot: Array, taken: Array) -> Array:
    """``old`` with row ``index[j]`` replaced by ``new[j]`` (``index`` out of range: dropped).

    Large rows (the grid) are scattered: only the round's rows are written. Small rows are
    an elementwise select over the batch (``new[slot]`` where ``taken``): one fused loop,
    with a constant row (an empty hand, direction 0) folded in. A scatter would compile to
    a kernel of its own, plus one that broadcasts a constant update: about 5 ms each on
    XLA:CPU, to save microseconds per round.
    """
    if old[0].size > SMALL_ROW:
        return old.at[index].set(new, mode="drop")
    rows = taken.reshape(taken.shape + (1,) * (old.ndim - 1))
    return jnp.where(rows, new[jnp.maximum(slot, 0)], old)


def reset_where(
    initial_state: Callable[[Array], S], done: Array, key: Array, state: S, *, rounds: bool = True
) -> S:
    """``initial_state(key)`` where ``done``, else ``state`` (per environment).

    Args:
        initial_state: ``key -> state``, pure; called on a subset of keys under `vmap`.
        done: bool[], whether this environment starts a new episode.
        key: the PRNG key of the new episode.
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
        size = min(axis_size, max(1, axis_size // ROUND_FRACTION))
        # Earlier environments rank higher; f32 is exact for any batch below 2**24.
        priority = jnp.arange(axis_size, 0, -1).astype(jnp.float32)

        def one_round(carry: tuple[S, Array]) -> tuple[S, Array]:
            state, waiting = carry
            # The (up to) `size` first environments still waiting for a layout: `top_k`
            # costs a few microseconds at B=1024 where `jnp.nonzero` (a cumsum over the
            # batch) costs ~30, as much as a whole Empty-8x8 step.
            rank, index = jax.lax.top_k(jnp.where(waiting, priority, 0.0), size)
            index = jnp.where(rank > 0, index, axis_size)  # out of range: writes dropped
            fresh = jax.vmap(initial_state)(key[jnp.minimum(index, axis_size - 1)])
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


# --- Explicit autoreset modes over the functional protocol ---------------------------------
#
# The protocol never resets by itself (`horizax.core.protocol`); adapters pick one of the
# three modes Gymnasium 1.x defines for vector environments. The functions below are pure,
# written for one environment, and meant to be `vmap`ped: an `Episode` carries the protocol
# state plus the bookkeeping autoreset needs (the episode's key, its step count, whether the
# last step ended it), so no Python state is involved and every mode works under `jit`,
# `vmap` and `scan`.


class AutoresetMode(enum.Enum):
    """When an environment that finished an episode starts the next one.

    The values are Gymnasium's (``gymnasium.vector.AutoresetMode``), so
    ``AutoresetMode(gym_mode.value)`` converts either way.

    * ``NEXT_STEP``: the step after a done step ignores its action and returns the first
      observation of a new episode, with reward 0 and both flags False (Gymnasium's default).
    * ``SAME_STEP``: the done step itself resets: it returns the new episode's first
      observation with the finished step's reward and flags; the terminal observation and
      info come back separately (`Final`).
    * ``DISABLED``: `step_episode` never resets; call `restart_where` for the environments
      that should start over.
    """

    NEXT_STEP = "NextStep"
    SAME_STEP = "SameStep"
    DISABLED = "Disabled"


def as_mode(mode: Any) -> AutoresetMode:
    """An `AutoresetMode` from itself, its value (``"NextStep"``, ...) or Gymnasium's enum.

    Raises:
        ValueError: for anything else, listing the accepted values.
    """
    try:
        return AutoresetMode(getattr(mode, "value", mode))
    except ValueError:
        accepted = ", ".join(repr(m.value) for m in AutoresetMode)
        raise ValueError(f"autoreset_mode must be one of {accepted}, got {mode!r}") from None


@pytree_dataclass
class Episode:
    """One environment's protocol state and its autoreset bookkeeping.

    Attributes:
        state: the protocol state (opaque pytree).
        key: the key this episode was reset from; the next episode is drawn from
            `episode_keys.next_episode_key` of it, so a run is a pure function of its first key.
        t: i32[], steps taken in this episode (with ``key`` it derives the step keys).
        done: bool[], the last step ended the episode (NEXT_STEP resets on the next step).
    """

    state: Any
    key: Array
    t: Array
    done: Array


@pytree_dataclass
class Final:
    """What SAME_STEP keeps of a step that ended an episode before resetting.

    Attributes:
        observation: that step's observation (the episode's last); meaningful where ``mask``.
        info: that step's info; meaningful where ``mask``.
        mask: bool[], this step ended an episode and the environment was reset.
    """

    observation: Any
    info: dict[str, Any]
    mask: Array


_STEP_SALT = 0x27D4EB2F  # separates step keys from the layout and dynamics streams


def step_key(key: Array, t: Array) -> Array:
    """The key handed to the protocol's ``step`` at step ``t`` of the episode drawn from ``key``.

    Families that keep their randomness in their state ignore it, and `jit` then drops this
    computation altogether.
    """
    typed = jnp.issubdtype(key.dtype, jax.dtypes.prng_key)
    data = jax.random.key_data(key) if typed else key
    data = data ^ jnp.zeros(data.shape[-1], jnp.uint32).at[0].set(_STEP_SALT)
    salted = jax.random.wrap_key_data(data, impl=jax.random.key_impl(key)) if typed else data
    return jax.random.fold_in(salted, t)


def _avals(tree: Any) -> list[tuple[Any, Any]]:
    """(shape, dtype) of every leaf, weak types ignored (a `lax.cond` joins those)."""
    return [(jnp.shape(x), jnp.result_type(x)) for x in jax.tree.leaves(tree)]


def _check_same_structure(fenv: Any, key: Array, stepped: Any) -> None:
    """Autoreset selects between a reset and a step: both must return the same pytree."""
    reset_out = jax.eval_shape(fenv.reset, key)
    same_tree = jax.tree.structure(reset_out) == jax.tree.structure(stepped)
    if not same_tree or _avals(reset_out) != _avals(stepped):
        raise TypeError(
            "autoreset needs fenv.reset and fenv.step to return the same (state, Step) pytree "
            "(same info keys, shapes and dtypes); got "
            f"reset -> {jax.tree.structure(reset_out)} and step -> {jax.tree.structure(stepped)}"
        )


def start_episode(fenv: Any, key: Array) -> tuple[Episode, Any]:
    """Resets one environment from ``key``.

    Args:
        fenv: a `horizax.core.protocol.FunctionalEnv`.
        key: the episode's PRNG key.

    Returns:
        ``(episode, step)``: the `Episode` (t 0, not done) and the reset's `Step`.
    """
    state, step = fenv.reset(key)
    return Episode(state=state, key=key, t=jnp.int32(0), done=jnp.bool_(False)), step


def step_episode(
    fenv: Any, mode: Any, episode: Episode, action: Array
) -> tuple[Episode, Any, Final | None]:
    """One step of one environment under an autoreset mode.

    Args:
        fenv: a `horizax.core.protocol.FunctionalEnv`.
        mode: an `AutoresetMode` (or its value).
        episode: the environment's `Episode`.
        action: the action, as the protocol's ``step`` takes it (i32[] for Discrete).

    Returns:
        ``(episode, step, final)``. NEXT_STEP: ``step`` is the protocol step, or the first step
        of the next episode if ``episode.done``. SAME_STEP: ``step`` carries the protocol
        step's reward and flags, and where they end the episode the next episode's first
        observation and info; ``final`` holds the terminal observation and info. DISABLED:
        the protocol step, whatever ``episode.done`` says. ``final`` is None except in
        SAME_STEP.

    Raises:
        TypeError: if the environment's reset and step return different pytrees.
    """
    mode = as_mode(mode)
    stepped = fenv.step(step_key(episode.key, episode.t), episode.state, action)
    next_key = episode_keys.next_episode_key(episode.key)
    t = episode.t + 1
    if mode is AutoresetMode.DISABLED:
        state, step = stepped
        return Episode(state=state, key=episode.key, t=t, done=step.done), step, None
    _check_same_structure(fenv, next_key, stepped)
    if mode is AutoresetMode.NEXT_STEP:
        reset = episode.done
        state, step = reset_where(fenv.reset, reset, next_key, stepped)
        done = step.done  # False where reset: a first step never ends an episode
    else:  # SAME_STEP
        reset = stepped[1].done
        state, first = reset_where(fenv.reset, reset, next_key, stepped)
        step = stepped[1].replace(observation=first.observation, info=first.info)
        done = jnp.bool_(False)
    episode = Episode(
        state=state,
        key=jnp.where(reset, next_key, episode.key),
        t=jnp.where(reset, jnp.int32(0), t),
        done=done,
    )
    if mode is AutoresetMode.SAME_STEP:
        final = Final(observation=stepped[1].observation, info=stepped[1].info, mask=reset)
        return episode, step, final
    return episode, step, None


def restart_where(fenv: Any, episode: Episode, key: Array, mask: Array) -> tuple[Episode, Any]:
    """Starts a new episode from ``key`` where ``mask``; keeps ``episode`` elsewhere.

    Under `vmap` only the masked environments draw a layout (`reset_where`).

    Args:
        fenv: a `horizax.core.protocol.FunctionalEnv`.
        episode: the environment's `Episode`.
        key: the key of the new episode.
        mask: bool[], whether to restart.

    Returns:
        ``(episode, step)``: ``step`` is the new episode's first `Step` where ``mask`` and
        zeros elsewhere (the caller keeps its last observation there).
    """
    first = jax.eval_shape(fenv.reset, key)[1]
    zeros = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), first)
    return reset_where(
        lambda k: start_episode(fenv, k), jnp.asarray(mask, jnp.bool_), key, (episode, zeros)
    )


def autoreset_step(fenv: Any, mode: Any) -> Callable[[Episode, Array], tuple[Episode, Any, Any]]:
    """``fn(episode, action) -> (episode, step, final)``: `step_episode` bound to an env and mode.

    The function is for one environment; ``jax.jit(jax.vmap(autoreset_step(fenv, mode)))``
    steps a batch (`Episode` pytrees with a leading axis, from ``jax.vmap(start_episode)``).
    """
    mode = as_mode(mode)
    return lambda episode, action: step_episode(fenv, mode, episode, action)
