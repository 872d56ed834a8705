"""`benchmarks/probe_memory.py`: the bare MemoryS13 that bounds what the task costs.

The probe only bounds horizax's MemoryS13 if it plays the same task: here it plays
horizax's episodes key for key through the benchmark harness (the same episode count and
observation checksum), over more steps than an episode's limit, so resets, autoresets,
truncations and the random walk's terminations are all compared.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import observations

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name):
    if str(_DIR) not in sys.path:
        sys.path.insert(0, str(_DIR))  # the probe imports the harness shim beside it
    spec = importlib.util.spec_from_file_location(name, _DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_probe_draws_horizax_s_first_observations():
    probe = _load("probe_memory")
    env = horizax.make(probe.ENV_ID, observation_fn=observations.symbolic)
    keys = jax.random.split(jax.random.key(5), 64)
    ours = jax.jit(jax.vmap(env.reset))(keys).observation
    theirs = jax.jit(jax.vmap(probe.probe_reset))(keys).observation
    np.testing.assert_array_equal(np.asarray(theirs), np.asarray(ours))
    # Both kinds in the start room and both orders at the corridor's ends occur.
    kinds = np.asarray(ours[:, 1, probe.MID - 1, 0]), np.asarray(ours[:, probe.END_X, 4, 0])
    assert all(set(k.tolist()) == {probe.KEY, probe.BALL} for k in kinds)


@pytest.mark.slow
def test_the_probe_plays_horizax_s_episodes():
    probe = _load("probe_memory")
    batch, steps = 8, 2 * probe.MAX_STEPS  # every environment ends at least one episode
    rollouts = probe.rollouts(batch, steps)
    key = jax.random.key(0)
    ours = [int(x) for x in jax.jit(rollouts["horizax"])(key)]
    theirs = [int(x) for x in jax.jit(rollouts["probe"])(key)]
    assert theirs == ours
    assert ours[0] >= batch


def test_the_hashed_probe_draws_other_layouts_of_the_same_task():
    probe = _load("probe_memory")
    keys = jax.random.split(jax.random.key(5), 256)
    hashed = jax.jit(jax.vmap(lambda k: probe.probe_reset(k, threefry=False)))(keys)
    exact = jax.jit(jax.vmap(probe.probe_reset))(keys)
    assert (np.asarray(hashed.pos) != np.asarray(exact.pos)).any()
    # Every start column and both object kinds, as the cipher's draws give.
    assert set(np.asarray(hashed.pos[:, 0]).tolist()) == set(range(1, probe.HALLWAY_END + 1))
    assert set(np.asarray(hashed.start_kind).tolist()) == {probe.KEY, probe.BALL}
    assert set(np.asarray(hashed.top_kind).tolist()) == {probe.KEY, probe.BALL}
