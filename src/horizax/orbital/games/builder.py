"""`build_scenario`: the `ScenarioConfig` a game's builder makes, with the shared defaults.

orbitalgym's builders (other than Lady-Bandit-Guard's) differ only in their game, their two
initial-condition ellipses and their horizon; everything else defaults alike.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp

from horizax.orbital.config import ScenarioConfig, VehicleParamsSpec
from horizax.orbital.reference_orbit import ReferenceOrbitState
from horizax.orbital.sampling.side import RelativeEllipse
from horizax.orbital.sampling.spec import ICSpec

__all__ = ["build_scenario"]


def build_scenario(
    game: Any,
    *,
    guard_ellipse: dict[str, Any],
    bandit_ellipse: dict[str, Any],
    reference_orbit: Any,
    guard_params: Any,
    bandit_params: Any,
    ic_sampler: Any,
    **fields: Any,
) -> Any:
    """A game's `ScenarioConfig`, with orbitalgym's builders' defaults for what is None.

    The default reference orbit is 7000 km from the Earth's centre at 7.5 km/s (equatorial),
    both vehicles 100 kg dry, Isp 220 s, 5 N, each side on a `RelativeEllipse` with the given
    keywords, no validators and at most 100 draws.

    Args:
        game: the game (its knobs).
        guard_ellipse: `RelativeEllipse` keywords of the guard's default sampler.
        bandit_ellipse: the same for the bandit.
        reference_orbit: a `ReferenceOrbitState`, or None.
        guard_params: a `VehicleParamsSpec`, or None.
        bandit_params: a `VehicleParamsSpec`, or None.
        ic_sampler: an `ICSpec`, or None.
        **fields: every other `ScenarioConfig` field, passed through.
    """
    if reference_orbit is None:
        reference_orbit = ReferenceOrbitState(
            position_eci=jnp.array([7000e3, 0.0, 0.0]),
            velocity_eci=jnp.array([0.0, 7.5e3, 0.0]),
        )
    default_params = VehicleParamsSpec(dry_mass_kg=100.0, isp_s=220.0, max_thrust_n=5.0)
    if ic_sampler is None:
        ic_sampler = ICSpec(
            guard_sampler=RelativeEllipse(**guard_ellipse),
            bandit_sampler=RelativeEllipse(**bandit_ellipse),
            validators=(),
            max_attempts=100,
        )
    return ScenarioConfig(
        reference_orbit=reference_orbit,
        guard_params=default_params if guard_params is None else guard_params,
        bandit_params=default_params if bandit_params is None else bandit_params,
        ic_sampler=ic_sampler,
        game=game,
        **fields,
    )
