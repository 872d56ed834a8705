"""`horizax.grid.layout_facts`: the fields of a layout that no key changes."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import pytest

import horizax
from horizax.grid.layout_facts import key_independent_fields
from horizax.grid.state import State, make_state, walled_grid

EVERY_FIELD = frozenset(field.name for field in dataclasses.fields(State))


@pytest.mark.parametrize(
    ("env_id", "drawn"),
    [
        ("MiniGrid-Empty-8x8-v0", set()),
        ("MiniGrid-Empty-Random-6x6-v0", {"agent_pos", "agent_dir"}),
        ("MiniGrid-FourRooms-v0", {"grid", "agent_pos", "agent_dir"}),
        ("MiniGrid-LavaGapS5-v0", {"grid"}),
        ("MiniGrid-MemoryS13-v0", {"grid", "agent_pos", "mission"}),
    ],
)
def test_the_fields_each_family_draws(env_id, drawn):
    assert key_independent_fields(horizax.make(env_id).layout_fn) == EVERY_FIELD - drawn


def _layout(grid_of_key):
    base = walled_grid(5, 5)

    def layout(key):
        grid = grid_of_key(key, jnp.asarray(base))
        return make_state(grid, jnp.array([1, 1]), jnp.int32(0))

    return layout


def test_a_key_reaching_the_grid_through_any_path_makes_it_drawn():
    def through_cond(key, grid):  # a sub-program: counted as reached, conservatively
        return jax.lax.cond(key[0] > 0, lambda: grid, lambda: grid.at[1, 1, 0].set(2))

    def through_arithmetic(key, grid):
        return grid + (key[1] % 2).astype(jnp.uint8) * 0  # reached, though it adds zero

    def through_jit(key, grid):
        return jax.jit(lambda k, g: g.at[2, 2, 0].set(k[0].astype(jnp.uint8)))(key, grid)

    for fn in (through_cond, through_arithmetic, through_jit):
        assert "grid" not in key_independent_fields(_layout(fn)), fn.__name__
    assert "grid" in key_independent_fields(_layout(lambda key, grid: grid.at[3, 3, 0].set(8)))


def test_nothing_runs():
    """Only traced: a layout that would fail on concrete values is still read."""

    def layout(key):
        grid = jnp.asarray(walled_grid(5, 5))
        if not isinstance(key, jax.core.Tracer):
            raise AssertionError("the layout was run on a concrete key")
        return make_state(grid, jnp.array([1, 1]), jnp.int32(0))

    assert "grid" in key_independent_fields(layout)
