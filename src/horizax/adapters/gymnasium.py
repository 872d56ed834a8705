"""Gymnasium adapter: horizax environments as ``gymnasium.Env`` and ``gymnasium.vector.VectorEnv``.

Importing this module registers every horizax id (aliases included) with Gymnasium under the
``horizax/`` namespace, so code written against Gymnasium runs unchanged::

    import gymnasium
    import horizax.adapters.gymnasium  # noqa: F401  (registers the ids)

    env = gymnasium.make("horizax/MiniGrid-DoorKey-8x8-v0", render_mode="rgb_array")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

    envs = gymnasium.make_vec("horizax/MiniGrid-DoorKey-8x8-v0", num_envs=64)  # one jitted vmap

or, without Gymnasium's registry, `make(id, **kw)` and `make_vec(id, num_envs, autoreset_mode=...)`.

MiniGrid's ids. Each gridworld id's env is an instance of a `GymnasiumEnv` subclass named as
MiniGrid's class for that id (``EmptyEnv``, ``DoorKeyEnv``, ...;
`horizax.adapters.minigrid_classes`). `register_as_minigrid` registers horizax's envs under
MiniGrid's own ids, in place of MiniGrid's, so MiniGrid users' code runs unchanged::

    horizax.adapters.gymnasium.register_as_minigrid()
    env = gymnasium.make("MiniGrid-DoorKey-8x8-v0")  # horizax's DoorKeyEnv

MiniGrid's layouts. ``gymnasium.make(id, layouts="minigrid")`` (default ``"horizax"``) makes
each reset MiniGrid's own layout: ``reset(seed=s)`` the one MiniGrid generates for ``s``,
``reset()`` MiniGrid's next one (its ``np_random`` stream), copied into a horizax state
(`horizax.grid.from_minigrid`); the steps are horizax's. It covers the 82 ``MiniGrid-*``
ids (the WFC ones read the pattern images horizax ships, which MiniGrid's wheel lacks);
BabyAI levels and other families raise `ValueError`. It needs ``minigrid``, with its
``wfc`` extra for the WFC ids (`horizax.adapters.minigrid_ids`).

Observations. Gridworld ids return MiniGrid's observation dict, ``{"image": u8[7, 7, 3],
"direction": int, "mission": str}``, with MiniGrid's spaces for ``image`` (``Box(0, 255)``)
and ``direction`` (``Discrete(4)``); ``mission`` is a ``gymnasium.spaces.Text`` (MiniGrid
declares its own ``MissionSpace``, a ``Space[str]`` too). Other environments return their
protocol observation (`horizax.core.protocol`) as numpy arrays, in the Gymnasium version of
their horizax space (``Box``, ``Discrete`` as a Python ``int``, ``Dict``; a scalar ``Box``
becomes shape ``(1,)``, see `horizax.adapters.gymnasium_spaces`). Gridworld envs also carry
MiniGrid's object model (``grid``, ``agent_pos``, ``get_frame``, ...) for MiniGrid's wrappers
(`horizax.grid.minigrid_view`, shown by `horizax.adapters.object_model`).

Actions. A ``Discrete(n)`` action space takes an integer in ``[0, n)`` (Dynamic-Obstacles
also takes larger ones as ``left``, as MiniGrid does). A ``Box`` action space
(the orbital games' velocity changes) becomes ``gymnasium.spaces.Box`` and takes a float or
integer array of exactly its shape, cast to its dtype; values outside the bounds are passed
to the environment unclipped, as every adapter does (`horizax.adapters.actions`).

Episode boundary. ``terminated`` and ``truncated`` are the protocol's two flags, passed
through as Python ``bool`` (never both True); the reward is a Python ``float``. horizax
environments truncate by themselves at ``max_steps``, so the ids are registered with
``max_episode_steps=None``: Gymnasium adds no ``TimeLimit`` on top (it would count steps a
second time and could raise ``truncated`` on a terminating step). The limit is
``env.unwrapped.max_steps`` (MiniGrid's attribute name); change it with
``gymnasium.make(id, max_steps=...)``, not ``max_episode_steps``.

Seeding. ``reset(seed=s)`` starts the episode `horizax.make(id).reset(jax.random.PRNGKey(s))`
starts (for ``0 <= s < 2**32``; seeds up to ``2**64`` keep their high word too); ``reset()``
then continues with the family's next episode key (`horizax.core.episode.next_episode_key`),
as every other path does, so a seeded run plays the same episodes here as through the native
API, the vector env, dm_env, TorchRL and gymnax. A first
``reset()`` without a seed draws one from ``np_random``.

Worker processes. Gymnasium's ``AsyncVectorEnv`` (``make_vec(id, n,
vectorization_mode="async")``) and Stable-Baselines3's ``SubprocVecEnv`` play the same
episodes as `GymnasiumVectorEnv`, with ``fork``, ``spawn`` or ``forkserver`` workers, shared
memory included (`horizax.adapters.gymnasium_spaces.TextSpace` keeps ``Text`` observations
current there). A worker forked after its parent ran JAX
raises `horizax.adapters.forking.JaxForkError` (a check this import sets up) rather than
hanging; use ``spawn`` there. ``docs/adapters.md`` has the details.

Requires the ``gymnasium`` extra: ``pip install 'horizax[gymnasium]'``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np
from jax import Array

try:
    import gymnasium
    from gymnasium.envs.registration import EnvSpec
except ImportError as err:  # pragma: no cover - exercised only without gymnasium
    raise ImportError(
        "horizax.adapters.gymnasium needs the optional dependency gymnasium (>= 1.0); install "
        f"the `gymnasium` extra: pip install 'horizax[gymnasium]'. Original error: {err}"
    ) from err

from horizax.adapters.actions import check_box_action
from horizax.adapters.forking import check_jax_usable, install_fork_check
from horizax.adapters.gymnasium_common import (
    METADATA,
    NAMESPACE,
    StaticArg,
    above_range_action,
    check_action,
    resolve_env,
)
from horizax.adapters.gymnasium_common import check_render_mode as check_render_mode
from horizax.adapters.gymnasium_spaces import ObservationCodec, copy_info, to_gymnasium_space
from horizax.adapters.gymnasium_vector import GymnasiumVectorEnv
from horizax.adapters.minigrid_ids import ReferenceLayouts, class_name, import_minigrid, remember
from horizax.adapters.object_model import ObjectModelAttributes
from horizax.core import episode as engine
from horizax.core import spaces
from horizax.core.episode import seed_key
from horizax.core.registry import registered_ids, resolve

__all__ = [
    "NAMESPACE",
    "GymnasiumEnv",
    "GymnasiumVectorEnv",
    "HorizaxEnv",
    "ObservationCodec",
    "make",
    "make_vec",
    "register_all",
    "register_as_minigrid",
    "seed_key",
    "to_gymnasium_space",
]

# --- jitted episode functions ---------------------------------------------------------------


@functools.partial(jax.jit, static_argnums=0)
def _start(fenv: StaticArg, key: Array) -> Any:
    return engine.start_episode(fenv.value, key)


@functools.partial(jax.jit, static_argnums=0)
def _next_key(fenv: StaticArg, episode: engine.Episode) -> Array:
    return engine.next_episode_key(fenv.value, episode)


@functools.partial(jax.jit, static_argnums=0)
def _observe(fenv: StaticArg, state: Any) -> Any:
    return fenv.value.observe(state)


@functools.partial(jax.jit, static_argnums=0)
def _step(fenv: StaticArg, episode: engine.Episode, action: Array) -> Any:
    return engine.step_episode(fenv.value, engine.AutoresetMode.DISABLED, episode, action)


# --- the single environment ------------------------------------------------------------------


class GymnasiumEnv(ObjectModelAttributes, gymnasium.Env):
    """One horizax environment behind ``gymnasium.Env`` (jitted reset/step, numpy outputs).

    Args:
        env: a registered id (``"MiniGrid-DoorKey-8x8-v0"``, ``"horizax/..."`` also accepted),
            an environment from `horizax.make`, or a `horizax.core.protocol.FunctionalEnv`.
        render_mode: None or ``"rgb_array"`` (`render` returns u8[H, W, 3]).
        layouts: ``"horizax"`` (default): layouts drawn from JAX keys; ``"minigrid"``
            (``MiniGrid-*`` ids): MiniGrid's own layout for each reset (see the module
            docstring).
        **overrides: `horizax.make` overrides (``max_steps``, ...), with an id only.

    Attributes:
        fenv: the protocol view driven.
        env_id: the horizax id ("" if unknown).
        max_steps: the environment's own time limit (it truncates there); after a reset,
            the episode's (a BabyAI grammar level's depends on its instruction, as MiniGrid's
            ``max_steps`` does).
        grid, agent_pos, agent_dir, carrying, mission, get_frame, gen_obs_grid, ...:
            gridworlds only: MiniGrid's object model of the current state, for MiniGrid's
            wrappers (`horizax.grid.minigrid_view`; needs ``minigrid``). Any environment
            whose protocol view offers ``object_model()`` gets its model
            (`horizax.adapters.object_model`); ``object_view`` is the view itself.
    """

    metadata: dict[str, Any] = METADATA

    def __init__(
        self, env: Any, render_mode: str | None = None, layouts: str = "horizax", **overrides: Any
    ) -> None:
        if layouts not in ("horizax", "minigrid"):
            raise ValueError(f"layouts must be 'horizax' or 'minigrid', got {layouts!r}")
        self.fenv, self.env_id = resolve_env(env, overrides)
        self.layouts = layouts
        self._reference = ReferenceLayouts(self.fenv, overrides) if layouts == "minigrid" else None
        self._handle = StaticArg(self.fenv)
        self._codec = ObservationCodec(self.fenv.observation_space)
        self.observation_space = self._codec.space
        self._action_space = self.fenv.action_space
        self.action_space = to_gymnasium_space(self._action_space)
        self.max_steps = int(self.fenv.max_steps)
        self._above_range = above_range_action(self.fenv)
        self.render_mode = check_render_mode(render_mode)
        self._episode: engine.Episode | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Starts an episode (``options`` is accepted and unused).

        Returns:
            ``(observation, info)``; ``info`` holds the protocol's info as numpy arrays.
        """
        check_jax_usable()
        super().reset(seed=seed)
        if seed is not None:
            key = seed_key(seed)
        elif self._episode is not None and self._reference is None:
            key = np.asarray(_next_key(self._handle, self._episode))
        else:
            key = seed_key(int(self.np_random.integers(0, 2**63)))
        if self._reference is not None:
            # MiniGrid generates the layout (its stream continues on `reset()`); the key
            # seeds only what horizax draws during the episode (obstacle moves).
            state = self._reference.state(seed, key)
            start: dict[str, Any] = {"key": key, "t": np.int32(0), "done": np.bool_(False)}
            self._episode = engine.Episode(state=state, **start)  # numpy: no eager dispatch
            observation, info = jax.device_get(_observe(self._handle, state))
        else:
            self._episode, step = _start(self._handle, key)
            observation, info = jax.device_get((step.observation, step.info))
        limit = getattr(getattr(self._episode, "state", None), "max_steps", None)
        if limit is not None and getattr(self.fenv, "episode_max_steps", None) is not None:
            self.max_steps = int(limit)
        return self._codec.single(observation), copy_info(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Applies ``action``: an int in ``[0, n)`` for a ``Discrete`` space, an array of the
        space's shape for a ``Box`` (see the module docstring).

        Returns:
            ``(observation, reward, terminated, truncated, info)``: Python ``float`` reward and
            ``bool`` flags (never both True). After an episode ends, call `reset`.

        Raises:
            gymnasium.error.ResetNeeded: before the first `reset`.
            TypeError, ValueError: Discrete: a non-integer or out-of-range action (except
                that, as in MiniGrid, Dynamic-Obstacles takes ``left`` for actions ``>= 3``);
                Box: a bool or non-numeric action, or one of another shape.
        """
        check_jax_usable()
        if self._episode is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if isinstance(self._action_space, spaces.Box):
            action = check_box_action(action, self._action_space)
        else:
            action = check_action(action, int(self._action_space.n), self._above_range)
            if action.shape != ():
                raise ValueError(f"action must be a scalar, got shape {action.shape}")
        self._episode, step, _ = _step(self._handle, self._episode, action)
        observation, reward, terminated, truncated, info = jax.device_get(
            (step.observation, step.reward, step.terminated, step.truncated, step.info)
        )
        return (
            self._codec.single(observation),
            float(reward),
            bool(terminated),
            bool(truncated),
            copy_info(info),
        )

    def render(self) -> np.ndarray | None:
        """u8[H, W, 3] frame of the current state with ``render_mode="rgb_array"``, else None."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; make the env with render_mode='rgb_array'"
            )
            return None
        if self._episode is None:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        check_jax_usable()
        return np.array(self.fenv.render(self._episode.state), dtype=np.uint8)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.env_id or type(self.fenv).__name__})"


