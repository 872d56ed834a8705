"""BabyAI-Pickup: pick up the object the instruction describes, in a single room.

MiniGrid 3.2.0's one-room Pickup levels (``minigrid/envs/babyai/pickup.py``): PickupLoc
(below, `draw_pickup_loc`: descriptions by location too) and ``PickupDist``, registered as
``BabyAI-PickupDist-v0`` and, strict, ``BabyAI-PickupDistDebug-v0``. One 7 x 7 room
(a ``RoomGrid`` of one room), MiniGrid's draws in order:

* five objects (``add_distractors(num_distractors=5)``, ``all_unique``): five distinct
  ``(kind, colour)`` pairs among the 18 of key, ball, box and the six colours, on distinct
  interior cells. The agent is not placed yet: ``reject_next_to`` measures from the
  placeholder position ``RoomGrid`` gives it, the room's centre, so the objects avoid the
  centre and its four neighbours (20 cells left);
* the agent (``place_agent(0, 0)``): a uniform free cell and a uniform direction, drawn
  again while the faced cell holds an object;
* the instruction: "pick up" one of the five, uniform, described by its kind, its colour
  or both (uniform among the three): ``PickupInstr(ObjDesc(type, color), strict=debug)``.
  "the" when one object matches, "a" when several do (a colour alone can match another
  object; "the grey object" also matches the grey walls, as in MiniGrid); any matching
  object counts.

PickupDist has no reachability check and no whole-layout rejection: MiniGrid's per-draw
redraws (a repeated pair, an occupied cell, an object faced) are drawn here directly as ranks
among the admissible choices, the exact distribution of what MiniGrid accepts, at a fixed
cost. PickupLoc (8 x 8, eight objects, ``max_steps = 64``) rejects layouts with an
unreachable object as the GoTo levels do: `LOC_ATTEMPTS` whole layouts per reset, the first
accepted kept (18.0% rejected per draw, measured over 20,000; all nine in ~2e-7 of resets).

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the agent picks up a described object
  (`horizax.grid.babyai.verifiers`), else 0.
* termination: success; in the Debug level also failure, picking up any other object
  (MiniGrid's ``strict``: terminated with reward 0); truncation at ``max_steps =
  room_size**2``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-PickupDistDebug-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core import threefry
from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import grammar, level, one_room
from horizax.grid.babyai import verifiers as V
from horizax.grid.envs.babyai_goto import reachable
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, distinct, draw_digits
from horizax.grid.state import State, make_state

ROOM = RoomGrid(room_size=7, num_rows=1, num_cols=1)
SIDE = ROOM.room_size - 2  # interior cells a side
NUM_OBJECTS = 5
KINDS = (C.KEY, C.BALL, C.BOX)  # consecutive object indices
NUM_PAIRS = len(KINDS) * C.NUM_COLORS
NUM_POSES = SIDE * SIDE * 4  # (interior cell, direction)


OBJECT_CELLS = one_room.object_cells(ROOM.room_size)  # i32[20]


def _admissible(digits: list[Array]) -> Array:
    """bool[NUM_POSES]: the agent's admissible poses around the objects of these draws."""
    slots = distinct(digits[NUM_OBJECTS : 2 * NUM_OBJECTS])
    cells = jnp.asarray(OBJECT_CELLS)[jnp.stack(slots)]
    return one_room.admissible_poses(one_room.occupied(cells, SIDE))


def _pose_count(digits: list[Array]) -> Array:
    return jnp.sum(_admissible(digits), dtype=jnp.int32)


