"""GoToDoor: stand next to the door of the named colour and say ``done``.

MiniGrid's GoToDoorEnv on a ``size`` x ``size`` grid. A walled room of random width and height,
each ``~ U[5, size]``, sits in the top-left corner; cells outside it stay empty (never
reachable). Each of its walls holds one closed, unlocked door: ``(x, 0)`` and ``(x', h-1)``
with ``x, x' ~ U[2, w-3]``, ``(0, y)`` and ``(w-1, y')`` with ``y, y' ~ U[2, h-3]``. The four
door colours are distinct, uniform over ordered 4-tuples of MiniGrid's six colours (its
redraw-on-repeat loop). The agent starts on a uniform cell of the room's interior facing a
uniform direction, and the target is one of the four doors, uniformly. The mission reads
"go to the {colour} door". ``max_steps = 4 * size**2``.

* observation: u8[7, 7, 3] egocentric view without occlusion (``see_through_walls=True``).
* action: i32[] in [0, 7).
* reward: f32[], ``1 - 0.9 * t / max_steps`` for ``done`` while orthogonally next to the
  target door (facing it is not required; diagonal does not count), else 0.
* termination: every ``done`` and every ``toggle`` end the episode (MiniGrid 3.2.0; a toggle
  still opens the door it faces first); truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-GoToDoor-8x8-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 6, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.compose import compose
from horizax.grid import constants as C
from horizax.grid import events, missions, observations, rewards, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import WIDE_DIGIT_BUDGET, distinct, draw_digits
from horizax.grid.state import State, make_state

SIZES = (5, 6, 8)
MIN_ROOM = 5  # MiniGrid's `_rand_int(5, size + 1)` for each side of the room


def gotodoor_layout(size: int) -> LayoutFn:
    """The layout function of MiniGrid's GoToDoorEnv.

    One `random_bits` call (one or two words) for all thirteen draws; the room's walls and doors
    are whole-grid selects and the agent's cell is computed from a rank, so the traced program
    is small and free of loops and scatters.

    Args:
        size: width and height of the grid (the room is at most this large).

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution. The mission holds the target
        door's colour, ``kind = C.DOOR`` and its position.

    Raises:
        ValueError: if ``size < 5`` (MiniGrid asserts it).
    """
    if size < MIN_ROOM:
        raise ValueError(f"GoToDoor needs size >= {MIN_ROOM}, got {size}")
    xs = np.arange(size)[:, None]  # [W, 1], broadcast against [1, H]
    ys = np.arange(size)[None, :]
    empty = np.asarray(C.EMPTY_CELL, np.uint8)
    wall = np.asarray(C.WALL_CELL, np.uint8)
    span = size - MIN_ROOM + 1  # number of possible room widths (and heights)
    offsets = size - 4  # most door offsets on one wall: [2, w-3] has w-4 values
    inner = (size - 2) ** 2  # most interior cells

    def layout(key: Array) -> State:
        # MiniGrid's draws: width, height, the four door offsets (top, bottom, left, right),
        # the four colours, the agent's cell and direction, the target door.
        bounds = (span, span, offsets, offsets, offsets, offsets, 6, 5, 4, 3, inner, 4, 4)

        def width(d: list[Array]) -> Array:
            return MIN_ROOM + d[0]

        def height(d: list[Array]) -> Array:
            return MIN_ROOM + d[1]

        radices = (
            span,
            span,
            lambda d: width(d) - 4,
            lambda d: width(d) - 4,
            lambda d: height(d) - 4,
            lambda d: height(d) - 4,
            *(6, 5, 4, 3),
            lambda d: (width(d) - 2) * (height(d) - 2),
            4,
            4,
        )
        digits = draw_digits(key, bounds, radices, budget=WIDE_DIGIT_BUDGET)
        w, h = width(digits), height(digits)
        digits = digits[2:]
        top_x, bottom_x, left_y, right_y = (2 + d for d in digits[:4])
        colours = distinct(digits[4:8])
        agent_rank, direction, target = digits[8:]
        agent_pos = jnp.stack([1 + agent_rank // (h - 2), 1 + agent_rank % (h - 2)])

        door_x = jnp.stack([top_x, bottom_x, jnp.int32(0), w - 1])
        door_y = jnp.stack([jnp.int32(0), h - 1, left_y, right_y])
        walls = (((xs == 0) | (xs == w - 1)) & (ys < h)) | (((ys == 0) | (ys == h - 1)) & (xs < w))
        grid = jnp.where(walls[..., None], wall, empty)
        for i in range(4):
            at = (xs == door_x[i]) & (ys == door_y[i])
            door = jnp.stack([C.DOOR, colours[i], C.CLOSED]).astype(jnp.uint8)
            grid = jnp.where(at[..., None], door, grid)
        pick = jnp.arange(4) == target
        colour = jnp.sum(jnp.where(pick, jnp.stack(colours), 0))
        pos = jnp.stack([jnp.sum(jnp.where(pick, door_x, 0)), jnp.sum(jnp.where(pick, door_y, 0))])
        mission = missions.encode(missions.Template.GO_TO_DOOR, color=colour, kind=C.DOOR, pos=pos)
        return make_state(grid, agent_pos, direction, mission=mission)

    return layout


def _entry(size: int) -> tuple[str, object]:
    name = f"MiniGrid-GoToDoor-{size}x{size}-v0"
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=4 * size**2,
        layout_fn=gotodoor_layout(size),
        observation_fn=observations.symbolic_first_person_see_through,
        see_through_walls=True,
        reward_fn=rewards.time_discounted(events.door_done),
        termination_fn=compose(
            terminations.on_door_done, terminations.on_wrong_toggle, terminations.on_done_action
        ),
    )


ENVIRONMENTS = dict(_entry(size) for size in SIZES)
ALIASES = navix_aliases(list(ENVIRONMENTS))
