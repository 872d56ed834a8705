"""BabyAI-FindObj: find the one object somewhere in a 3 x 3 grid of rooms and pick it up.

MiniGrid 3.2.0's ``FindObjS5`` (``minigrid/envs/babyai/other.py``), registered as
``BabyAI-FindObjS5-v0``, ``-S6-v0`` and ``-S7-v0`` (rooms of side 5, 6, 7, walls included).
MiniGrid's draws, in order:

* one object of a uniform kind (key, ball, box) and colour in a uniform room, on a uniform
  interior cell (in the centre room, off the placeholder agent's cell and its neighbours);
* the agent in the centre room: a uniform free cell and direction, drawn again while it
  faces the object;
* ``connect_all``: closed doors of uniform colours added between rooms in a uniformly
  random order until every room is reachable (`horizax.grid.babyai.connect`); a door may
  end up in front of the agent.

The instruction is "pick up the KIND" (``PickupInstr(ObjDesc(kind))``: the one object).
No layout is rejected.

``PickupAbove`` (``pickup.py``, ``BabyAI-PickupAbove-v0``, rooms of side 6): the object
(uniform kind and colour) in the room above the centre one, a closed door of a uniform
colour between the two, the agent in the centre room facing no object or door, then
``connect_all``; "pick up the COLOUR KIND"; ``max_steps = 8 * 36``.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the object is picked up, else 0.
* termination: the verifier's success; truncation at ``max_steps = 20 * size**2``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-FindObjS5-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core import threefry
from horizax.grid import constants as C
from horizax.grid.babyai import connect, level
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import placement as P
from horizax.grid.babyai import verifiers as V
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, draw_digits
from horizax.grid.state import State, make_state

KINDS = P.OBJECT_KINDS
PICKUP = (V.Instr.PICKUP,)
COLS = ROWS = 3


def draw_find_obj(key: Array, *, room_size: int) -> State:
    """One reset of ``FindObjS{room_size}`` (see the module docstring)."""
    rooms = RoomGrid(room_size=room_size, num_rows=ROWS, num_cols=COLS)
    side = room_size - 2
    edges = len(connect.walls(COLS, ROWS))
    masks = np.stack([P.object_cells(rooms, i, j) for j in range(ROWS) for i in range(COLS)])
    counts = masks.reshape(len(masks), -1).sum(axis=1).astype(np.int32)
    layout_key, priority_key = threefry.split(key, 2)

    def object_grid(d) -> tuple[Array, Array]:
        room = d[0]
        cell = P.nth_cell(jnp.asarray(masks)[room], jnp.zeros(masks.shape[1:], bool), d[3])
        obj = (KINDS[0] + d[1], d[2], 0)
        return P.put(jnp.asarray(rooms.walls()), cell, obj), cell

    def pose_count(d) -> Array:
        grid, _ = object_grid(d)
        return jnp.sum(P.agent_poses(grid, P.interior(rooms, 1, 1)), dtype=jnp.int32)

    bounds = [COLS * ROWS, len(KINDS), C.NUM_COLORS, int(counts.max()), side * side * 4]
    radices = [*bounds[:3], lambda d: jnp.asarray(counts)[d[0]], pose_count]
    bounds += [side] * edges + [C.NUM_COLORS] * edges
    radices += [side] * edges + [C.NUM_COLORS] * edges
    digits = draw_digits(layout_key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    grid, _ = object_grid(digits)
    poses = P.agent_poses(grid, P.interior(rooms, 1, 1))
    pos, direction = P.nth_pose(poses, digits[4], rooms.height)
    priority = threefry.random_bits(priority_key, (edges,))
    no_walls = jnp.zeros(edges, bool)
    doors = connect.added_doors(priority, no_walls, ~no_walls, COLS, ROWS)
    offsets, colours = digits[5 : 5 + edges], digits[5 + edges :]
    grid = P.with_doors(rooms, grid, doors, offsets, colours)
    instr = level.action(V.Instr.PICKUP, False, (KINDS[0] + digits[1], D.ANY, D.Loc.NONE))
    return level.begin(make_state(grid, pos, direction), instr, room_size=room_size, kinds=PICKUP)


ABOVE = RoomGrid(room_size=6, num_rows=ROWS, num_cols=COLS)
ABOVE_EDGE = connect.walls(COLS, ROWS).tolist().index([1, 0, 1])  # centre room's top wall


def draw_pickup_above(key: Array) -> State:
    """One reset of PickupAbove: the object in the room above the agent's, the door between
    the two made before the agent is placed (so the agent never faces it), then
    ``connect_all``."""
    side = ABOVE.room_size - 2
    edges = len(connect.walls(COLS, ROWS))
    above = P.object_cells(ABOVE, 1, 0)
    layout_key, priority_key = threefry.split(key, 2)
    door_edge = jnp.arange(edges) == ABOVE_EDGE

    def first_grid(d) -> Array:
        """The grid before ``connect_all``: the object and the door below it."""
        cell = P.nth_cell(above, jnp.zeros(above.shape, bool), d[2])
        grid = P.put(jnp.asarray(ABOVE.walls()), cell, (KINDS[0] + d[0], d[1], 0))
        return P.with_doors(ABOVE, grid, door_edge, d[3 : 3 + edges], d[3 + edges :])

    def pose_count(d) -> Array:
        return jnp.sum(P.agent_poses(first_grid(d), P.interior(ABOVE, 1, 1)), dtype=jnp.int32)

    # Digits: kind, colour, cell, the door offsets and colours per wall, then the pose.
    bounds = [len(KINDS), C.NUM_COLORS, int(above.sum())]
    bounds += [side] * edges + [C.NUM_COLORS] * edges + [side * side * 4]
    digits = draw_digits(layout_key, bounds, [*bounds[:-1], pose_count], budget=WIDE_DIGIT_BUDGET)
    grid = first_grid(digits)
    poses = P.agent_poses(grid, P.interior(ABOVE, 1, 1))
    pos, direction = P.nth_pose(poses, digits[-1], ABOVE.height)
    priority = threefry.random_bits(priority_key, (edges,))
    doors = connect.added_doors(priority, door_edge, ~door_edge, COLS, ROWS)
    offsets, colours = digits[3 : 3 + edges], digits[3 + edges : 3 + 2 * edges]
    grid = P.with_doors(ABOVE, grid, doors, offsets, colours)
    instr = level.action(V.Instr.PICKUP, False, (KINDS[0] + digits[0], digits[1], D.Loc.NONE))
    return level.begin(make_state(grid, pos, direction), instr, room_size=6, kinds=PICKUP)


def _entry(room_size: int):
    env_id = f"BabyAI-FindObjS{room_size}-v0"
    return env_id, level.level_factory(
        env_id,
        room_size=room_size,
        num_rows=ROWS,
        num_cols=COLS,
        num_navs=1,
        layout_fn=functools.partial(draw_find_obj, room_size=room_size),
        kinds=PICKUP,
        max_steps=20 * room_size**2,
    )


ENVIRONMENTS = dict(
    [
        _entry(5),
        _entry(6),
        _entry(7),
        (
            "BabyAI-PickupAbove-v0",
            level.level_factory(
                "BabyAI-PickupAbove-v0",
                room_size=ABOVE.room_size,
                num_rows=ROWS,
                num_cols=COLS,
                num_navs=1,
                layout_fn=draw_pickup_above,
                kinds=PICKUP,
                max_steps=8 * ABOVE.room_size**2,
            ),
        ),
    ]
)
