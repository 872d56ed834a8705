"""A bare dense-array Fetch-8x8-N3 next to horizax's, in the same harness: the costly row's floor.

Issue 14's compile target asks Fetch-8x8-N3's whole rollout (`compare.py`) to compile in at
most a quarter of navix's time. As `probe_memory.py` does for MemoryS13, this probe bounds
what the Fetch task itself costs, written with nothing general, so that the part of horizax's
compile time that is its generality (grids, events, the episode engine) can be told from the
part any implementation of the task pays.

The probe plays ``horizax.make("MiniGrid-Fetch-8x8-N3-v0")`` with the full symbolic
observation, key for key:

* state: the episode key, the agent's position and direction, the step count, the three
  objects' cells, kinds and colours and whether each is still on the floor, the target's
  index, and the u8[8, 8, 3] observation;
* layout: horizax's draws (`horizax.core.threefry.random_bits` of the episode key, the cells
  by `horizax.grid.sampling.pick_interior_cells`, kinds, colours, direction and target by
  `horizax.grid.sampling.mixed_radix`), the walls and floor a numpy constant;
* step: left, right, forward and pickup act (drop, toggle and done do nothing to an agent
  that never carries anything into a step); forward is blocked by the border walls, tested
  by arithmetic, and by the objects still down; picking any object up ends the episode
  (with ``1 - 0.9 * t / 320`` when it has the target's kind and colour), 320 steps truncate
  it; NEXT_STEP autoreset (the step after a finished one draws the next episode from
  `horizax.core.episode_keys.next_episode_key`, as horizax's engine does), a select every
  step.

Both sides run `harness.make_scan_rollout` from the same key, so equal ``episodes`` and
``checksum`` show they played the same episodes. Run it alone on an idle machine, from the
peer venv for ``--navix``::

    python benchmarks/probe_fetch.py --batch 1 64 1024 8192 --steps 1000 --rounds 3 --navix

`compile_floor.py` compiles it in fresh processes next to horizax and navix, with its layout
drawn by Threefry (key for key with horizax) and by a cheap hash (``threefry=False``).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_rounds import harness_rollout, probe_main, side_by_side

SIZE, NUM_OBJS = 8, 3
MAX_STEPS = 5 * SIZE**2
WALL, EMPTY, AGENT = (2, 5, 0), (1, 0, 0), 10  # MiniGrid's encodings
KEY, BALL, NUM_COLORS = 5, 6, 6
LEFT, RIGHT, FORWARD, PICKUP = 0, 1, 2, 3


def _grid() -> np.ndarray:
    """u8[8, 8, 3]: MiniGrid's walled room, empty inside."""
    grid = np.empty((SIZE, SIZE, 3), np.uint8)
    grid[...] = EMPTY
    grid[[0, -1], :] = grid[:, [0, -1]] = WALL
    return grid


GRID = _grid()


class FetchProbeState(NamedTuple):
    """One environment: the episode key, i32[2] position, i32[] direction, i32[] steps, the
    objects' i32[3, 2] cells, i32[3] kinds and colours and bool[3] still down, the i32[]
    target index, bool[] ended, f32[] reward and the u8[8, 8, 3] observation (computed in
    the step, as horizax's timestep holds it)."""

    key: jax.Array
    pos: jax.Array
    direction: jax.Array
    t: jax.Array
    cells: jax.Array
    kinds: jax.Array
    colours: jax.Array
    down: jax.Array
    target: jax.Array
    done: jax.Array
    reward: jax.Array
    observation: jax.Array


def _words(key: jax.Array, threefry: bool) -> jax.Array:
    """u32[8]: the layout's random words; ``threefry=False``: a multiplicative hash of the
    key's data instead of the cipher (other layouts of the same task), to measure what the
    cipher costs the compile."""
    from horizax.core.threefry import random_bits

    if threefry:
        return random_bits(key, (2 * NUM_OBJS + 2,))
    data = jax.random.key_data(key)
    lanes = jnp.arange(1, 2 * NUM_OBJS + 3, dtype=jnp.uint32)
    mixed = (data[1] ^ (data[0] >> 7) ^ (lanes * jnp.uint32(0x85EBCA6B))) * jnp.uint32(0x9E3779B1)
    return mixed ^ (mixed >> 15)


