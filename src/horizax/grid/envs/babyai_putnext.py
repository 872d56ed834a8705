"""BabyAI-PutNextLocal: put one described object next to another, in a single room.

MiniGrid 3.2.0's ``PutNextLocal`` (``minigrid/envs/babyai/putnext.py``): ``PutNextLocal``
(8 x 8 room, 8 objects), ``PutNextLocalS5N3`` (5 x 5, 3) and ``PutNextLocalS6N4`` (6 x 6,
4). One room (a ``RoomGrid`` of one room), MiniGrid's draws in order:

* the agent: a uniform interior cell and a uniform direction (the room is empty);
* the objects (``add_distractors(all_unique=True)``): distinct ``(kind, colour)`` pairs
  among the 18 of key, ball, box and the six colours, on distinct free interior cells not
  next to the agent (``reject_next_to``);
* the whole layout is drawn again when an object cannot be reached without moving another
  (``check_objs_reachable``);
* two distinct objects ``o1``, ``o2`` (``_rand_subset``): "put the o1 next to the o2", each
  described by kind and colour (one object matches each: the pairs are distinct); the whole
  layout is drawn again when they are already next to each other (``validate_instrs``:
  ``objs_next``, Manhattan distance 1).

Here up to `ATTEMPTS` whole layouts are drawn per reset, in a loop that stops at the first
accepted one, which is kept (MiniGrid's accepted distribution), else the last. Measured rejection
rates per draw over 20,000 resets and the chance that all are rejected are in
`docs/gridworld.md`.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the agent drops o1 next to o2
  (`horizax.grid.babyai.verifiers`), else 0.
* termination: success; truncation at ``max_steps = 2 * room_size**2`` (two navigations).
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState`.

Example:
    >>> env = horizax.make("BabyAI-PutNextLocal-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level
from horizax.grid.babyai import verifiers as V
from horizax.grid.envs.babyai_goto import reachable
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, distinct, draw_digits
from horizax.grid.state import State, make_state

KINDS = (C.KEY, C.BALL, C.BOX)  # consecutive object indices
NUM_PAIRS = len(KINDS) * C.NUM_COLORS
ATTEMPTS = {8: 10, 5: 16, 6: 12}  # whole layouts per reset, by room size (docs/gridworld.md)


def _attempt(key: Array, *, room_size: int, count: int) -> tuple[State, Array, Array]:
    """One whole layout: ``(state, accepted, instr i32[8])``."""
    side = room_size - 2
    cells = side * side
    xs = np.arange(room_size)[:, None]
    ys = np.arange(room_size)[None, :]
    upper = np.triu(np.ones((cells, cells), np.int32))  # [i, j]: i <= j

    def near_agent(digits: list[Array]) -> Array:
        x, y = digits[0] // side, digits[0] % side
        return 1 + (x > 0) + (x < side - 1) + (y > 0) + (y < side - 1)  # its cell included

    bounds: list = [cells, 4]
    radices: list = [cells, 4]
    for i in range(count):
        bounds += [NUM_PAIRS - i, cells]
        radices += [NUM_PAIRS - i, functools.partial(lambda d, i: cells - near_agent(d) - i, i=i)]
    bounds += [count, count - 1]
    radices += [count, count - 1]
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    agent, direction = digits[0], digits[1]
    pairs = jnp.stack(distinct([digits[2 + 2 * i] for i in range(count)]))
    kinds = KINDS[0] + pairs // C.NUM_COLORS
    colours = pairs % C.NUM_COLORS

    flat = jnp.arange(cells)
    taken = jnp.abs(flat // side - agent // side) + jnp.abs(flat % side - agent % side) < 2
    grid = jnp.asarray(RoomGrid(room_size=room_size, num_rows=1, num_cols=1).walls())
    placed = []
    for i in range(count):
        # The rank-th free cell (a prefix count as a product with a triangle, as GoTo's).
        through = jnp.dot((~taken).astype(jnp.int32), upper)
        cell = jnp.sum(through <= digits[3 + 2 * i], dtype=jnp.int32)
        taken = taken | (flat == cell)
        placed.append(cell)
        at = (xs == 1 + cell // side) & (ys == 1 + cell % side)
        obj = jnp.stack([kinds[i], colours[i], jnp.int32(0)]).astype(jnp.uint8)
        grid = jnp.where(at[..., None], obj, grid)
    agent_pos = jnp.stack([1 + agent // side, 1 + agent % side])
    objects = grid[..., 0] != C.EMPTY
    interior = (xs >= 1) & (xs <= side) & (ys >= 1) & (ys <= side)
    reached = reachable(objects | ~interior, agent_pos)

    first, second = distinct(digits[-2:])
    at = jnp.stack(placed)
    a, b = at[first], at[second]
    apart = jnp.abs(a // side - b // side) + jnp.abs(a % side - b % side) != 1
    accepted = jnp.all(reached | ~(objects & interior)) & apart
    loc = jnp.int32(D.Loc.NONE)
    instr = jnp.stack(
        [
            jnp.int32(V.Instr.PUT_NEXT),
            jnp.int32(0),
            kinds[first],
            colours[first],
            loc,
            kinds[second],
            colours[second],
            loc,
        ]
    ).astype(jnp.int32)
    return make_state(grid, agent_pos, direction), accepted, instr


def draw_put_next(key: Array, *, room_size: int, count: int, attempts: int) -> State:
    """One reset of a PutNextLocal level (see the module docstring).

    Args:
        key: the episode's PRNG key.
        room_size: the room's side, walls included (static).
        count: the objects placed (static, 2 ... 18).
        attempts: whole layouts drawn (static); the first accepted is kept, else the last.

    Returns:
        The first `State`, `level.begin` applied.
    """
    attempt = functools.partial(_attempt, room_size=room_size, count=count)
    state, instr = level.first_accepted(attempt, key, attempts)
    return level.begin(state, instr, room_size=room_size, kinds=(V.Instr.PUT_NEXT,))


def _entry(name: str, room_size: int, count: int):
    env_id = f"BabyAI-{name}"
    layout = functools.partial(
        draw_put_next, room_size=room_size, count=count, attempts=ATTEMPTS[room_size]
    )
    return env_id, level.one_room_level(
        env_id,
        room_size=room_size,
        num_navs=2,
        layout_fn=layout,
        kinds=(V.Instr.PUT_NEXT,),
    )


ENVIRONMENTS = dict(
    [
        _entry("PutNextLocal-v0", 8, 8),
        _entry("PutNextLocalS5N3-v0", 5, 3),
        _entry("PutNextLocalS6N4-v0", 6, 4),
    ]
)
