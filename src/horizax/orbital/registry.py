"""Keys that name the orbital components, and the registry that resolves them.

The keys are string enums with orbitalgym's values (``ALL_OF`` and the heuristic policies'
keys beyond orbitalgym's are horizax's), so a configuration written for it names the same
components here. Every bundled reward, termination, game and sampler registers its
class under its key (`register`, `register_game`), which `ScenarioConfig.to_json` /
`from_json` use to write and rebuild components by name.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

__all__ = [
    "ActionComponentKey",
    "DynamicsKey",
    "Frame",
    "GameKey",
    "MassSamplerKey",
    "ObservationFnKey",
    "PolicyKey",
    "RewardFnKey",
    "SideSamplerKey",
    "StateComponentKey",
    "TerminationFnKey",
    "ValidatorKey",
    "key_of",
    "register",
    "register_game",
    "registered",
    "resolve",
    "resolve_game",
]

T = TypeVar("T")


class Frame(StrEnum):
    """A coordinate frame of a vehicle state: radial/along-track (RT, 4 numbers per state),
    radial/along-track/cross-track (RTN, 6) or Earth-centred inertial (ECI, 6)."""

    RT = "rt"
    RTN = "rtn"
    ECI = "eci"

    @property
    def dim(self) -> int:
        """Spatial dimension of the frame: 2 for RT, 3 otherwise."""
        return 2 if self is Frame.RT else 3


class DynamicsKey(StrEnum):
    """Translational dynamics. horizax ships the closed-form HCW ones."""

    HCW_RT = "hcw_rt"
    HCW_RTN = "hcw_rtn"


class StateComponentKey(StrEnum):
    """A piece of a vehicle's state (`horizax.orbital.state.components`)."""

    RT = "rt"
    RTN = "rtn"
    MASS = "mass"
    APPLIED_DV = "applied_dv"


class ActionComponentKey(StrEnum):
    """A piece of a side's command: the impulsive manoeuvre (``dv``) and the broadcast
    (``active``, ``payload``; `horizax.orbital.actions.components.Communicate`)."""

    IMPULSIVE_MANEUVER = "impulsive_maneuver"
    COMMUNICATE = "communicate"


class GameKey(StrEnum):
    """The bundled games."""

    NO_GAME = "no_game"
    LADY_BANDIT_GUARD = "lady_bandit_guard"
    PURSUIT_EVASION = "pursuit_evasion"
    SUN_BLOCKING = "sun_blocking"
    OBSERVATION_BLOCKING = "observation_blocking"
    GET_OFF_MY_LAWN = "get_off_my_lawn"


class TerminationFnKey(StrEnum):
    """The bundled terminations."""

    MAX_STEPS_ONLY = "max_steps_only"
    LBG_EVENTS = "lbg_events_termination"
    PURSUIT_EVASION = "pursuit_evasion_termination"
    GET_OFF_MY_LAWN = "get_off_my_lawn_termination"
    MAX_DISTANCE = "max_distance_termination"
    ANY_OF = "any_of_termination"
    ALL_OF = "all_of_termination"  # horizax's addition


class RewardFnKey(StrEnum):
    """The bundled rewards."""

    ZERO = "zero_reward"
    DISTANCE_TO_REFERENCE_ORBIT = "distance_to_reference_orbit"
    LBG_ZERO_SUM = "lbg_zero_sum_reward"
    LBG_WITH_COMMS = "lbg_with_comms_reward"
    PURSUIT_EVASION = "pursuit_evasion_reward"
    GET_OFF_MY_LAWN = "get_off_my_lawn_reward"
    SUN_BLOCKING = "sun_blocking_reward"
    OBSERVATION_BLOCKING = "observation_blocking_reward"


class ObservationFnKey(StrEnum):
    """The bundled observation functions."""

    FULL = "full_observation"
    COMMS_LEAK = "comms_leak_observation"


class PolicyKey(StrEnum):
    """The bundled policies."""

    ZERO_CONTROL = "zero_control"
    GLIDESLOPE_TO_LADY = "glideslope_to_lady"
    GLIDESLOPE_INTERCEPT = "glideslope_intercept"
    PHASED_BANDIT = "phased_bandit"
    LEAD_INTERCEPT_PURSUER = "lead_intercept_pursuer"
    ORTHOGONAL_EVADER = "orthogonal_evader"
    SUN_TRACKER_BLOCKER = "sun_tracker_blocker"


class SideSamplerKey(StrEnum):
    """The bundled initial-condition samplers of one side."""

    RELATIVE_ELLIPSE = "relative_ellipse"


class MassSamplerKey(StrEnum):
    """The bundled propellant-mass samplers."""

    CONSTANT = "constant_mass"
    UNIFORM = "uniform_mass"


class ValidatorKey(StrEnum):
    """The bundled initial-condition validators."""

    MIN_SEPARATION = "min_separation"
    MAX_RANGE = "max_range"


# Keyed by (enum class, value): StrEnum members of different kinds with one value (a game
# and its reward, say) compare equal as strings.
_REGISTRY: dict[tuple[type, str], Any] = {}
_KEYS: dict[Any, StrEnum] = {}
_GAMES: dict[GameKey, type] = {}


def register(key: StrEnum) -> Callable[[T], T]:
    """Registers a component class (or function) under ``key``.

    Raises:
        ValueError: if ``key`` already names another component.
    """

    def decorate(thing: T) -> T:
        slot = (type(key), key.value)
        previous = _REGISTRY.get(slot)
        if previous is not None and previous is not thing:
            raise ValueError(f"{key!r} is already registered to {previous!r}")
        _REGISTRY[slot] = thing
        _KEYS[thing] = key
        return thing

    return decorate


def register_game(key: GameKey) -> Callable[[T], T]:
    """Registers a `Game` subclass under ``key`` (and in the general registry)."""

    def decorate(cls: T) -> T:
        _GAMES[key] = cls  # type: ignore[assignment]
        return register(key)(cls)

    return decorate


def resolve(key: StrEnum) -> Any:
    """The component registered under ``key``.

    Raises:
        KeyError: naming the key, if nothing is registered under it.
    """
    try:
        return _REGISTRY[(type(key), key.value)]
    except KeyError:
        raise KeyError(f"nothing is registered under {key!r}") from None


def resolve_game(key: GameKey | str) -> type:
    """The `Game` subclass registered under ``key`` (a `GameKey` or its value)."""
    game_key = GameKey(key)
    try:
        return _GAMES[game_key]
    except KeyError:
        raise KeyError(f"no game is registered under {game_key!r}") from None


def key_of(thing: Any) -> StrEnum | None:
    """The key a component class was registered under, or None for an unregistered one."""
    return _KEYS.get(thing)


def registered() -> dict[StrEnum, Any]:
    """The whole registry (key -> component), as a new dict."""
    return {key: thing for thing, key in _KEYS.items()}
