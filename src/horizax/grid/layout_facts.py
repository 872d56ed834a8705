"""Which fields of a layout function's `State` do not depend on its key, read off its jaxpr.

A layout function ``key -> State`` may draw some fields and fix others: Empty-8x8 fixes
everything, Empty-Random-6x6 draws the agent but fixes the grid. `key_independent_fields`
traces the function once on an abstract key (nothing runs, so JAX's backend is not started)
and follows the key through the equations: a field none of whose values the key reaches is
the same for every key. The analysis is conservative: an equation with a sub-program (a
nested `jit`, a `cond`) counts every output as reached when any input is, so a field may be
reported as drawn when it is in fact fixed, never the other way round.

`horizax.grid.environment.Environment.fixed_grid` uses it: a grid that no key changes, and
that no action, dynamics or post-action rule edits, is configuration rather than state.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax.extend import core as jax_core

from horizax.grid.state import State

__all__ = ["key_independent_fields"]


def key_independent_fields(layout_fn: Callable[[jax.Array], State]) -> frozenset[str]:
    """The names of the `State` fields whose every value is the same for every key.

    Args:
        layout_fn: ``key -> State`` taking one raw ``uint32[2]`` PRNG key.

    Returns:
        Field names (``"grid"``, ``"agent_pos"``, ...); a field with no leaves (an empty
        ``extra``) counts as independent.
    """
    key = jax.ShapeDtypeStruct((2,), jnp.uint32)
    closed, shape = jax.make_jaxpr(layout_fn, return_shape=True)(key)
    reached = set(closed.jaxpr.invars)
    for eqn in closed.jaxpr.eqns:
        if any(isinstance(v, jax_core.Var) and v in reached for v in eqn.invars):
            reached.update(eqn.outvars)
    drawn = [isinstance(v, jax_core.Var) and v in reached for v in closed.jaxpr.outvars]
    flags = jax.tree.unflatten(jax.tree.structure(shape), drawn)
    return frozenset(
        field.name
        for field in dataclasses.fields(flags)
        if not any(jax.tree.leaves(getattr(flags, field.name)))
    )
