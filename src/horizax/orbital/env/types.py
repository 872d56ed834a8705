"""The data types of the symmetric core: sides, per-side containers, commands and outputs.

Axis order everywhere: batch, then time, then vehicle, then feature.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, ClassVar

import jax.numpy as jnp
from jax import Array

from horizax.core.struct import Replaceable, field, pytree_dataclass, static_field

__all__ = [
    "Actions",
    "BySide",
    "Command",
    "Side",
    "SideOutput",
    "SideTrajectory",
    "StepOutput",
    "Trajectory",
    "command_class",
]


class Side(StrEnum):
    """Which side a vehicle fights on. A Python value, never traced."""

    GUARD = "guard"
    BANDIT = "bandit"

    def opposite(self) -> Side:
        """The other side."""
        return Side.BANDIT if self is Side.GUARD else Side.GUARD


@pytree_dataclass
class BySide(Replaceable):
    """One value per side; itself a pytree, so `vmap`, `scan` and `tree.map` see through it."""

    guard: Any
    bandit: Any

    def get(self, side: Side | str) -> Any:
        """The value of ``side``."""
        return self.guard if Side(side) is Side.GUARD else self.bandit

    def map(self, fn: Callable[[Any], Any]) -> BySide:
        """`BySide` of ``fn`` applied to each side's value."""
        return BySide(guard=fn(self.guard), bandit=fn(self.bandit))

    def items(self) -> tuple[tuple[Side, Any], tuple[Side, Any]]:
        """``((Side.GUARD, guard), (Side.BANDIT, bandit))``."""
        return ((Side.GUARD, self.guard), (Side.BANDIT, self.bandit))


@pytree_dataclass
class Command(Replaceable):
    """One side's command for a step.

    Attributes:
        dv: f32[n_side, dim], the impulsive velocity change each vehicle asks for, in m/s in
            the action frame (``dim`` is 3 for RTN, 2 for RT). It is clipped by thrust and
            propellant before it is applied (`StepOutput.info["applied_dv"]`).
    """

    dim: ClassVar[int] = 3
    dv: Array

    @classmethod
    def zeros(cls, n: int) -> Command:
        """The identity command (no thrust) for ``n`` vehicles."""
        return cls(dv=jnp.zeros((n, cls.dim), jnp.float32))


_COMMAND_CLASSES: dict[tuple[str, int], type[Command]] = {}


def command_class(name: str, dim: int) -> type[Command]:
    """The `Command` subclass called ``name`` whose ``dv`` has width ``dim`` (cached)."""
    cached = _COMMAND_CLASSES.get((name, dim))
    if cached is None:
        cached = pytree_dataclass(type(name, (Command,), {"dim": dim, "__annotations__": {}}))
        _COMMAND_CLASSES[(name, dim)] = cached
    return cached


@pytree_dataclass
class Actions(Replaceable):
    """Both sides' commands for one step: ``sides.guard`` and ``sides.bandit``."""

    sides: BySide


@pytree_dataclass
class SideOutput(Replaceable):
    """What one side receives after a reset or a step.

    Attributes:
        obs: the side's observation: a tuple of `Observation` channels.
        reward: f32[], the side's reward (0.0 after a reset).
        done: bool[], the episode's end, the same scalar for both sides.
    """

    obs: Any
    reward: Array
    done: Array


@pytree_dataclass
class StepOutput(Replaceable):
    """The result of `OrbitalGymEnv.step`.

    Attributes:
        state: the `EnvState` leaving the step.
        outputs: `BySide` of `SideOutput`.
        episode_done: bool[], what the termination function returned.
        info: ``{"applied_dv": BySide of f32[n_side, 3], "invalid_action": BySide of
            bool[n_side]}``: the truth-frame velocity change actually applied (after the
            thrust and propellant clips), and which commands were not finite (they are
            applied as no thrust).
        terminated: bool[], the episode reached an absorbing event (breach, catch, capture,
            repel, distance exit): do not bootstrap. horizax's addition.
        truncated: bool[], the episode ended only because of the step cap: bootstrap from
            the observation. Never true together with ``terminated``. horizax's addition.
    """

    state: Any
    outputs: BySide
    episode_done: Array
    info: dict[str, Any]
    terminated: Array = field(default_factory=lambda: jnp.asarray(False))
    truncated: Array = field(default_factory=lambda: jnp.asarray(False))


@pytree_dataclass
class SideTrajectory(Replaceable):
    """One side's history over a rollout; each field gains a leading time axis T."""

    obs: Any
    action: Any
    reward: Array
    done: Array
    policy_state: Any


@pytree_dataclass
class Trajectory(Replaceable):
    """A rollout, stacked over time.

    Attributes:
        env_state: the `EnvState` entering each step (leading axis T).
        sides: `BySide` of `SideTrajectory`.
        episode_done: bool[T], latched: true from the first ending step on.
        contact: unused here (None); kept for orbitalgym's field list.
        visible: unused here (None).
        applied_dv: `BySide` of f32[T, n_side, 3].
        final_state: the `EnvState` leaving the last step.
        terminated: bool[T], latched like ``episode_done``, for episodes that terminated.
        truncated: bool[T], latched, for episodes that were cut by the step cap.
        controlled_side: the side a single-agent rollout controls (static).
    """

    env_state: Any
    sides: BySide
    episode_done: Array
    contact: Any = None
    visible: Any = None
    applied_dv: Any = None
    final_state: Any = None
    terminated: Any = None
    truncated: Any = None
    controlled_side: Side = static_field(default=Side.GUARD)
