"""RedBlueDoors: open the red door, then the blue one.

MiniGrid's RedBlueDoorEnv on a ``2 * size`` x ``size`` grid. A walled ``size`` x ``size`` room
sits in the middle (its left wall at column ``size // 2``, its right wall at column
``size // 2 + size - 1``). The agent starts on a uniform cell inside that room, facing a
uniform direction; a closed red door is then cut into the left wall at
``y ~ U[1, size-2]`` and a closed blue door into the right wall at an independent
``y ~ U[1, size-2]``. ``max_steps = 20 * size**2``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7) (only turning, moving and toggling matter).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the blue door opens while the red one was
  already open, else 0.
* termination: the blue door is open after the step (success or not), or the red door opens
  while the blue one is open; truncation at ``max_steps``.
* mission: ``RED_BLUE_DOORS`` with the red door at ``(X, Y)`` and the blue one at
  ``(X2, Y2)``, which the events read.

Example:
    >>> env = horizax.make("MiniGrid-RedBlueDoors-8x8-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 5, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import events, missions, observations, rewards, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import mixed_radix, random_bits
from horizax.grid.state import State, make_state, walled_grid

RED_DOOR = (C.DOOR, C.RED, C.CLOSED)
BLUE_DOOR = (C.DOOR, C.BLUE, C.CLOSED)
SIZES = (6, 8)


def redbluedoors_layout(size: int) -> LayoutFn:
    """The layout function of MiniGrid's RedBlueDoorEnv.

    All four draws (agent cell, direction, the two door rows) come from one 32-bit word in
    mixed radix; the product of the radices is at most ``(size-2)**4 * 4``, so the modulo
    bias is below 1e-5 relative for the registered sizes.

    Args:
        size: side of the inner room (the grid is ``2 * size`` x ``size``).

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution.

    Raises:
        ValueError: if ``size < 3`` (the room would have no inside).
    """
    if size < 3:
        raise ValueError(f"RedBlueDoors needs size >= 3, got {size}")
    left, right = size // 2, size // 2 + size - 1
    inner = size - 2
    base = walled_grid(2 * size, size)
    base[left, :] = C.WALL_CELL
    base[right, :] = C.WALL_CELL
    ys = np.arange(size)
    red_cell = np.asarray(RED_DOOR, np.uint8)
    blue_cell = np.asarray(BLUE_DOOR, np.uint8)

    def layout(key: Array) -> State:
        word = random_bits(key)
        # `place_agent` in the room's rectangle (its walls are never free), then the red
        # door's `_rand_int(1, size - 1)` and the blue door's.
        rank, direction, red, blue = mixed_radix(word, inner * inner, 4, inner, inner)
        agent_pos = jnp.stack([left + 1 + rank // inner, 1 + rank % inner])
        red_y, blue_y = 1 + red, 1 + blue
        grid = jnp.asarray(base)
        grid = grid.at[left].set(jnp.where((ys == red_y)[:, None], red_cell, grid[left]))
        grid = grid.at[right].set(jnp.where((ys == blue_y)[:, None], blue_cell, grid[right]))
        mission = missions.encode(
            missions.Template.RED_BLUE_DOORS,
            pos=jnp.stack([jnp.int32(left), red_y]),
            pos2=jnp.stack([jnp.int32(right), blue_y]),
        )
        return make_state(grid, agent_pos, direction, mission=mission)

    return layout


REWARD = rewards.time_discounted(events.ordered_doors_success)


def _entry(size: int) -> tuple[str, object]:
    name = f"MiniGrid-RedBlueDoors-{size}x{size}-v0"
    return name, factory(
        name,
        width=2 * size,
        height=size,
        max_steps=20 * size**2,
        layout_fn=redbluedoors_layout(size),
        observation_fn=observations.symbolic_first_person,
        reward_fn=REWARD,
        termination_fn=terminations.on_ordered_doors_resolved,
    )


ENVIRONMENTS = dict(_entry(size) for size in SIZES)
ALIASES = navix_aliases(list(ENVIRONMENTS))
