"""FourRooms: reach the green goal somewhere in four rooms joined by four gaps.

MiniGrid's FourRoomsEnv: a 19 x 19 walled grid split by a full wall cross at column 9 and
row 9 into four 8 x 8 rooms. Each of the four wall arms has one gap, drawn uniformly inside
its arm: ``(9, y)`` with ``y ~ U[1, 8]`` (top), ``(x, 9)`` with ``x ~ U[1, 8]`` (left),
``(x, 9)`` with ``x ~ U[10, 17]`` (right) and ``(9, y)`` with ``y ~ U[10, 17]`` (bottom); the
centre ``(9, 9)`` is always wall. The agent then starts on a uniform free cell (gap cells
included) facing a uniform direction, and the goal lies on a uniform free cell other than the
agent's. MiniGrid's optional fixed ``agent_pos``/``goal_pos`` (default None) are arguments of
`fourrooms_layout`, and overrides of the id as in MiniGrid's constructor
(``horizax.make("MiniGrid-FourRooms-v0", agent_pos=(2, 2), goal_pos=(3, 3))``; such an
environment holds a new layout closure, so it does not pickle). ``max_steps = 100``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7) (only left, right and forward matter).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal, else 0.
* termination: goal reached; truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-FourRooms-v0")
    >>> ts = env.reset(jax.random.PRNGKey(0))
    >>> ts = env.step(ts, jnp.int32(2))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import missions, observations
from horizax.grid.cells import position_mask
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import empty_cells, pick_cell, random_bits
from horizax.grid.state import State, make_state, walled_grid

SIZE = 19
MID = SIZE // 2  # MiniGrid's room_w = room_h = width // 2: the cross is at 9
ROOM_CELLS = (MID - 1) ** 2  # 64 free cells inside each room
NUM_FREE = 4 * ROOM_CELLS + 4  # the rooms plus the four gaps


def _free_cell(rank: Array, gap_cells: Array) -> Array:
    """i32[2]: free cell number ``rank`` (i32[] in [0, NUM_FREE)) of a FourRooms layout.

    Ranks ``0 .. 255`` walk the rooms (top-left, top-right, bottom-left, bottom-right), 64
    cells each, column by column; ranks ``256 .. 259`` are the gaps ``gap_cells`` (i32[4, 2]).
    """
    room, within = rank // ROOM_CELLS, rank % ROOM_CELLS
    side = MID - 1  # a room's interior is 8 x 8
    in_room = jnp.stack(
        [1 + (room % 2) * MID + within // side, 1 + (room // 2) * MID + within % side]
    )
    in_gap = gap_cells[jnp.clip(rank - 4 * ROOM_CELLS, 0, 3)]
    return jnp.where(rank < 4 * ROOM_CELLS, in_room, in_gap).astype(jnp.int32)


def fourrooms_layout(
    agent_pos: tuple[int, int] | None = None, goal_pos: tuple[int, int] | None = None
) -> LayoutFn:
    """The layout function of MiniGrid's FourRoomsEnv.

    Args:
        agent_pos: fixed start ``(x, y)``; its cell is cleared (even a wall) and the direction
            is still uniform. None: a uniform free cell.
        goal_pos: fixed goal ``(x, y)``, written after the agent is placed, so a random agent
            may start on it, as in MiniGrid. None: a uniform free cell other than the agent's.

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution.
    """
    base = walled_grid(SIZE, SIZE)
    base[MID, :] = C.WALL_CELL
    base[:, MID] = C.WALL_CELL
    xs = np.arange(SIZE)[:, None]
    ys = np.arange(SIZE)[None, :]
    empty = np.asarray(C.EMPTY_CELL, np.uint8)
    goal_cell = np.asarray(C.GOAL_CELL, np.uint8)
    low = np.array([1, 1, MID + 1, MID + 1], np.int32)

    def layout(key: Array) -> State:
        bits = random_bits(key, (7,))  # one PRNG call for every draw
        # MiniGrid's draws, in its order: `_rand_int(yT + 1, yB)` / `_rand_int(xL + 1, xR)`
        # for the top, left, right and bottom arms: 8 values each, the high end excluded
        # (so the centre (9, 9) stays wall).
        gaps = low + (bits[:4] % jnp.uint32(MID - 1)).astype(jnp.int32)
        top_y, left_x, right_x, bottom_y = gaps[0], gaps[1], gaps[2], gaps[3]
        holes = ((xs == MID) & ((ys == top_y) | (ys == bottom_y))) | (
            (ys == MID) & ((xs == left_x) | (xs == right_x))
        )
        grid = jnp.where(holes[..., None], empty, jnp.asarray(base))
        if agent_pos is None and goal_pos is None:
            # The default: MiniGrid's `place_agent()` then `place_obj(Goal())`, uniform over
            # the free cells, which are always the 4 x 64 room cells plus the 4 gaps; number
            # them and draw ranks, the goal's among the 259 cells left, skipping the agent's.
            gap_cells = jnp.stack(
                [
                    jnp.stack([MID, top_y]),
                    jnp.stack([left_x, MID]),
                    jnp.stack([right_x, MID]),
                    jnp.stack([MID, bottom_y]),
                ]
            )
            agent_rank = (bits[4] % jnp.uint32(NUM_FREE)).astype(jnp.int32)
            goal_rank = (bits[5] % jnp.uint32(NUM_FREE - 1)).astype(jnp.int32)
            goal_rank = goal_rank + (goal_rank >= agent_rank)
            start = _free_cell(agent_rank, gap_cells)
            goal = _free_cell(goal_rank, gap_cells)
        else:
            if agent_pos is None:
                start = pick_cell(empty_cells(grid), bits[4])
            else:
                start = jnp.asarray(agent_pos, jnp.int32)
                grid = jnp.where(position_mask(SIZE, SIZE, start)[..., None], empty, grid)
            if goal_pos is None:
                free = empty_cells(grid) & ~position_mask(SIZE, SIZE, start)
                goal = pick_cell(free, bits[5])
            else:
                goal = jnp.asarray(goal_pos, jnp.int32)
        grid = jnp.where(position_mask(SIZE, SIZE, goal)[..., None], goal_cell, grid)
        direction = (bits[6] % jnp.uint32(4)).astype(jnp.int32)
        return make_state(
            grid, start, direction, mission=missions.encode(missions.Template.REACH_GOAL)
        )

    return layout


ENVIRONMENTS = {
    "MiniGrid-FourRooms-v0": factory(
        "MiniGrid-FourRooms-v0",
        layout_options=(fourrooms_layout, frozenset({"agent_pos", "goal_pos"})),
        width=SIZE,
        height=SIZE,
        max_steps=100,
        layout_fn=fourrooms_layout(),
        observation_fn=observations.symbolic_first_person,
        layout_objects=frozenset({C.WALL, C.GOAL}),
    )
}
ALIASES = navix_aliases(list(ENVIRONMENTS))
