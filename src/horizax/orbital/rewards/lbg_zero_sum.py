"""`LbgZeroSumReward`: Lady-Bandit-Guard's per-side potential shaping and zero-sum payoffs.

Per step, for the guard side and the bandit side::

    guard  = gain (gamma Phi_g(s') - Phi_g(s)) + R_catch [caught or repelled]
             - R_breach [breached] - separation(s') - fuel_g
    bandit = gain (gamma Phi_b(s') - Phi_b(s)) + R_breach [breached]
             - R_catch [caught or repelled] - fuel_b

    Phi_g = (-d_gb - home_weight d_gl) / L        Phi_b = -d_bl / L

with the distances the least over vehicles at the step's endpoints (not the within-step
closest approach), and ``Phi(s') = 0`` on a step that ends the episode: a catch, a breach,
every bandit repelled, *or the step cap*. A whole episode's shaping then sums to
``-gain Phi(s_0)``, so the shaping cannot bias where an episode ends (potential-based shaping,
one potential per side). The payoffs are zero-sum; the shaping and the two costs are not.

The events are recomputed here with the reward's own knobs (not read from
``cfg.termination_fn``), through the same `horizax.orbital.games.proximity` functions the
termination uses, so with the game's defaults a bonus is paid on exactly the step the episode
ends. With another termination (``MaxStepsOnly``, say) the bonuses pay on every step inside a
radius, as in orbitalgym.

* The separation cost (guard side only) is a squared hinge ``(1 - d/r)^2`` for each guard
  pair closer than ``guard_separation_m`` and each guard closer than ``lady_keepout_m`` to the
  lady, at ``s'``, times ``separation_cost``.
* The fuel cost is ``dv_cost`` times the delta-v the side's propellant paid for,
  ``Isp g0 ln((dry + m) / (dry + m'))`` summed over its vehicles; a side without MASS pays
  nothing (decided when tracing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.actions.components import G0
from horizax.orbital.env.types import Side
from horizax.orbital.games.proximity import (
    check_dwell_steps,
    check_length,
    lbg_events_with_dwell,
    lbg_repelled,
    positions,
)
from horizax.orbital.registry import RewardFnKey, register
from horizax.orbital.rewards.base import RewardScope

__all__ = [
    "LbgZeroSumReward",
    "guard_separation_cost",
    "lbg_distances",
    "lbg_potential",
    "lbg_potential_from_distances",
]


def lbg_distances(state: Any) -> tuple[Array, Array, Array]:
    """``(d_gb, d_bl, d_gl)``, each f32[]: the least guard-bandit distance over all pairs,
    the least bandit-lady and the least guard-lady distance at ``state`` (an `EnvState`)."""
    guards = positions(state.guards)
    bandits = positions(state.bandits)
    d_gb = jnp.min(
        jnp.linalg.norm(guards[..., :, None, :] - bandits[..., None, :, :], axis=-1),
        axis=(-2, -1),
    )
    d_bl = jnp.min(jnp.linalg.norm(bandits, axis=-1), axis=-1)
    d_gl = jnp.min(jnp.linalg.norm(guards, axis=-1), axis=-1)
    return d_gb, d_bl, d_gl


def lbg_potential_from_distances(
    side: Side,
    d_gb: Array,
    d_bl: Array,
    d_gl: Array,
    shaping_scale_m: float,
    home_weight: float,
) -> Array:
    """f32[]: the guard's ``(-d_gb - home_weight d_gl) / L`` or the bandit's ``-d_bl / L``."""
    if side is Side.BANDIT:
        return -d_bl / shaping_scale_m
    return (-d_gb - home_weight * d_gl) / shaping_scale_m


def lbg_potential(state: Any, side: Side, shaping_scale_m: float, home_weight: float) -> Array:
    """f32[]: ``side``'s shaping potential at ``state``. Not zeroed at absorbing states: a
    state alone does not say whether the step into it ended the episode."""
    return lbg_potential_from_distances(side, *lbg_distances(state), shaping_scale_m, home_weight)


def _hinge(d: Array, radius_m: float) -> Array:
    # A zero radius switches the charge off (and must not divide by it).
    if radius_m <= 0.0:
        return jnp.zeros_like(d)
    return jnp.where(d < radius_m, (1.0 - d / radius_m) ** 2, 0.0)


def guard_separation_cost(
    state: Any, guard_separation_m: float, lady_keepout_m: float, separation_cost: float
) -> Array:
    """f32[] >= 0: the guard side's crowding charge at ``state`` (the caller subtracts it)."""
    guards = positions(state.guards)
    pair_d = jnp.linalg.norm(guards[..., :, None, :] - guards[..., None, :, :], axis=-1)
    upper = jnp.triu(jnp.ones(pair_d.shape[-2:], dtype=bool), k=1)
    pairs = jnp.sum(jnp.where(upper, _hinge(pair_d, guard_separation_m), 0.0), axis=(-2, -1))
    lady = jnp.sum(_hinge(jnp.linalg.norm(guards, axis=-1), lady_keepout_m), axis=-1)
    return separation_cost * (pairs + lady)


