"""LockedRoom: fetch the key from the named room, unlock the locked room, reach its goal.

MiniGrid's LockedRoomEnv on a 19 x 19 grid: a central hallway (columns 8..10) between two
wall columns (7 and 11); each side holds three rooms of 6 x 5 cells separated by walls at
rows 0, 6 and 12. Rooms are numbered left-top, right-top, left-middle, right-middle,
left-bottom, right-bottom; room ``r`` has its door on the hallway at ``(7 or 11, 6 (r // 2)
+ 3)``. MiniGrid draws, in order: the locked room (uniform), the goal on a uniform cell of
it, a colour for each room in turn among those left (a uniform permutation of the six
colours), the key room (uniform among the five others) and the key (the locked room's
colour) on a uniform cell of it -- always free, the goal being in another room -- and the
agent on a uniform hallway cell facing a uniform direction. The locked room's door is
locked, the others closed. ``max_steps = 10 * 19``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal, else 0.
* termination: goal reached; truncation at ``max_steps``.
* mission: ``LOCKED_ROOM`` with the locked room's colour as ``COLOR`` and the key room's as
  ``COLOR2``.

Example:
    >>> env = horizax.make("MiniGrid-LockedRoom-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 2, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import cells, missions, observations
from horizax.grid import constants as C
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import mixed_radix, random_bits
from horizax.grid.state import State, make_state, walled_grid

SIZE = 19
LEFT_WALL, RIGHT_WALL = SIZE // 2 - 2, SIZE // 2 + 2  # 7 and 11
PITCH = SIZE // 3  # 6: rows of the room-splitting walls are 0, 6, 12
NUM_ROOMS = 6
ROOM_W, ROOM_H = LEFT_WALL - 1, PITCH - 1  # a room's inside: 6 x 5 cells
HALL_W, HALL_H = RIGHT_WALL - LEFT_WALL - 1, SIZE - 2  # the hallway's free cells: 3 x 17
# Per room: the x of its inside's first column, the y of its first row, and its door.
ROOM_X = np.array([1, RIGHT_WALL + 1] * 3, np.int32)
ROOM_Y = np.repeat(np.arange(3, dtype=np.int32) * PITCH + 1, 2)
DOOR_X = np.array([LEFT_WALL, RIGHT_WALL] * 3, np.int32)
DOOR_Y = ROOM_Y + 2


def _base() -> np.ndarray:
    grid = walled_grid(SIZE, SIZE)
    grid[LEFT_WALL, :] = C.WALL_CELL
    grid[RIGHT_WALL, :] = C.WALL_CELL
    for n in range(3):
        grid[:LEFT_WALL, n * PITCH] = C.WALL_CELL
        grid[RIGHT_WALL:, n * PITCH] = C.WALL_CELL
    return grid


_BASE = _base()


def _room_cell(room: Array, rank: Array) -> Array:
    """i32[2]: cell ``rank`` (i32[] in [0, 30)) of room ``room``'s inside (``rand_pos``)."""
    x = jnp.asarray(ROOM_X)[room] + rank // ROOM_H
    y = jnp.asarray(ROOM_Y)[room] + rank % ROOM_H
    return jnp.stack([x, y]).astype(jnp.int32)


def _permutation(digits: list[Array]) -> Array:
    """i32[6]: element ``k`` is the ``digits[k]``-th colour not taken by elements before it."""
    taken = jnp.zeros(NUM_ROOMS, bool)
    out = []
    for digit in digits:
        colour = jnp.argmax(jnp.cumsum(~taken) > digit).astype(jnp.int32)
        taken = taken | (jnp.arange(NUM_ROOMS) == colour)
        out.append(colour)
    return jnp.stack(out)


def lockedroom_layout(key: Array) -> State:
    """The layout of MiniGrid's LockedRoomEnv (``key -> State``).

    Two 32-bit words (one Threefry block) in mixed radix hold every draw; the radix products
    are 27,000 and 146,880, so the modulo bias is below 4e-5 relative.
    """
    words = random_bits(key, (2,))
    room_cells = ROOM_W * ROOM_H
    locked, goal_rank, key_digit, key_rank = mixed_radix(
        words[0], NUM_ROOMS, room_cells, NUM_ROOMS - 1, room_cells
    )
    *colour_digits, agent_rank, direction = mixed_radix(
        words[1], *range(NUM_ROOMS, 0, -1), HALL_W * HALL_H, 4
    )
    colours = _permutation(colour_digits)
    key_room = key_digit + (key_digit >= locked)  # uniform among the other rooms
    rooms = jnp.arange(NUM_ROOMS)
    door_states = jnp.where(rooms == locked, C.LOCKED, C.CLOSED)
    doors = jnp.stack([jnp.full(NUM_ROOMS, C.DOOR), colours, door_states], axis=1)
    grid = jnp.asarray(_BASE)
    for r in range(NUM_ROOMS):
        grid = grid.at[DOOR_X[r], DOOR_Y[r]].set(doors[r].astype(jnp.uint8))
    grid = cells.write_cell(grid, _room_cell(locked, goal_rank), jnp.asarray(C.GOAL_CELL))
    locked_colour = colours[locked]
    key_cell = jnp.stack([jnp.int32(C.KEY), locked_colour, jnp.int32(0)])
    grid = cells.write_cell(grid, _room_cell(key_room, key_rank), key_cell)
    agent_pos = jnp.stack([LEFT_WALL + 1 + agent_rank // HALL_H, 1 + agent_rank % HALL_H])
    mission = missions.encode(
        missions.Template.LOCKED_ROOM, color=locked_colour, color2=colours[key_room]
    )
    return make_state(grid, agent_pos, direction, mission=mission)


ENVIRONMENTS = {
    "MiniGrid-LockedRoom-v0": factory(
        "MiniGrid-LockedRoom-v0",
        width=SIZE,
        height=SIZE,
        max_steps=10 * SIZE,
        layout_fn=lockedroom_layout,
        observation_fn=observations.symbolic_first_person,
    )
}
ALIASES = navix_aliases(list(ENVIRONMENTS))
