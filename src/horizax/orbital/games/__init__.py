"""The games: typed knob bundles stored as ``cfg.game``, and a builder for each.

Importing this package registers every bundled game with its reward and termination (the
registry imports it on its first lookup).
"""

from __future__ import annotations

from typing import Any

from horizax.orbital.games.base import Game, NoGame
from horizax.orbital.games.get_off_my_lawn import (
    GetOffMyLawn,
    GetOffMyLawnReward,
    GetOffMyLawnTermination,
    make_get_off_my_lawn,
)
from horizax.orbital.games.lady_bandit_guard import LadyBanditGuard, make_lady_bandit_guard
from horizax.orbital.games.observation_blocking import (
    ObservationBlocking,
    ObservationBlockingReward,
    make_observation_blocking,
)
from horizax.orbital.games.pursuit_evasion import (
    PursuitEvasion,
    PursuitEvasionReward,
    PursuitEvasionTermination,
    make_pursuit_evasion,
)
from horizax.orbital.games.sun_blocking import SunBlocking, SunBlockingReward, make_sun_blocking
from horizax.orbital.registry import GameKey

__all__ = [
    "Game",
    "GetOffMyLawn",
    "GetOffMyLawnReward",
    "GetOffMyLawnTermination",
    "LadyBanditGuard",
    "NoGame",
    "ObservationBlocking",
    "ObservationBlockingReward",
    "PursuitEvasion",
    "PursuitEvasionReward",
    "PursuitEvasionTermination",
    "SunBlocking",
    "SunBlockingReward",
    "make_game",
    "make_get_off_my_lawn",
    "make_lady_bandit_guard",
    "make_observation_blocking",
    "make_pursuit_evasion",
    "make_sun_blocking",
]

_BUILDERS = {
    GameKey.LADY_BANDIT_GUARD: make_lady_bandit_guard,
    GameKey.PURSUIT_EVASION: make_pursuit_evasion,
    GameKey.GET_OFF_MY_LAWN: make_get_off_my_lawn,
    GameKey.SUN_BLOCKING: make_sun_blocking,
    GameKey.OBSERVATION_BLOCKING: make_observation_blocking,
}


def make_game(key: GameKey | str, **kwargs: Any) -> Any:
    """The `ScenarioConfig` of the game ``key`` (a `GameKey` or its value), from its builder.

    Example::

        cfg = make_game(GameKey.LADY_BANDIT_GUARD, breach_radius_m=5.0, catch_radius_m=50.0)

    Raises:
        KeyError: naming the key, for a game without a builder (``NO_GAME``: build its
            `ScenarioConfig` directly).
    """
    builder = _BUILDERS.get(GameKey(key))
    if builder is None:
        raise KeyError(f"No builder for {GameKey(key)!r}")
    return builder(**kwargs)
