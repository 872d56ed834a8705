"""Playground: nine rooms, twelve closed doors and twelve random objects, with no task.

MiniGrid's PlaygroundEnv on a 19 x 19 grid: walls at rows and columns 0, 6, 12 and 18 cut it
into 3 x 3 rooms of 5 x 5 cells. For each room row ``j`` and room column ``i`` (in that
order) MiniGrid cuts a closed door of a uniform colour into the room's right wall (column
``6i + 6``, row ``6j + U[1, 4]``) unless it is the last column, then into its bottom wall
(row ``6j + 6``, column ``6i + U[1, 4]``) unless it is the last row: twelve doors. The agent
starts on a uniform room cell facing a uniform direction; then twelve objects, each a key,
ball or box (uniform) of a uniform colour, land on uniform free cells other than the agent's.
There is no goal and no reward. ``max_steps = 100``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7).
* reward: f32[], always 0 (there is no goal to reach).
* termination: MiniGrid's base rules only (goal or lava, neither exists here), so every
  episode is truncated at ``max_steps``. Not `terminations.DEFAULT_TERMINATION`: that also
  ends on walking into a ball, which MiniGrid's Playground does not do.
* mission: ``NONE`` (the empty string).

Example:
    >>> env = horizax.make("MiniGrid-Playground-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 3, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import cells, missions, observations, terminations
from horizax.grid import constants as C
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import mixed_radix, random_bits
from horizax.grid.state import State, make_state, walled_grid

SIZE = 19
ROOM = SIZE // 3  # 6: a room's pitch; its inside is 5 x 5
SIDE = ROOM - 1
ROOM_CELLS = SIDE * SIDE
NUM_CELLS = 9 * ROOM_CELLS  # the free cells before any object is placed: 225
NUM_OBJECTS = 12
KINDS = (C.KEY, C.BALL, C.BOX)  # `_rand_elem(["key", "ball", "box"])`
TERMINATION = terminations.compose(terminations.on_goal_reached, terminations.on_lava_fall)


def _door_slots() -> list[tuple[bool, int, int]]:
    """MiniGrid's draw order of the doors: ``(vertical, fixed coordinate, slot start)``.

    A vertical door lies in column ``fixed`` at row ``start + U[0, 4)``; a horizontal one in
    row ``fixed`` at column ``start + U[0, 4)``.
    """
    slots = []
    for j in range(3):
        for i in range(3):
            if i + 1 < 3:
                slots.append((True, (i + 1) * ROOM, j * ROOM + 1))
            if j + 1 < 3:
                slots.append((False, (j + 1) * ROOM, i * ROOM + 1))
    return slots


DOOR_SLOTS = _door_slots()


def _base() -> np.ndarray:
    grid = walled_grid(SIZE, SIZE)
    for k in (ROOM, 2 * ROOM):
        grid[k, :] = C.WALL_CELL
        grid[:, k] = C.WALL_CELL
    return grid


def cell_of_rank(rank: Array) -> Array:
    """i32[2]: room cell number ``rank`` (i32[] in [0, 225)), rooms in row-major order."""
    room, within = rank // ROOM_CELLS, rank % ROOM_CELLS
    return jnp.stack(
        [(room % 3) * ROOM + 1 + within // SIDE, (room // 3) * ROOM + 1 + within % SIDE]
    ).astype(jnp.int32)


def distinct_ranks(first: Array, digits: list[Array]) -> list[Array]:
    """Ranks drawn without replacement: the k-th is digit ``k`` among the unused ranks.

    Args:
        first: i32[], a rank already taken (the agent's).
        digits: i32[] each; digit ``k`` is uniform in ``[0, NUM_CELLS - 1 - k)``.

    Returns:
        i32[] ranks, distinct from each other and from ``first``: sequential uniform draws
        among the cells still free, i.e. MiniGrid's ``place_obj`` one object after another.
    """
    taken = [first]
    out = []
    for digit in digits:
        rank = digit
        # Walking the taken ranks in increasing order skips each one at or below the rank.
        for used in jnp.sort(jnp.stack(taken)):
            rank = rank + (rank >= used)
        taken.append(rank)
        out.append(rank)
    return out


def playground_layout(key: Array) -> State:
    """The layout of MiniGrid's PlaygroundEnv (``key -> State``).

    One `random_bits` call: four words for the twelve doors (three doors per word, each a
    row/column in 4 and a colour in 6), one for the agent's cell and direction, one per
    object (its free-cell rank, kind and colour). The free cells are always the 225 room
    cells, so cells are drawn by rank, objects without replacement (`distinct_ranks`). The
    modulo bias is below 1e-6 relative.
    """
    words = random_bits(key, (4 + 1 + NUM_OBJECTS,))
    door_digits = [
        mixed_radix(w, 4, C.NUM_COLORS, 4, C.NUM_COLORS, 4, C.NUM_COLORS) for w in words[:4]
    ]
    grid = jnp.asarray(_BASE)
    for n, (vertical, fixed, start) in enumerate(DOOR_SLOTS):
        # `_rand_int(start, start + 4)` along the wall, then `_rand_elem(COLOR_NAMES)`.
        offset, colour = door_digits[n // 3][2 * (n % 3) : 2 * (n % 3) + 2]
        moving = jnp.int32(start) + offset
        pos = jnp.stack([jnp.int32(fixed), moving] if vertical else [moving, jnp.int32(fixed)])
        door = jnp.stack([jnp.int32(C.DOOR), colour, jnp.int32(C.CLOSED)])
        grid = cells.write_cell(grid, pos, door)
    agent_rank, direction = mixed_radix(words[4], NUM_CELLS, 4)
    # Per object: its rank among the cells still free, `_rand_elem(types)`, the colour.
    draws = [
        mixed_radix(words[5 + k], NUM_CELLS - 1 - k, 3, C.NUM_COLORS) for k in range(NUM_OBJECTS)
    ]
    ranks = distinct_ranks(agent_rank, [digit for digit, _, _ in draws])
    kinds = jnp.asarray(KINDS, jnp.int32)
    for rank, (_, kind, colour) in zip(ranks, draws, strict=True):
        cell = jnp.stack([kinds[kind], colour, jnp.int32(0)])
        grid = cells.write_cell(grid, cell_of_rank(rank), cell)
    return make_state(
        grid,
        cell_of_rank(agent_rank),
        direction,
        mission=missions.encode(missions.Template.NONE),
    )


_BASE = _base()

ENVIRONMENTS = {
    "MiniGrid-Playground-v0": factory(
        "MiniGrid-Playground-v0",
        width=SIZE,
        height=SIZE,
        max_steps=100,
        layout_fn=playground_layout,
        observation_fn=observations.symbolic_first_person,
        termination_fn=TERMINATION,
    )
}
ALIASES = navix_aliases(list(ENVIRONMENTS))
