"""KeyCorridor: find the key, unlock the side room, pick up the ball behind its door.

MiniGrid's KeyCorridorEnv on a `RoomGrid` of three columns and ``R`` rows of rooms of side
``S`` (walls included): the grid is ``3(S-1)+1`` wide and ``R(S-1)+1`` high. MiniGrid's draws,
in order:

1. one door slot per wall between two rooms (`RoomGrid`);
2. the walls between the rooms of the middle column are removed: it becomes a corridor;
3. ``room_idx ~ U[0, R)``; a locked door of a uniform colour on the left wall of room
   ``(2, room_idx)`` (that room is marked locked);
4. the target ball, of a uniform colour, in room ``(2, room_idx)``; the key (door colour) in
   room ``(0, U[0, R))`` -- both avoid MiniGrid's placeholder agent, which never matters here;
5. the agent in room ``(1, R // 2)`` (its rectangle includes the removed walls): a uniform
   (free cell, direction) pair whose front cell is empty or a wall;
6. ``connect_all``: until every room is reachable from the agent's room through door slots
   holding a door (locked or not) or removed walls, draw a room ``(i, j)`` and a wall ``k``
   uniformly and, when that wall has a neighbour, no door yet and neither room is locked, put
   an unlocked door of a uniform colour there. Doors added here may face the agent.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the ball is picked up, else 0.
* termination: the ball (the mission's object) is picked up; truncation at
  ``max_steps = 30 * S**2``.
* mission: "pick up the {colour} ball".

``connect_all`` without a loop. A draw that is rejected changes nothing, and every wall slot
is drawn through exactly two (room, wall) pairs, both admissible or both not; so the accepted
doors form a sequence in which each door is uniform over the slots still admissible, stopping
as soon as the rooms are connected -- a uniformly random order of the admissible slots, cut
after the door that connects the last room. With a random priority per slot this is a
closed form: every side room joins the corridor at its bottleneck time (over the paths of
slots leading to the corridor, the smallest largest priority), the rooms are all connected at
the largest of these times, and the doors added are the admissible slots with a priority up to
that time (``test_closed_form_connect_all_matches_the_sequential_process`` checks it against
the door-by-door process). The emulation is exact and cannot run out of iterations: measured
failure rate (a room left unreachable) 0 in 10,000 layouts of every id
(``test_connect_all_never_fails``), where a literal emulation with a fixed iteration bound
would fail now and then. MiniGrid's own loop gives up after 5,000 draws, which never happens
in practice. The only approximations come from 32-bit words: modulo biases below 1e-6, and
priorities that tie in their top bits (then ordered by slot index instead of at random) with
probability below 1e-5.

Example:
    >>> env = horizax.make("MiniGrid-KeyCorridorS3R3-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 2, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.grid import constants as C
from horizax.grid import events, missions, observations, rewards, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import mixed_radix, random_bits, truncating_divmod
from horizax.grid.state import State, make_state

CONFIGS = ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3))  # (room_size, num_rows)
NUM_COLS = 3
_NEVER = np.uint32(0xFFFFFFFF)  # the priority of a slot that can never get a door


def _path_edges(rows: int) -> np.ndarray:
    """bool[rows, rows, rows - 1]: vertical slot k lies between rooms j and j' of a column."""
    k = np.arange(rows - 1)[None, None, :]
    j, other = np.arange(rows)[:, None, None], np.arange(rows)[None, :, None]
    return (k >= np.minimum(j, other)) & (k < np.maximum(j, other))


def _connected_at(h: Array, v: Array, between: np.ndarray) -> Array:
    """u32[]: when the last side room joins the corridor, as a slot priority.

    Room ``j`` of a side column reaches the corridor through its own slot ``h[.., j]``, or
    through the vertical slots between it and room ``j'`` of its column and then
    ``h[.., j']``; it joins when the last slot of the best such path is added: at the
    smallest, over the paths, of the largest priority on the path (the bottleneck).

    Args:
        h: u32[columns, rows], the priorities of the slots joining each room to the corridor.
        v: u32[columns, rows - 1], those of the slots between rooms j and j + 1.
        between: `_path_edges` of ``rows``.
    """
    if h.shape[1] == 1:
        return jnp.max(h)
    on_path = jnp.where(between[None], v[:, None, None, :], jnp.uint32(0))
    worst = jnp.maximum(h[:, None, :], jnp.max(on_path, axis=-1))  # [columns, j, j']
    return jnp.max(jnp.min(worst, axis=-1))


