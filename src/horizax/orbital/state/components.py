"""A vehicle side's state: the components a scenario asks for, as one pytree.

orbitalgym assembles a class per scenario from its components; horizax keeps one class,
`SideState`, whose absent components are ``None`` (an empty subtree), so the same code reads
``state.guards.rtn`` and a scenario's pytree structure is still fixed by its configuration.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass
from horizax.orbital.registry import StateComponentKey

__all__ = [
    "SideState",
    "positions",
    "truth_state",
    "velocities",
    "with_truth_state",
    "zeros",
]


@pytree_dataclass
class SideState(Replaceable):
    """The state of the ``n`` vehicles of one side.

    Attributes:
        rtn: f32[n, 6] ``[R, T, N, dR, dT, dN]`` (m, m/s) relative to the reference orbit,
            or None when the side is in the RT frame.
        rt: f32[n, 4] ``[R, T, dR, dT]``, or None when the side is in the RTN frame.
        propellant_mass: f32[n] propellant left (kg), or None without the MASS component.
        applied_dv: f32[n, 3], the velocity change of the step being assembled; zero between
            steps (the step reports it in ``info["applied_dv"]``).
    """

    rtn: Array | None
    rt: Array | None
    propellant_mass: Array | None
    applied_dv: Array


def zeros(components: Sequence[StateComponentKey], n: int, dtype=jnp.float32) -> SideState:
    """A `SideState` of ``n`` vehicles with the given components, all zero."""
    comps = set(components)
    return SideState(
        rtn=jnp.zeros((n, 6), dtype) if StateComponentKey.RTN in comps else None,
        rt=jnp.zeros((n, 4), dtype) if StateComponentKey.RT in comps else None,
        propellant_mass=jnp.zeros((n,), dtype) if StateComponentKey.MASS in comps else None,
        applied_dv=jnp.zeros((n, 3), dtype),
    )


def truth_state(side: SideState) -> Array:
    """f32[n, 6] (RTN) or f32[n, 4] (RT): the state the dynamics propagate."""
    if side.rtn is not None:
        return side.rtn
    if side.rt is None:
        raise ValueError("a SideState needs an rtn or an rt component")
    return side.rt


def with_truth_state(side: SideState, state: Array) -> SideState:
    """``side`` with its truth-frame state replaced by ``state``."""
    if side.rtn is not None:
        return side.replace(rtn=state)
    return side.replace(rt=state)


def positions(side: SideState) -> Array:
    """f32[n, 3] positions (m) in RTN; an RT state has zero cross-track."""
    if side.rtn is not None:
        return side.rtn[..., :3]
    rt = truth_state(side)
    return jnp.concatenate([rt[..., :2], jnp.zeros_like(rt[..., :1])], axis=-1)


def velocities(side: SideState) -> Array:
    """f32[n, 3] velocities (m/s) in RTN; an RT state has zero cross-track."""
    if side.rtn is not None:
        return side.rtn[..., 3:]
    rt = truth_state(side)
    return jnp.concatenate([rt[..., 2:], jnp.zeros_like(rt[..., :1])], axis=-1)
