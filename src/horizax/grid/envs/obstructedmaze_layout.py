"""ObstructedMaze's layout generator (see `horizax.grid.envs.obstructedmaze`).

`plan` lists, for one variant, the doors and keys MiniGrid adds in its order; `generate`
replays that plan from one PRNG key. Positions are drawn first and the grid written once
at the end: doors sit in walls and everything else inside its own room, so a placement
only needs the set of its room's occupied cells, held as a 16-bit set
(`horizax.grid.sampling.draw_bit`).
"""

from __future__ import annotations

import dataclasses
import itertools

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import cells, missions
from horizax.grid import constants as C
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import Digits, bit, draw_bit, popcount, select_bit, split_words
from horizax.grid.state import State, make_state

ROOM_SIZE = 6
INNER = ROOM_SIZE - 2  # interior cells per side of a room
MIDDLE = (1, 1)
SIDE_ROOMS = ((2, 1), (1, 2), (0, 1), (1, 0))
CORNERS = ((2, 0), (2, 2), (0, 2), (0, 0))
# MiniGrid's ``COLOR_NAMES`` is sorted alphabetically (blue, green, grey, purple, red,
# yellow): its entries 0, 1 and 2 make the target ball blue, the blocking balls green and
# the boxes grey.
TARGET_COLOUR, BLOCKER_COLOUR, BOX_COLOUR = C.BLUE, C.GREEN, C.GREY
# A box hiding a key of colour c has state BOX_WITH_KEY + (c << cells.CONTENT_COLOUR_SHIFT).
BOX_WITH_KEY = cells.box_cell(BOX_COLOUR, (C.KEY, 0))[2]


@dataclasses.dataclass(frozen=True)
class Config:
    """One ObstructedMaze variant (a MiniGrid id's constructor arguments).

    Attributes:
        num_rows, num_cols: the room grid (1 x 2 for the 1D ids, 3 x 3 otherwise).
        agent_room: ``(i, j)`` of the agent's room.
        key_in_box: keys are hidden in grey boxes.
        blocked: a green ball stands in front of every locked door, inside its room.
        num_quarters: side rooms with doors and keys (3 x 3 ids only).
        num_rooms_visited: sets ``max_steps = 4 * num_rooms_visited * ROOM_SIZE**2``.
        keys_last: v1's order (both doors of a side room, then both keys).
    """

    num_rows: int
    num_cols: int
    agent_room: tuple[int, int]
    key_in_box: bool
    blocked: bool
    num_quarters: int = 1
    num_rooms_visited: int = 2
    keys_last: bool = False

    @property
    def room_grid(self) -> RoomGrid:
        """The static room grid."""
        return RoomGrid(ROOM_SIZE, self.num_rows, self.num_cols)

    @property
    def max_steps(self) -> int:
        """MiniGrid's default time limit."""
        return 4 * self.num_rooms_visited * ROOM_SIZE**2


# The static plan: ("door", i, j, idx, colour slot, locked, blocked), ("key", i, j, colour slot).
Op = tuple


def plan(cfg: Config) -> tuple[list[Op], tuple[tuple[int, int], ...]]:
    """The doors and keys MiniGrid adds, in its order, and the candidate rooms of the ball.

    Colour slots index the colour permutation ``c``.
    """
    if cfg.num_rows == 1:  # ObstructedMaze_1Dlhb: always locked, key in room (0, 0)
        return [("door", 0, 0, 0, 0, True, cfg.blocked), ("key", 0, 0, 0)], ((1, 0),)
    ops: list[Op] = []
    for q in range(cfg.num_quarters):
        side = SIDE_ROOMS[q]
        ops.append(("door", *MIDDLE, q, q, False, False))
        sides = [((q + k) % 4, (q + k) % C.NUM_COLORS) for k in (-1, 1)]
        doors = [("door", *side, idx, colour, True, cfg.blocked) for idx, colour in sides]
        keys = [("key", *side, colour) for _, colour in sides]
        ops += doors + keys if cfg.keys_last else [doors[0], keys[0], doors[1], keys[1]]
    return ops, CORNERS[: cfg.num_quarters]


