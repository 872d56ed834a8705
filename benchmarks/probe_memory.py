"""A bare dense-array MemoryS13 next to horizax's, in the same harness: the costly row's floor.

Issue 14's compile target asks MemoryS13's whole rollout (`compare.py`) to compile in at most
a quarter of navix's time. `probe_empty.py` bounds what the harness alone costs; this probe
bounds what the Memory task itself costs, written with nothing general, so that the part of
horizax's compile time that is its generality (layouts, events, the episode engine) can be
told from the part any implementation of the task pays.

The probe plays ``horizax.make("MiniGrid-MemoryS13-v0")`` with the full symbolic
observation, key for key:

* state: the episode key, the agent's position and direction, the step count, the two drawn
  object kinds (the start room's; the corridor's top one, the bottom one being the other
  kind), and the u8[13, 13, 3] observation;
* layout: horizax's draws (`horizax.core.threefry.random_bits` of the episode key, digits
  of MiniGrid's agent column, start object and end order by `horizax.grid.sampling.
  mixed_radix`), the walls and floor a numpy constant;
* step: only left, right and forward act (MiniGrid's Memory turns pickup into toggle, which
  does nothing to a key or ball, and the agent never carries anything); forward checks the
  front cell against the walkable cells by arithmetic (no grid is read); the success and
  failure cells end the episode, 845 steps truncate it; NEXT_STEP autoreset (the step after
  a finished one draws the next episode from `horizax.core.episode_keys.next_episode_key`,
  as horizax's engine does), a select every step as horizax's MemoryS13 uses.

Both sides run `harness.make_scan_rollout` from the same key, so equal ``episodes`` and
``checksum`` show they played the same episodes. Run it alone on an idle machine, from the
peer venv for ``--navix``::

    python benchmarks/probe_memory.py --batch 1 64 1024 8192 --steps 1000 --rounds 3 --navix

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

SIZE = 13
MID = SIZE // 2
HALLWAY_END = SIZE - 3  # the fixed-length variant's
END_X = HALLWAY_END + 1  # the corridor at the hallway's end
MAX_STEPS = 5 * SIZE**2
WALL, EMPTY, AGENT = (2, 5, 0), (1, 0, 0), 10  # MiniGrid's encodings
KEY, BALL, GREEN = 5, 6, 1
START_OBJECT, TOP_OBJECT, BOTTOM_OBJECT = (1, MID - 1), (END_X, MID - 2), (END_X, MID + 2)


def _grid() -> np.ndarray:
    """u8[13, 13, 3]: MiniGrid's walls and floor; the object cells green, their kind left 0."""
    grid = np.empty((SIZE, SIZE, 3), np.uint8)
    grid[...] = EMPTY
    grid[[0, -1], :] = grid[:, [0, -1]] = WALL
    upper, lower = MID - 2, MID + 2  # the start room's top and bottom walls
    grid[1:5, [upper, lower]] = WALL
    grid[4, [upper + 1, lower - 1]] = WALL
    grid[5:HALLWAY_END, [upper + 1, lower - 1]] = WALL  # the hallway's sides
    grid[HALLWAY_END, np.arange(SIZE) != MID] = WALL
    grid[HALLWAY_END + 2, :] = WALL
    for x, y in (START_OBJECT, TOP_OBJECT, BOTTOM_OBJECT):
        grid[x, y] = (0, GREEN, 0)
    return grid


GRID = _grid()


class MemoryProbeState(NamedTuple):
    """One environment: the episode key, i32[2] position, i32[] direction, i32[] steps,
    i32[] start and top object kinds, bool[] ended, f32[] reward and the u8[13, 13, 3]
    observation (computed in the step, as horizax's timestep holds it)."""

    key: jax.Array
    pos: jax.Array
    direction: jax.Array
    t: jax.Array
    start_kind: jax.Array
    top_kind: jax.Array
    done: jax.Array
    reward: jax.Array
    observation: jax.Array


