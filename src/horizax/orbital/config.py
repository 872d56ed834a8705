"""`ScenarioConfig`: everything a scenario is, in one frozen dataclass.

The horizon is physical time (``dt``, ``max_horizon_s``); the step cap is derived,
``max_steps = ceil(max_horizon_s / dt)``. ``__post_init__`` validates every field (a
``ValueError`` naming it, before anything is traced) and fills what was left ``None``: the
game (`NoGame`), the observation functions (`FullObservation`), the policies
(`ZeroControl`), and the reward and termination from the game's defaults.

**Changing the game refreshes its defaults** (a deliberate difference from orbitalgym, where
``dataclasses.replace(cfg, game=Other())`` silently keeps the old game's reward and
termination): a reward or termination that ``__post_init__`` filled in from a game is
refilled from the new game; one the user set is kept. ``dataclasses.replace(cfg,
termination_fn=MaxStepsOnly())`` and the constructor keyword both set it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from horizax.core.checks import MAX_STEPS_LIMIT, int_in_range
from horizax.orbital.reference_orbit import ReferenceOrbitState, mean_motion
from horizax.orbital.registry import (
    ActionComponentKey,
    DynamicsKey,
    Frame,
    StateComponentKey,
)
from horizax.orbital.sampling.spec import ICSpec

__all__ = ["ScenarioConfig", "VehicleParamsSpec"]

_TRUTH_FRAME = {DynamicsKey.HCW_RTN: Frame.RTN, DynamicsKey.HCW_RT: Frame.RT}
_FRAME_COMPONENT = {Frame.RTN: StateComponentKey.RTN, Frame.RT: StateComponentKey.RT}


def _finite(value: Any) -> bool:
    return isinstance(value, int | float | np.floating | np.integer) and math.isfinite(value)


@dataclass(frozen=True)
class VehicleParamsSpec:
    """A side's vehicle model.

    Attributes:
        dry_mass_kg: dry mass (> 0).
        isp_s: specific impulse (> 0).
        max_thrust_n: thrust (>= 0); one step delivers at most ``max_thrust_n * dt``.
        slew_rate_rad_s: attitude slew rate (>= 0; kept for orbitalgym's signature).
    """

    dry_mass_kg: float
    isp_s: float
    max_thrust_n: float
    slew_rate_rad_s: float = 0.0

    def __post_init__(self) -> None:
        for name, lowest, strict in (
            ("dry_mass_kg", 0.0, True),
            ("isp_s", 0.0, True),
            ("max_thrust_n", 0.0, False),
            ("slew_rate_rad_s", 0.0, False),
        ):
            value = getattr(self, name)
            if not _finite(value) or value < lowest or (strict and value == lowest):
                bound = "> 0" if strict else ">= 0"
                raise ValueError(
                    f"VehicleParamsSpec.{name} must be finite and {bound}, got {value!r}"
                )


@dataclass(frozen=True)
class ScenarioConfig:
    """One scenario: vehicles, orbit, dynamics, horizon, game, reward and termination.

    Attributes:
        n_guards, n_bandits: vehicles per side (>= 1).
        epoch_mjd_utc: the scenario's start epoch (MJD, UTC).
        reference_orbit: the reference spacecraft's ECI state at the start.
        guard_components, bandit_components: the state components of each side; they must
            include the truth frame's (RTN for ``HCW_RTN``, RT for ``HCW_RT``).
        guard_params, bandit_params: `VehicleParamsSpec` of each side.
        ic_sampler: `ICSpec`.
        dt: the step (s, > 0): integration step and decision interval.
        max_horizon_s: the horizon (s, >= dt).
        seed: stored only; keys are always passed explicitly.
        truth_dynamics, policy_dynamics: `DynamicsKey` (HCW_RTN default, or HCW_RT).
        guard_action_components, bandit_action_components: each side's
            `ActionComponentKey`\\ s: ``(IMPULSIVE_MANEUVER,)`` (default) or
            ``(IMPULSIVE_MANEUVER, COMMUNICATE)``, which adds the broadcast fields ``active``
            and ``payload`` to the side's command (`horizax.orbital.env.types.command_class`).
        action_frame: the frame commands are in (None: the truth frame; it must equal it).
        guard_observation_fn, bandit_observation_fn: observation functions (None:
            `FullObservation`).
        reward_fn: ``(prev_state, actions, next_state, side, cfg, t) -> f32[]`` (None: the
            game's default).
        termination_fn: ``(prev_state, state, cfg, t) -> bool[]`` (None: the game's default).
        controlled_side: ``"guard"`` or ``"bandit"``: the side `SingleAgentView` hands out.
        guard_policy, bandit_policy: the policies that drive a side when it is not controlled
            (None: `ZeroControl`).
        game: a `Game` (None: `NoGame`).
    """

    n_guards: int
    n_bandits: int
    epoch_mjd_utc: float
    reference_orbit: ReferenceOrbitState
    guard_components: tuple[StateComponentKey, ...]
    bandit_components: tuple[StateComponentKey, ...]
    guard_params: VehicleParamsSpec
    bandit_params: VehicleParamsSpec
    ic_sampler: ICSpec
    dt: float
    max_horizon_s: float
    seed: int = 0
    truth_dynamics: Any = DynamicsKey.HCW_RTN
    policy_dynamics: Any = DynamicsKey.HCW_RTN
    guard_action_components: tuple[ActionComponentKey, ...] = (
        ActionComponentKey.IMPULSIVE_MANEUVER,
    )
    bandit_action_components: tuple[ActionComponentKey, ...] = (
        ActionComponentKey.IMPULSIVE_MANEUVER,
    )
    action_frame: Frame | None = None
    guard_observation_fn: Any = None
    bandit_observation_fn: Any = None
    reward_fn: Any = None
    termination_fn: Any = None
    controlled_side: Any = "guard"
    guard_policy: Any = None
    bandit_policy: Any = None
    game: Any = None
    # The reward and termination objects __post_init__ took from a game's defaults, so a
    # later `replace(game=...)` can tell them from ones the user chose (identity, not value).
    _filled_defaults: tuple[Any, Any] = field(default=(None, None), repr=False, compare=False)

    @property
    def max_steps(self) -> int:
        """The step cap, ``ceil(max_horizon_s / dt)``."""
        return math.ceil(self.max_horizon_s / self.dt)

    @property
    def truth_frame(self) -> Frame:
        """The frame the truth dynamics integrate in."""
        return _TRUTH_FRAME[DynamicsKey(self.truth_dynamics)]

    @property
    def mean_motion(self) -> float:
        """The reference orbit's mean motion (rad/s)."""
        return mean_motion(self.reference_orbit)

    def to_json(self) -> str:
        """This configuration as JSON; every component by its registry key
        (`horizax.orbital.serialization`).

        Raises:
            ValueError: naming the field, for a component that is not registered.
        """
        from horizax.orbital.serialization import config_to_json

        return config_to_json(self)

    @classmethod
    def from_json(cls, text: str) -> ScenarioConfig:
        """The configuration `to_json` wrote."""
        from horizax.orbital.serialization import config_from_json

        plain = {c.__name__: c for c in (VehicleParamsSpec, ReferenceOrbitState, ICSpec)}
        return config_from_json(text, cls, plain)

    def __post_init__(self) -> None:
        self._validate_numbers()
        self._validate_dynamics()
        from horizax.orbital.env.types import Side

        try:
            object.__setattr__(self, "controlled_side", Side(self.controlled_side))
        except ValueError:
            raise ValueError(
                f"controlled_side must be 'guard' or 'bandit', got {self.controlled_side!r}"
            ) from None
        # Imported here: the games' builders import this module.
        from horizax.orbital.games.base import Game, NoGame

        if self.game is None:
            object.__setattr__(self, "game", NoGame())
        if not isinstance(self.game, Game):
            raise ValueError(f"game must be a horizax.orbital Game, got {self.game!r}")
        self.game.validate(self)
        self._fill_defaults()

    def _validate_numbers(self) -> None:
        for name in ("n_guards", "n_bandits"):
            int_in_range(getattr(self, name), name)
        int_in_range(self.seed, "seed", minimum=0, maximum=2**64 - 1)
        if not _finite(self.dt) or self.dt <= 0:
            raise ValueError(f"dt must be finite and > 0, got {self.dt!r}")
        if not _finite(self.max_horizon_s) or self.max_horizon_s < self.dt:
            raise ValueError(
                f"max_horizon_s must be finite and >= dt ({self.dt}), got {self.max_horizon_s!r}"
            )
        if math.ceil(self.max_horizon_s / self.dt) > MAX_STEPS_LIMIT:  # an int32 step counter
            raise ValueError(
                f"max_horizon_s / dt must be at most 2**31 - 1 steps, got {self.max_horizon_s!r}"
                f" / {self.dt!r}"
            )
        if not _finite(self.epoch_mjd_utc):
            raise ValueError(f"epoch_mjd_utc must be finite, got {self.epoch_mjd_utc!r}")
        for name in ("guard_params", "bandit_params"):
            if not isinstance(getattr(self, name), VehicleParamsSpec):
                raise ValueError(f"{name} must be a VehicleParamsSpec, got {getattr(self, name)!r}")
        if not isinstance(self.ic_sampler, ICSpec):
            raise ValueError(f"ic_sampler must be an ICSpec, got {self.ic_sampler!r}")
        if not isinstance(self.reference_orbit, ReferenceOrbitState):
            raise ValueError(
                f"reference_orbit must be a ReferenceOrbitState, got {self.reference_orbit!r}"
            )
        for name in ("position_eci", "velocity_eci"):
            value = np.asarray(getattr(self.reference_orbit, name), np.float64)
            if value.shape != (3,) or not np.all(np.isfinite(value)):
                raise ValueError(f"reference_orbit.{name} must be 3 finite numbers, got {value!r}")
        mean_motion(self.reference_orbit)  # raises for an unbound orbit

    def _validate_dynamics(self) -> None:
        # Imported here, as `Side` in __post_init__: the env package imports this module.
        from horizax.orbital.env.types import check_action_components

        for name in ("truth_dynamics", "policy_dynamics"):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, DynamicsKey(value))
            except ValueError:
                known = ", ".join(k.value for k in DynamicsKey)
                raise ValueError(f"{name} must be one of {known}, got {value!r}") from None
        truth = self.truth_frame
        frame = truth if self.action_frame is None else self.action_frame
        try:
            frame = Frame(frame)
        except ValueError:
            raise ValueError(
                f"action_frame must be 'rt' or 'rtn', got {self.action_frame!r}"
            ) from None
        if frame is not truth:
            raise ValueError(
                f"action_frame={frame.value!r} differs from the truth frame {truth.value!r}; "
                "horizax's HCW scenarios take commands in the truth frame"
            )
        object.__setattr__(self, "action_frame", frame)
        needed = _FRAME_COMPONENT[truth]
        for side in ("guard", "bandit"):
            name = f"{side}_components"
            try:
                comps = tuple(StateComponentKey(c) for c in getattr(self, name))
            except ValueError as error:
                raise ValueError(f"{name}: {error}") from None
            object.__setattr__(self, name, comps)
            if needed not in comps:
                raise ValueError(
                    f"{name} must include {needed.value!r} for {self.truth_dynamics.value}"
                )
            actions = f"{side}_action_components"
            object.__setattr__(
                self, actions, check_action_components(actions, getattr(self, actions))
            )
            sampler = getattr(self.ic_sampler, f"{side}_sampler")
            if StateComponentKey.MASS in comps and getattr(sampler, "mass_sampler", 0) is None:
                raise ValueError(
                    f"{name} has MASS but ic_sampler.{side}_sampler has no mass_sampler"
                )

    def _fill_defaults(self) -> None:
        from horizax.orbital.observations.reference import FullObservation
        from horizax.orbital.policies.zero import ZeroControl

        for name in ("guard_observation_fn", "bandit_observation_fn"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, FullObservation())
        for name in ("guard_policy", "bandit_policy"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, ZeroControl())
        filled_reward, filled_termination = self._filled_defaults
        if self.reward_fn is None or self.reward_fn is filled_reward:
            filled_reward = self.game.default_reward_fn()
            object.__setattr__(self, "reward_fn", filled_reward)
        else:
            filled_reward = None
        if self.termination_fn is None or self.termination_fn is filled_termination:
            filled_termination = self.game.default_termination_fn()
            object.__setattr__(self, "termination_fn", filled_termination)
        else:
            filled_termination = None
        object.__setattr__(self, "_filled_defaults", (filled_reward, filled_termination))
        for name in ("reward_fn", "termination_fn"):
            if not callable(getattr(self, name)):
                raise ValueError(f"{name} must be callable, got {getattr(self, name)!r}")
