"""GoToObject: stand next to the object named by the mission and say ``done``.

MiniGrid's GoToObjectEnv: a ``size`` x ``size`` walled room holding ``num_objs`` objects with
distinct (kind, colour) pairs, kinds among key/ball/box and colours among MiniGrid's six
(uniform over ordered distinct pairs: its redraw-on-repeat loop). Each object lies on a
uniform free interior cell, in drawing order; then the agent starts on a uniform free cell
(not on an object) facing a uniform direction, and the target is one of the objects,
uniformly. The mission reads "go to the {colour} {kind}". ``max_steps = 5 * size**2``.

* observation: u8[7, 7, 3] egocentric view without occlusion (``see_through_walls=True``).
* action: i32[] in [0, 7); pickup and drop work as everywhere in MiniGrid (objects can be
  carried away: the target position stays the one drawn at reset).
* reward: f32[], ``1 - 0.9 * t / max_steps`` for ``done`` while orthogonally next to the
  target's reset position (facing not required; diagonal does not count), else 0.
* termination: every ``done`` and every ``toggle`` end the episode (MiniGrid 3.2.0);
  truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-GoToObject-8x8-N2-v0")
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
from horizax.grid.state import State, make_state, walled_grid

KINDS = (C.KEY, C.BALL, C.BOX)  # MiniGrid's draw order of object types
NUM_PAIRS = len(KINDS) * C.NUM_COLORS  # 18 (kind, colour) pairs
VARIANTS = ((6, 2), (8, 2))  # (size, num_objs) of the registered ids


def gotoobject_layout(size: int, num_objs: int) -> LayoutFn:
    """The layout function of MiniGrid's GoToObjectEnv.

    One `random_bits` call for every draw. A (kind, colour) pair is a number in
    ``[0, 18)`` (kind-major, MiniGrid's type-then-colour draw) and an interior cell a number in
    ``[0, (size-2)**2)`` (x-major); "uniform among those not taken yet" is a rank draw mapped
    with `sampling.distinct`, so there are no masks, loops or scatters.

    Args:
        size: width and height of the room, walls included.
        num_objs: number of objects, in ``[1, 18]``.

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution. The mission holds the target's
        colour, kind and reset position.

    Raises:
        ValueError: if the pairs or the interior cells cannot accommodate the objects and
            the agent.
    """
    side = size - 2
    cells = side * side
    if not 1 <= num_objs <= NUM_PAIRS or cells < num_objs + 1:
        raise ValueError(
            f"GoToObject needs 1 <= num_objs <= {NUM_PAIRS} and (size-2)**2 > num_objs, "
            f"got size={size}, num_objs={num_objs}"
        )
    base = walled_grid(size, size)
    xs = np.arange(size)[:, None]
    ys = np.arange(size)[None, :]

    def layout(key: Array) -> State:
        pair_radices = [NUM_PAIRS - i for i in range(num_objs)]
        cell_radices = [cells - i for i in range(num_objs + 1)]  # objects, then the agent
        radices = [*pair_radices, *cell_radices, 4, num_objs]
        digits = draw_digits(key, radices, radices, budget=WIDE_DIGIT_BUDGET)
        pair_ranks = digits[:num_objs]
        cell_ranks = digits[num_objs : 2 * num_objs + 1]
        direction, target = digits[-2:]
        pairs = distinct(pair_ranks)
        *objects, agent = distinct(cell_ranks)

        grid = jnp.asarray(base)
        kinds = [C.KEY + pair // C.NUM_COLORS for pair in pairs]  # KEY, BALL, BOX are 5, 6, 7
        colours = [pair % C.NUM_COLORS for pair in pairs]
        for cell, kind, colour in zip(objects, kinds, colours, strict=True):
            at = (xs == 1 + cell // side) & (ys == 1 + cell % side)
            obj = jnp.stack([kind, colour, jnp.int32(0)]).astype(jnp.uint8)
            grid = jnp.where(at[..., None], obj, grid)

        def chosen(values: list[Array]) -> Array:
            return jnp.sum(jnp.where(jnp.arange(num_objs) == target, jnp.stack(values), 0))

        cell = chosen(objects)
        mission = missions.encode(
            missions.Template.GO_TO_OBJECT,
            color=chosen(colours),
            kind=chosen(kinds),
            pos=jnp.stack([1 + cell // side, 1 + cell % side]),
        )
        agent_pos = jnp.stack([1 + agent // side, 1 + agent % side])
        return make_state(grid, agent_pos, direction, mission=mission)

    return layout


def _entry(size: int, num_objs: int) -> tuple[str, object]:
    name = f"MiniGrid-GoToObject-{size}x{size}-N{num_objs}-v0"
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=5 * size**2,
        layout_fn=gotoobject_layout(size, num_objs),
        observation_fn=observations.symbolic_first_person_see_through,
        see_through_walls=True,
        reward_fn=rewards.time_discounted(events.target_done),
        termination_fn=compose(
            terminations.on_target_done,
            terminations.on_wrong_toggle,
            terminations.on_done_action,
        ),
    )


ENVIRONMENTS = dict(_entry(size, num_objs) for size, num_objs in VARIANTS)
ALIASES = navix_aliases(list(ENVIRONMENTS))