def _draw_bounds(cfg: Config) -> list[int]:
    """The radix bounds of the layout's draws, in `generate`'s order."""
    ops, ball_rooms = plan(cfg)
    bounds = [len(_PERMUTATIONS)]  # the door colours
    bounds += [INNER * INNER for op in ops if op[0] == "key"]
    bounds += [len(ball_rooms)] if len(ball_rooms) > 1 else []
    return [*bounds, INNER * INNER, 4 * INNER * INNER]  # the target ball, the agent


def count_words(cfg: Config) -> int:
    """Digit words the layout draws (a static replay of the allocation)."""
    digits = Digits()
    for bound in _draw_bounds(cfg):
        digits.draw(bound, bound)
    return digits.count


def _origin(i: int, j: int) -> tuple[int, int]:
    """The first interior cell of room ``(i, j)``: bit ``4 * dx + dy`` is ``origin + (dx, dy)``."""
    return i * (ROOM_SIZE - 1) + 1, j * (ROOM_SIZE - 1) + 1


def _far_bits(i: int, j: int, agent: np.ndarray) -> int:
    """The interior cells of room ``(i, j)`` at Manhattan distance >= 2 from ``agent``."""
    x0, y0 = _origin(i, j)
    cells_ = [(dx, dy) for dx in range(INNER) for dy in range(INNER)]
    far = [abs(x0 + dx - agent[0]) + abs(y0 + dy - agent[1]) >= 2 for dx, dy in cells_]
    return sum(1 << (INNER * dx + dy) for (dx, dy), ok in zip(cells_, far, strict=True) if ok)


def _bit_of(pos: Array, i: int, j: int) -> Array:
    """u32[]: the interior bit of room ``(i, j)`` at ``pos`` (which must lie inside)."""
    x0, y0 = _origin(i, j)
    return bit(INNER * (pos[0] - x0) + (pos[1] - y0))


def _cell_at(index: Array, origin: Array | tuple[int, int]) -> Array:
    """i32[2]: the cell of interior bit ``index`` of the room starting at ``origin``."""
    # index >> 2, index & 3: INNER == 4 (and unsigned-style ops, cheaper than floor division)
    return jnp.asarray(origin, jnp.int32) + jnp.stack([index >> 2, index & 3])


# A placed object's encoding: a static ``(kind, colour, state)`` plus a traced value added to
# one channel (the colour of a door or key, the content colour of a box), so that all the
# encodings are built at once when the grid is written.
Item = tuple[tuple[int, int, int], int, Array | int]


def _door_slots(cfg: Config) -> dict[tuple[str, int, int], int]:
    """The bit offset (2 bits each) of every wall's door slot in the slot word."""
    walls = [("R", i, j) for j in range(cfg.num_rows) for i in range(cfg.num_cols - 1)]
    walls += [("D", i, j) for j in range(cfg.num_rows - 1) for i in range(cfg.num_cols)]
    assert len(walls) <= 16, "one 32-bit word holds 16 slots"
    return {wall: 2 * n for n, wall in enumerate(walls)}


def _door_pos(cfg: Config, slot_word: Array, i: int, j: int, idx: int) -> Array:
    """i32[2]: where door ``idx`` of room ``(i, j)`` goes (MiniGrid's ``door_pos``)."""
    step = ROOM_SIZE - 1
    wall = {0: ("R", i, j), 1: ("D", i, j), 2: ("R", i - 1, j), 3: ("D", i, j - 1)}[idx]
    offset = 1 + ((slot_word >> _door_slots(cfg)[wall]) & 3).astype(jnp.int32)
    kind, wi, wj = wall
    if kind == "R":  # the wall right of room (wi, wj): x fixed, y drawn in the room's rows
        return jnp.stack([jnp.int32((wi + 1) * step), wj * step + offset])
    return jnp.stack([wi * step + offset, jnp.int32((wj + 1) * step)])


