"""The functional protocol that every adapter consumes.

Each family keeps its documented API (the gridworld's `Timestep`, the maze's
jumanji-style `TimeStep`); beside it, every environment offers one view with a single shape,
so the Gymnasium, dm_env, TorchRL and PettingZoo adapters are written once::

    fenv = horizax.core.protocol.functional(horizax.make("MiniGrid-DoorKey-8x8-v0"))
    state, step = fenv.reset(key)
    state, step = fenv.step(key, state, action)

Rules of the protocol:

* ``reset(key) -> (state, Step)`` and ``step(key, state, action) -> (state, Step)`` are pure
  and work under `jax.jit`, `jax.vmap` and `jax.lax.scan`. ``state`` is any pytree; adapters
  treat it as opaque.
* `Step` carries ``terminated`` and ``truncated`` as two booleans, never a step-type integer:
  ``terminated`` means an absorbing state was reached (do not bootstrap), ``truncated`` that a
  time limit cut the episode (bootstrap from ``observation``). They are never both true
  (termination wins, ARCHITECTURE.md contract 1).
* The protocol never resets by itself: what ``step`` does after an episode ended is up to the
  environment (the gridworld keeps stepping the same episode). Adapters choose the autoreset
  mode; `Step.observation` of an ending step is always that episode's last observation.
* ``key`` feeds ``step``'s randomness for environments that take it from the caller; the
  families shipped so far keep their randomness in ``state`` and ignore it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import jax.numpy as jnp
from jax import Array

from horizax.core.struct import field, pytree_dataclass

__all__ = ["FunctionalEnv", "Step", "functional", "make_step"]


@pytree_dataclass
class Step:
    """What the protocol returns after a reset or a step.

    Attributes:
        observation: the observation (an array or a dict of arrays, per
            ``observation_space``).
        reward: f32[], the reward of the step (0.0 after a reset).
        terminated: bool[], an absorbing state was reached.
        truncated: bool[], a time limit ended the episode (and it did not terminate).
        info: dict of extra arrays with fixed shapes (may be empty).
    """

    observation: Any
    reward: Array
    terminated: Array
    truncated: Array
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> Array:
        """bool[]: the episode ended (terminated or truncated)."""
        return self.terminated | self.truncated


def make_step(
    observation: Any,
    reward: Any = 0.0,
    terminated: Any = False,
    truncated: Any = False,
    info: dict[str, Any] | None = None,
) -> Step:
    """Builds a `Step` with the protocol's dtypes (f32 reward, bool flags).

    Args:
        observation: the observation.
        reward: scalar reward, cast to f32.
        terminated: termination flag, cast to bool.
        truncated: truncation flag, cast to bool; cleared where ``terminated`` holds.
        info: extra arrays (default: empty dict).
    """
    terminated = jnp.asarray(terminated, jnp.bool_)
    truncated = jnp.asarray(truncated, jnp.bool_) & ~terminated
    return Step(
        observation=observation,
        reward=jnp.asarray(reward, jnp.float32),
        terminated=terminated,
        truncated=truncated,
        info={} if info is None else dict(info),
    )


@runtime_checkable
class FunctionalEnv(Protocol):
    """The single-agent functional environment adapters drive.

    Attributes:
        observation_space: a `horizax.core.spaces` space every observation lies in.
        action_space: a `horizax.core.spaces.Discrete` (the gridworld, the Maze) or a float
            `horizax.core.spaces.Box` (the orbital games' velocity changes); the adapters
            drive both (`horizax.adapters.actions`).
        max_steps: the time limit in steps (an episode truncates when it is reached).
        env_id: the registered id this environment was made from ("" if none).

    Optional: a method ``next_episode_key(key, state) -> key`` gives the key of the episode
    after the one drawn from ``key`` (ending in ``state``), for a family whose documented
    API threads its keys (the Maze follows jumanji). Without it the episode engine uses the
    next stream of the episode key (`horizax.core.episode.next_episode_key`). It is not a
    protocol member, so an environment without it still satisfies ``isinstance`` checks.
    The same holds for two optional members read by the Gymnasium adapter:

    * ``above_range_action``: int or None, the action taken in place of a Discrete action
      ``>= n`` where the reference library does so (the gridworld's Dynamic-Obstacles:
      ``left``); None or absent: such actions raise `ValueError`.
    * ``object_model()``: an object model of the reference library's objects, shown as
      attributes of the Gymnasium env for the reference's wrappers (the gridworld's is
      MiniGrid's, `horizax.grid.minigrid_view`; the contract is in
      `horizax.adapters.object_model`).
    * ``reference_layouts()``: an object with ``reference_id`` (the reference library's id)
      and ``state(reference_env, key)``, the protocol state holding the layout of that
      library's env just reset; the view then also offers ``observe(state)``. The Gymnasium
      adapter's ``layouts="minigrid"`` uses it (`horizax.adapters.minigrid_ids`; the
      gridworld's is `horizax.grid.from_minigrid.MiniGridLayouts`).
    """

    observation_space: Any
    action_space: Any
    max_steps: int
    env_id: str

    def reset(self, key: Array) -> tuple[Any, Step]:
        """Starts an episode from ``key``; the `Step` has reward 0 and both flags False."""
        ...

    def step(self, key: Array, state: Any, action: Array) -> tuple[Any, Step]:
        """Applies ``action`` (i32[] for a Discrete space, the Box's shape and dtype for a Box)
        to ``state``."""
        ...

    def render(self, state: Any) -> Any:
        """An RGB frame ``u8[H, W, 3]`` of one (unbatched) state, as a numpy array."""
        ...


def functional(env: Any) -> FunctionalEnv:
    """The protocol view of a horizax environment.

    Args:
        env: an environment from `horizax.make` (anything with an ``as_functional()``
            method), or an object that already implements `FunctionalEnv`.

    Returns:
        A `FunctionalEnv`.

    Raises:
        TypeError: if ``env`` offers no protocol view.
    """
    as_functional: Callable[[], FunctionalEnv] | None = getattr(env, "as_functional", None)
    if callable(as_functional):
        return as_functional()
    if isinstance(env, FunctionalEnv):
        return env
    raise TypeError(
        f"{type(env).__name__} does not implement the horizax functional protocol "
        "(no as_functional() method, no reset/step/observation_space/action_space)"
    )
