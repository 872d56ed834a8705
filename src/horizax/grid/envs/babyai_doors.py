"""BabyAI-Doors: open, or go to, the doors of one room of a room grid.

MiniGrid 3.2.0's ``OpenRedDoor``, ``OpenDoor`` (with ``OpenDoorDebug``, ``OpenDoorColor``
and ``OpenDoorLoc``), ``GoToDoor``, ``GoToObjDoor`` and ``ActionObjDoor``
(``minigrid/envs/babyai/open.py``, ``goto.py``, ``other.py``). Every one plays in one room
-- the left room of a 1 x 2 grid (OpenRedDoor), the centre room of a 3 x 3 grid (the others)
-- and puts doors only in that room's walls: the other rooms stay empty and walled in. Each
door sits in its wall's slot, a uniform offset along the wall (`door_room`). MiniGrid's
draws, per level:

* **OpenRedDoor** (rooms of side 5): a red closed door on the right wall; the agent
  anywhere in the left room, not facing the door. "open the red door".
* **OpenDoor** (side 8): four doors, one per wall (right, down, left, up), of four distinct
  colours in a uniform order, closed; the description by colour -- the right door's -- or by
  location ("the door on your left": left, right, in front, behind, uniform), each with
  probability 1/2 (OpenDoorColor / OpenDoorLoc fix the choice); then the agent, not facing
  a door. OpenDoorDebug's instruction is strict: opening another door fails.
* **GoToDoor** (side 7): four doors, one per wall, each of a uniform colour (repeats
  allowed) and locked with probability 1/2; the agent not facing a door; "go to the/a
  COLOUR door" for one of the four, uniform (any door of that colour counts).
* **ActionObjDoor** (side 7): five objects of distinct (kind, colour) pairs on distinct
  cells off the room's centre and its four neighbours (the placeholder agent), four closed
  doors of uniform colours, the agent not facing any of them; then one of the nine,
  uniform, and with probability 1/2 "go to" it, else "open" a door / "pick up" an object.
* **GoToObjDoor** (side 8): the agent first (a uniform cell and direction: the room is
  empty), eight objects (uniform kinds and colours, repeats allowed) on free cells not next
  to the agent, four doors (uniform colour, locked with probability 1/2); the whole layout
  is drawn again while an object or a door cannot be reached without moving an object
  (``check_objs_reachable``); "go to" one of the twelve, uniform.

MiniGrid's per-draw redraws (an occupied cell, a repeated colour or pair, a wall that has a
door already, a pose facing a door or an object) are drawn here directly as ranks among the
admissible choices. GoToObjDoor alone rejects whole layouts: `GOTO_OBJ_DOOR_ATTEMPTS` are
drawn per reset and the first accepted kept, else the last (rates in docs/gridworld.md).

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success, else 0.
* termination: the verifier's success (or OpenDoorDebug's failure); truncation at
  ``max_steps = room_size**2 * rows * cols`` (50, 576, 441, 441, 576).
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-OpenDoorLoc-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import door_room, level, one_room
from horizax.grid.babyai import verifiers as V
from horizax.grid.envs.babyai_goto import reachable
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, distinct, draw_digits
from horizax.grid.state import State

KINDS = (C.KEY, C.BALL, C.BOX)  # consecutive object indices
NUM_PAIRS = len(KINDS) * C.NUM_COLORS
WALLS = tuple(range(door_room.NUM_WALLS))
GOTO_OBJ_DOOR_ATTEMPTS = 48  # whole GoToObjDoor layouts per reset (docs/gridworld.md)


def _corner(room_size: int) -> tuple[int, int]:
    """The top-left corner of room (1, 1) of a 3 x 3 grid."""
    return room_size - 1, room_size - 1


def _grid(room_size: int) -> RoomGrid:
    return RoomGrid(room_size=room_size, num_rows=3, num_cols=3)


def draw_open_red_door(key: Array) -> State:
    """One reset of OpenRedDoor: the left room of two of side 5, a red door on its right."""
    size, side = 5, 3
    red_door = door_room.door_cell(jnp.int32(C.RED), C.CLOSED)

    def doors(offset: Array) -> tuple[Array, Array]:
        return door_room.block_with_doors(size, (0,), (offset,), (red_door,))

    def pose_count(d: list[Array]) -> Array:
        return door_room.pose_count([], doors(d[0])[1], side)

    offset, rank = draw_digits(key, [side, side * side * 4], [side, pose_count])
    block, is_door = doors(offset)
    two_rooms = RoomGrid(room_size=size, num_rows=1, num_cols=2)
    state = door_room.posed_state(two_rooms, (0, 0), block, is_door, [], rank)
    instr = level.action(V.Instr.OPEN, False, [C.DOOR, C.RED, D.Loc.NONE])
    return level.begin(state, instr, room_size=size, kinds=(V.Instr.OPEN,))


def draw_open_door(key: Array, *, select_by: str | None, strict: bool) -> State:
    """One reset of OpenDoor (side 8).

    Args:
        key: the episode's PRNG key.
        select_by: static, ``"color"``, ``"loc"`` or None (either, with probability 1/2).
        strict: static, OpenDoorDebug (opening another door fails).
    """
    size = 8
    side = size - 2

    def doors(d: list[Array]) -> tuple[Array, Array]:
        colours = distinct(d[4:8])
        cells = [door_room.door_cell(c, C.CLOSED) for c in colours]
        return door_room.block_with_doors(size, WALLS, d[:4], cells)

    bounds = [side] * 4 + [6, 5, 4, 3, 2, 4, side * side * 4]
    radices = [*bounds[:-1], lambda d: door_room.pose_count([], doors(d)[1], side)]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    block, is_door = doors(digits)
    by_colour, loc, rank = digits[8:]
    if select_by is not None:
        by_colour = jnp.int32(select_by == "color")
    state = door_room.posed_state(_grid(size), _corner(size), block, is_door, [], rank)
    colour = jnp.where(by_colour == 1, distinct(digits[4:8])[0], D.ANY)
    where = jnp.where(by_colour == 1, D.Loc.NONE, D.Loc.LEFT + loc)  # LEFT..BEHIND: 1..4
    instr = level.action(V.Instr.OPEN, strict, [C.DOOR, colour, where])
    return level.begin(state, instr, room_size=size, kinds=(V.Instr.OPEN,))


def draw_goto_door(key: Array) -> State:
    """One reset of GoToDoor (side 7)."""
    size = 7
    side = size - 2

    def doors(d: list[Array]) -> tuple[Array, Array]:
        cells = [door_room.door_cell(d[4 + k], C.CLOSED + d[8 + k]) for k in WALLS]
        return door_room.block_with_doors(size, WALLS, d[:4], cells)

    bounds = [side] * 4 + [C.NUM_COLORS] * 4 + [2] * 4 + [4, side * side * 4]
    radices = [*bounds[:-1], lambda d: door_room.pose_count([], doors(d)[1], side)]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    block, is_door = doors(digits)
    target, rank = digits[12:]
    state = door_room.posed_state(_grid(size), _corner(size), block, is_door, [], rank)
    colour = jnp.stack(digits[4:8])[target]
    instr = level.action(V.Instr.GOTO, False, [C.DOOR, colour, D.Loc.NONE])
    return level.begin(state, instr, room_size=size, kinds=(V.Instr.GOTO,))


ACTION_OBJ_DOOR_KINDS = (V.Instr.GOTO, V.Instr.OPEN, V.Instr.PICKUP)


def draw_action_obj_door(key: Array) -> State:
    """One reset of ActionObjDoor (side 7)."""
    size, count = 7, 5
    side = size - 2
    object_cells = jnp.asarray(one_room.object_cells(size))

    def layout(d: list[Array]) -> tuple[Array, Array, list[Array], Array, Array]:
        pairs = jnp.stack(distinct(d[:count]))
        kinds, colours = KINDS[0] + pairs // C.NUM_COLORS, pairs % C.NUM_COLORS
        cells = [object_cells[c] for c in distinct(d[count : 2 * count])]
        door_cells = [door_room.door_cell(c, C.CLOSED) for c in d[2 * count + 4 : 2 * count + 8]]
        block, is_door = door_room.block_with_doors(
            size, WALLS, d[2 * count : 2 * count + 4], door_cells
        )
        objects = [door_room.object_cell(k, c) for k, c in zip(kinds, colours, strict=True)]
        return door_room.with_objects(block, cells, objects), is_door, cells, kinds, colours

    bounds = [NUM_PAIRS - i for i in range(count)]
    bounds += [len(one_room.object_cells(size)) - i for i in range(count)]
    bounds += [side] * 4 + [C.NUM_COLORS] * 4 + [count + 4, 2, side * side * 4]

    def pose_count(d: list[Array]) -> Array:
        _, is_door, cells, _, _ = layout(d)
        return door_room.pose_count(cells, is_door, side)

    digits = draw_digits(key, bounds, [*bounds[:-1], pose_count], budget=WIDE_DIGIT_BUDGET)
    block, is_door, cells, kinds, colours = layout(digits)
    target, go_to, rank = digits[-3:]
    state = door_room.posed_state(_grid(size), _corner(size), block, is_door, cells, rank)
    is_door_target = target >= count
    all_kinds = jnp.concatenate([kinds, jnp.full(4, C.DOOR, jnp.int32)])
    all_colours = jnp.concatenate([colours, jnp.stack(digits[2 * count + 4 : 2 * count + 8])])
    action = jnp.where(is_door_target, V.Instr.OPEN, V.Instr.PICKUP)
    kind = jnp.where(go_to == 1, V.Instr.GOTO, action)
    instr = level.action(kind, False, [all_kinds[target], all_colours[target], D.Loc.NONE])
    return level.begin(state, instr, room_size=size, kinds=ACTION_OBJ_DOOR_KINDS)


def _goto_obj_door_attempt(key: Array) -> tuple[State, Array, Array]:
    """One whole GoToObjDoor layout: ``(state, accepted, instr i32[8])``."""
    size, count = 8, 8
    side = size - 2
    cells_total = side * side
    flat = jnp.arange(cells_total)

    def near_agent(d: list[Array]) -> Array:
        x, y = d[0] // side, d[0] % side
        return 1 + (x > 0) + (x < side - 1) + (y > 0) + (y < side - 1)  # its cell included

    bounds, radices = [cells_total, 4], [cells_total, 4]
    for i in range(count):
        free = functools.partial(lambda d, i: cells_total - near_agent(d) - i, i=i)
        bounds += [C.NUM_COLORS, len(KINDS), cells_total]
        radices += [C.NUM_COLORS, len(KINDS), free]
    doors_from = len(bounds)
    bounds += [side] * 4 + [C.NUM_COLORS] * 4 + [2] * 4 + [count + 4]
    radices += bounds[doors_from:]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    agent, direction = digits[0], digits[1]
    taken = jnp.abs(flat // side - agent // side) + jnp.abs(flat % side - agent % side) < 2
    upper = np.triu(np.ones((cells_total, cells_total), np.int32))  # [i, j]: i <= j
    cells, objects, kinds, colours = [], [], [], []
    for i in range(count):
        colour, kind_rank, rank = digits[2 + 3 * i : 5 + 3 * i]
        # The rank-th free cell (a prefix count as a product with a triangle, as GoTo's).
        cell = jnp.sum(jnp.dot((~taken).astype(jnp.int32), upper) <= rank, dtype=jnp.int32)
        taken = taken | (flat == cell)
        cells.append(cell)
        kinds.append(KINDS[0] + kind_rank)
        colours.append(colour)
        objects.append(door_room.object_cell(KINDS[0] + kind_rank, colour))
    door_colours = digits[doors_from + 4 : doors_from + 8]
    locked = digits[doors_from + 8 : doors_from + 12]
    door_cells = [
        door_room.door_cell(c, C.CLOSED + lk) for c, lk in zip(door_colours, locked, strict=True)
    ]
    block, _ = door_room.block_with_doors(
        size, WALLS, digits[doors_from : doors_from + 4], door_cells
    )
    block = door_room.with_objects(block, cells, objects)
    # Inside the room only the walls and objects block the walk; a door is reached from the
    # interior cell next to it (the room behind it has no other way in).
    agent_at = jnp.stack([1 + agent // side, 1 + agent % side])
    things = block[..., 0] != C.EMPTY
    reached = reachable(things, agent_at)
    accepted = jnp.all(reached | ~(things & (block[..., 0] != C.WALL)))
    state = door_room.grid_state(_grid(size), _corner(size), block, agent, direction)
    target = digits[-1]
    all_kinds = jnp.stack([*kinds, *([jnp.int32(C.DOOR)] * 4)])
    all_colours = jnp.stack([*colours, *door_colours])
    instr = level.action(V.Instr.GOTO, False, [all_kinds[target], all_colours[target], D.Loc.NONE])
    return state, accepted, instr


def draw_goto_obj_door(key: Array, *, attempts: int = GOTO_OBJ_DOOR_ATTEMPTS) -> State:
    """One reset of GoToObjDoor (side 8): the first accepted of ``attempts`` layouts."""
    state, instr = level.first_accepted(_goto_obj_door_attempt, key, attempts)
    return level.begin(state, instr, room_size=8, kinds=(V.Instr.GOTO,))


def _entry(name: str, layout, *, room_size: int, num_cols: int = 3, kinds=(V.Instr.OPEN,)):
    env_id = f"BabyAI-{name}"
    return env_id, level.level_factory(
        env_id,
        room_size=room_size,
        num_rows=1 if num_cols == 2 else 3,
        num_cols=num_cols,
        num_navs=1,
        layout_fn=layout,
        kinds=kinds,
    )


ENVIRONMENTS = dict(
    [
        _entry("OpenRedDoor-v0", draw_open_red_door, room_size=5, num_cols=2),
        *(
            _entry(
                f"OpenDoor{suffix}-v0",
                functools.partial(draw_open_door, select_by=select_by, strict=strict),
                room_size=8,
            )
            for suffix, select_by, strict in (
                ("", None, False),
                ("Debug", None, True),
                ("Color", "color", False),
                ("Loc", "loc", False),
            )
        ),
        _entry("GoToDoor-v0", draw_goto_door, room_size=7, kinds=(V.Instr.GOTO,)),
        _entry("ActionObjDoor-v0", draw_action_obj_door, room_size=7, kinds=ACTION_OBJ_DOOR_KINDS),
        _entry("GoToObjDoor-v0", draw_goto_obj_door, room_size=8, kinds=(V.Instr.GOTO,)),
    ]
)
