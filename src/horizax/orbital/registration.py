"""The orbital ids of `horizax.make`: one per bundled game, a single-agent view each.

``horizax.make("Orbital-LadyBanditGuard-v0", controlled_side="bandit", max_horizon_s=500.0)``
builds the game's `ScenarioConfig` with its builder (every builder keyword is an override),
sets the controlled side, and gives the other side a scripted opponent (``opponent_policy``
overrides it), so the task is not trivial. The result is an `OrbitalFunctional`.

Default opponents (orbitalgym's heuristics, at the opponent's full per-step thrust
``max_thrust * dt / dry_mass``):

| game | agent is the guard: the bandit plays | agent is the bandit: the guard plays |
|---|---|---|
| LadyBanditGuard | `GlideslopeToLady` (glides onto the lady) | `GlideslopeIntercept` |
| PursuitEvasion | `LeadInterceptPursuer` | `OrthogonalEvader` (at half thrust) |
| GetOffMyLawn | `PhasedBandit` (coast, loiter 600 s at 300 m, commit) | `GlideslopeIntercept` |
| SunBlocking | `SunTrackerBlocker` on the start's Sun line | `ZeroControl` (coasts) |
| ObservationBlocking | `SunTrackerBlocker` on the start's target line | `ZeroControl` (coasts) |

In the two blocking games the agent is the bandit by default (the side whose task is to
block); the guard coasts on its relative orbit unless ``opponent_policy`` says otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["ALIASES", "ENVIRONMENTS", "families", "make_orbital"]


def _builder(game: str) -> Callable[..., Any]:
    from horizax.orbital import games

    return {
        "LadyBanditGuard": games.make_lady_bandit_guard,
        "PursuitEvasion": games.make_pursuit_evasion,
        "GetOffMyLawn": games.make_get_off_my_lawn,
        "SunBlocking": games.make_sun_blocking,
        "ObservationBlocking": games.make_observation_blocking,
    }[game]


# The side a registered id hands to the agent by default, per game.
_CONTROLLED = {
    "LadyBanditGuard": "guard",
    "PursuitEvasion": "guard",
    "GetOffMyLawn": "guard",
    "SunBlocking": "bandit",
    "ObservationBlocking": "bandit",
}


def make_orbital(
    game: str,
    *,
    controlled_side: str | None = None,
    opponent_policy: Any = None,
    max_steps: int | None = None,
    env_id: str = "",
    **builder_kwargs: Any,
) -> Any:
    """The `OrbitalFunctional` of a bundled game.

    Args:
        game: ``"LadyBanditGuard"``, ``"PursuitEvasion"``, ``"GetOffMyLawn"``,
            ``"SunBlocking"`` or ``"ObservationBlocking"``.
        controlled_side: ``"guard"`` or ``"bandit"`` (default: the game's, see ``_CONTROLLED``).
        opponent_policy: the policy of the other side (default: the scripted one above).
        max_steps: the step cap, as every family names it: ``max_horizon_s = max_steps * dt``
            (give one of the two).
        env_id: the id to report.
        **builder_kwargs: forwarded to the game's builder (``max_horizon_s``, knobs, ...).

    Raises:
        ValueError: for an unknown game or side, or a builder's own errors.
    """
    from horizax.core.checks import int_in_range
    from horizax.orbital.env.core import OrbitalGymEnv
    from horizax.orbital.env.types import Side
    from horizax.orbital.functional import OrbitalFunctional

    if game not in _CONTROLLED:
        raise ValueError(f"game must be one of {sorted(_CONTROLLED)}, got {game!r}")
    if max_steps is not None:
        if "max_horizon_s" in builder_kwargs:
            raise ValueError("give max_steps or max_horizon_s, not both")
        max_steps = int_in_range(max_steps, "max_steps")
        builder_kwargs["max_horizon_s"] = max_steps * float(builder_kwargs.get("dt", 10.0))
    cfg = _builder(game)(**builder_kwargs)
    try:
        side = Side(controlled_side or _CONTROLLED[game])
    except ValueError:
        raise ValueError(
            f"controlled_side must be 'guard' or 'bandit', got {controlled_side!r}"
        ) from None
    changes: dict[str, Any] = {"controlled_side": side}
    if opponent_policy is None:
        opponent_policy = _default_opponent(game, side.opposite(), cfg)
    changes[f"{side.opposite().value}_policy"] = opponent_policy
    cfg = dataclasses.replace(cfg, **changes)
    return OrbitalFunctional(OrbitalGymEnv(cfg), env_id)


def _default_opponent(game: str, side: Any, cfg: Any) -> Any:
    """The scripted policy of ``side`` (the side the agent does not control)."""
    from horizax.orbital.env.types import Side
    from horizax.orbital.policies import heuristic

    guard = side is Side.GUARD
    params = cfg.guard_params if guard else cfg.bandit_params
    dv_max = params.max_thrust_n * cfg.dt / params.dry_mass_kg
    n_self, n_other = (cfg.n_guards, cfg.n_bandits) if guard else (cfg.n_bandits, cfg.n_guards)
    common = dict(
        mean_motion=cfg.mean_motion,
        dt=float(cfg.dt),
        n_vehicles=n_self,
        n_opponents=n_other,
        state_dim=cfg.truth_frame.dim * 2,
        command_cls=None,
        max_dv_mps=dv_max,
    )
    if game in ("SunBlocking", "ObservationBlocking"):
        if guard:
            from horizax.orbital.policies.zero import ZeroControl

            return ZeroControl(n_vehicles=n_self)
        return heuristic.SunTrackerBlocker(
            sun_dir_rtn=_start_line_of_sight(cfg), max_dv_mps=dv_max, n_vehicles=n_self
        )
    if game == "PursuitEvasion":
        if guard:
            return heuristic.OrthogonalEvader(max_dv_mps=0.5 * dv_max, n_vehicles=n_self)
        return heuristic.LeadInterceptPursuer(
            max_dv_mps=dv_max, dt=float(cfg.dt), n_vehicles=n_self
        )
    if guard:
        return heuristic.GlideslopeIntercept.build(**common)
    if game == "GetOffMyLawn":
        return heuristic.PhasedBandit.build(
            **common, t_coast_s=100.0, standoff_m=300.0, t_hold_s=600.0
        )
    return heuristic.GlideslopeToLady.build(**common)


def _start_line_of_sight(cfg: Any) -> tuple[float, float, float]:
    """The RTN direction from the reference orbit to the Sun (Sun-Blocking) or to the ground
    target (Observation-Blocking) at the episode's start, computed once on the host."""
    import jax.numpy as jnp
    import numpy as np

    from horizax.orbital.earth import sun_position_eci
    from horizax.orbital.games.observation_blocking import ObservationBlocking, target_eci
    from horizax.orbital.reference_orbit import ReferenceOrbitState, rotation_rtn_to_eci

    start = jnp.zeros((), jnp.float32)
    if isinstance(cfg.game, ObservationBlocking):
        far = target_eci(cfg.game, cfg.epoch_mjd_utc, start)
    else:
        far = sun_position_eci(cfg.epoch_mjd_utc, start)
    reference = ReferenceOrbitState(
        position_eci=jnp.asarray(cfg.reference_orbit.position_eci, jnp.float32),
        velocity_eci=jnp.asarray(cfg.reference_orbit.velocity_eci, jnp.float32),
    )
    line = np.asarray(rotation_rtn_to_eci(reference).T @ (far - reference.position_eci))
    line = line / np.linalg.norm(line)
    return (float(line[0]), float(line[1]), float(line[2]))


def _factory(game: str, env_id: str) -> Callable[..., Any]:
    def factory(**overrides: Any) -> Any:
        return make_orbital(game, env_id=env_id, **overrides)

    factory.__name__ = f"make_{env_id.replace('-', '_')}"
    factory.__doc__ = f"`make_orbital({game!r}, ...)`: the {env_id} environment."
    return factory


ENVIRONMENTS = {f"Orbital-{game}-v0": _factory(game, f"Orbital-{game}-v0") for game in _CONTROLLED}
ALIASES: dict[str, str] = {}


def families() -> list[Any]:
    """One `horizax.core.registry.Family` per game, summarised by its game module's docstring
    (``"Lady-Bandit-Guard: guards defend the lady, ..."``) under the name in its id."""
    import importlib

    from horizax.core.registry import family_from_doc

    out = []
    for game in _CONTROLLED:
        module = importlib.import_module(_builder(game).__module__)
        family = family_from_doc(module.__doc__, "orbital", [f"Orbital-{game}-v0"])
        out.append(dataclasses.replace(family, name=game))
    return out
