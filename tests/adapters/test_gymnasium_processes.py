"""Process-based vector envs play the same episodes as the sync and the jitted vector env.

Gymnasium's ``AsyncVectorEnv`` (through ``gymnasium.make_vec(..., vectorization_mode="async")``
with the default start method, ``fork`` and ``spawn``) and Stable-Baselines3's
``SubprocVecEnv`` (``fork``, ``spawn``) run each environment in a worker process. Each case
runs `process_runs` as a script in a fresh interpreter, in its own process group, under a
timeout: this process has run JAX and must not fork, and a hang must fail the test and leave
no worker behind. Its events are compared with those of ``SyncVectorEnv`` and of horizax's
jitted vector env, recorded here (the mapping between the autoreset conventions is in
`process_runs`). A fork kind's parent then runs JAX and forks again: that must raise
`JaxForkError`, never hang.

The workers share one persistent compilation cache (a temporary directory), so only the
first compiles each program: spawned workers still import JAX and horizax (~3 s each).
"""

from __future__ import annotations

import copy
import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import horizax  # noqa: E402
from tests.adapters import process_runs as runs  # noqa: E402

pytestmark = pytest.mark.reference

SCRIPT = Path(runs.__file__)
TIMEOUT_S = 150  # a loaded 2-core machine runs a spawn case in ~25 s


@pytest.fixture(scope="module")
def child_env(tmp_path_factory) -> dict[str, str]:
    """The scenario's environment: this checkout's horizax, a shared compilation cache."""
    src = str(Path(horizax.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    return {
        **os.environ,
        "PYTHONPATH": path,
        "JAX_COMPILATION_CACHE_DIR": str(tmp_path_factory.mktemp("jax_cache")),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    }


@pytest.fixture(scope="module")
def sync_records() -> dict[str, list]:
    """``SyncVectorEnv``'s events per id, the reference every other kind is held to."""
    return {env_id: runs.record("sync", env_id) for env_id in runs.ENV_KWARGS}


def _run(kind: str, out: Path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess:
    """Runs one scenario; on timeout kills its whole process group (workers included)."""
    command = [sys.executable, str(SCRIPT), kind, str(out), *flags]
    with subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"{kind} {' '.join(flags)} hung: no result within {TIMEOUT_S} s")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


def _assert_same_events(got: list, expected: list, what: str) -> None:
    """Equal events over the common prefix, which must cross an episode end."""
    length = min(len(got), len(expected))
    assert sum(event[0] == "reset" for event in got[:length]) >= 2, f"{what}: no episode end"
    for t, (a, b) in enumerate(zip(got[:length], expected[:length], strict=True)):
        assert a[0] == b[0] and a[2:] == b[2:], f"{what}, event {t}: {a[0]}{a[2:]} != {b[2:]}"
        assert _same(a[1], b[1]), f"{what}, event {t}: the observations differ"


def test_the_records_cross_terminations_and_truncations(sync_records):
    grid = sync_records["MiniGrid-Empty-5x5-v0"]
    ends = [(event[3], event[4]) for env in grid for event in env if event[0] == "step"]
    assert (True, False) in ends, "env 0 must reach the goal (terminated)"
    assert (False, True) in ends, "env 1 must hit max_steps (truncated)"
    assert all(len(env) > runs.CALLS for env in grid), "one event per call, plus the reset"


@pytest.mark.parametrize("env_id", list(runs.ENV_KWARGS))
def test_jitted_vector_env_plays_the_sync_episodes(env_id, sync_records):
    jitted = runs.record("jitted", env_id)
    for i in range(runs.NUM_ENVS):
        _assert_same_events(jitted[i], sync_records[env_id][i], f"jitted env {i}")


@pytest.mark.parametrize("kind", list(runs.PROCESS_IDS))
def test_process_vector_env_plays_the_sync_episodes(kind, child_env, sync_records, tmp_path):
    if kind.startswith("sb3-"):
        pytest.importorskip("stable_baselines3")
    # spawn workers start clean, so their parent may have run JAX: it does here.
    flags = ("--after-jax",) if kind.endswith("-spawn") else ()
    result = _run(kind, tmp_path / "events.pkl", child_env, *flags)
    assert result.returncode == 0, f"{kind} failed:\n{result.stderr[-4000:]}"
    records = pickle.loads((tmp_path / "events.pkl").read_bytes())
    after_jax = records.pop("after_jax", None)
    assert list(records) == runs.PROCESS_IDS[kind]
    for env_id, events in records.items():
        for i in range(runs.NUM_ENVS):
            _assert_same_events(events[i], sync_records[env_id][i], f"{kind} {env_id} env {i}")
    if kind.endswith("-fork"):
        # The same parent then ran JAX and forked again: an error, where it used to hang.
        assert after_jax is not None, f"{kind}: workers forked after JAX ran must not play"
        assert "JaxForkError" in result.stderr and "'spawn'" in result.stderr, result.stderr
        if kind.startswith("async-"):
            assert after_jax == "JaxForkError", "Gymnasium re-raises the worker's error"


def test_module_colon_id_form_imports_the_adapter(child_env):
    code = (
        "import sys, gymnasium\n"
        "env = gymnasium.make('horizax.adapters.gymnasium:horizax/MiniGrid-Empty-5x5-v0')\n"
        "assert 'horizax.adapters.gymnasium' in sys.modules\n"
        "envs = gymnasium.make_vec('horizax.adapters.gymnasium:horizax/Maze-v0', 2)\n"
        "print(type(env.unwrapped).__name__, type(envs).__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], env=child_env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-4000:]
    # A gridworld id's env class is named as MiniGrid's (a GymnasiumEnv subclass).
    assert result.stdout.split() == ["EmptyEnv", "GymnasiumVectorEnv"]


def test_text_observations_stay_current_in_async_shared_memory():
    # Gymnasium's own Text reader returns the strings of the moment the env was built; the
    # adapter's TextSpace reads them live. Two different missions, one per environment.
    from gymnasium.vector.utils import (
        create_shared_memory,
        read_from_shared_memory,
        write_to_shared_memory,
    )

    from horizax.adapters.gymnasium_spaces import LiveTexts, TextSpace

    space = TextSpace(8, charset="abc")
    memory = create_shared_memory(space, n=2)
    view = read_from_shared_memory(space, memory, n=2)
    assert isinstance(view, LiveTexts)
    write_to_shared_memory(space, 0, "abc", memory)
    write_to_shared_memory(space, 1, "cab", memory)
    assert copy.deepcopy(view) == ("abc", "cab") and view[1] == "cab" and len(view) == 2
    write_to_shared_memory(space, 1, "b", memory)
    assert copy.deepcopy(view) == ("abc", "b")
