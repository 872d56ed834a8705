"""Generate golden trajectories of the orbital guard/bandit games from orbitalgym 0.1.0.

horizax re-implements orbitalgym's games; its tests replay the trajectories written here and
compare states, rewards and termination flags without needing orbitalgym installed. This
script calls only orbitalgym's public API (builders, ``OrbitalGymEnv``, its heuristic
policies, its termination helpers) and records what ``env.step`` returns.

Rerun from the repository root with the interpreter that has orbitalgym (Python 3.12)::

    /work/venv-orbital/bin/python tests/orbital/reference/make_goldens.py

``--only NAME`` limits the run to some cases and ``--dry-run`` prints the event counts without
writing anything (both meant for tuning). The output is deterministic for fixed versions of
orbitalgym, jax and numpy.

Cases (all with ``B = 64`` scenarios of ``T = 200`` steps, float32, JAX on CPU):

* ``nogame``: a direct ``ScenarioConfig`` with ``game=None`` (NoGame, MaxStepsOnly) and a
  100-step cap, so the cap fires inside the 200 recorded steps.
* ``lbg_default``: ``make_lady_bandit_guard(seed=0)``.
* ``lbg_events``: Lady-Bandit-Guard, 2 guards against 2 mass-tracked bandits with speed gates,
  dwell, an escape radius and repel-on-empty-tank, tuned so that catch, breach and repel all
  end several scenarios.
* ``pursuit_evasion``: ``make_game(GameKey.PURSUIT_EVASION)``.
* ``get_off_my_lawn``: ``make_game(GameKey.GET_OFF_MY_LAWN)``.

Scenario ``i`` is reset with ``env.reset(jax.random.PRNGKey(1000 + i))`` and stepped with
``env.step(jax.random.PRNGKey(0), state, actions)`` for ``t = 0 .. T-1``, without stopping at
``episode_done`` (orbitalgym's step never stops; the latching lives in its rollouts).
Scenarios 0-31 take random actions: ``rng = np.random.default_rng(case_index)`` draws, for the
whole ``(T, B)`` grid, a guard direction (``standard_normal``, normalised), a guard magnitude
(``uniform(0, 2 * cap_g)``), then the same two draws for the bandit, where ``cap`` is
``max_thrust_n * dt / dry_mass_kg`` of that side, so orbitalgym's thrust clip is exercised.
Scenarios 32-63 are scripted: orbitalgym's heuristic policies run in closed loop on the
flattened observations, exactly as its ``rollout`` feeds them (step ``t`` sees the observation
step ``t-1`` returned, and ``state.t``), and the commands they issue are recorded. Every
heuristic runs at its side's dry-mass cap unless noted. Guard / bandit sources:

=================  =============================  =========================================
case               scenarios 32-47                scenarios 48-63
=================  =============================  =========================================
nogame             random / GlideslopeToLady      zero / GlideslopeToLady
lbg_default        random / GlideslopeToLady      GlideslopeToLady (defends) / same
lbg_events         random / GlideslopeToLady      zero / GlideslopeToLady
pursuit_evasion    OrthogonalEvader (half cap) /  OrthogonalEvader (half cap) /
                   LeadInterceptPursuer           GlideslopeIntercept
get_off_my_lawn    random / PhasedBandit          GlideslopeIntercept / PhasedBandit
=================  =============================  =========================================

``cases.json`` gives each policy's constructor call with every parameter.

Files in ``goldens/``: one ``<case>.npz`` per case (``np.savez_compressed``) and
``cases.json``. Array names and shapes (float arrays float32, counters int32, flags bool;
``n_g``/``n_b`` vehicles per side, ``D_g``/``D_b`` flattened observation sizes; the ``prop``
arrays exist only for a side with the MASS component):

* ``reset_keys`` uint32 ``[B, 2]``: the raw keys passed to ``env.reset``.
* ``init_guard_rtn`` ``[B, n_g, 6]``, ``init_bandit_rtn`` ``[B, n_b, 6]``,
  ``init_guard_prop`` ``[B, n_g]``, ``init_bandit_prop`` ``[B, n_b]``, ``init_ic_valid``
  bool ``[B]``: the reset state.
* ``init_obs_guard`` ``[B, D_g]``, ``init_obs_bandit`` ``[B, D_b]``: the reset observations,
  flattened with ``orbitalgym.observations.types.flatten_observations``.
* ``actions_guard`` ``[T, B, n_g, 3]``, ``actions_bandit`` ``[T, B, n_b, 3]``: the ``dv`` fed
  to ``env.step`` at step ``t`` (before orbitalgym clips it).
* Per step ``t``, the state leaving step ``t``: ``guard_rtn`` ``[T, B, n_g, 6]``,
  ``bandit_rtn`` ``[T, B, n_b, 6]``, ``guard_prop`` / ``bandit_prop`` ``[T, B, n]``,
  ``dwell_catch`` / ``dwell_breach`` int32 ``[T, B, n_b]``, ``t`` ``[T, B]``, ``step`` int32
  ``[T, B]``; and the step's outputs ``reward_guard`` / ``reward_bandit`` ``[T, B]``,
  ``episode_done`` bool ``[T, B]`` (raw, not latched), ``applied_dv_guard`` /
  ``applied_dv_bandit`` ``[T, B, n, 3]`` (``info["applied_dv"]``, after clipping).
* ``obs_guard_last`` ``[B, D_g]``, ``obs_bandit_last`` ``[B, D_b]``: flattened observations
  returned by the last step.
* ``mask`` bool ``[T, B]``: ``orbitalgym.rollout.episode_mask`` of ``episode_done`` (which
  reduces over the last axis, so it is applied to the ``[B, T]`` transpose): True up to and
  including the first terminating step.
* ``reference_orbit_last`` ``[B, 6]``: ECI position and velocity of ``state.reference_orbit``
  after the last step.
* Lady-Bandit-Guard cases only, per step ``[T, B]`` bool: ``lbg_caught``, ``lbg_breached``,
  ``lbg_repelled``, ``lbg_step_cap``: the terms whose OR is ``episode_done``, re-evaluated on
  the same pre-/post-step states with orbitalgym's ``lbg_events_with_dwell`` and
  ``lbg_repelled`` (the functions ``LbgEventTermination`` itself calls).

``cases.json`` maps each case name to how it was built (builder and keyword arguments),
fleet sizes, ``dt``, ``max_steps``, components, the game knobs, the termination and reward
(class and fields), vehicle parameters, the IC sampler, the policies, the counts of how
scenarios ended within ``T``, and the versions used. Non-finite floats are written as
``Infinity`` (which Python's ``json`` reads back as ``float("inf")``).
"""

