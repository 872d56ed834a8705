"""The episode engine: one answer to "what happens when an episode ends", for every path.

Every adapter (Gymnasium, dm_env, TorchRL, gymnax) drives a family's protocol view
(`horizax.core.protocol`) through the pure, per-environment functions of this module, and
`vmap`s them for a batch. They own:

* **the first key of a seed**: `seed_key` (``seed`` -> ``jax.random.PRNGKey(seed)`` for
  ``0 <= seed < 2**32``); a batch seeded ``s`` gives environment ``i`` the seed ``s + i``
  (`seed_keys`), as Gymnasium's vector environments do;
* **the next-episode key schedule**: `next_episode_key`, the family's own rule where its
  documented API needs one (the Maze threads keys as jumanji does; the protocol view then
  has a ``next_episode_key(key, state)`` method), else the engine's, the next stream of the
  episode key (`horizax.core.episode_keys`). A given id and seed therefore play the same
  episodes through the native API and every adapter;
* **the step counter** ``Episode.t`` and the step keys handed to the protocol (`step_key`);
* **the three autoreset modes** (`AutoresetMode`: NEXT_STEP, SAME_STEP with the final
  observation kept, DISABLED), all resetting through one rule, `restart_finished`: the
  family's key schedule on the sparse batched reset (`horizax.core.sparse_reset.reset_where`),
  so under `vmap` only the environments that reset draw a new initial state;
* **select, then observe once**: a family that splits its step into stages (`StagedEnv`:
  ``initial_state``, ``transition``, ``observe``) is stepped by `staged_next_step` in
  NEXT_STEP, which picks the next state before observing it. The gridworld's documented
  `Environment.step` and the Maze's `AutoReset` are facades over these same functions.

Truncation itself is the family's: each protocol view reports ``terminated`` and
``truncated`` (termination wins), since the gridworld and the Maze count their steps in their
documented states.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core import episode_keys
from horizax.core.protocol import Step, make_step
from horizax.core.sparse_reset import draw_batch, reset_where
from horizax.core.staged import StagedEnv, is_staged
from horizax.core.struct import pytree_dataclass

__all__ = [
    "AutoresetMode",
    "Episode",
    "Final",
    "as_mode",
    "autoreset_step",
    "next_episode_key",
    "next_episode_keys",
    "restart_episodes_where",
    "restart_finished",
    "restart_where",
    "seed_key",
    "seed_keys",
    "staged_next_step",
    "start_episode",
    "start_episodes",
    "step_episode",
    "step_episodes",
    "step_key",
]

_U32 = 0xFFFFFFFF
S = TypeVar("S")


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


def seed_key(seed: int) -> np.ndarray:
    """u32[2], the raw PRNG key of an integer seed: ``jax.random.PRNGKey(seed)`` for seeds
    below ``2**32`` (larger ones, below ``2**64``, keep their high word in the first lane).

    Raises:
        TypeError: if ``seed`` is not an int.
        ValueError: if ``seed`` is negative or ``>= 2**64``.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return np.array([(seed >> 32) & _U32, seed & _U32], dtype=np.uint32)


def seed_keys(seed: int, num_envs: int) -> np.ndarray:
    """u32[N, 2]: the first keys of a batch seeded ``seed`` (environment ``i``: ``seed + i``).

    Raises:
        TypeError, ValueError: as `seed_key`, for any of the ``num_envs`` seeds.
    """
    seed_key(seed)  # the type check, before any arithmetic on the seed
    return np.stack([seed_key(int(seed) + i) for i in range(int(num_envs))])


