"""MultiRoom: walk through a chain of rooms, opening each closed door, to the green goal.

MiniGrid's MultiRoomEnv on an unwalled 25 x 25 grid. ``numRooms ~ U[minNumRooms,
maxNumRooms]`` rooms are chained: room 0's top-left corner is ``(U[0, 22], U[0, 22])``
(both coordinates drawn with the width); every room is ``U[4, maxRoomSize]`` wide and high
(walls included); each next room is entered through a door on a wall of the previous room
drawn uniformly among the three walls other than that room's entry wall (room 0's entry
wall is the left one), at a uniform non-corner cell of that wall, and lies on the far side
of it at a uniform offset along it. A candidate room is rejected if ``top < 0``,
``top_x + size_x > width`` or ``top_y + size_y >= height``, or if it meets a room placed
before the previous one (MiniGrid's asymmetric rectangle test). Each level tries up to 8
candidates; the first that fits continues the chain, and when all 8 fail the chain simply
ends (no backtracking). Whole chains are redrawn until one has ``numRooms`` rooms.

The walls of the rooms are drawn in order, each room's entry door (closed, of a colour
uniform among the six but the previous door's) right after its walls. The agent starts on a
uniform cell of room 0 facing a uniform direction; the goal lies on a uniform free cell of
the last room. ``max_steps = 20 * maxNumRooms``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7) (forward and toggle matter).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal, else 0.
* termination: goal reached; truncation at ``max_steps``.

``MiniGrid-MultiRoom-N4-S5-v0`` is MiniGrid's legacy id, registered there with 6 rooms of
at most 5 cells; it behaves the same here. ``Navix-MultiRoom-N4-S5-v0`` (4 rooms in navix)
aliases ``MiniGrid-MultiRoom-N4-S5-v1``.

Example:
    >>> env = horizax.make("MiniGrid-MultiRoom-N6-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 2, jnp.int32))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import missions, observations
from horizax.grid.environment import LayoutFn
from horizax.grid.envs import multiroom_chain as chain
from horizax.grid.registration import factory
from horizax.grid.sampling import random_bits
from horizax.grid.state import State, make_state

SIZE = 25
# id -> (minNumRooms, maxNumRooms, maxRoomSize, K chains drawn in parallel). K bounds
# MiniGrid's unbounded redraw loop; all K chains fall short of numRooms with probability
# (1 - p)^K, p the per-chain rate measured in tests/grid/envs/test_multiroom.py: ~3e-8,
# ~5e-6, ~2e-6 and ~1e-5 for the four ids (see `multiroom_chain` for what happens then).
CONFIGS = {
    "MiniGrid-MultiRoom-N2-S4-v0": (2, 2, 4, 3),
    "MiniGrid-MultiRoom-N4-S5-v0": (6, 6, 5, 13),
    "MiniGrid-MultiRoom-N4-S5-v1": (4, 4, 5, 8),
    "MiniGrid-MultiRoom-N6-v0": (6, 6, 10, 28),
}


class Rooms(NamedTuple):
    """The rooms of one MultiRoom layout (rows past ``num_rooms`` are padding).

    Attributes:
        top: i32[N, 2] top-left corner ``(x, y)`` of each room, walls included.
        size: i32[N, 2] ``(width, height)`` of each room, walls included.
        door: i32[N, 2] position of each room's entry door (row 0: room 0's corner, no door).
        colour: i32[N] colour of each room's entry door (row 0 unused).
        num_rooms: i32[] number of rooms (``numRooms`` unless every chain fell short).
        chain_lengths: i32[K] length of each of the K chains drawn (for the failure tests).
    """

    top: Array
    size: Array
    door: Array
    colour: Array
    num_rooms: Array
    chain_lengths: Array


def multiroom_rooms(
    min_rooms: int,
    max_rooms: int,
    max_room_size: int,
    chains: int,
    width: int = SIZE,
    height: int = SIZE,
) -> Callable[[Array], tuple[Rooms, Array]]:
    """MultiRoom's rooms and door colours, drawn from a seed.

    Args:
        min_rooms: MiniGrid's ``minNumRooms``.
        max_rooms: MiniGrid's ``maxNumRooms``.
        max_room_size: MiniGrid's ``maxRoomSize`` (>= 4).
        chains: K, the number of whole chains drawn (MiniGrid's redraw loop, bounded).
        width: the grid's width.
        height: the grid's height.

    Returns:
        ``seed u32[2] -> (Rooms, word)``, ``word`` (u32[]) being one more random word of the
        stream, for the agent and goal.
    """
    if not 1 <= min_rooms <= max_rooms or max_room_size < chain.MIN_SIZE or chains < 1:
        raise ValueError(
            f"MultiRoom needs 1 <= min_rooms <= max_rooms, max_room_size >= 4 and chains >= 1,"
            f" got {min_rooms}, {max_rooms}, {max_room_size}, {chains}"
        )
    draw_chains = chain.chain_sampler(max_rooms, max_room_size, chains, width, height)
    base = chain.words_needed(max_rooms, chains)  # counters past the chains' words
    extra = np.arange(base, base + max_rooms + 1, dtype=np.uint32)

    def rooms(seed: Array) -> tuple[Rooms, Array]:
        # [numRooms draw, N - 1 door colours, agent and goal]
        words = chain.words(seed, extra)
        if min_rooms == max_rooms:
            target = jnp.int32(max_rooms)
        else:  # MiniGrid's `_rand_int(minNumRooms, maxNumRooms + 1)`
            span = jnp.uint32(max_rooms - min_rooms + 1)
            target = min_rooms + (words[0] % span).astype(jnp.int32)
        packed, lengths = draw_chains(seed, target)
        # MiniGrid keeps a redrawn chain only if it is strictly longer: the first full chain
        # (or, if the bound is exhausted, the first longest) is the one argmax finds.
        best = jnp.argmax(lengths)
        pick = jnp.arange(chains) == best  # one-hot select: cheaper than a gather under vmap
        x, y, sx, sy, dx, dy, _ = chain.unpack((packed * pick[:, None]).sum(0, jnp.uint32))
        # Door k's colour: uniform over the six for the first door, then uniform over the
        # five others than the previous door's (one word per door).
        first = (words[1:2] % jnp.uint32(C.NUM_COLORS)).astype(jnp.int32)
        steps = 1 + (words[2:max_rooms] % jnp.uint32(C.NUM_COLORS - 1)).astype(jnp.int32)
        colour = jnp.cumsum(jnp.concatenate([jnp.zeros(1, jnp.int32), first, steps]))
        room_list = Rooms(
            top=jnp.stack([x, y], -1),
            size=jnp.stack([sx, sy], -1),
            door=jnp.stack([dx, dy], -1),
            colour=colour % C.NUM_COLORS,
            num_rooms=lengths[best],
            chain_lengths=lengths,
        )
        return room_list, words[max_rooms]

    return rooms


def multiroom_layout(
    min_rooms: int,
    max_rooms: int,
    max_room_size: int,
    chains: int,
    width: int = SIZE,
    height: int = SIZE,
) -> LayoutFn:
    """The layout function of MiniGrid's MultiRoomEnv (arguments as in `multiroom_rooms`).

    One Threefry block seeds every draw (see `multiroom_chain` for the word stream): the K
    chains (one word per candidate room), the number of rooms, the door colours and the
    agent/goal placement. The grid is drawn with whole-grid selects over the N rooms.

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution (see `multiroom_chain` for
        the bound on the redraw loop and what happens when it is exhausted).
    """
    rooms_fn = multiroom_rooms(min_rooms, max_rooms, max_room_size, chains, width, height)
    xs = np.arange(width)[None, :, None]  # [1, W, 1] against room rows [N, 1, 1]
    ys = np.arange(height)[None, None, :]
    index = np.arange(max_rooms)

    def layout(key: Array) -> State:
        rooms, word = rooms_fn(random_bits(key, (2,)))
        grid = draw_rooms(rooms, xs, ys, index)
        agent, direction, goal = _place_agent_and_goal(rooms, word)
        at_goal = (xs[0] == goal[0]) & (ys[0] == goal[1])
        goal_cell = jnp.asarray(C.GOAL_CELL, jnp.uint8)
        grid = jnp.where(at_goal[..., None], goal_cell, grid)
        return make_state(
            grid, agent, direction, mission=missions.encode(missions.Template.MULTI_ROOM)
        )

    return layout


def draw_rooms(rooms: Rooms, xs: np.ndarray, ys: np.ndarray, index: np.ndarray) -> Array:
    """u8[W, H, 3]: the walls of the first ``rooms.num_rooms`` rooms and their entry doors.

    MiniGrid draws room by room, each entry door right after its room's walls, later walls
    overwriting earlier cells. Walls only ever overwrite walls or empty cells: a door lies on
    the rectangle of the room before it, which every later room avoids (MiniGrid's overlap
    test), and the room right after it shares only that wall's line, where the door is drawn
    after. So all walls first, then all doors, is the same grid (checked in the tests against
    a room-by-room drawing).
    """
    live = (index < rooms.num_rooms)[:, None, None]
    x0, y0 = rooms.top[:, 0, None, None], rooms.top[:, 1, None, None]
    x1 = x0 + rooms.size[:, 0, None, None] - 1
    y1 = y0 + rooms.size[:, 1, None, None] - 1
    inside = (xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)
    border = inside & ((xs == x0) | (xs == x1) | (ys == y0) | (ys == y1))
    wall = (border & live).any(0)
    at_door = (xs == rooms.door[:, 0, None, None]) & (ys == rooms.door[:, 1, None, None])
    at_door = at_door & live & (index > 0)[:, None, None]
    door = at_door.any(0)
    colour = (at_door * rooms.colour[:, None, None]).sum(0)
    obj = jnp.where(door, C.DOOR, jnp.where(wall, C.WALL, C.EMPTY))
    col = jnp.where(door, colour, jnp.where(wall, C.GREY, 0))
    state = jnp.where(door, C.CLOSED, 0)
    return jnp.stack([obj, col, state], axis=-1).astype(jnp.uint8)


def _place_agent_and_goal(rooms: Rooms, word: Array) -> tuple[Array, Array, Array]:
    """The agent's cell and direction, then the goal's cell, from one random word.

    MiniGrid's ``place_agent(room0.top, room0.size)`` is uniform over the empty cells of
    room 0's rectangle, i.e. its interior (nothing else lies there), then a uniform direction;
    ``place_obj(Goal(), last.top, last.size)`` is uniform over the last room's interior
    except the agent's cell (which is only there when the chain has a single room). Ranks are
    drawn in mixed radix; the modulo bias is below ``64 * 4 * 64 / 2**32 < 1e-5``.
    """
    inner0 = rooms.size[0] - 2
    last = rooms.num_rooms - 1
    inner_last = rooms.size[last] - 2
    cells0 = (inner0[0] * inner0[1]).astype(jnp.uint32)
    shared = last == 0
    cells_last = (inner_last[0] * inner_last[1] - shared.astype(jnp.int32)).astype(jnp.uint32)
    agent_rank = (word % cells0).astype(jnp.int32)
    word = word // cells0
    direction = (word % jnp.uint32(4)).astype(jnp.int32)
    goal_rank = ((word // jnp.uint32(4)) % cells_last).astype(jnp.int32)
    goal_rank = goal_rank + (shared & (goal_rank >= agent_rank))
    agent = rooms.top[0] + 1 + jnp.stack([agent_rank // inner0[1], agent_rank % inner0[1]])
    goal = rooms.top[last] + 1 + jnp.stack([goal_rank // inner_last[1], goal_rank % inner_last[1]])
    return agent.astype(jnp.int32), direction, goal.astype(jnp.int32)


def _entry(env_id: str) -> tuple[str, object]:
    min_rooms, max_rooms, max_room_size, chains = CONFIGS[env_id]
    return env_id, factory(
        env_id,
        width=SIZE,
        height=SIZE,
        max_steps=20 * max_rooms,
        layout_fn=multiroom_layout(min_rooms, max_rooms, max_room_size, chains),
        observation_fn=observations.symbolic_first_person,
    )


ENVIRONMENTS = dict(_entry(env_id) for env_id in CONFIGS)
# navix registers its N4-S5-v0 with the 4 rooms its name promises: MiniGrid's v1.
ALIASES = {
    "Navix-MultiRoom-N2-S4-v0": "MiniGrid-MultiRoom-N2-S4-v0",
    "Navix-MultiRoom-N4-S5-v0": "MiniGrid-MultiRoom-N4-S5-v1",
    "Navix-MultiRoom-N6-v0": "MiniGrid-MultiRoom-N6-v0",
}
