"""Start-state samples of the WFC ids from both sides: MiniGrid's (the oracle, the reference
fixture's raw material) and horizax's, in one `Samples` form.

MiniGrid 3.2.0's wheel and sdist leave out ``minigrid/envs/wfc/patterns/*.png`` (its
``gymnasium.make("MiniGrid-WFC-...")`` raises FileNotFoundError), so `minigrid_wfc_env`
builds MiniGrid's ``WFCEnv`` as the Gymnasium adapter's ``layouts="minigrid"`` does: its own
preset, pointed at the copies horizax ships (byte-identical to MiniGrid's repository files).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from horizax.core.step_type import StepType
from horizax.grid import constants as C
from horizax.grid.wfc import presets
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

PRESET_OF = {f"MiniGrid-WFC-{name}-v0": name for name in presets.PRESETS}


def minigrid_wfc_env(env_id: str) -> Any:
    """MiniGrid's unwrapped ``WFCEnv`` for ``env_id``, reading horizax's pattern files
    (`tests.grid.minigrid_bridge.minigrid_env`, through the adapter's `minigrid_env`).

    Needs ``minigrid``, ``networkx`` and ``imageio`` (MiniGrid's ``wfc`` extra).
    """
    mg = bridge.minigrid_env(env_id)  # the adapter's path: horizax's images
    assert mg.config.pattern_path == presets.pattern_file(presets.PRESETS[PRESET_OF[env_id]].image)
    return mg


@dataclasses.dataclass
class Samples:
    """Start states of one id, as the distribution tests read them (numpy, any source).

    Attributes:
        walls: bool[N, 25, 25], wall cells, indexed ``[x, y]`` (border included).
        agent: i32[N, 2] ``(x, y)``; goal: i32[N, 2]; agent_dir: i32[N].
        raw_walls: bool[N, 23, 23], the WFC output before the largest-component step,
            ``[x, y]`` of the interior; attempts: i32[N], WFC attempts the reset used.
        episode_length: i32[N], steps of a uniform random policy's episode from this start
            (until termination or truncation); episode_success: i32[N], 1 if it reached
            the goal (terminated with a positive reward).
    """

    walls: np.ndarray
    agent: np.ndarray
    goal: np.ndarray
    agent_dir: np.ndarray
    raw_walls: np.ndarray
    attempts: np.ndarray
    episode_length: np.ndarray
    episode_success: np.ndarray

    def __len__(self) -> int:
        return len(self.agent_dir)


def random_episode(env: Any, rng: np.random.Generator) -> tuple[int, int]:
    """``(length, success)`` of uniform random actions from ``env``'s current state."""
    for step in range(1, env.max_steps + 1):
        _, reward, terminated, truncated, _ = env.step(int(rng.integers(0, C.NUM_ACTIONS)))
        if terminated or truncated:
            return step, int(terminated and reward > 0)
    raise AssertionError("the episode outlived max_steps")


def minigrid_samples(env_id: str, seeds: range) -> tuple[Samples, float]:
    """MiniGrid's start states for ``seeds``, and its mean seconds per reset.

    The raw WFC output and the attempt count are read by wrapping the ``execute_wfc`` that
    MiniGrid's env calls.
    """
    from minigrid.envs.wfc import wfcenv

    env = minigrid_wfc_env(env_id)
    seen: list[tuple[np.ndarray, int]] = []
    original = wfcenv.execute_wfc

    def recording(*args: Any, **kwargs: Any) -> Any:
        pattern, stats = original(*args, **kwargs)
        seen.append((pattern[..., 0] == 0, int(stats["attempts"])))
        return pattern, stats

    rows: dict[str, list[Any]] = {f.name: [] for f in dataclasses.fields(Samples)}
    wfcenv.execute_wfc = recording
    start = time.perf_counter()
    try:
        for seed in seeds:
            env.reset(seed=seed)
            grid = env.grid.encode()
            rows["walls"].append(grid[..., 0] == C.WALL)
            rows["goal"].append(np.argwhere(grid[..., 0] == C.GOAL)[0])
            rows["agent"].append(np.asarray(env.agent_pos))
            rows["agent_dir"].append(int(env.agent_dir))
            raw, attempts = seen.pop()
            rows["raw_walls"].append(raw)
            rows["attempts"].append(attempts)
            length, success = random_episode(env, np.random.default_rng(seed))
            rows["episode_length"].append(length)
            rows["episode_success"].append(success)
    finally:
        wfcenv.execute_wfc = original
    seconds = (time.perf_counter() - start) / max(len(seeds), 1)
    dtypes = {"walls": bool, "raw_walls": bool}
    arrays = {k: np.asarray(v, dtypes.get(k, np.int32)) for k, v in rows.items()}
    return Samples(**arrays), seconds


def _no_observation(state: Any) -> Any:
    return jnp.zeros((), jnp.uint8)


def _no_layout(key: Any) -> Any:
    raise AssertionError("a step without autoreset drew a layout")


@functools.cache
def _episodes() -> Any:
    """``(states, keys) -> (length i32[N], success i32[N])``: uniform random actions from
    each start state until its episode ends; one program for every WFC id (their states and
    steps differ only in the layout, which a step without autoreset never draws)."""
    import horizax

    env = horizax.make(next(iter(PRESET_OF))).disable_autoreset()
    env = env.replace(observation_fn=_no_observation, layout_fn=_no_layout)
    limit = env.max_steps

    def one(state: Any, key: Any) -> tuple[Any, Any]:
        ts = _first_timestep(state)
        actions = jax.random.randint(key, (limit,), 0, C.NUM_ACTIONS)

        def body(carry: Any, action: Any) -> tuple[Any, None]:
            ts, length, success = carry
            running = length == 0
            ts = env.step(ts, action)
            ended = ts.step_type != StepType.TRANSITION
            won = (ts.step_type == StepType.TERMINATION) & (ts.reward > 0)
            length = jnp.where(running & ended, ts.state.step_count, length)
            success = jnp.where(running & ended, won.astype(jnp.int32), success)
            return (ts, length, success), None

        (_, length, success), _ = jax.lax.scan(body, (ts, jnp.int32(0), jnp.int32(0)), actions)
        return length, success

    return jax.jit(jax.vmap(one), compiler_options=dist.BATCH_OPTIONS)


def _first_timestep(state: Any) -> Any:
    """The timestep that starts an episode at ``state`` (no observation computed)."""
    from horizax.grid.timestep import Timestep

    zero = jnp.int32(0)
    return Timestep(jnp.zeros((), jnp.uint8), jnp.int32(-1), jnp.float32(0), zero, state, {})


def horizax_samples(env_id: str, n: int, seed: int = 0) -> tuple[Samples, Any]:
    """``n`` horizax start states of ``env_id`` (one jitted, vmapped batch of the family's
    layout with its WFC solutions), as `Samples`, and the batch's `solver.Solution`."""
    from horizax.grid.envs import wfc
    from horizax.grid.wfc import level

    program = wfc.program(PRESET_OF[env_id])
    generate = jax.jit(
        jax.vmap(lambda k: level.generate(program, k)), compiler_options=dist.BATCH_OPTIONS
    )
    layout_keys, episode_keys = jax.random.split(jax.random.PRNGKey(seed))
    state, solution = generate(jax.random.split(layout_keys, n))
    # What `Environment.reset` adds to the layout: the episode's limit (its key is unused).
    state = state.replace(max_steps=jnp.full(n, wfc.MAX_STEPS, jnp.int32))
    length, success = _episodes()(state, jax.random.split(episode_keys, n))
    grid = np.asarray(state.grid)[..., 0]
    samples = Samples(
        walls=grid == C.WALL,
        agent=np.asarray(state.agent_pos),
        goal=np.argwhere(grid == C.GOAL)[:, 1:].astype(np.int32),
        agent_dir=np.asarray(state.agent_dir),
        raw_walls=np.asarray(program.pattern_walls)[np.asarray(solution.patterns)],
        attempts=np.asarray(solution.attempts),
        episode_length=np.asarray(length),
        episode_success=np.asarray(success),
    )
    return samples, jax.tree.map(np.asarray, solution)
