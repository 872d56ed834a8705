"""BabyAI-DoorOrder: open doors in the order the instruction says ("..., then ..." / "after").

MiniGrid 3.2.0's ``OpenTwoDoors`` (``BabyAI-OpenTwoDoors-v0``, ``-OpenRedBlueDoors-v0``,
``-OpenRedBlueDoorsDebug-v0``) and ``OpenDoorsOrder`` (``BabyAI-OpenDoorsOrderN2-v0``,
``-N4-v0`` and their ``Debug`` variants), ``minigrid/envs/babyai/open.py``. The doors are in
the walls of the centre room of a 3 x 3 grid of rooms of side 6; the other rooms stay empty
and walled in. MiniGrid's draws:

* **OpenTwoDoors**: two distinct colours (OpenRedBlueDoors*: red, then blue); a closed door of
  the first on the left wall and of the second on the right wall, each at a uniform slot;
  the agent anywhere in the room, not facing a door. "open the C1 door, then open the C2
  door" (a ``then`` composite; in the Debug level the first clause is strict: opening the
  second door first fails).
* **OpenDoorsOrder** (N = 2 or 4 doors): N distinct colours, N closed doors on N distinct
  walls in a uniform order, each at a uniform slot; the agent not facing a door; two
  distinct doors d1, d2 and, uniform among three, "open d1", "open d1, then open d2" or
  "open d1 after you open d2" (each clause strict in the Debug levels: opening any other
  door fails).

No layout is rejected; MiniGrid's redraws (a repeated colour, a wall with a door already, a
pose facing a door) are drawn as ranks among the admissible choices. Instructions are
composites (`horizax.grid.babyai.sequences`, a `sequences.Seq.SINGLE` for "open d1").

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success, else 0.
* termination: the composite's success or failure; truncation at MiniGrid's fixed
  ``max_steps = 20 * 6**2 = 720``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.SeqLevelState`.

Example:
    >>> env = horizax.make("BabyAI-OpenDoorsOrderN4-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import door_room, level
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import verifiers as V
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, distinct, draw_digits
from horizax.grid.state import State

ROOM_SIZE = 6
SIDE = ROOM_SIZE - 2
CORNER = (ROOM_SIZE - 1, ROOM_SIZE - 1)  # room (1, 1)'s top-left cell
MAX_STEPS = 20 * ROOM_SIZE**2  # MiniGrid's fixed limit for both classes
KINDS = (V.Instr.OPEN,)
NUM_POSES = SIDE * SIDE * 4


def _open(colour: Array | int, strict: bool | Array) -> Array:
    """i32[8]: "open the COLOUR door"."""
    return level.action(V.Instr.OPEN, strict, [C.DOOR, colour, D.Loc.NONE])


def _composite(kind: Array | int, a: Array, b: Array) -> Array:
    """i32[18]: the composite of clauses ``a`` and ``b`` (the composite itself not strict,
    as MiniGrid's ``BeforeInstr`` / ``AfterInstr`` here)."""
    return jnp.concatenate([jnp.stack([jnp.asarray(kind, jnp.int32), jnp.int32(0)]), a, b])


def _finish(block: Array, is_door: Array, rank: Array, seq: Array) -> State:
    room_grid = RoomGrid(room_size=ROOM_SIZE, num_rows=3, num_cols=3)
    state = door_room.posed_state(room_grid, CORNER, block, is_door, [], rank)
    return level.begin_sequence(state, seq, room_size=ROOM_SIZE, kinds=KINDS)


def _pose_count(is_door: Array) -> Array:
    return door_room.pose_count([], is_door, SIDE)


def draw_open_two_doors(key: Array, *, red_blue: bool, strict: bool) -> State:
    """One reset of OpenTwoDoors.

    Args:
        key: the episode's PRNG key.
        red_blue: static, OpenRedBlueDoors*: the first door red, the second blue.
        strict: static, the Debug level (the first clause strict).
    """

    def doors(d: list[Array]) -> tuple[Array, Array, list[Array]]:
        colours = [jnp.int32(C.RED), jnp.int32(C.BLUE)] if red_blue else distinct(d[2:4])
        cells = [door_room.door_cell(c, C.CLOSED) for c in colours]
        block, is_door = door_room.block_with_doors(ROOM_SIZE, (2, 0), d[:2], cells)
        return block, is_door, colours

    bounds = [SIDE, SIDE, C.NUM_COLORS, C.NUM_COLORS - 1, NUM_POSES]
    radices = [*bounds[:-1], lambda d: _pose_count(doors(d)[1])]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    block, is_door, (first, second) = doors(digits)
    seq = _composite(Q.Seq.BEFORE, _open(first, strict), _open(second, False))
    return _finish(block, is_door, digits[-1], seq)


def draw_open_doors_order(key: Array, *, num_doors: int, strict: bool) -> State:
    """One reset of OpenDoorsOrder.

    Args:
        key: the episode's PRNG key.
        num_doors: static, 2 or 4.
        strict: static, the Debug levels (every clause strict).
    """
    n = num_doors

    def doors(d: list[Array]) -> tuple[Array, Array, list[Array]]:
        colours = distinct(d[n : 2 * n])
        walls = distinct(d[2 * n : 3 * n])
        cells = [door_room.door_cell(c, C.CLOSED) for c in colours]
        block, is_door = door_room.block_with_doors(ROOM_SIZE, walls, d[:n], cells)
        return block, is_door, colours

    bounds = [SIDE] * n
    bounds += [C.NUM_COLORS - i for i in range(n)] + [door_room.NUM_WALLS - i for i in range(n)]
    bounds += [n, n - 1, 3, NUM_POSES]
    radices = [*bounds[:-1], lambda d: _pose_count(doors(d)[1])]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    block, is_door, colours = doors(digits)
    first, second = distinct(digits[3 * n : 3 * n + 2])
    mode = digits[3 * n + 2]
    stacked = jnp.stack(colours)
    a, b = _open(stacked[first], strict), _open(stacked[second], strict)
    # MiniGrid's modes 0, 1, 2: "open d1", "open d1, then open d2", "open d1 after you open d2".
    kind = jnp.stack([jnp.int32(Q.Seq.SINGLE), jnp.int32(Q.Seq.BEFORE), jnp.int32(Q.Seq.AFTER)])
    seq = _composite(kind[mode], a, jnp.where(mode == 0, jnp.asarray(_UNUSED_CLAUSE), b))
    return _finish(block, is_door, digits[-1], seq)


# The unused clause `sequences.sequence` stores in a SINGLE composite (whatever clause a is).
_UNUSED_CLAUSE = Q.sequence(Q.Seq.SINGLE, V.instruction(V.Instr.OPEN, D.describe(C.DOOR)))[
    2 + V.INSTR_SIZE :
]


def _entry(name: str, layout):
    env_id = f"BabyAI-{name}"
    return env_id, level.level_factory(
        env_id,
        room_size=ROOM_SIZE,
        num_rows=3,
        num_cols=3,
        num_navs=2,
        layout_fn=layout,
        kinds=KINDS,
        composite=True,
        max_steps=MAX_STEPS,
    )


ENVIRONMENTS = dict(
    [
        _entry(
            "OpenTwoDoors-v0",
            functools.partial(draw_open_two_doors, red_blue=False, strict=False),
        ),
        _entry(
            "OpenRedBlueDoors-v0",
            functools.partial(draw_open_two_doors, red_blue=True, strict=False),
        ),
        _entry(
            "OpenRedBlueDoorsDebug-v0",
            functools.partial(draw_open_two_doors, red_blue=True, strict=True),
        ),
        *(
            _entry(
                f"OpenDoorsOrderN{n}{suffix}-v0",
                functools.partial(draw_open_doors_order, num_doors=n, strict=strict),
            )
            for n in (2, 4)
            for suffix, strict in (("", False), ("Debug", True))
        ),
    ]
)
