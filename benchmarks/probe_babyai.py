"""A bare dense-array GoToLocal next to horizax's and MiniGrid's: how fast this CPU can go.

Issue 19 asks for BabyAI-GoToLocal at B = 1,024 to run at 1,000 times MiniGrid's own Python.
The probe does less than any faithful implementation of that level must, written as plainly
as arrays allow, so its speed bounds what any JAX program in this harness can reach here:

* state: the u8[8, 8, 3] grid, the agent's position and direction, the step count and the
  target's (kind, colour);
* reset: the agent on a uniform interior cell, eight objects of uniform kind and colour on
  uniform interior cells (collisions allowed: no "free cell" ranking, no reachability
  check, no rejection), the target one of them; the draws come from an integer hash of a
  per-environment counter, far cheaper than a real PRNG;
* step: left, right, forward into an empty cell; the four other actions do nothing (no
  carrying); success when the agent faces an object of the target's kind and colour
  (MiniGrid's "go to" check), reward ``1 - 0.9 t / 64``; truncation at 64 steps; the step
  after an ending starts the next episode (a select, no sparse rounds);
* observation: MiniGrid's u8[7, 7, 3] egocentric view with its occlusion (``process_vis``,
  done row by row through one table lookup per row, the fastest form found), no mission
  words.

Run it alone on an idle machine, with MiniGrid's own speed in the same sitting::

    python benchmarks/probe_babyai.py --batch 1024 --steps 500 --rounds 3 --minigrid-steps 20000

Tiers of the probe (``--tiers``) drop parts of it to show what each costs: ``probe`` (all of
the above), ``probe-no-resets`` (episodes end but never restart), ``probe-no-view`` (a
constant image), ``probe-moves-only`` (neither). It prints one JSON record per (round, side)
and a summary: each side's median and its ratio to MiniGrid's steps/s. Where even a tier
that skips part of the level is short of 1,000x, no program of this shape reaches it here.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from horizax.bench import harness

SIZE = 8  # GoToLocal's room, walls included
SIDE = SIZE - 2
VIEW = 7
OBJECTS = 8
MAX_STEPS = SIZE * SIZE
WALL, EMPTY = (2, 5, 0), (1, 0, 0)  # MiniGrid's encodings
KINDS = (5, 6, 7)  # key, ball, box
NUM_COLOURS = 6
NUM_ACTIONS = 7


def _occlusion_table() -> np.ndarray:
    """i32[2**14]: MiniGrid's ``process_vis`` for one view row, precomputed.

    Index ``seen * 128 + clear`` (bit i: column i of the row is already visible / lets the
    view through); value ``row | above << 7``: the row's visible columns after MiniGrid's
    left-to-right and right-to-left passes, and the columns they make visible in the row
    further from the agent.
    """
    table = np.zeros(1 << 14, np.int32)
    for seen in range(128):
        for clear in range(128):
            row = [bool(seen >> i & 1) for i in range(VIEW)]
            above = [False] * VIEW
            for i in range(VIEW - 1):
                if row[i] and clear >> i & 1:
                    row[i + 1] = above[i + 1] = above[i] = True
            for i in range(VIEW - 1, 0, -1):
                if row[i] and clear >> i & 1:
                    row[i - 1] = above[i - 1] = above[i] = True
            bits = sum(1 << i for i in range(VIEW) if row[i])
            up = sum(1 << i for i in range(VIEW) if above[i])
            table[seen * 128 + clear] = bits | up << 7
    return table


OCCLUSION = _occlusion_table()


class ProbeState(NamedTuple):
    """One environment (see the module docstring)."""

    grid: jax.Array  # u8[8, 8, 3]
    pos: jax.Array  # i32[2]
    direction: jax.Array  # i32[]
    t: jax.Array  # i32[]
    target: jax.Array  # i32[2]: kind, colour
    counter: jax.Array  # u32[]: the hash's input for the next layout
    done: jax.Array  # bool[]
    reward: jax.Array  # f32[]
    observation: jax.Array  # u8[7, 7, 3]


def _hash(x: jax.Array) -> jax.Array:
    """A 32-bit integer mix (multiply-xorshift): the probe's stand-in for a PRNG."""
    x = (x ^ (x >> 16)) * jnp.uint32(0x7FEB352D)
    x = (x ^ (x >> 15)) * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def _layout(counter: jax.Array) -> tuple[jax.Array, ...]:
    words = _hash(counter * jnp.uint32(32) + jnp.arange(2 + 3 * OBJECTS, dtype=jnp.uint32))
    digits = (words >> 8).astype(jnp.int32)
    cell = digits[0] % (SIDE * SIDE)
    pos = jnp.stack([1 + cell // SIDE, 1 + cell % SIDE])
    direction = digits[1] % 4
    kinds = jnp.asarray(KINDS, jnp.int32)[digits[2 : 2 + OBJECTS] % 3]
    colours = digits[2 + OBJECTS : 2 + 2 * OBJECTS] % NUM_COLOURS
    cells = digits[2 + 2 * OBJECTS :] % (SIDE * SIDE)
    cells = jnp.where(cells == cell, (cells + 1) % (SIDE * SIDE), cells)  # not the agent's
    grid = np.full((SIZE, SIZE, 3), WALL, np.uint8)
    grid[1:-1, 1:-1] = EMPTY
    objects = jnp.stack([kinds, colours, jnp.zeros_like(kinds)], -1).astype(jnp.uint8)
    grid = jnp.asarray(grid).at[1 + cells // SIDE, 1 + cells % SIDE].set(objects)
    target = jnp.stack([kinds[digits[1] % OBJECTS], colours[digits[1] % OBJECTS]])
    return grid, pos, direction, target


def _observe(grid: jax.Array, pos: jax.Array, direction: jax.Array) -> jax.Array:
    """u8[7, 7, 3]: MiniGrid's egocentric view (agent at (3, 6) facing up) with occlusion.

    One u32 word per cell (its three bytes), read at the 49 view cells; the words and the row
    lookups are materialised (`lax.optimization_barrier`): fused into the image's per-byte
    loop, XLA:CPU would recompute them for each byte.
    """
    dx = (direction == 0).astype(jnp.int32) - (direction == 2)
    dy = (direction == 1).astype(jnp.int32) - (direction == 3)
    i = jnp.arange(VIEW)[:, None]  # view column
    j = jnp.arange(VIEW)[None, :]  # view row; 6 is the agent's
    ahead, side = VIEW - 1 - j, i - VIEW // 2
    x = pos[0] + ahead * dx - side * dy
    y = pos[1] + ahead * dy + side * dx
    inside = (x >= 0) & (x < SIZE) & (y >= 0) & (y < SIZE)
    g = grid.astype(jnp.uint32)
    packed = (g[..., 0] | g[..., 1] << 8 | g[..., 2] << 16).reshape(-1)
    wall = jnp.uint32(WALL[0] | WALL[1] << 8)
    at = jnp.clip(x, 0, SIZE - 1) * SIZE + jnp.clip(y, 0, SIZE - 1)
    words = jax.lax.optimization_barrier(jnp.where(inside, packed[at], wall))
    weights = jnp.left_shift(1, jnp.arange(VIEW))[:, None]
    clear = jnp.sum(jnp.where((words & 0xFF) != WALL[0], weights, 0), 0)  # i32[7], per row
    table = jnp.asarray(OCCLUSION)
    seen, rows = jnp.int32(1 << VIEW // 2), []
    for row in range(VIEW - 1, -1, -1):
        out = table[seen * 128 + clear[row]]
        rows.append(out & 127)
        seen = out >> 7
    rows = jax.lax.optimization_barrier(jnp.stack(rows[::-1]))
    image = jnp.where((rows[None, :] & weights) != 0, words, jnp.uint32(0))
    return jnp.stack([(image >> s & 0xFF).astype(jnp.uint8) for s in (0, 8, 16)], -1)


def probe_reset(key: jax.Array) -> ProbeState:
    """A first layout from the key's bits (then the counter drives the next ones)."""
    counter = jax.random.bits(key, (), jnp.uint32)
    grid, pos, direction, target = _layout(counter)
    observation = _observe(grid, pos, direction)
    return ProbeState(
        grid,
        pos,
        direction,
        jnp.int32(0),
        target,
        counter + 1,
        jnp.bool_(False),
        jnp.float32(0),
        observation,
    )


def probe_step(
    state: ProbeState, action: jax.Array, *, resets: bool = True, observe: bool = True
) -> ProbeState:
    """One step; a finished episode restarts (its action ignored).

    ``resets=False`` never restarts (episodes end, the board plays on); ``observe=False``
    returns a constant image with the direction in it instead of the view: the probe's
    tiers, to see what each part costs.
    """
    turn = jnp.where(action == 1, 1, 0) - jnp.where(action == 0, 1, 0)
    direction = (state.direction + turn) % 4
    d = state.direction
    ahead = state.pos + jnp.stack(
        [(d == 0).astype(jnp.int32) - (d == 2), (d == 1).astype(jnp.int32) - (d == 3)]
    )
    free = state.grid[ahead[0], ahead[1], 0] == EMPTY[0]
    pos = jnp.where((action == 2) & free, ahead, state.pos)
    dx = (direction == 0).astype(jnp.int32) - (direction == 2)
    dy = (direction == 1).astype(jnp.int32) - (direction == 3)
    facing = state.grid[pos[0] + dx, pos[1] + dy, :2].astype(jnp.int32)
    t = state.t + 1
    success = jnp.all(facing == state.target)
    ended = success | (t >= MAX_STEPS)
    grid, new_pos, new_direction, target = _layout(state.counter)
    restart = state.done if resets else jnp.bool_(False)
    grid = jnp.where(restart, grid, state.grid)
    pos = jnp.where(restart, new_pos, pos)
    direction = jnp.where(restart, new_direction, direction)
    return ProbeState(
        grid=grid,
        pos=pos,
        direction=direction,
        t=jnp.where(restart, 0, t),
        target=jnp.where(restart, target, state.target),
        counter=state.counter + restart.astype(jnp.uint32),
        done=~restart & ended,
        reward=jnp.where(success & ~restart, 1 - 0.9 * t / MAX_STEPS, 0.0),
        observation=_observe(grid, pos, direction)
        if observe
        else jnp.full((VIEW, VIEW, 3), direction, jnp.uint8),
    )


TIERS = {  # name -> probe_step's options
    "probe": {},
    "probe-no-resets": {"resets": False},
    "probe-no-view": {"observe": False},
    "probe-moves-only": {"resets": False, "observe": False},
}


def rollouts(batch: int, steps: int, tiers: list[str]) -> dict[str, Any]:
    """The un-jitted harness rollouts: the probe's ``tiers`` and horizax's GoToLocal."""
    import horizax

    env = horizax.make("BabyAI-GoToLocal-v0")
    out = {
        tier: harness.make_scan_rollout(
            probe_reset,
            functools.partial(probe_step, **TIERS[tier]),
            lambda s: s.observation,
            lambda s: s.done,
            NUM_ACTIONS,
            batch,
            steps,
        )
        for tier in tiers
    }
    return out | {
        "horizax": harness.make_scan_rollout(
            env.reset,
            env.step,
            lambda ts: ts.observation,
            lambda ts: ts.is_done(),
            env.num_actions,
            batch,
            steps,
        ),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[1024])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--minigrid-steps", type=int, default=20000, help="0: skip MiniGrid")
    parser.add_argument("--tiers", nargs="+", default=list(TIERS), choices=list(TIERS))
    args = parser.parse_args(argv)
    minigrid = None
    if args.minigrid_steps:
        from babyai_levels import minigrid_row

        minigrid = minigrid_row("BabyAI-GoToLocal-v0", args.minigrid_steps)["steps_per_s"]
        print(json.dumps({"side": "minigrid", "steps_per_s": minigrid}), flush=True)
    from probe_rounds import timed_rounds  # beside this script, on its path when run

    speeds = timed_rounds(
        lambda batch: rollouts(batch, args.steps, args.tiers),
        args.batch,
        args.steps,
        args.rounds,
        jax.random.PRNGKey(0),
    )
    for batch in args.batch:
        summary: dict[str, Any] = {"B": batch, "jax": jax.__version__}
        for side in [*args.tiers, "horizax"]:
            summary[f"{side}_median"] = statistics.median(speeds[batch, side])
            if minigrid:
                summary[f"{side}_vs_minigrid"] = summary[f"{side}_median"] / minigrid
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