def draw_pickup_dist(key: Array, *, strict: bool) -> State:
    """One reset of PickupDist (see the module docstring).

    Args:
        key: the episode's PRNG key.
        strict: static, the Debug level (a wrong pickup fails).

    Returns:
        The first `State`, `level.begin` applied.
    """
    pair_radices = [NUM_PAIRS - i for i in range(NUM_OBJECTS)]
    cell_radices = [len(OBJECT_CELLS) - i for i in range(NUM_OBJECTS)]
    bounds = [*pair_radices, *cell_radices, NUM_POSES, NUM_OBJECTS, 3]
    radices = [*pair_radices, *cell_radices, _pose_count, NUM_OBJECTS, 3]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    pose_rank, target, select_by = digits[2 * NUM_OBJECTS :]

    pairs = jnp.stack(distinct(digits[:NUM_OBJECTS]))
    kinds = KINDS[0] + pairs // C.NUM_COLORS
    colours = pairs % C.NUM_COLORS
    cells = jnp.asarray(OBJECT_CELLS)[jnp.stack(distinct(digits[NUM_OBJECTS : 2 * NUM_OBJECTS]))]
    grid = jnp.asarray(ROOM.walls())
    xs = np.arange(ROOM.room_size)[:, None]
    ys = np.arange(ROOM.room_size)[None, :]
    for i in range(NUM_OBJECTS):
        at = (xs == 1 + cells[i] // SIDE) & (ys == 1 + cells[i] % SIDE)
        obj = jnp.stack([kinds[i], colours[i], jnp.int32(0)]).astype(jnp.uint8)
        grid = jnp.where(at[..., None], obj, grid)

    cell, direction = one_room.nth_pose(_admissible(digits), pose_rank)
    state = make_state(grid, jnp.stack([1 + cell // SIDE, 1 + cell % SIDE]), direction)

    # MiniGrid's select_by: "type" (no colour), "color" (no kind) or "both".
    kind = jnp.where(select_by == 1, D.ANY, kinds[target])
    colour = jnp.where(select_by == 0, D.ANY, colours[target])
    instr = jnp.stack(
        [
            jnp.int32(V.Instr.PICKUP),
            jnp.int32(strict),
            kind,
            colour,
            jnp.int32(D.Loc.NONE),
            *([jnp.int32(0)] * D.DESC_SIZE),
        ]
    ).astype(jnp.int32)
    return level.begin(state, instr, room_size=ROOM.room_size, kinds=(V.Instr.PICKUP,))


def _entry(name: str, strict: bool):
    env_id = f"BabyAI-{name}"

    def layout(key: Array) -> State:
        return draw_pickup_dist(key, strict=strict)

    return env_id, level.one_room_level(
        env_id,
        room_size=ROOM.room_size,
        layout_fn=layout,
        kinds=(V.Instr.PICKUP,),
    )


# --- PickupLoc -----------------------------------------------------------------------------
# MiniGrid's ``PickupLoc`` is a ``LevelGen`` of one 8 x 8 room: eight objects (any kinds and
# colours, repeats allowed) placed before the agent (so, as above, away from the room's
# centre), the agent drawn again while it faces an object, the whole layout drawn again
# when an object cannot be reached (``check_objs_reachable``), then ``rand_obj``: a kind
# among key, ball and box, a colour among none and the six (uniform), and with probability
# 1/2 a location among left, right, front and behind (uniform), redrawn until at least one
# object matches. That last redraw is the prior restricted to the matching descriptions:
# drawn here as a weighted rank among them. It gives up after 101 misses, and MiniGrid then
# draws the whole level again: the layout is kept with the chance that rand_obj would have
# matched, ``grammar.survives`` (rarely below one: a layout whose objects few descriptions
# match).

LOC_ROOM = RoomGrid(room_size=8, num_rows=1, num_cols=1)
LOC_SIDE = LOC_ROOM.room_size - 2
LOC_OBJECTS = 8
LOC_ATTEMPTS = 9  # whole layouts per reset: 18.0% rejected each, 0.18**9 ~ 2e-7 all
# Every description rand_obj can draw, (kind, colour, loc), and its prior weight: a location
# with probability 1/2, each of the four 1/8.
_DESCS = np.array(
    [
        (kind, colour, loc)
        for kind in KINDS
        for colour in (D.ANY, *range(C.NUM_COLORS))
        for loc in tuple(D.Loc)
    ],
    np.int32,
)
_DESC_WEIGHTS = np.where(_DESCS[:, 2] == D.Loc.NONE, 4, 1).astype(np.int32)


LOC_OBJECT_CELLS = one_room.object_cells(LOC_ROOM.room_size)


def _loc_objects(digits: list[Array]) -> tuple[Array, Array, Array]:
    """i32[8] kinds, i32[8] colours and i32[8] interior cells of these draws."""
    pairs = jnp.stack(digits[:LOC_OBJECTS])
    ranks = digits[LOC_OBJECTS : 2 * LOC_OBJECTS]
    cells = jnp.asarray(LOC_OBJECT_CELLS)[jnp.stack(distinct(ranks))]
    return KINDS[0] + pairs // C.NUM_COLORS, pairs % C.NUM_COLORS, cells


def _loc_poses(cells: Array) -> Array:
    """bool[cells * 4]: the agent's admissible poses around objects on ``cells``."""
    return one_room.admissible_poses(one_room.occupied(cells, LOC_SIDE))


def _loc_pose(digits: list[Array]) -> tuple[Array, Array]:
    """The agent's interior cell and direction from the pose rank, ``digits[16]``."""
    return one_room.nth_pose(_loc_poses(_loc_objects(digits)[2]), digits[2 * LOC_OBJECTS])


def _desc_weights(digits: list[Array]) -> Array:
    """i32[len(_DESCS)]: each description's prior weight if it matches an object, else 0
    (`descriptions.find_matching`'s rule for objects of the agent's room)."""
    kinds, colours, cells = _loc_objects(digits)
    cell, direction = _loc_pose(digits)
    vx = cells // LOC_SIDE - cell // LOC_SIDE
    vy = cells % LOC_SIDE - cell % LOC_SIDE
    d1 = jnp.asarray(C.DIR_TO_VEC)[direction]
    ahead = vx * d1[0] + vy * d1[1]
    rightward = vx * -d1[1] + vy * d1[0]
    side = jnp.stack([ahead == ahead, rightward < 0, rightward > 0, ahead > 0, ahead < 0])
    descs = jnp.asarray(_DESCS)
    kind_ok = descs[:, 0:1] == kinds[None, :]
    colour_ok = (descs[:, 1:2] == D.ANY) | (descs[:, 1:2] == colours[None, :])
    matches = jnp.any(kind_ok & colour_ok & side[descs[:, 2]], axis=1)
    return jnp.where(matches, jnp.asarray(_DESC_WEIGHTS), 0)


def _desc_total(digits: list[Array]) -> Array:
    return jnp.sum(_desc_weights(digits), dtype=jnp.int32)


def _loc_attempt(key: Array) -> tuple[State, Array, Array]:
    """One whole PickupLoc layout: ``(state, accepted, desc i32[3])``."""
    bounds = [NUM_PAIRS] * LOC_OBJECTS
    bounds += [len(LOC_OBJECT_CELLS) - i for i in range(LOC_OBJECTS)]
    radices: list = list(bounds)
    bounds += [LOC_SIDE * LOC_SIDE * 4, int(_DESC_WEIGHTS.sum())]
    radices += [lambda d: jnp.sum(_loc_poses(_loc_objects(d)[2])), _desc_total]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    kinds, colours, cells = _loc_objects(digits)
    grid = jnp.asarray(LOC_ROOM.walls())
    xs = np.arange(LOC_ROOM.room_size)[:, None]
    ys = np.arange(LOC_ROOM.room_size)[None, :]
    for i in range(LOC_OBJECTS):
        at = (xs == 1 + cells[i] // LOC_SIDE) & (ys == 1 + cells[i] % LOC_SIDE)
        obj = jnp.stack([kinds[i], colours[i], jnp.int32(0)]).astype(jnp.uint8)
        grid = jnp.where(at[..., None], obj, grid)
    cell, direction = _loc_pose(digits)
    agent_pos = jnp.stack([1 + cell // LOC_SIDE, 1 + cell % LOC_SIDE])
    objects = grid[..., 0] != C.EMPTY
    interior = (xs >= 1) & (xs <= LOC_SIDE) & (ys >= 1) & (ys <= LOC_SIDE)
    reached = reachable(objects | ~interior, agent_pos)
    accepted = jnp.all(reached | ~(objects & interior))
    # The rank-th unit of matching weight names the description.
    weights = _desc_weights(digits)
    through = jnp.cumsum(weights)
    desc = jnp.asarray(_DESCS)[jnp.sum(through <= digits[-1])]
    p = through[-1].astype(jnp.float32) / float(_DESC_WEIGHTS.sum())
    # Kept with the chance that rand_obj's 101 tries would match (24-bit uniform).
    bits = threefry.random_bits(threefry.split(key, 2)[1]) >> 8
    accepted = accepted & (bits.astype(jnp.float32) * 2.0**-24 < grammar.survives(p))
    return make_state(grid, agent_pos, direction), accepted, desc


def draw_pickup_loc(key: Array, *, attempts: int = LOC_ATTEMPTS) -> State:
    """One reset of PickupLoc: ``attempts`` whole layouts (static), the first whose objects
    are all reachable kept, else the last.

    Returns:
        The first `State`, `level.begin` applied.
    """
    state, desc = level.first_accepted(_loc_attempt, key, attempts)
    instr = jnp.concatenate(
        [jnp.array([V.Instr.PICKUP, 0], jnp.int32), desc, jnp.zeros(D.DESC_SIZE, jnp.int32)]
    )
    return level.begin(state, instr, room_size=LOC_ROOM.room_size, kinds=(V.Instr.PICKUP,))


ENVIRONMENTS = dict(
    [
        _entry("PickupDist-v0", False),
        _entry("PickupDistDebug-v0", True),
        (
            "BabyAI-PickupLoc-v0",
            level.one_room_level(
                "BabyAI-PickupLoc-v0",
                room_size=LOC_ROOM.room_size,
                layout_fn=draw_pickup_loc,
                kinds=(V.Instr.PICKUP,),
            ),
        ),
    ]
)
