"""Loading a `benchmarks/` probe script, and the checks the key-exact probes share."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jax
import numpy as np

DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def load(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as a module (its directory on the path for its imports)."""
    if str(DIR) not in sys.path:
        sys.path.insert(0, str(DIR))  # a probe imports the harness shim beside it
    spec = importlib.util.spec_from_file_location(name, DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None, name
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_plays_horizax_s_harness_rollout(probe: ModuleType, batch: int, steps: int) -> None:
    """The probe's harness rollout has horizax's episode count and observation checksum
    (``probe.rollouts``, from ``jax.random.key(0)``), and every environment ends an episode."""
    rollouts = probe.rollouts(batch, steps)
    key = jax.random.key(0)
    ours = [int(x) for x in jax.jit(rollouts["horizax"])(key)]
    theirs = [int(x) for x in jax.jit(rollouts["probe"])(key)]
    assert theirs == ours
    assert ours[0] >= batch


def hashed_resets(probe: ModuleType, count: int) -> Any:
    """The probe's first states of ``count`` keys with its hashed draw
    (``threefry=False``), after checking they are other layouts than the cipher's."""
    keys = jax.random.split(jax.random.key(5), count)
    hashed = jax.jit(jax.vmap(lambda k: probe.probe_reset(k, threefry=False)))(keys)
    exact = jax.jit(jax.vmap(probe.probe_reset))(keys)
    assert (np.asarray(hashed.pos) != np.asarray(exact.pos)).any()
    return hashed


def horizax_s_first_observations(probe: ModuleType, count: int) -> np.ndarray:
    """horizax's first full symbolic observations of ``count`` keys of ``probe.ENV_ID``,
    after checking the probe's are the same."""
    import horizax
    from horizax.grid import observations

    env = horizax.make(probe.ENV_ID, observation_fn=observations.symbolic)
    keys = jax.random.split(jax.random.key(5), count)
    ours = np.asarray(jax.jit(jax.vmap(env.reset))(keys).observation)
    theirs = np.asarray(jax.jit(jax.vmap(probe.probe_reset))(keys).observation)
    np.testing.assert_array_equal(theirs, ours)
    return ours