def _layout(key: jax.Array, threefry: bool = True) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(position, start kind, top kind)`` of the episode drawn from ``key``, horizax's
    draws (`horizax.grid.envs.memory.memory_layout` with a fixed hallway).

    ``threefry=False`` takes the random word from a multiplicative hash of the key's data
    instead of Threefry: other layouts (the same distribution, up to the hash's quality),
    to measure what the cipher costs the compile.
    """
    from horizax.core.threefry import random_bits
    from horizax.grid.sampling import mixed_radix

    if threefry:
        word = random_bits(key)
    else:
        data = jax.random.key_data(key)
        word = (data[1] ^ (data[0] >> 7)) * jnp.uint32(0x9E3779B1)
    agent, start, order = mixed_radix(word, HALLWAY_END, 2, 2)
    pos = jnp.stack([1 + agent, jnp.int32(MID)])
    return pos, jnp.where(start == 0, KEY, BALL), jnp.where(order == 0, BALL, KEY)


def probe_reset(key: jax.Array, threefry: bool = True) -> MemoryProbeState:
    """The first state of the episode drawn from ``key`` (typed, `jax.random.key`)."""
    pos, start_kind, top_kind = _layout(key, threefry)
    direction = jnp.int32(0)
    observation = _observe(pos, direction, start_kind, top_kind)
    return MemoryProbeState(
        key, pos, direction, jnp.int32(0), start_kind, top_kind, jnp.bool_(False),
        jnp.float32(0), observation,
    )  # fmt: skip


def _walkable(cell: jax.Array) -> jax.Array:
    """bool[]: ``cell`` is floor the agent can step on (tested only next to where it can be)."""
    x, y = cell[0], cell[1]
    start_object = (x == START_OBJECT[0]) & (y == START_OBJECT[1])
    start_room = (x >= 1) & (x <= 3) & (y >= MID - 1) & (y <= MID + 1) & ~start_object
    hallway = (y == MID) & (x >= 1) & (x <= END_X)
    corridor = (x == END_X) & (y >= 1) & (y <= SIZE - 2) & (y != MID - 2) & (y != MID + 2)
    return start_room | hallway | corridor


def probe_step(
    state: MemoryProbeState, action: jax.Array, threefry: bool = True
) -> MemoryProbeState:
    """Left (0), right (1), forward (2); a finished episode restarts, ignoring the action."""
    from horizax.core.episode_keys import next_episode_key

    turn = jnp.where(action == 1, 1, 0) - jnp.where(action == 0, 1, 0)
    direction = (state.direction + turn) % 4
    d = state.direction
    step = jnp.stack([(d == 0).astype(jnp.int32) - (d == 2), (d == 1).astype(jnp.int32) - (d == 3)])
    front = state.pos + step
    pos = jnp.where((action == 2) & _walkable(front), front, state.pos)
    t = state.t + 1
    success_y = jnp.where(state.start_kind == state.top_kind, MID - 1, MID + 1)
    at_end = pos[0] == END_X
    success = at_end & (pos[1] == success_y)
    terminated = success | (at_end & (pos[1] == 2 * MID - success_y))
    ended = terminated | (t >= MAX_STEPS)
    # NEXT_STEP autoreset, a select every step.
    key = jnp.where(state.done, next_episode_key(state.key), state.key)
    new_pos, new_start, new_top = _layout(key, threefry)
    pos = jnp.where(state.done, new_pos, pos)
    direction = jnp.where(state.done, 0, direction)
    start_kind = jnp.where(state.done, new_start, state.start_kind)
    top_kind = jnp.where(state.done, new_top, state.top_kind)
    return MemoryProbeState(
        key=key,
        pos=pos,
        direction=direction,
        t=jnp.where(state.done, 0, t),
        start_kind=start_kind,
        top_kind=top_kind,
        done=~state.done & ended,
        reward=jnp.where(success & ~state.done, 1 - 0.9 * t / MAX_STEPS, 0.0),
        observation=_observe(pos, direction, start_kind, top_kind),
    )


def _observe(
    pos: jax.Array, direction: jax.Array, start_kind: jax.Array, top_kind: jax.Array
) -> jax.Array:
    """u8[13, 13, 3]: the grid with its three objects' kinds and the agent as
    ``(AGENT, red, direction)``."""
    grid = jnp.asarray(GRID)
    for (x, y), kind in (
        (START_OBJECT, start_kind),
        (TOP_OBJECT, top_kind),
        (BOTTOM_OBJECT, KEY + BALL - top_kind),
    ):
        grid = grid.at[x, y, 0].set(kind.astype(jnp.uint8))
    agent = jnp.stack([jnp.int32(AGENT), jnp.int32(0), direction]).astype(jnp.uint8)
    return grid.at[pos[0], pos[1]].set(agent)


def probe_rollout(batch: int, steps: int, threefry: bool = True) -> Any:
    """The probe's un-jitted harness rollout (actions drawn from MiniGrid's seven), called
    with a typed key; ``threefry=False``: `_layout`'s hash instead of the cipher."""
    return harness_rollout(
        functools.partial(probe_reset, threefry=threefry),
        functools.partial(probe_step, threefry=threefry),
        batch,
        steps,
    )


ENV_ID = "MiniGrid-MemoryS13-v0"


# ``(batch, steps, navix=False) -> {side: rollout}``: horizax's, the probe's (and navix's).
rollouts = functools.partial(side_by_side, ENV_ID, probe_rollout)


def main(argv: list[str] | None = None) -> None:
    probe_main(argv, __doc__.split("\n")[0], rollouts, jax.random.key(0), "MemoryS13")


if __name__ == "__main__":
    main()
