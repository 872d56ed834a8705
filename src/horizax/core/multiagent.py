"""The multi-agent functional protocol, which the PettingZoo adapter consumes.

A family with several learning agents offers, beside its single-agent view, a view whose
``reset`` and ``step`` take and return one entry per agent::

    menv = horizax.make("Orbital-LadyBanditGuard-v0").as_multi_agent()
    state, step = menv.reset(key)
    state, step = menv.step(key, state, {"guard_0": dv, "bandit_0": dv})

Rules, as for the single-agent protocol (`horizax.core.protocol`): pure functions that work
under `jax.jit`, `jax.vmap` and `jax.lax.scan`; every agent's ``terminated`` and
``truncated`` are two booleans, never both true; the view never resets by itself.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from jax import Array

from horizax.core.struct import field, pytree_dataclass

__all__ = ["MultiAgentFunctionalEnv", "MultiStep"]


@pytree_dataclass
class MultiStep:
    """What the multi-agent protocol returns after a reset or a step.

    Attributes:
        observations: agent name -> its observation.
        rewards: agent name -> f32[] reward (0.0 after a reset).
        terminated: agent name -> bool[]: the agent reached an absorbing state.
        truncated: agent name -> bool[]: a time limit cut the agent's episode.
        info: extra arrays with fixed shapes (agent name -> dict, may be empty).
    """

    observations: dict[str, Any]
    rewards: dict[str, Array]
    terminated: dict[str, Array]
    truncated: dict[str, Array]
    info: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class MultiAgentFunctionalEnv(Protocol):
    """A multi-agent functional environment.

    Attributes:
        agents: the agents' names, in a fixed order.
        observation_spaces: agent name -> `horizax.core.spaces` space of its observation.
        action_spaces: agent name -> space of its action.
        max_steps: the time limit in steps.
        env_id: the registered id ("" if none).
    """

    agents: tuple[str, ...]
    observation_spaces: dict[str, Any]
    action_spaces: dict[str, Any]
    max_steps: int
    env_id: str

    def reset(self, key: Array) -> tuple[Any, MultiStep]:
        """Starts an episode from ``key``."""
        ...

    def step(self, key: Array, state: Any, actions: dict[str, Array]) -> tuple[Any, MultiStep]:
        """Applies every agent's action."""
        ...

    def render(self, state: Any) -> Any:
        """An RGB frame ``u8[H, W, 3]`` of one state."""
        ...
