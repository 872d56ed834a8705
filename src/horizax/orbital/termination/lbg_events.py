"""`LbgEventTermination`: Lady-Bandit-Guard's end of episode.

The episode ends on the step cap, or when, over the step just taken,

* a bandit passes strictly inside ``breach_radius_m`` of the lady (the RTN origin), strictly
  slower than ``breach_speed_mps`` — the bandit wins;
* some guard passes strictly inside ``catch_radius_m`` of a bandit, strictly slower than
  ``catch_speed_mps`` relative to it — the guard wins (``catch_radius_m = 0`` turns it off);
* every bandit is repelled: strictly beyond ``escape_radius_m`` (0: off), or, with
  ``repel_on_empty_tank``, out of propellant on a coast that cannot breach before the cap.

Both passes are judged along the straight chord between the samples
(`horizax.orbital.games.proximity`), so an encounter that peaks between samples fires. A
positive ``catch_dwell_steps`` / ``breach_dwell_steps`` asks instead that a bandit has been
inside for that many consecutive steps, read off the `EnvState` counters that the game
(`LadyBanditGuard.advance_state`) advances with *its* radii and gates.

The three events are absorbing (`terminal_events`); the cap is a truncation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.games.proximity import (
    check_dwell_steps,
    check_length,
    lbg_events_with_dwell,
    lbg_repelled,
)
from horizax.orbital.registry import TerminationFnKey, register

__all__ = ["LbgEventTermination"]


@register(TerminationFnKey.LBG_EVENTS)
@dataclass(frozen=True)
class LbgEventTermination:
    """``step >= max_steps`` or breach or catch or every bandit repelled (bool[]).

    ``max_steps``, ``dt`` and the reference orbit are read from the configuration at call
    time. The fields and defaults are the seed page's; negative radii and dwell counts that
    are not whole numbers ``>= 0`` raise ``ValueError`` here (orbitalgym accepts them).
    """

    breach_radius_m: float
    catch_radius_m: float = 0.0
    breach_speed_mps: float = float("inf")
    catch_speed_mps: float = float("inf")
    catch_dwell_steps: int = 0
    breach_dwell_steps: int = 0
    escape_radius_m: float = 0.0
    repel_on_empty_tank: bool = False

    def __post_init__(self) -> None:
        for name in ("breach_radius_m", "catch_radius_m", "escape_radius_m"):
            check_length("LbgEventTermination", name, getattr(self, name))
        for name in ("catch_dwell_steps", "breach_dwell_steps"):
            check_dwell_steps("LbgEventTermination", name, getattr(self, name))

    def terminal_events(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: breach or catch or every bandit repelled; the step cap left out."""
        del t
        caught, breached, _, _ = lbg_events_with_dwell(
            prev_state,
            state,
            params.dt,
            self.catch_radius_m,
            self.catch_speed_mps,
            self.breach_radius_m,
            self.breach_speed_mps,
            self.catch_dwell_steps,
            self.breach_dwell_steps,
        )
        repelled = lbg_repelled(
            state,
            params,
            self.escape_radius_m,
            self.repel_on_empty_tank,
            self.breach_radius_m,
            self.breach_speed_mps,
        )
        return jnp.logical_or(breached, jnp.logical_or(caught, repelled))

    def __call__(self, prev_state: Any, state: Any, params: Any, t: Array) -> Array:
        """bool[]: the episode ends on this step."""
        hit_max = state.step >= params.max_steps
        return jnp.logical_or(hit_max, self.terminal_events(prev_state, state, params, t))
