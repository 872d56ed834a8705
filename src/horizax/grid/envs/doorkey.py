"""DoorKey: pick up the key, unlock the door in the splitting wall, reach the goal.

MiniGrid's DoorKeyEnv on a ``size`` x ``size`` walled room: a full wall column at
``split ~ U[2, size-3]`` cuts the room in two; a locked yellow door sits in that column at
``y ~ U[1, size-3]`` (MiniGrid's ``_rand_int(1, height - 2)``, so never in the row just above
the bottom wall); the green goal is at ``(size-2, size-2)``. The agent starts uniformly on a
free cell left of the wall, facing a uniform direction, and the yellow key lies uniformly on
another free cell left of the wall. ``max_steps = 10 * size**2``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7) (pickup the key, toggle the door with it).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal, else 0.
* termination: goal reached; truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-DoorKey-8x8-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 2, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import missions, observations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import mixed_radix, random_bits
from horizax.grid.state import State, make_state, walled_grid

LOCKED_YELLOW_DOOR = (C.DOOR, C.YELLOW, C.LOCKED)
YELLOW_KEY = (C.KEY, C.YELLOW, 0)
SIZES = (5, 6, 8, 16)


def doorkey_layout(size: int) -> LayoutFn:
    """The layout function of MiniGrid's DoorKeyEnv.

    Built for a cheap reset under `vmap` (the autoreset draws one at every step): one
    Threefry block for all five draws, the free cells left of the wall enumerated arithmetically
    instead of by a per-cell random mask, and three whole-grid selects to draw the grid. Its
    traced program does not depend on ``size``.

    Args:
        size: width and height of the room, walls included.

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution.

    Raises:
        ValueError: if ``size < 5`` (MiniGrid's split range ``[2, size-3]`` would be empty).
    """
    if size < 5:
        raise ValueError(f"DoorKey needs size >= 5, got {size}")
    base = walled_grid(size, size)
    base[size - 2, size - 2] = C.GOAL_CELL
    xs = np.arange(size)[:, None]  # [W, 1], broadcast against [1, H]
    ys = np.arange(size)[None, :]
    wall = np.asarray(C.WALL_CELL, np.uint8)
    door = np.asarray(LOCKED_YELLOW_DOOR, np.uint8)
    key_cell = np.asarray(YELLOW_KEY, np.uint8)
    rows = size - 2  # interior rows 1 .. size-2

    def layout(key: Array) -> State:
        # One Threefry block (two 32-bit words) for all five draws: the autoreset evaluates
        # this at every step under vmap, and each extra block costs as much as the rest of
        # the layout. Each word is split in mixed radix; the modulo bias is below
        # (product of the radices) / 2**32, i.e. < 1e-5 relative even for 16x16 (the agent
        # and key ranks, 182 * 181 values) -- far below what any test can resolve.
        words = random_bits(key, (2,))

        # MiniGrid's `_rand_int(2, width - 2)`, `_rand_int(1, height - 2)` (high excluded) and
        # the agent's uniform direction.
        split_digit, door_digit, direction = mixed_radix(words[0], size - 4, size - 3, 4)
        split = 2 + split_digit
        door_y = 1 + door_digit
        # `place_agent(size=(split, height))` then the key's `place_obj(top=(0, 0),
        # size=(split, height))`: uniform over the free cells strictly left of the wall (the
        # door, placed in between, is outside this rectangle), the key avoiding the agent.
        # Those cells are the rectangle x in [1, split-1], y in [1, size-2]; number them
        # x-major and draw ranks, the key's from one fewer cells, skipping the agent's rank.
        free = (split - 1) * rows
        agent_rank, key_rank = mixed_radix(words[1], free, free - 1)
        key_rank = key_rank + (key_rank >= agent_rank)
        agent_pos = jnp.stack([1 + agent_rank // rows, 1 + agent_rank % rows])
        key_pos = jnp.stack([1 + key_rank // rows, 1 + key_rank % rows])
        column = xs == split
        grid = jnp.where(column[..., None], wall, jnp.asarray(base))
        grid = jnp.where((column & (ys == door_y))[..., None], door, grid)
        at_key = (xs == key_pos[0]) & (ys == key_pos[1])
        grid = jnp.where(at_key[..., None], key_cell, grid)
        return make_state(
            grid, agent_pos, direction, mission=missions.encode(missions.Template.DOOR_KEY)
        )

    return layout


def _entry(size: int) -> tuple[str, object]:
    name = f"MiniGrid-DoorKey-{size}x{size}-v0"
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=10 * size**2,
        layout_fn=doorkey_layout(size),
        observation_fn=observations.symbolic_first_person,
    )


ENVIRONMENTS = dict(_entry(size) for size in SIZES)
ALIASES = navix_aliases(list(ENVIRONMENTS))