from __future__ import annotations

import os

# orbitalgym pins the CPU backend the same way, but only if it is imported before jax.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse
import dataclasses
import enum
import importlib.metadata
import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from orbitalgym import (
    Actions,
    BySide,
    GameKey,
    OrbitalGymEnv,
    ReferenceOrbitState,
    ScenarioConfig,
    VehicleParamsSpec,
    make_game,
    make_lady_bandit_guard,
)
from orbitalgym.games.get_off_my_lawn import GetOffMyLawnTermination
from orbitalgym.games.proximity import lbg_events_with_dwell, lbg_repelled
from orbitalgym.observations.types import flatten_observations
from orbitalgym.policies.heuristic import (
    GlideslopeIntercept,
    GlideslopeToLady,
    LeadInterceptPursuer,
    OrthogonalEvader,
    PhasedBandit,
)
from orbitalgym.policies.zero import ZeroControl
from orbitalgym.registry import StateComponentKey
from orbitalgym.rollout import episode_mask
from orbitalgym.sampling.mass import ConstantMass, UniformMass
from orbitalgym.sampling.side import RelativeEllipse
from orbitalgym.sampling.spec import ICSpec

B = 64
T = 200
N_RANDOM = 32  # scenarios 0..31 random; 32..63 scripted
RESET_KEY_BASE = 1000
GOLDENS_DIR = Path(__file__).resolve().parent / "goldens"

# Per-side action source inside one scenario: a random draw, the zero command, or the k-th
# scripted policy of that side (source SCRIPTED + k).
RANDOM, ZERO, SCRIPTED = 0, 1, 2


# --------------------------------------------------------------------------------------------
# Case definitions
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Scripted:
    """One orbitalgym heuristic policy driving a side in some scenarios.

    Attributes:
        label: Short name used in ``cases.json``'s scenario ranges.
        text: The constructor call, as text.
        policy: The policy object, ``(policy_state, agent_view, key, t) -> (command, state)``.
    """

    label: str
    text: str
    policy: Any


@dataclasses.dataclass(frozen=True)
class Case:
    """One golden case: how to build its config and which policies script it.

    Attributes:
        name: File stem of the case's ``.npz`` and its key in ``cases.json``.
        builder: Text of the orbitalgym call that builds the config.
        build: Returns the ``ScenarioConfig``.
        policies: Given the env, returns ``(guard_policies, bandit_policies)``, the scripted
            policies each side's sources index (source ``SCRIPTED + k`` is entry ``k``).
        guard_sources: Per-scenario action source of the guard side, ``(B,)``.
        bandit_sources: Per-scenario action source of the bandit side, ``(B,)``.
        lbg: Whether the game is Lady-Bandit-Guard (event flags are recorded).
    """

    name: str
    builder: str
    build: Callable[[], ScenarioConfig]
    policies: Callable[[OrbitalGymEnv], tuple[tuple[Scripted, ...], tuple[Scripted, ...]]]
    guard_sources: tuple[int, ...]
    bandit_sources: tuple[int, ...]
    lbg: bool = False


def _sources(first: int, second: int, third: int) -> tuple[int, ...]:
    """Sources of scenarios 0-31, 32-47 and 48-63."""
    return (first,) * N_RANDOM + (second,) * 16 + (third,) * 16


_REFERENCE_ORBIT_TEXT = (
    "ReferenceOrbitState(position_eci=[7000e3, 0, 0], velocity_eci=[0, 7.5e3, 0])"
)


def _dv_cap(params: VehicleParamsSpec, dt: float) -> float:
    """Per-step Δv bound of a side at its dry mass, ``max_thrust_n * dt / dry_mass_kg``."""
    return float(params.max_thrust_n) * float(dt) / float(params.dry_mass_kg)


def _build_nogame() -> ScenarioConfig:
    """The NoGame scenario: LBG vehicles and samplers, a 100-step cap, default termination."""
    return ScenarioConfig(
        n_guards=1,
        n_bandits=1,
        epoch_mjd_utc=60067.0,
        reference_orbit=ReferenceOrbitState(
            position_eci=jnp.array([7000e3, 0.0, 0.0]),
            velocity_eci=jnp.array([0.0, 7.5e3, 0.0]),
        ),
        guard_components=(StateComponentKey.RTN, StateComponentKey.MASS),
        bandit_components=(StateComponentKey.RTN,),
        guard_params=VehicleParamsSpec(dry_mass_kg=100.0, isp_s=220.0, max_thrust_n=5.0),
        bandit_params=VehicleParamsSpec(dry_mass_kg=50.0, isp_s=200.0, max_thrust_n=2.0),
        ic_sampler=ICSpec(
            guard_sampler=RelativeEllipse(
                radial_ellipse_m=1000.0,
                phase_rad=0.0,
                sigma_radial_ellipse_m=10.0,
                mass_sampler=ConstantMass(propellant_mass_kg=10.0),
            ),
            # Unlike the LBG builder, a random phase and a noisy cross-track and along-track
            # offset, so every branch of RelativeEllipse is exercised.
            bandit_sampler=RelativeEllipse(
                radial_ellipse_m=1000.0,
                cross_track_m=100.0,
                along_track_offset_m=0.0,
                phase_rad=None,
                sigma_radial_ellipse_m=10.0,
                sigma_cross_track_m=10.0,
                sigma_along_track_offset_m=20.0,
            ),
            validators=(),
            max_attempts=100,
        ),
        dt=10.0,
        max_horizon_s=1000.0,
        seed=0,
        game=None,
    )


