"""`SingleAgentView`: one side controlled by the caller, the other by its configured policy.

The only asymmetric piece: the symmetric core knows nothing of it. The opponent observes the
state entering the step (with identity actions) and its policy is
``cfg.<opponent>_policy`` with its side's command class and vehicle count filled in.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from jax import Array

from horizax.core import threefry
from horizax.orbital.env.core import EnvState, OrbitalGymEnv
from horizax.orbital.env.types import Actions, BySide, Side
from horizax.orbital.observations.types import flatten_observations

__all__ = ["SingleAgentView"]


class SingleAgentView:
    """The single-agent projection of an `OrbitalGymEnv`.

    Attributes:
        env: the wrapped environment.
        config: its configuration.
        controlled_side: ``cfg.controlled_side``.
        opponent_side: the other side.
        opponent_policy: the opponent's policy, ready to call.
    """

    def __init__(self, env: OrbitalGymEnv):
        if not isinstance(env, OrbitalGymEnv):
            raise TypeError(f"env must be an OrbitalGymEnv, got {type(env).__name__}")
        self.env = env
        self.config = env.config
        self.controlled_side: Side = env.config.controlled_side
        self.opponent_side: Side = self.controlled_side.opposite()
        guard = self.opponent_side is Side.GUARD
        policy = env.config.guard_policy if guard else env.config.bandit_policy
        self.opponent_policy = dataclasses.replace(
            policy,
            n_vehicles=env.config.n_guards if guard else env.config.n_bandits,
            command_cls=env.guard_command_cls if guard else env.bandit_command_cls,
        )

    @property
    def controlled_command_cls(self) -> Any:
        """The controlled side's `Command` class."""
        env = self.env
        return (
            env.guard_command_cls if self.controlled_side is Side.GUARD else env.bandit_command_cls
        )

    @property
    def n_controlled(self) -> int:
        """Vehicles on the controlled side."""
        cfg = self.config
        return cfg.n_guards if self.controlled_side is Side.GUARD else cfg.n_bandits

    def initial_opponent_state(self) -> Any:
        """The opponent policy's first state: its ``init_state()`` if it has one, else None.

        orbitalgym always starts it at None; a policy with a state (`PhasedBandit`) then
        changes the carry's structure on its first step, which a `lax.scan` rejects.
        """
        init = getattr(self.opponent_policy, "init_state", None)
        return init() if callable(init) else None

    def reset(self, key: Array) -> tuple[EnvState, Array, Any]:
        """``(state, f32[D] controlled side's flat observation, opponent policy state)``."""
        state, outputs = self.env.reset(key)
        obs = flatten_observations(outputs.get(self.controlled_side).obs)
        return state, obs, self.initial_opponent_state()

    def step(
        self, key: Array, state: EnvState, controlled_action: Any, opp_policy_state: Any
    ) -> tuple[EnvState, Array, Array, Array, Any, dict[str, Any]]:
        """One step with the controlled side's command.

        Returns:
            ``(next_state, flat observation f32[D], reward f32[], episode_done bool[],
            opponent policy state, info)``; ``info`` holds ``applied_dv``,
            ``invalid_action``, ``terminated`` and ``truncated`` (bool[]).
        """
        k_opp, k_env = threefry.split(key, 2)
        env, cfg = self.env, self.config
        opp_obs_fn = (
            env.guard_observation_fn
            if self.opponent_side is Side.GUARD
            else (env.bandit_observation_fn)
        )
        opp_obs = flatten_observations(
            opp_obs_fn(state, env.identity_actions(), self.opponent_side, cfg, k_opp, state.t)
        )
        opp_action, next_opp_ps = self.opponent_policy(opp_policy_state, opp_obs, k_opp, state.t)
        if self.controlled_side is Side.GUARD:
            actions = Actions(sides=BySide(guard=controlled_action, bandit=opp_action))
        else:
            actions = Actions(sides=BySide(guard=opp_action, bandit=controlled_action))
        out = env.step(k_env, state, actions)
        mine = out.outputs.get(self.controlled_side)
        info = {**out.info, "terminated": out.terminated, "truncated": out.truncated}
        return (
            out.state,
            flatten_observations(mine.obs),
            mine.reward,
            out.episode_done,
            next_opp_ps,
            info,
        )
