"""The gridworld state: a dense MiniGrid-encoded grid plus the agent.

Everything a step needs is in `State`; events are not stored but derived each step from
``(prev_state, action, state)`` by `horizax.grid.events`, so they are per-step by construction.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass
from horizax.grid import cells, missions
from horizax.grid import constants as C


@pytree_dataclass
class State(Replaceable):
    """A gridworld state.

    Attributes:
        grid: u8[W, H, 3], MiniGrid encoding ``(object, colour, state)`` indexed ``[x, y]``;
            the agent is not drawn in it.
        agent_pos: i32[2], ``(x, y)``.
        agent_dir: i32[], 0 right, 1 down, 2 left, 3 up.
        carrying: u8[3], encoding of the carried object; ``(EMPTY, 0, 0)`` for empty hands.
        step_count: i32[], steps taken in this episode (MiniGrid's ``step_count``).
        max_steps: i32[], the episode's time limit, copied from the environment at reset so
            that reward functions such as MiniGrid's ``1 - 0.9 * step_count / max_steps``
            stay pure functions of ``(prev_state, action, state)``.
        mission: i32[10], the task's mission (template, colours, kinds, positions; see
            `horizax.grid.missions`); `missions.mission_text` renders MiniGrid's string.
        extra: the family's private state, a pytree of its own type that only its rules read
            (Dynamic-Obstacles keeps the order its balls move in); ``()`` for families with
            none. Its structure is fixed per family, so reset and step agree under `jit`.
        key: the episode's PRNG key: fixed during an episode, it seeds the next episode at
            autoreset and, folded with ``step_count``, any stochastic dynamics.
    """

    grid: Array
    agent_pos: Array
    agent_dir: Array
    carrying: Array
    step_count: Array
    max_steps: Array
    mission: Array
    extra: Any
    key: Array


def empty_hand() -> Array:
    """u8[3]: the encoding of an empty hand."""
    return jnp.asarray(C.EMPTY_CELL, dtype=jnp.uint8)


def make_state(
    grid: Array,
    agent_pos: Array,
    agent_dir: Array,
    key: Array | None = None,
    *,
    carrying: Array | None = None,
    mission: Array | None = None,
    extra: Any = (),
) -> State:
    """Builds a `State` at step 0 with canonical dtypes (the environment sets key and limit)."""
    return State(
        grid=jnp.asarray(grid, dtype=jnp.uint8),
        agent_pos=jnp.asarray(agent_pos, dtype=jnp.int32),
        agent_dir=jnp.asarray(agent_dir, dtype=jnp.int32),
        carrying=empty_hand() if carrying is None else jnp.asarray(carrying, jnp.uint8),
        step_count=jnp.int32(0),
        max_steps=jnp.int32(0),
        mission=(
            missions.encode(missions.Template.NONE)
            if mission is None
            else jnp.asarray(mission, jnp.int32)
        ),
        extra=extra,
        key=jax.random.PRNGKey(0) if key is None else key,
    )


def walled_grid(width: int, height: int) -> np.ndarray:
    """u8[W, H, 3] numpy grid: empty inside, walls on the border (MiniGrid's ``wall_rect``)."""
    grid = np.zeros((width, height, 3), dtype=np.uint8)
    grid[...] = C.EMPTY_CELL
    grid[0, :] = C.WALL_CELL
    grid[-1, :] = C.WALL_CELL
    grid[:, 0] = C.WALL_CELL
    grid[:, -1] = C.WALL_CELL
    return grid


def front_pos(state: State) -> Array:
    """i32[2]: the cell the agent faces (may be off-grid only if the agent is on the border)."""
    # Arithmetic rather than a lookup in DIR_TO_VEC: a gather per use under vmap on CPU.
    d = state.agent_dir
    dx = (d == 0).astype(jnp.int32) - (d == 2).astype(jnp.int32)
    dy = (d == 1).astype(jnp.int32) - (d == 3).astype(jnp.int32)
    return state.agent_pos + jnp.stack([dx, dy])


def cell_at(grid: Array, pos: Array) -> Array:
    """u8[3]: the encoding at ``pos``; off-grid positions read as a wall (MiniGrid's slice)."""
    inside, _, cell = cells.clamped_cell(grid, pos)
    return jnp.where(inside, cell[0, 0], jnp.asarray(C.WALL_CELL, dtype=grid.dtype))
