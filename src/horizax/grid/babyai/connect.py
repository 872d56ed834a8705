"""MiniGrid's ``RoomGrid.connect_all`` in closed form, for any grid of rooms.

``connect_all`` repeats, until every room is reachable from the agent's room: draw a room
``(i, j)`` and a wall ``k`` uniformly; when that wall has a neighbour, no door yet, and
neither room is locked, put an unlocked (closed) door of a uniform colour at the wall's
slot. A rejected draw changes nothing, and each wall between two rooms is drawn through
two (room, wall) pairs, both admissible or both not; so the doors form a uniformly random
order of the admissible walls, cut after the door that connects the last room (connected
from the agent's room is connected, as a graph).

With an independent random priority per wall that order is the sort by priority, and the
cut comes at the graph's bottleneck: the smallest priority ``T`` at which the walls already
open (doors placed before, removed walls) and the admissible walls of priority ``<= T``
connect every room. The doors added are exactly the admissible walls of priority ``<= T``
(no door at all when the rooms were connected already). `added_doors` computes ``T`` by
testing every candidate at once, without a loop over draws, so it cannot run out of
iterations as MiniGrid's loop can (after 5,000 draws, which never happens in practice).
`horizax.grid.envs.keycorridor` has the same closed form specialised to its corridor.

Walls are numbered as `walls`: each room's right wall, then each room's bottom wall, where
a neighbour exists.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array


def walls(num_cols: int, num_rows: int) -> np.ndarray:
    """i32[E, 3]: the walls between two rooms, ``(i, j, k)`` with ``k`` 0 (the right wall
    of room (i, j)) or 1 (its bottom wall)."""
    out = [(i, j, 0) for j in range(num_rows) for i in range(num_cols - 1)]
    out += [(i, j, 1) for j in range(num_rows - 1) for i in range(num_cols)]
    return np.asarray(out, np.int32).reshape(-1, 3)


def rooms_of(num_cols: int, num_rows: int) -> np.ndarray:
    """i32[E, 2]: the two rooms (``j * num_cols + i``) each wall of `walls` separates."""
    w = walls(num_cols, num_rows)
    first = w[:, 1] * num_cols + w[:, 0]
    second = np.where(w[:, 2] == 0, first + 1, first + num_cols)
    return np.stack([first, second], axis=1)


def connected(open_walls: Array, num_cols: int, num_rows: int) -> Array:
    """bool[]: every room reachable from every other through ``open_walls`` (bool[E])."""
    n = num_cols * num_rows
    ends = rooms_of(num_cols, num_rows)
    touches = np.zeros((len(ends), n), bool)
    touches[np.arange(len(ends)), ends[:, 0]] = True
    touches[np.arange(len(ends)), ends[:, 1]] = True
    link = jnp.asarray(touches) & open_walls[:, None]  # [E, n]
    adjacent = jnp.any(link[:, :, None] & link[:, None, :], axis=0)  # [n, n]
    reach = jnp.zeros(n, bool).at[0].set(True)
    for _ in range(n - 1):
        reach = reach | jnp.any(adjacent & reach[None, :], axis=1)
    return jnp.all(reach)


def added_doors(
    priority: Array, already: Array, admissible: Array, num_cols: int, num_rows: int
) -> Array:
    """bool[E]: the walls where ``connect_all`` adds a door.

    Args:
        priority: u32[E], independent uniform priorities (ties have probability ~E**2/2**33).
        already: bool[E], walls open before ``connect_all`` (doors, removed walls).
        admissible: bool[E], walls where it may add a door (no door yet, neither room
            locked).
        num_cols: rooms per row (static).
        num_rows: rooms per column (static).
    """

    def connected_at(threshold: Array) -> Array:
        return connected(already | (admissible & (priority <= threshold)), num_cols, num_rows)

    never = jnp.uint32(0xFFFFFFFF)
    candidates = jnp.where(admissible, priority, never)
    works = jax.vmap(connected_at)(candidates) & admissible
    bottleneck = jnp.min(jnp.where(works, candidates, never))
    needed = ~connected(already, num_cols, num_rows)
    return needed & admissible & (priority <= bottleneck)
