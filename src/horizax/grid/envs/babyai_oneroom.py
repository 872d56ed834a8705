"""BabyAI-OneRoom: pick up the one ball in a single room of side 8, 12, 16 or 20.

MiniGrid 3.2.0's ``OneRoomS8`` (``minigrid/envs/babyai/other.py``), registered as
``BabyAI-OneRoomS8-v0``, ``-S12-v0``, ``-S16-v0`` and ``-S20-v0``. One room (a ``RoomGrid``
of one room, walls included in the side), MiniGrid's draws in order:

* the ball (``add_object(0, 0, kind="ball")``): a uniform colour, then a uniform interior
  cell. The agent is not placed yet: ``reject_next_to`` measures from the placeholder
  position ``RoomGrid`` gives it, the room's centre, so the ball avoids the centre and its
  four neighbours;
* the agent (``place_agent()``): a uniform free cell and a uniform direction, drawn again
  while the faced cell holds the ball;
* the instruction: "pick up the ball" (``PickupInstr(ObjDesc("ball"))``: any colour).

No layout is rejected (one ball in an open room is always reachable), and MiniGrid's
per-draw redraws (an occupied cell, the ball faced) are drawn here directly as ranks among
the admissible choices: the exact distribution of what MiniGrid accepts, at a fixed cost.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the agent picks up the ball, else 0.
* termination: the ball picked up; truncation at ``max_steps = room_size**2`` (64, 144,
  256, 400).
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-OneRoomS12-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level, one_room
from horizax.grid.babyai import verifiers as V
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import draw_digits
from horizax.grid.state import State, make_state

ROOM_SIZES = (8, 12, 16, 20)
KINDS = (V.Instr.PICKUP,)


def draw_one_room(key: Array, *, room_size: int) -> State:
    """One reset of OneRoom (see the module docstring).

    Args:
        key: the episode's PRNG key.
        room_size: static, the room's side, walls included.

    Returns:
        The first `State`, `level.begin` applied.
    """
    side = room_size - 2
    cells = one_room.object_cells(room_size)

    def admissible(ball: Array) -> Array:
        return one_room.admissible_poses(one_room.occupied(ball, side))

    def pose_count(digits: list[Array]) -> Array:
        return jnp.sum(admissible(jnp.asarray(cells)[digits[1]]), dtype=jnp.int32)

    bounds = [C.NUM_COLORS, len(cells), side * side * 4]
    colour, cell_rank, pose_rank = draw_digits(key, bounds, [C.NUM_COLORS, len(cells), pose_count])
    ball = jnp.asarray(cells)[cell_rank]
    room = RoomGrid(room_size=room_size, num_rows=1, num_cols=1)
    xs = np.arange(room_size)[:, None]
    ys = np.arange(room_size)[None, :]
    at = (xs == 1 + ball // side) & (ys == 1 + ball % side)
    obj = jnp.stack([jnp.int32(C.BALL), colour, jnp.int32(0)]).astype(jnp.uint8)
    grid = jnp.where(at[..., None], obj, jnp.asarray(room.walls()))

    cell, direction = one_room.nth_pose(admissible(ball), pose_rank)
    state = make_state(grid, jnp.stack([1 + cell // side, 1 + cell % side]), direction)
    instr = jnp.asarray(
        [V.Instr.PICKUP, 0, C.BALL, D.ANY, D.Loc.NONE, *([0] * D.DESC_SIZE)], jnp.int32
    )
    return level.begin(state, instr, room_size=room_size, kinds=KINDS)


def _entry(room_size: int):
    env_id = f"BabyAI-OneRoomS{room_size}-v0"

    def layout(key: Array) -> State:
        return draw_one_room(key, room_size=room_size)

    return env_id, level.one_room_level(
        env_id,
        room_size=room_size,
        layout_fn=layout,
        kinds=KINDS,
    )


ENVIRONMENTS = dict(_entry(size) for size in ROOM_SIZES)
