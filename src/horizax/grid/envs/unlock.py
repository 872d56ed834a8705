"""Unlock, UnlockPickup, BlockedUnlockPickup: two rooms joined by a locked door.

MiniGrid's UnlockEnv, UnlockPickupEnv and BlockedUnlockPickupEnv share one `RoomGrid` of one
row and two 6 x 6 rooms (an 11 x 6 grid). A locked door of a uniform colour sits on the shared
wall at ``(5, y)``, ``y ~ U[1, 4]``, and a key of the door's colour lies in the left room,
where the agent starts. MiniGrid's draws, in order:

* UnlockPickup / BlockedUnlockPickup first put a box of a uniform colour in the right room.
  The agent is not placed yet, so MiniGrid's placeholder agent (the centre of the middle room,
  ``(8, 3)``) rejects that cell and its four neighbours: the box is uniform over the 11 other
  interior cells of the right room.
* the door (uniform colour, locked);
* BlockedUnlockPickup: a ball of a uniform colour on the cell just left of the door,
  ``(4, y)``, the only cell from which the door can be opened from the left room;
* the key, uniform over the free interior cells of the left room;
* the agent: a uniform (free cell of the left room, direction) pair whose front cell is empty
  or a wall.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success, else 0.
* termination: Unlock -- the door is opened; the Pickup variants -- the box is picked up (the
  only box). Truncation at ``max_steps`` = ``8 * 36`` (``16 * 36`` for BlockedUnlockPickup).
* mission: "open the door" (Unlock); "pick up the {colour} box" (the Pickup variants).

Example:
    >>> env = horizax.make("MiniGrid-UnlockPickup-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 2, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import events, missions, observations, rewards, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import mixed_radix, random_bits
from horizax.grid.state import State, make_state

ROOM_SIZE = 6
ROOMS = RoomGrid(room_size=ROOM_SIZE, num_rows=1, num_cols=2)
WALL_X = ROOM_SIZE - 1  # the shared wall
INNER = ROOM_SIZE - 2  # each room's interior is INNER x INNER


def _box_cells() -> np.ndarray:
    """i32[11, 2]: the right room's interior cells at Manhattan distance >= 2 from MiniGrid's
    placeholder agent (the box's admissible cells), x-major."""
    px, py = ROOMS.default_agent_pos()
    return np.array(
        [
            (x, y)
            for x in range(WALL_X + 1, WALL_X + 1 + INNER)
            for y in range(1, 1 + INNER)
            if abs(x - px) + abs(y - py) >= 2
        ],
        np.int32,
    )


def unlock_layout(box: bool = False, blocker: bool = False) -> LayoutFn:
    """The layout function of MiniGrid's Unlock family.

    Built for a cheap reset under `vmap` (the autoreset draws one at every step): one PRNG
    call for two 32-bit words split into mixed-radix digits (modulo bias < 1e-5), the box
    and the key drawn as ranks among their admissible cells (the left room
    holds nothing but the ball when the key is placed), the agent drawn among the 64 (cell,
    direction) pairs of the left room's interior, and the grid composed in one pass.

    Args:
        box: add UnlockPickup's box in the right room (mission: pick it up); False gives
            Unlock (mission: open the door).
        blocker: add BlockedUnlockPickup's ball left of the door (needs ``box``).

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution.
    """
    if blocker and not box:
        raise ValueError("the blocking ball is only part of BlockedUnlockPickup (box=True)")
    base = ROOMS.walls()
    box_cells_np = _box_cells()
    xs = np.arange(ROOMS.width)[:, None]
    ys = np.arange(ROOMS.height)[None, :]
    # The left room's (cell, direction) pairs: cell (1 + i, 1 + k) for i, k in [0, INNER),
    # as [direction, i, k] arrays of the cell and of its front cell.
    d, i, k = np.meshgrid(np.arange(4), np.arange(INNER), np.arange(INNER), indexing="ij")
    cell_x, cell_y = 1 + i, 1 + k
    front_x, front_y = cell_x + C.DIR_TO_VEC[d, 0], cell_y + C.DIR_TO_VEC[d, 1]

    def layout(key: Array) -> State:
        box_cells = jnp.asarray(box_cells_np)  # here, not in the factory: no XLA at import
        words = random_bits(key, (2,))
        door_offset, door_colour, box_colour, ball_colour, box_rank = mixed_radix(
            words[0], INNER, C.NUM_COLORS, C.NUM_COLORS, C.NUM_COLORS, len(box_cells)
        )
        # MiniGrid's door slot on the right wall of room (0, 0): `_rand_int(1, room_size - 1)`.
        door_pos = jnp.stack([jnp.int32(WALL_X), 1 + door_offset])
        # BlockedUnlockPickup's ball: the cell left of the door, interior cell (INNER - 1, dy).
        ball_pos = door_pos - jnp.array([1, 0], jnp.int32)
        # The key: uniform over the left room's interior cells, x-major, minus the ball's.
        key_cells = INNER * INNER - blocker
        key_rank = (words[1] % jnp.uint32(key_cells)).astype(jnp.int32)
        if blocker:
            key_rank = key_rank + (key_rank >= (INNER - 1) * INNER + door_offset)
        key_pos = jnp.stack([1 + key_rank // INNER, 1 + key_rank % INNER])

        # The agent: a uniform pair whose cell is free and whose front is empty or a wall
        # (not the key, the ball or the door).
        def at(x, y, pos):
            return (x == pos[0]) & (y == pos[1])

        taken = at(cell_x, cell_y, key_pos)
        blocked = at(front_x, front_y, key_pos) | at(front_x, front_y, door_pos)
        if blocker:
            taken = taken | at(cell_x, cell_y, ball_pos)
            blocked = blocked | at(front_x, front_y, ball_pos)
        pairs = (~taken & ~blocked).reshape(-1)
        count = pairs.sum(dtype=jnp.int32).astype(jnp.uint32)
        rank = ((words[1] // jnp.uint32(key_cells)) % count).astype(jnp.int32)
        pair = jnp.argmax(jnp.cumsum(pairs) > rank)
        direction, rest = pair // (INNER * INNER), pair % (INNER * INNER)
        agent_pos = jnp.stack([1 + rest // INNER, 1 + rest % INNER])

        # Compose the grid in one pass.
        door_here = at(xs, ys, door_pos)
        key_here = at(xs, ys, key_pos)
        kind = jnp.where(door_here, C.DOOR, jnp.where(key_here, C.KEY, base[..., 0]))
        colour = jnp.where(door_here | key_here, door_colour, base[..., 1])
        state = jnp.where(door_here, C.LOCKED, 0)
        mission = missions.encode(missions.Template.OPEN_DOOR)
        if box:
            box_here = at(xs, ys, box_cells[box_rank])
            kind = jnp.where(box_here, C.BOX, kind)
            colour = jnp.where(box_here, box_colour, colour)
            mission = missions.encode(missions.Template.PICK_UP, color=box_colour, kind=C.BOX)
        if blocker:
            ball_here = at(xs, ys, ball_pos)
            kind = jnp.where(ball_here, C.BALL, kind)
            colour = jnp.where(ball_here, ball_colour, colour)
        grid = jnp.stack([kind, colour, state], axis=-1)
        return make_state(grid, agent_pos, direction, mission=mission)

    return layout


def _entry(name: str, box: bool, blocker: bool, steps_per_cell: int) -> tuple[str, object]:
    env_id = f"MiniGrid-{name}-v0"
    success = events.box_pickup if box else events.door_opening
    termination = terminations.on_box_pickup if box else terminations.on_door_open
    return env_id, factory(
        env_id,
        width=ROOMS.width,
        height=ROOMS.height,
        max_steps=steps_per_cell * ROOM_SIZE**2,
        layout_fn=unlock_layout(box, blocker),
        observation_fn=observations.symbolic_first_person,
        reward_fn=rewards.time_discounted(success),
        termination_fn=termination,
    )


ENVIRONMENTS = dict(
    [
        _entry("Unlock", box=False, blocker=False, steps_per_cell=8),
        _entry("UnlockPickup", box=True, blocker=False, steps_per_cell=8),
        _entry("BlockedUnlockPickup", box=True, blocker=True, steps_per_cell=16),
    ]
)
ALIASES = navix_aliases(list(ENVIRONMENTS))
