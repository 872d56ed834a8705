"""The environment: the symmetric core, its types and the single-agent view."""

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

__all__ = [
    "Actions",
    "BySide",
    "EnvState",
    "OrbitalGymEnv",
    "Side",
    "SideOutput",
    "SideTrajectory",
    "SingleAgentView",
    "StepOutput",
    "Trajectory",
]
