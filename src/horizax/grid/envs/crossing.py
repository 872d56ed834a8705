"""Crossing: reach the goal across rivers of lava (LavaCrossing) or walls (SimpleCrossing).

MiniGrid's CrossingEnv on an odd ``size`` x ``size`` walled room: the agent starts at
``(1, 1)`` facing right, the goal is at ``(size-2, size-2)``. The candidate rivers are the
full interior columns ``x = 2, 4, ..., size-3`` (vertical) and rows ``y = 2, 4, ..., size-3``
(horizontal); ``num_crossings`` of them are chosen uniformly (MiniGrid shuffles the list and
keeps a prefix) and filled with the obstacle. A monotone path from the top-left room to the
bottom-right room is then drawn: one horizontal move per chosen column and one vertical move
per chosen row, in a uniformly random order. Each move makes one opening in the river it
crosses, at a uniform position along the span of the room the path is in (strictly between
the neighbouring rivers of the other orientation, or the outer walls). Every river therefore
has exactly one opening and openings never lie on a river crossing. ``max_steps = 4 *
size**2``; MiniGrid sets ``see_through_walls=False`` here, so the view is occluded.

The generator is fixed-shape and branch-free: the rivers are those ranked first by a random
permutation of the static candidate list, the path is a random permutation thresholded at the
number of chosen columns, and the ``num_crossings`` (static) path steps are unrolled, each
computing both possible openings and selecting one.

* observation: u8[7, 7, 3] egocentric, occluded view (`symbolic_first_person`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal, else 0 (lava gives 0).
* termination: goal reached or lava entered; truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-LavaCrossingS9N1-v0")
    >>> ts = env.reset(jax.random.PRNGKey(0))
    >>> ts = env.step(ts, jnp.int32(2))
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import missions, observations, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import random_bits
from horizax.grid.state import State, make_state, walled_grid


def random_ranks(key: Array, n: int) -> Array:
    """i32[n]: the ranks of a uniformly random permutation of ``n`` items (static ``n``).

    Item i's rank is the number of items whose random 32-bit score comes first (ties, of
    probability ~n**2 / 2**33, broken by index). n**2 comparisons instead of a sort, which
    is slow under `vmap` on CPU; meant for the few rivers and path steps here.
    """
    if n == 0:
        return jnp.zeros(0, jnp.int32)
    score = random_bits(key, (n,))
    index = jnp.arange(n)
    first = (score[None, :] < score[:, None]) | (
        (score[None, :] == score[:, None]) & (index[None, :] < index[:, None])
    )
    return jnp.sum(first, axis=1).astype(jnp.int32)


def _uniform_between(bits: Array, low: Array, high: Array) -> Array:
    """i32[]: ``low + bits % (high - low)``, uniform on ``[low, high)`` up to span / 2**32."""
    span = jnp.maximum(high - low, 1).astype(jnp.uint32)
    return (low + (bits % span).astype(jnp.int32)).astype(jnp.int32)


def crossing_layout(size: int, num_crossings: int, obstacle: tuple[int, int, int]) -> LayoutFn:
    """The layout function of MiniGrid's CrossingEnv.

    Args:
        size: odd grid side (walls included), at least 5.
        num_crossings: how many rivers to draw (static), in ``[0, size - 3]``.
        obstacle: the river cell encoding (`C.LAVA_CELL` or `C.WALL_CELL`).

    Returns:
        ``key -> State``.

    Raises:
        ValueError: for an even or too small ``size`` or an impossible ``num_crossings``.
    """
    if size % 2 != 1 or size < 5:
        raise ValueError(f"Crossing needs an odd size >= 5, got {size}")
    per_axis = (size - 3) // 2  # candidate rivers per orientation
    if not 0 <= num_crossings <= 2 * per_axis:
        raise ValueError(f"num_crossings must be in [0, {2 * per_axis}], got {num_crossings}")
    base = walled_grid(size, size)
    base[size - 2, size - 2] = C.GOAL_CELL
    # numpy, not jnp, constants: building a layout at import must not start XLA.
    river_coord = np.arange(2, size - 2, 2, dtype=np.int32)  # i32[per_axis]
    interior = np.zeros(size, dtype=bool)
    interior[1 : size - 1] = True
    obstacle_cell = np.asarray(obstacle, np.uint8)
    template = (
        missions.Template.AVOID_LAVA if obstacle[0] == C.LAVA else missions.Template.FIND_OPENING
    )

    def limits(chosen: Array) -> Array:
        # MiniGrid's ``[0] + sorted(rivers) + [size - 1]``, padded to a fixed length with
        # ``size - 1`` after the chosen rivers (padding is only read once the path has
        # crossed every river of that orientation, where ``size - 1`` is the right limit).
        # The candidates are already sorted, so the j-th chosen one is found by counting.
        slot = jnp.cumsum(chosen) - 1
        match = chosen[None, :] & (slot[None, :] == jnp.arange(per_axis)[:, None])
        coords = jnp.where(
            jnp.any(match, axis=1), jnp.sum(match * river_coord[None, :], axis=1), size - 1
        )
        return jnp.concatenate([jnp.zeros(1, jnp.int32), coords, jnp.full(1, size - 1)])

    def layout(key: Array) -> State:
        river_key, path_key, opening_key = jax.random.split(key, 3)
        # Rivers 0..per_axis-1 are columns, the rest rows; MiniGrid's shuffled prefix is a
        # uniform num_crossings-subset: the rivers ranked first by a random permutation.
        chosen = random_ranks(river_key, 2 * per_axis) < num_crossings
        cols, rows = chosen[:per_axis], chosen[per_axis:]
        xs = jnp.arange(size)
        on_col = jnp.any((xs[:, None] == river_coord[None, :]) & cols[None, :], axis=1)
        on_row = jnp.any((xs[:, None] == river_coord[None, :]) & rows[None, :], axis=1)
        inside = jnp.asarray(interior)
        river = (on_col[:, None] & inside[None, :]) | (inside[:, None] & on_row[None, :])

        # The path: a uniform arrangement of n_cols horizontal and n_rows vertical moves,
        # i.e. the horizontal moves sit at a uniform n_cols-subset of the steps.
        n_cols = jnp.sum(cols).astype(jnp.int32)
        horizontal = random_ranks(path_key, num_crossings) < n_cols
        limits_x, limits_y = limits(cols), limits(rows)
        # Opening offsets: 32 random bits modulo the span (a bias below 1e-8).
        bits = random_bits(opening_key, (max(num_crossings, 1), 2))
        room_x = room_y = jnp.int32(0)
        opening = jnp.zeros((size, size), bool)
        for step in range(num_crossings):
            # Crossing a column: x is that column, y uniform inside the current row span;
            # crossing a row: y is that row, x uniform inside the current column span.
            y = _uniform_between(bits[step, 0], limits_y[room_y] + 1, limits_y[room_y + 1])
            x = _uniform_between(bits[step, 1], limits_x[room_x] + 1, limits_x[room_x + 1])
            go_x = horizontal[step]
            pos_x = jnp.where(go_x, limits_x[room_x + 1], x)
            pos_y = jnp.where(go_x, y, limits_y[room_y + 1])
            opening = opening | ((xs[:, None] == pos_x) & (xs[None, :] == pos_y))
            room_x = room_x + go_x.astype(jnp.int32)
            room_y = room_y + (~go_x).astype(jnp.int32)
        grid = jnp.where((river & ~opening)[..., None], obstacle_cell, jnp.asarray(base))
        mission = missions.encode(template)
        return make_state(grid, jnp.array([1, 1]), jnp.int32(0), mission=mission)

    return layout


def _entry(kind: str, size: int, num_crossings: int) -> tuple[str, object]:
    name = f"MiniGrid-{kind}CrossingS{size}N{num_crossings}-v0"
    obstacle = C.LAVA_CELL if kind == "Lava" else C.WALL_CELL
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=4 * size**2,
        layout_fn=crossing_layout(size, num_crossings, obstacle),
        observation_fn=observations.symbolic_first_person,
        termination_fn=terminations.compose(
            terminations.on_goal_reached, terminations.on_lava_fall
        ),
        layout_objects=frozenset({C.WALL, C.GOAL, obstacle[0]}),
    )


ENVIRONMENTS = dict(
    _entry(kind, size, n)
    for kind in ("Lava", "Simple")
    for size, n in [(9, 1), (9, 2), (9, 3), (11, 5)]
)
ALIASES = navix_aliases(list(ENVIRONMENTS))
