"""Observation-Blocking: the bandit blocks the guard's view of a ground target (1 v 1).

The Sun-Blocking kernel with the Sun replaced by a point on the Earth's surface, paid only
while the target can see the guard (the guard at least ``min_elevation_deg`` above the
target's horizon, geocentric up)::

    bandit = -(u_bg . u_bt) exp(-range_decay_coef (d_bg - target_viewing_distance_m)^2) [visible]
    guard  = -bandit

Observation: each side's `FullObservation` channels. Action: ``Command.dv`` f32[n_side, 3].
Reward: f32[] per side, as above, in ``[-1, 1]`` (zero-sum). Termination: none of its own.
Truncation: ``step >= max_steps`` (540 by default). State: `EnvState`.

The target is fixed on the rotating Earth (WGS-84 geodetic position) and turned into ECI
with `horizax.orbital.earth.rotation_ecef_to_eci` at the state's time. With the default
reference orbit (equatorial, 7000 km) a target at 37.4 deg N never sees the guard above
5 deg, so the default reward is zero throughout, in orbitalgym as here: give an inclined
``reference_orbit`` (or a target near the equator) for a game worth playing.

    cfg = make_observation_blocking(target_lat_deg=0.0, target_lon_deg=0.0)
    env = OrbitalGymEnv(cfg)
    state, outputs = env.reset(jax.random.PRNGKey(0))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.earth import geodetic_to_ecef, rotation_ecef_to_eci
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

__all__ = [
    "ObservationBlocking",
    "ObservationBlockingReward",
    "make_observation_blocking",
    "observation_blocking_reward",
    "target_eci",
    "target_visible_from_guard",
]

_EPS = 1e-12


@register_game(GameKey.OBSERVATION_BLOCKING)
@dataclass(frozen=True)
class ObservationBlocking(Game):
    """1 v 1 blocking of a ground target; the episode runs to the step cap.

    Attributes:
        target_lat_deg: the target's geodetic latitude (deg, in [-90, 90]).
        target_lon_deg: its longitude (deg, finite).
        target_alt_m: its height above the WGS-84 ellipsoid (m, finite).
        min_elevation_deg: the guard counts as seen above this elevation (deg, in [-90, 90]).
        target_viewing_distance_m: the bandit-guard standoff where the reward peaks (m, >= 0).
        range_decay_coef: the Gaussian width of the range factor (1/m^2, >= 0).
        target_ecef_m: the target's ECEF position (m), derived from the three above.
    """

    target_lat_deg: float = 37.4
    target_lon_deg: float = -122.2
    target_alt_m: float = 0.0
    min_elevation_deg: float = 5.0
    target_viewing_distance_m: float = 500.0
    range_decay_coef: float = 4.0e-6
    target_ecef_m: tuple[float, float, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        name = "ObservationBlocking"
        check_knob(name, "target_lat_deg", self.target_lat_deg, -90.0, 90.0)
        check_knob(name, "target_lon_deg", self.target_lon_deg, -math.inf, math.inf)
        check_knob(name, "target_alt_m", self.target_alt_m, -math.inf, math.inf)
        check_knob(name, "min_elevation_deg", self.min_elevation_deg, -90.0, 90.0)
        check_knob(name, "target_viewing_distance_m", self.target_viewing_distance_m)
        check_knob(name, "range_decay_coef", self.range_decay_coef)
        ecef = geodetic_to_ecef(self.target_lat_deg, self.target_lon_deg, self.target_alt_m)
        # A tuple of floats keeps the game hashable (it is static configuration under jit).
        object.__setattr__(self, "target_ecef_m", tuple(float(x) for x in ecef))

    def default_reward_fn(self) -> ObservationBlockingReward:
        """`ObservationBlockingReward`."""
        return ObservationBlockingReward()


def target_eci(game: ObservationBlocking, epoch_mjd_utc: float, t: Array) -> Array:
    """f[3]: the target's ECI position (m) ``t`` seconds after ``epoch_mjd_utc``."""
    rotation = rotation_ecef_to_eci(epoch_mjd_utc, t)
    return rotation @ jnp.asarray(game.target_ecef_m, rotation.dtype)


def target_visible_from_guard(target: Array, guard_eci: Array, min_elevation_deg: float) -> Array:
    """bool[]: the guard is at least ``min_elevation_deg`` above the target's horizon.

    "Up" is geocentric (the target's direction from the Earth's centre), as orbitalgym's;
    geodetic up differs by at most 0.19 deg.
    """
    up = target / (jnp.linalg.norm(target) + _EPS)
    line = guard_eci - target
    sin_elevation = jnp.dot(up, line) / (jnp.linalg.norm(line) + _EPS)
    elevation_deg = jnp.rad2deg(jnp.arcsin(jnp.clip(sin_elevation, -1.0, 1.0)))
    return elevation_deg >= min_elevation_deg


def observation_blocking_reward(state: Any, cfg: Any, game: ObservationBlocking) -> Array:
    """f[]: the bandit's reward at ``state`` (the guard's is its negation)."""
    geometry = lead_geometry(state, cfg)
    target = target_eci(game, cfg.epoch_mjd_utc, state.t)
    paid = blocking_kernel(
        geometry.bandit_to_guard,
        target - geometry.bandit_eci,
        game.target_viewing_distance_m,
        game.range_decay_coef,
    )
    visible = target_visible_from_guard(target, geometry.guard_eci, game.min_elevation_deg)
    return jnp.where(visible, paid, jnp.zeros_like(paid))


@register(RewardFnKey.OBSERVATION_BLOCKING)
@dataclass(frozen=True)
class ObservationBlockingReward:
    """f32[]: the gated blocking reward at ``next_state`` for the bandit, its negation for the
    guard. Raises ``TypeError`` unless ``cfg.game`` is an `ObservationBlocking`."""

    scope: RewardScope = RewardScope.PER_SIDE

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Side, cfg: Any, t: Array
    ) -> Array:
        """f32[]: ``side``'s reward."""
        del prev_state, actions, t
        return zero_sum_share(
            "ObservationBlockingReward",
            ObservationBlocking,
            observation_blocking_reward,
            next_state,
            side,
            cfg,
        )


def make_observation_blocking(
    *,
    target_lat_deg: float = 37.4,
    target_lon_deg: float = -122.2,
    target_alt_m: float = 0.0,
    min_elevation_deg: float = 5.0,
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
    """An Observation-Blocking `ScenarioConfig` (orbitalgym's builder and defaults).

    Both vehicles 100 kg dry, Isp 220 s, 5 N, no MASS; the guard on a 500 m radial ellipse at
    phase 0, the bandit on a 1.5 km one with 100 m cross-track and a 300 m along-track offset
    at phase pi/6 (10 m spread on each); 10 s steps over 5400 s; the target at Stanford
    (37.4 N, 122.2 W).
    """
    return build_scenario(
        ObservationBlocking(
            target_lat_deg=target_lat_deg,
            target_lon_deg=target_lon_deg,
            target_alt_m=target_alt_m,
            min_elevation_deg=min_elevation_deg,
            target_viewing_distance_m=target_viewing_distance_m,
            range_decay_coef=range_decay_coef,
        ),
        guard_ellipse=dict(radial_ellipse_m=500.0, phase_rad=0.0, sigma_radial_ellipse_m=10.0),
        bandit_ellipse=dict(
            radial_ellipse_m=1500.0,
            cross_track_m=100.0,
            along_track_offset_m=300.0,
            phase_rad=math.pi / 6.0,
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