HorizaxEnv = GymnasiumEnv  # the name before the adapters were named by their target


# --- entry points and registration ------------------------------------------------------------


def _spec(env_id: str, kwargs: Mapping[str, Any]) -> EnvSpec | None:
    gym_id = f"{NAMESPACE}/{env_id.removeprefix(f'{NAMESPACE}/')}"
    if gym_id not in gymnasium.registry:
        return None
    spec = gymnasium.spec(gym_id)
    return dataclasses.replace(spec, kwargs={**spec.kwargs, **kwargs})


def make(env_id: str, **kwargs: Any) -> GymnasiumEnv:
    """A `GymnasiumEnv` for a horizax id, with its Gymnasium spec set (no wrappers).

    Args:
        env_id: a horizax id or alias (``"horizax/"`` prefix optional).
        **kwargs: ``render_mode`` and `horizax.make` overrides (``max_steps``, ...).
    """
    env = GymnasiumEnv(env_id, **kwargs)
    env.spec = _spec(env_id, kwargs)
    return env


def make_vec(
    env_id: str,
    num_envs: int,
    autoreset_mode: Any = engine.AutoresetMode.NEXT_STEP,
    **kwargs: Any,
) -> Any:
    """A `horizax.adapters.gymnasium_vector.GymnasiumVectorEnv` (one jitted, vmapped step).

    Args:
        env_id: a horizax id or alias (``"horizax/"`` prefix optional).
        num_envs: batch size.
        autoreset_mode: ``AutoresetMode`` (horizax's or Gymnasium's) or its value
            (``"NextStep"``, ``"SameStep"``, ``"Disabled"``).
        **kwargs: ``render_mode`` and `horizax.make` overrides.
    """
    envs = GymnasiumVectorEnv(env_id, num_envs, autoreset_mode=autoreset_mode, **kwargs)
    mode = engine.as_mode(autoreset_mode).value
    spec_kwargs = {**kwargs, "num_envs": num_envs, "autoreset_mode": mode}
    envs.spec = _spec(env_id, {**spec_kwargs, "vectorization_mode": "vector_entry_point"})
    return envs


