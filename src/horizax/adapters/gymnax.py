"""Gymnax adapter: a horizax environment behind the ``gymnax.environments.Environment`` API.

Gridworlds are wrapped directly (navix's `ToGymnax` API, whose observation is the image
array); any other family with a core-protocol view (the Maze) goes through
`horizax.adapters.functional_timestep`, which gives it the same `Timestep` accessors. Both
step through the episode engine's NEXT_STEP (`horizax.core.episode`: the gridworld's
`Environment.step` is a facade over it), so everything below holds for both.

Code written against gymnax (``(obs, state)`` from ``reset``, ``(obs, state, reward, done,
info)`` from ``step``, an explicit ``params``) runs on a horizax environment after wrapping it::

    gymnax_env, params = ToGymnax.wrap(horizax.make("MiniGrid-Empty-5x5-v0"))
    obs, state = gymnax_env.reset(key, params)
    obs, state, reward, done, info = gymnax_env.step(key, state, action, params)

Episode boundary (ARCHITECTURE.md, contract 1). ``done`` merges termination and truncation
into gymnax's single boolean, so ``info`` carries them apart: ``info["terminated"]``,
``info["truncated"]`` (never both; termination wins on a shared step) and
``info["discount"]`` (0.0 after a termination, 1.0 otherwise, truncation included), so a
learner can bootstrap from the observation of a truncated step. The `StepType` is still in
``state.timestep.step_type``.

Autoreset follows horizax's rules (the engine's NEXT_STEP), not gymnax's: the step that
ends an episode returns that episode's last observation with ``done=True``; the next
``step`` ignores its action and returns the first observation of a new episode (reward 0,
``done=False``), drawn from the key carried in the state. For that
reason `ToGymnax` overrides ``reset`` and ``step`` themselves: gymnax's base ``step`` calls
``step_env`` and then replaces a finished state by a fresh ``reset_env`` one in the same
call, which would drop the last observation. Consequences for gymnax tooling: the ``key``
argument of ``step`` is unused, and a logging wrapper counting steps (gymnax's
``LogWrapper``) counts the reset step into the next episode's length (returns are
unaffected, the reset step's reward being 0).

API version. The ``step`` return value above is gymnax 0.0.x's (up to 0.0.9, the version
this adapter is tested against). gymnax 1.0 changed ``Environment.step`` to return
``(obs, state, reward, terminated, truncated, info)`` and its wrappers (``LogWrapper``, ...)
unpack six values, so they cannot be stacked on this adapter with gymnax >= 1.0; calling
``reset``/``step`` directly works with both.

Actions. A ``Discrete(n)`` action space is gymnax's ``Discrete(n)``. A ``Box`` one (the
orbital games' velocity changes) is gymnax's ``Box`` with the same bounds, shape and dtype,
``num_actions`` its number of components (gymnax's convention for continuous actions); `step`
checks the action's dtype and shape when it is traced, as every adapter does
(`horizax.adapters.actions`: a float or integer array of exactly the space's shape, cast to
its dtype, out-of-bounds values passed to the environment unclipped).

`reset` and `step` are not jitted here (gymnax jits them in its base class): they are pure,
so wrap them in `jax.jit`/`jax.vmap`/`jax.lax.scan` yourself.

Requires the ``gymnax`` extra: ``pip install 'horizax[gymnax]'``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import Array

try:
    from flax import struct
    from gymnax.environments import environment as gymnax_environment
    from gymnax.environments import spaces as gymnax_spaces
except ImportError as err:  # pragma: no cover - exercised by a test that hides gymnax
    raise ImportError(
        "horizax.adapters.gymnax needs the optional dependency gymnax (and flax); install the "
        f"`gymnax` extra: pip install 'horizax[gymnax]'. Original error: {err}"
    ) from err

from horizax.adapters.actions import check_action_space, check_box_action
from horizax.adapters.functional_timestep import FunctionalTimestepEnv, TimestepEnv
from horizax.core import spaces
from horizax.core.protocol import functional
from horizax.core.step_type import discount as step_type_discount

__all__ = ["GymnaxState", "ToGymnax"]

EnvParams = gymnax_environment.EnvParams


def _to_gymnax_space(space: Any) -> Any:
    """A horizax space as the gymnax space of the same values."""
    if isinstance(space, spaces.Dict):
        return gymnax_spaces.Dict({k: _to_gymnax_space(v) for k, v in space.spaces.items()})
    if isinstance(space, spaces.Text):  # arrays only under jit: the encoded form
        return _to_gymnax_space(space.encoded)
    if isinstance(space, spaces.Discrete):
        return gymnax_spaces.Discrete(space.n)
    if isinstance(space, spaces.Box):
        return gymnax_spaces.Box(
            low=space.low, high=space.high, shape=tuple(space.shape), dtype=space.dtype
        )
    raise TypeError(f"no gymnax equivalent for the space {space!r}")


@struct.dataclass
class GymnaxState(gymnax_environment.EnvState):
    """A gymnax ``EnvState`` carrying the wrapped horizax `Timestep`.

    `ToGymnax.step` unwraps ``timestep``, advances the horizax environment and wraps the
    result again.

    Attributes:
        time: i32[], ``timestep.t`` (steps taken in the episode), at the top level because
            gymnax code reads ``state.time`` for its own time-limit bookkeeping.
        timestep: the underlying horizax `Timestep` (a `FunctionalTimestep` with the same
            accessors for families other than the gridworld, e.g. the Maze).
    """

    timestep: Any

    @classmethod
    def from_timestep(cls, timestep: Any) -> GymnaxState:
        """Wraps a horizax `Timestep`, setting ``time`` to ``timestep.t``."""
        return cls(time=timestep.t, timestep=timestep)  # pyright: ignore[reportArgumentType]  gymnax types EnvState.time as int: an Array under jit, in gymnax too


class ToGymnax(gymnax_environment.Environment):
    """Wraps a horizax `Environment` as a ``gymnax.environments.environment.Environment``.

    Prefer `ToGymnax.wrap`, which returns the ``(gymnax_env, params)`` pair gymnax callers
    expect. See the module docstring for the episode-boundary and autoreset rules.

    Args:
        env: the horizax environment to wrap: a gridworld `Environment`, or any environment
            with a core-protocol view (``as_functional()``, e.g. `horizax.maze.Maze`), which
            is driven through `horizax.adapters.functional_timestep.FunctionalTimestepEnv`
            with the same autoreset rule.

    Raises:
        TypeError: if ``env`` is neither, or its action space is neither Discrete nor a
            float/integer Box.
    """

    def __init__(self, env: Any) -> None:
        self._source = env
        # An environment with its own Timestep API (the gridworld's, navix's) is wrapped as
        # it is, keeping its observation array; any other goes through its protocol view.
        if isinstance(env, TimestepEnv):
            self._env: Any = env
        else:
            try:
                fenv = functional(env)
            except TypeError as err:
                raise TypeError(
                    f"ToGymnax wraps a horizax environment (a grid Environment or one with a "
                    f"functional-protocol view, e.g. the Maze), got {type(env)!r}"
                ) from err
            self._env = FunctionalTimestepEnv(fenv)
        check_action_space(self._env.action_space)

    @classmethod
    def wrap(cls, env: Any) -> tuple[ToGymnax, EnvParams]:
        """Builds the wrapper and its params in one call.

        Args:
            env: the horizax environment to wrap.

        Returns:
            ``(ToGymnax(env), EnvParams(max_steps_in_episode=env.max_steps))``.
        """
        gymnax_env = cls(env)
        return gymnax_env, gymnax_env.default_params

    @property
    def env(self) -> Any:
        """The wrapped horizax environment (read-only: environments are immutable)."""
        return self._source

    @property
    def default_params(self) -> EnvParams:
        """A gymnax ``EnvParams`` with the wrapped env's ``max_steps`` as ``max_steps_in_episode``.

        The horizax environment owns its time limit; params passed to `reset`/`step` are
        ignored, this only tells gymnax code what the limit is.
        """
        return EnvParams(max_steps_in_episode=self._env.max_steps)

    @property
    def name(self) -> str:
        """The registered id of the wrapped env (e.g. ``"MiniGrid-Empty-5x5-v0"``)."""
        return self._env.env_id or type(self._env).__name__

    @property
    def num_actions(self) -> int:
        """Number of discrete actions (``env.num_actions``); for a ``Box`` action space, its
        number of components."""
        return self._env.num_actions

    def action_space(self, params: EnvParams | None = None) -> Any:
        """The gymnax ``Discrete(env.num_actions)`` space, or for a ``Box`` action space the
        gymnax ``Box`` of its bounds, shape and dtype; ``params`` is ignored."""
        del params
        space = self._env.action_space
        if isinstance(space, spaces.Box):
            return _to_gymnax_space(space)
        return gymnax_spaces.Discrete(self._env.num_actions)

    def observation_space(self, params: EnvParams | None = None) -> Any:
        """The wrapped env's observation space in gymnax terms; ``params`` is ignored.

        A `Box` becomes a gymnax ``Box`` with low/high/shape/dtype copied across (MiniGrid ids:
        u8[7, 7, 3] in ``[0, high]``); a `Dict` (the Maze) a gymnax ``Dict`` of those.
        """
        del params
        return _to_gymnax_space(self._env.observation_space)

    def reset(self, key: Array, params: EnvParams | None = None) -> tuple[Array, GymnaxState]:  # pyright: ignore[reportIncompatibleVariableOverride]  gymnax's is jax.jit(method): jax types it JitWrapped, not a method
        """Resets the wrapped environment.

        Args:
            key: PRNG key.
            params: ignored; ``max_steps`` comes from the wrapped env.

        Returns:
            ``(observation, GymnaxState)``; the observation has the env's observation shape
            and dtype (u8[7, 7, 3] for MiniGrid ids).
        """
        del params
        timestep = self._env.reset(key)
        return timestep.observation, GymnaxState.from_timestep(timestep)

    def step(  # pyright: ignore[reportIncompatibleVariableOverride]  gymnax's is jax.jit(method): jax types it JitWrapped, not a method
        self,
        key: Array,
        state: GymnaxState,
        action: int | float | Array,
        params: EnvParams | None = None,
    ) -> tuple[Array, GymnaxState, Array, Array, dict[str, Array]]:
        """Advances the wrapped environment one step (horizax autoreset, see module doc).

        Args:
            key: PRNG key, unused: horizax carries its own key in
                ``state.timestep.state.key``.
            state: the state returned by the previous `reset`/`step`.
            action: i32[] integer action in ``[0, num_actions)``, or for a ``Box`` action
                space an array of its shape (f32[3 * vehicles] for the orbital games).
            params: ignored.

        Returns:
            ``(observation, GymnaxState, reward, done, info)``: reward f32[], done bool[]
            ``= timestep.is_done()`` (truncation or termination), and ``info`` with bool[]
            ``"terminated"``, bool[] ``"truncated"`` and f32[] ``"discount"`` (0.0 only on
            termination).

        Raises:
            TypeError, ValueError: for a ``Box`` action space, a bool or non-numeric action,
                or one of another shape (at trace time).
        """
        del key, params
        space = self._env.action_space
        if isinstance(space, spaces.Box):
            action = check_box_action(action, space)
        timestep = self._env.step(state.timestep, action)
        info = {
            "terminated": timestep.is_termination(),
            "truncated": timestep.is_truncation(),
            "discount": step_type_discount(timestep.step_type),
        }
        return (
            timestep.observation,
            GymnaxState.from_timestep(timestep),
            timestep.reward,
            timestep.is_done(),
            info,
        )

    # gymnax's hooks, answered from the timestep so tooling that calls them directly agrees
    # with `step`. ``reset_env``/``step_env`` are the same as `reset`/`step` (horizax
    # autoreset included): gymnax's own step/reset, which combine them, are overridden above.

    def reset_env(self, key: Array, params: EnvParams | None = None) -> tuple[Array, GymnaxState]:
        """Same as `reset`."""
        return self.reset(key, params)

    def step_env(
        self,
        key: Array,
        state: GymnaxState,
        action: int | float | Array,
        params: EnvParams | None = None,
    ) -> tuple[Array, GymnaxState, Array, Array, dict[str, Array]]:
        """Same as `step` (horizax autoreset applies)."""
        return self.step(key, state, action, params)

    def get_obs(  # pyright: ignore[reportIncompatibleMethodOverride]  gymnax's overloads disagree with its own (state, params, key)
        self, state: GymnaxState, params: EnvParams | None = None, key: Any = None
    ) -> Array:
        """The observation of ``state`` (``state.timestep.observation``)."""
        del params, key
        return state.timestep.observation

    def is_terminal(self, state: GymnaxState, params: EnvParams | None = None) -> Array:
        """bool[]: the episode ended at ``state`` (termination or truncation), like ``done``."""
        del params
        return state.timestep.is_done()

    def is_terminated(self, state: GymnaxState, params: EnvParams | None = None) -> Array:
        """bool[]: an absorbing state was reached at ``state``."""
        del params
        return state.timestep.is_termination()

    def is_truncated(self, state: GymnaxState, params: EnvParams | None = None) -> Array:
        """bool[]: the time limit cut the episode at ``state`` (and it did not terminate)."""
        del params
        return state.timestep.is_truncation()

    def discount(self, state: GymnaxState, params: EnvParams | None = None) -> Array:
        """f32[]: 0.0 if ``state`` is a termination, else 1.0."""
        del params
        return jnp.asarray(step_type_discount(state.timestep.step_type), jnp.float32)

    def __repr__(self) -> str:
        return f"ToGymnax({self.name})"
