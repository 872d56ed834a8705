"""BabyAI-Pickup: pick up the object the instruction describes, in a single room.

MiniGrid 3.2.0's ``PickupDist`` (``minigrid/envs/babyai/pickup.py``), registered as
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

There is no reachability check and no whole-layout rejection: MiniGrid's per-draw redraws
(a repeated pair, an occupied cell, an object faced) are drawn here directly as ranks among
the admissible choices, the exact distribution of what MiniGrid accepts, at a fixed cost.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the agent picks up a described object
  (`horizax.grid.babyai.verifiers`), else 0.
* termination: success; in the Debug level also failure, picking up any other object
  (MiniGrid's ``strict``: terminated with reward 0); truncation at ``max_steps = 49``.
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-PickupDistDebug-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level
from horizax.grid.babyai import verifiers as V
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, distinct, draw_digits
from horizax.grid.state import State, make_state

ROOM = RoomGrid(room_size=7, num_rows=1, num_cols=1)
SIDE = ROOM.room_size - 2  # interior cells a side
NUM_OBJECTS = 5
KINDS = (C.KEY, C.BALL, C.BOX)  # consecutive object indices
NUM_PAIRS = len(KINDS) * C.NUM_COLORS
NUM_POSES = SIDE * SIDE * 4  # (interior cell, direction)


def _object_cells() -> np.ndarray:
    """i32[20]: the interior cells (``x * SIDE + y``, interior coordinates) at Manhattan
    distance >= 2 from the placeholder agent position (the room's centre)."""
    centre = ROOM.default_agent_pos() - 1
    xs, ys = np.divmod(np.arange(SIDE * SIDE), SIDE)
    far = np.abs(xs - centre[0]) + np.abs(ys - centre[1]) >= 2
    return np.flatnonzero(far).astype(np.int32)


OBJECT_CELLS = _object_cells()


def _occupied(digits: list[Array]) -> Array:
    """bool[SIDE, SIDE]: the interior cells holding the objects of these draws."""
    slots = distinct(digits[NUM_OBJECTS : 2 * NUM_OBJECTS])
    cells = jnp.asarray(OBJECT_CELLS)[jnp.stack(slots)]
    return jnp.any(jnp.arange(SIDE * SIDE)[:, None] == cells[None, :], axis=1).reshape(SIDE, SIDE)


def _admissible_poses(occupied: Array) -> Array:
    """bool[NUM_POSES]: ``(cell, direction)`` pairs (``cell * 4 + direction``) on a free cell
    and not facing an object (``RoomGrid.place_agent``'s redraw rule; a wall may be faced)."""
    padded = jnp.pad(occupied, 1)  # the walls around the interior hold no object
    xs, ys = np.divmod(np.arange(SIDE * SIDE), SIDE)
    faces = []
    for dx, dy in C.DIR_TO_VEC:
        faces.append(padded[xs + 1 + dx, ys + 1 + dy])
    facing = jnp.stack(faces, axis=1)  # [cell, direction]
    return (~occupied.reshape(-1)[:, None] & ~facing).reshape(-1)


def _pose_count(digits: list[Array]) -> Array:
    return jnp.sum(_admissible_poses(_occupied(digits)), dtype=jnp.int32)


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

    # The rank-th admissible pose: the number of poses with at most ``rank`` admissible
    # poses up to and including them.
    admissible = _admissible_poses(_occupied(digits))
    pose = jnp.sum(jnp.cumsum(admissible.astype(jnp.int32)) <= pose_rank, dtype=jnp.int32)
    cell, direction = pose // 4, pose % 4
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

    return env_id, level.level_factory(
        env_id,
        room_size=ROOM.room_size,
        num_rows=1,
        num_cols=1,
        num_navs=1,
        layout_fn=layout,
        kinds=(V.Instr.PICKUP,),
    )


ENVIRONMENTS = dict([_entry("PickupDist-v0", False), _entry("PickupDistDebug-v0", True)])
