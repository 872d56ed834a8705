"""From a WFC solution to a MiniGrid level: MiniGrid's ``WFCEnv._gen_grid`` post-processing.

MiniGrid turns the ``(S, S)`` WFC output into a ``(S + 2, S + 2)`` level:

* a cell is a wall when its tile's red channel is 0 (`horizax.grid.wfc.patterns`), the
  output cell ``[x, y]`` becoming level cell ``(x + 1, y + 1)`` inside a wall border;
* only the largest 4-connected component of free cells is kept (``ensure_connected``), the
  rest is walled up. Components of equal size: the one holding the first cell in ``x``-major
  order (networkx enumerates components from its nodes in that order, and the size sort is
  stable);
* the agent and the goal take two distinct cells of it, uniformly (a permutation's first
  two), and the agent a uniform direction.

Where MiniGrid has no level, horizax still returns one: a solve that runs out of its budget
(`horizax.grid.wfc.solver`), or an output whose largest component has fewer than two cells
(MiniGrid raises IndexError), gives the open ``S x S`` room. Neither happened in 10,000
resets per id (``python benchmarks/wfc_reset.py --failures 10000``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.core.threefry import random_bits
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.cells import position_mask
from horizax.grid.sampling import pick_cell
from horizax.grid.state import State, make_state, walled_grid
from horizax.grid.wfc import solver
from horizax.grid.wfc.program import Program


def component_labels(free: Array) -> Array:
    """i32[S, S]: each free cell's 4-connected component, named by its first cell
    (``x * S + y``, the smallest index in it); ``S * S`` for walls.

    Minimum-label propagation with pointer jumping (each label jumps to its own cell's
    label), in a `lax.while_loop` that stops once no label moves; at most one pass per step
    of the longest shortest path, so it is bounded by ``S * S``.

    Args:
        free: bool[S, S], the cells that can be walked on, ``[x, y]``.
    """
    s = free.shape[0]
    none = s * s
    labels = jnp.where(free, jnp.arange(none, dtype=jnp.int32).reshape(s, s), none)

    def step(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        labels, _, passes = state
        padded = jnp.pad(labels, 1, constant_values=none)
        low = labels
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            low = jnp.minimum(low, padded[1 + dx : 1 + s + dx, 1 + dy : 1 + s + dy])
        low = jnp.where(free, low, none)
        table = jnp.append(low.reshape(-1), none)  # i32[S * S + 1]: walls point at `none`
        low = table[low]  # jump: a label never exceeds the label of the cell it names
        return low, (low != labels).any(), passes + 1

    def moving(state: tuple[Array, Array, Array]) -> Array:
        return state[1] & (state[2] < none)

    labels, _, _ = lax.while_loop(moving, step, (labels, jnp.bool_(True), jnp.int32(0)))
    return labels


def largest_component(free: Array) -> tuple[Array, Array]:
    """``(bool[S, S] cells of the largest component of free cells, i32[] its size)``; ties
    go to the component holding the first cell in ``x``-major order, as in MiniGrid."""
    s = free.shape[0]
    labels = component_labels(free).reshape(-1)
    sizes = jnp.zeros(s * s + 1, jnp.int32).at[labels].add(1)[: s * s]
    # One integer minimum, largest size first, then the smallest label.
    best = jnp.min(jnp.where(sizes > 0, (s * s - sizes) * (s * s) + jnp.arange(s * s), s**4))
    label = best % (s * s)
    return (labels == label).reshape(s, s) & free, sizes[label]


def layout(program: Program, key: Array) -> State:
    """A level of MiniGrid's ``WFCEnv`` drawn with ``key``: u8[S + 2, S + 2, 3] grid, the
    agent (i32[2], i32[]) and the goal on two distinct cells of the largest free component.
    """
    return generate(program, key)[0]


def generate(program: Program, key: Array) -> tuple[State, solver.Solution]:
    """`layout`'s level and the WFC solution it was made from (for tests and diagnostics)."""
    s = program.size
    solve_key, place_key = jax.random.split(key)
    solution = solver.solve(program, solve_key)
    free = ~jnp.asarray(program.pattern_walls)[solution.patterns]  # bool[S, S]
    kept, size = largest_component(free)
    ok = solution.solved & (size >= 2)
    kept = jnp.where(ok, kept, True)  # the fallback: the open room
    bits = random_bits(place_key, (3,))
    agent = pick_cell(kept, bits[0])
    goal = pick_cell(kept & ~position_mask(s, s, agent), bits[1])
    cell = {
        name: jnp.asarray(v, jnp.uint8)
        for name, v in (("empty", C.EMPTY_CELL), ("wall", C.WALL_CELL), ("goal", C.GOAL_CELL))
    }
    inside = jnp.where(kept[..., None], cell["empty"], cell["wall"])
    inside = jnp.where(position_mask(s, s, goal)[..., None], cell["goal"], inside)
    grid = jnp.asarray(walled_grid(s + 2, s + 2)).at[1:-1, 1:-1].set(inside)
    state = make_state(
        grid,
        agent + 1,
        (bits[2] % np.uint32(4)).astype(jnp.int32),
        mission=missions.encode(missions.Template.TRAVERSE_MAZE),
    )
    return state, solution
