"""A bare dense-array Empty-8x8 next to horizax's, in the same harness: the ceiling of a step.

The probe plays MiniGrid's Empty-8x8 exactly as ``horizax.make("MiniGrid-Empty-8x8-v0")``
does with the full symbolic observation, but with nothing general: a constant grid, the
agent's position, direction and step count as the whole state, only the three moving
actions checked (the other four do nothing in an empty room), the goal reward, truncation at
256 steps and NEXT_STEP autoreset (the step after a finished one returns the first
observation of a new episode). Both sides run `harness.make_scan_rollout` from the same key,
so equal ``episodes`` and ``checksum`` show they played the same rollouts; the ratio
``horizax / probe`` is what horizax's generality (layouts, events, the episode engine, the
sparse reset) costs on the cheapest task. Run it alone on an idle machine::

    python benchmarks/probe_empty.py --batch 1 64 1024 8192 --steps 1000 --rounds 3

``--navix`` (from the peer venv) times navix's Empty-8x8 with its full symbolic observation
in the same rounds (its own rollouts: navix draws its actions from its own action set). It
prints one JSON record per (round, batch size, side) and a summary line per batch size.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_rounds import harness_rollout, probe_main, side_by_side

SIZE = 8
MAX_STEPS = 4 * SIZE**2
WALL, EMPTY, GOAL, AGENT = (2, 5, 0), (1, 0, 0), (8, 1, 0), 10  # MiniGrid's encodings
START = (1, 1)


def _grid() -> np.ndarray:
    grid = np.empty((SIZE, SIZE, 3), np.uint8)
    grid[...] = WALL
    grid[1:-1, 1:-1] = EMPTY
    grid[SIZE - 2, SIZE - 2] = GOAL
    return grid


GRID = _grid()


class ProbeState(NamedTuple):
    """One environment: i32[2] position, i32[] direction, i32[] steps, bool[] ended, f32[]
    reward and the u8[8, 8, 3] observation (computed in the step, as horizax's timestep
    holds it)."""

    pos: jax.Array
    direction: jax.Array
    t: jax.Array
    done: jax.Array
    reward: jax.Array
    observation: jax.Array


def probe_reset(key: jax.Array) -> ProbeState:
    """The fixed start: Empty-8x8's layout does not depend on the key."""
    del key
    pos, direction = jnp.array(START, jnp.int32), jnp.int32(0)
    observation = _observe(pos, direction)
    return ProbeState(pos, direction, jnp.int32(0), jnp.bool_(False), jnp.float32(0), observation)


def probe_step(state: ProbeState, action: jax.Array) -> ProbeState:
    """Left (0), right (1), forward (2); a finished episode restarts, ignoring the action."""
    turn = jnp.where(action == 1, 1, 0) - jnp.where(action == 0, 1, 0)
    direction = (state.direction + turn) % 4
    # Arithmetic, not table lookups: gathers are the slow path of a vmapped CPU step.
    d = state.direction
    step = jnp.stack([(d == 0).astype(jnp.int32) - (d == 2), (d == 1).astype(jnp.int32) - (d == 3)])
    front = state.pos + step
    inside = jnp.all((front >= 1) & (front <= SIZE - 2))  # the room's walls are its border
    forward = action == 2
    pos = jnp.where(forward & inside, front, state.pos)
    t = state.t + 1
    terminated = forward & jnp.all(front == SIZE - 2)  # the goal's cell
    ended = terminated | (t >= MAX_STEPS)
    pos = jnp.where(state.done, jnp.array(START, jnp.int32), pos)
    direction = jnp.where(state.done, 0, direction)
    return ProbeState(
        pos=pos,
        direction=direction,
        t=jnp.where(state.done, 0, t),
        done=~state.done & ended,
        reward=jnp.where(terminated & ~state.done, 1 - 0.9 * t / MAX_STEPS, 0.0),
        observation=_observe(pos, direction),
    )


def _observe(pos: jax.Array, direction: jax.Array) -> jax.Array:
    """u8[8, 8, 3]: the grid with the agent as ``(AGENT, red, direction)``."""
    agent = jnp.stack([jnp.int32(AGENT), jnp.int32(0), direction]).astype(jnp.uint8)
    return jnp.asarray(GRID).at[pos[0], pos[1]].set(agent)


def probe_rollout(batch: int, steps: int) -> Any:
    """The probe's un-jitted harness rollout (actions drawn from MiniGrid's seven)."""
    return harness_rollout(probe_reset, probe_step, batch, steps)


def rollouts(batch: int, steps: int, navix: bool = False) -> dict[str, Any]:
    """The un-jitted harness rollouts of horizax, the probe (and navix if asked)."""
    return side_by_side("MiniGrid-Empty-8x8-v0", probe_rollout, batch, steps, navix)


def main(argv: list[str] | None = None) -> None:
    probe_main(argv, __doc__.split("\n")[0], rollouts, jax.random.PRNGKey(0), "Empty-8x8")


if __name__ == "__main__":
    main()
