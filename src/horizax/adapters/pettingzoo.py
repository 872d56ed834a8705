"""PettingZoo adapter: a horizax multi-agent view as a ``pettingzoo.ParallelEnv``.

Any environment with a multi-agent protocol view (`horizax.core.multiagent`; an
``as_multi_agent()`` method on what `horizax.make` returns) works, with no family code here::

    from horizax.adapters.pettingzoo import ParallelEnv
    env = ParallelEnv("Orbital-LadyBanditGuard-v0")
    observations, infos = env.reset(seed=0)
    while env.agents:
        actions = {agent: env.action_space(agent).sample() for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

Per agent, ``terminations`` and ``truncations`` are the protocol's two flags (never both
True): a time limit only ever truncates. Agents whose episode ended leave ``agents`` and
never come back before the next `reset`; a step then takes actions for the live agents only,
and every live agent must have one (a missing one raises ``KeyError``). Stepping after all
agents are gone returns empty dicts. ``reset(seed=s)`` starts the episode drawn from
``jax.random.PRNGKey(s)``; a ``reset()`` after it continues with the engine's next-episode
key, as every other horizax path.

Requires the ``pettingzoo`` extra: ``pip install 'horizax[pettingzoo]'``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np

try:
    from gymnasium import spaces as gym_spaces
    from pettingzoo import ParallelEnv as _ParallelEnv
except ImportError as err:  # pragma: no cover - exercised only without pettingzoo
    raise ImportError(
        "horizax.adapters.pettingzoo needs the optional dependency pettingzoo (>= 1.24); "
        f"install the `pettingzoo` extra: pip install 'horizax[pettingzoo]'. Original error: {err}"
    ) from err

from horizax.adapters.actions import check_box_action
from horizax.adapters.gymnasium_common import StaticArg
from horizax.core import episode as engine
from horizax.core import episode_keys, spaces
from horizax.core.episode import seed_key
from horizax.core.registry import make as make_horizax
from horizax.core.registry import resolve

__all__ = ["ParallelEnv", "multi_agent_view"]


def multi_agent_view(env: Any, overrides: Mapping[str, Any] | None = None) -> Any:
    """The multi-agent protocol view of an id (with `horizax.make` overrides) or an env.

    Raises:
        TypeError: for an environment without one, or overrides given with an object.
        ValueError: for an unknown id.
    """
    overrides = dict(overrides or {})
    if isinstance(env, str):
        env = make_horizax(resolve(env.removeprefix("horizax/")), **overrides)
    elif overrides:
        raise TypeError(f"overrides {sorted(overrides)} need an environment id, not an object")
    if hasattr(env, "agents") and hasattr(env, "action_spaces"):
        return env
    as_multi_agent = getattr(env, "as_multi_agent", None)
    if not callable(as_multi_agent):
        raise TypeError(f"{type(env).__name__} has no multi-agent view (no as_multi_agent())")
    return as_multi_agent()


def _gym_box(space: spaces.Box) -> gym_spaces.Box:
    low = np.broadcast_to(np.asarray(space.low, np.float32), space.shape)
    high = np.broadcast_to(np.asarray(space.high, np.float32), space.shape)
    return gym_spaces.Box(low=low, high=high, shape=space.shape, dtype=np.float32)


def _key_of(seed: int) -> np.ndarray:
    return seed_key(seed)


@functools.partial(jax.jit, static_argnums=0)
def _reset(menv: StaticArg, key: Any) -> Any:
    return menv.value.reset(key)


@functools.partial(jax.jit, static_argnums=0)
def _step(menv: StaticArg, key: Any, state: Any, actions: dict[str, Any]) -> Any:
    return menv.value.step(key, state, actions)


class ParallelEnv(_ParallelEnv):
    """A horizax multi-agent view behind ``pettingzoo.ParallelEnv`` (jitted, numpy outputs).

    Args:
        env: a registered id (``"Orbital-LadyBanditGuard-v0"``), an environment from
            `horizax.make`, or a multi-agent protocol view.
        render_mode: None or ``"rgb_array"``.
        **overrides: `horizax.make` overrides, with an id only.

    Attributes:
        menv: the multi-agent view driven.
        possible_agents: every agent's name.
        agents: the agents whose episode is running.
        max_steps: the time limit (the episode truncates there).
    """

    # pettingzoo declares ``metadata`` as an instance attribute, so no ClassVar here.
    metadata = {  # noqa: RUF012
        "render_modes": ["rgb_array"],
        "name": "horizax",
        "is_parallelizable": True,
    }

    def __init__(self, env: Any, render_mode: str | None = None, **overrides: Any) -> None:
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.menv = multi_agent_view(env, overrides)
        self._handle = StaticArg(self.menv)
        self.render_mode = render_mode
        self.possible_agents = list(self.menv.agents)
        self.agents: list[str] = []
        self.max_steps = int(self.menv.max_steps)
        self._observation_spaces = {
            a: _gym_box(self.menv.observation_spaces[a]) for a in self.possible_agents
        }
        self._action_spaces = {
            a: _gym_box(self.menv.action_spaces[a]) for a in self.possible_agents
        }
        self._state: Any = None
        self._episode_key: np.ndarray | None = None
        self._step_count = 0
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> gym_spaces.Box:
        """The (cached, always the same object) observation space of ``agent``."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> gym_spaces.Box:
        """The (cached) action space of ``agent``."""
        return self._action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        """Starts an episode (``options`` is accepted and unused).

        Returns:
            ``(observations, infos)``, one entry per agent.
        """
        del options
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            key = _key_of(seed)
        elif self._episode_key is not None:
            key = np.asarray(episode_keys.next_episode_key(jax.numpy.asarray(self._episode_key)))
        else:
            key = _key_of(int(self._rng.integers(0, 2**63)))
        self._episode_key = np.asarray(key)
        self._state, step = _reset(self._handle, key)
        self._step_count = 0
        self.agents = list(self.possible_agents)
        observations, info = jax.device_get((step.observations, step.info))
        return (
            {a: np.asarray(observations[a]) for a in self.agents},
            {a: _plain(info.get(a, {})) for a in self.agents},
        )

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Applies one action per live agent.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` for the agents that
            were live: Python ``float`` rewards and ``bool`` flags.

        Raises:
            RuntimeError: before the first `reset`.
            KeyError: a live agent without an action, or an action for a name that is not
                one of ``possible_agents`` (a typo would otherwise be ignored). Actions of
                agents that already finished are ignored, as the PettingZoo API allows.
            TypeError, ValueError: an action of the wrong type or shape.
        """
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        unknown = sorted(set(actions) - set(self.possible_agents))
        if unknown:
            raise KeyError(f"actions for unknown agents {unknown}; agents: {self.possible_agents}")
        if not self.agents:
            return {}, {}, {}, {}, {}
        full = {}
        for agent in self.possible_agents:
            space = self._action_spaces[agent]
            if agent in self.agents:
                if agent not in actions:
                    raise KeyError(f"no action for the live agent {agent!r}")
                full[agent] = _check_action(actions[agent], self.menv.action_spaces[agent], agent)
            else:  # an agent that finished cannot act: its vehicle coasts
                full[agent] = np.zeros(space.shape, np.float32)
        # The engine's step keys, as every other path hands them out.
        step_key = engine.step_key(
            jax.numpy.asarray(self._episode_key), jax.numpy.int32(self._step_count)
        )
        self._state, step = _step(self._handle, step_key, self._state, full)
        self._step_count += 1
        obs, rew, term, trunc, info = jax.device_get(
            (step.observations, step.rewards, step.terminated, step.truncated, step.info)
        )
        live = list(self.agents)
        out = (
            {a: np.asarray(obs[a]) for a in live},
            {a: float(rew[a]) for a in live},
            {a: bool(term[a]) for a in live},
            {a: bool(trunc[a]) for a in live},
            {a: _plain(info.get(a, {})) for a in live},
        )
        self.agents = [a for a in live if not (out[2][a] or out[3][a])]
        return out

    def render(self) -> np.ndarray | None:
        """u8[H, W, 3] of the current state with ``render_mode="rgb_array"``, else None."""
        if self.render_mode is None or self._state is None:
            return None
        return np.asarray(self.menv.render(self._state), np.uint8)

    def close(self) -> None:
        """Nothing to release."""


def _plain(info: Mapping[str, Any]) -> dict[str, Any]:
    return {k: np.asarray(v) for k, v in info.items()}


def _check_action(action: Any, space: spaces.Box, agent: str) -> np.ndarray:
    """The adapters' one Box rule (`horizax.adapters.actions.check_box_action`), per agent."""
    try:
        return np.asarray(check_box_action(action, space))
    except (TypeError, ValueError) as error:
        raise type(error)(f"action of {agent!r}: {error}") from None
