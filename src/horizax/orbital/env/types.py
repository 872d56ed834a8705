"""The data types of the symmetric core: sides, per-side containers, commands and outputs.

Axis order everywhere: batch, then time, then vehicle, then feature.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, ClassVar, Self

import jax.numpy as jnp
from jax import Array

from horizax.core.struct import Replaceable, field, pytree_dataclass, static_field
from horizax.orbital.actions.components import Communicate
from horizax.orbital.registry import ActionComponentKey

__all__ = [
    "Actions",
    "BySide",
    "Command",
    "CommunicatingCommand",
    "Side",
    "SideOutput",
    "SideTrajectory",
    "StepOutput",
    "Trajectory",
    "check_action_components",
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
    """One side's command for a step (the IMPULSIVE_MANEUVER component alone).

    Attributes:
        dv: f32[n_side, dim], the impulsive velocity change each vehicle asks for, in m/s in
            the action frame (``dim`` is 3 for RTN, 2 for RT). It is clipped by thrust and
            propellant before it is applied (`StepOutput.info["applied_dv"]`).
    """

    dim: ClassVar[int] = 3
    components: ClassVar[tuple[ActionComponentKey, ...]] = (ActionComponentKey.IMPULSIVE_MANEUVER,)
    dv: Array

    @classmethod
    def zeros(cls, n: int) -> Self:
        """The identity command (no thrust) for ``n`` vehicles."""
        return cls(dv=jnp.zeros((n, cls.dim), jnp.float32))


@pytree_dataclass
class CommunicatingCommand(Command):
    """One side's command with the IMPULSIVE_MANEUVER and COMMUNICATE components.

    Attributes:
        dv: f32[n_side, dim], as in `Command`.
        active: bool[n_side], which vehicles broadcast this step (`Communicate`).
        payload: f32[n_side, 6], what each broadcasts (read by no bundled component).
    """

    components: ClassVar[tuple[ActionComponentKey, ...]] = (
        ActionComponentKey.IMPULSIVE_MANEUVER,
        ActionComponentKey.COMMUNICATE,
    )
    active: Array
    payload: Array

    @classmethod
    def zeros(cls, n: int) -> Self:
        """The identity command for ``n`` vehicles: no thrust, no broadcast, zero payload."""
        return cls(dv=jnp.zeros((n, cls.dim), jnp.float32), **Communicate().zeros(n))


# The action-component tuples a side may have. IMPULSIVE_MANEUVER is always there (the step
# always reads ``dv``) and comes first, so a command's field order, and with it the flat
# layout of `horizax.orbital.actions.flat`, is ``dv`` then ``active``, ``payload``.
_BASES: dict[tuple[ActionComponentKey, ...], type[Command]] = {
    Command.components: Command,
    CommunicatingCommand.components: CommunicatingCommand,
}
_COMMAND_CLASSES: dict[tuple[str, int, tuple[ActionComponentKey, ...]], type[Command]] = {}


def check_action_components(name: str, components: Any) -> tuple[ActionComponentKey, ...]:
    """``components`` as a tuple of `ActionComponentKey`, if horizax can build it.

    Args:
        name: the argument's name, for the error message.
        components: a tuple (or list) of keys or their string values.

    Returns:
        ``(IMPULSIVE_MANEUVER,)`` or ``(IMPULSIVE_MANEUVER, COMMUNICATE)``.

    Raises:
        ValueError: naming ``name``, for an unknown key or any other combination.
    """
    if isinstance(components, str) or not isinstance(components, tuple | list):
        raise ValueError(f"{name} must be a tuple of ActionComponentKey, got {components!r}")
    try:
        keys = tuple(ActionComponentKey(c) for c in components)
    except ValueError:
        known = ", ".join(k.value for k in ActionComponentKey)
        raise ValueError(f"{name}: each key must be one of {known}, got {components!r}") from None
    if keys not in _BASES:
        raise ValueError(
            f"{name} must be (IMPULSIVE_MANEUVER,) or (IMPULSIVE_MANEUVER, COMMUNICATE): the "
            f"step always reads dv, first; got {components!r}"
        )
    return keys


def command_class(
    name: str,
    dim: int,
    components: tuple[ActionComponentKey, ...] = (ActionComponentKey.IMPULSIVE_MANEUVER,),
) -> type[Command]:
    """The command class called ``name`` whose ``dv`` has width ``dim`` (cached).

    Args:
        name: the class's name.
        dim: the width of ``dv`` (3 for RTN, 2 for RT).
        components: the side's action components: ``(IMPULSIVE_MANEUVER,)`` gives a
            `Command` subclass, ``(IMPULSIVE_MANEUVER, COMMUNICATE)`` a
            `CommunicatingCommand` subclass.

    Raises:
        ValueError: for components `check_action_components` rejects.
    """
    keys = check_action_components("components", components)
    cached = _COMMAND_CLASSES.get((name, dim, keys))
    if cached is None:
        base = _BASES[keys]
        cached = pytree_dataclass(type(name, (base,), {"dim": dim, "__annotations__": {}}))
        _COMMAND_CLASSES[(name, dim, keys)] = cached
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
