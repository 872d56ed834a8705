"""Rollouts over the symmetric core, with the episode latched at its end.

`rollout` scans ``n_steps`` steps of both sides' policies. Once the episode has ended, the
state, the observations and the policy states are held, and the rewards are zero; the logged
``episode_done`` (and horizax's ``terminated`` / ``truncated``) stay true from the ending step
on, and that step's reward is kept. `episode_mask` gives the steps that belong to the
episode. Keys: ``split(key, 3) -> (reset, policy init, scan)``, then per step
``split(step_key, 3) -> (guard action, bandit action, env)``, as orbitalgym.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from horizax.core import threefry
from horizax.orbital.env.types import Actions, BySide, Side, SideTrajectory, Trajectory
from horizax.orbital.observations.types import flatten_observations

__all__ = ["episode_mask", "rollout", "rollout_single_agent"]


def _hold(ended: Array, current: Any, new: Any) -> Any:
    return jax.tree_util.tree_map(lambda c, n: jnp.where(ended, c, n), current, new)


def rollout(
    env: Any,
    policies: BySide,
    init_policy_state_fns: BySide,
    key: Array,
    n_steps: int,
    *,
    initial_state: Any = None,
) -> Trajectory:
    """Plays ``n_steps`` steps of ``env`` with one policy per side.

    Args:
        env: an `OrbitalGymEnv`.
        policies: `BySide` of policies ``(ps, flat_obs, key, t) -> (command, ps')``.
        init_policy_state_fns: `BySide` of ``(cfg, env_state, key) -> ps``.
        key: the rollout's key.
        n_steps: T, the number of steps (a Python int >= 1).
        initial_state: start from this `EnvState` (`reset_from_state`) instead of drawing.

    Returns:
        A `Trajectory` whose arrays have a leading axis T.
    """
    if isinstance(n_steps, bool) or not isinstance(n_steps, int) or n_steps < 1:
        raise ValueError(f"n_steps must be an int >= 1, got {n_steps!r}")
    k_reset, k_init, k_scan = threefry.split(key, 3)
    k_init_g, k_init_b = threefry.split(k_init, 2)
    if initial_state is None:
        state, outputs = env.reset(k_reset)
    else:
        state, outputs = env.reset_from_state(initial_state, k_reset)
    ps_g = init_policy_state_fns.guard(env.config, state, k_init_g)
    ps_b = init_policy_state_fns.bandit(env.config, state, k_init_b)
    views = (flatten_observations(outputs.guard.obs), flatten_observations(outputs.bandit.obs))
    false = jnp.asarray(False)

    def one_step(carry: Any, step_key: Array) -> tuple[Any, dict[str, Any]]:
        es, ps_g, ps_b, view_g, view_b, ended, was_terminated, was_truncated = carry
        k_g, k_b, k_env = threefry.split(step_key, 3)
        action_g, next_ps_g = policies.guard(ps_g, view_g, k_g, es.t)
        action_b, next_ps_b = policies.bandit(ps_b, view_b, k_b, es.t)
        out = env.step(k_env, es, Actions(sides=BySide(guard=action_g, bandit=action_b)))
        next_view_g = flatten_observations(out.outputs.guard.obs)
        next_view_b = flatten_observations(out.outputs.bandit.obs)
        now_ended = ended | out.episode_done
        # An episode ends once: the first ending step decides terminated or truncated.
        terminated = was_terminated | (~ended & out.terminated)
        truncated = was_truncated | (~ended & out.truncated)
        zero = jnp.zeros_like(out.outputs.guard.reward)
        logged = {
            "env_state": es,
            "guard_action": action_g,
            "bandit_action": action_b,
            "guard_reward": jnp.where(ended, zero, out.outputs.guard.reward),
            "bandit_reward": jnp.where(ended, zero, out.outputs.bandit.reward),
            "episode_done": now_ended,
            "terminated": terminated,
            "truncated": truncated,
            "guard_obs": view_g,
            "bandit_obs": view_b,
            "guard_ps": ps_g,
            "bandit_ps": ps_b,
            "guard_applied_dv": out.info["applied_dv"].guard,
            "bandit_applied_dv": out.info["applied_dv"].bandit,
        }
        carry = (
            _hold(ended, es, out.state),
            _hold(ended, ps_g, next_ps_g),
            _hold(ended, ps_b, next_ps_b),
            _hold(ended, view_g, next_view_g),
            _hold(ended, view_b, next_view_b),
            now_ended,
            terminated,
            truncated,
        )
        return carry, logged

    final, log = jax.lax.scan(
        one_step,
        (state, ps_g, ps_b, *views, false, false, false),
        threefry.split(k_scan, n_steps),
    )

    def side(name: str) -> SideTrajectory:
        return SideTrajectory(
            obs=log[f"{name}_obs"],
            action=log[f"{name}_action"],
            reward=log[f"{name}_reward"],
            done=log["episode_done"],
            policy_state=log[f"{name}_ps"],
        )

    return Trajectory(
        env_state=log["env_state"],
        sides=BySide(guard=side("guard"), bandit=side("bandit")),
        episode_done=log["episode_done"],
        applied_dv=BySide(guard=log["guard_applied_dv"], bandit=log["bandit_applied_dv"]),
        final_state=final[0],
        terminated=log["terminated"],
        truncated=log["truncated"],
        controlled_side=getattr(env.config, "controlled_side", Side.GUARD),
    )


def rollout_single_agent(
    view: Any,
    controlled_policy: Callable,
    init_controlled_ps_fn: Callable,
    key: Array,
    n_steps: int,
) -> Trajectory:
    """`rollout` of a `SingleAgentView`: the controlled side's policy, and the view's
    opponent policy for the other side (its state starts at its ``init_state()``, or None)."""

    def opponent_state(cfg: Any, state: Any, key: Array) -> Any:
        del cfg, state, key
        return view.initial_opponent_state()

    if view.controlled_side is Side.GUARD:
        policies = BySide(guard=controlled_policy, bandit=view.opponent_policy)
        init_fns = BySide(guard=init_controlled_ps_fn, bandit=opponent_state)
    else:
        policies = BySide(guard=view.opponent_policy, bandit=controlled_policy)
        init_fns = BySide(guard=opponent_state, bandit=init_controlled_ps_fn)
    return rollout(view.env, policies, init_fns, key, n_steps)


def episode_mask(traj: Any) -> Array:
    """bool[..., T]: true up to and including the first step where the episode ended.

    Args:
        traj: a `Trajectory` (its ``episode_done``) or the latched ``episode_done`` itself,
            time on the last axis.
    """
    done = jnp.asarray(getattr(traj, "episode_done", traj))
    before = jnp.concatenate([jnp.zeros_like(done[..., :1]), done[..., :-1]], axis=-1)
    return ~(jnp.cumsum(before, axis=-1) > 0)