def keycorridor_layout(room_size: int, num_rows: int) -> LayoutFn:
    """The layout function of MiniGrid's KeyCorridorEnv (``obj_type="ball"``).

    Built for a cheap reset under `vmap` (the autoreset draws one at every step): one PRNG
    call, placements by arithmetic on ranks, and the whole grid composed in one pass of
    selects. The placements need no masks: when the ball and the key are placed the rooms
    they go to are empty inside and MiniGrid's placeholder agent (the centre of room
    ``(1, R // 2)``) is at Manhattan distance >= ``S - S // 2 >= 2`` from them, so each is
    uniform over its room's ``(S-2)**2`` interior cells; the agent's room rectangle holds
    only empty cells (interior and removed walls) and the one (cell, direction) pair whose
    front is not empty or a wall is the one facing the locked door, when it is in that room.

    Args:
        room_size: side of each room, walls included (>= 3).
        num_rows: rows of rooms (>= 1); there are always three columns.

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution.
    """
    rg = RoomGrid(room_size=room_size, num_rows=num_rows, num_cols=NUM_COLS)
    step, rows, inner = room_size - 1, num_rows, room_size - 2
    base = rg.walls()
    for j in range(1, rows):  # remove_wall(1, j, 3): the top wall of each corridor room
        base[step + 1 : 2 * step, j * step] = C.EMPTY_CELL

    # The wall slots that can ever hold a door, in a fixed order: the right walls of columns
    # 0 and 1 (row j), then the bottom walls of columns 0 and 2 (row j); the corridor's
    # bottom walls are removed. Slot s's door is at `corner[s] + offset * axis[s]`, offset in
    # [1, S-2]; `slot_of[x, y]` / `cell_offset[x, y]` say which slot and offset a wall cell
    # is.
    corner, axis = [], []
    for column in (0, 1):
        for j in range(rows):
            corner.append(((column + 1) * step, j * step))
            axis.append((0, 1))
    for column in (0, 2):
        for j in range(rows - 1):
            corner.append((column * step, (j + 1) * step))
            axis.append((1, 0))
    num_slots = len(corner)
    if num_slots > 32:
        raise ValueError(f"KeyCorridor supports up to 8 rows, got {num_rows}")
    slot_of = np.full((rg.width, rg.height), num_slots, np.int32)  # num_slots: no slot
    cell_offset = np.zeros((rg.width, rg.height), np.int32)
    for s, ((x0, y0), (ax, ay)) in enumerate(zip(corner, axis, strict=True)):
        for offset in range(1, inner + 1):
            slot_of[x0 + offset * ax, y0 + offset * ay] = s
            cell_offset[x0 + offset * ax, y0 + offset * ay] = offset
    left_of = rows  # slots [rows, 2 rows): room (2, j)'s left wall
    col2_down = 3 * rows - 1  # slots from here: room (2, j)'s bottom wall
    slot_index = np.arange(num_slots, dtype=np.uint32)  # numpy: no XLA work at import
    between = _path_edges(rows)
    on_slot = slot_of < num_slots
    slot_clipped = np.minimum(slot_of, num_slots - 1)
    offsets = np.arange(inner + 1)  # offset 0: no door cell (only read off-slot)
    wall = np.asarray(C.WALL_CELL, np.uint8)
    xs = np.arange(rg.width)[:, None]
    ys = np.arange(rg.height)[None, :]

    # The agent's room (1, mid): the cells x in [S, 2S-3], y in [y_lo, y_hi] (its removed
    # top / bottom walls included), numbered x-major; pair p = 4 * cell + direction.
    mid = rows // 2
    y_lo = mid * step + (0 if mid > 0 else 1)
    y_hi = mid * step + step - (0 if mid < rows - 1 else 1)
    column_cells = y_hi - y_lo + 1
    num_pairs = 4 * inner * column_cells

    # A power-of-two word count: XLA compiles JAX's Threefry for those noticeably faster.
    num_words = 1 << (num_slots + 3 - 1).bit_length()

    def layout(key: Array) -> State:
        words = random_bits(key, (num_words,))
        slot_words, misc = words[:num_slots], words[num_slots : num_slots + 3]
        room_idx, door_colour, ball_colour, key_row = mixed_radix(
            misc[0], rows, C.NUM_COLORS, C.NUM_COLORS, rows
        )
        ball_rank, key_rank = mixed_radix(misc[1], inner * inner, inner * inner)
        # Per slot: its door offset, the colour of a door added there, and a priority (the
        # slot index in the low bits keeps priorities distinct).
        offset, colour = mixed_radix(slot_words, inner, C.NUM_COLORS)
        rest = lax.div(slot_words, jnp.full_like(slot_words, inner * C.NUM_COLORS))
        priority = ((rest >> 5) << 5) | slot_index

        locked_y = room_idx * step + 1 + offset[left_of + room_idx]
        ball_x, ball_y = truncating_divmod(ball_rank, inner)
        ball_pos = jnp.stack([2 * step + 1 + ball_x, room_idx * step + 1 + ball_y])
        key_x, key_y = truncating_divmod(key_rank, inner)
        key_pos = jnp.stack([1 + key_x, key_row * step + 1 + key_y])
        # The agent: a uniform admissible pair, skipping the one facing the locked door.
        blocked = room_idx == mid
        skipped = 4 * ((inner - 1) * column_cells + (locked_y - y_lo))  # direction 0
        (rank,) = mixed_radix(misc[2], num_pairs - blocked.astype(jnp.int32))
        pair = rank + (blocked & (rank >= skipped))
        cell, agent_dir = truncating_divmod(pair, 4)
        cell_x, cell_y = truncating_divmod(cell, column_cells)
        agent_pos = jnp.stack([step + 1 + cell_x, y_lo + cell_y])

        # connect_all. The locked room is already joined (through its locked door, which
        # counts as a door) and no door can touch it; the corridor is the root.
        is_locked_row = jnp.arange(rows) == room_idx
        h = jnp.stack(
            [priority[:rows], jnp.where(is_locked_row, jnp.uint32(0), priority[rows : 2 * rows])]
        )
        beside_locked = is_locked_row[:-1] | is_locked_row[1:]
        v = jnp.stack(
            [priority[2 * rows : col2_down], jnp.where(beside_locked, _NEVER, priority[col2_down:])]
        )
        is_locked_slot = slot_index == left_of + room_idx
        admissible = jnp.concatenate(
            [jnp.ones(rows, bool), ~is_locked_row, jnp.ones(rows - 1, bool), ~beside_locked]
        )
        added = admissible & (priority <= _connected_at(h, v, between))

        # Compose the grid in one pass. Each wall cell that can hold a door reads its
        # encoding from a per-layout table indexed by (slot, offset): a door where the slot
        # got one at that offset, a wall elsewhere. Then the ball and the key.
        present = (added | is_locked_slot)[:, None] & ((1 + offset)[:, None] == offsets)
        door_cells = jnp.stack(
            [
                jnp.full(num_slots, C.DOOR),
                jnp.where(is_locked_slot, door_colour, colour),
                jnp.where(is_locked_slot, C.LOCKED, C.CLOSED),
            ],
            axis=-1,
        ).astype(jnp.uint8)
        table = jnp.where(present[..., None], door_cells[:, None, :], wall)  # [slots, S-1, 3]
        grid = jnp.where(on_slot[..., None], table[slot_clipped, cell_offset], base)
        ball_cell = jnp.stack([C.BALL, ball_colour, 0]).astype(jnp.uint8)
        key_cell = jnp.stack([C.KEY, door_colour, 0]).astype(jnp.uint8)
        grid = jnp.where(((xs == ball_pos[0]) & (ys == ball_pos[1]))[..., None], ball_cell, grid)
        grid = jnp.where(((xs == key_pos[0]) & (ys == key_pos[1]))[..., None], key_cell, grid)

        mission = missions.encode(missions.Template.PICK_UP, color=ball_colour, kind=C.BALL)
        return make_state(grid, agent_pos, agent_dir, mission=mission)

    return layout


def _entry(room_size: int, num_rows: int) -> tuple[str, object]:
    env_id = f"MiniGrid-KeyCorridorS{room_size}R{num_rows}-v0"
    rg = RoomGrid(room_size=room_size, num_rows=num_rows, num_cols=NUM_COLS)
    return env_id, factory(
        env_id,
        width=rg.width,
        height=rg.height,
        max_steps=30 * room_size**2,
        layout_fn=keycorridor_layout(room_size, num_rows),
        observation_fn=observations.symbolic_first_person,
        reward_fn=rewards.time_discounted(events.target_fetched),
        termination_fn=terminations.on_target_fetched,
    )


ENVIRONMENTS = dict(_entry(size, rows) for size, rows in CONFIGS)
ALIASES = navix_aliases(list(ENVIRONMENTS))
