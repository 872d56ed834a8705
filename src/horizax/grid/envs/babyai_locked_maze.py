"""BabyAI-LockedMaze: a locked room in a grid of rooms: unlock its door, or reach inside it.

MiniGrid 3.2.0's ``Unlock`` (``minigrid/envs/babyai/unlock.py``, ``BabyAI-Unlock-v0``) and
``GoToImpUnlock`` (``goto.py``, ``BabyAI-GoToImpUnlock-v0``), both on 3 x 3 rooms of side 8.
MiniGrid's draws, in order:

* a locked door of a uniform colour on a uniform wall (one with a neighbour) of a uniform
  room, which becomes the locked room;
* the key of the door's colour in a uniform room (off the placeholder agent, the centre of
  the middle room, and its neighbours, as every object placed before the agent). MiniGrid's
  code means another room than the locked one, but it compares numpy integers with ``is``,
  which never holds: the key may be behind its own door (then the level cannot be won),
  and horizax keeps that;
* ``connect_all`` (`horizax.grid.babyai.connect`): closed doors until every room is
  reachable, none on the locked room's walls. Unlock: with probability 1/2 their colours
  avoid the locked door's, else any colour;
* objects of uniform kinds and colours (repeats allowed), three (Unlock) or two
  (GoToImpUnlock) in every room: MiniGrid means every room but the locked one, and the
  same ``is`` test makes it every room;
* the agent in a uniform room other than the locked one, on a free cell, facing no object
  or door;
* the whole layout is drawn again when an object or a door cannot be reached without moving
  an object (``check_objs_reachable``; doors, locked ones included, are walked through):
  `ATTEMPTS` whole layouts per reset, the first accepted kept (rates in docs/gridworld.md);
* Unlock: "open the COLOUR door" (any door of that colour counts: when ``connect_all``
  used every colour, another door may match, and opening it succeeds as in MiniGrid).
  GoToImpUnlock: one more object, in the locked room, and "go to the/a" it (any object of
  its kind and colour counts).

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success, else 0.
* termination: the verifier's success; truncation at ``max_steps = 576``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-Unlock-v0")
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
from horizax.grid.draws import Digit, Draws, sequential_draws
from horizax.grid.envs.babyai_goto import reachable
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, nth_free
from horizax.grid.state import State, make_state

KINDS = P.OBJECT_KINDS
ROOMS = RoomGrid(room_size=8, num_rows=3, num_cols=3)
COLS, ROWS, NUM_ROOMS = ROOMS.num_cols, ROOMS.num_rows, ROOMS.num_cols * ROOMS.num_rows
SIDE = ROOMS.room_size - 2
# Whole layouts per reset (docs/gridworld.md): all rejected in under one reset in 10**6.
ATTEMPTS = {"Unlock": 41, "GoToImpUnlock": 23}


def _wall_edges() -> np.ndarray:
    """i32[rooms, 4]: the `connect.walls` index of each room's wall (right, down, left,
    up), -1 where it has no neighbour."""
    index = {tuple(w): e for e, w in enumerate(connect.walls(COLS, ROWS).tolist())}
    out = np.full((NUM_ROOMS, 4), -1, np.int32)
    for j in range(ROWS):
        for i in range(COLS):
            keys = [(i, j, 0), (i, j, 1), (i - 1, j, 0), (i, j - 1, 1)]
            out[j * COLS + i] = [index.get(k, -1) for k in keys]
    return out


WALL_EDGES = _wall_edges()
INTERIORS = np.stack([P.interior(ROOMS, i, j) for j in range(ROWS) for i in range(COLS)])
OBJECT_CELLS = np.stack([P.object_cells(ROOMS, i, j) for j in range(ROWS) for i in range(COLS)])
# The same as lists per room: a rank is found among a room's cells, not over the grid.
OBJECT_LISTS = P.listed(OBJECT_CELLS)
INTERIOR_LISTS = P.listed(INTERIORS)
POSE_LISTS = P.listed(P.pose_masks(INTERIORS))[0]


def _attempt(key: Array, *, per_room: int, go_to: bool) -> tuple[State, Array, Array]:
    """One whole layout of Unlock (``per_room`` 3) or GoToImpUnlock (2, ``go_to``):
    ``(state, accepted, instr i32[8])``."""
    shape = (ROOMS.width, ROOMS.height)
    size = shape[0] * shape[1]
    edges = len(connect.walls(COLS, ROWS))
    layout_key, priority_key = threefry.split(key, 2)
    priority = threefry.random_bits(priority_key, (edges,))
    walls_of = jnp.asarray(WALL_EDGES)

    def program(draw: Draws):
        locked = draw(NUM_ROOMS, NUM_ROOMS)
        valid = walls_of[locked] >= 0
        rank = draw(jnp.sum(valid, dtype=jnp.int32), 4)
        wall = P.nth_true(valid, rank)
        locked_edge = walls_of[locked, wall]
        door_colour = draw(C.NUM_COLORS, C.NUM_COLORS)
        taken = jnp.zeros(shape, bool)

        def place(room: Array | int, taken: Array, lists=OBJECT_LISTS) -> Array:
            cells, ok = P.open_listed(lists, room, taken)
            rank = draw(jnp.sum(ok, dtype=jnp.int32), SIDE * SIDE)
            return P.nth_listed(cells, ok, rank, size)

        # MiniGrid means "another room" but compares numpy ints with ``is``: any room.
        key_cell = place(draw(NUM_ROOMS, NUM_ROOMS), taken)
        taken = taken | P.taken_by([key_cell], shape)
        # connect_all's colours: Unlock avoids the locked door's with probability 1/2.
        avoid = (draw(2, 2) == 1) if not go_to else jnp.bool_(False)
        offsets = [draw(SIDE, SIDE) for _ in range(edges)]
        colours = []
        for _ in range(edges):
            c = draw(jnp.where(avoid, C.NUM_COLORS - 1, C.NUM_COLORS), C.NUM_COLORS)
            colours.append(jnp.where(avoid, nth_free(c, [door_colour]), c))
        at_locked = jnp.any(walls_of[locked][:, None] == jnp.arange(edges)[None, :], axis=0)
        already = jnp.arange(edges) == locked_edge
        doors = connect.added_doors(priority, already, ~at_locked, COLS, ROWS)
        grid = P.with_doors(ROOMS, jnp.asarray(ROOMS.walls()), doors, offsets, colours)
        grid = P.put(
            grid, P.door_slots(ROOMS, offsets)[locked_edge], (C.DOOR, door_colour, C.LOCKED)
        )
        grid = P.put(grid, key_cell, (C.KEY, door_colour, 0))

        # Every room, the locked one included (MiniGrid's ``is not`` test never excludes it):
        # ``per_room`` objects a room, in a loop (one placement to compile, not 27).
        def place_object(i: Array, digit: Digit, carry: tuple[Array, Array]) -> tuple[Array, Array]:
            grid, taken = carry
            colour, kind = digit(0, C.NUM_COLORS), digit(1, len(KINDS))
            cells, ok = P.open_listed(OBJECT_LISTS, i // per_room, taken)
            at = P.nth_listed(cells, ok, digit(2, jnp.sum(ok, dtype=jnp.int32)), size)
            grid = P.write_cell(grid, at, (KINDS[0] + kind, colour, 0))
            return grid, P.write_cell(taken, at, True)

        bounds = (C.NUM_COLORS, len(KINDS), SIDE * SIDE)
        grid, taken = draw.loop(NUM_ROOMS * per_room, bounds, place_object, (grid, taken))
        agent_room = nth_free(draw(NUM_ROOMS - 1, NUM_ROOMS - 1), [locked])
        poses = jnp.asarray(POSE_LISTS)[agent_room]  # 4 cell + direction, in order
        admissible = P.agent_poses(grid, np.ones(shape, bool))[poses]
        rank = draw(jnp.sum(admissible, dtype=jnp.int32), SIDE * SIDE * 4)
        pose = P.nth_listed(poses, admissible, rank, 4 * size)
        agent = jnp.stack([pose // 4 // ROOMS.height, pose // 4 % ROOMS.height])
        direction = pose % 4
        kind = grid[..., 0]
        walked = reachable((kind != C.EMPTY) & (kind != C.DOOR), agent)
        accepted = jnp.all(walked | (kind == C.EMPTY) | (kind == C.WALL))
        if go_to:  # one more object, in the locked room, to go to
            colour, kind_rank = draw(C.NUM_COLORS, C.NUM_COLORS), draw(len(KINDS), len(KINDS))
            # The whole interior: the agent is elsewhere, so no cell is near it.
            at = place(locked, taken, INTERIOR_LISTS)
            grid = P.put(grid, at, (KINDS[0] + kind_rank, colour, 0))
            instr = level.action(V.Instr.GOTO, False, (KINDS[0] + kind_rank, colour, D.Loc.NONE))
        else:
            instr = level.action(V.Instr.OPEN, False, (C.DOOR, door_colour, D.Loc.NONE))
        return make_state(grid, agent, direction), accepted, instr

    return sequential_draws(layout_key, program, budget=WIDE_DIGIT_BUDGET)


def draw_locked_maze(key: Array, *, per_room: int, go_to: bool, attempts: int) -> State:
    """One reset of Unlock or GoToImpUnlock: ``attempts`` whole layouts (static), the first
    whose objects and doors are all reachable kept, else the last."""
    attempt = functools.partial(_attempt, per_room=per_room, go_to=go_to)
    state, instr = level.first_accepted(attempt, key, attempts)
    kinds = (V.Instr.GOTO,) if go_to else (V.Instr.OPEN,)
    return level.begin(state, instr, room_size=ROOMS.room_size, kinds=kinds)


def _entry(name: str, per_room: int, go_to: bool):
    env_id = f"BabyAI-{name}-v0"
    layout = functools.partial(
        draw_locked_maze, per_room=per_room, go_to=go_to, attempts=ATTEMPTS[name]
    )
    return env_id, level.level_factory(
        env_id,
        room_size=ROOMS.room_size,
        num_rows=ROWS,
        num_cols=COLS,
        num_navs=1,
        layout_fn=layout,
        kinds=(V.Instr.GOTO,) if go_to else (V.Instr.OPEN,),
    )


ENVIRONMENTS = dict([_entry("Unlock", 3, False), _entry("GoToImpUnlock", 2, True)])
