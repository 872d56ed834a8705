"""Plays fixed actions through one kind of vector env and records every environment's events.

`test_gymnasium_processes` runs each process-based kind as a script in a fresh interpreter (a
parent that has run JAX must not fork; a hang must hit a timeout, not block the suite)::

    python tests/adapters/process_runs.py KIND OUT.pkl [--after-jax]

and the in-process kinds (``sync``, ``jitted``) by calling `record` directly. Like a user's
script, this module imports `horizax.adapters.gymnasium` at the top and nothing else of
horizax: a ``spawn`` worker re-imports it (as ``__mp_main__``), and so finds the ``horizax/``
ids that Stable-Baselines3's workers look up by name.

The record puts the two autoreset conventions side by side. Gymnasium's vector envs
(NEXT_STEP, their default) end an episode on one ``step`` and start the next on the
following one, which ignores its action and returns the reset observation with reward 0 and
both flags False. Stable-Baselines3's ``VecEnv`` resets within the ending step: it returns
the next episode's first observation, ``done``, and the last observation in
``info["terminal_observation"]`` (``info["TimeLimit.truncated"]`` tells truncation from
termination). Each environment's events, the same under both, are:

* ``("reset", observation)``: an episode's first observation;
* ``("step", observation, reward, terminated, truncated)``: one action's outcome.

Environment ``i`` takes the actions ``ACTIONS[env_id][i]`` in a cycle, one per ``step``
event, so an autoreset step consumes none. The same ``CALLS`` vector-env calls produce more
events under Stable-Baselines3 (no separate reset step), so comparisons use the common prefix.
"""

from __future__ import annotations

import functools
import pickle
import sys
from typing import Any

import gymnasium
import numpy as np

import horizax.adapters.gymnasium  # noqa: F401  (registers the horizax/ ids, in workers too)

NUM_ENVS = 2
CALLS = 30
SEED = 11

# Small limits so that 30 calls cross episode ends: the grid env 0 reaches the goal on its
# 5th action (terminated), env 1 turns and wanders until the limit (truncated); the Maze
# (4x4, limit 6) truncates or reaches its target. (The orbital games' vector env is held to
# the single env in test_box_actions and test_same_episodes; here it would add seconds.)
ENV_KWARGS: dict[str, dict[str, Any]] = {
    "MiniGrid-Empty-5x5-v0": {"max_steps": 7},
    "Maze-v0": {"num_rows": 4, "num_cols": 4, "time_limit": 6},
}
ACTIONS: dict[str, list[list[int]]] = {
    "MiniGrid-Empty-5x5-v0": [[2, 2, 1, 2, 2], [0, 2, 1, 2]],
    "Maze-v0": [[1, 2, 1, 2, 0, 3, 2], [2, 2, 1, 1, 3]],
}

# Which ids each process-based kind plays: the gridworld everywhere, the Maze (another
# family, dict observations of several dtypes, through shared memory) once: every worker
# compiles, and a spawned one imports JAX and horizax (SB3's, torch too), seconds each.
PROCESS_IDS = {
    "async-default": ["MiniGrid-Empty-5x5-v0", "Maze-v0"],
    "async-fork": ["MiniGrid-Empty-5x5-v0"],
    "async-spawn": ["MiniGrid-Empty-5x5-v0"],
    "sb3-fork": ["MiniGrid-Empty-5x5-v0"],
    "sb3-spawn": ["MiniGrid-Empty-5x5-v0"],
}


