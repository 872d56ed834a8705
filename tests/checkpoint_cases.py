"""Mid-episode resume cases for tests/test_checkpoint.py, one per family, batched and not.

Each case is a jitted step over the whole tree a user would checkpoint (the gridworld's
`Timestep`, the Maze's ``(State, TimeStep)``, the engine's `FunctionalTimestep` around the
orbital ``EnvState``, the engine's ``(Episode, Step, Final)`` of the Gymnasium vector path),
with time limits short enough that an episode ends, and the next starts, after the save.
The test runs `N` steps, saves, and runs `M` more; `main` is the fresh process that loads the
saved tree and runs the same `M` steps. It starts with the test and compiles its steps from
shapes alone while the test computes, then loads each checkpoint once `save` has renamed it
into place (a checkpoint's name appears only when it is complete).
"""

from __future__ import annotations

import dataclasses
import pathlib
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from horizax import checkpoint

N, M = 3, 6  # steps before the save, steps after it (each case's time limit is 4 or 5)
B = 3  # the batched cases' batch


@dataclasses.dataclass(frozen=True)
class Case:
    """One resumable run.

    Attributes:
        name: the case's name (and its files' stem).
        env_id: the id recorded in the checkpoint and checked on load.
        start: ``() -> tree``, the first tree.
        step: ``(tree, action) -> tree``, a `jax.jit` function.
        actions: the N + M actions, drawn once from a fixed numpy seed.
        ended: ``tree -> bool array``, where the step that made ``tree`` ended an episode.
    """

    name: str
    env_id: str
    start: Callable[[], Any]
    step: Any
    actions: list[Any]
    ended: Callable[[Any], Any]

    def like(self) -> Any:
        """The tree's shapes and dtypes, from tracing alone (what a fresh process has)."""
        return jax.eval_shape(lambda action: self.step(self.start(), action), self.actions[0])


def _discrete(n: int, batch: int | None, seed: int) -> list[Any]:
    shape = () if batch is None else (batch,)
    draws = np.random.default_rng(seed).integers(0, n, (N + M, *shape))
    return [jnp.asarray(a, jnp.int32) for a in draws]


def _jitted(env: Any, key: Any, batch: int | None) -> tuple[Any, Any]:
    """``(start, step)``: jitted ``reset(key)`` and ``step`` of ``env``, alone or vmapped over a
    batch of keys split from ``key``."""
    if batch is None:
        return jax.jit(lambda: env.reset(key)), jax.jit(env.step)
    keys = jax.random.split(key, batch)
    return jax.jit(lambda: jax.vmap(env.reset)(keys)), jax.jit(jax.vmap(env.step))


def _grid(batch: int | None) -> Case:
    env = horizax.make("MiniGrid-DoorKey-5x5-v0", max_steps=5)
    key = jax.random.key(7)  # typed keys live in the gridworld's State
    start, step = _jitted(env, key, batch)
    return Case(
        f"grid-{batch or 1}",
        env.env_id,
        start,
        step,
        _discrete(7, batch, 1),
        lambda ts: np.asarray(ts.step_type) != 0,
    )


def _maze(batch: int | None) -> Case:
    from horizax.maze import AutoReset, VmapAutoReset

    maze = horizax.make("Maze-v0", num_rows=5, num_cols=5, time_limit=4)
    key = jax.random.PRNGKey(3)  # jumanji's raw u32[2] keys
    if batch is None:
        env = AutoReset(maze)
        start = jax.jit(lambda: env.reset(key))
    else:
        env = VmapAutoReset(maze)
        start = jax.jit(lambda: env.reset(jax.random.split(key, batch)))
    step = jax.jit(lambda tree, action: env.step(tree[0], action))
    return Case(
        f"maze-{batch or 1}",
        maze.env_id,
        start,
        step,
        _discrete(4, batch, 2),
        lambda tree: np.asarray(tree[1].step_type) == 2,  # LAST
    )


def _orbital(batch: int | None) -> Case:
    from horizax.adapters.functional_timestep import FunctionalTimestepEnv
    from horizax.core.protocol import functional

    fenv = functional(horizax.make("Orbital-LadyBanditGuard-v0", max_steps=4))
    env = FunctionalTimestepEnv(fenv)  # the engine's NEXT_STEP episodes around EnvState
    key = jax.random.PRNGKey(5)
    shape = () if batch is None else (batch,)
    dv = np.random.default_rng(3).uniform(-1, 1, (N + M, *shape, *fenv.action_space.shape))
    actions = [jnp.asarray(a * fenv.dv_max, jnp.float32) for a in dv]
    start, step = _jitted(env, key, batch)
    return Case(f"orbital-{batch or 1}", fenv.env_id, start, step, actions, lambda ts: ts.is_done())


def _engine(batch: int | None) -> Case:
    """The engine's `(Episode, Step, Final)` in SAME_STEP, as the Gymnasium vector env runs it."""
    from horizax.core import episode as engine
    from horizax.core.protocol import functional

    fenv = functional(horizax.make("MiniGrid-Empty-5x5-v0", max_steps=4))
    one = engine.autoreset_step(fenv, engine.AutoresetMode.SAME_STEP)
    key = jax.random.key(11)  # a typed key as the episode key

    def start_one(k):
        episode, step = engine.start_episode(fenv, k)
        final = jax.eval_shape(one, episode, jnp.int32(0))[2]  # no step has ended yet
        return episode, step, jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), final)

    if batch is None:
        start, advance = jax.jit(lambda: start_one(key)), one
    else:
        keys = jax.random.split(key, batch)
        start, advance = jax.jit(lambda: jax.vmap(start_one)(keys)), jax.vmap(one)
    step = jax.jit(lambda tree, action: advance(tree[0], action))
    return Case(
        f"engine-{batch or 1}",
        fenv.env_id,
        start,
        step,
        _discrete(3, batch, 4),
        lambda tree: np.asarray(tree[2].mask),
    )


def cases() -> list[Case]:
    """Every family, unbatched and with a batch of `B`."""
    return [make(batch) for make in (_grid, _maze, _orbital, _engine) for batch in (None, B)]


def run(step: Callable[[Any, Any], Any], tree: Any, actions: list[Any]) -> list[Any]:
    """The trees after each of ``actions``, from ``tree``."""
    out = []
    for action in actions:
        tree = step(tree, action)
        out.append(tree)
    return out


def stack(trees: list[Any]) -> Any:
    """One tree with a leading step axis (typed keys included)."""
    return jax.tree.map(lambda *xs: jnp.stack(xs), *trees)


def main(directory: str, timeout: float = 300.0) -> None:
    """The fresh process: load each case's saved tree, run its last M steps, save them."""
    folder, deadline = pathlib.Path(directory), time.monotonic() + timeout
    compiled = [(case, case.step.lower(case.like(), case.actions[0]).compile()) for case in cases()]
    for case, step in compiled:
        path = folder / f"{case.name}.ckpt"
        while not path.exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no checkpoint at {path}")
            time.sleep(0.05)
        tree = checkpoint.load(path, like=case.like(), env_id=case.env_id)
        checkpoint.save(folder / f"{case.name}.out", stack(run(step, tree, case.actions[N:])))


if __name__ == "__main__":
    main(sys.argv[1])
