"""A batch of horizax environments as a ``gymnasium.vector.VectorEnv``: one jitted, vmapped step.

`GymnasiumVectorEnv` behaves as Gymnasium 1.x's ``SyncVectorEnv`` over ``num_envs`` copies of
`horizax.adapters.gymnasium.GymnasiumEnv` (the tests drive both side by side), in each
``autoreset_mode`` (``metadata["autoreset_mode"]``, a ``gymnasium.vector.AutoresetMode``):

* ``NEXT_STEP`` (default): the step after an environment's episode ended ignores its action
  and returns the first observation of the next episode, reward 0, both flags False.
* ``SAME_STEP``: an environment whose episode ends resets in that step; the returned
  observation is the new episode's first, reward and flags are the ending step's, and
  ``info["final_obs"]`` (an object array, each entry that environment's single observation
  or None) and ``info["final_info"]`` hold the terminal observation and info, with the masks
  ``info["_final_obs"]`` / ``info["_final_info"]``.
* ``DISABLED``: nothing resets inside `step`; reset the finished environments with
  ``reset(options={"reset_mask": mask})`` (the others keep their state and observation).
  Stepping an environment whose episode ended raises `RuntimeError` (``SyncVectorEnv``
  fails an ``assert`` there).

Rewards are f64[N] and flags bool[N] numpy arrays, as ``SyncVectorEnv`` returns them; infos
follow Gymnasium's vector layout (each key paired with a ``_key`` mask). Seeds: ``seed=s``
gives environment ``i`` the seed ``s + i``; a list gives one seed (or None) per environment;
None continues each environment with its next episode key (see the module doc of
`horizax.adapters.gymnasium`). The autoreset itself runs inside the jitted step
(`horizax.core.episode`), drawing layouts only for the environments that reset.

Actions are one per environment: ints of shape ``[num_envs]`` for a ``Discrete`` space; for a
``Box`` space an array of exactly ``(num_envs, *shape)`` (``action_space`` is
``batch_space`` of the single Box), float or integer, cast to the space's dtype, values
passed on unclipped (`horizax.adapters.actions`, the rule of every adapter). An environment
whose step ignores its action (NEXT_STEP, after its episode ended) ignores its row too.

`save_state` / `load_state` write and restore every environment's JAX state (a
`horizax.checkpoint` file), so a restored vector env continues the same trajectories.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import gymnasium
import jax
import numpy as np
from gymnasium.vector import AutoresetMode as GymAutoresetMode
from gymnasium.vector.utils import batch_space
from jax import Array

from horizax.adapters.actions import check_box_action
from horizax.adapters.adapter_state import load_adapter, save_adapter
from horizax.adapters.forking import check_jax_usable
from horizax.adapters.gymnasium_common import (
    METADATA,
    StaticArg,
    above_range_action,
    check_action,
    check_render_mode,
    resolve_env,
)
from horizax.adapters.gymnasium_spaces import ObservationCodec, to_gymnasium_space
from horizax.core import episode as engine
from horizax.core import spaces
from horizax.core.checks import check_num_envs
from horizax.core.episode import AutoresetMode, seed_key

__all__ = ["GymnasiumVectorEnv", "HorizaxVectorEnv"]


@functools.partial(jax.jit, static_argnums=0)
def _start(fenv: StaticArg, keys: Array) -> Any:
    return engine.start_episodes(fenv.value, keys, rounds=False)  # a program of its own


@functools.partial(jax.jit, static_argnums=0)
def _restart(fenv: StaticArg, episodes: engine.Episode, keys: Array, mask: Array) -> Any:
    return engine.restart_episodes_where(fenv.value, episodes, keys, mask)


@functools.partial(jax.jit, static_argnums=0)
def _next_keys(fenv: StaticArg, episodes: engine.Episode) -> Array:
    return engine.next_episode_keys(fenv.value, episodes)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _step(fenv: StaticArg, mode: AutoresetMode, episodes: engine.Episode, actions: Array) -> Any:
    return engine.step_episodes(fenv.value, mode, episodes, actions)


def _vector_info(info: dict[str, Any], mask: np.ndarray) -> dict[str, Any]:
    """Gymnasium's vector info of batched arrays present where ``mask`` (zeros elsewhere)."""
    if not mask.any():
        return {}
    out: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = _vector_info(value, mask)
        else:
            value = np.asarray(value)
            where = mask.reshape(-1, *[1] * (value.ndim - 1))
            out[key] = np.where(where, value, np.zeros_like(value))
        out[f"_{key}"] = mask.copy()
    return out