@pytree_dataclass
class Episode:
    """One environment's protocol state and its episode bookkeeping.

    Attributes:
        state: the protocol state (opaque pytree).
        key: the key this episode was reset from; the next episode's is
            `next_episode_key` of it, so a run is a pure function of its first key.
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


def next_episode_key(fenv: Any, episode: Episode) -> Array:
    """The key of the episode that follows ``episode`` (same shape and key type).

    The family's rule, ``fenv.next_episode_key(key, state)``, where its protocol view has
    one (an optional method of `horizax.core.protocol.FunctionalEnv`, so a hand-written
    family need not define it); otherwise the next stream of the episode key
    (`episode_keys.next_episode_key`).
    """
    rule = getattr(fenv, "next_episode_key", None)
    if rule is None:
        return episode_keys.next_episode_key(episode.key)
    return rule(episode.key, episode.state)


def restart_finished(
    fenv: Any,
    draw: Callable[[Array], S],
    done: Array,
    key: Array,
    state: Any,
    keep: S,
    *,
    rounds: bool | None = None,
) -> S:
    """The one autoreset rule: ``draw(next key)`` where ``done``, else ``keep``.

    The next key is the family's (`next_episode_key` of ``key`` and ``state``, the episode
    that just ended). Under `vmap` only the finished environments draw
    (`horizax.core.sparse_reset.reset_where`), and the next key is derived inside the draw,
    so it is computed for those environments only.

    Args:
        fenv: the family (its ``next_episode_key`` rule and ``autoreset_rounds`` setting,
            both optional, are read).
        draw: ``key -> pytree shaped like keep``: the new episode's first state (and
            whatever goes with it, e.g. its first `Step`).
        done: bool[], whether this environment starts a new episode.
        key: the key the ending episode was drawn from.
        state: the ending episode's state (a family rule may read it).
        keep: what to return where not ``done``.
        rounds: draw in rounds under `vmap` (default: ``fenv.autoreset_rounds``, else True;
            see `reset_where`). The results are the same either way.
    """
    if rounds is None:
        rounds = bool(getattr(fenv, "autoreset_rounds", True))
    rule = getattr(fenv, "next_episode_key", None)
    if rule is None:
        return reset_where(
            lambda k: draw(episode_keys.next_episode_key(k)), done, key, keep, rounds=rounds
        )
    return reset_where(lambda ks: draw(rule(*ks)), done, (key, state), keep, rounds=rounds)


def staged_next_step(
    fenv: StagedEnv, done: Array, key: Array, state: Any, action: Array, step_key: Array
) -> tuple[Any, Step]:
    """NEXT_STEP for one environment of a staged family, observing once.

    Args:
        fenv: a `StagedEnv`.
        done: bool[], the previous step ended the episode: ignore ``action`` and start the
            next episode (`restart_finished`) with reward 0 and both flags False.
        key: the key the current episode was drawn from.
        state: the current state.
        action: the action (ignored where ``done``).
        step_key: the key handed to ``transition``.

    Returns:
        ``(state, step)``.
    """
    stepped, reward, terminated, truncated = fenv.transition(step_key, state, action)
    state = restart_finished(fenv, fenv.initial_state, done, key, state, stepped)
    observation, info = fenv.observe(state)
    step = make_step(
        observation,
        jnp.where(done, jnp.float32(0.0), reward),
        jnp.asarray(terminated, jnp.bool_) & ~done,
        jnp.asarray(truncated, jnp.bool_) & ~done,
        info,
    )
    return state, step


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
        key: the episode's PRNG key (`seed_key` of a seed, or `next_episode_key`).

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
    key_t = step_key(episode.key, episode.t)
    t = episode.t + 1
    if mode is AutoresetMode.NEXT_STEP and is_staged(fenv):
        reset = episode.done
        state, step = staged_next_step(fenv, reset, episode.key, episode.state, action, key_t)
        return _advance(fenv, episode, state, t, reset, done=step.done), step, None
    stepped = fenv.step(key_t, episode.state, action)
    if mode is AutoresetMode.DISABLED:
        state, step = stepped
        return Episode(state=state, key=episode.key, t=t, done=step.done), step, None
    _check_same_structure(fenv, episode.key, stepped)
    if mode is AutoresetMode.NEXT_STEP:
        reset = episode.done
        state, step = restart_finished(fenv, fenv.reset, reset, episode.key, episode.state, stepped)
        # A first step never ends an episode, so `done` is False where reset.
        return _advance(fenv, episode, state, t, reset, done=step.done), step, None
    reset = stepped[1].done  # SAME_STEP
    state, first = restart_finished(fenv, fenv.reset, reset, episode.key, episode.state, stepped)
    step = stepped[1].replace(observation=first.observation, info=first.info)
    final = Final(observation=stepped[1].observation, info=stepped[1].info, mask=reset)
    return _advance(fenv, episode, state, t, reset, done=jnp.bool_(False)), step, final


def _advance(
    fenv: Any, episode: Episode, state: Any, t: Array, reset: Array, done: Array
) -> Episode:
    """The bookkeeping after a step: where ``reset``, the next episode's key and t 0."""
    return Episode(
        state=state,
        key=jnp.where(reset, next_episode_key(fenv, episode), episode.key),
        t=jnp.where(reset, jnp.int32(0), t),
        done=done,
    )