@register(RewardFnKey.LBG_ZERO_SUM)
@dataclass(frozen=True)
class LbgZeroSumReward:
    """Lady-Bandit-Guard's reward (module docstring): ``f32[]`` per side.

    Attributes:
        shaping_scale_m: L, the distance that makes a potential one (> 0).
        shaping_gain: the shaping's weight; 0 leaves the payoffs and costs alone.
        shaping_discount: gamma inside the potential difference (match the learner's).
        home_weight: weight of the guard-lady distance in the guard's potential.
        guard_separation_m: the guard-guard distance below which crowding costs (m).
        lady_keepout_m: the guard-lady distance below which crowding costs (m).
        separation_cost: the crowding hinge's weight.
        r_catch: paid to the guard (and taken from the bandit) on a catch or a repel.
        r_breach: paid to the bandit (and taken from the guard) on a breach.
        catch_radius_m: as in `LbgEventTermination`.
        breach_radius_m: as in `LbgEventTermination`.
        catch_speed_mps: as in `LbgEventTermination`.
        breach_speed_mps: as in `LbgEventTermination`.
        catch_dwell_steps: as in `LbgEventTermination`.
        breach_dwell_steps: as in `LbgEventTermination`.
        escape_radius_m: as in `LbgEventTermination`.
        repel_on_empty_tank: as in `LbgEventTermination`.
        dv_cost: reward per m/s of delta-v a side's own propellant paid for.
        scope: ``PER_SIDE``.
    """

    shaping_scale_m: float = 300.0
    shaping_gain: float = 50.0
    shaping_discount: float = 1.0
    home_weight: float = 0.0
    guard_separation_m: float = 20.0
    lady_keepout_m: float = 20.0
    separation_cost: float = 10.0
    r_catch: float = 1000.0
    r_breach: float = 1000.0
    catch_radius_m: float = 50.0
    breach_radius_m: float = 5.0
    catch_speed_mps: float = float("inf")
    breach_speed_mps: float = float("inf")
    catch_dwell_steps: int = 0
    breach_dwell_steps: int = 0
    escape_radius_m: float = 0.0
    repel_on_empty_tank: bool = False
    dv_cost: float = 0.0
    scope: RewardScope = RewardScope.PER_SIDE

    def __post_init__(self) -> None:
        if not self.shaping_scale_m > 0.0:
            raise ValueError(
                "LbgZeroSumReward.shaping_scale_m divides every distance in the potentials, "
                f"so it must be a positive length in metres; got {self.shaping_scale_m!r}. "
                "Set shaping_gain=0.0 to turn the shaping off instead."
            )
        for name in (
            "catch_radius_m",
            "breach_radius_m",
            "escape_radius_m",
            "guard_separation_m",
            "lady_keepout_m",
        ):
            check_length("LbgZeroSumReward", name, getattr(self, name))
        for name in ("catch_dwell_steps", "breach_dwell_steps"):
            check_dwell_steps("LbgZeroSumReward", name, getattr(self, name))

    def potential(self, state: Any, side: Side) -> Array:
        """f32[]: `lbg_potential` at this reward's scale and home weight."""
        return lbg_potential(state, side, self.shaping_scale_m, self.home_weight)

    def _fuel_cost(self, prev_state: Any, next_state: Any, side: Side, cfg: Any) -> Array:
        # Priced from the propellant drawn rather than the command: the thrust and tank clips
        # make the commanded |dv| overstate what was flown.
        prev_side = prev_state.guards if side is Side.GUARD else prev_state.bandits
        if prev_side.propellant_mass is None:
            return jnp.zeros((), next_state.t.dtype)
        next_side = next_state.guards if side is Side.GUARD else next_state.bandits
        vehicle = cfg.guard_params if side is Side.GUARD else cfg.bandit_params
        dry = jnp.asarray(vehicle.dry_mass_kg, dtype=prev_side.propellant_mass.dtype)
        dv = (
            vehicle.isp_s
            * G0
            * jnp.log((dry + prev_side.propellant_mass) / (dry + next_side.propellant_mass))
        )
        return self.dv_cost * jnp.sum(dv)

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Side, cfg: Any, t: Array
    ) -> Array:
        """f32[]: ``side``'s reward for the step from ``prev_state`` to ``next_state``."""
        del actions, t
        side = Side(side)
        caught, breached, _, _ = lbg_events_with_dwell(
            prev_state,
            next_state,
            cfg.dt,
            self.catch_radius_m,
            self.catch_speed_mps,
            self.breach_radius_m,
            self.breach_speed_mps,
            self.catch_dwell_steps,
            self.breach_dwell_steps,
        )
        repelled = lbg_repelled(
            next_state,
            cfg,
            self.escape_radius_m,
            self.repel_on_empty_tank,
            self.breach_radius_m,
            self.breach_speed_mps,
        )
        phi_prev = self.potential(prev_state, side)
        # A repel pays what a catch pays: the bandit team is out of the fight either way.
        guard_win = jnp.logical_or(caught, repelled).astype(phi_prev.dtype)
        breach_event = breached.astype(phi_prev.dtype)

        # Phi is 0 at an absorbing state, the step cap included (orbitalgym's rule), so the
        # ending step returns the whole of -Phi(s) and no gain * gamma^T * Phi(s_T) is left.
        terminating = jnp.logical_or(jnp.logical_or(caught, breached), repelled)
        terminating = jnp.logical_or(terminating, next_state.step >= cfg.max_steps)
        phi_next = jnp.where(terminating, 0.0, self.potential(next_state, side))
        shaping = self.shaping_gain * (self.shaping_discount * phi_next - phi_prev)
        fuel = self._fuel_cost(prev_state, next_state, side, cfg)

        if side is Side.GUARD:
            separation = guard_separation_cost(
                next_state, self.guard_separation_m, self.lady_keepout_m, self.separation_cost
            )
            return (
                shaping
                + self.r_catch * guard_win
                - self.r_breach * breach_event
                - separation
                - fuel
            )
        return shaping + self.r_breach * breach_event - self.r_catch * guard_win - fuel