_NOGAME_TEXT = (
    "orbitalgym.ScenarioConfig(n_guards=1, n_bandits=1, epoch_mjd_utc=60067.0, "
    f"reference_orbit={_REFERENCE_ORBIT_TEXT}, "
    "guard_components=(RTN, MASS), bandit_components=(RTN,), "
    "guard_params=VehicleParamsSpec(dry_mass_kg=100.0, isp_s=220.0, max_thrust_n=5.0), "
    "bandit_params=VehicleParamsSpec(dry_mass_kg=50.0, isp_s=200.0, max_thrust_n=2.0), "
    "ic_sampler=ICSpec(guard_sampler=RelativeEllipse(radial_ellipse_m=1000.0, phase_rad=0.0, "
    "sigma_radial_ellipse_m=10.0, mass_sampler=ConstantMass(propellant_mass_kg=10.0)), "
    "bandit_sampler=RelativeEllipse(radial_ellipse_m=1000.0, cross_track_m=100.0, "
    "along_track_offset_m=0.0, phase_rad=None, sigma_radial_ellipse_m=10.0, "
    "sigma_cross_track_m=10.0, sigma_along_track_offset_m=20.0), validators=(), "
    "max_attempts=100), dt=10.0, max_horizon_s=1000.0, seed=0, game=None)"
)

# Tuned so that, over the 64 scenarios, catch, breach and repel each end several episodes:
# the guards ride small ellipses around the lady, the bandits start 1 km out with so little
# propellant that the random ones burn their tanks and drift out of the escape radius (repel)
# while the gliding ones either reach the lady (breach) or pass a guard slowly enough to be
# held (catch).
_LBG_EVENTS_KWARGS: dict[str, Any] = {
    "breach_radius_m": 60.0,
    "catch_radius_m": 150.0,
    "breach_speed_mps": 15.0,
    "catch_speed_mps": 20.0,
    "catch_dwell_steps": 2,
    "breach_dwell_steps": 1,
    "escape_radius_m": 2500.0,
    "repel_on_empty_tank": True,
    "n_guards": 2,
    "n_bandits": 2,
    "max_horizon_s": 1500.0,
    "seed": 0,
    "bandit_components": (StateComponentKey.RTN, StateComponentKey.MASS),
}
_LBG_EVENTS_GUARD_SAMPLER = RelativeEllipse(
    radial_ellipse_m=200.0,
    phase_rad=None,
    sigma_radial_ellipse_m=20.0,
    mass_sampler=ConstantMass(propellant_mass_kg=10.0),
)
_LBG_EVENTS_BANDIT_SAMPLER = RelativeEllipse(
    radial_ellipse_m=1000.0,
    phase_rad=None,
    sigma_radial_ellipse_m=50.0,
    mass_sampler=UniformMass(low_kg=0.05, high_kg=0.6),
)


def _build_lbg_events() -> ScenarioConfig:
    """LBG with every event knob on; see ``_LBG_EVENTS_KWARGS`` and the two samplers."""
    return make_lady_bandit_guard(
        **_LBG_EVENTS_KWARGS,
        ic_sampler=ICSpec(
            guard_sampler=_LBG_EVENTS_GUARD_SAMPLER,
            bandit_sampler=_LBG_EVENTS_BANDIT_SAMPLER,
            validators=(),
            max_attempts=100,
        ),
    )


def _lbg_events_text() -> str:
    kwargs = ", ".join(
        f"{k}={v!r}" if k != "bandit_components" else f"{k}=(RTN, MASS)"
        for k, v in _LBG_EVENTS_KWARGS.items()
    )
    return (
        f"orbitalgym.make_lady_bandit_guard({kwargs}, "
        f"ic_sampler=ICSpec(guard_sampler={_LBG_EVENTS_GUARD_SAMPLER!r}, "
        f"bandit_sampler={_LBG_EVENTS_BANDIT_SAMPLER!r}, validators=(), max_attempts=100))"
    )


def _fields_text(obj: Any) -> str:
    """The constructor arguments of a heuristic policy, without its command class."""
    parts = [
        f"{f.name}={getattr(obj, f.name)!r}"
        for f in dataclasses.fields(obj)
        if f.name != "command_cls" and not dataclasses.is_dataclass(getattr(obj, f.name))
    ]
    return ", ".join(parts)


def _side_kwargs(env: OrbitalGymEnv, side: str) -> dict[str, Any]:
    """The glideslope builders' fleet arguments for one side, at its dry-mass Δv cap."""
    cfg = env.config
    own, opp = ("guards", "bandits") if side == "guard" else ("bandits", "guards")
    return {
        "mean_motion": env.mean_motion,
        "dt": float(cfg.dt),
        "n_vehicles": getattr(cfg, f"n_{own}"),
        "n_opponents": getattr(cfg, f"n_{opp}"),
        "state_dim": 6,
        "max_dv_mps": _dv_cap(getattr(cfg, f"{side}_params"), cfg.dt),
    }