def generate(cfg: Config, key: Array) -> State:
    """Runs MiniGrid's construction for ``cfg`` from one PRNG key.

    Positions are drawn first and the grid written once at the end (one scatter). Doors sit
    in walls and everything else inside its own room, so a placement only needs the set of
    its room's occupied cells (a 16-bit set), and v0's overwrite is a comparison (`_lost`).
    """
    rg = cfg.room_grid
    ops, ball_rooms = plan(cfg)
    n_digit_words = count_words(cfg)
    words = split_words(key, 1 + n_digit_words)
    slot_word, digits = words[0], Digits(words[1:])
    colours = _colours(digits)
    placeholder = rg.default_agent_pos()
    occupied: dict[tuple[int, int], Array] = {}  # room -> u32 set of its occupied cells
    doors: list[tuple[int, int, int, Array]] = []  # (i, j, idx, pos)
    placed: list[tuple[str, tuple[int, int] | None, Array, Item]] = []  # kind, room, pos, item

    def occupy(room: tuple[int, int], pos: Array) -> None:
        occupied[room] = occupied.get(room, jnp.zeros((), jnp.uint32)) | _bit_of(pos, *room)

    def free(room: tuple[int, int]) -> Array | int:
        # Static (an int) while nothing was placed in the room: `draw_bit` then needs no search.
        far = _far_bits(*room, placeholder)
        return far if room not in occupied else jnp.uint32(far) & ~occupied[room]

    for op in ops:
        if op[0] == "door":
            _, i, j, idx, slot, locked, blocked = op
            pos = _door_pos(cfg, slot_word, i, j, idx)
            state = C.LOCKED if locked else C.CLOSED
            placed.append(("door", None, pos, ((C.DOOR, 0, state), 1, colours[slot])))
            doors.append((i, j, idx, pos))
            if blocked:  # in room (i, j), in front of the door; overwrites what is there
                ball = pos - jnp.asarray(C.DIR_TO_VEC[idx])
                placed.append(("ball", (i, j), ball, ((C.BALL, BLOCKER_COLOUR, 0), 1, 0)))
                occupy((i, j), ball)
        else:
            _, i, j, slot = op
            pos = _cell_at(draw_bit(digits, free((i, j))), _origin(i, j))
            if cfg.key_in_box:  # a grey box holding the key
                item = (
                    (C.BOX, BOX_COLOUR, BOX_WITH_KEY),
                    2,
                    colours[slot] << cells.CONTENT_COLOUR_SHIFT,
                )
            else:
                item = ((C.KEY, 0, 0), 1, colours[slot])
            placed.append(("key", (i, j), pos, item))
            occupy((i, j), pos)
    # The target ball: a uniform room among the candidates, then a uniform admissible cell.
    room = digits.draw(len(ball_rooms), len(ball_rooms)) if len(ball_rooms) > 1 else 0
    words = [free(r) for r in ball_rooms]
    static = all(isinstance(w, int) for w in words) and len(set(words)) == 1
    word = words[0] if static else choose(room, [jnp.uint32(w) for w in words])
    target = _cell_at(draw_bit(digits, word), choose(room, [_origin(*r) for r in ball_rooms]))
    placed.append(("target", None, target, ((C.BALL, TARGET_COLOUR, 0), 1, 0)))
    # One write of everything; a lost key is sent off the grid and dropped.
    lost = _lost(placed)
    xs = jnp.stack(
        [jnp.where(gone, rg.width, p[2][0]) for p, gone in zip(placed, lost, strict=True)]
    )
    ys = jnp.stack([p[2][1] for p in placed])
    grid = (
        jnp.asarray(rg.walls())
        .at[xs, ys]
        .set(_encodings([p[3] for p in placed]), mode="drop", wrap_negative_indices=False)
    )
    assert cfg.agent_room not in ball_rooms
    empty = ~occupied.get(cfg.agent_room, jnp.zeros((), jnp.uint32)) & jnp.uint32(0xFFFF)
    agent_pos, agent_dir = _place_agent(digits, empty, doors, cfg.agent_room)
    assert digits.count == n_digit_words, "the draws must follow _draw_bounds"
    mission = missions.encode(missions.Template.PICK_UP, color=TARGET_COLOUR, kind=C.BALL)
    return make_state(grid, agent_pos, agent_dir, mission=mission)


def _lost(placed) -> list[Array | bool]:
    """Per placed object: overwritten by a blocking ball set later on its cell (v0's bug)."""
    lost: list[Array | bool] = []
    for n, (kind, room, pos, _) in enumerate(placed):
        gone: Array | bool = False
        for later_kind, later_room, later_pos, _ in placed[n + 1 :]:
            if kind == "key" and later_kind == "ball" and later_room == room:
                gone = gone | jnp.all(pos == later_pos)
        lost.append(gone)
    return lost


