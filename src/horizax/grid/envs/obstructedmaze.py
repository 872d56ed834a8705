"""ObstructedMaze: find the blue ball behind locked, blocked doors and keys hidden in boxes.

MiniGrid's ``ObstructedMaze_1Dlhb`` (a 1 x 2 room grid), ``ObstructedMaze_Full`` (3 x 3) and
``ObstructedMaze_Full_V1`` on rooms of side 6. MiniGrid builds a layout in this order:

1. ``RoomGrid._gen_grid``: every room's walls, then one door slot per wall between two rooms,
   uniform among the 4 interior cells of that wall; the agent is parked at the centre of the
   middle room (the placeholder every object placed before the agent must keep a Manhattan
   distance >= 2 from).
2. The door colours: a uniform permutation ``c`` of the 6 colours (``_rand_subset``).
3. Doors. ``add_door(i, j, idx, colour, locked, key_in_box, blocked)`` puts a door of room
   ``(i, j)`` on its wall ``idx`` (0 right, 1 down, 2 left, 3 up), closed, or locked if
   ``locked``. If ``blocked`` a green ball is written on the cell of room ``(i, j)`` in front
   of the door (overwriting whatever is there); if ``locked`` a key of the door's colour, in a
   grey box when ``key_in_box``, is then placed uniformly in room ``(i, j)``. (The room's
   ``locked`` flag it also sets only matters to ``connect_all``, which is never called.)

   * 1D ids: one locked door ``c[0]`` on the right wall of room ``(0, 0)``.
   * 3 x 3 ids: for each quarter ``q < num_quarters`` with side room
     ``[(2, 1), (1, 2), (0, 1), (1, 0)][q]``: a closed (unlocked, never blocked) door ``c[q]``
     of the middle room on its wall ``q``, then the side room's two locked doors on its walls
     ``(q - 1) % 4`` and ``(q + 1) % 4``, coloured ``c[(q - 1) % 6]`` and ``c[(q + 1) % 6]``
     (so ``c[5]`` for ``q = 0``; colours repeat across quarters). v0 adds door, ball, key,
     then door, ball, key, so the second blocking ball may overwrite the first key or box (the
     bug v1 fixes); v1 adds both doors and balls first, then both keys.

4. The blue target ball, uniform in a room drawn uniformly from the first ``num_quarters``
   corners ``[(2, 0), (2, 2), (0, 2), (0, 0)]`` (room ``(1, 0)`` for the 1D ids, where the
   placeholder agent stands and its neighbourhood is rejected).
5. The agent, uniform over the (cell, direction) pairs of its room whose front cell is empty
   or a wall.

``max_steps = 4 * num_rooms_visited * 36``.

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``);
  boxes show state 0 whatever they hold.
* action: i32[] in [0, 7). Toggling a box leaves the key it holds.
* reward: f32[], ``1 - 0.9 * t / max_steps`` when the blue ball is picked up, else 0.
* termination: the blue ball is picked up (blocking balls, keys and boxes do not end the
  episode); truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-ObstructedMaze-2Dlh-v0")
    >>> ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 1024))
"""

from __future__ import annotations

import jax
from jax import Array

from horizax.grid import observations, rewards, terminations
from horizax.grid.environment import LayoutFn
from horizax.grid.envs.obstructedmaze_layout import (
    BLOCKER_COLOUR,
    BOX_COLOUR,
    BOX_WITH_KEY,
    ROOM_SIZE,
    TARGET_COLOUR,
    Config,
    generate,
    plan,
)
from horizax.grid.events import target_fetched
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.state import State

__all__ = [
    "BLOCKER_COLOUR",
    "BOX_COLOUR",
    "BOX_WITH_KEY",
    "CONFIGS",
    "ROOM_SIZE",
    "TARGET_COLOUR",
    "Config",
    "obstructed_maze_layout",
    "plan",
]


def obstructed_maze_layout(cfg: Config) -> LayoutFn:
    """The layout function of one ObstructedMaze variant.

    Built to be cheap to compile and run under `vmap` (the autoreset draws layouts at every
    step, and a rollout compiles three copies of the layout; see `obstructedmaze_layout`):
    one ``jax.random.split`` for all the random words, door slots read from their bits,
    every placement a uniform set bit of the 16-bit set of a room's admissible interior
    cells (`sampling.draw_bit`), one scatter writing the grid. Loops run over the static plan only.

    Args:
        cfg: the variant.

    Returns:
        ``key -> State`` drawing MiniGrid's layout distribution for that variant.
    """

    def layout(key: Array) -> State:
        return generate(cfg, key)

    # Jitted so that its Python tracing runs once, not once per copy: a rollout holds three
    # (the reset, and the autoreset's sparse and dense paths).
    return jax.jit(layout)


def _three_by_three(agent_room, key_in_box, blocked, quarters, visited, v1=False) -> Config:
    return Config(3, 3, agent_room, key_in_box, blocked, quarters, visited, v1)


CONFIGS: dict[str, Config] = {
    "MiniGrid-ObstructedMaze-1Dl-v0": Config(1, 2, (0, 0), False, False),
    "MiniGrid-ObstructedMaze-1Dlh-v0": Config(1, 2, (0, 0), True, False),
    "MiniGrid-ObstructedMaze-1Dlhb-v0": Config(1, 2, (0, 0), True, True),
    "MiniGrid-ObstructedMaze-2Dl-v0": _three_by_three((2, 1), False, False, 1, 4),
    "MiniGrid-ObstructedMaze-2Dlh-v0": _three_by_three((2, 1), True, False, 1, 4),
    "MiniGrid-ObstructedMaze-2Dlhb-v0": _three_by_three((2, 1), True, True, 1, 4),
    "MiniGrid-ObstructedMaze-1Q-v0": _three_by_three((1, 1), True, True, 1, 5),
    "MiniGrid-ObstructedMaze-2Q-v0": _three_by_three((2, 1), True, True, 2, 11),
    "MiniGrid-ObstructedMaze-Full-v0": _three_by_three((1, 1), True, True, 4, 25),
    "MiniGrid-ObstructedMaze-2Dlhb-v1": _three_by_three((2, 1), True, True, 1, 4, True),
    "MiniGrid-ObstructedMaze-1Q-v1": _three_by_three((1, 1), True, True, 1, 5, True),
    "MiniGrid-ObstructedMaze-2Q-v1": _three_by_three((2, 1), True, True, 2, 11, True),
    "MiniGrid-ObstructedMaze-Full-v1": _three_by_three((1, 1), True, True, 4, 25, True),
}


def _entry(env_id: str, cfg: Config) -> tuple[str, object]:
    rg = cfg.room_grid
    return env_id, factory(
        env_id,
        width=rg.width,
        height=rg.height,
        max_steps=cfg.max_steps,
        layout_fn=obstructed_maze_layout(cfg),
        observation_fn=observations.symbolic_first_person,
        reward_fn=rewards.time_discounted(target_fetched),
        termination_fn=terminations.on_target_fetched,
    )


ENVIRONMENTS = dict(_entry(env_id, cfg) for env_id, cfg in CONFIGS.items())
ALIASES = navix_aliases(list(ENVIRONMENTS))
