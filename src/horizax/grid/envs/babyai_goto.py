"""BabyAI-GoTo: go to the object the instruction describes, in a single room.

MiniGrid 3.2.0's one-room GoTo levels (``minigrid/envs/babyai/goto.py``): GoToRedBallGrey,
GoToRedBall, GoToRedBallNoDists, GoToRedBlueBall, GoToObj (S4, S6-v1) and GoToLocal (S5N2
... S8N7). One
``room_size`` x ``room_size`` room (a ``RoomGrid`` of one room), MiniGrid's draws in order:

* the agent: a uniform interior cell and a uniform direction (the room is empty, so
  ``place_agent``'s "nothing in front" rejection never fires);
* the objects (``add_object`` / ``add_distractors``): each of a uniform colour and a uniform
  kind among key, ball and box (GoToRedBall*'s first object is a red ball; GoToRedBallGrey's
  distractors are then recoloured grey; GoToRedBlueBall's target is a red or a blue ball and
  its distractors never are, see `NOT_RED_BLUE_BALL`), on a uniform interior cell that is
  free, not the agent's and not next to it (``reject_next_to``: Manhattan distance >= 2);
* GoToRedBall*, GoToRedBlueBall and GoToLocal reject the whole layout when an object cannot
  be reached without moving another (``check_objs_reachable``) and draw again;
* the instruction: "go to" the first object (GoToRedBall*, GoToObj) or a uniform one of the
  objects (GoToLocal), described by kind and colour: "the" when it is the only such
  object, "a" when there are several (any of them counts).

Here the layout is one program for every level (`draw_goto`; the levels differ in the
constants of their `GoToSpec` only): up to `ATTEMPTS` whole layouts are drawn, in a loop
that stops at the first one whose objects are all reachable, which is kept -- exactly MiniGrid's
accepted distribution (one draw where a single object cannot be cut off). When all are
rejected the last is kept as it is, an object unreachable: with the measured rejection
rates per draw (eight objects in an 8-room, GoToRedBall* and
GoToLocal: 15.4%; S8N7: 7.7%; S6N4: 8.2%; S7N5: 5.2%; S5N2: none in 20,000) that is
0.154**8 ~ 3e-7 resets at worst (docs/gridworld.md).

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the agent faces a described object's cell
  (`horizax.grid.babyai.verifiers`), else 0.
* termination: success; truncation at ``max_steps = room_size**2``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-GoToLocal-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 2, jnp.int32))
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np
from jax import Array, lax
from jax.typing import ArrayLike

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level
from horizax.grid.babyai import verifiers as V
from horizax.grid.environment import LayoutFn
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, draw_digits
from horizax.grid.state import State, make_state

KINDS = (C.KEY, C.BALL, C.BOX)  # MiniGrid's ``add_object`` kinds
ATTEMPTS = 8  # whole layouts drawn per reset; the first with every object reachable is kept
RANDOM = -1  # a kind or colour drawn, not fixed
RED_OR_BLUE = -2  # a colour drawn between red and blue (GoToRedBlueBall's target)
# GoToRedBlueBall's distractors: every (kind, colour) but a red or blue ball. MiniGrid draws
# all 18 and rejects the layout when one is such a ball ((8/9)**7: 56% of layouts); kinds
# and colours are independent of the cells, so the accepted distractors are uniform over
# these 16 pairs, independently, and the cells are rejected for reachability alone.
NOT_RED_BLUE_BALL = tuple(
    (kind, colour)
    for kind in KINDS
    for colour in range(C.NUM_COLORS)
    if not (kind == C.BALL and colour in (C.RED, C.BLUE))
)


def reachable(blocked: Array, start: Array) -> Array:
    """bool[W, H]: cells reached from ``start`` through unblocked cells, plus the blocked
    cells next to them (MiniGrid's ``check_objs_reachable`` walk: objects are reached but
    not walked through).

    The walk runs on the grid's rows packed as bits (u32[H], bit x of row y: cell (x, y)),
    as whole-array operations: each trip of its loop fills every row's runs of free cells
    that hold a walked cell (an addition fills upward, shifts by 1, 2, 4, ... downward) and
    steps one row up and down, twice; the loop ends when a trip adds nothing. A walk that
    steps one cell per trip needs a trip per step of the longest path (10-20 in an 8 x 8
    room); this one needs about as many as the path has turns between rows, two or three
    trips in a room of scattered objects, each of a few fused kernels.

    Args:
        blocked: bool[W, H], the cells the walk does not enter (W <= 31).
        start: i32[2], where the walk starts (its neighbours are entered even when it is
            blocked).

    Raises:
        ValueError: the grid is wider than 31 cells.
    """
    width, height = blocked.shape
    if width > 31:  # bit W must exist in the word: the upward fill carries into it
        raise ValueError(f"rows of {width} cells do not fit the walk's 32-bit words")
    xs = jnp.arange(width)[:, None]
    ys = jnp.arange(height)[None, :]
    bits = jnp.left_shift(jnp.uint32(1), jnp.arange(width, dtype=jnp.uint32))[:, None]

    def pack(mask: Array) -> Array:  # u32[H]
        return jnp.sum(jnp.where(mask, bits, jnp.uint32(0)), axis=0, dtype=jnp.uint32)

    free = pack(~blocked)
    none = jnp.zeros(1, jnp.uint32)

    def vertical(rows: Array) -> Array:
        return jnp.concatenate([rows[1:], none]) | jnp.concatenate([none, rows[:-1]])

    def fill(rows: Array) -> Array:
        up = ((free + rows) ^ free) & free  # from each walked cell to the top of its run
        down, open_ = rows, free
        shift = 1
        while shift < width:  # Kogge-Stone: runs of ``shift`` free cells below, doubling
            down = down | ((down >> shift) & open_)
            open_ = open_ & (open_ >> shift)
            shift *= 2
        return rows | up | down

    def more(carry: tuple[Array, Array, Array]) -> Array:
        _, changed, trips = carry
        return changed & (trips < width * height)

    def trip(carry: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        rows, _, trips = carry
        walk = rows
        for _ in range(2):
            walk = fill(walk)
            walk = walk | (vertical(walk) & free)
        return walk, jnp.any(walk != rows), trips + 1

    seed = pack((xs == start[0]) & (ys == start[1]))
    first = (seed | seed << 1 | seed >> 1 | vertical(seed)) & free
    walk, _, _ = lax.while_loop(more, trip, (first, jnp.bool_(True), jnp.int32(0)))
    reached = walk | walk << 1 | walk >> 1 | vertical(walk)
    return ((reached[None, :] >> xs.astype(jnp.uint32)) & 1) == 1


class GoToSpec(NamedTuple):
    """What tells the one-room GoTo levels apart, as arrays (one program draws them all).

    Attributes:
        kinds: i32[S], per object slot its kind (``C.KEY``, ``C.BALL``, ``C.BOX``) or
            `RANDOM`.
        colours: i32[S], per slot its colour index or `RANDOM`.
        num_objects: i32[], the objects placed (the first ``num_objects`` slots).
        target_among: i32[], the target is uniform among the first ``target_among``
            objects (1: the first object; ``num_objects``: any).
    """

    kinds: Array | np.ndarray
    colours: Array | np.ndarray
    num_objects: ArrayLike
    target_among: ArrayLike


def goto_spec(kinds: tuple[int, ...], colours: tuple[int, ...], target_among: int) -> GoToSpec:
    """A level's `GoToSpec`, checked on the host.

    Raises:
        ValueError: naming the argument that does not fit.
    """
    if len(colours) != len(kinds) or not 1 <= target_among <= len(kinds):
        raise ValueError("one colour per kind, and 1 <= target_among <= number of objects")
    return GoToSpec(
        np.asarray(kinds, np.int32),
        np.asarray(colours, np.int32),
        np.int32(len(kinds)),
        np.int32(target_among),
    )


def draw_goto(
    key: Array,
    spec: GoToSpec,
    *,
    room_size: int,
    attempts: int,
    pairs: tuple[tuple[int, int], ...] | None = None,
) -> State:
    """One reset of a one-room GoTo level (see the module docstring).

    Args:
        key: the episode's PRNG key.
        spec: the level's `GoToSpec` (constants for a registered level; arrays for the
            tests, which draw every level of a room size with one program).
        room_size: the room's side, walls included (static, >= 4).
        attempts: whole layouts drawn (static); the first with every object reachable is
            kept, else the last.
        pairs: static; when given, the objects after the first whose kind and colour are
            both `RANDOM` draw one ``(kind, colour)`` uniformly among these instead (one
            more digit per slot, drawn after the others: the levels without it draw
            exactly as before).

    Returns:
        The first `State`, `level.begin` applied.
    """
    slots = int(np.shape(spec.kinds)[0])
    side = room_size - 2
    cells = side * side
    base = RoomGrid(room_size=room_size, num_rows=1, num_cols=1).walls()
    xs = np.arange(room_size)[:, None]
    ys = np.arange(room_size)[None, :]
    upper = np.triu(np.ones((cells, cells), np.float32))  # [i, j]: i <= j
    count = jnp.asarray(spec.num_objects, jnp.int32)

    def near_agent(digits: list[Array]) -> Array:
        x, y = digits[0] // side, digits[0] % side
        return 1 + (x > 0) + (x < side - 1) + (y > 0) + (y < side - 1)  # its cell included

    def free_cells(i: int):
        # Unused slots (i >= count) draw from a range kept >= 1 and place nothing.
        return lambda d: jnp.maximum(cells - near_agent(d) - i, 1)

    def attempt(key: Array) -> tuple[State, Array, Array]:
        bounds: list[int] = [cells, 4]
        radices: list[Any] = [cells, 4]
        for i in range(slots):
            bounds += [C.NUM_COLORS, len(KINDS), cells]
            radices += [C.NUM_COLORS, len(KINDS), free_cells(i)]
        bounds.append(slots)
        radices.append(jnp.asarray(spec.target_among, jnp.int32))
        target = len(bounds) - 1
        if pairs is not None:
            bounds += [len(pairs)] * slots
            radices += [len(pairs)] * slots
        digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
        pair_kinds = jnp.asarray([k for k, _ in pairs or [(0, 0)]], jnp.int32)
        pair_colours = jnp.asarray([c for _, c in pairs or [(0, 0)]], jnp.int32)
        agent, direction = digits[0], digits[1]
        flat = jnp.arange(cells)
        ax, ay = agent // side, agent % side
        # Not free: the agent's cell and its neighbours (``reject_next_to``), then objects.
        taken = jnp.abs(flat // side - ax) + jnp.abs(flat % side - ay) < 2
        grid = jnp.asarray(base)
        obj_kinds, obj_colours = [], []
        for i in range(slots):
            colour, kind_rank, rank = digits[2 + 3 * i : 5 + 3 * i]
            placed = i < count
            # The rank-th free cell: the number of cells with at most ``rank`` free cells up
            # to them (a prefix count as a product with a triangle, cheaper to compile; in f32,
            # exact for counts this small, where XLA:CPU multiplies fast, unlike i32).
            through = jnp.dot((~taken).astype(jnp.float32), upper)
            cell = jnp.sum(through <= rank, dtype=jnp.int32)
            taken = taken | ((flat == cell) & placed)
            fixed_kind, fixed_colour = spec.kinds[i], spec.colours[i]
            # KEY, BALL, BOX are consecutive object indices.
            kind = jnp.where(fixed_kind == RANDOM, KINDS[0] + kind_rank, fixed_kind)
            # An even/odd colour digit: red or blue, each with probability 3/6.
            red_or_blue = jnp.where(colour % 2 == 0, C.RED, C.BLUE)
            colour = jnp.where(fixed_colour == RED_OR_BLUE, red_or_blue, colour)
            colour = jnp.where(fixed_colour >= 0, fixed_colour, colour)
            if pairs is not None and i > 0:
                pair = digits[target + 1 + i]
                paired = (fixed_kind == RANDOM) & (fixed_colour == RANDOM)
                kind = jnp.where(paired, pair_kinds[pair], kind)
                colour = jnp.where(paired, pair_colours[pair], colour)
            obj_kinds.append(kind)
            obj_colours.append(colour)
            at = (xs == 1 + cell // side) & (ys == 1 + cell % side) & placed
            obj = jnp.stack([kind, colour, jnp.int32(0)]).astype(jnp.uint8)
            grid = jnp.where(at[..., None], obj, grid)
        agent_pos = jnp.stack([1 + agent // side, 1 + agent % side])
        objects = grid[..., 0] != C.EMPTY
        interior = (xs >= 1) & (xs <= side) & (ys >= 1) & (ys <= side)
        reached = reachable(objects | ~interior, agent_pos)
        accepted = jnp.all(reached | ~(objects & interior))
        pick = jnp.arange(slots) == digits[target]
        desc = jnp.stack(
            [
                jnp.sum(jnp.where(pick, jnp.stack(obj_kinds), 0)),
                jnp.sum(jnp.where(pick, jnp.stack(obj_colours), 0)),
                jnp.int32(D.Loc.NONE),
            ]
        )
        return make_state(grid, agent_pos, direction), accepted, desc

    state, desc = level.first_accepted(attempt, key, attempts)
    instr = jnp.concatenate(
        [jnp.array([V.Instr.GOTO, 0], jnp.int32), desc, jnp.zeros(D.DESC_SIZE, jnp.int32)]
    )
    return level.begin(state, instr, room_size=room_size, kinds=(V.Instr.GOTO,))


def goto_layout(
    room_size: int,
    kinds: tuple[int, ...],
    colours: tuple[int, ...],
    target_among: int,
    pairs: tuple[tuple[int, int], ...] | None = None,
) -> LayoutFn:
    """The layout function of one of MiniGrid's one-room GoTo levels (`draw_goto`).

    Args:
        room_size: the room's side, walls included (>= 4).
        kinds: per object, its kind (``C.KEY``, ``C.BALL``, ``C.BOX``) or `RANDOM`.
        colours: per object, its colour index, `RANDOM` or `RED_OR_BLUE`.
        target_among: the target is uniform among the first ``target_among`` objects (1: the
            first object; ``len(kinds)``: any).
        pairs: the ``(kind, colour)`` pairs the random objects after the first draw among
            (`draw_goto`); None: any kind, any colour.

    Returns:
        ``key -> State`` drawing MiniGrid's layout and instruction distribution.

    Raises:
        ValueError: if the room cannot hold the objects away from the agent.
    """
    spec = goto_spec(kinds, colours, target_among)
    side = room_size - 2
    most_near = 3 if side == 2 else 5  # the agent's cell and its interior neighbours
    if room_size < 4 or side * side - most_near < len(kinds):
        raise ValueError(f"a {room_size}-room cannot hold {len(kinds)} objects away from the agent")
    attempts = attempts_for(len(kinds))

    def layout(key: Array) -> State:
        return draw_goto(key, spec, room_size=room_size, attempts=attempts, pairs=pairs)

    return layout


def attempts_for(count: int) -> int:
    """Whole layouts drawn per reset: one object in an empty room is always reachable, so
    nothing can be rejected; otherwise `ATTEMPTS`."""
    return ATTEMPTS if count > 1 else 1


LEVELS: dict[str, tuple[int, GoToSpec]] = {}  # id -> (room_size, spec), for the tests
PAIRS: dict[str, tuple[tuple[int, int], ...]] = {}  # id -> its `draw_goto` pairs, if any


def _entry(name: str, room_size: int, kinds, colours, target_among: int, pairs=None):
    env_id = f"BabyAI-{name}"
    layout = goto_layout(room_size, tuple(kinds), tuple(colours), target_among, pairs)
    LEVELS[env_id] = (room_size, goto_spec(tuple(kinds), tuple(colours), target_among))
    if pairs is not None:
        PAIRS[env_id] = pairs
    return env_id, level.one_room_level(
        env_id,
        room_size=room_size,
        layout_fn=layout,
        kinds=(V.Instr.GOTO,),
    )


def _red_ball(num_dists: int, distractor_colour: int) -> tuple[list[int], list[int]]:
    return [C.BALL] + [RANDOM] * num_dists, [C.RED] + [distractor_colour] * num_dists


def _local(room_size: int, num_dists: int) -> tuple[int, list[int], list[int], int]:
    return room_size, [RANDOM] * num_dists, [RANDOM] * num_dists, num_dists


LOCAL_VARIANTS = ((5, 2), (6, 2), (6, 3), (6, 4), (7, 4), (7, 5), (8, 2), (8, 3), (8, 4))
LOCAL_VARIANTS += ((8, 5), (8, 6), (8, 7))

ENVIRONMENTS = dict(
    [
        _entry("GoToRedBallGrey-v0", 8, *_red_ball(7, C.GREY), 1),
        _entry("GoToRedBall-v0", 8, *_red_ball(7, RANDOM), 1),
        _entry("GoToRedBallNoDists-v0", 8, *_red_ball(0, RANDOM), 1),
        # MiniGrid places the ball after the distractors; the cells of a layout are drawn
        # without replacement, their order exchangeable: placing it first is the same.
        _entry(
            "GoToRedBlueBall-v0",
            8,
            [C.BALL] + [RANDOM] * 7,
            [RED_OR_BLUE] + [RANDOM] * 7,
            1,
            NOT_RED_BLUE_BALL,
        ),
        _entry("GoToObj-v0", 8, [RANDOM], [RANDOM], 1),
        _entry("GoToObjS4-v0", 4, [RANDOM], [RANDOM], 1),
        _entry("GoToObjS6-v1", 6, [RANDOM], [RANDOM], 1),
        _entry("GoToLocal-v0", *_local(8, 8)),
        *(_entry(f"GoToLocalS{s}N{n}-v0", *_local(s, n)) for s, n in LOCAL_VARIANTS),
    ]
)
