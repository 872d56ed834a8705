"""Sun-Blocking: the bandit stands between the guard and the Sun (1 v 1; vehicle 0 of each).

With ``d_bg`` the bandit-guard distance, ``u_bg`` the unit vector from the bandit to the
guard and ``u_bs`` the one from the bandit to the Sun, at the state leaving the step::

    bandit = -(u_bg . u_bs) exp(-range_decay_coef (d_bg - target_viewing_distance_m)^2)
    guard  = -bandit

Observation: each side's `FullObservation` channels. Action: ``Command.dv`` f32[n_side, 3].
Reward: f32[] per side, as above, in ``[-1, 1]`` (zero-sum). Termination: none of its own.
Truncation: ``step >= max_steps`` (540 by default, a 90-minute orbit). State: `EnvState`.

The Sun is `horizax.orbital.earth.sun_position_eci` at ``epoch_mjd_utc`` plus the state's
time; the vehicles' ECI positions ride on ``cfg.reference_orbit`` propagated in closed form.

    cfg = make_sun_blocking()
    env = OrbitalGymEnv(cfg)
    state, outputs = env.reset(jax.random.PRNGKey(0))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from jax import Array

from horizax.orbital.earth import sun_position_eci
from horizax.orbital.env.types import Side
from horizax.orbital.games.base import Game
from horizax.orbital.games.blocking import (
    blocking_kernel,
    check_knob,
    lead_geometry,
    zero_sum_share,
)
from horizax.orbital.games.builder import build_scenario
from horizax.orbital.registry import (
    DynamicsKey,
    GameKey,
    RewardFnKey,
    StateComponentKey,
    register,
    register_game,
)
from horizax.orbital.rewards.base import RewardScope

__all__ = ["SunBlocking", "SunBlockingReward", "make_sun_blocking", "sun_blocking_reward"]


@register_game(GameKey.SUN_BLOCKING)
@dataclass(frozen=True)
class SunBlocking(Game):
    """1 v 1 Sun blocking; the episode runs to the step cap.

    Attributes:
        target_viewing_distance_m: the bandit-guard standoff where the reward peaks (m, >= 0).
        range_decay_coef: the Gaussian width of the range factor (1/m^2, >= 0).
    """

    target_viewing_distance_m: float = 500.0
    range_decay_coef: float = 4.0e-6

    def __post_init__(self) -> None:
        # Checked when the game is built, before any configuration holds it.
        check_knob("SunBlocking", "target_viewing_distance_m", self.target_viewing_distance_m)
        check_knob("SunBlocking", "range_decay_coef", self.range_decay_coef)

    def default_reward_fn(self) -> SunBlockingReward:
        """`SunBlockingReward`."""
        return SunBlockingReward()


def sun_blocking_reward(state: Any, cfg: Any, game: SunBlocking) -> Array:
    """f[]: the bandit's reward at ``state`` (the guard's is its negation)."""
    geometry = lead_geometry(state, cfg)
    sun = sun_position_eci(cfg.epoch_mjd_utc, state.t)
    return blocking_kernel(
        geometry.bandit_to_guard,
        sun - geometry.bandit_eci,
        game.target_viewing_distance_m,
        game.range_decay_coef,
    )


@register(RewardFnKey.SUN_BLOCKING)
@dataclass(frozen=True)
class SunBlockingReward:
    """f32[]: the blocking reward at ``next_state`` for the bandit, its negation for the guard.

    Raises ``TypeError`` unless ``cfg.game`` is a `SunBlocking`."""

    scope: RewardScope = RewardScope.PER_SIDE

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Side, cfg: Any, t: Array
    ) -> Array:
        """f32[]: ``side``'s reward."""
        del prev_state, actions, t
        return zero_sum_share(
            "SunBlockingReward", SunBlocking, sun_blocking_reward, next_state, side, cfg
        )


def make_sun_blocking(
    *,
    target_viewing_distance_m: float = 500.0,
    range_decay_coef: float = 4.0e-6,
    n_guards: int = 1,
    n_bandits: int = 1,
    dt: float = 10.0,
    max_horizon_s: float = 5400.0,
    seed: int = 0,
    epoch_mjd_utc: float = 60067.0,
    reference_orbit: Any = None,
    guard_components: tuple[StateComponentKey, ...] = (StateComponentKey.RTN,),
    bandit_components: tuple[StateComponentKey, ...] = (StateComponentKey.RTN,),
    guard_params: Any = None,
    bandit_params: Any = None,
    ic_sampler: Any = None,
    truth_dynamics: DynamicsKey = DynamicsKey.HCW_RTN,
    policy_dynamics: DynamicsKey = DynamicsKey.HCW_RTN,
    guard_observation_fn: Any = None,
    bandit_observation_fn: Any = None,
) -> Any:
    """A Sun-Blocking `ScenarioConfig` (orbitalgym's builder and defaults).

    Both vehicles 100 kg dry, Isp 220 s, 5 N, no MASS; the guard on a 500 m radial ellipse at
    phase 0, the bandit on a 2 km one with 200 m cross-track and a 500 m along-track offset
    at phase pi/4 (10 m spread on each); 10 s steps over 5400 s, from MJD 60067 (2023-05-10).
    """
    return build_scenario(
        SunBlocking(
            target_viewing_distance_m=target_viewing_distance_m,
            range_decay_coef=range_decay_coef,
        ),
        guard_ellipse=dict(radial_ellipse_m=500.0, phase_rad=0.0, sigma_radial_ellipse_m=10.0),
        bandit_ellipse=dict(
            radial_ellipse_m=2000.0,
            cross_track_m=200.0,
            along_track_offset_m=500.0,
            phase_rad=math.pi / 4.0,
            sigma_radial_ellipse_m=10.0,
        ),
        reference_orbit=reference_orbit,
        guard_params=guard_params,
        bandit_params=bandit_params,
        ic_sampler=ic_sampler,
        n_guards=n_guards,
        n_bandits=n_bandits,
        dt=dt,
        max_horizon_s=max_horizon_s,
        seed=seed,
        epoch_mjd_utc=epoch_mjd_utc,
        guard_components=guard_components,
        bandit_components=bandit_components,
        truth_dynamics=truth_dynamics,
        policy_dynamics=policy_dynamics,
        guard_observation_fn=guard_observation_fn,
        bandit_observation_fn=bandit_observation_fn,
    )