def _layout(key: jax.Array, threefry: bool = True) -> tuple[jax.Array, ...]:
    """``(position, direction, cells, kinds, colours, target)`` of the episode drawn from
    ``key``: horizax's draws (`horizax.grid.envs.fetch.fetch_layout`)."""
    from horizax.grid.sampling import mixed_radix, pick_interior_cells

    bits = _words(key, threefry)
    cells = pick_interior_cells(
        jnp.concatenate([bits[1 : 2 * NUM_OBJS : 2], bits[2 * NUM_OBJS, None]]), SIZE, SIZE
    )
    kind_digit, colours = mixed_radix(bits[0 : 2 * NUM_OBJS : 2], 2, NUM_COLORS)
    direction, target, _ = mixed_radix(bits[2 * NUM_OBJS + 1], 4, NUM_OBJS, 5)  # 5 phrasings
    kinds = jnp.where(kind_digit == 0, KEY, BALL)
    return cells[NUM_OBJS], direction, cells[:NUM_OBJS], kinds, colours, target


def _observe(state: FetchProbeState) -> jax.Array:
    """u8[8, 8, 3]: the room with the objects still down and the agent as
    ``(AGENT, red, direction)``."""
    xs, ys = np.arange(SIZE)[:, None], np.arange(SIZE)[None, :]
    grid = jnp.asarray(GRID)
    for i in range(NUM_OBJS):
        here = (xs == state.cells[i, 0]) & (ys == state.cells[i, 1]) & state.down[i]
        cell = jnp.stack([state.kinds[i], state.colours[i], jnp.int32(0)]).astype(jnp.uint8)
        grid = jnp.where(here[..., None], cell, grid)
    agent = jnp.stack([jnp.int32(AGENT), jnp.int32(0), state.direction]).astype(jnp.uint8)
    return grid.at[state.pos[0], state.pos[1]].set(agent)


def probe_reset(key: jax.Array, threefry: bool = True) -> FetchProbeState:
    """The first state of the episode drawn from ``key`` (typed, `jax.random.key`)."""
    pos, direction, cells, kinds, colours, target = _layout(key, threefry)
    state = FetchProbeState(
        key, pos, direction, jnp.int32(0), cells, kinds, colours,
        jnp.ones(NUM_OBJS, jnp.bool_), target, jnp.bool_(False), jnp.float32(0), jnp.uint8(0),
    )  # fmt: skip
    return state._replace(observation=_observe(state))


def probe_step(state: FetchProbeState, action: jax.Array, threefry: bool = True) -> FetchProbeState:
    """Left, right, forward, pickup; a finished episode restarts, ignoring the action."""
    from horizax.core.episode_keys import next_episode_key

    turn = jnp.where(action == RIGHT, 1, 0) - jnp.where(action == LEFT, 1, 0)
    direction = (state.direction + turn) % 4
    d = state.direction
    step = jnp.stack([(d == 0).astype(jnp.int32) - (d == 2), (d == 1).astype(jnp.int32) - (d == 3)])
    front = state.pos + step
    facing = (state.cells == front).all(axis=-1) & state.down  # bool[3]: the object ahead
    inside = (front > 0).all() & (front < SIZE - 1).all()
    pos = jnp.where((action == FORWARD) & inside & ~facing.any(), front, state.pos)
    picked = (action == PICKUP) & facing  # at most one object is ahead
    same_kind = state.kinds == state.kinds[state.target]
    right = (picked & same_kind & (state.colours == state.colours[state.target])).any()
    t = state.t + 1
    ended = picked.any() | (t >= MAX_STEPS)
    stepped = state._replace(
        pos=pos,
        direction=direction,
        t=t,
        down=state.down & ~picked,
        done=ended,
        reward=jnp.where(right, 1 - 0.9 * t / MAX_STEPS, 0.0).astype(jnp.float32),
    )
    # NEXT_STEP autoreset, a select every step.
    fresh = probe_reset(next_episode_key(state.key), threefry)
    stepped = stepped._replace(observation=_observe(stepped))
    return jax.tree.map(lambda a, b: jnp.where(state.done, a, b), fresh, stepped)


def probe_rollout(batch: int, steps: int, threefry: bool = True) -> Any:
    """The probe's un-jitted harness rollout (actions drawn from MiniGrid's seven), called
    with a typed key; ``threefry=False``: `_words`' hash instead of the cipher."""
    return harness_rollout(
        functools.partial(probe_reset, threefry=threefry),
        functools.partial(probe_step, threefry=threefry),
        batch,
        steps,
    )


ENV_ID = "MiniGrid-Fetch-8x8-N3-v0"


# ``(batch, steps, navix=False) -> {side: rollout}``: horizax's, the probe's (and navix's).
rollouts = functools.partial(side_by_side, ENV_ID, probe_rollout)


def main(argv: list[str] | None = None) -> None:
    probe_main(argv, __doc__.split("\n")[0], rollouts, jax.random.key(0), "Fetch-8x8-N3")


if __name__ == "__main__":
    main()
