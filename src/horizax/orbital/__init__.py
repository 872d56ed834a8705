"""Orbital guard/bandit games with orbitalgym's API and module paths, under `jax.jit`.

Code written for orbitalgym runs after changing ``orbitalgym`` to ``horizax.orbital`` in its
imports::

    import dataclasses, jax
    from horizax.orbital import OrbitalGymEnv, make_lady_bandit_guard
    from horizax.orbital.termination.reference import MaxStepsOnly

    cfg = make_lady_bandit_guard(seed=0, max_horizon_s=200.0)      # 20 steps of 10 s
    cfg = dataclasses.replace(cfg, termination_fn=MaxStepsOnly())
    env = OrbitalGymEnv(cfg)
    state, outputs = env.reset(jax.random.PRNGKey(0))

Beyond orbitalgym, `StepOutput` reports ``terminated`` and ``truncated`` apart: the step cap
truncates, an event (breach, catch, capture, repel, distance exit) terminates. Importing the
package imports its bundled components, which registers them (`horizax.orbital.catalog`);
it runs no JAX computation and changes no JAX setting.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from horizax.orbital import catalog as _catalog  # noqa: F401

if TYPE_CHECKING:  # the lazy names below, for type checkers and editors
    from horizax.orbital.config import ScenarioConfig, VehicleParamsSpec
    from horizax.orbital.env.core import EnvState, OrbitalGymEnv
    from horizax.orbital.env.single_agent import SingleAgentView
    from horizax.orbital.env.types import (
        Actions,
        BySide,
        Side,
        SideOutput,
        SideTrajectory,
        StepOutput,
        Trajectory,
    )
    from horizax.orbital.games import make_game
    from horizax.orbital.games.base import Game, NoGame
    from horizax.orbital.games.get_off_my_lawn import GetOffMyLawn
    from horizax.orbital.games.lady_bandit_guard import LadyBanditGuard, make_lady_bandit_guard
    from horizax.orbital.games.observation_blocking import ObservationBlocking
    from horizax.orbital.games.pursuit_evasion import PursuitEvasion
    from horizax.orbital.games.sun_blocking import SunBlocking
    from horizax.orbital.observations.reference import FullObservation
    from horizax.orbital.observations.types import Observation, flatten_observations
    from horizax.orbital.policies.zero import ZeroControl
    from horizax.orbital.reference_orbit import ReferenceOrbitState, mean_motion
    from horizax.orbital.registry import DynamicsKey, Frame, GameKey, StateComponentKey
    from horizax.orbital.rollout import episode_mask, rollout, rollout_single_agent
    from horizax.orbital.sampling.mass import ConstantMass, UniformMass
    from horizax.orbital.sampling.side import RelativeEllipse
    from horizax.orbital.sampling.spec import ICSpec
    from horizax.orbital.sampling.validators import MaxRange, MinSeparation

_EXPORTS = {
    "OrbitalGymEnv": "horizax.orbital.env.core",
    "EnvState": "horizax.orbital.env.core",
    "SingleAgentView": "horizax.orbital.env.single_agent",
    "Actions": "horizax.orbital.env.types",
    "BySide": "horizax.orbital.env.types",
    "Side": "horizax.orbital.env.types",
    "SideOutput": "horizax.orbital.env.types",
    "StepOutput": "horizax.orbital.env.types",
    "SideTrajectory": "horizax.orbital.env.types",
    "Trajectory": "horizax.orbital.env.types",
    "ScenarioConfig": "horizax.orbital.config",
    "VehicleParamsSpec": "horizax.orbital.config",
    "ReferenceOrbitState": "horizax.orbital.reference_orbit",
    "mean_motion": "horizax.orbital.reference_orbit",
    "ICSpec": "horizax.orbital.sampling.spec",
    "RelativeEllipse": "horizax.orbital.sampling.side",
    "ConstantMass": "horizax.orbital.sampling.mass",
    "UniformMass": "horizax.orbital.sampling.mass",
    "MinSeparation": "horizax.orbital.sampling.validators",
    "MaxRange": "horizax.orbital.sampling.validators",
    "FullObservation": "horizax.orbital.observations.reference",
    "Observation": "horizax.orbital.observations.types",
    "flatten_observations": "horizax.orbital.observations.types",
    "ZeroControl": "horizax.orbital.policies.zero",
    "rollout": "horizax.orbital.rollout",
    "rollout_single_agent": "horizax.orbital.rollout",
    "episode_mask": "horizax.orbital.rollout",
    "Game": "horizax.orbital.games.base",
    "NoGame": "horizax.orbital.games.base",
    "LadyBanditGuard": "horizax.orbital.games.lady_bandit_guard",
    "make_lady_bandit_guard": "horizax.orbital.games.lady_bandit_guard",
    "PursuitEvasion": "horizax.orbital.games.pursuit_evasion",
    "GetOffMyLawn": "horizax.orbital.games.get_off_my_lawn",
    "SunBlocking": "horizax.orbital.games.sun_blocking",
    "ObservationBlocking": "horizax.orbital.games.observation_blocking",
    "make_game": "horizax.orbital.games",
    "GameKey": "horizax.orbital.registry",
    "DynamicsKey": "horizax.orbital.registry",
    "StateComponentKey": "horizax.orbital.registry",
    "Frame": "horizax.orbital.registry",
}

__all__ = [
    "Actions",
    "BySide",
    "ConstantMass",
    "DynamicsKey",
    "EnvState",
    "Frame",
    "FullObservation",
    "Game",
    "GameKey",
    "GetOffMyLawn",
    "ICSpec",
    "LadyBanditGuard",
    "MaxRange",
    "MinSeparation",
    "NoGame",
    "Observation",
    "ObservationBlocking",
    "OrbitalGymEnv",
    "PursuitEvasion",
    "ReferenceOrbitState",
    "RelativeEllipse",
    "ScenarioConfig",
    "Side",
    "SideOutput",
    "SideTrajectory",
    "SingleAgentView",
    "StateComponentKey",
    "StepOutput",
    "SunBlocking",
    "Trajectory",
    "UniformMass",
    "VehicleParamsSpec",
    "ZeroControl",
    "episode_mask",
    "flatten_observations",
    "make_game",
    "make_lady_bandit_guard",
    "mean_motion",
    "rollout",
    "rollout_single_agent",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'horizax.orbital' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
