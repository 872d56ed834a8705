"""Memory: remember the object in the start room, walk to its twin at the end of a hallway.

MiniGrid's MemoryEnv on a ``size`` x ``size`` grid (``size`` odd, ``mid = size // 2``). A
small start room (x in 1..3, rows ``mid-1 .. mid+1``) opens at ``(4, mid)`` onto a one-cell
hallway along row ``mid`` that ends at column ``hallway_end`` in a vertical corridor (column
``hallway_end + 1``) closed by a wall at ``hallway_end + 2``. ``hallway_end`` is
``size - 3``, or for the ``Random`` ids ``~ U[4, size-3]``. A green key or ball (uniform) lies
at ``(1, mid-1)``; a green ball and key, in uniform order, lie at the corridor's ends
``(hallway_end + 1, mid -+ 2)``. The agent starts at ``(x, mid)`` with ``x ~ U[1, hallway_end]``
facing right. The cell next to the matching end object (``(hallway_end + 1, mid -+ 1)``) is
the success cell, the other one the failure cell. ``max_steps = 5 * size**2``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7); ``pickup`` acts as ``toggle`` (MiniGrid remaps it), so nothing
  can be picked up.
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the agent stands on the success cell after
  a step, else 0.
* termination: the agent stands on the success or the failure cell; truncation at
  ``max_steps``.
* mission: ``MEMORY`` with the success cell at ``(X, Y)`` and the failure cell at
  ``(X2, Y2)``.

Example:
    >>> env = horizax.make("MiniGrid-MemoryS13Random-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 2, jnp.int32))
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import events, missions, observations, rewards, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import mixed_radix, random_bits
from horizax.grid.state import State, make_state, walled_grid

# MiniGrid maps pickup to toggle before stepping; every other action is itself.
ACTION_MAP = (C.LEFT, C.RIGHT, C.FORWARD, C.TOGGLE, C.DROP, C.TOGGLE, C.DONE)
VARIANTS = {  # id suffix -> (size, random hallway length)
    "S17Random": (17, True),
    "S13Random": (13, True),
    "S13": (13, False),
    "S11": (11, False),
    "S9": (9, False),
    "S7": (7, False),
}


def memory_layout(size: int, random_length: bool) -> LayoutFn:
    """The layout function of MiniGrid's MemoryEnv.

    Every draw (hallway end, start object, order of the end objects, agent column) comes
    from one 32-bit word in mixed radix (modulo bias below 1e-7 relative). In the fixed
    variants ``hallway_end`` is a Python int, so every wall is a numpy constant and only the
    object kinds and the agent's column are traced; the Random variants select the walls
    that depend on the drawn ``hallway_end`` over the whole grid.

    Args:
        size: width and height (odd, >= 7).
        random_length: draw ``hallway_end ~ U[4, size-3]`` instead of fixing it at ``size-3``.

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution.

    Raises:
        ValueError: if ``size`` is even or below 7.
    """
    if size < 7 or size % 2 == 0:
        raise ValueError(f"Memory needs an odd size >= 7, got {size}")
    mid = size // 2
    upper, lower = mid - 2, mid + 2  # the start room's top and bottom walls
    base = walled_grid(size, size)
    base[1:5, upper] = C.WALL_CELL
    base[1:5, lower] = C.WALL_CELL
    base[4, upper + 1] = C.WALL_CELL
    base[4, lower - 1] = C.WALL_CELL
    xs = np.arange(size)[:, None]
    ys = np.arange(size)[None, :]
    hallway_rows = (ys == upper + 1) | (ys == lower - 1)
    start_cell = (xs == 1) & (ys == mid - 1)
    first_channel = np.arange(3) == 0
    green_cell = np.asarray((0, C.GREEN, 0), np.uint8)  # channel 0 (the kind) is drawn

    def layout(key: Array) -> State:
        word = random_bits(key)
        if random_length:
            # `_rand_int(4, width - 2)`.
            (end_digit,) = mixed_radix(word, size - 6)
            word = jax.lax.div(word, jnp.uint32(size - 6))
            hallway_end = 4 + end_digit
        else:
            # A Python int: the walls below are then numpy constants, so the fixed variants
            # compile no kernel for them.
            hallway_end = size - 3
        # The agent's `_rand_int(1, hallway_end + 1)`, then `_rand_elem([Key, Ball])` for the
        # start room and `_rand_elem([[Ball, Key], [Key, Ball]])` for the two ends.
        agent_digit, start_digit, order = mixed_radix(word, hallway_end, 2, 2)
        agent_pos = jnp.stack([1 + agent_digit, jnp.int32(mid)])
        start_kind = jnp.where(start_digit == 0, C.KEY, C.BALL)
        top_kind = jnp.where(order == 0, C.BALL, C.KEY)  # order 0: ball on top, key at the bottom
        bottom_kind = C.KEY + C.BALL - top_kind
        end_x = hallway_end + 1
        walls = (
            ((xs >= 5) & (xs < hallway_end) & hallway_rows)
            | ((xs == hallway_end) & (ys != mid))
            | (xs == hallway_end + 2)
        )
        top_cell = (xs == end_x) & (ys == mid - 2)
        bottom_cell = (xs == end_x) & (ys == mid + 2)
        kind = jnp.where(start_cell, start_kind, jnp.where(top_cell, top_kind, bottom_kind))
        is_object = (start_cell | top_cell | bottom_cell)[..., None]
        # Elementwise over (x, y, channel), with no stacking of channels: one simple fused
        # loop under `vmap` (a concatenate compiles to a kernel about twice as costly).
        # Fixed variants: the walls are numpy constants and only the kinds are traced.
        xnp = np if isinstance(walls, np.ndarray) else jnp
        grid = xnp.where(walls[..., None], np.asarray(C.WALL_CELL, np.uint8), base)
        object_cell = jnp.where(first_channel, kind[..., None].astype(jnp.uint8), green_cell)
        grid = jnp.where(is_object, object_cell, grid)
        matches_top = start_kind == top_kind
        success_y = jnp.where(matches_top, mid - 1, mid + 1)
        mission = missions.encode(
            missions.Template.MEMORY,
            pos=jnp.stack([end_x, success_y]),
            pos2=jnp.stack([end_x, 2 * mid - success_y]),
        )
        return make_state(grid, agent_pos, jnp.int32(0), mission=mission)

    return layout


REWARD = rewards.time_discounted(events.memory_success)
TERMINATION = terminations.compose(terminations.on_memory_success, terminations.on_memory_failure)


def _entry(suffix: str) -> tuple[str, object]:
    size, random_length = VARIANTS[suffix]
    name = f"MiniGrid-Memory{suffix}-v0"
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=5 * size**2,
        layout_fn=memory_layout(size, random_length),
        observation_fn=observations.symbolic_first_person,
        reward_fn=REWARD,
        termination_fn=TERMINATION,
        action_map=ACTION_MAP,
        # Not `layout_objects` (its pickup is a toggle: no action changes a cell): with the
        # writes skipped, XLA copies the whole grid around this select-based autoreset every
        # step, 10-15% slower at B = 1,024 for 0.3 s less compile.
        # A fixed-length layout is a few elementwise operations on one random word (its walls
        # are constants), so it fuses into the autoreset's select and compiles without the
        # rounds loop; the Random variants draw their walls, where the rounds are faster.
        autoreset_rounds=random_length,
    )


ENVIRONMENTS = dict(_entry(suffix) for suffix in VARIANTS)
ALIASES = navix_aliases(list(ENVIRONMENTS))
