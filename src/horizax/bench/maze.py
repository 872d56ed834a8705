"""Maze adapters for the throughput harness: horizax's Maze and jumanji 1.1.2's.

Three programs, each ``make_rollout(B, T) -> (rollout_fn, key)`` (see ``harness.py``) and
re-exported by ``peers.py``:

* ``"autoreset"``: the standard harness rollout (`harness.make_scan_rollout`), random policy,
  autoreset on. jumanji: ``AutoResetWrapper(Maze(RandomGenerator(10, 10)))`` vmapped by the
  harness, which is exactly ``VmapAutoResetWrapper`` (``VmapWrapper`` is ``jax.vmap`` of the
  wrapped step); its ``lax.cond`` becomes a select under ``vmap``, so every environment
  draws a maze on every step. horizax: ``horizax.maze.AutoReset`` vmapped the same way
  (= ``VmapAutoReset``), whose ``reset_where`` draws mazes only for finished environments.
  Both reset inside the terminal step (LAST keeps the transition's reward and discount).
* ``"select"``: the same rollout, but both libraries' bare ``Maze`` under ONE autoreset
  written here (`_SelectAutoReset`: ``lax.cond`` on LAST, a select under ``vmap``, so every
  environment draws a maze on every step, as gymnax-style code that resets every step
  does). The next episode's key is ``split(state.key)[0]`` on both sides.
* ``"reset"``: reset-only throughput: a scan of ``T`` vmapped resets of ``B`` environments
  with fresh keys, each reset's observation reduced into the checksum; ``episodes`` counts
  the resets, so ``steps_per_s`` reads as resets per second.

Peer packages are imported inside the adapters. Run from the peer venv (jumanji==1.1.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from horizax.bench.harness import (
    MakeRollout,
    RolloutFn,
    make_scan_rollout,
    observation_checksum,
    state_bytes,
)

MAZE_SHAPE = (10, 10)
MAZE_MODES = ("autoreset", "select", "reset")
MAZE_AUTORESET = (
    "{lib}: reset inside the terminal step (LAST keeps reward and discount, the observation "
    "is the new episode's; the terminal one is in extras['next_obs'])"
)


def _reset_only_rollout(reset: Callable[[jax.Array], Any], B: int, T: int) -> RolloutFn:
    """``T`` rounds of ``B`` vmapped resets; returns (resets, observation checksum)."""
    batch_reset = jax.vmap(reset)

    def rollout(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        def body(total: jax.Array, round_key: jax.Array) -> tuple[jax.Array, None]:
            _, timestep = batch_reset(jax.random.split(round_key, B))
            return total + observation_checksum(timestep.observation), None

        total, _ = jax.lax.scan(body, jnp.int32(0), jax.random.split(key, T))
        return jnp.int32(B * T), total

    rollout.state_bytes_per_env = state_bytes(reset)  # type: ignore[attr-defined]
    return rollout


class _SelectAutoReset:
    """One autoreset for both libraries' bare Maze: on LAST, the state of a new episode from
    ``split(state.key)[0]`` and its first observation; the LAST step type, reward and
    discount are kept. Its ``lax.cond`` is a select under ``vmap``."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def reset(self, key: jax.Array) -> Any:
        return self.env.reset(key)

    def step(self, state: Any, action: jax.Array) -> Any:
        state, timestep = self.env.step(state, action)

        def new_episode(state: Any, timestep: Any) -> Any:
            state, first = self.env.reset(jax.random.split(state.key)[0])
            return state, timestep.replace(observation=first.observation)

        return jax.lax.cond(timestep.last(), new_episode, lambda s, t: (s, t), state, timestep)


def _maze_rollout(
    bare: Any, own_autoreset: Callable[[Any], Any], mode: str, B: int, T: int
) -> RolloutFn:
    """The rollout of ``mode`` for a bare env with jumanji's Maze API (reset/step/TimeStep);
    ``own_autoreset`` is the library's autoreset wrapper, used by mode "autoreset"."""
    if mode == "reset":
        return _reset_only_rollout(bare.reset, B, T)
    if mode not in MAZE_MODES:
        raise ValueError(f"unknown maze mode {mode!r}; expected one of {MAZE_MODES}")
    env = own_autoreset(bare) if mode == "autoreset" else _SelectAutoReset(bare)
    return make_scan_rollout(
        reset=env.reset,
        step=lambda carry, action: env.step(carry[0], action),
        observe=lambda carry: carry[1].observation,
        is_done=lambda carry: carry[1].last(),
        num_actions=4,
        batch_size=B,
        num_steps=T,
    )


def horizax_maze_make_rollout(mode: str, key_exact: bool = False) -> MakeRollout:
    """``make_rollout`` for horizax's ``Maze-v0`` (10x10) in ``mode`` (one of MAZE_MODES);
    with ``key_exact``, its `JumanjiRandomGenerator` instead of the default generator."""

    def make_rollout(B: int, T: int) -> tuple[RolloutFn, jax.Array]:
        import horizax
        from horizax.maze import AutoReset, JumanjiRandomGenerator

        generator = JumanjiRandomGenerator(*MAZE_SHAPE) if key_exact else None
        env = horizax.make(
            "Maze-v0", num_rows=MAZE_SHAPE[0], num_cols=MAZE_SHAPE[1], generator=generator
        )
        return _maze_rollout(env, AutoReset, mode, B, T), jax.random.PRNGKey(0)

    return make_rollout


def jumanji_maze_make_rollout(mode: str) -> MakeRollout:
    """``make_rollout`` for jumanji's ``Maze`` (10x10) in ``mode`` (one of MAZE_MODES)."""

    def make_rollout(B: int, T: int) -> tuple[RolloutFn, jax.Array]:
        from jumanji.environments.routing.maze.env import Maze
        from jumanji.environments.routing.maze.generator import RandomGenerator
        from jumanji.wrappers import AutoResetWrapper

        env = Maze(RandomGenerator(*MAZE_SHAPE))
        return _maze_rollout(env, AutoResetWrapper, mode, B, T), jax.random.PRNGKey(0)

    return make_rollout


def maze_info(lib: str, mode: str) -> dict[str, Any]:
    """Fields merged into every maze record (version, shapes, horizon, autoreset)."""
    from importlib import metadata

    try:
        version = metadata.version(lib)
    except metadata.PackageNotFoundError:
        version = "unknown"
    rows, cols = MAZE_SHAPE
    return {
        "library_version": version,
        # Flattened size, for the harness floor: walls R*C, 2 positions, mask 4, step count.
        "obs_shape": [rows * cols + 2 + 2 + 4 + 1],
        "obs_dtype": "int32",
        "obs_layout": "walls bool[R, C], agent/target int32 (row, col), mask bool[4], count",
        "num_actions": 4,
        "max_steps": rows * cols,
        "autoreset": {
            "autoreset": MAZE_AUTORESET.format(lib=lib),
            "select": "the benchmark's own select-based autoreset (the same for both)",
            "reset": "reset only",
        }[mode],
        "time_limit_ends_as": "truncation" if lib == "horizax" else "termination",
    }
