"""`horizax.train.ppo`: configuration, determinism, every family, exact bootstrapping, learning,
and the same parameters on 1 device, 4 devices and 2 processes x 2 devices."""

from __future__ import annotations

import jax
import numpy as np
import pytest

pytest.importorskip("flax")
pytest.importorskip("optax")

from horizax.train.ppo import PPO, PPOConfig, default_config
from tests.device_runs import finish, free_port, start
from tests.train import ppo_runs

SMALL = {"num_envs": 8, "num_steps": 16, "num_minibatches": 2, "update_epochs": 2}
RUNNER = "tests.train.ppo_runs"
TIMEOUT_S = 300
TOLERANCE = 1e-5  # float32 reductions summed in another order: observed <= 3.2e-7


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("num_envs", 0, ValueError),
        ("num_steps", 2.5, ValueError),
        ("gamma", 1.5, ValueError),
        ("gae_lambda", -0.1, ValueError),
        ("learning_rate", float("nan"), ValueError),
        ("clip_eps", -1.0, ValueError),
        ("reward_scale", float("inf"), ValueError),
        ("num_minibatches", 3, ValueError),  # 64 environments do not split into 3
        ("hidden", (), ValueError),
    ],
)
def test_bad_settings_are_refused_naming_them(field, value, error):
    with pytest.raises(error, match=field if field != "num_minibatches" else "num_minibatches"):
        PPOConfig(**{field: value})


def test_per_family_defaults():
    assert default_config("MiniGrid-Empty-8x8-v0") == PPOConfig()
    orbital = default_config("Orbital-LadyBanditGuard-v0", num_envs=16)
    assert orbital.ent_coef == 0.0 and orbital.reward_scale == 0.01 and orbital.num_envs == 16
    assert PPOConfig(total_steps=10).num_updates == 1
    assert PPOConfig(total_steps=3 * 64 * 128 + 5).num_updates == 3


def _params(state):
    return [np.asarray(x) for x in jax.tree.leaves(state.params)]


def _run(env_id, updates=2, config=None, **overrides):
    learner = PPO(env_id, config or default_config(env_id, **SMALL), **overrides)
    state = learner.init(seed=3)
    metrics = {}
    for _ in range(updates):
        state, metrics = learner.update(state)
    return learner, state, metrics


def test_the_same_seed_gives_the_same_parameters():
    _, a, ma = _run("MiniGrid-Empty-5x5-v0", max_steps=10)
    _, b, mb = _run("MiniGrid-Empty-5x5-v0", max_steps=10)
    for x, y in zip(_params(a), _params(b), strict=True):
        np.testing.assert_array_equal(x, y)
    assert ma == mb and int(a.update) == 2


@pytest.mark.parametrize(
    "env_id", ["Maze-v0", "Orbital-LadyBanditGuard-v0", "MiniGrid-Fetch-5x5-N2-v0"]
)
def test_every_family_trains(env_id):
    learner, state, metrics = _run(env_id, updates=1)
    assert all(np.isfinite(v) for v in metrics.values()), metrics
    observation = jax.tree.map(lambda x: x[:2], state.observation)
    actions = learner.act(state, observation, jax.random.PRNGKey(0))
    greedy = learner.act(state, observation, jax.random.PRNGKey(0), greedy=True)
    assert actions.shape == greedy.shape == (2, *learner.action_shape)
    per_key = learner.policy(state)(jax.random.split(jax.random.PRNGKey(0), 2), observation)
    assert per_key.shape == actions.shape
    assert learner.value(state, observation).shape == (2,)


def test_truncations_bootstrap_from_the_last_observation_unless_told_otherwise():
    """With truncations in the rollout the two settings train differently; without, alike."""
    exact = default_config("MiniGrid-Empty-5x5-v0", **SMALL)
    mistaken = default_config("MiniGrid-Empty-5x5-v0", **SMALL, truncation_as_termination=True)
    _, a, metrics = _run("MiniGrid-Empty-5x5-v0", 1, exact, max_steps=6)
    _, b, _ = _run("MiniGrid-Empty-5x5-v0", 1, mistaken, max_steps=6)
    assert metrics["truncated"] > 0
    assert any((x != y).any() for x, y in zip(_params(a), _params(b), strict=True))
    # A 16-step rollout of episodes that cannot be truncated in it (limit 100): identical.
    _, c, metrics = _run("MiniGrid-Empty-5x5-v0", 1, exact, max_steps=100)
    _, d, _ = _run("MiniGrid-Empty-5x5-v0", 1, mistaken, max_steps=100)
    assert metrics["truncated"] == 0
    for x, y in zip(_params(c), _params(d), strict=True):
        np.testing.assert_array_equal(x, y)


