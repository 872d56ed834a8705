"""LavaGap: cross a vertical strip of lava through its single gap to reach the goal.

MiniGrid's LavaGapEnv on a ``size`` x ``size`` walled room: the agent starts at ``(1, 1)``
facing right, the green goal is at ``(size-2, size-2)``, and the interior of column
``x ~ U[2, size-3]`` is lava except one gap at ``y ~ U[1, size-2]``. ``max_steps = 4 *
size**2``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7) (only left, right and forward matter).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal, else 0 (lava pays 0).
* termination: goal reached or lava entered; truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-LavaGapS7-v0")
    >>> ts = env.reset(jax.random.PRNGKey(0))
    >>> ts = env.step(ts, jnp.int32(2))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import missions, observations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import random_bits
from horizax.grid.state import State, make_state, walled_grid

SIZES = (5, 6, 7)


def lavagap_layout(size: int, obstacle: tuple[int, int, int] = C.LAVA_CELL) -> LayoutFn:
    """The layout function of MiniGrid's LavaGapEnv.

    Args:
        size: width and height of the room, walls included.
        obstacle: the cell the strip is made of (MiniGrid's ``obstacle_type``; lava by
            default, ``C.WALL_CELL`` gives the "find the opening" variant).

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution.

    Raises:
        ValueError: if ``size < 5`` (MiniGrid asserts it).
    """
    if size < 5:
        raise ValueError(f"LavaGap needs size >= 5, got {size}")
    base = walled_grid(size, size)
    base[size - 2, size - 2] = C.GOAL_CELL
    xs = np.arange(size)[:, None]
    ys = np.arange(size)[None, :]
    interior_rows = (ys >= 1) & (ys <= size - 2)
    strip_cell = np.asarray(obstacle, np.uint8)
    template = (
        missions.Template.AVOID_LAVA if obstacle[0] == C.LAVA else missions.Template.FIND_OPENING
    )

    def layout(key: Array) -> State:
        # `_rand_int(2, width - 2)` and `_rand_int(1, height - 1)`, high ends excluded, from
        # one PRNG call (32 bits modulo the range; bias < 2**-28). The strip never reaches the
        # goal's column (x <= size-3 < size-2).
        bits = random_bits(key, (2,))
        gap_x = 2 + (bits[0] % jnp.uint32(size - 4)).astype(jnp.int32)
        gap_y = 1 + (bits[1] % jnp.uint32(size - 2)).astype(jnp.int32)
        strip = (xs == gap_x) & interior_rows & (ys != gap_y)
        grid = jnp.where(strip[..., None], strip_cell, jnp.asarray(base))
        # Encoded here, not in the factory: building a layout at import must not start XLA.
        mission = missions.encode(template)
        return make_state(grid, jnp.array([1, 1]), jnp.int32(0), mission=mission)

    return layout


def _entry(size: int) -> tuple[str, object]:
    name = f"MiniGrid-LavaGapS{size}-v0"
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=4 * size**2,
        layout_fn=lavagap_layout(size),
        observation_fn=observations.symbolic_first_person,
        layout_objects=frozenset({C.WALL, C.LAVA, C.GOAL}),
    )


ENVIRONMENTS = dict(_entry(size) for size in SIZES)
ALIASES = navix_aliases(list(ENVIRONMENTS))
