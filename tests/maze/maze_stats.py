"""Statistics of mazes for the tests: shortest-path distances, reachability, wall density."""

import jax
import jax.numpy as jnp
import numpy as np


def distances(walls: jax.Array, row: jax.Array, col: jax.Array) -> jax.Array:
    """i32[R, C] shortest-path length (4-neighbour moves) from (row, col); -1 if unreachable
    or a wall. Relaxes R * C times, enough for any simple path."""
    num_rows, num_cols = walls.shape
    far = num_rows * num_cols + 1
    dist = jnp.full(walls.shape, far, jnp.int32).at[row, col].set(0)

    def relax(_, d):
        pad = jnp.pad(d, 1, constant_values=far)
        up, down = pad[:-2, 1:-1], pad[2:, 1:-1]
        left, right = pad[1:-1, :-2], pad[1:-1, 2:]
        near = jnp.minimum(jnp.minimum(up, down), jnp.minimum(left, right))
        return jnp.where(walls, far, jnp.minimum(d, near + 1))

    dist = jax.lax.fori_loop(0, num_rows * num_cols, relax, dist)
    return jnp.where(dist >= far, -1, dist)


@jax.jit
def maze_statistics(walls, agent_row, agent_col, target_row, target_col):
    """Per maze (vmapped): fraction of free cells reachable from the agent, and the
    agent-target path distance."""

    def one(w, ar, ac, tr, tc):
        d = distances(w, ar, ac)
        free = ~w
        reachable = ((d >= 0) & free).sum() / free.sum()
        return reachable, d[tr, tc]

    return jax.vmap(one)(walls, agent_row, agent_col, target_row, target_col)


def summarize(states) -> dict[str, np.ndarray]:
    """Wall frequency per cell, reachable fractions and agent-target distances of a batch of
    maze states (horizax's or jumanji's: both have walls and row/col positions)."""
    reach, dist = maze_statistics(
        states.walls,
        states.agent_position.row,
        states.agent_position.col,
        states.target_position.row,
        states.target_position.col,
    )
    return {
        "wall_freq": np.asarray(states.walls).mean(axis=0),
        "reachable": np.asarray(reach),
        "distance": np.asarray(dist),
        "walls": np.asarray(states.walls),
    }
