"""`Game`: what a scenario is about (its default reward and termination, its bookkeeping).

A game is a frozen dataclass of knobs with four hooks: ``default_reward_fn()`` and
``default_termination_fn()`` (what `ScenarioConfig` fills in when the user did not choose),
``advance_state(prev_state, next_state, cfg)`` (game-owned state the step advances before
observations, rewards and termination read it) and ``validate(cfg)`` (raises ``ValueError``
for a configuration the game cannot play, before anything is traced).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from horizax.orbital.registry import GameKey, register_game

__all__ = ["Game", "NoGame"]


@dataclass(frozen=True)
class Game:
    """Base class of the games; the defaults here are those of a game without rules."""

    def default_reward_fn(self) -> Any:
        """The reward used when the configuration names none: zero."""
        from horizax.orbital.rewards.reference import ZeroReward

        return ZeroReward()

    def default_termination_fn(self) -> Any:
        """The termination used when the configuration names none: the step cap."""
        from horizax.orbital.termination.reference import MaxStepsOnly

        return MaxStepsOnly()

    def advance_state(self, prev_state: Any, next_state: Any, cfg: Any) -> Any:
        """Game bookkeeping on the state leaving a step (none by default)."""
        del prev_state, cfg
        return next_state

    def validate(self, cfg: Any) -> None:
        """Raises ``ValueError`` if ``cfg`` cannot play this game (never, by default)."""
        del cfg


@register_game(GameKey.NO_GAME)
@dataclass(frozen=True)
class NoGame(Game):
    """Vehicles and dynamics only: zero reward, the episode ends at the step cap."""
