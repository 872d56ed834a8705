"""BabyAI-PutNextAcross: move objects from one room next to objects of the other.

MiniGrid 3.2.0's ``PutNext`` (``minigrid/envs/babyai/putnext.py``), registered as
``BabyAI-PutNextS{size}N{n}-v0`` and, with ``start_carrying``, ``…Carrying-v0``, and
``MoveTwoAcross`` (``minigrid/envs/babyai/other.py``), ``BabyAI-MoveTwoAcrossS{size}N{n}-v0``.
Two rooms of side ``size`` side by side (a 1 x 2 ``RoomGrid``), MiniGrid's draws in order:

* the agent in the left room: a uniform interior cell and a uniform direction (the room is
  still empty, so no pose is redrawn);
* ``n`` objects in the left room, then ``n`` in the right one (``add_distractors``, all
  unique): distinct ``(kind, colour)`` pairs among the 18 of key, ball, box and the six
  colours, on distinct interior cells; the left ones keep off the agent's cell and its
  four neighbours (``reject_next_to``, measured from the agent, who is placed first here);
* the wall between the rooms is removed (one room of ``2 * size - 1`` by ``size``), so a
  left object and a right object are never next to each other and MiniGrid's
  ``validate_instrs`` rejects no layout;
* PutNext: one left object ``a`` and one right object ``b`` (uniform), swapped with
  probability 1/2: "put the a next to the b". ``…Carrying``: after the reset, ``a`` leaves
  the grid for the agent's hand. MiniGrid computes the mission and resets the verifier
  before that (``a`` is still on the grid: "the a", and the verifier's first step sees an
  empty hand, so a ``drop`` on the first step cannot succeed); horizax does the same;
* MoveTwoAcross: two distinct left objects ``a, d`` and two distinct right objects ``b, c``
  (ordered): "put the a next to the b, then put the c next to the d".

Descriptions name kind and colour; the pairs are unique, so each matches one object.

* observation: u8[7, 7, 3] egocentric view with occlusion; ``State.mission`` i32[72] word
  ids of the mission (`horizax.grid.mission_tokens`).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on success, else 0.
* termination: the verifier's success; truncation at ``max_steps = 8 * size**2`` (PutNext)
  or ``16 * size**2`` (MoveTwoAcross).
* state: ``State.extra`` is a `horizax.grid.babyai.level.LevelState` (PutNext) or a
  `horizax.grid.babyai.level.SeqLevelState` (MoveTwoAcross).

**One difference from MiniGrid.** A ``…Carrying`` level's first observation in MiniGrid is
the image computed before the object moved into the hand: it still shows ``a`` on the floor.
horizax's first observation shows the grid as it is, ``a`` in the hand; every later
observation, reward and end is MiniGrid's (proven in lockstep).

Example:
    >>> env = horizax.make("BabyAI-PutNextS6N3Carrying-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level, packed
from horizax.grid.babyai import placement as P
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import verifiers as V
from horizax.grid.roomgrid import RoomGrid
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, distinct, draw_digits
from horizax.grid.state import State, make_state

KINDS, NUM_PAIRS = P.OBJECT_KINDS, P.NUM_PAIRS
PUT_NEXT = (V.Instr.PUT_NEXT,)


def _rooms(room_size: int) -> RoomGrid:
    return RoomGrid(room_size=room_size, num_rows=1, num_cols=2)


def _left_allowed(agent_cell: Array, side: int) -> Array:
    """bool[side * side]: the left room's interior cells at distance >= 2 from the agent."""
    xs, ys = np.divmod(np.arange(side * side), side)
    return jnp.abs(xs - agent_cell // side) + jnp.abs(ys - agent_cell % side) >= 2


def _layout(
    key: Array, room_size: int, per_room: int, choices: Sequence[int]
) -> tuple[State, Array, Array, list[Array]]:
    """The two rooms, their objects and the agent; then ``choices`` (static radices) drawn.

    Returns:
        ``(state, kinds i32[2n], colours i32[2n], choice digits)``: objects 0..n-1 are the
        left room's, n..2n-1 the right room's, in placing order.
    """
    side, count = room_size - 2, 2 * per_room
    pair_radices = [NUM_PAIRS - i for i in range(count)]
    left_bounds = [side * side - i for i in range(per_room)]

    def left_radix(i: int):
        return lambda d: jnp.sum(_left_allowed(d[0], side), dtype=jnp.int32) - i

    right_radices = [side * side - i for i in range(per_room)]
    bounds = [side * side, 4, *pair_radices, *left_bounds, *right_radices, *choices]
    radices = [side * side, 4, *pair_radices]
    radices += [left_radix(i) for i in range(per_room)] + right_radices + list(choices)
    digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
    agent_cell, direction = digits[0], digits[1]
    pairs = jnp.stack(distinct(digits[2 : 2 + count]))
    kinds, colours = KINDS[0] + pairs // C.NUM_COLORS, pairs % C.NUM_COLORS
    at = 2 + count
    left = [
        P.nth_true(_left_allowed(agent_cell, side), r) for r in distinct(digits[at : at + per_room])
    ]
    right = distinct(digits[at + per_room : at + count])

    rooms = _rooms(room_size)
    grid = jnp.asarray(rooms.walls())
    grid = grid.at[room_size - 1, 1 : room_size - 1].set(jnp.asarray(C.EMPTY_CELL, jnp.uint8))
    xs = np.arange(rooms.width)[:, None]
    ys = np.arange(rooms.height)[None, :]
    for i, cell in enumerate([*left, *right]):
        x0 = 1 if i < per_room else room_size  # the room's first interior column
        at_cell = (xs == x0 + cell // side) & (ys == 1 + cell % side)
        obj = jnp.stack([kinds[i], colours[i], jnp.int32(0)]).astype(jnp.uint8)
        grid = jnp.where(at_cell[..., None], obj, grid)
    agent_pos = jnp.stack([1 + agent_cell // side, 1 + agent_cell % side])
    return make_state(grid, agent_pos, direction), kinds, colours, digits[at + count :]


def _put_next(kinds: Array, colours: Array, a: Array, b: Array) -> Array:
    """i32[8]: "put the a next to the b" (objects by index, described by kind and colour)."""
    loc = jnp.int32(D.Loc.NONE)
    parts = [V.Instr.PUT_NEXT, 0, kinds[a], colours[a], loc, kinds[b], colours[b], loc]
    return jnp.stack([jnp.asarray(p, jnp.int32) for p in parts])


def _cell_of(grid: Array, kind: Array, colour: Array) -> Array:
    """bool[W, H]: the cell holding the (unique) object of this kind and colour."""
    return (grid[..., 0] == kind) & (grid[..., 1] == colour)


def into_hand(state: State, kind: Array, colour: Array) -> State:
    """``…Carrying``: the object moves from the grid into the agent's hand after the
    verifier's reset (which saw it on the grid), as in MiniGrid's ``PutNext.reset``."""
    at = _cell_of(state.grid, kind, colour)
    grid = jnp.where(at[..., None], jnp.asarray(C.EMPTY_CELL, jnp.uint8), state.grid)
    carrying = jnp.stack([kind, colour, jnp.int32(0)]).astype(jnp.uint8)
    extra = state.extra
    progress = extra.progress.replace(
        tracked_bits=extra.progress.tracked_bits & ~packed.pack(at)[None],
        carried=extra.progress.carried.at[0].set(True),
    )
    return state.replace(grid=grid, carrying=carrying, extra=extra.replace(progress=progress))


def draw_put_next(key: Array, *, room_size: int, per_room: int, carrying: bool) -> State:
    """One reset of ``PutNextS{room_size}N{per_room}`` (``carrying``: its Carrying variant).

    Args:
        key: the episode's PRNG key.
        room_size: static, each room's side, walls included.
        per_room: static, objects per room.
        carrying: static, the moved object starts in the agent's hand.
    """
    state, kinds, colours, (a, b, swap) = _layout(key, room_size, per_room, [per_room] * 2 + [2])
    left, right = a, per_room + b
    moved, fixed = jnp.where(swap == 1, right, left), jnp.where(swap == 1, left, right)
    state = level.begin(
        state, _put_next(kinds, colours, moved, fixed), room_size=room_size, kinds=PUT_NEXT
    )
    return into_hand(state, kinds[moved], colours[moved]) if carrying else state


def draw_move_two_across(key: Array, *, room_size: int, per_room: int) -> State:
    """One reset of ``MoveTwoAcrossS{room_size}N{per_room}``: "put the a next to the b,
    then put the c next to the d" (a, d left; b, c right)."""
    choices = [per_room, per_room - 1] * 2
    state, kinds, colours, digits = _layout(key, room_size, per_room, choices)
    a, d = distinct(digits[:2])
    b, c = (per_room + i for i in distinct(digits[2:]))
    seq = jnp.concatenate(
        [
            jnp.stack([jnp.int32(Q.Seq.BEFORE), jnp.int32(0)]),
            _put_next(kinds, colours, a, b),
            _put_next(kinds, colours, c, d),
        ]
    )
    return level.begin_sequence(state, seq, room_size=room_size, kinds=PUT_NEXT)


def _entry(name: str, layout, room_size: int, max_steps: int, composite: bool = False):
    env_id = f"BabyAI-{name}-v0"
    return env_id, level.level_factory(
        env_id,
        room_size=room_size,
        num_rows=1,
        num_cols=2,
        num_navs=2,
        layout_fn=layout,
        kinds=PUT_NEXT,
        composite=composite,
        max_steps=max_steps,
    )


def _put_next_entry(room_size: int, per_room: int, carrying: bool = False):
    layout = functools.partial(
        draw_put_next, room_size=room_size, per_room=per_room, carrying=carrying
    )
    name = f"PutNextS{room_size}N{per_room}{'Carrying' if carrying else ''}"
    return _entry(name, layout, room_size, 8 * room_size**2)


def _move_two_entry(room_size: int, per_room: int):
    layout = functools.partial(draw_move_two_across, room_size=room_size, per_room=per_room)
    name = f"MoveTwoAcrossS{room_size}N{per_room}"
    return _entry(name, layout, room_size, 16 * room_size**2, composite=True)


ENVIRONMENTS = dict(
    [
        _put_next_entry(4, 1),
        _put_next_entry(5, 2),
        _put_next_entry(5, 1),
        _put_next_entry(6, 3),
        _put_next_entry(7, 4),
        _put_next_entry(5, 2, carrying=True),
        _put_next_entry(6, 3, carrying=True),
        _put_next_entry(7, 4, carrying=True),
        _move_two_entry(5, 2),
        _move_two_entry(8, 9),
    ]
)
