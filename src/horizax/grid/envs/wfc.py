"""WFC: reach the goal in a level made by wave function collapse from a small pattern image.

MiniGrid's ``WFCEnv`` with its six registered presets (``MiniGrid-WFC-<preset>-v0``): the
overlapping WFC model (`horizax.grid.wfc`) learns ``k x k`` patterns from the preset's image
(MiniGrid's pattern files, shipped with horizax) and fills a 23 x 23 output, the level's
interior inside a wall border (25 x 25); only the largest 4-connected free area is kept, the
agent and the green goal on two distinct uniform cells of it, the agent facing a uniform
direction. WFC contradictions restart the solve inside the same fixed-shape loop, within a
static budget (`horizax.grid.wfc.solver`). The levels follow MiniGrid's distribution, not its
RNG stream. ``max_steps = 500`` (MiniGrid's ``size * 20``). Mission "traverse the maze to get
to the goal".

==========================  ================  =======  =================
id (``MiniGrid-WFC-*-v0``)  pattern image     pattern  output wraps
==========================  ================  =======  =================
MazeSimple                  SimpleMaze.png    2 x 2    no
DungeonMazeScaled           ScaledMaze.png    2 x 2    yes
RoomsFabric                 Fabric.png        3 x 3    no
ObstaclesBlackdots          Blackdots.png     2 x 2    no
ObstaclesAngular            Angular.png       3 x 3    yes
ObstaclesHogs3              Hogs.png          3 x 3    yes
==========================  ================  =======  =================

* observation: u8[7, 7, 3] egocentric view with occlusion (``see_through_walls=False``).
* action: i32[] in [0, 7) (only left, right and forward matter).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal, else 0.
* termination: goal reached; truncation at ``max_steps``.

The pattern images are read, and the solver's tables built, on the first reset of a preset
(traced once per preset and process), not at import.

Example:
    >>> env = horizax.make("MiniGrid-WFC-MazeSimple-v0")
    >>> ts = env.reset(jax.random.PRNGKey(0))
    >>> ts = env.step(ts, jnp.int32(2))
"""

from __future__ import annotations

import functools

from jax import Array

from horizax.grid import observations
from horizax.grid.environment import LayoutFn
from horizax.grid.registration import factory
from horizax.grid.state import State
from horizax.grid.wfc import level, patterns, presets
from horizax.grid.wfc import program as wfc_program

SIZE = 25  # MiniGrid's default size: a 23 x 23 WFC output inside the wall border
MAX_STEPS = SIZE * 20  # MiniGrid's max_steps default
# The solver's block (side, Jacobi sweeps per iteration) per preset: the fastest of a few
# tried at a batch of 1024 on a 2-core CPU. Any values give the same levels (they only
# schedule the propagation; tests/grid/wfc/test_generator.py checks it).
TUNING = {
    "MazeSimple": (7, 4),
    "DungeonMazeScaled": (5, 3),
    "RoomsFabric": (7, 5),
    "ObstaclesBlackdots": (5, 3),
    "ObstaclesAngular": (7, 4),
    "ObstaclesHogs3": (7, 4),
}
# Loop iterations per reset, restarts included. An attempt took at most 881 of them in
# 10,000 resets per id (benchmarks/wfc_reset.py --failures), so this leaves room for at
# least 9; attempts contradict under 1e-3 of the time.
MAX_ITERATIONS = 8000


@functools.cache
def program(name: str) -> wfc_program.Program:
    """The solver constants of preset ``name`` (built on first use, then cached)."""
    preset = presets.PRESETS[name]
    window, sweeps = TUNING[name]
    return wfc_program.build(
        patterns.tables(name),
        SIZE - 2,
        preset.periodic_output,
        window=window,
        sweeps=sweeps,
        max_iterations=MAX_ITERATIONS,
    )


def wfc_layout(preset: presets.Preset) -> LayoutFn:
    """The layout function of MiniGrid's ``WFCEnv`` with ``preset``.

    The closure holds the preset itself, flags included, so that the ids whose solvers run
    different code (a wrapping output or not) tell apart (tests/code_families.py).
    """

    def layout(key: Array) -> State:
        return level.layout(program(preset.name), key)

    return layout


ENVIRONMENTS = {
    f"MiniGrid-WFC-{name}-v0": factory(
        f"MiniGrid-WFC-{name}-v0",
        width=SIZE,
        height=SIZE,
        max_steps=MAX_STEPS,
        layout_fn=wfc_layout(preset),
        observation_fn=observations.symbolic_first_person,
    )
    for name, preset in presets.PRESETS.items()
}
