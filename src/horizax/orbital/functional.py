"""The orbital games behind horizax's functional protocol, for every adapter.

`OrbitalFunctional` is a `SingleAgentView` as a `horizax.core.protocol.FunctionalEnv`: the
controlled side's flat observation, its velocity changes as one flat ``Box`` action, the
opponent driven by the configuration's policy, and the episode boundary kept apart:
``terminated`` for an event (breach, catch, capture, repel, distance exit), ``truncated`` for
the step cap. Gymnasium, dm_env, TorchRL and gymnax drive it with no orbital code in them.

Observation: f32[n_self * (n_self + n_other) * d] (`flatten_observations` of the side's
channels; ``d`` = 6 for RTN). Action: f32[n_controlled * dim], each vehicle's velocity change
(m/s) in the truth frame, in ``[-dv_max, dv_max]`` with ``dv_max = max_thrust * dt / dry_mass``
(the most one step can deliver); larger commands are accepted and clipped by the thrust rule,
non-finite ones are no thrust (``info["invalid_action"]``). When the controlled side has the
COMMUNICATE component (``make_lady_bandit_guard(with_communication=True)``, agent the guard),
the action is f32[n_controlled * (dim + 1 + 6)]: the velocity changes, then one ``active``
number per vehicle (it broadcasts when the number is above 0.5; box ``[0, 1]``), then each
vehicle's 6 payload numbers (box ``[-1, 1]``, read by nothing), orbitalgym's flat layout
(`horizax.orbital.actions.flat`). Reward: f32[], the controlled side's. State:
``(EnvState, opponent policy state)``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.protocol import Step, make_step
from horizax.core.spaces import Box, check_box_action
from horizax.orbital.actions.flat import command_bounds, command_flat_dim, unflatten_command
from horizax.orbital.env.core import OrbitalGymEnv
from horizax.orbital.env.single_agent import SingleAgentView
from horizax.orbital.env.types import Side

__all__ = ["OrbitalFunctional"]


class OrbitalFunctional:
    """An orbital scenario as a single-agent `FunctionalEnv`.

    Attributes:
        env: the `OrbitalGymEnv`.
        view: its `SingleAgentView`.
        config: the `ScenarioConfig`.
        env_id: the registered id ("" if built by hand).
    """

    def __init__(self, env: OrbitalGymEnv, env_id: str = "") -> None:
        self.env = env
        self.view = SingleAgentView(env)
        self.config = env.config
        self.env_id = env_id
        # Shapes only, from an abstract key: nothing runs and JAX's backend stays unstarted.
        _, obs, _ = jax.eval_shape(self.view.reset, jax.ShapeDtypeStruct((2,), jnp.uint32))
        self._obs_dim = int(obs.shape[0])
        self._dim = env.truth_frame.dim
        self._n = self.view.n_controlled
        side = (
            self.config.guard_params
            if self.view.controlled_side is Side.GUARD
            else (self.config.bandit_params)
        )
        self.dv_max = float(side.max_thrust_n * self.config.dt / side.dry_mass_kg)
        self._command_cls = self.view.controlled_command_cls
        self._action_dim = command_flat_dim(self._command_cls, self._n)

    @property
    def observation_space(self) -> Box:
        """f32[D], unbounded."""
        return Box(low=-np.inf, high=np.inf, shape=(self._obs_dim,), dtype=jnp.float32)

    @property
    def action_space(self) -> Box:
        """f32[n_controlled * dim] in ``[-dv_max, dv_max]``; with COMMUNICATE,
        f32[n_controlled * (dim + 7)] with per-element bounds (module docstring)."""
        if self._action_dim == self._n * self._dim:  # dv alone: scalar bounds, as before
            return Box(
                low=-self.dv_max, high=self.dv_max, shape=(self._action_dim,), dtype=jnp.float32
            )
        low, high = command_bounds(self._command_cls, self._n, self.dv_max)
        return Box(low=low, high=high, shape=(self._action_dim,), dtype=jnp.float32)

    @property
    def max_steps(self) -> int:
        """The step cap (the episode truncates there)."""
        return self.config.max_steps

    def as_functional(self) -> OrbitalFunctional:
        """Itself: `horizax.core.protocol.functional` accepts it as it is."""
        return self

    def as_multi_agent(self) -> Any:
        """Every vehicle as its own agent (`horizax.orbital.multiagent.OrbitalMultiAgent`),
        for the PettingZoo adapter."""
        from horizax.orbital.multiagent import OrbitalMultiAgent

        return OrbitalMultiAgent(self.env, self.env_id)

    def reset(self, key: Array) -> tuple[tuple[Any, Any], Step]:
        """A scenario drawn from ``key``; the `Step` has reward 0 and both flags False."""
        state, obs, opponent_state = self.view.reset(key)
        info = {  # the step's keys, so a reset and a step return one pytree structure
            "applied_dv": jnp.zeros((self._n, 3), jnp.float32),
            "invalid_action": jnp.zeros((self._n,), bool),
        }
        return (state, opponent_state), make_step(obs, 0.0, False, False, info)

    def step(self, key: Array, state: tuple[Any, Any], action: Array) -> tuple[Any, Step]:
        """One step with the controlled side's flat action; keeps stepping after an end.

        Raises:
            TypeError, ValueError: an action that is not a float or integer array of the
                action space's shape (`horizax.core.spaces.check_box_action`, the adapters'
                rule). Its values are not checked: a non-finite command is no thrust, flagged
                in ``info["invalid_action"]``.
        """
        env_state, opp_ps = state
        flat = jnp.asarray(check_box_action(action, self.action_space), jnp.float32)
        command = unflatten_command(self._command_cls, self._n, flat)
        next_state, obs, reward, done, opp_ps, info = self.view.step(
            key, env_state, command, opp_ps
        )
        del done  # terminated | truncated, split by the termination's events
        extra = {
            "applied_dv": info["applied_dv"].get(self.view.controlled_side),
            "invalid_action": info["invalid_action"].get(self.view.controlled_side),
        }
        step = make_step(obs, reward, info["terminated"], info["truncated"], extra)
        return (next_state, opp_ps), step

    def render(self, state: tuple[Any, Any]) -> np.ndarray:
        """u8[256, 256, 3] picture of one unbatched state (`horizax.orbital.viewer`)."""
        from horizax.orbital.viewer import rgb_frame

        return rgb_frame(state[0], self.config)

    def __reduce__(self) -> tuple[Any, tuple[Any, str]]:
        # Rebuilt from its configuration: the environment holds runtime-built command classes.
        return (_rebuild, (self.config, self.env_id))

    def __eq__(self, other: object) -> bool:
        """Equal views have equal configurations (by value) and ids."""
        if not isinstance(other, OrbitalFunctional):
            return NotImplemented
        return self.env_id == other.env_id and _same(self.config, other.config)

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.env_id, self.config.n_guards, self.config.dt))

    def replace(self, **changes: Any) -> OrbitalFunctional:
        """A view of a changed configuration; ``max_steps`` sets the horizon to
        ``max_steps * dt``."""
        if "max_steps" in changes:
            changes["max_horizon_s"] = float(changes.pop("max_steps")) * self.config.dt
        return OrbitalFunctional(
            OrbitalGymEnv(dataclasses.replace(self.config, **changes)), self.env_id
        )


def _rebuild(config: Any, env_id: str) -> OrbitalFunctional:
    return OrbitalFunctional(OrbitalGymEnv(config), env_id)


def _same(a: Any, b: Any) -> bool:
    """Value equality through dataclasses, tuples and arrays (``==`` on arrays is elementwise)."""
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray | jax.Array):
        return a.shape == b.shape and bool(np.array_equal(np.asarray(a), np.asarray(b)))
    return bool(a == b)
