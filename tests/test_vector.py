"""`horizax.vector.VectorEnv`: the engine's batches, sharded, with the same trajectories on
1 device, on 4 devices and on 2 processes x 2 devices.

The sharded runs need several devices, which a process gets only from ``XLA_FLAGS`` before
JAX starts, so they run `tests/vector_runs.py` in fresh processes (two of them joined by
`jax.distributed` on 127.0.0.1), each bounded in time.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core import episode as engine
from horizax.core.protocol import functional
from horizax.vector import VectorEnv, batch_mesh, local_rows, random_policy
from tests import vector_runs
from tests.device_runs import finish, free_port, start
from tests.markdown import python_blocks

RUNNER = "tests.vector_runs"
TIMEOUT_S = 240  # one process compiles three families' programs: ~30 s on an idle 2-core VM


def assert_same_tree(got, expected) -> None:
    assert jax.tree.structure(got) == jax.tree.structure(expected)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(expected), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_reset_and_step_are_the_engines():
    venv = VectorEnv("MiniGrid-DoorKey-5x5-v0", 4, autoreset_mode="SameStep", max_steps=3)
    fenv = functional(horizax.make("MiniGrid-DoorKey-5x5-v0", max_steps=3))
    state, first = venv.reset(seed=11)
    expected_state, expected_first = engine.start_episodes(
        fenv, jnp.asarray(engine.seed_keys(11, 4))
    )
    actions = np.array([2, 1, 0, 2], np.int32)
    restarted = False
    for _ in range(4):  # across the limit: SAME_STEP restarts with a final observation
        state, step, final = venv.step(state, actions)
        restarted |= bool(final.mask.all())
        expected_state, expected_step, expected_final = engine.step_episodes(
            fenv, "SameStep", expected_state, actions
        )
    got = (first, state, step, final)
    expected = (expected_first, expected_state, expected_step, expected_final)
    assert restarted
    assert_same_tree(got, expected)


def test_a_key_reset_splits_the_key_and_outputs_are_sharded():
    venv = VectorEnv("Maze-v0", 2)
    key = jax.random.PRNGKey(3)
    state, _ = venv.reset(key)
    np.testing.assert_array_equal(np.asarray(state.key), np.asarray(jax.random.split(key, 2)))
    assert state.key.sharding.spec == venv.sharding.spec


def test_rollout_continues_where_it_stopped():
    venv = VectorEnv("MiniGrid-Empty-5x5-v0", 3, max_steps=4)
    policy = random_policy(venv)
    carry, whole = venv.rollout(policy, jax.random.PRNGKey(0), 6)
    _, first = venv.reset(jax.random.split(jax.random.PRNGKey(0))[0])
    assert whole.step.reward.shape == (6, 3) and whole.action.shape == (6, 3)
    assert_same_tree(jax.tree.map(lambda x: x[0], whole.observation), first.observation)
    # Continuing from a carry plays on from that state (another policy key, same episodes).
    carry2, more = venv.rollout(policy, jax.random.PRNGKey(1), 5, start=carry)
    assert_same_tree(
        jax.tree.map(lambda x: x[0], more.observation),
        jax.tree.map(lambda x: x[-1], whole.step.observation),
    )
    assert int(np.asarray(whole.step.truncated).sum()) >= 3  # every env reached its limit
    np.testing.assert_array_equal(local_rows(more.step.reward), np.asarray(more.step.reward))
    assert carry2[0].t.shape == (3,)


def test_rollout_actions_are_the_policys():
    venv = VectorEnv("Orbital-LadyBanditGuard-v0", 2, max_steps=3)
    _, trajectory = venv.rollout(lambda keys, obs: obs[:, :3] * 0.0, jax.random.PRNGKey(0), 2)
    assert trajectory.action.shape == (2, 2, 3)
    assert not np.asarray(trajectory.action).any()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_envs": 0}, ValueError, "num_envs"),
        ({"num_envs": 2.0}, TypeError, "num_envs"),
        ({"devices": 0}, ValueError, "devices"),
        ({"devices": len(jax.devices()) + 1}, ValueError, "devices"),
        ({"devices": 1, "mesh": "m"}, TypeError, "mesh or devices"),
        ({"mesh": "m"}, TypeError, "mesh"),
        ({"autoreset_mode": "sometimes"}, ValueError, "autoreset_mode"),
        ({"max_steps": 0}, ValueError, "max_steps"),
    ],
)
def test_bad_construction_is_refused(kwargs, error, match):
    kwargs = {"num_envs": 2, **kwargs}
    with pytest.raises(error, match=match):
        VectorEnv("MiniGrid-Empty-5x5-v0", **kwargs)


def test_overrides_need_an_id():
    with pytest.raises(TypeError, match="overrides"):
        VectorEnv(horizax.make("MiniGrid-Empty-5x5-v0"), 2, max_steps=3)


def test_batch_mesh_devices():
    assert batch_mesh().shape["batch"] == len(jax.devices())
    assert batch_mesh(1).shape["batch"] == 1


@pytest.mark.parametrize(
    ("actions", "error", "match"),
    [
        (np.zeros(3, np.int32), ValueError, r"shape \(2,\)"),
        (np.zeros(2, np.float32), TypeError, "integers"),
        (np.array([0, 7]), ValueError, r"\[0, 7\)"),
        (np.array([-1, 0]), ValueError, r"\[0, 7\)"),
        (True, TypeError, "bool"),
    ],
)
def test_bad_actions_are_refused(actions, error, match):
    venv = VectorEnv("MiniGrid-Empty-5x5-v0", 2)
    state, _ = venv.reset(seed=0)
    with pytest.raises(error, match=match):
        venv.step(state, actions)


def test_reset_needs_one_key_or_seed():
    venv = VectorEnv("MiniGrid-Empty-5x5-v0", 2)
    with pytest.raises(TypeError, match="exactly one"):
        venv.reset()
    with pytest.raises(TypeError, match="exactly one"):
        venv.reset(jax.random.PRNGKey(0), seed=1)
    with pytest.raises((TypeError, ValueError), match="key"):
        venv.reset("x")
    with pytest.raises(ValueError, match="num_steps"):
        venv.rollout(random_policy(venv), jax.random.PRNGKey(0), 0)


# --- sharded runs, in fresh processes ------------------------------------------------------


def _load(paths: list[Path]) -> dict[str, np.ndarray]:
    """The processes' rows joined in process order (batch axis 0, or 1 in a trajectory)."""
    parts = [np.load(p) for p in paths]
    return {
        name: np.concatenate(
            [part[name] for part in parts], axis=1 if "/trajectory/" in name else 0
        )
        for name in parts[0].files
    }