def restart_where(fenv: Any, episode: Episode, key: Array, mask: Array) -> tuple[Episode, Any]:
    """Starts a new episode from ``key`` where ``mask``; keeps ``episode`` elsewhere.

    Under `vmap` only the masked environments draw a layout (`reset_where`).

    Args:
        fenv: a `horizax.core.protocol.FunctionalEnv`.
        episode: the environment's `Episode`.
        key: the key of the new episode (usually `next_episode_key` of ``episode``).
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


# --- batches: the functions above over a leading batch axis (adapters jit these) ---------------


def start_episodes(fenv: Any, keys: Array, *, rounds: bool | None = None) -> tuple[Episode, Any]:
    """`start_episode` for a batch: ``keys`` is [B, *key_shape]; outputs have a leading B.

    Args:
        fenv: a `horizax.core.protocol.FunctionalEnv`.
        keys: one key per environment.
        rounds: draw in chunks of the autoreset's round size
            (`horizax.core.sparse_reset.draw_batch`; default: ``fenv.autoreset_rounds``,
            else True), so that a program which starts a batch and steps it compiles the
            family's reset once. A reset compiled as a program of its own gains nothing from
            the chunks and compiles a little slower with them: pass False there. The result
            equals ``jax.vmap(start_episode)`` either way.
    """
    if rounds is None:
        rounds = bool(getattr(fenv, "autoreset_rounds", True))
    return draw_batch(lambda key: start_episode(fenv, key), keys, rounds=rounds)


def next_episode_keys(fenv: Any, episodes: Episode) -> Array:
    """`next_episode_key` for a batch of `Episode` s (leading axis B): [B, *key_shape]."""
    return jax.vmap(lambda episode: next_episode_key(fenv, episode))(episodes)


def restart_episodes_where(
    fenv: Any, episodes: Episode, keys: Array, mask: Array
) -> tuple[Episode, Any]:
    """`restart_where` for a batch: ``mask`` is bool[B]; only the masked draw a new episode."""
    return jax.vmap(lambda e, k, m: restart_where(fenv, e, k, m))(episodes, keys, mask)


def step_episodes(
    fenv: Any, mode: Any, episodes: Episode, actions: Array
) -> tuple[Episode, Any, Any]:
    """`step_episode` for a batch: ``actions`` is i32[B]."""
    return jax.vmap(autoreset_step(fenv, mode))(episodes, actions)


def autoreset_step(fenv: Any, mode: Any) -> Callable[[Episode, Array], tuple[Episode, Any, Any]]:
    """``fn(episode, action) -> (episode, step, final)``: `step_episode` bound to an env and mode.

    The function is for one environment; ``jax.jit(jax.vmap(autoreset_step(fenv, mode)))``
    steps a batch (`Episode` pytrees with a leading axis, from ``jax.vmap(start_episode)``).
    """
    mode = as_mode(mode)
    return lambda episode, action: step_episode(fenv, mode, episode, action)