def _glideslope_to_lady(env: OrbitalGymEnv, side: str) -> Scripted:
    """The side glides onto the lady at the RTN origin (a bandit attacks, a guard defends)."""
    kwargs = _side_kwargs(env, side)
    policy = GlideslopeToLady.build(command_cls=getattr(env, f"{side}_command_cls"), **kwargs)
    text = (
        "orbitalgym.policies.heuristic.GlideslopeToLady.build(command_cls="
        f"env.{side}_command_cls, {_kwargs_text(kwargs)}); resulting fields: "
        f"{_fields_text(policy)}"
    )
    return Scripted("GlideslopeToLady", text, policy)


def _glideslope_intercept(env: OrbitalGymEnv, side: str) -> Scripted:
    """The side glides onto its nearest opponent, matching its velocity as the range closes."""
    kwargs = _side_kwargs(env, side)
    policy = GlideslopeIntercept.build(command_cls=getattr(env, f"{side}_command_cls"), **kwargs)
    text = (
        "orbitalgym.policies.heuristic.GlideslopeIntercept.build(command_cls="
        f"env.{side}_command_cls, {_kwargs_text(kwargs)}); resulting fields: "
        f"{_fields_text(policy)}"
    )
    return Scripted("GlideslopeIntercept", text, policy)


def _lbg_like_policies(
    env: OrbitalGymEnv,
) -> tuple[tuple[Scripted, ...], tuple[Scripted, ...]]:
    """Both sides glide onto the lady: the bandit to breach, the guard to defend it.

    The guard's policy is used only where the case's guard sources say so.
    """
    return (_glideslope_to_lady(env, "guard"),), (_glideslope_to_lady(env, "bandit"),)


def _pursuit_evasion_policies(
    env: OrbitalGymEnv,
) -> tuple[tuple[Scripted, ...], tuple[Scripted, ...]]:
    """Guard evades orthogonally; the bandit pursues by lead intercept or by glideslope."""
    cfg = env.config
    pursuer_kwargs = {
        "max_dv_mps": _dv_cap(cfg.bandit_params, cfg.dt),
        "dt": float(cfg.dt),
        "n_vehicles": cfg.n_bandits,
    }
    evader_kwargs = {"max_dv_mps": 0.5 * _dv_cap(cfg.guard_params, cfg.dt), "n_vehicles": 1}
    pursuer = LeadInterceptPursuer(command_cls=env.bandit_command_cls, **pursuer_kwargs)
    evader = OrthogonalEvader(command_cls=env.guard_command_cls, **evader_kwargs)
    guard = Scripted(
        "OrthogonalEvader",
        "orbitalgym.policies.heuristic.OrthogonalEvader(command_cls=env.guard_command_cls, "
        f"{_kwargs_text(evader_kwargs)})",
        evader,
    )
    lead = Scripted(
        "LeadInterceptPursuer",
        "orbitalgym.policies.heuristic.LeadInterceptPursuer(command_cls="
        f"env.bandit_command_cls, {_kwargs_text(pursuer_kwargs)})",
        pursuer,
    )
    return (guard,), (lead, _glideslope_intercept(env, "bandit"))


def _get_off_my_lawn_policies(
    env: OrbitalGymEnv,
) -> tuple[tuple[Scripted, ...], tuple[Scripted, ...]]:
    """Bandit: PhasedBandit onto a loiter ring, then commit. Guard: GlideslopeIntercept."""
    kwargs = {
        **_side_kwargs(env, "bandit"),
        "t_coast_s": 100.0,
        "standoff_m": 300.0,
        "t_hold_s": 600.0,
    }
    policy = PhasedBandit.build(command_cls=env.bandit_command_cls, **kwargs)
    text = (
        "orbitalgym.policies.heuristic.PhasedBandit.build(command_cls=env.bandit_command_cls, "
        f"{_kwargs_text(kwargs)}); resulting fields: {_fields_text(policy)}, "
        f"commit=GlideslopeToLady({_fields_text(policy.commit)}); policy state from "
        "PhasedBandit.init_state()"
    )
    bandit = Scripted("PhasedBandit", text, policy)
    return (_glideslope_intercept(env, "guard"),), (bandit,)


CASES: tuple[Case, ...] = (
    Case(
        name="nogame",
        builder=_NOGAME_TEXT,
        build=_build_nogame,
        policies=_lbg_like_policies,
        guard_sources=_sources(RANDOM, RANDOM, ZERO),
        bandit_sources=_sources(RANDOM, SCRIPTED, SCRIPTED),
    ),
    Case(
        name="lbg_default",
        builder="orbitalgym.make_lady_bandit_guard(seed=0)",
        build=lambda: make_lady_bandit_guard(seed=0),
        policies=_lbg_like_policies,
        guard_sources=_sources(RANDOM, RANDOM, SCRIPTED),
        bandit_sources=_sources(RANDOM, SCRIPTED, SCRIPTED),
        lbg=True,
    ),
    Case(
        name="lbg_events",
        builder=_lbg_events_text(),
        build=_build_lbg_events,
        policies=_lbg_like_policies,
        guard_sources=_sources(RANDOM, RANDOM, ZERO),
        bandit_sources=_sources(RANDOM, SCRIPTED, SCRIPTED),
        lbg=True,
    ),
    Case(
        name="pursuit_evasion",
        builder="orbitalgym.make_game(GameKey.PURSUIT_EVASION) (= make_pursuit_evasion())",
        build=lambda: make_game(GameKey.PURSUIT_EVASION),
        policies=_pursuit_evasion_policies,
        guard_sources=_sources(RANDOM, SCRIPTED, SCRIPTED),
        bandit_sources=_sources(RANDOM, SCRIPTED, SCRIPTED + 1),
    ),
    Case(
        name="get_off_my_lawn",
        builder="orbitalgym.make_game(GameKey.GET_OFF_MY_LAWN) (= make_get_off_my_lawn())",
        build=lambda: make_game(GameKey.GET_OFF_MY_LAWN),
        policies=_get_off_my_lawn_policies,
        guard_sources=_sources(RANDOM, RANDOM, SCRIPTED),
        bandit_sources=_sources(RANDOM, SCRIPTED, SCRIPTED),
    ),
)