def register_all() -> list[str]:
    """Registers every horizax id and alias as ``horizax/<id>`` (idempotent).

    The entry points are strings (``module:attribute``) and the id travels in the spec's
    ``kwargs``, so every spec serialises (``gymnasium.spec(id).to_json()`` round-trips) and
    process-based vector envs rebuild the environment in their workers from the spec alone.

    Returns:
        The Gymnasium ids registered by this call.
    """
    added = []
    for env_id in registered_ids(include_aliases=True):
        gym_id = f"{NAMESPACE}/{env_id}"
        if gym_id in gymnasium.registry:
            continue
        _register(gym_id, env_id, {})
        added.append(gym_id)
    return added


def _register(gym_id: str, env_id: str, kwargs: Mapping[str, Any]) -> None:
    name = class_name(resolve(env_id))
    # Gridworld ids: the class named as MiniGrid's (a string: specs stay serialisable).
    entry_point = f"{__name__}:GymnasiumEnv"
    if name:
        entry_point = f"horizax.adapters.minigrid_classes:{name}"
    gymnasium.register(
        id=gym_id,
        entry_point=entry_point,
        vector_entry_point=f"{GymnasiumVectorEnv.__module__}:GymnasiumVectorEnv",
        max_episode_steps=None,  # the env truncates itself; no TimeLimit on top
        kwargs={"env": env_id, **kwargs},
    )


