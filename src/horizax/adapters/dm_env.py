"""dm_env adapter: any horizax environment behind ``dm_env.Environment``.

::

    env = DmEnv("MiniGrid-Empty-5x5-v0", seed=0)
    timestep = env.reset()                  # FIRST: reward None, discount None
    while not timestep.last():
        timestep = env.step(agent(timestep.observation))

Episode boundary (ARCHITECTURE.md, contract 1). dm_env has one ``LAST`` step type for both
ways an episode ends and tells them apart by ``discount``: a termination ends with discount
0.0 (nothing to bootstrap from), a truncation by the time limit with discount 1.0 (the
observation is a regular state: bootstrap from it). ``MID`` steps have discount 1.0. The
step after ``LAST`` starts a new episode and ignores its action, as dm_env specifies; so does
a ``step`` before any ``reset``.

Reset and step are the episode engine's (`horizax.core.episode`) over the protocol view
(`horizax.core.protocol`), jitted once per environment configuration; observations come back
as numpy arrays (a dict of them for ``Dict`` spaces). The first episode starts from
``jax.random.PRNGKey(seed)`` and each later one from the family's next-episode key, so a
seed plays the same episodes here as through the native API and every other adapter.

Actions. A ``Discrete(n)`` space has ``action_spec()`` ``DiscreteArray(n)`` and takes an
integer in ``[0, n)``. A ``Box`` space (the orbital games' velocity changes) has a
``BoundedArray`` of its shape, dtype and bounds and takes a float or integer array of exactly
that shape, cast to the dtype; values outside the bounds are passed to the environment
unclipped, as in every adapter (`horizax.adapters.actions`).

Requires the ``dm-env`` extra: ``pip install 'horizax[dm-env]'``.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

try:
    import dm_env
    from dm_env import specs
except ImportError as err:  # pragma: no cover - exercised by a test that hides dm_env
    raise ImportError(
        "horizax.adapters.dm_env needs the optional dependency dm-env; install the `dm-env` "
        f"extra: pip install 'horizax[dm-env]'. Original error: {err}"
    ) from err

from horizax.adapters.actions import check_action_space, check_box_action
from horizax.core import episode as engine
from horizax.core import spaces
from horizax.core.protocol import FunctionalEnv, Step, functional
from horizax.core.registry import make

__all__ = ["DmEnv", "HorizaxEnv", "to_dm_env_spec"]


def to_dm_env_spec(space: Any, name: str) -> Any:
    """The dm_env spec of a horizax space.

    Args:
        space: a `horizax.core.spaces` ``Box``, ``Discrete``, ``Text`` or ``Dict`` (nested
            freely).
        name: the spec's name (``Dict`` entries are named ``"<name>/<key>"``).

    Returns:
        ``specs.BoundedArray`` for a Box (and for a Text: its encoded array, e.g. the
        gridworld's mission i32[10]), ``specs.DiscreteArray`` for a Discrete, a dict of
        specs for a Dict.

    Raises:
        TypeError: for any other space.
    """
    if isinstance(space, spaces.Dict):
        return {k: to_dm_env_spec(s, f"{name}/{k}") for k, s in space.spaces.items()}
    if isinstance(space, spaces.Text):  # dm_env has no string spec: the encoded array
        return to_dm_env_spec(space.encoded, name)
    if isinstance(space, spaces.Discrete):
        return specs.DiscreteArray(int(space.n), dtype=np.dtype(space.dtype), name=name)  # pyright: ignore[reportArgumentType]  untyped dm_env: pyright types a parameter by its default (np.int32)
    if isinstance(space, spaces.Box):
        dtype = np.dtype(space.dtype)
        return specs.BoundedArray(
            space.shape,
            dtype,
            minimum=np.broadcast_to(np.asarray(space.low, dtype), space.shape),
            maximum=np.broadcast_to(np.asarray(space.high, dtype), space.shape),
            name=name,
        )
    raise TypeError(f"no dm_env spec for a {type(space).__name__} space")


@functools.partial(jax.jit, static_argnums=0)
def _start(fenv: FunctionalEnv, key: jax.Array) -> tuple[engine.Episode, Step]:
    return engine.start_episode(fenv, key)


@functools.partial(jax.jit, static_argnums=0)
def _next_key(fenv: FunctionalEnv, episode: engine.Episode) -> jax.Array:
    return engine.next_episode_key(fenv, episode)


@functools.partial(jax.jit, static_argnums=0)
def _step(fenv: FunctionalEnv, episode: engine.Episode, action: Any) -> Any:
    episode, step, _ = engine.step_episode(fenv, engine.AutoresetMode.DISABLED, episode, action)
    return episode, step


class DmEnv(dm_env.Environment):
    """A horizax environment as a ``dm_env.Environment``.

    Args:
        env: a registered id (e.g. ``"MiniGrid-Empty-5x5-v0"``), an environment from
            `horizax.make`, or any `horizax.core.protocol.FunctionalEnv`.
        seed: the first episode starts from ``jax.random.PRNGKey(seed)`` (`engine.seed_key`).
        **overrides: `horizax.make` overrides such as ``max_steps`` (with an id only).

    Attributes:
        fenv: the protocol view being driven.
        env_id: the registered id ("" if unknown).
        max_steps: the time limit (the episode truncates there, discount 1.0).

    Raises:
        TypeError: overrides given with an environment object, an unhashable protocol
            object (it is a static argument of the jitted functions), or an action space
            other than Discrete or a float/integer Box.
        ValueError: an unknown id.
    """

    def __init__(self, env: Any, *, seed: int = 0, **overrides: Any) -> None:
        if isinstance(env, str):
            env = make(env, **overrides)
        elif overrides:
            raise TypeError(f"overrides {sorted(overrides)} need an environment id, not an object")
        self.fenv: FunctionalEnv = functional(env)
        self._action_space = check_action_space(self.fenv.action_space)
        self.env_id = str(getattr(self.fenv, "env_id", "") or "")
        self.max_steps = int(self.fenv.max_steps)
        self._observation_spec = to_dm_env_spec(self.fenv.observation_space, "observation")
        try:
            hash(self.fenv)
        except TypeError as err:
            raise TypeError(
                f"the environment must be hashable (frozen), got {self.fenv!r}"
            ) from err
        self._first_key = engine.seed_key(seed)
        self._episode: engine.Episode | None = None
        self._needs_reset = True

    def _next_key(self) -> Any:
        if self._episode is None:
            return self._first_key
        return _next_key(self.fenv, self._episode)

    def _observation(self, step: Step) -> Any:
        return jax.tree.map(np.asarray, step.observation)

    def reset(self) -> dm_env.TimeStep:
        """Starts a new episode: a FIRST timestep with reward and discount None."""
        self._episode, step = _start(self.fenv, self._next_key())
        self._needs_reset = False
        return dm_env.restart(self._observation(step))

    def step(self, action: Any) -> dm_env.TimeStep:
        """Applies ``action``: an int in ``[0, num_actions)`` for a ``Discrete`` space, an
        array of the space's shape for a ``Box`` (see the module docstring).

        After a LAST timestep (or before any `reset`) this starts a new episode instead and
        ignores ``action``, returning a FIRST timestep.

        Returns:
            MID (discount 1.0) while the episode goes on; LAST with discount 0.0 on
            termination, 1.0 on truncation. Rewards are ``f32[]`` numpy scalars.

        Raises:
            TypeError: Discrete: a non-integer action; Box: a bool or non-numeric one.
            ValueError: Discrete: an action outside ``[0, num_actions)`` or not a scalar;
                Box: an action of another shape.
        """
        if self._needs_reset:
            return self.reset()
        action = self._check_action(action)
        self._episode, step = _step(self.fenv, self._episode, action)
        observation = self._observation(step)
        reward = np.asarray(step.reward, np.float32)
        if bool(step.terminated):
            self._needs_reset = True
            return dm_env.termination(reward, observation)._replace(discount=np.float32(0.0))
        if bool(step.truncated):
            self._needs_reset = True
            return dm_env.truncation(reward, observation, discount=np.float32(1.0))  # pyright: ignore[reportArgumentType]  untyped dm_env: pyright types a parameter by its default (1.0)
        return dm_env.transition(reward, observation, discount=np.float32(1.0))  # pyright: ignore[reportArgumentType]  untyped dm_env: pyright types a parameter by its default (1.0)

    def _check_action(self, action: Any) -> np.ndarray:
        if isinstance(self._action_space, spaces.Box):
            return np.asarray(check_box_action(action, self._action_space))
        num_actions = int(self._action_space.n)
        array = np.asarray(action)
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
            raise TypeError(f"action must be an integer, got dtype {array.dtype}")
        if array.shape != ():
            raise ValueError(f"action must be a scalar, got shape {array.shape}")
        if not 0 <= int(array) < num_actions:
            raise ValueError(f"action {int(array)} is outside [0, {num_actions})")
        return array.astype(np.int32)

    def observation_spec(self) -> Any:
        """The observation spec, converted from the environment's observation space."""
        return self._observation_spec

    def action_spec(self) -> specs.BoundedArray:  # pyright: ignore[reportIncompatibleMethodOverride]  untyped dm_env: its abstract method's return is inferred as None
        """``DiscreteArray(n)`` of i32 actions for a ``Discrete(n)`` space; for a ``Box``, the
        ``BoundedArray`` of its shape, dtype and bounds (a ``DiscreteArray`` is one too)."""
        if isinstance(self._action_space, spaces.Box):
            return to_dm_env_spec(self._action_space, "action")
        return specs.DiscreteArray(int(self._action_space.n), dtype=np.int32, name="action")

    def reward_spec(self) -> specs.Array:
        """A scalar f32 reward."""
        return specs.Array((), np.float32, name="reward")

    def discount_spec(self) -> specs.BoundedArray:
        """A scalar f32 discount in ``[0, 1]``."""
        return specs.BoundedArray((), np.float32, minimum=0.0, maximum=1.0, name="discount")

    def render(self) -> np.ndarray:
        """u8[H, W, 3] frame of the current state.

        Raises:
            RuntimeError: before the first episode started.
        """
        if self._episode is None:
            raise RuntimeError("no episode yet: call reset() before render()")
        return np.asarray(self.fenv.render(self._episode.state), dtype=np.uint8)

    def __repr__(self) -> str:
        return f"DmEnv({self.env_id or type(self.fenv).__name__}, dm_env)"


HorizaxEnv = DmEnv  # the name before the adapters were named by their target