# --------------------------------------------------------------------------------------------
# JSON description helpers
# --------------------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    """A JSON-friendly rendering of a config value: dataclasses become class plus fields."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, jax.Array | np.ndarray):
        arr = np.asarray(value)
        return arr.item() if arr.ndim == 0 else arr.tolist()
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # Private fields (e.g. a dynamics object's cached right-hand side) are not knobs.
        return {
            "class": type(value).__name__,
            "fields": {
                f.name: _jsonable(getattr(value, f.name))
                for f in dataclasses.fields(value)
                if not f.name.startswith("_")
            },
        }
    if isinstance(value, type):
        return value.__name__
    # Drop memory addresses so that reruns write the same file.
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def _kwargs_text(kwargs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kwargs.items())


def _asdict_or_fields(obj: Any) -> Any:
    """``dataclasses.asdict`` where it serialises, else the field-by-field rendering."""
    try:
        return _jsonable(dataclasses.asdict(obj))
    except TypeError:
        return _jsonable(obj)["fields"]


# --------------------------------------------------------------------------------------------
# Rollout
# --------------------------------------------------------------------------------------------


def _random_actions(case_index: int, cfg: ScenarioConfig) -> tuple[np.ndarray, np.ndarray]:
    """Random Δv commands for the whole ``(T, B)`` grid of one case (see module docstring)."""
    rng = np.random.default_rng(case_index)
    out = []
    for n, params in ((cfg.n_guards, cfg.guard_params), (cfg.n_bandits, cfg.bandit_params)):
        direction = rng.standard_normal((T, B, n, 3))
        direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
        magnitude = rng.uniform(0.0, 2.0 * _dv_cap(params, cfg.dt), size=(T, B, n))
        out.append((direction * magnitude[..., None]).astype(np.float32))
    return out[0], out[1]


def _where_tree(pred: jax.Array, new: Any, old: Any) -> Any:
    return jax.tree_util.tree_map(lambda a, b: jnp.where(pred, a, b), new, old)


def _make_step(
    env: OrbitalGymEnv,
    case: Case,
    guard_policies: tuple[Scripted, ...],
    bandit_policies: tuple[Scripted, ...],
):
    """The batched closed-loop step: choose each side's dv, call ``env.step``, record."""
    cfg = env.config
    zero_g = ZeroControl(command_cls=env.guard_command_cls, n_vehicles=cfg.n_guards)
    zero_b = ZeroControl(command_cls=env.bandit_command_cls, n_vehicles=cfg.n_bandits)
    term = cfg.termination_fn

    def choose(scripted, zero, source, states, view, random_dv, t):
        key = jax.random.PRNGKey(0)  # the heuristic policies ignore their key
        zero_cmd, _ = zero(None, view, key, t)
        dv = jnp.where(source == ZERO, zero_cmd.dv, random_dv)
        new_states = []
        for k, entry in enumerate(scripted):
            cmd, new_ps = entry.policy(states[k], view, key, t)
            dv = jnp.where(source == SCRIPTED + k, cmd.dv, dv)
            new_states.append(_where_tree(source == SCRIPTED + k, new_ps, states[k]))
        return dv.astype(jnp.float32), tuple(new_states)

    def one(state, view_g, view_b, ps_g, ps_b, rand_g, rand_b, src_g, src_b):
        dv_g, ps_g = choose(guard_policies, zero_g, src_g, ps_g, view_g, rand_g, state.t)
        dv_b, ps_b = choose(bandit_policies, zero_b, src_b, ps_b, view_b, rand_b, state.t)
        actions = Actions(
            sides=BySide(
                guard=env.guard_command_cls(dv=dv_g), bandit=env.bandit_command_cls(dv=dv_b)
            )
        )
        out = env.step(jax.random.PRNGKey(0), state, actions)
        nxt = out.state
        rec = {
            "actions_guard": dv_g,
            "actions_bandit": dv_b,
            "guard_rtn": nxt.guards.rtn,
            "bandit_rtn": nxt.bandits.rtn,
            "dwell_catch": nxt.dwell_catch,
            "dwell_breach": nxt.dwell_breach,
            "t": nxt.t,
            "step": nxt.step,
            "reward_guard": out.outputs.guard.reward,
            "reward_bandit": out.outputs.bandit.reward,
            "episode_done": out.episode_done,
            "applied_dv_guard": out.info["applied_dv"].guard,
            "applied_dv_bandit": out.info["applied_dv"].bandit,
        }
        if hasattr(nxt.guards, "propellant_mass"):
            rec["guard_prop"] = nxt.guards.propellant_mass
        if hasattr(nxt.bandits, "propellant_mass"):
            rec["bandit_prop"] = nxt.bandits.propellant_mass
        if case.lbg:
            # The same calls LbgEventTermination.__call__ makes, split into its four terms.
            caught, breached, _, _ = lbg_events_with_dwell(
                state,
                nxt,
                cfg.dt,
                term.catch_radius_m,
                term.catch_speed_mps,
                term.breach_radius_m,
                term.breach_speed_mps,
                term.catch_dwell_steps,
                term.breach_dwell_steps,
            )
            rec["lbg_caught"] = caught
            rec["lbg_breached"] = breached
            rec["lbg_repelled"] = lbg_repelled(
                nxt,
                cfg,
                term.escape_radius_m,
                term.repel_on_empty_tank,
                term.breach_radius_m,
                term.breach_speed_mps,
            )
            rec["lbg_step_cap"] = nxt.step >= cfg.max_steps
        elif case.name == "get_off_my_lawn":
            # GetOffMyLawnTermination with one gate switched off isolates the other gate.
            game = cfg.game
            only_catch = GetOffMyLawnTermination(
                catch_radius_m=game.catch_radius_m, keep_out_radius_m=math.inf
            )
            only_pushout = GetOffMyLawnTermination(
                catch_radius_m=0.0, keep_out_radius_m=game.keep_out_radius_m
            )
            rec["_goml_catch_or_cap"] = only_catch(state, nxt, cfg, nxt.t)
            rec["_goml_pushout_or_cap"] = only_pushout(state, nxt, cfg, nxt.t)
        view_g = flatten_observations(out.outputs.guard.obs)
        view_b = flatten_observations(out.outputs.bandit.obs)
        return nxt, view_g, view_b, ps_g, ps_b, rec, out.state.reference_orbit

    return jax.jit(jax.vmap(one))


