"""`ICSpec`: how a scenario's initial conditions are drawn.

One sampler per side, validators over the joint draw, and a cap on redraws: the reset draws
until every validator passes or ``max_attempts`` draws were made, and marks the state
``ic_valid = False`` in the second case (the last draw is kept; nothing raises).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ICSpec"]


@dataclass(frozen=True)
class ICSpec:
    """Initial-condition specification (`ScenarioConfig.ic_sampler`).

    Attributes:
        guard_sampler: a side sampler (e.g. `RelativeEllipse`) for the guards.
        bandit_sampler: the bandits' sampler.
        validators: callables ``(config, guards, bandits) -> bool[]``, all of which must hold.
        max_attempts: the most draws a reset makes (>= 1).
    """

    guard_sampler: Callable
    bandit_sampler: Callable
    validators: tuple[Callable, ...] = ()
    max_attempts: int = 100

    def __post_init__(self) -> None:
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int):
            raise TypeError(f"max_attempts must be an int, got {self.max_attempts!r}")
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {self.max_attempts}")
        if not isinstance(self.validators, tuple):
            object.__setattr__(self, "validators", tuple(self.validators))