@pytest.fixture(scope="module")
def one_device(tmp_path_factory) -> dict[str, np.ndarray]:
    out = tmp_path_factory.mktemp("vector") / "one.npz"
    finish([start(RUNNER, out, "--devices", "1")], TIMEOUT_S)
    return _load([out])


def _assert_same(got: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value, err_msg=name)


@pytest.mark.slow
def test_four_devices_play_the_one_device_trajectories(one_device, tmp_path):
    finish([start(RUNNER, tmp_path / "four.npz", "--devices", "4")], TIMEOUT_S)
    got = _load([tmp_path / "four.npz"])
    _assert_same(got, one_device)
    assert any(v.any() for k, v in one_device.items() if k.endswith("/trajectory/0"))


@pytest.mark.slow
def test_two_processes_play_the_one_device_trajectories(one_device, tmp_path):
    port = str(free_port())
    paths = [tmp_path / f"p{i}.npz" for i in range(2)]
    flags = ("--devices", "2", "--processes", "2", "--port", port)
    finish([start(RUNNER, paths[i], *flags, "--process-id", str(i)) for i in range(2)], TIMEOUT_S)
    _assert_same(_load(paths), one_device)


def test_the_runs_cover_every_family():
    families = {env_id.split("-")[0] for env_id in vector_runs.CASES}
    assert families == {"MiniGrid", "Maze", "Orbital"}


@pytest.mark.slow
def test_the_scaling_page_example_runs():
    page = Path(__file__).resolve().parents[1] / "docs" / "scaling.md"
    single_host = python_blocks(page.read_text(encoding="utf-8"))[0]
    namespace: dict = {}
    exec(compile(single_host, "docs/scaling.md block 0", "exec"), namespace)
    assert namespace["more"].step.reward.shape == (128, 1024)


def test_rollout_programs_are_reused_and_bounded(monkeypatch):
    venv = VectorEnv("MiniGrid-Empty-5x5-v0", 2)
    built = []
    monkeypatch.setattr(
        venv, "_rollout_program", lambda fn, n: built.append(fn) or (lambda s, k: s)
    )
    start = (None, None)
    policy = random_policy(venv)
    venv.rollout(policy, jax.random.PRNGKey(0), 3, start=start)
    venv.rollout(policy, jax.random.PRNGKey(1), 3, start=start)
    assert built == [policy]  # the same function and length: one program
    for _ in range(10):  # a new function each call
        venv.rollout(lambda k, o: o, jax.random.PRNGKey(0), 3, start=start)
    assert len(built) == 11 and len(venv._rollouts) == 8