def _init_policy_states(scripted: tuple[Scripted, ...]) -> tuple[Any, ...]:
    """Batched initial policy states (``None`` for the stateless heuristics)."""
    states = []
    for entry in scripted:
        if not hasattr(entry.policy, "init_state"):
            states.append(None)
            continue
        single = entry.policy.init_state()
        states.append(jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (B, *x.shape)), single))
    return tuple(states)


def _side_state_arrays(side: Any, prefix: str, data: dict[str, np.ndarray]) -> None:
    data[f"{prefix}_rtn"] = np.asarray(side.rtn, dtype=np.float32)
    if hasattr(side, "propellant_mass"):
        data[f"{prefix}_prop"] = np.asarray(side.propellant_mass, dtype=np.float32)


_DTYPES = {
    "dwell_catch": np.int32,
    "dwell_breach": np.int32,
    "step": np.int32,
    "episode_done": np.bool_,
    "mask": np.bool_,
    "init_ic_valid": np.bool_,
    "reset_keys": np.uint32,
}


def run_case(case_index: int, case: Case) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Roll out one case; returns its arrays and its ``cases.json`` entry."""
    cfg = case.build()
    env = OrbitalGymEnv(cfg)
    guard_policies, bandit_policies = case.policies(env)
    src_g = jnp.asarray(case.guard_sources, dtype=jnp.int32)
    src_b = jnp.asarray(case.bandit_sources, dtype=jnp.int32)
    rand_g, rand_b = _random_actions(case_index, cfg)

    reset_keys = jnp.stack([jax.random.PRNGKey(RESET_KEY_BASE + i) for i in range(B)])
    state, outputs = jax.jit(jax.vmap(env.reset))(reset_keys)
    view_g = jax.vmap(flatten_observations)(outputs.guard.obs)
    view_b = jax.vmap(flatten_observations)(outputs.bandit.obs)

    data: dict[str, np.ndarray] = {"reset_keys": np.asarray(reset_keys)}
    init: dict[str, np.ndarray] = {}
    _side_state_arrays(state.guards, "guard", init)
    _side_state_arrays(state.bandits, "bandit", init)
    data.update({f"init_{k}": v for k, v in init.items()})
    data["init_ic_valid"] = np.asarray(state.ic_valid)
    data["init_obs_guard"] = np.asarray(view_g)
    data["init_obs_bandit"] = np.asarray(view_b)

    step = _make_step(env, case, guard_policies, bandit_policies)
    ps_g = _init_policy_states(guard_policies)
    ps_b = _init_policy_states(bandit_policies)
    records: list[dict[str, np.ndarray]] = []
    ref = None
    for t in range(T):
        state, view_g, view_b, ps_g, ps_b, rec, ref = step(
            state, view_g, view_b, ps_g, ps_b, rand_g[t], rand_b[t], src_g, src_b
        )
        records.append(jax.device_get(rec))
    stacked = {k: np.stack([r[k] for r in records]) for k in records[0]}
    data["obs_guard_last"] = np.asarray(view_g)
    data["obs_bandit_last"] = np.asarray(view_b)
    data["reference_orbit_last"] = np.concatenate(
        [np.asarray(ref.position_eci), np.asarray(ref.velocity_eci)], axis=-1
    )

    done = stacked["episode_done"]
    mask_bt = episode_mask(SimpleNamespace(episode_done=jnp.asarray(done.T)))
    stacked["mask"] = np.asarray(mask_bt).T

    counts = _count_endings(case, cfg, stacked)
    for key in [k for k in stacked if k.startswith("_")]:
        del stacked[key]
    data.update(stacked)
    for key, value in data.items():
        if key in _DTYPES or key.startswith("lbg_"):
            want = _DTYPES.get(key, np.bool_)
        elif np.issubdtype(value.dtype, np.floating):
            want = np.float32
        else:
            raise TypeError(f"{case.name}: unexpected dtype {value.dtype} for {key}")
        data[key] = np.ascontiguousarray(value.astype(want, copy=False))

    policy_desc = {
        "guard": _describe_sources(case.guard_sources, guard_policies),
        "bandit": _describe_sources(case.bandit_sources, bandit_policies),
    }
    entry = _describe_case(case_index, case, cfg, env, policy_desc, counts, data)
    entry["eager_check"] = _eager_check(env, case, data)
    return data, entry


def _describe_sources(sources: tuple[int, ...], scripted: tuple[Scripted, ...]) -> dict:
    """Which scenarios take which actions on one side, and the policies' constructors."""

    def label(source: int) -> str:
        return {RANDOM: "random", ZERO: "zero"}.get(source) or scripted[source - SCRIPTED].label

    groups: dict[str, list[int]] = {}
    for b, source in enumerate(sources):
        groups.setdefault(label(source), []).append(b)
    used = sorted({s - SCRIPTED for s in sources if s >= SCRIPTED})
    return {
        "scenarios_first_last_inclusive": {n: [i[0], i[-1]] for n, i in groups.items()},
        "policies": {scripted[k].label: scripted[k].text for k in used},
        "zero": "orbitalgym.policies.zero.ZeroControl(command_cls=..., n_vehicles=n)"
        if ZERO in sources
        else None,
    }