def register_as_minigrid(**make_kwargs: Any) -> list[str]:
    """Registers horizax's envs under MiniGrid's own ids, in place of MiniGrid's.

    Every ``MiniGrid-*`` and ``BabyAI-*`` id horizax has then builds horizax's env through
    ``gymnasium.make`` (MiniGrid users' code runs unchanged); MiniGrid's other ids stay
    MiniGrid's. ``minigrid`` is imported first if installed, so that a later import cannot
    register its envs over these. Calling again is harmless; with other ``make_kwargs`` it
    re-registers with those.

    Args:
        **make_kwargs: keyword arguments every spec passes to the env (``layouts="minigrid"``
            for MiniGrid's own layouts, ``max_steps``, ...).

    Returns:
        The MiniGrid ids that now build horizax's envs.
    """
    with contextlib.suppress(ImportError):  # without minigrid there is nothing to replace
        import_minigrid("register_as_minigrid")
    ids = [i for i in registered_ids() if class_name(i) is not None]
    for env_id in ids:
        spec = gymnasium.registry.get(env_id)
        if spec is not None:
            ours = str(spec.entry_point).startswith("horizax.")
            if ours and spec.kwargs == {"env": env_id, **make_kwargs}:
                continue
            remember(spec)
            del gymnasium.registry[env_id]  # replaced, not overridden: no warning
        _register(env_id, env_id, make_kwargs)
    return ids


register_all()
install_fork_check()  # process-based vector envs: an error, not a hang (see forking)
