"""The orbital games as a multi-agent protocol view: one agent per vehicle.

Agents ``guard_0 .. guard_{n-1}`` then ``bandit_0 ..``. Each observes its own row of its
side's observation channels (`flatten_observations_per_agent`), acts with its own velocity
change f32[dim] (m/s, in ``[-dv_max, dv_max]`` of its side; larger values are clipped by the
thrust rule, non-finite ones are no thrust), and receives its side's reward. The episode ends
for every agent at once: ``terminated`` for an event, ``truncated`` for the step cap.

A side with the COMMUNICATE component acts with f32[dim + 1 + 6] per agent: its velocity
change, its ``active`` number (it broadcasts above 0.5) and its 6 payload numbers, the
one-vehicle case of `horizax.orbital.actions.flat`. Each agent's vector stays its own
(orbitalgym's PettingZoo adapter joins the agents' vectors and reads the result field-major,
which mixes agents up once a side has more than one field).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.multiagent import MultiStep
from horizax.core.spaces import Box
from horizax.orbital.actions.flat import command_bounds, command_flat_dim, unflatten_command
from horizax.orbital.env.core import OrbitalGymEnv
from horizax.orbital.env.types import Actions, BySide, Side
from horizax.orbital.observations.types import flatten_observations_per_agent

__all__ = ["OrbitalMultiAgent"]


class OrbitalMultiAgent:
    """An `OrbitalGymEnv` as a `horizax.core.multiagent.MultiAgentFunctionalEnv`."""

    def __init__(self, env: OrbitalGymEnv, env_id: str = "") -> None:
        self.env = env
        self.config = env.config
        self.env_id = env_id
        cfg = env.config
        self._counts = {Side.GUARD: cfg.n_guards, Side.BANDIT: cfg.n_bandits}
        self.agents = tuple(
            f"{side.value}_{i}"
            for side in (Side.GUARD, Side.BANDIT)
            for i in range(self._counts[side])
        )
        self._dim = env.truth_frame.dim
        self._command_cls = {Side.GUARD: env.guard_command_cls, Side.BANDIT: env.bandit_command_cls}
        self._width = {s: command_flat_dim(c, 1) for s, c in self._command_cls.items()}
        # An abstract key: shapes only, JAX's backend stays unstarted.
        _, outputs = jax.eval_shape(env.reset, jax.ShapeDtypeStruct((2,), jnp.uint32))
        self.observation_spaces: dict[str, Box] = {}
        self.action_spaces: dict[str, Box] = {}
        for side in (Side.GUARD, Side.BANDIT):
            rows = jax.eval_shape(flatten_observations_per_agent, outputs.get(side).obs)
            params = cfg.guard_params if side is Side.GUARD else cfg.bandit_params
            dv_max = float(params.max_thrust_n * cfg.dt / params.dry_mass_kg)
            if self._width[side] == self._dim:  # dv alone: scalar bounds
                action_space = Box(-dv_max, dv_max, (self._dim,), jnp.float32)
            else:
                low, high = command_bounds(self._command_cls[side], 1, dv_max)
                action_space = Box(low, high, (self._width[side],), jnp.float32)
            for i in range(self._counts[side]):
                name = f"{side.value}_{i}"
                self.observation_spaces[name] = Box(-np.inf, np.inf, (rows.shape[1],), jnp.float32)
                self.action_spaces[name] = action_space

    @property
    def max_steps(self) -> int:
        """The step cap."""
        return self.config.max_steps

    def _step(
        self, outputs: BySide, reward: BySide, terminated: Array, truncated: Array, info: Any
    ) -> MultiStep:
        observations, rewards, term, trunc = {}, {}, {}, {}
        for side in (Side.GUARD, Side.BANDIT):
            rows = flatten_observations_per_agent(outputs.get(side).obs)
            for i in range(self._counts[side]):
                name = f"{side.value}_{i}"
                observations[name] = rows[i]
                rewards[name] = jnp.asarray(reward.get(side), jnp.float32)
                term[name] = terminated
                trunc[name] = truncated
        return MultiStep(observations, rewards, term, trunc, info)

    def _info(self, applied: BySide, invalid: BySide) -> dict[str, Any]:
        info = {}
        for side in (Side.GUARD, Side.BANDIT):
            for i in range(self._counts[side]):
                info[f"{side.value}_{i}"] = {
                    "applied_dv": applied.get(side)[i],
                    "invalid_action": invalid.get(side)[i],
                }
        return info

    def reset(self, key: Array) -> tuple[Any, MultiStep]:
        """A scenario drawn from ``key``; rewards 0, flags False."""
        state, outputs = self.env.reset(key)
        zero = BySide(guard=jnp.zeros((), jnp.float32), bandit=jnp.zeros((), jnp.float32))
        false = jnp.asarray(False)
        applied = BySide(
            guard=jnp.zeros((self._counts[Side.GUARD], 3), jnp.float32),
            bandit=jnp.zeros((self._counts[Side.BANDIT], 3), jnp.float32),
        )
        invalid = applied.map(lambda a: jnp.zeros(a.shape[:1], bool))
        return state, self._step(outputs, zero, false, false, self._info(applied, invalid))

    def step(self, key: Array, state: Any, actions: dict[str, Array]) -> tuple[Any, MultiStep]:
        """One step; ``actions`` maps every agent to its f32[dim] velocity change
        (f32[dim + 7] on a side with COMMUNICATE, module docstring)."""
        per_side = {}
        for side in (Side.GUARD, Side.BANDIT):
            cls, width = self._command_cls[side], self._width[side]
            rows = [
                unflatten_command(
                    cls, 1, jnp.asarray(actions[f"{side.value}_{i}"], jnp.float32).reshape(width)
                )
                for i in range(self._counts[side])
            ]
            # One-vehicle commands, joined along the vehicle axis field by field.
            per_side[side] = jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *rows)
        env = self.env
        command = Actions(sides=BySide(guard=per_side[Side.GUARD], bandit=per_side[Side.BANDIT]))
        out = env.step(key, state, command)
        reward = BySide(guard=out.outputs.guard.reward, bandit=out.outputs.bandit.reward)
        info = self._info(out.info["applied_dv"], out.info["invalid_action"])
        return out.state, self._step(out.outputs, reward, out.terminated, out.truncated, info)

    def render(self, state: Any) -> np.ndarray:
        """u8[256, 256, 3] picture of one unbatched state."""
        from horizax.orbital.viewer import rgb_frame

        return rgb_frame(state, self.config)
