"""BabyAI-Maze: go to, open or pick up something in a grid of rooms joined by doors.

MiniGrid 3.2.0's ``GoTo`` (``minigrid/envs/babyai/goto.py``), registered as
``BabyAI-GoTo-v0`` (3 x 3 rooms of side 8, 18 objects), ``BabyAI-GoToOpen-v0`` (its doors
open), ``BabyAI-GoToObjMaze-v0`` (one object) with ``…Open-v0``, ``…S4R2-v0`` (2 x 2 rooms
of side 4) and ``…S4-v0`` … ``…S7-v0`` (3 x 3 rooms of side 4 to 7); and ``Open``,
``Pickup`` and ``UnblockPickup`` (``open.py``, ``pickup.py``: the same layout, 18 objects,
20 for UnblockPickup). MiniGrid's draws, in order:

* the agent: a uniform room, a uniform interior cell and direction (the rooms are empty
  and have no doors yet, so no pose is redrawn);
* ``connect_all``: closed doors of uniform colours until every room is reachable
  (`horizax.grid.babyai.connect`, in closed form);
* the objects (``add_distractors(all_unique=False)``): each a uniform kind and colour
  (repeats allowed) in a uniform room, on a free interior cell not next to the agent;
* the whole layout is drawn again when an object or a door cannot be reached without
  moving an object (``check_objs_reachable``); UnblockPickup draws it again in the opposite
  case, when every object and door can be. Here `ATTEMPTS` whole layouts per reset, the
  first accepted kept, else the last (rates in docs/gridworld.md);
* the instruction, described by kind and colour (any match counts): "go to" or "pick up"
  one of the objects, uniform; Open: "open" one of the doors, uniform. The GoTo Open levels
  then open every door.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success, else 0.
* termination: the verifier's success; truncation at ``max_steps = size**2 * rows *
  cols``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-GoToObjMazeS4-v0")
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
from horizax.grid.sampling import WIDE_DIGIT_BUDGET
from horizax.grid.state import State, make_state

KINDS = P.OBJECT_KINDS
# Whole layouts per reset, by (objects, room size): the rejection rates measured per draw
# (docs/gridworld.md) give every level below one in 10**6 resets with all rejected.
ATTEMPTS = {
    "GoTo": 20,
    "GoToOpen": 20,
    "GoToObjMaze": 4,
    "GoToObjMazeOpen": 4,
    "GoToObjMazeS4R2": 10,
    "GoToObjMazeS4": 10,
    "GoToObjMazeS5": 7,
    "GoToObjMazeS6": 5,
    "GoToObjMazeS7": 5,
    "Open": 20,
    "Pickup": 20,
    "UnblockPickup": 20,
}


def _attempt(
    key: Array,
    *,
    room_grid: RoomGrid,
    num_dists: int,
    doors_open: bool,
    action: int,
    unblock: bool,
) -> tuple[State, Array, Array]:
    """One whole layout: ``(state, accepted, instr i32[8])`` (see `draw_maze`)."""
    cols, rows = room_grid.num_cols, room_grid.num_rows
    side = room_grid.room_size - 2
    step = room_grid.room_size - 1
    shape = (room_grid.width, room_grid.height)
    size = shape[0] * shape[1]
    # A room's interior cells from its corner, in the order of the flattened grid.
    along_x, along_y = (a.reshape(-1) for a in np.indices((side, side)))
    edges = len(connect.walls(cols, rows))
    layout_key, priority_key = threefry.split(key, 2)
    priority = threefry.random_bits(priority_key, (edges,))
    everywhere = jnp.ones(edges, bool)
    doors = connect.added_doors(priority, ~everywhere, everywhere, cols, rows)

    def program(draw: Draws):
        room = draw(cols * rows, cols * rows)
        cell, direction = draw(side * side, side * side), draw(4, 4)
        agent = jnp.stack(
            [room % cols * step + 1 + cell // side, room // cols * step + 1 + cell % side]
        )
        offsets = [draw(side, side) for _ in range(edges)]
        colours = [draw(C.NUM_COLORS, C.NUM_COLORS) for _ in range(edges)]

        # The objects, in a loop (one placement to compile, not num_dists): each in a
        # uniform room, on a uniform cell of it not taken and not next to the agent.
        def place_object(i: Array, digit: Digit, carry: tuple[Array, Array]) -> tuple[Array, Array]:
            taken, objects = carry
            colour, kind = digit(0, C.NUM_COLORS), digit(1, len(KINDS))
            # The room's cells as a list in the grid's order (x-major): its corner plus
            # constant offsets, none the agent's cell or next to it, none taken. The rank is
            # found among these, not by a count over the whole grid.
            where = digit(2, cols * rows)
            x = where % cols * step + 1 + along_x
            y = where // cols * step + 1 + along_y
            cells = x * shape[1] + y
            far = jnp.abs(x - agent[0]) + jnp.abs(y - agent[1]) >= 2
            ok = far & ~taken[cells]
            at = P.nth_listed(cells, ok, digit(3, jnp.sum(ok, dtype=jnp.int32)), size)
            taken = taken | (jnp.arange(size) == at)
            return taken, objects.at[i].set(jnp.stack([at, KINDS[0] + kind, colour]))

        bounds = (C.NUM_COLORS, len(KINDS), cols * rows, side * side)
        carry = (jnp.zeros(size, bool), jnp.zeros((num_dists, 3), jnp.int32))
        _, objects = draw.loop(num_dists, bounds, place_object, carry)  # (cell, kind, colour)
        if action == V.Instr.OPEN:  # a door, uniform (MiniGrid lists each one twice)
            rank = draw(jnp.sum(doors, dtype=jnp.int32), edges)
            door = P.nth_true(doors, rank)
            target = (jnp.int32(C.DOOR), jnp.stack(colours)[door])
        else:
            pick = draw(num_dists, num_dists)
            target = (objects[pick, 1], objects[pick, 2])
        return agent, direction, offsets, colours, objects, target

    agent, direction, offsets, colours, objects, target = sequential_draws(
        layout_key, program, budget=WIDE_DIGIT_BUDGET
    )
    grid = P.with_doors(room_grid, jnp.asarray(room_grid.walls()), doors, offsets, colours)
    # Every object's cell is distinct, or past the grid when its room was full (dropped).
    cells = jnp.concatenate([objects[:, 1:], jnp.zeros_like(objects[:, :1])], axis=1)
    grid = grid.reshape(size, 3).at[objects[:, 0]].set(cells.astype(grid.dtype), mode="drop")
    grid = grid.reshape((*shape, 3))
    kind = grid[..., 0]
    walked = reachable((kind != C.EMPTY) & (kind != C.DOOR), agent)
    everything = jnp.all(walked | (kind == C.EMPTY) | (kind == C.WALL))
    accepted = ~everything if unblock else everything
    if doors_open:
        grid = jnp.where((kind == C.DOOR)[..., None], grid.at[..., 2].set(C.OPEN), grid)
    instr = level.action(action, False, (*target, D.Loc.NONE))
    return make_state(grid, agent, direction), accepted, instr


def draw_maze(
    key: Array,
    *,
    room_grid: RoomGrid,
    num_dists: int,
    doors_open: bool,
    action: int,
    unblock: bool,
    attempts: int,
) -> State:
    """One reset of a maze level: ``attempts`` whole layouts (static), the first accepted
    kept, else the last.

    Args:
        key: the episode's PRNG key.
        room_grid: the rooms (static).
        num_dists: objects placed (static).
        doors_open: static, every door opened after the draws (the Open levels).
        action: static, the `verifiers.Instr` kind: GOTO or PICKUP an object, OPEN a door.
        unblock: static, UnblockPickup: a layout is accepted when some object or door can
            NOT be reached without moving an object (the others: when all can).
        attempts: static, whole layouts drawn.
    """
    attempt = functools.partial(
        _attempt,
        room_grid=room_grid,
        num_dists=num_dists,
        doors_open=doors_open,
        action=action,
        unblock=unblock,
    )
    state, instr = level.first_accepted(attempt, key, attempts)
    return level.begin(state, instr, room_size=room_grid.room_size, kinds=(action,))


def _entry(
    name: str,
    *,
    room_size=8,
    rows=3,
    cols=3,
    num_dists=18,
    doors_open=False,
    action=V.Instr.GOTO,
    unblock=False,
):
    env_id = f"BabyAI-{name}-v0"
    room_grid = RoomGrid(room_size=room_size, num_rows=rows, num_cols=cols)
    layout = functools.partial(
        draw_maze,
        room_grid=room_grid,
        num_dists=num_dists,
        doors_open=doors_open,
        action=action,
        unblock=unblock,
        attempts=ATTEMPTS[name],
    )
    return env_id, level.level_factory(
        env_id,
        room_size=room_size,
        num_rows=rows,
        num_cols=cols,
        num_navs=1,
        layout_fn=layout,
        kinds=(action,),
    )


ENVIRONMENTS = dict(
    [
        _entry("GoTo"),
        _entry("GoToOpen", doors_open=True),
        _entry("GoToObjMaze", num_dists=1),
        _entry("GoToObjMazeOpen", num_dists=1, doors_open=True),
        _entry("GoToObjMazeS4R2", num_dists=1, room_size=4, rows=2, cols=2),
        *(_entry(f"GoToObjMazeS{s}", num_dists=1, room_size=s) for s in (4, 5, 6, 7)),
        _entry("Open", action=V.Instr.OPEN),
        _entry("Pickup", action=V.Instr.PICKUP),
        _entry("UnblockPickup", num_dists=20, action=V.Instr.PICKUP, unblock=True),
    ]
)