def test_run_is_the_updates_in_one_program():
    learner = PPO("MiniGrid-Empty-5x5-v0", default_config("MiniGrid-Empty-5x5-v0", **SMALL))
    start = learner.init(seed=3)
    stepped, per_update = start, []
    for _ in range(3):
        stepped, metrics = learner.update(stepped)
        per_update.append(metrics)
    for ran, arrays in (learner.run(start, 3), learner.compile_run(start, 3)(start)):
        for x, y in zip(_params(ran), _params(stepped), strict=True):
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-6)
        assert int(ran.update) == 3
        for name, values in arrays.items():
            assert values.shape == (3,)
            np.testing.assert_allclose(values, [m[name] for m in per_update], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="num_updates"):
        learner.run(start, 0)


@pytest.mark.parametrize("many", [False, True])
def test_truncated_values_are_the_critic_at_each_truncation(many):
    """The gathered critic pass (at most N truncations) and the full one (more) are exact."""
    learner = PPO("MiniGrid-Empty-5x5-v0", default_config("MiniGrid-Empty-5x5-v0", **SMALL))
    state = learner.init(seed=1)
    steps, envs = 16, 8
    truncated = np.zeros((steps, envs), bool)
    if many:
        truncated[::2] = True  # 64 truncations for 8 environments
    else:
        truncated[[0, 5, 5, 15], [0, 2, 7, 7]] = True  # row 0 too: the gather's fill index
    # Every step a different observation, so a value put in the wrong place shows.
    observation = jax.tree.map(
        lambda x: np.broadcast_to(np.asarray(x)[None], (steps, *np.shape(x))).copy(),
        state.observation,
    )
    observation["image"] += np.arange(steps, dtype=np.uint8).reshape(steps, 1, 1, 1, 1)
    got = jax.jit(learner._truncated_values)(state.params, state.stats, observation, truncated)
    values = learner._apply(state.params, state.stats, observation, 2)[2]
    assert len(np.unique(np.asarray(values))) > 1
    np.testing.assert_allclose(got, np.where(truncated, values, 0.0), rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_it_learns_empty_5x5():
    config = default_config(
        "MiniGrid-Empty-5x5-v0", total_steps=81_920, num_envs=32, num_steps=64, num_minibatches=4
    )
    learner = PPO("MiniGrid-Empty-5x5-v0", config)
    state = learner.init(seed=0)
    for _ in range(config.num_updates):
        state, metrics = learner.update(state)
    assert metrics["successes"] / metrics["episodes"] >= 0.95
    assert metrics["return_sum"] / metrics["episodes"] >= 0.85  # the optimum is 0.955


# --- data-parallel: fresh processes with 1, 4 and 2 x 2 devices ----------------------------


@pytest.fixture(scope="module")
def one_device(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo") / "one.npz"
    finish([start(RUNNER, out, "--devices", "1")], TIMEOUT_S)
    return dict(np.load(out))


def _assert_close(got, expected):
    assert sorted(got) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=0, atol=TOLERANCE, err_msg=name)
    truncated = [v for k, v in expected.items() if k.endswith("/truncated")]
    assert len(truncated) == len(ppo_runs.CASES) and all(v > 0 for v in truncated)


@pytest.mark.slow
def test_four_devices_learn_the_one_device_parameters(one_device, tmp_path):
    finish([start(RUNNER, tmp_path / "four.npz", "--devices", "4")], TIMEOUT_S)
    _assert_close(dict(np.load(tmp_path / "four.npz")), one_device)


@pytest.mark.slow
def test_two_processes_learn_the_one_device_parameters(one_device, tmp_path):
    port = str(free_port())
    paths = [tmp_path / f"p{i}.npz" for i in range(2)]
    flags = ("--devices", "2", "--processes", "2", "--port", port)
    finish([start(RUNNER, paths[i], *flags, "--process-id", str(i)) for i in range(2)], TIMEOUT_S)
    first, second = (dict(np.load(p)) for p in paths)
    _assert_close(first, one_device)
    for name, value in first.items():  # every process holds the same parameters
        np.testing.assert_array_equal(second[name], value, err_msg=name)