def _encodings(items: list[Item]) -> Array:
    """u8[K, 3]: the encodings of the placed objects (static parts plus one traced channel)."""
    base = np.array([item[0] for item in items], np.int32)
    channel = np.eye(3, dtype=np.int32)[[item[1] for item in items]]
    values = jnp.stack([jnp.asarray(item[2], jnp.int32) for item in items])
    return (values[:, None] * channel + base).astype(jnp.uint8)


# Every permutation of the colours, so a uniform one is one digit and one row lookup.
_PERMUTATIONS = np.array(list(itertools.permutations(range(C.NUM_COLORS))), np.int32)


def _colours(digits: Digits[Array]) -> Array:
    """i32[6]: a uniform permutation of the colours (MiniGrid's ``_rand_subset``)."""
    rank = digits.draw(len(_PERMUTATIONS), len(_PERMUTATIONS))
    return jnp.asarray(_PERMUTATIONS).at[rank].get(mode="promise_in_bounds")


# Per direction (right, down, left, up): the interior cells whose front cell is also inside
# the room, the shift that brings that front cell's bit onto the cell's, and the cells whose
# front cell is the wall on that side.
_INSIDE = (0x0FFF, 0x7777, 0xFFF0, 0xEEEE)
_SHIFT = (4, 1, -4, -1)
_EDGE = (0xF000, 0x8888, 0x000F, 0x1111)


def _place_agent(
    digits: Digits[Array], empty: Array, doors: list, room: tuple[int, int]
) -> tuple[Array, Array]:
    """``(pos i32[2], dir i32[])``: MiniGrid's ``RoomGrid.place_agent`` in ``room``.

    Uniform over the (empty interior cell, direction) pairs whose front cell is empty or a
    wall: a front cell inside the room must be empty, one in the wall must not be a door.

    Args:
        digits: the random digits.
        empty: u32 set of the room's empty interior cells.
        doors: ``(i, j, idx, pos)`` of every door.
        room: the agent's room.
    """
    x0, y0 = _origin(*room)
    # The interior cells facing a door, per wall of the room (a door belongs to two rooms).
    blocked = [jnp.uint32(0)] * 4
    for i, j, idx, pos in doors:
        neighbour = (i + int(C.DIR_TO_VEC[idx][0]), j + int(C.DIR_TO_VEC[idx][1]))
        for side, wall in (((i, j), idx), (neighbour, (idx + 2) % 4)):
            if side != room:
                continue
            along = pos[1] - y0 if wall in (0, 2) else pos[0] - x0
            index = {0: 12 + along, 1: 4 * along + 3, 2: along, 3: 4 * along}[wall]
            blocked[wall] = blocked[wall] | bit(index)
    pairs = []
    for d in range(4):
        shift = _SHIFT[d]
        front = jnp.right_shift(empty, shift) if shift > 0 else jnp.left_shift(empty, -shift)
        ok = (front & jnp.uint32(_INSIDE[d])) | (jnp.uint32(_EDGE[d]) & ~blocked[d])
        pairs.append(empty & ok)
    # The 64 pairs as two 32-bit sets: directions 0, 1 in ``low``, 2, 3 in ``high``.
    low = pairs[0] | jnp.left_shift(pairs[1], jnp.uint32(16))
    high = pairs[2] | jnp.left_shift(pairs[3], jnp.uint32(16))
    in_low = popcount(low)
    rank = digits.draw(in_low + popcount(high), 4 * INNER * INNER)
    upper = rank >= in_low
    position = select_bit(jnp.where(upper, high, low), rank - jnp.where(upper, in_low, 0), width=32)
    # (x, y, direction) of the drawn pair by one lookup: the draw is then computed once, where
    # two outputs computed from it would each get a copy of it from XLA's fusion.
    pair = 32 * upper.astype(jnp.int32) + position
    table = np.array(
        [(x0 + (p & 15) // INNER, y0 + (p & 15) % INNER, p // 16) for p in range(64)], np.int32
    )
    row = jnp.asarray(table).at[pair].get(mode="promise_in_bounds")
    return row[:2], row[2]


def choose(index: Array | int, options: list) -> Array:
    """The ``index``-th of a short static list of equally shaped arrays (a select chain)."""
    out = jnp.asarray(options[0])
    for k, option in enumerate(options[1:], start=1):
        out = jnp.where(index == k, jnp.asarray(option), out)
    return out
