"""What Sun-Blocking and Observation-Blocking share: absolute geometry and the blocking kernel.

Both games pay the bandit for standing between the guard and something far away (the Sun,
a ground target), seen from vehicle 0 of each side. That needs absolute (ECI) positions: the
reference orbit of the configuration, propagated in closed form to the state's time
(`reference_orbit_at`), carries the RTN frame, and ``eci = ref + R_rtn_to_eci @ rtn``.

The guard-bandit vector is rotated from the RTN difference rather than taken as the
difference of two ECI positions: in float32 each ECI position is ~7e6 m with a 0.5 m
spacing, which would put ~1e-3 of noise on the direction of a 500 m separation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax.numpy as jnp
from jax import Array

from horizax.orbital.env.types import Side
from horizax.orbital.reference_orbit import (
    ReferenceOrbitState,
    reference_orbit_at,
    rotation_rtn_to_eci,
)
from horizax.orbital.state.components import positions

__all__ = ["LeadGeometry", "blocking_kernel", "check_knob", "lead_geometry", "zero_sum_share"]

# orbitalgym's regulariser of the norms: the direction of a zero vector is zero, not NaN.
_EPS = 1e-12


class LeadGeometry(NamedTuple):
    """Vehicle 0 of each side in ECI at one instant (metres, the state's float dtype).

    Attributes:
        guard_eci: f[3], the lead guard's position.
        bandit_eci: f[3], the lead bandit's position.
        bandit_to_guard: f[3], ``guard_eci - bandit_eci`` computed from the RTN difference.
    """

    guard_eci: Array
    bandit_eci: Array
    bandit_to_guard: Array


def lead_geometry(state: Any, cfg: Any) -> LeadGeometry:
    """The ECI geometry of vehicle 0 of each side at ``state.t``.

    Args:
        state: an `EnvState` (one scenario).
        cfg: its `ScenarioConfig`; ``cfg.reference_orbit`` is the orbit at ``t = 0``.
    """
    dtype = jnp.result_type(state.t)
    start = ReferenceOrbitState(
        position_eci=jnp.asarray(cfg.reference_orbit.position_eci, dtype),
        velocity_eci=jnp.asarray(cfg.reference_orbit.velocity_eci, dtype),
    )
    reference = reference_orbit_at(start, state.t)
    rotation = rotation_rtn_to_eci(reference)
    guard = positions(state.guards)[0]
    bandit = positions(state.bandits)[0]
    return LeadGeometry(
        guard_eci=reference.position_eci + rotation @ guard,
        bandit_eci=reference.position_eci + rotation @ bandit,
        bandit_to_guard=rotation @ (guard - bandit),
    )


def blocking_kernel(
    bandit_to_guard: Array,
    bandit_to_object: Array,
    target_viewing_distance_m: float,
    range_decay_coef: float,
) -> Array:
    """f[]: the bandit's blocking reward, in ``[-1, 1]``.

    ``-(u_bg . u_bo) exp(-k (d_bg - d*)^2)``: +1 with the bandit exactly between the guard and
    the object at the standoff ``d*``, -1 with the guard between, near 0 far from both.

    Args:
        bandit_to_guard: f[3], from the bandit to the guard (m).
        bandit_to_object: f[3], from the bandit to the Sun or the target (m).
        target_viewing_distance_m: ``d*``, where the range factor peaks (m).
        range_decay_coef: ``k``, the Gaussian width of the range factor (1/m^2).
    """
    distance = jnp.linalg.norm(bandit_to_guard)
    to_guard = bandit_to_guard / (distance + _EPS)
    to_object = bandit_to_object / (jnp.linalg.norm(bandit_to_object) + _EPS)
    angular = -jnp.dot(to_guard, to_object)
    return angular * jnp.exp(-range_decay_coef * (distance - target_viewing_distance_m) ** 2)


def check_knob(owner: str, name: str, value: Any, low: float = 0.0, high: float = math.inf) -> None:
    """Raises ``ValueError`` naming ``owner.name`` unless ``value`` is a real in ``[low, high]``
    (finite unless ``high`` is infinite)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not (ok and low <= value <= high and math.isfinite(value)):
        span = f">= {low}" if high == math.inf else f"in [{low}, {high}]"
        raise ValueError(f"{owner}.{name} must be a finite number {span}; got {value!r}")


def zero_sum_share(
    owner: str,
    game_type: type,
    bandit_reward: Callable[[Any, Any, Any], Array],
    state: Any,
    side: Side,
    cfg: Any,
) -> Array:
    """f[]: ``bandit_reward(state, cfg, cfg.game)`` for the bandit, its negation for the guard.

    Raises:
        TypeError: naming ``owner``, unless ``cfg.game`` is a ``game_type`` (a Python check on
            the static configuration, made while tracing).
    """
    if not isinstance(cfg.game, game_type):
        raise TypeError(
            f"{owner} requires cfg.game: {game_type.__name__}; got {type(cfg.game).__name__}"
        )
    bandit = bandit_reward(state, cfg, cfg.game)
    return bandit if Side(side) is Side.BANDIT else -bandit
