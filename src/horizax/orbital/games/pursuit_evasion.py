"""Pursuit-Evasion: the bandit pursues, the guard evades (1 v 1; vehicle 0 of each side).

The reference orbit is only the dynamical anchor here, not an asset. With
``d = |p_guard0 - p_bandit0|`` at the state leaving the step:

Observation: each side's `FullObservation` channels. Action: ``Command.dv`` f32[n_side, 3].
Reward: f32[]: ``+d`` to the guard, ``-d`` to the bandit (zero-sum).
Termination: capture, ``d < capture_distance_m`` at the step's end (endpoint only, not the
swept chord). Truncation: ``step >= max_steps`` (200 by default). State: `EnvState`.

    cfg = make_pursuit_evasion(capture_distance_m=10.0)
    env = OrbitalGymEnv(cfg)
    out = jax.jit(env.step)(key, state, actions)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.env.types import Side
from horizax.orbital.games.base import Game
from horizax.orbital.games.builder import build_scenario
from horizax.orbital.games.proximity import check_length, positions
from horizax.orbital.registry import (
    DynamicsKey,
    GameKey,
    RewardFnKey,
    StateComponentKey,
    TerminationFnKey,
    register,
    register_game,
)
from horizax.orbital.rewards.base import RewardScope

__all__ = [
    "PursuitEvasion",
    "PursuitEvasionReward",
    "PursuitEvasionTermination",
    "make_pursuit_evasion",
]


@register_game(GameKey.PURSUIT_EVASION)
@dataclass(frozen=True)
class PursuitEvasion(Game):
    """1 v 1 pursuit and evasion.

    Attributes:
        capture_distance_m: the episode terminates once the guard-bandit distance is
            strictly below it (>= 0; orbitalgym accepts a negative one, which never fires).
    """

    capture_distance_m: float = 10.0

    def validate(self, cfg: Any) -> None:
        """Raises ``ValueError`` for a negative (or NaN) capture distance."""
        del cfg
        check_length("PursuitEvasion", "capture_distance_m", self.capture_distance_m)

    def default_reward_fn(self) -> PursuitEvasionReward:
        """`PursuitEvasionReward`."""
        return PursuitEvasionReward()

    def default_termination_fn(self) -> PursuitEvasionTermination:
        """`PursuitEvasionTermination`."""
        return PursuitEvasionTermination()


def _require_game(owner: str, cfg: Any) -> PursuitEvasion:
    # A Python check on the static configuration, made while tracing, before any value.
    if not isinstance(cfg.game, PursuitEvasion):
        raise TypeError(f"{owner} requires cfg.game: PursuitEvasion; got {type(cfg.game).__name__}")
    return cfg.game


def _lead_distance(state: Any) -> Array:
    # Vehicle 0 of each side only, as orbitalgym: the game is 1 v 1 by design.
    rel = positions(state.guards)[..., 0, :] - positions(state.bandits)[..., 0, :]
    return jnp.linalg.norm(rel, axis=-1)


@register(RewardFnKey.PURSUIT_EVASION)
@dataclass(frozen=True)
class PursuitEvasionReward:
    """f32[]: ``+d`` for the guard, ``-d`` for the bandit, ``d`` the vehicle-0 distance at
    ``next_state``. Raises ``TypeError`` unless ``cfg.game`` is a `PursuitEvasion`."""

    scope: RewardScope = RewardScope.PER_SIDE

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Side, cfg: Any, t: Array
    ) -> Array:
        """f32[]: ``side``'s reward."""
        del prev_state, actions, t
        _require_game("PursuitEvasionReward", cfg)
        dist = _lead_distance(next_state)
        return -dist if Side(side) is Side.BANDIT else dist


@register(TerminationFnKey.PURSUIT_EVASION)
@dataclass(frozen=True)
class PursuitEvasionTermination:
    """bool[]: ``step >= max_steps`` or capture (``d < cfg.game.capture_distance_m`` at the
    step's end). Raises ``TypeError`` unless ``cfg.game`` is a `PursuitEvasion`."""

    def terminal_events(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: the capture; the step cap left out."""
        del prev_state, t
        game = _require_game("PursuitEvasionTermination", params)
        return _lead_distance(state) < game.capture_distance_m

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: the episode ends on this step."""
        _require_game("PursuitEvasionTermination", params)
        hit_max = state.step >= params.max_steps
        return jnp.logical_or(hit_max, self.terminal_events(prev_state, state, params, t))


def make_pursuit_evasion(
    *,
    capture_distance_m: float = 10.0,
    n_guards: int = 1,
    n_bandits: int = 1,
    dt: float = 10.0,
    max_horizon_s: float = 2000.0,
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
    """A Pursuit-Evasion `ScenarioConfig` (orbitalgym's builder and defaults).

    Both vehicles 100 kg dry, Isp 220 s, 5 N, no MASS; the guard on a 1 km radial ellipse at
    phase 0, the bandit on a 500 m one with 100 m cross-track, 200 m along-track offset, at
    phase pi/2 (10 m spread on each ellipse); 10 s steps over 2000 s.
    """
    return build_scenario(
        PursuitEvasion(capture_distance_m=capture_distance_m),
        guard_ellipse=dict(radial_ellipse_m=1000.0, phase_rad=0.0, sigma_radial_ellipse_m=10.0),
        bandit_ellipse=dict(
            radial_ellipse_m=500.0,
            cross_track_m=100.0,
            along_track_offset_m=200.0,
            phase_rad=math.pi / 2.0,
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