def _first_done(done: np.ndarray) -> np.ndarray:
    """Index of the first terminating step per scenario, ``-1`` where none within ``T``."""
    any_done = done.any(axis=0)
    return np.where(any_done, done.argmax(axis=0), -1)


def _count_endings(case: Case, cfg: ScenarioConfig, rec: dict[str, np.ndarray]) -> dict:
    """How the 64 scenarios ended: the terms that held at each one's first ``episode_done``."""
    done = rec["episode_done"]
    first = _first_done(done)
    ended = first >= 0
    cols = np.arange(B)
    at_end = {}
    counts: dict[str, Any] = {
        "episode_done_within_T": int(ended.sum()),
        "first_done_step_min": int(first[ended].min()) if ended.any() else None,
        "first_done_step_max": int(first[ended].max()) if ended.any() else None,
        "random_scenarios_done": int(ended[:N_RANDOM].sum()),
        "scripted_scenarios_done": int(ended[N_RANDOM:].sum()),
    }
    step_cap = rec["step"] >= cfg.max_steps
    if case.lbg:
        terms = ("caught", "breached", "repelled", "step_cap")
        recomputed = np.zeros_like(done)
        for name in terms:
            recomputed |= rec[f"lbg_{name}"]
        if not np.array_equal(recomputed, done):
            raise AssertionError(f"{case.name}: event terms do not reproduce episode_done")
        for name in terms:
            at_end[name] = rec[f"lbg_{name}"][first.clip(0), cols] & ended
    elif case.name == "get_off_my_lawn":
        at_end["caught"] = (rec["_goml_catch_or_cap"] & ~step_cap)[first.clip(0), cols] & ended
        at_end["pushed_out"] = (rec["_goml_pushout_or_cap"] & ~step_cap)[
            first.clip(0), cols
        ] & ended
        at_end["step_cap"] = step_cap[first.clip(0), cols] & ended
    elif case.name == "pursuit_evasion":
        at_end["captured"] = (done & ~step_cap)[first.clip(0), cols] & ended
        at_end["step_cap"] = step_cap[first.clip(0), cols] & ended
    else:
        at_end["step_cap"] = step_cap[first.clip(0), cols] & ended
    for name, flags in at_end.items():
        counts[f"ended_by_{name}"] = int(flags.sum())
        counts[f"ended_by_{name}_random"] = int(flags[:N_RANDOM].sum())
        counts[f"ended_by_{name}_scripted"] = int(flags[N_RANDOM:].sum())
    if at_end:
        several = np.sum([f.astype(int) for f in at_end.values()], axis=0) > 1
        counts["ended_by_more_than_one"] = int(several.sum())
    return counts


def _describe_case(
    case_index: int,
    case: Case,
    cfg: ScenarioConfig,
    env: OrbitalGymEnv,
    policy_desc: dict[str, Any],
    counts: dict[str, Any],
    data: dict[str, np.ndarray],
) -> dict[str, Any]:
    """The ``cases.json`` entry of one case."""
    if case.lbg:
        how_counted = (
            "per step, orbitalgym.games.proximity.lbg_events_with_dwell(prev, next, ...) and "
            "lbg_repelled(next, cfg, ...) with the termination's own fields (the calls "
            "LbgEventTermination makes), plus next.step >= max_steps; their OR was checked to "
            "equal episode_done at every (t, b). Stored as the lbg_* arrays."
        )
    elif case.name == "get_off_my_lawn":
        how_counted = (
            "GetOffMyLawnTermination(catch_radius_m, keep_out_radius_m=inf) and "
            "GetOffMyLawnTermination(catch_radius_m=0, keep_out_radius_m) evaluated on the "
            "same states, each minus the step cap."
        )
    else:
        how_counted = "episode_done minus the step cap (next.step >= max_steps)."
    how_counted = "Terms that held at each scenario's first episode_done step: " + how_counted
    return {
        "name": case.name,
        "case_index": case_index,
        "builder": case.builder,
        "n_scenarios": B,
        "n_steps": T,
        "n_guards": cfg.n_guards,
        "n_bandits": cfg.n_bandits,
        "dt": float(cfg.dt),
        "max_horizon_s": float(cfg.max_horizon_s),
        "max_steps": int(cfg.max_steps),
        "seed": cfg.seed,
        "epoch_mjd_utc": float(cfg.epoch_mjd_utc),
        "reference_orbit": {
            "position_eci": _jsonable(cfg.reference_orbit.position_eci),
            "velocity_eci": _jsonable(cfg.reference_orbit.velocity_eci),
        },
        "mean_motion": env.mean_motion,
        "truth_dynamics": _jsonable(cfg.truth_dynamics),
        "reference_orbit_dynamics": _jsonable(cfg.reference_orbit_dynamics_resolved),
        "guard_components": _jsonable(cfg.guard_components),
        "bandit_components": _jsonable(cfg.bandit_components),
        "guard_components_extended": _jsonable(cfg.guard_components_extended),
        "bandit_components_extended": _jsonable(cfg.bandit_components_extended),
        "game": {"class": type(cfg.game).__name__, "knobs": _asdict_or_fields(cfg.game)},
        "termination": {
            "class": type(cfg.termination_fn).__name__,
            "fields": _asdict_or_fields(cfg.termination_fn),
        },
        "reward": {
            "class": type(cfg.reward_fn).__name__,
            "fields": _asdict_or_fields(cfg.reward_fn),
        },
        "observation": {
            "guard": type(cfg.guard_observation_fn).__name__,
            "bandit": type(cfg.bandit_observation_fn).__name__,
        },
        "guard_params": _asdict_or_fields(cfg.guard_params),
        "bandit_params": _asdict_or_fields(cfg.bandit_params),
        "ic_sampler": _jsonable(cfg.ic_sampler),
        "ic_sampler_repr": re.sub(r" at 0x[0-9a-fA-F]+", "", repr(cfg.ic_sampler)),
        "actions": {
            "random": (
                f"np.random.default_rng({case_index}): guard standard_normal((T,B,n_g,3)) "
                "normalised, guard uniform(0, 2*cap_g, (T,B,n_g)), then the bandit's two "
                "draws; dv = direction * magnitude as float32; cap = max_thrust_n*dt/dry_mass_kg"
            ),
            "random_cap_guard_mps": _dv_cap(cfg.guard_params, cfg.dt),
            "random_cap_bandit_mps": _dv_cap(cfg.bandit_params, cfg.dt),
            "guard": policy_desc["guard"],
            "bandit": policy_desc["bandit"],
            "closed_loop": (
                "at step t a heuristic sees the flattened observation returned by step t-1 "
                "(the reset observation at t=0) and t = state.t, as orbitalgym.rollout feeds it"
            ),
            "step_key": "jax.random.PRNGKey(0) for every env.step call",
        },
        "counts": counts,
        "how_counted": how_counted,
        "arrays": {k: [str(v.dtype), list(v.shape)] for k, v in data.items()},
        "versions": _versions(),
        "precision": "float32 (orbitalgym's default: jax_enable_x64 off), JAX on CPU",
    }