def _plain(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {key: _plain(value) for key, value in tree.items()}
    return np.asarray(tree)


def _row(observations: Any, i: int) -> Any:
    if isinstance(observations, dict):
        return {key: _row(value, i) for key, value in observations.items()}
    return np.asarray(observations[i])


def _action(env_id: str, i: int, taken: int) -> int:
    cycle = ACTIONS[env_id][i]
    return cycle[taken % len(cycle)]


def _batch(actions: list[int]) -> np.ndarray:
    return np.array(actions, dtype=np.int64)


def make_gymnasium_vec(kind: str, env_id: str) -> Any:
    """``gymnasium.make_vec`` of the kind: sync, jitted (the vector entry point), async-*."""
    kwargs = ENV_KWARGS[env_id]
    gym_id = f"horizax/{env_id}"
    if kind == "sync":
        return gymnasium.make_vec(gym_id, NUM_ENVS, vectorization_mode="sync", **kwargs)
    if kind == "jitted":
        return gymnasium.make_vec(gym_id, NUM_ENVS, **kwargs)
    context = kind.removeprefix("async-")
    vector_kwargs: dict[str, Any] = {} if context == "default" else {"context": context}
    return gymnasium.make_vec(
        gym_id, NUM_ENVS, vectorization_mode="async", vector_kwargs=vector_kwargs, **kwargs
    )


def make_sb3_vec(kind: str, env_id: str) -> Any:
    """Stable-Baselines3's ``SubprocVecEnv`` with the kind's start method.

    The fork kind builds each environment with `horizax.adapters.gymnasium.make` (pickled by
    reference); the spawn kind with ``gymnasium.make("horizax/<id>")``, which a spawned worker
    resolves because re-importing this script registered the ids there.
    """
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from horizax.adapters import gymnasium as hg

    method = kind.removeprefix("sb3-")
    if method == "fork":
        make = functools.partial(hg.make, env_id, **ENV_KWARGS[env_id])
    else:
        make = functools.partial(gymnasium.make, f"horizax/{env_id}", **ENV_KWARGS[env_id])
    return SubprocVecEnv([make] * NUM_ENVS, start_method=method)


def _record_gymnasium(envs: Any, env_id: str) -> list[list[tuple]]:
    observations, _ = envs.reset(seed=SEED)
    events = [[("reset", _row(observations, i))] for i in range(NUM_ENVS)]
    taken = [0] * NUM_ENVS
    resetting = np.zeros(NUM_ENVS, dtype=bool)
    for _ in range(CALLS):
        # An autoresetting environment ignores its action: give it one that consumes nothing.
        actions = [_action(env_id, i, 0 if resetting[i] else taken[i]) for i in range(NUM_ENVS)]
        observations, rewards, terminated, truncated, _ = envs.step(_batch(actions))
        for i in range(NUM_ENVS):
            if resetting[i]:
                assert rewards[i] == 0 and not terminated[i] and not truncated[i], "NEXT_STEP"
                events[i].append(("reset", _row(observations, i)))
            else:
                taken[i] += 1
                step = (float(rewards[i]), bool(terminated[i]), bool(truncated[i]))
                events[i].append(("step", _row(observations, i), *step))
        resetting = np.asarray(terminated) | np.asarray(truncated)
    return events


def _record_sb3(venv: Any, env_id: str) -> list[list[tuple]]:
    venv.seed(SEED)  # environment i gets SEED + i, as Gymnasium's reset(seed=SEED) gives
    observations = venv.reset()
    events = [[("reset", _row(observations, i))] for i in range(NUM_ENVS)]
    for call in range(CALLS):
        observations, rewards, dones, infos = venv.step(
            _batch([_action(env_id, i, call) for i in range(NUM_ENVS)])
        )
        for i in range(NUM_ENVS):
            if dones[i]:
                truncated = bool(infos[i]["TimeLimit.truncated"])
                last = _plain(infos[i]["terminal_observation"])
                events[i].append(("step", last, float(rewards[i]), not truncated, truncated))
                events[i].append(("reset", _row(observations, i)))
            else:
                events[i].append(("step", _row(observations, i), float(rewards[i]), False, False))
    return events


def record(kind: str, env_id: str) -> list[list[tuple]]:
    """Every environment's events (see the module docstring) under one kind of vector env."""
    if kind.startswith("sb3-"):
        venv = make_sb3_vec(kind, env_id)
        try:
            return _record_sb3(venv, env_id)
        finally:
            venv.close()
    envs = make_gymnasium_vec(kind, env_id)
    try:
        return _record_gymnasium(envs, env_id)
    finally:
        envs.close()


def _run_jax() -> None:
    import jax.numpy as jnp

    assert int(jnp.arange(3).sum()) == 3


def main() -> None:
    """``KIND OUT [--after-jax]``: records `PROCESS_IDS[KIND]` and pickles the dict
    ``{env_id: events}`` to OUT.

    With ``--after-jax`` the parent first runs a JAX computation, which a ``spawn`` worker
    does not mind. A ``fork`` kind then also runs JAX in the parent and forks again, the case
    that cannot work (`horizax.adapters.forking`): ``"after_jax"`` in the dict holds the
    error's type name (a worker's `JaxForkError`, re-raised by Gymnasium; SB3's workers die
    printing it, and its parent sees the broken pipe), or None if the envs played.
    """
    kind, out = sys.argv[1], sys.argv[2]
    from jax._src import xla_bridge

    if "--after-jax" in sys.argv[3:]:
        _run_jax()
    records: dict[str, Any] = {}
    for env_id in PROCESS_IDS[kind]:
        # A fork kind's parent drives its workers without running JAX itself, so forking it
        # stays safe for the next id too.
        assert kind.endswith("-spawn") or not xla_bridge._backends, f"{kind}: JAX ran"
        records[env_id] = record(kind, env_id)
    if kind.endswith("-fork"):
        _run_jax()
        try:
            record(kind, PROCESS_IDS[kind][0])
            records["after_jax"] = None
        except Exception as error:
            records["after_jax"] = type(error).__name__
    with open(out, "wb") as file:
        pickle.dump(records, file)


if __name__ == "__main__":
    main()
