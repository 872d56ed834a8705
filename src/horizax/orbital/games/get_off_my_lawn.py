"""Get-Off-My-Lawn: the bandit loiters near the lady; the guard intercepts it or pushes it out.

**The standoff metric.** A bounded HCW relative orbit is a 2:1 ellipse in the (radial,
along-track) plane, so the bandit's standoff is measured not as its Euclidean distance but as
the radial half-size of the smallest such orbit through its position,
``R_lady = sqrt(x_r^2 + (x_t / 2)^2 + x_n^2)``: a bandit holding a bounded orbit of size
``R`` in the band earns the loiter bonus all the way round it. Catches stay Euclidean.

Per step, at the state leaving it, with ``d_band = relu(r_min - R) + relu(R - r_max)``
summed over the bandits and ``d_gb`` the least guard-bandit distance::

    bandit = r_loiter [some R in band] - alpha d_band - r_catch [d_gb < catch]
    guard  = -r_loiter [some R in band] + alpha d_band + r_catch [d_gb < catch]
             - alpha_chase d_gb + r_pushout [every R > keep_out]

Observation: each side's `FullObservation` channels. Action: ``Command.dv`` f32[n_side, 3].
Reward: f32[] per side, as above. Termination: a catch (``d_gb < catch_radius_m``; 0 turns it
off) or every bandit pushed out (``R > keep_out_radius_m``), at the step's end. Truncation:
``step >= max_steps`` (300 by default). State: `EnvState`.

    cfg = make_get_off_my_lawn()
    env = OrbitalGymEnv(cfg)
    state, outputs = env.reset(jax.random.PRNGKey(0))
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
    "GetOffMyLawn",
    "GetOffMyLawnReward",
    "GetOffMyLawnTermination",
    "hcw_lady_distance",
    "make_get_off_my_lawn",
]


def hcw_lady_distance(p: Array) -> Array:
    """f32[...]: ``sqrt(x_r^2 + (x_t / 2)^2 + x_n^2)`` of positions ``p`` f32[..., 3] (an RT
    position has ``x_n = 0``, which adds nothing)."""
    x_r, x_t, x_n = p[..., 0], p[..., 1], p[..., 2]
    in_plane_sq = x_r * x_r + (x_t * 0.5) * (x_t * 0.5)
    return jnp.sqrt(in_plane_sq + x_n * x_n)


def _least_guard_bandit_distance(state: Any) -> Array:
    guards, bandits = positions(state.guards), positions(state.bandits)
    diffs = guards[..., :, None, :] - bandits[..., None, :, :]
    return jnp.min(jnp.linalg.norm(diffs, axis=-1), axis=(-2, -1))


def _require_game(owner: str, cfg: Any) -> None:
    # A Python check on the static configuration, made while tracing, before any value.
    if not isinstance(cfg.game, GetOffMyLawn):
        raise TypeError(f"{owner} requires cfg.game: GetOffMyLawn; got {type(cfg.game).__name__}")


@register_game(GameKey.GET_OFF_MY_LAWN)
@dataclass(frozen=True)
class GetOffMyLawn(Game):
    """The bandit wants to loiter near the lady; the guard to intercept or repel it.

    Attributes:
        r_min_keep_m, r_max_keep_m: the bandit's loiter band in ``R_lady`` (m).
        catch_radius_m: the Euclidean guard-bandit distance of an interception (0: off).
        keep_out_radius_m: the ``R_lady`` beyond which a bandit is pushed out
            (``> r_max_keep_m``).
        r_loiter: per-step bonus while some bandit is in the band.
        alpha: per metre of ``d_band``.
        r_catch: the catch payoff (bandit pays, guard earns).
        r_pushout: the guard's bonus while every bandit is pushed out.
        alpha_chase: the guard's cost per metre of ``d_gb`` (0 with ``r_pushout = 0`` for a
            strictly zero-sum reward).

    Raises:
        ValueError: naming the field, for ``r_min_keep_m >= r_max_keep_m``,
            ``keep_out_radius_m <= r_max_keep_m``, a negative ``catch_radius_m`` (as
            orbitalgym) or a negative ``r_min_keep_m`` (horizax's addition).
    """

    r_min_keep_m: float = 100.0
    r_max_keep_m: float = 500.0
    catch_radius_m: float = 50.0
    keep_out_radius_m: float = 1500.0
    r_loiter: float = 1.0
    alpha: float = 1e-3
    r_catch: float = 1000.0
    r_pushout: float = 500.0
    alpha_chase: float = 1e-3

    def __post_init__(self) -> None:
        if not self.r_min_keep_m < self.r_max_keep_m:
            raise ValueError(
                f"GetOffMyLawn.r_min_keep_m ({self.r_min_keep_m}) must be < "
                f"r_max_keep_m ({self.r_max_keep_m})"
            )
        if not self.keep_out_radius_m > self.r_max_keep_m:
            raise ValueError(
                f"GetOffMyLawn.keep_out_radius_m ({self.keep_out_radius_m}) must be strictly "
                f"larger than r_max_keep_m ({self.r_max_keep_m}): the keep-out shell sits "
                "outside the loiter band"
            )
        check_length("GetOffMyLawn", "catch_radius_m", self.catch_radius_m)
        check_length("GetOffMyLawn", "r_min_keep_m", self.r_min_keep_m)

    def default_reward_fn(self) -> GetOffMyLawnReward:
        """`GetOffMyLawnReward` with this game's knobs."""
        return GetOffMyLawnReward(
            r_min_keep_m=self.r_min_keep_m,
            r_max_keep_m=self.r_max_keep_m,
            catch_radius_m=self.catch_radius_m,
            keep_out_radius_m=self.keep_out_radius_m,
            alpha=self.alpha,
            alpha_chase=self.alpha_chase,
            r_loiter=self.r_loiter,
            r_catch=self.r_catch,
            r_pushout=self.r_pushout,
        )

    def default_termination_fn(self) -> GetOffMyLawnTermination:
        """`GetOffMyLawnTermination` with this game's catch and keep-out radii."""
        return GetOffMyLawnTermination(
            catch_radius_m=self.catch_radius_m, keep_out_radius_m=self.keep_out_radius_m
        )


@register(RewardFnKey.GET_OFF_MY_LAWN)
@dataclass(frozen=True)
class GetOffMyLawnReward:
    """f32[] per side (module docstring). Raises ``TypeError`` unless ``cfg.game`` is a
    `GetOffMyLawn`. The fields are the game's knobs of the same names."""

    r_min_keep_m: float = 100.0
    r_max_keep_m: float = 500.0
    catch_radius_m: float = 50.0
    keep_out_radius_m: float = 1500.0
    alpha: float = 1e-3
    alpha_chase: float = 1e-3
    r_loiter: float = 1.0
    r_catch: float = 1000.0
    r_pushout: float = 500.0
    scope: RewardScope = RewardScope.PER_SIDE

    def __call__(
        self, prev_state: Any, actions: Any, next_state: Any, side: Side, cfg: Any, t: Array
    ) -> Array:
        """f32[]: ``side``'s reward."""
        del prev_state, actions, t
        _require_game("GetOffMyLawnReward", cfg)
        d_gb_min = _least_guard_bandit_distance(next_state)
        r_lady = hcw_lady_distance(positions(next_state.bandits))
        dtype = r_lady.dtype

        below = jnp.maximum(self.r_min_keep_m - r_lady, 0.0)
        above = jnp.maximum(r_lady - self.r_max_keep_m, 0.0)
        d_band_sum = jnp.sum(below + above, axis=-1)
        in_band = jnp.logical_and(r_lady >= self.r_min_keep_m, r_lady <= self.r_max_keep_m)
        loiter_event = jnp.max(in_band.astype(dtype), axis=-1)
        catch_event = (d_gb_min < self.catch_radius_m).astype(dtype)
        pushout_event = jnp.min((r_lady > self.keep_out_radius_m).astype(dtype), axis=-1)

        if Side(side) is Side.BANDIT:
            return (
                self.r_loiter * loiter_event - self.alpha * d_band_sum - self.r_catch * catch_event
            )
        return (
            -self.r_loiter * loiter_event
            + self.alpha * d_band_sum
            + self.r_catch * catch_event
            - self.alpha_chase * d_gb_min
            + self.r_pushout * pushout_event
        )


@register(TerminationFnKey.GET_OFF_MY_LAWN)
@dataclass(frozen=True)
class GetOffMyLawnTermination:
    """bool[]: ``step >= max_steps`` or a catch or every bandit pushed out, at the step's
    end. Raises ``TypeError`` unless ``cfg.game`` is a `GetOffMyLawn`.

    Attributes:
        catch_radius_m: Euclidean guard-bandit catch distance (0: no catches).
        keep_out_radius_m: the ``R_lady`` beyond which a bandit is out (match the game's).
    """

    catch_radius_m: float
    keep_out_radius_m: float

    def terminal_events(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: a catch or every bandit pushed out; the step cap left out."""
        del prev_state, t
        _require_game("GetOffMyLawnTermination", params)
        r_lady = hcw_lady_distance(positions(state.bandits))
        all_pushed_out = jnp.all(r_lady > self.keep_out_radius_m, axis=-1)
        if self.catch_radius_m > 0.0:
            caught = _least_guard_bandit_distance(state) < self.catch_radius_m
        else:
            caught = jnp.zeros_like(all_pushed_out)
        return jnp.logical_or(caught, all_pushed_out)

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: the episode ends on this step."""
        _require_game("GetOffMyLawnTermination", params)
        hit_max = state.step >= params.max_steps
        return jnp.logical_or(hit_max, self.terminal_events(prev_state, state, params, t))


def make_get_off_my_lawn(
    *,
    r_min_keep_m: float = 100.0,
    r_max_keep_m: float = 500.0,
    catch_radius_m: float = 50.0,
    keep_out_radius_m: float = 1500.0,
    r_loiter: float = 1.0,
    alpha: float = 1e-3,
    r_catch: float = 1000.0,
    r_pushout: float = 500.0,
    alpha_chase: float = 1e-3,
    n_guards: int = 1,
    n_bandits: int = 1,
    dt: float = 10.0,
    max_horizon_s: float = 3000.0,
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
    """A Get-Off-My-Lawn `ScenarioConfig` (orbitalgym's builder and defaults).

    Both vehicles 100 kg dry, Isp 220 s, 5 N, no MASS; the guard on a 300 m radial ellipse at
    phase 0, the bandit on a 600 m one with 50 m cross-track and a 200 m along-track offset at
    phase pi (20 m spread on each ellipse): inside the keep-out shell but outside the band,
    so both sides must act. 10 s steps over 3000 s.
    """
    game = GetOffMyLawn(
        r_min_keep_m=r_min_keep_m,
        r_max_keep_m=r_max_keep_m,
        catch_radius_m=catch_radius_m,
        keep_out_radius_m=keep_out_radius_m,
        r_loiter=r_loiter,
        alpha=alpha,
        r_catch=r_catch,
        r_pushout=r_pushout,
        alpha_chase=alpha_chase,
    )
    return build_scenario(
        game,
        guard_ellipse=dict(radial_ellipse_m=300.0, phase_rad=0.0, sigma_radial_ellipse_m=20.0),
        bandit_ellipse=dict(
            radial_ellipse_m=600.0,
            cross_track_m=50.0,
            along_track_offset_m=200.0,
            phase_rad=math.pi,
            sigma_radial_ellipse_m=20.0,
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