def _eager_check(env: OrbitalGymEnv, case: Case, data: dict[str, np.ndarray]) -> dict:
    """Replay a few steps of two scenarios with un-jitted, un-batched reset and step.

    Returns the largest absolute differences from the recorded (jit + vmap) values, so a reader
    knows how far batching and compilation moved the floats.
    """
    n_steps = 5
    worst: dict[str, float] = {"state": 0.0, "reward": 0.0, "applied_dv": 0.0}
    done_equal = True
    for b in (0, N_RANDOM + 1):
        state, _ = env.reset(jax.random.PRNGKey(RESET_KEY_BASE + b))
        worst["state"] = max(
            worst["state"],
            float(np.max(np.abs(np.asarray(state.guards.rtn) - data["init_guard_rtn"][b]))),
            float(np.max(np.abs(np.asarray(state.bandits.rtn) - data["init_bandit_rtn"][b]))),
        )
        for t in range(n_steps):
            actions = Actions(
                sides=BySide(
                    guard=env.guard_command_cls(dv=jnp.asarray(data["actions_guard"][t, b])),
                    bandit=env.bandit_command_cls(dv=jnp.asarray(data["actions_bandit"][t, b])),
                )
            )
            out = env.step(jax.random.PRNGKey(0), state, actions)
            state = out.state
            for side, key in ((state.guards, "guard_rtn"), (state.bandits, "bandit_rtn")):
                diff = np.max(np.abs(np.asarray(side.rtn) - data[key][t, b]))
                worst["state"] = max(worst["state"], float(diff))
            for side, key in (("guard", "reward_guard"), ("bandit", "reward_bandit")):
                diff = abs(float(getattr(out.outputs, side).reward) - float(data[key][t, b]))
                worst["reward"] = max(worst["reward"], diff)
            for side, key in (("guard", "applied_dv_guard"), ("bandit", "applied_dv_bandit")):
                applied = np.asarray(getattr(out.info["applied_dv"], side))
                diff = np.max(np.abs(applied - data[key][t, b]))
                worst["applied_dv"] = max(worst["applied_dv"], float(diff))
            done_equal &= bool(out.episode_done) == bool(data["episode_done"][t, b])
    return {
        "scenarios": [0, N_RANDOM + 1],
        "steps": n_steps,
        "max_abs_diff": worst,
        "episode_done_equal": done_equal,
    }


def _versions() -> dict[str, str]:
    names = ("orbitalgym", "jax", "jaxlib", "astrojax", "flax", "numpy")
    out = {name: importlib.metadata.version(name) for name in names}
    out["python"] = sys.version.split()[0]
    return out


def _print_counts(name: str, counts: dict[str, Any]) -> None:
    parts = [f"{k}={v}" for k, v in counts.items() if not k.endswith(("_random", "_scripted"))]
    print(f"{name}: " + ", ".join(parts), flush=True)
    splits = [
        f"{k[: -len('_random')]}: {counts[k]}+{counts[k[: -len('_random')] + '_scripted']}"
        for k in counts
        if k.endswith("_random") and k.startswith("ended_by_")
    ]
    if splits:
        print("    random+scripted " + "; ".join(splits), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Generate every case (or those named by ``--only``) and write the goldens."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="case names to run")
    parser.add_argument("--dry-run", action="store_true", help="print counts, write nothing")
    parser.add_argument("--out-dir", type=Path, default=GOLDENS_DIR)
    args = parser.parse_args(argv)
    names = [c.name for c in CASES]
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            parser.error(f"unknown case(s) {unknown}; choose from {names}")
    if args.only and not args.dry_run:
        parser.error("--only rewrites cases.json partially; use it with --dry-run")

    entries = {}
    for index, case in enumerate(CASES):
        if args.only and case.name not in args.only:
            continue
        data, entry = run_case(index, case)
        _print_counts(case.name, entry["counts"])
        print(f"    eager check: {entry['eager_check']}", flush=True)
        entries[case.name] = entry
        if not args.dry_run:
            args.out_dir.mkdir(parents=True, exist_ok=True)
            np.savez_compressed(args.out_dir / f"{case.name}.npz", **data)
    if not args.dry_run:
        text = json.dumps(entries, indent=1, sort_keys=False)
        (args.out_dir / "cases.json").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
