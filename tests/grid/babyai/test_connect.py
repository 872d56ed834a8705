"""`horizax.grid.babyai.connect`: the closed form against MiniGrid's door-by-door process."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid.babyai import connect


def _sequential(order, already, admissible, cols, rows):
    """MiniGrid's process on a fixed order of the walls: add each admissible wall in turn
    while the rooms are not all connected."""
    open_walls = already.copy()
    added = np.zeros_like(already)
    for e in order:
        if bool(connect.connected(jnp.asarray(open_walls), cols, rows)):
            break
        if admissible[e]:
            open_walls[e] = added[e] = True
    return added


@pytest.mark.parametrize(("cols", "rows"), [(3, 3), (2, 1), (3, 1), (2, 2)])
def test_closed_form_equals_the_door_by_door_process(cols, rows):
    edges = len(connect.walls(cols, rows))
    doors = jax.jit(connect.added_doors, static_argnums=(3, 4))
    rng = np.random.default_rng(cols * 10 + rows)
    for _ in range(60):
        priority = rng.permutation(edges).astype(np.uint32) * 1000 + 7
        already = rng.random(edges) < 0.2
        # A locked room: its walls are not admissible, and one of them is already a door.
        admissible = ~already
        if cols * rows > 2 and rng.random() < 0.5:
            room = int(rng.integers(cols * rows))
            touching = (connect.rooms_of(cols, rows) == room).any(axis=1)
            admissible &= ~touching
            already[np.flatnonzero(touching)[0]] = True
        expected = _sequential(np.argsort(priority), already, admissible, cols, rows)
        got = doors(
            jnp.asarray(priority), jnp.asarray(already), jnp.asarray(admissible), cols, rows
        )
        np.testing.assert_array_equal(np.asarray(got), expected)


def test_walls_and_rooms_of_a_grid():
    assert connect.walls(3, 3).tolist()[:3] == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert len(connect.walls(3, 3)) == 12 and len(connect.walls(2, 1)) == 1
    assert connect.rooms_of(3, 3).tolist()[0] == [0, 1]
    assert connect.rooms_of(3, 3).tolist()[6] == [0, 3]  # the first bottom wall


def test_already_connected_adds_nothing():
    edges = len(connect.walls(3, 3))
    every = jnp.ones(edges, bool)
    assert not bool(
        connect.added_doors(jnp.arange(edges, dtype=jnp.uint32), every, every, 3, 3).any()
    )
