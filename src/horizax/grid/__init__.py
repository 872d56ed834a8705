"""MiniGrid task families in JAX (seeds 000 and 004)."""

from horizax.core.step_type import StepType, check_truncation
from horizax.grid.environment import Environment, Timestep
from horizax.grid.state import State

__all__ = ["Environment", "State", "StepType", "Timestep", "check_truncation"]
