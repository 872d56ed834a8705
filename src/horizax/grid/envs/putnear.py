"""PutNear: pick up the named object and put it down next to another named object.

MiniGrid's PutNearEnv on a ``size`` x ``size`` walled room. ``num_objs`` objects with
pairwise distinct (kind, colour) -- kind among key, ball, box, colour among the six -- are
generated one after the other, each on a uniform empty interior cell that is not within one
cell (8-neighbourhood) of any object placed before it. The agent then starts on a uniform
empty cell facing a uniform direction. The object to move is a uniform one of them; the
target a uniform one of the others. Mission: "put the {c} {k} near the {c2} {k2}".
``max_steps = 5 * size`` (MiniGrid's own default, linear in ``size``).

* observation: u8[7, 7, 3] egocentric view without occlusion (``see_through_walls=True``).
* action: i32[] in [0, 7) (left, right, forward, pickup, drop; toggling a box removes it).
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the held object lands within one cell
  (``|dx| <= 1 and |dy| <= 1``) of the target's starting cell, else 0.
* termination: picking up anything but the object to move; any ``drop`` made while holding
  something, even one that fails because the front cell is occupied; truncation at
  ``max_steps``. A ``drop`` with empty hands does nothing.

Example:
    >>> env = horizax.make("MiniGrid-PutNear-6x6-N2-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
    >>> ts = jax.vmap(env.step)(ts, jnp.full(1024, 4, jnp.int32))
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid import events, missions, observations, rewards, terminations
from horizax.grid.cells import write_cell
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import empty_cells, mixed_radix, pick_cell, random_bits
from horizax.grid.state import State, make_state, walled_grid

KINDS = (C.KEY, C.BALL, C.BOX)  # MiniGrid's types order
NUM_PAIRS = len(KINDS) * C.NUM_COLORS
CONFIGS = ((6, 2), (8, 3))  # (size, num_objs) of the registered ids


def putnear_layout(size: int, num_objs: int) -> LayoutFn:
    """The layout function of MiniGrid's PutNearEnv.

    MiniGrid draws (kind, colour) pairs until it has ``num_objs`` distinct ones: the accepted
    sequence is a uniform draw without replacement from the 18 pairs, taken here as a rank
    among the pairs not yet used. Each cell is drawn from the empty cells minus the
    3 x 3 blocks around the objects already placed (MiniGrid's ``near_obj`` reject_fn);
    objects before the agent, as in MiniGrid. One `random_bits` call gives every draw.

    Args:
        size: width and height of the room, walls included.
        num_objs: number of objects (2 .. 18).

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution; the mission is
        ``Template.PUT_NEAR`` with the object to move in ``color``/``kind``, the target in
        ``color2``/``kind2`` and the target's cell in ``pos``.

    Raises:
        ValueError: if ``num_objs`` is out of range or the room may run out of cells (every
            object must find a cell whatever the earlier ones excluded).
    """
    if not 2 <= num_objs <= NUM_PAIRS:
        raise ValueError(f"PutNear needs 2 <= num_objs <= {NUM_PAIRS}, got {num_objs}")
    if (size - 2) ** 2 <= 9 * (num_objs - 1):
        raise ValueError(f"PutNear-{size}x{size} cannot always fit {num_objs} objects")
    base = walled_grid(size, size)
    xs = np.arange(size)[:, None]
    ys = np.arange(size)[None, :]

    def layout(key: Array) -> State:
        # jnp constants made here, not in the factory: building a layout must not start XLA.
        kinds_table = jnp.asarray(KINDS, jnp.int32)
        pair_ids = jnp.arange(NUM_PAIRS)
        bits = random_bits(key, (2 * num_objs + 2,))
        grid = jnp.asarray(base)
        unused = jnp.ones(NUM_PAIRS, bool)
        free = empty_cells(grid)  # empty and away from every object placed so far
        kinds, colours, cells = [], [], []
        for i in range(num_objs):
            rank = (bits[2 * i] % jnp.uint32(NUM_PAIRS - i)).astype(jnp.int32)
            pair = jnp.argmax(jnp.cumsum(unused) > rank)
            unused = unused & (pair_ids != pair)
            kind, colour = kinds_table[pair // C.NUM_COLORS], pair % C.NUM_COLORS
            pos = pick_cell(free, bits[2 * i + 1])
            grid = write_cell(grid, pos, jnp.stack([kind, colour, jnp.int32(0)]).astype(jnp.uint8))
            near = (jnp.abs(xs - pos[0]) <= 1) & (jnp.abs(ys - pos[1]) <= 1)
            free = free & ~near
            kinds.append(kind)
            colours.append(colour)
            cells.append(pos)
        agent_pos = pick_cell(empty_cells(grid), bits[2 * num_objs])
        direction, move, other = mixed_radix(bits[2 * num_objs + 1], 4, num_objs, num_objs - 1)
        target = other + (other >= move)  # uniform among the objects other than `move`
        kinds, colours = jnp.stack(kinds), jnp.stack(colours)
        mission = missions.encode(
            missions.Template.PUT_NEAR,
            color=colours[move],
            kind=kinds[move],
            color2=colours[target],
            kind2=kinds[target],
            pos=jnp.stack(cells)[target],
        )
        return make_state(grid, agent_pos, direction, mission=mission)

    return layout


def _entry(size: int, num_objs: int) -> tuple[str, object]:
    name = f"MiniGrid-PutNear-{size}x{size}-N{num_objs}-v0"
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=5 * size,
        layout_fn=putnear_layout(size, num_objs),
        observation_fn=observations.symbolic_first_person_see_through,
        see_through_walls=True,
        reward_fn=rewards.time_discounted(events.put_near_success),
        termination_fn=terminations.compose(
            terminations.on_put_near_wrong_pickup, terminations.on_put_near_drop_attempted
        ),
    )


ENVIRONMENTS = dict(_entry(size, num_objs) for size, num_objs in CONFIGS)
ALIASES = navix_aliases(list(ENVIRONMENTS))