def _select(mask: np.ndarray, new: Any, old: Any) -> Any:
    """Per environment: ``new`` where ``mask``, else ``old`` (numpy trees with a batch axis)."""

    def pick(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.where(mask.reshape(-1, *[1] * (np.ndim(a) - 1)), a, b)

    return jax.tree.map(pick, new, old)


class GymnasiumVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` copies of one horizax environment, stepped by one jitted, vmapped step.

    See the module docstring for the autoreset modes and seeding.

    Args:
        env: a registered id (``"horizax/"`` prefix optional), an environment from
            `horizax.make`, or a `horizax.core.protocol.FunctionalEnv`.
        num_envs: batch size (>= 1).
        autoreset_mode: ``AutoresetMode`` (horizax's or Gymnasium's) or its value.
        render_mode: None or ``"rgb_array"`` (`render` returns one frame per environment).
        **overrides: `horizax.make` overrides, with an id only.

    Raises:
        ValueError: ``num_envs < 1``, an unknown ``autoreset_mode`` or ``render_mode``.
    """

    def __init__(
        self,
        env: Any,
        num_envs: int,
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        **overrides: Any,
    ) -> None:
        num_envs = check_num_envs(num_envs)
        self._mode = engine.as_mode(autoreset_mode)
        self.fenv, self.env_id = resolve_env(env, overrides)
        self._handle = StaticArg(self.fenv)
        self._codec = ObservationCodec(self.fenv.observation_space)
        self.num_envs = int(num_envs)
        self.autoreset_mode = GymAutoresetMode(self._mode.value)
        self.metadata = {**METADATA, "autoreset_mode": self.autoreset_mode}
        self.render_mode = check_render_mode(render_mode)
        self.max_steps = int(self.fenv.max_steps)
        self.single_observation_space = self._codec.space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._action_space = self.fenv.action_space
        self._above_range = above_range_action(self.fenv)  # MiniGrid's mapping (common)
        self.single_action_space = to_gymnasium_space(self._action_space)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._episodes: engine.Episode | None = None
        self._observations: Any = None  # last batched observation (protocol arrays)
        self._done = np.zeros(self.num_envs, dtype=np.bool_)

    # -- reset ----------------------------------------------------------------------------

    def _seeds(self, seed: Any) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        # A bool is an int to isinstance, and a string a sequence, but neither is a seed.
        if isinstance(seed, bool | str | bytes) or not (
            isinstance(seed, int | np.integer) or hasattr(seed, "__len__")
        ):
            raise TypeError(f"seed must be an int or a sequence of seeds, got {seed!r}")
        if isinstance(seed, int | np.integer):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(
                "If seeds are passed as a list the length must match "
                f"num_envs={self.num_envs} but got length={len(seeds)}."
            )
        return seeds

    def _reset_mask(self, options: dict[str, Any] | None) -> np.ndarray | None:
        if options is None or "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        if not isinstance(mask, np.ndarray):
            raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
        if mask.shape != (self.num_envs,):
            raise ValueError(
                f"`options['reset_mask']` must have shape `({self.num_envs},)`, got {mask.shape}"
            )
        if mask.dtype != np.bool_:
            raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
        if not np.any(mask):
            raise ValueError(
                "`options['reset_mask']` must contain a boolean array with at least one True "
                f"value, got reset_mask={mask}"
            )
        if self._episodes is None:
            raise gymnasium.error.ResetNeeded("call reset() without a reset_mask first")
        return mask.copy()

    def _keys(self, seeds: list[int | None]) -> np.ndarray:
        """u32[N, 2] episode keys: from the seed, else the next episode's, else random."""
        if self._episodes is not None:
            keys = np.array(_next_keys(self._handle, self._episodes), dtype=np.uint32)
        else:
            keys = np.zeros((self.num_envs, 2), dtype=np.uint32)
        for i, seed in enumerate(seeds):
            if seed is not None:
                keys[i] = seed_key(seed)
            elif self._episodes is None:
                keys[i] = seed_key(int(self.np_random.integers(0, 2**63)))
        return keys

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets every environment, or those in ``options["reset_mask"]`` (bool[N]).

        Returns:
            ``(observations, infos)``; with a mask, unmasked environments keep their last
            observation and appear in no info entry.

        Raises:
            TypeError, ValueError: an invalid ``reset_mask`` or seed list (as
                ``SyncVectorEnv`` raises them).
        """
        check_jax_usable()
        seeds = self._seeds(seed)
        mask = self._reset_mask(options)
        if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
            super().reset(seed=int(seed))
        keys = self._keys(seeds)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
            self._episodes, step = _start(self._handle, keys)
            observations, info = jax.device_get((step.observation, step.info))
        else:
            self._episodes, step = _restart(self._handle, self._episodes, keys, mask)
            observations, info = jax.device_get((step.observation, step.info))
            observations = _select(mask, observations, self._observations)
        self._observations = observations
        self._done[mask] = False
        return self._codec.batch(observations), _vector_info(info, mask)

    # -- step -----------------------------------------------------------------------------

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Steps every environment with ``actions``: ints of shape ``[num_envs]`` (Discrete),
        an array of shape ``(num_envs, *shape)`` (Box).

        Returns:
            ``(observations, rewards f64[N], terminations bool[N], truncations bool[N],
            infos)`` under the autoreset mode (see the module docstring).

        Raises:
            gymnasium.error.ResetNeeded: before the first `reset`.
            RuntimeError: DISABLED mode, stepping an environment whose episode ended.
            TypeError, ValueError: actions of the wrong dtype or shape (or, Discrete, range).
        """
        check_jax_usable()
        if self._episodes is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if isinstance(self._action_space, spaces.Box):
            actions = check_box_action(actions, self._action_space, (self.num_envs,))
        else:
            actions = check_action(actions, int(self._action_space.n), self._above_range)
            if actions.shape != (self.num_envs,):
                raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        if self._mode is AutoresetMode.DISABLED and self._done.any():
            raise RuntimeError(
                f"autoreset is disabled and environments {np.flatnonzero(self._done).tolist()} "
                "finished their episodes: reset them with "
                "reset(options={'reset_mask': mask}) before stepping"
            )
        self._episodes, step, final = _step(self._handle, self._mode, self._episodes, actions)
        step, final = jax.device_get((step, final))
        terminations = np.array(step.terminated, dtype=np.bool_)
        truncations = np.array(step.truncated, dtype=np.bool_)
        infos: dict[str, Any] = {}
        if final is not None and final.mask.any():
            mask = np.array(final.mask, dtype=np.bool_)
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(mask):
                one = jax.tree.map(lambda x, i=i: x[i], final.observation)
                final_obs[i] = self._codec.single(one)
            infos.update(
                final_obs=final_obs,
                _final_obs=mask,
                final_info=_vector_info(final.info, mask),
                _final_info=mask.copy(),
            )
        infos.update(_vector_info(step.info, np.ones(self.num_envs, dtype=np.bool_)))
        self._observations = step.observation
        self._done = terminations | truncations
        return (
            self._codec.batch(step.observation),
            np.array(step.reward, dtype=np.float64),
            terminations,
            truncations,
            infos,
        )

    # -- checkpoints ----------------------------------------------------------------------

    def save_state(self, path: str | os.PathLike[str]) -> None:
        """Writes every environment's state to ``path`` (a `horizax.checkpoint` file).

        The JAX episodes (states, episode keys, step counts, done flags), the last
        observations and the finished-episode flags, so that `load_state`, on this env or a
        fresh one made alike, continues the very same trajectories.

        Raises:
            gymnasium.error.ResetNeeded: before the first `reset`.
        """
        if self._episodes is None:
            raise gymnasium.error.ResetNeeded("call reset() before save_state()")
        tree = {"episodes": self._episodes, "observations": self._observations, "done": self._done}
        save_adapter(
            path, "GymnasiumVectorEnv", tree, env_id=self.env_id, settings=self._settings()
        )

    def load_state(self, path: str | os.PathLike[str]) -> Any:
        """Restores the state `save_state` wrote, to step on from it.

        Args:
            path: a file written by `save_state` of a vector env with the same environment,
                ``num_envs`` and autoreset mode.

        Returns:
            The batched observations of the restored state (as `reset` returns them).

        Raises:
            FileNotFoundError: no file at ``path``.
            ValueError: a checkpoint of another env id, ``num_envs``, autoreset mode or state
                (`horizax.checkpoint.load` names what differs).
        """
        check_jax_usable()
        keys = np.zeros((self.num_envs, 2), dtype=np.uint32)
        episodes, step = jax.eval_shape(lambda k: _start(self._handle, k), keys)
        like = {"episodes": episodes, "observations": step.observation, "done": self._done}
        tree, _ = load_adapter(
            path, "GymnasiumVectorEnv", like, env_id=self.env_id, settings=self._settings()
        )
        self._episodes = tree["episodes"]
        self._observations = jax.device_get(tree["observations"])
        self._done = np.array(tree["done"], dtype=np.bool_)
        return self._codec.batch(self._observations)

    def _settings(self) -> dict[str, Any]:
        return {"num_envs": self.num_envs, "autoreset_mode": self._mode.value}

    # -- rendering ------------------------------------------------------------------------

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One u8[H, W, 3] frame per environment with ``render_mode="rgb_array"``, else None."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with render_mode='rgb_array'"
            )
            return None
        if self._episodes is None:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        check_jax_usable()
        states = self._episodes.state
        return tuple(
            np.array(self.fenv.render(jax.tree.map(lambda x, i=i: x[i], states)), dtype=np.uint8)
            for i in range(self.num_envs)
        )

    def __repr__(self) -> str:
        name = self.env_id or type(self.fenv).__name__
        return f"GymnasiumVectorEnv({name}, num_envs={self.num_envs}, {self._mode.name})"


HorizaxVectorEnv = GymnasiumVectorEnv  # the name before the adapters were named by their target
