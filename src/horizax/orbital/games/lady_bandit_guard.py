"""Lady-Bandit-Guard: guards defend the lady, a virtual point at the RTN origin.

The bandits try to pass within ``breach_radius_m`` of the lady; the guards try to pass within
``catch_radius_m`` of a bandit first, or to repel every bandit (drive it beyond
``escape_radius_m``, or strand it with an empty tank on a coast that cannot reach the lady).
Either event may need *dwell*, the radius held for that many consecutive steps.

`LadyBanditGuard` is the knob bundle stored as ``cfg.game``; its default reward is
`LbgZeroSumReward` and its default termination `LbgEventTermination`, both built from the
same knobs. `make_lady_bandit_guard` builds orbitalgym's reference scenario.

Observation: each side's `FullObservation` channels (noiseless RTN states of every vehicle).
Action: ``Command.dv`` f32[n_side, 3], an impulsive velocity change (m/s) per vehicle.
Reward: f32[] per side, `LbgZeroSumReward`. Termination: breach, catch or repel
(`LbgEventTermination.terminal_events`). Truncation: ``step >= max_steps`` (200 by default).
State: `EnvState` with ``dwell_catch`` / ``dwell_breach`` i32[n_bandits] advanced here.

    cfg = make_lady_bandit_guard(seed=0, max_horizon_s=200.0)
    env = OrbitalGymEnv(cfg)
    state, outputs = env.reset(jax.random.PRNGKey(0))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from horizax.orbital.games.base import Game
from horizax.orbital.games.proximity import check_dwell_steps, check_length, lbg_dwell_step
from horizax.orbital.registry import DynamicsKey, GameKey, StateComponentKey, register_game
from horizax.orbital.rewards.lbg_zero_sum import LbgZeroSumReward
from horizax.orbital.termination.lbg_events import LbgEventTermination

__all__ = ["LadyBanditGuard", "make_lady_bandit_guard"]

# Every knob, in orbitalgym's order; the reward takes them all, the termination the events'.
_KNOBS = (
    "breach_radius_m",
    "catch_radius_m",
    "breach_speed_mps",
    "catch_speed_mps",
    "catch_dwell_steps",
    "breach_dwell_steps",
    "escape_radius_m",
    "repel_on_empty_tank",
    "dv_cost",
    "shaping_scale_m",
    "shaping_gain",
    "shaping_discount",
    "home_weight",
    "guard_separation_m",
    "lady_keepout_m",
    "separation_cost",
)
_TERMINATION_KNOBS = _KNOBS[:8]
# with_communication=True replaces the reward with LbgWithCommsReward, which reads none of
# these knobs, so each must stay at its default (orbitalgym's rule, and its list: all of them).
_COMMS_UNSUPPORTED_DEFAULTS: dict[str, Any] = {
    "breach_radius_m": 5.0,
    "catch_radius_m": 50.0,
    "breach_speed_mps": float("inf"),
    "catch_speed_mps": float("inf"),
    "catch_dwell_steps": 0,
    "breach_dwell_steps": 0,
    "escape_radius_m": 0.0,
    "repel_on_empty_tank": False,
    "dv_cost": 0.0,
    "shaping_scale_m": 300.0,
    "shaping_gain": 50.0,
    "shaping_discount": 1.0,
    "home_weight": 0.0,
    "guard_separation_m": 20.0,
    "lady_keepout_m": 20.0,
    "separation_cost": 10.0,
}
_LENGTHS = ("breach_radius_m", "catch_radius_m", "escape_radius_m")
_HINGE_LENGTHS = ("guard_separation_m", "lady_keepout_m")


@register_game(GameKey.LADY_BANDIT_GUARD)
@dataclass(frozen=True)
class LadyBanditGuard(Game):
    """The guards protect the lady (RTN origin) from the bandits.

    Attributes:
        breach_radius_m: a bandit strictly inside it of the lady has breached (bandit win).
        catch_radius_m: a guard strictly inside it of a bandit has caught it (guard win);
            0 turns catches off.
        breach_speed_mps, catch_speed_mps: a pass counts only strictly slower than this
            (relative chord speed over the step); inf gates on the radius alone.
        catch_dwell_steps, breach_dwell_steps: consecutive steps inside before the event
            fires (for a catch, inside some guard's radius, not necessarily the same one);
            0 fires on the first step inside.
        escape_radius_m: a bandit strictly beyond it is repelled; 0 turns the gate off.
        repel_on_empty_tank: a bandit with an empty tank whose coast cannot breach before
            the step cap is repelled (needs HCW-RTN truth dynamics and a bandit MASS).
        dv_cost: reward per m/s of delta-v, paid by each side for its own propellant.
        shaping_scale_m: the distance that makes a potential one (> 0).
        shaping_gain: the shaping's weight (0: payoffs and costs only).
        shaping_discount: gamma inside the potential difference.
        home_weight: weight of the guard-lady distance in the guard's potential.
        guard_separation_m, lady_keepout_m: guard-guard and guard-lady distances below which
            the guard side pays the crowding hinge.
        separation_cost: the hinge's depth.

    The guards win by repulsion only once *every* bandit is repelled.
    """

    breach_radius_m: float = 5.0
    catch_radius_m: float = 50.0
    breach_speed_mps: float = float("inf")
    catch_speed_mps: float = float("inf")
    catch_dwell_steps: int = 0
    breach_dwell_steps: int = 0
    escape_radius_m: float = 0.0
    repel_on_empty_tank: bool = False
    dv_cost: float = 0.0
    shaping_scale_m: float = 300.0
    shaping_gain: float = 50.0
    shaping_discount: float = 1.0
    home_weight: float = 0.0
    guard_separation_m: float = 20.0
    lady_keepout_m: float = 20.0
    separation_cost: float = 10.0

    def advance_state(self, prev_state: Any, next_state: Any, cfg: Any) -> Any:
        """``next_state`` with the dwell counters advanced over the step, with the game's
        radii and gates, whatever the dwell knobs are (so the counters describe the
        engagement even when the events do not read them)."""
        dwell_catch, dwell_breach = lbg_dwell_step(
            prev_state,
            next_state,
            cfg.dt,
            self.catch_radius_m,
            self.catch_speed_mps,
            self.breach_radius_m,
            self.breach_speed_mps,
        )
        return next_state.replace(dwell_catch=dwell_catch, dwell_breach=dwell_breach)

    def validate(self, cfg: Any) -> None:
        """Raises ``ValueError`` naming the knob for what orbitalgym rejects (dwell counts
        that are not whole numbers >= 0, ``shaping_scale_m <= 0``, the empty-tank repel
        without HCW-RTN dynamics or a bandit MASS component) and for a negative radius."""
        for name in ("catch_dwell_steps", "breach_dwell_steps"):
            check_dwell_steps("LadyBanditGuard", name, getattr(self, name))
        if not self.shaping_scale_m > 0.0:
            raise ValueError(
                "LadyBanditGuard.shaping_scale_m divides every distance in the potentials, "
                f"so it must be a positive length in metres; got {self.shaping_scale_m!r}. "
                "Set shaping_gain=0.0 to turn the shaping off instead."
            )
        for name in _LENGTHS + _HINGE_LENGTHS:
            check_length("LadyBanditGuard", name, getattr(self, name))
        if not self.repel_on_empty_tank:
            return
        if cfg.truth_dynamics != DynamicsKey.HCW_RTN:
            raise ValueError(
                "LadyBanditGuard.repel_on_empty_tank coasts the bandits under the HCW-RTN "
                "transition matrix, so truth_dynamics must be "
                f"{DynamicsKey.HCW_RTN.value!r}; got {cfg.truth_dynamics!r}"
            )
        missing = [
            key.value
            for key in (StateComponentKey.RTN, StateComponentKey.MASS)
            if key not in cfg.bandit_components
        ]
        if missing:
            raise ValueError(
                "LadyBanditGuard.repel_on_empty_tank reads the bandits' propellant and coasts "
                f"their RTN state, so bandit_components must include {', '.join(missing)}; "
                f"got {tuple(k.value for k in cfg.bandit_components)}"
            )

    def default_reward_fn(self) -> LbgZeroSumReward:
        """`LbgZeroSumReward` with every knob of this game."""
        return LbgZeroSumReward(**{name: getattr(self, name) for name in _KNOBS})

    def default_termination_fn(self) -> LbgEventTermination:
        """`LbgEventTermination` with this game's event knobs."""
        return LbgEventTermination(**{name: getattr(self, name) for name in _TERMINATION_KNOBS})


def make_lady_bandit_guard(
    *,
    breach_radius_m: float = 5.0,
    catch_radius_m: float = 50.0,
    breach_speed_mps: float = float("inf"),
    catch_speed_mps: float = float("inf"),
    catch_dwell_steps: int = 0,
    breach_dwell_steps: int = 0,
    escape_radius_m: float = 0.0,
    repel_on_empty_tank: bool = False,
    dv_cost: float = 0.0,
    shaping_scale_m: float = 300.0,
    shaping_gain: float = 50.0,
    shaping_discount: float = 1.0,
    home_weight: float = 0.0,
    guard_separation_m: float = 20.0,
    lady_keepout_m: float = 20.0,
    separation_cost: float = 10.0,
    n_guards: int = 1,
    n_bandits: int = 1,
    dt: float = 10.0,
    max_horizon_s: float = 2000.0,
    seed: int = 0,
    epoch_mjd_utc: float = 60067.0,
    reference_orbit: Any = None,
    guard_components: tuple[StateComponentKey, ...] = (
        StateComponentKey.RTN,
        StateComponentKey.MASS,
    ),
    bandit_components: tuple[StateComponentKey, ...] = (StateComponentKey.RTN,),
    guard_params: Any = None,
    bandit_params: Any = None,
    ic_sampler: Any = None,
    truth_dynamics: DynamicsKey = DynamicsKey.HCW_RTN,
    policy_dynamics: DynamicsKey = DynamicsKey.HCW_RTN,
    guard_observation_fn: Any = None,
    bandit_observation_fn: Any = None,
    guard_ground_station_network: Any = None,
    bandit_ground_station_network: Any = None,
    with_communication: bool = False,
    comm_cost: float = 5.0,
    **config_kwargs: Any,
) -> Any:
    """A Lady-Bandit-Guard `ScenarioConfig` (orbitalgym's builder and defaults).

    One guard (RTN + MASS, 100 kg dry, Isp 220 s, 5 N, 10 kg propellant) and one bandit (RTN,
    50 kg, 200 s, 2 N) on 1 km radial ellipses about a 7000 km reference orbit, guard at
    phase 0 and bandit at phase pi (each with a 10 m spread of the ellipse), 10 s steps over
    2000 s. The game knobs are `LadyBanditGuard`'s; the reward and termination come from its
    defaults. Other keyword arguments go to `ScenarioConfig`.

    ``with_communication=True`` is orbitalgym's decentralized-communication variant: the
    guards get the COMMUNICATE action component (``guard_action_components =
    (IMPULSIVE_MANEUVER, COMMUNICATE)``: their command adds ``active`` bool[n_guards] and
    ``payload`` f32[n_guards, 6]) and the reward is ``LbgWithCommsReward(comm_cost)``: each
    step the guard side earns minus the summed guard distances from the lady (the RTN
    origin) minus ``comm_cost`` per guard with ``active`` True; the bandit side earns 0. The
    termination stays `LbgEventTermination` (breach, catch). Broadcasting changes no state;
    the bandits overhear it only with ``bandit_observation_fn=CommsLeakObservation()``
    (`horizax.orbital.observations.comms_leak`), as in orbitalgym, where the caller wires it.

    The ground-station networks are not in horizax: a network other than None is handed to
    `ScenarioConfig`, which rejects it.

    Raises:
        TypeError: if ``with_communication`` is not a bool.
        ValueError: with ``with_communication=True``, naming the first game knob that is not
            at its default (the communication reward reads none of them, so a tuned knob
            would silently not reach it), or ``reward_fn`` / ``guard_action_components``
            passed as well (the variant sets both); for a ``comm_cost`` that is not a finite
            number >= 0; and `ScenarioConfig`'s own errors.
    """
    import jax.numpy as jnp

    from horizax.orbital.config import ScenarioConfig, VehicleParamsSpec
    from horizax.orbital.reference_orbit import ReferenceOrbitState
    from horizax.orbital.registry import ActionComponentKey
    from horizax.orbital.rewards.lbg_with_comms import LbgWithCommsReward
    from horizax.orbital.sampling.mass import ConstantMass
    from horizax.orbital.sampling.side import RelativeEllipse
    from horizax.orbital.sampling.spec import ICSpec

    if not isinstance(with_communication, bool | np.bool_):
        raise TypeError(f"with_communication must be a bool, got {with_communication!r}")
    knobs = {
        "breach_radius_m": breach_radius_m,
        "catch_radius_m": catch_radius_m,
        "breach_speed_mps": breach_speed_mps,
        "catch_speed_mps": catch_speed_mps,
        "catch_dwell_steps": catch_dwell_steps,
        "breach_dwell_steps": breach_dwell_steps,
        "escape_radius_m": escape_radius_m,
        "repel_on_empty_tank": repel_on_empty_tank,
        "dv_cost": dv_cost,
        "shaping_scale_m": shaping_scale_m,
        "shaping_gain": shaping_gain,
        "shaping_discount": shaping_discount,
        "home_weight": home_weight,
        "guard_separation_m": guard_separation_m,
        "lady_keepout_m": lady_keepout_m,
        "separation_cost": separation_cost,
    }
    if with_communication:
        for name, default in _COMMS_UNSUPPORTED_DEFAULTS.items():
            if knobs[name] != default:
                raise ValueError(
                    f"with_communication=True installs LbgWithCommsReward (distance to the "
                    f"reference orbit plus a per-broadcast charge), which reads no LBG event "
                    f"geometry or shaping, so {name}={knobs[name]!r} would not reach the "
                    f"reward: leave {name} at its default {default!r}, or build with "
                    "with_communication=False and pass reward_fn yourself"
                )
        for name in ("reward_fn", "guard_action_components"):
            if name in config_kwargs:
                raise ValueError(
                    f"with_communication=True sets {name} itself; do not pass {name} with it"
                )
        config_kwargs["guard_action_components"] = (
            ActionComponentKey.IMPULSIVE_MANEUVER,
            ActionComponentKey.COMMUNICATE,
        )
        config_kwargs["reward_fn"] = LbgWithCommsReward(comm_cost=comm_cost)
    if reference_orbit is None:
        reference_orbit = ReferenceOrbitState(
            position_eci=jnp.array([7000e3, 0.0, 0.0]),
            velocity_eci=jnp.array([0.0, 7.5e3, 0.0]),
        )
    if guard_params is None:
        guard_params = VehicleParamsSpec(dry_mass_kg=100.0, isp_s=220.0, max_thrust_n=5.0)
    if bandit_params is None:
        bandit_params = VehicleParamsSpec(dry_mass_kg=50.0, isp_s=200.0, max_thrust_n=2.0)
    if ic_sampler is None:
        ic_sampler = ICSpec(
            guard_sampler=RelativeEllipse(
                radial_ellipse_m=1000.0,
                cross_track_m=0.0,
                along_track_offset_m=0.0,
                phase_rad=0.0,
                sigma_radial_ellipse_m=10.0,
                mass_sampler=ConstantMass(propellant_mass_kg=10.0),
            ),
            bandit_sampler=RelativeEllipse(
                radial_ellipse_m=1000.0,
                cross_track_m=0.0,
                along_track_offset_m=0.0,
                phase_rad=math.pi,
                sigma_radial_ellipse_m=10.0,
            ),
            validators=(),
            max_attempts=100,
        )
    networks = {
        "guard_ground_station_network": guard_ground_station_network,
        "bandit_ground_station_network": bandit_ground_station_network,
    }
    config_kwargs.update({name: value for name, value in networks.items() if value is not None})
    game = LadyBanditGuard(**knobs)
    return ScenarioConfig(
        n_guards=n_guards,
        n_bandits=n_bandits,
        epoch_mjd_utc=epoch_mjd_utc,
        reference_orbit=reference_orbit,
        guard_components=guard_components,
        bandit_components=bandit_components,
        guard_params=guard_params,
        bandit_params=bandit_params,
        ic_sampler=ic_sampler,
        dt=dt,
        max_horizon_s=max_horizon_s,
        seed=seed,
        truth_dynamics=truth_dynamics,
        policy_dynamics=policy_dynamics,
        guard_observation_fn=guard_observation_fn,
        bandit_observation_fn=bandit_observation_fn,
        game=game,
        **config_kwargs,
    )
