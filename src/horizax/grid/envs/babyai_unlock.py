"""BabyAI-Unlock: unlock a door with its key, in one room or on the way to an object.

MiniGrid 3.2.0's ``UnlockLocal`` (with ``UnlockLocalDist``), ``KeyInBox``, ``UnlockPickup``
(with ``UnlockPickupDist``), ``BlockedUnlockPickup`` and ``UnlockToUnlock``
(``minigrid/envs/babyai/unlock.py``). Every door these levels add is locked, and its key is
in a room the agent can reach. MiniGrid's draws, per level:

* **UnlockLocal** (3 x 3 rooms of side 8, the centre room only): a locked door of a uniform
  colour on a uniform wall of the centre room, at its wall's slot; the key of its colour in
  that room (off the placeholder agent position and its neighbours, as every object the
  levels place); UnlockLocalDist adds three objects of distinct (kind, colour) pairs, none
  the key's; then the agent in the centre room, facing no object or door. "open the door".
* **KeyInBox** (the same room): the locked door, then a box of a uniform colour holding the
  door's key; the agent as above. "open the door" (toggling the box leaves the key).
* **UnlockPickup** (two rooms of side 6): a box of a uniform colour in the right room; a
  locked door of a uniform colour between the rooms; its key in the left room;
  UnlockPickupDist adds four objects of distinct pairs, none the box's or the key's, each in
  a uniform room; the agent in the left room. "pick up the COLOUR box". MiniGrid's
  constructor tests ``max`` (the builtin) instead of ``max_steps`` for None, so the limit is
  ``RoomGridLevel``'s per episode: ``room_size**2 * 2 = 72``.
* **BlockedUnlockPickup** (the same rooms): the box; the locked door; a ball of a uniform
  colour on the cell in front of the door, inside the left room; the key in the left room;
  the agent there. "pick up the box"; ``max_steps = 16 * 36``.
* **UnlockToUnlock** (three rooms of side 6): two distinct colours A and B in uniform order;
  a locked A door between the left and middle rooms, the A key in the right room; a locked B
  door between the middle and right rooms, the B key in the middle room; a ball of a uniform
  colour in the left room; the agent in the middle room. "pick up the ball";
  ``max_steps = 30 * 36``.

None of these levels rejects a layout: MiniGrid's per-draw redraws (an occupied cell, a cell
next to the placeholder agent, a repeated pair, a pose facing an object or a door) are drawn
as ranks among the admissible choices (`horizax.grid.babyai.placement`).

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success, else 0.
* termination: the verifier's success (the door opened, the object picked up); truncation
  at ``max_steps`` (576, 576, 576, 72, 72, 576, 1080 in the order above).
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-UnlockToUnlock-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax.numpy as jnp
from jax import Array

from horizax.grid import cells as cell_codes
from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level
from horizax.grid.babyai import placement as P
from horizax.grid.babyai import verifiers as V
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, draw_digits, nth_free
from horizax.grid.state import State, make_state

KINDS, NUM_PAIRS = P.OBJECT_KINDS, P.NUM_PAIRS
CENTRE = RoomGrid(room_size=8, num_rows=3, num_cols=3)
TWO_ROOMS = RoomGrid(room_size=6, num_rows=1, num_cols=2)
THREE_ROOMS = RoomGrid(room_size=6, num_rows=1, num_cols=3)


def _shape(room_grid: RoomGrid) -> tuple[int, int]:
    return room_grid.width, room_grid.height


def _pose_radix(room_grid: RoomGrid, room: tuple[int, int], grid_of):
    """``digits -> i32[]``: how many poses ``place_agent`` accepts in ``room``."""
    where = P.interior(room_grid, *room)
    return lambda d: jnp.sum(P.agent_poses(grid_of(d), where), dtype=jnp.int32)


def _posed(room_grid: RoomGrid, room: tuple[int, int], grid: Array, rank: Array) -> State:
    poses = P.agent_poses(grid, P.interior(room_grid, *room))
    pos, direction = P.nth_pose(poses, rank, room_grid.height)
    return make_state(grid, pos, direction)


def _pair_object(pair: Array) -> tuple[Array, Array, int]:
    """The encoding ``(kind, colour, 0)`` of a (kind, colour) pair rank in [0, 18)."""
    return KINDS[0] + pair // C.NUM_COLORS, pair % C.NUM_COLORS, 0


def _instr(kind: int, desc: Sequence[Array | int]) -> Array:
    return level.action(kind, False, desc)


# --- UnlockLocal, UnlockLocalDist, KeyInBox: the centre room of 3 x 3 -----------------------

_CENTRE_OBJECTS = P.object_cells(CENTRE, 1, 1)
_CENTRE_FREE = int(_CENTRE_OBJECTS.sum())


def draw_unlock_local(key: Array, *, distractors: int, in_box: bool = False) -> State:
    """One reset of UnlockLocal (``distractors`` 0), UnlockLocalDist (3) or KeyInBox
    (``in_box``: the key inside a box of a uniform colour).

    Args:
        key: the episode's PRNG key.
        distractors: static, MiniGrid's ``add_distractors(1, 1, num_distractors=3)``.
        in_box: static, KeyInBox.
    """
    shape = _shape(CENTRE)
    key_at = 4 if in_box else 3  # after the wall, offset, colour[ and box colour]
    slots: list[tuple[int, P.Allowed]] = [(key_at, _CENTRE_OBJECTS)]
    first_pair = key_at + 1  # then each distractor's pair and cell
    for k in range(distractors):
        slots.append((first_pair + 2 * k + 1, _CENTRE_OBJECTS))
    pose_at = first_pair + 2 * distractors

    def grid_of(d: Sequence[Array]) -> Array:
        grid = jnp.asarray(CENTRE.walls())
        door = P.door_slot(CENTRE, 1, 1, d[0], d[1])
        grid = P.put(grid, door, (C.DOOR, d[2], C.LOCKED))
        cells = P.placed_cells(d, slots, shape)
        held = cell_codes.box_cell(d[3], (C.KEY, d[2])) if in_box else (C.KEY, d[2], 0)
        grid = P.put(grid, cells[0], held)
        used = [d[2]]  # the key's pair: (key - KEY) * 6 + colour
        for k in range(distractors):
            pair = nth_free(d[first_pair + 2 * k], used)
            used.append(pair)
            grid = P.put(grid, cells[1 + k], _pair_object(pair))
        return grid

    bounds = [4, CENTRE.room_size - 2, C.NUM_COLORS] + ([C.NUM_COLORS] if in_box else [])
    bounds.append(_CENTRE_FREE)
    for k in range(distractors):
        bounds += [NUM_PAIRS - 1 - k, _CENTRE_FREE - 1 - k]
    radices = [*bounds, _pose_radix(CENTRE, (1, 1), grid_of)]
    bounds.append(int(P.interior(CENTRE, 1, 1).sum()) * 4)
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    state = _posed(CENTRE, (1, 1), grid_of(digits), digits[pose_at])
    instr = _instr(V.Instr.OPEN, (C.DOOR, D.ANY, D.Loc.NONE))
    return level.begin(state, instr, room_size=CENTRE.room_size, kinds=(V.Instr.OPEN,))


# --- UnlockPickup, UnlockPickupDist, BlockedUnlockPickup: two rooms of side 6 --------------

_RIGHT_OBJECTS = P.object_cells(TWO_ROOMS, 1, 0)
_LEFT = P.interior(TWO_ROOMS, 0, 0)
_RIGHT_FREE, _LEFT_FREE = int(_RIGHT_OBJECTS.sum()), int(_LEFT.sum())
_SIDE6 = TWO_ROOMS.room_size - 2


def draw_unlock_pickup(key: Array, *, distractors: int) -> State:
    """One reset of UnlockPickup (``distractors`` 0) or UnlockPickupDist (4).

    Digits: box colour, box cell, door offset, door colour, key cell, then per distractor
    its pair, room and cell, then the agent's pose.
    """
    shape = _shape(TWO_ROOMS)
    slots: list[tuple[int, P.Allowed]] = [(1, _RIGHT_OBJECTS), (4, _LEFT)]
    for k in range(distractors):
        room_at = 5 + 3 * k + 1

        def allowed(d: Sequence[Array], room_at: int = room_at) -> Array:
            return jnp.where(d[room_at] == 0, jnp.asarray(_LEFT), jnp.asarray(_RIGHT_OBJECTS))

        slots.append((room_at + 1, allowed))
    pose_at = 5 + 3 * distractors

    def grid_of(d: Sequence[Array]) -> Array:
        grid = jnp.asarray(TWO_ROOMS.walls())
        grid = P.put(grid, P.door_slot(TWO_ROOMS, 0, 0, 0, d[2]), (C.DOOR, d[3], C.LOCKED))
        cells = P.placed_cells(d, slots, shape)
        grid = P.put(grid, cells[0], (C.BOX, d[0], 0))
        grid = P.put(grid, cells[1], (C.KEY, d[3], 0))
        used = [d[3], 2 * C.NUM_COLORS + d[0]]  # the pairs of the key and the box
        for k in range(distractors):
            pair = nth_free(d[5 + 3 * k], used)
            used = [*used, pair]
            grid = P.put(grid, cells[2 + k], _pair_object(pair))
        return grid

    bounds = [C.NUM_COLORS, _RIGHT_FREE, _SIDE6, C.NUM_COLORS, _LEFT_FREE]
    radices: list = list(bounds)
    for k in range(distractors):
        bounds += [NUM_PAIRS - 2 - k, 2, _LEFT_FREE]
        radices += [NUM_PAIRS - 2 - k, 2, P.slot_radix(slots, 2 + k, shape)]
    bounds.append(_LEFT_FREE * 4)
    radices.append(_pose_radix(TWO_ROOMS, (0, 0), grid_of))
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    state = _posed(TWO_ROOMS, (0, 0), grid_of(digits), digits[pose_at])
    instr = _instr(V.Instr.PICKUP, (C.BOX, digits[0], D.Loc.NONE))
    return level.begin(state, instr, room_size=TWO_ROOMS.room_size, kinds=(V.Instr.PICKUP,))


def draw_blocked_unlock_pickup(key: Array) -> State:
    """One reset of BlockedUnlockPickup.

    Digits: box colour, box cell, door offset, door colour, ball colour, key cell, pose.
    """
    shape = _shape(TWO_ROOMS)
    height = TWO_ROOMS.height

    def ball_cell(d: Sequence[Array]) -> Array:
        return P.door_slot(TWO_ROOMS, 0, 0, 0, d[2]) - height  # one cell left of the door

    def left_but_ball(d: Sequence[Array]) -> Array:
        return jnp.asarray(_LEFT) & ~P.taken_by([ball_cell(d)], shape)

    slots: list[tuple[int, P.Allowed]] = [(1, _RIGHT_OBJECTS), (5, left_but_ball)]

    def grid_of(d: Sequence[Array]) -> Array:
        grid = jnp.asarray(TWO_ROOMS.walls())
        grid = P.put(grid, P.door_slot(TWO_ROOMS, 0, 0, 0, d[2]), (C.DOOR, d[3], C.LOCKED))
        grid = P.put(grid, ball_cell(d), (C.BALL, d[4], 0))
        cells = P.placed_cells(d, slots, shape)
        grid = P.put(grid, cells[0], (C.BOX, d[0], 0))
        return P.put(grid, cells[1], (C.KEY, d[3], 0))

    bounds = [C.NUM_COLORS, _RIGHT_FREE, _SIDE6, C.NUM_COLORS, C.NUM_COLORS, _LEFT_FREE - 1]
    radices = [*bounds, _pose_radix(TWO_ROOMS, (0, 0), grid_of)]
    bounds.append(_LEFT_FREE * 4)
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    state = _posed(TWO_ROOMS, (0, 0), grid_of(digits), digits[-1])
    instr = _instr(V.Instr.PICKUP, (C.BOX, D.ANY, D.Loc.NONE))
    return level.begin(state, instr, room_size=TWO_ROOMS.room_size, kinds=(V.Instr.PICKUP,))


# --- UnlockToUnlock: three rooms of side 6 --------------------------------------------------

_THIRD = P.interior(THREE_ROOMS, 2, 0)
_MIDDLE_OBJECTS = P.object_cells(THREE_ROOMS, 1, 0)
_FIRST = P.interior(THREE_ROOMS, 0, 0)


def draw_unlock_to_unlock(key: Array) -> State:
    """One reset of UnlockToUnlock.

    Digits: colour A, colour B (a rank among the other five), door A offset, key A cell,
    door B offset, key B cell, ball colour, ball cell, pose.
    """
    shape = _shape(THREE_ROOMS)
    slots: list[tuple[int, P.Allowed]] = [(3, _THIRD), (5, _MIDDLE_OBJECTS), (7, _FIRST)]

    def grid_of(d: Sequence[Array]) -> Array:
        colour_a = d[0]
        colour_b = nth_free(d[1], [colour_a])
        grid = jnp.asarray(THREE_ROOMS.walls())
        grid = P.put(grid, P.door_slot(THREE_ROOMS, 0, 0, 0, d[2]), (C.DOOR, colour_a, C.LOCKED))
        grid = P.put(grid, P.door_slot(THREE_ROOMS, 1, 0, 0, d[4]), (C.DOOR, colour_b, C.LOCKED))
        cells = P.placed_cells(d, slots, shape)
        grid = P.put(grid, cells[0], (C.KEY, colour_a, 0))
        grid = P.put(grid, cells[1], (C.KEY, colour_b, 0))
        return P.put(grid, cells[2], (C.BALL, d[6], 0))

    side = THREE_ROOMS.room_size - 2
    bounds = [C.NUM_COLORS, C.NUM_COLORS - 1, side, int(_THIRD.sum()), side]
    bounds += [int(_MIDDLE_OBJECTS.sum()), C.NUM_COLORS, int(_FIRST.sum())]
    radices = [*bounds, _pose_radix(THREE_ROOMS, (1, 0), grid_of)]
    bounds.append(side * side * 4)
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    state = _posed(THREE_ROOMS, (1, 0), grid_of(digits), digits[-1])
    instr = _instr(V.Instr.PICKUP, (C.BALL, D.ANY, D.Loc.NONE))
    return level.begin(state, instr, room_size=THREE_ROOMS.room_size, kinds=(V.Instr.PICKUP,))


def _entry(name: str, layout, room_grid: RoomGrid, kind: int, max_steps: int | None = None):
    env_id = f"BabyAI-{name}"
    return env_id, level.level_factory(
        env_id,
        room_size=room_grid.room_size,
        num_rows=room_grid.num_rows,
        num_cols=room_grid.num_cols,
        num_navs=1,
        layout_fn=layout,
        kinds=(kind,),
        max_steps=max_steps,
    )


_ROOM6_STEPS = TWO_ROOMS.room_size**2

ENVIRONMENTS = dict(
    [
        _entry(
            "UnlockLocal-v0",
            functools.partial(draw_unlock_local, distractors=0),
            CENTRE,
            V.Instr.OPEN,
        ),
        _entry(
            "UnlockLocalDist-v0",
            functools.partial(draw_unlock_local, distractors=3),
            CENTRE,
            V.Instr.OPEN,
        ),
        _entry(
            "KeyInBox-v0",
            functools.partial(draw_unlock_local, distractors=0, in_box=True),
            CENTRE,
            V.Instr.OPEN,
        ),
        _entry(
            "UnlockPickup-v0",
            functools.partial(draw_unlock_pickup, distractors=0),
            TWO_ROOMS,
            V.Instr.PICKUP,
        ),
        _entry(
            "UnlockPickupDist-v0",
            functools.partial(draw_unlock_pickup, distractors=4),
            TWO_ROOMS,
            V.Instr.PICKUP,
        ),
        _entry(
            "BlockedUnlockPickup-v0",
            draw_blocked_unlock_pickup,
            TWO_ROOMS,
            V.Instr.PICKUP,
            max_steps=16 * _ROOM6_STEPS,
        ),
        _entry(
            "UnlockToUnlock-v0",
            draw_unlock_to_unlock,
            THREE_ROOMS,
            V.Instr.PICKUP,
            max_steps=30 * _ROOM6_STEPS,
        ),
    ]
)
