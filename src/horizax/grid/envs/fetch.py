"""Fetch: pick up the key or ball the mission names, among a few look-alikes.

MiniGrid's FetchEnv on a ``size`` x ``size`` walled room. ``num_objs`` objects are generated
one after the other, each a key or a ball (uniform) of a uniform colour -- two objects may be
identical -- and placed on a uniform empty interior cell. The agent then starts on a uniform
empty cell facing a uniform direction. The target is a uniformly drawn one of the objects;
the mission names its colour and kind with one of five phrasings (`missions.FETCH_PHRASES`,
uniform), e.g. "go fetch a red ball". ``max_steps = 5 * size**2``.

* observation: u8[7, 7, 3] egocentric view without occlusion (``see_through_walls=True``).
* action: i32[] in [0, 7) (only left, right, forward and pickup do anything).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the object picked up has the mission's kind
  and colour (any duplicate of the target counts, as in MiniGrid), else 0.
* termination: any pickup, right or wrong; truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-Fetch-8x8-N3-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 3, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import events, missions, observations, rewards, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import mixed_radix, pick_interior_cells, random_bits
from horizax.grid.state import State, make_state, walled_grid

KINDS = (C.KEY, C.BALL)  # MiniGrid's obj_types order
CONFIGS = ((5, 2), (6, 2), (8, 3))  # (size, num_objs) of the registered ids


def fetch_layout(size: int, num_objs: int) -> LayoutFn:
    """The layout function of MiniGrid's FetchEnv.

    One `random_bits` call gives every draw: per object a word for kind and colour and a
    word for its cell, a word for the agent's cell and one for direction, target index and
    phrasing. Each cell is uniform among the empty interior cells left (`pick_interior_cells`,
    equal cell for cell to `pick_cell` on the empty mask), which is the accepted outcome of
    MiniGrid's rejection loop (the agent is placed last, so no object is ever rejected at its
    placeholder position). Drawing by rank arithmetic rather than over masks keeps the
    vmapped reset's compiled program small.

    Args:
        size: width and height of the room, walls included.
        num_objs: number of objects (>= 1).

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution; the mission is
        ``Template.FETCH`` with the target's ``color``, ``kind`` and phrasing ``variant``.

    Raises:
        ValueError: if the room's interior cannot hold the objects and the agent.
    """
    if num_objs < 1 or (size - 2) ** 2 < num_objs + 1:
        raise ValueError(f"Fetch needs 1 <= num_objs < (size-2)**2, got {size=}, {num_objs=}")
    # numpy, not jnp, constants: building a layout at import must not start XLA.
    base = walled_grid(size, size)
    xs = np.arange(size)[:, None]
    ys = np.arange(size)[None, :]

    def layout(key: Array) -> State:
        bits = random_bits(key, (2 * num_objs + 2,))
        # Objects first, then the agent, each on a uniform cell still empty (the room's
        # interior is empty before the first object, so the draws are `pick_interior_cells`).
        cells = pick_interior_cells(
            jnp.concatenate([bits[1 : 2 * num_objs : 2], bits[2 * num_objs, None]]), size, size
        )
        kind_digit, colour = mixed_radix(bits[0 : 2 * num_objs : 2], len(KINDS), C.NUM_COLORS)
        kind = jnp.where(kind_digit == 0, KINDS[0], KINDS[1])
        objects = jnp.stack([kind, colour, jnp.zeros_like(kind)], axis=-1).astype(jnp.uint8)
        grid = jnp.asarray(base)
        for i in range(num_objs):  # one elementwise select per object, fused into one pass
            here = (xs == cells[i, 0]) & (ys == cells[i, 1])
            grid = jnp.where(here[..., None], objects[i], grid)
        direction, target, variant = mixed_radix(
            bits[2 * num_objs + 1], 4, num_objs, len(missions.FETCH_PHRASES)
        )
        is_target = jnp.arange(num_objs) == target
        mission = missions.encode(
            missions.Template.FETCH,
            color=jnp.where(is_target, colour, 0).sum(),
            kind=jnp.where(is_target, kind, 0).sum(),
            variant=variant,
        )
        return make_state(grid, cells[num_objs], direction, mission=mission)

    return layout


def _entry(size: int, num_objs: int) -> tuple[str, object]:
    name = f"MiniGrid-Fetch-{size}x{size}-N{num_objs}-v0"
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=5 * size**2,
        layout_fn=fetch_layout(size, num_objs),
        observation_fn=observations.symbolic_first_person_see_through,
        see_through_walls=True,
        reward_fn=rewards.time_discounted(events.target_fetched),
        termination_fn=terminations.on_any_target_pickup,
    )


ENVIRONMENTS = dict(_entry(size, num_objs) for size, num_objs in CONFIGS)
ALIASES = navix_aliases(list(ENVIRONMENTS))
