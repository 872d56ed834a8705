"""Box action spaces through every adapter, on the orbital games (continuous velocity changes).

One action rule for every adapter (`horizax.adapters.actions`): a float or integer array of
exactly the space's shape (``(num_envs, *shape)`` when batched), cast to the space's dtype,
values passed on unclipped; bools, strings and other shapes raise. Each adapter also ends
one episode at the horizon (truncated only) and one at an event (terminated only), and the
Gymnasium single env, the vector env and the native view play the same episodes.

The environment objects are shared by module fixtures: the adapters' jitted functions take
them as static arguments, so each adapter compiles once per configuration, not per test.
"""

from __future__ import annotations

import functools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
dm_env = pytest.importorskip("dm_env")
torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")
pytest.importorskip("gymnax")

from dm_env import specs  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from tensordict import TensorDict  # noqa: E402
from torchrl.data import Bounded  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import horizax  # noqa: E402
from horizax import cli  # noqa: E402
from horizax.adapters import gymnasium as hg  # noqa: E402
from horizax.adapters.dm_env import DmEnv  # noqa: E402
from horizax.adapters.gymnax import ToGymnax  # noqa: E402
from horizax.adapters.torchrl import TorchRLEnv  # noqa: E402
from horizax.core import episode as engine  # noqa: E402
from horizax.core.spaces import Box  # noqa: E402
from tests.adapters.corridor import Corridor  # noqa: E402

ID = "Orbital-LadyBanditGuard-v0"
ORBITAL_IDS = [
    ID,
    "Orbital-PursuitEvasion-v0",
    "Orbital-GetOffMyLawn-v0",
    "Orbital-SunBlocking-v0",
    "Orbital-ObservationBlocking-v0",
]
HORIZON = {"max_horizon_s": 50.0}  # dt is 10 s: the step cap truncates after 5 steps
BREACH = {"breach_radius_m": 5000.0}  # the bandit starts inside the breach sphere
ZERO = np.zeros(3, np.float32)
# (terminated, truncated) of each step, per configuration.
ENDINGS = {
    "truncating": [(False, False)] * 4 + [(False, True)],
    "terminating": [(True, False)],
}
NUM_ENVS = 2
# Bad actions of a (3,) Box, with the error each adapter raises; "abc" and True included.
BAD_SINGLE = [
    (np.zeros(2, np.float32), ValueError, r"shape \(3,\)"),
    (np.zeros((1, 3), np.float32), ValueError, r"shape \(3,\)"),
    (True, TypeError, "action"),
    (np.ones(3, np.bool_), TypeError, r"action.*bool"),
    ("abc", TypeError, "action"),
]
BAD_BATCH = [
    (np.zeros(3, np.float32), ValueError, r"shape \(2, 3\)"),  # unbatched: not broadcast
    (np.zeros((NUM_ENVS, 2), np.float32), ValueError, r"shape \(2, 3\)"),
    (np.ones((NUM_ENVS, 3), np.bool_), TypeError, r"action.*bool"),
    ("abc", TypeError, "action"),
]


@pytest.fixture(scope="module")
def truncating():
    return horizax.make(ID, **HORIZON)


@pytest.fixture(scope="module")
def terminating():
    return horizax.make(ID, **BREACH)


def oversized(fenv, scale=10.0):
    """f32[3], far outside the Box, not along a diagonal (a per-component clip turns it)."""
    return np.array([scale, 0.2 * scale, 0.0], np.float32) * fenv.dv_max


# --- Gymnasium -------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ORBITAL_IDS)
def test_gymnasium_check_env_passes(env_id):
    env = hg.make(env_id, render_mode="rgb_array", **HORIZON)
    assert isinstance(env.action_space, gymnasium.spaces.Box)
    assert env.action_space.dtype == np.float32 and env.action_space.shape == (3,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The family's observation is unbounded by design; the checker only advises bounds.
        infinite = r".*A Box observation space m\w+ value is -?infinity"
        warnings.filterwarnings("ignore", message=infinite)
        # One game's frames suffice: the three share the family's one viewer.
        check_env(env, skip_render_check=env_id != ID)


@pytest.mark.parametrize("config", ENDINGS)
def test_gymnasium_episode_ends_with_one_flag(config, request):
    env = hg.GymnasiumEnv(request.getfixturevalue(config))
    env.reset(seed=0)
    flags = [env.step(ZERO)[2:4] for _ in ENDINGS[config]]
    assert flags == ENDINGS[config], f"{config}: terminated and truncated passed apart"


def test_gymnasium_action_rule(truncating):
    env = hg.GymnasiumEnv(truncating)
    env.reset(seed=0)
    for action, error, match in BAD_SINGLE:
        with pytest.raises(error, match=match):
            env.step(action)
    env.step(np.zeros(3, np.int64))  # integers are cast to f32
    env.step([0.1, 0.0, -0.1])  # a list of Python floats too
    *_, info = env.step(oversized(truncating))  # outside the bounds: accepted, unclipped
    assert info["applied_dv"].shape == (1, 3)


# --- Gymnasium vector env ----------------------------------------------------------------------


@pytest.mark.parametrize("config", ENDINGS)
def test_vector_env_steps_a_batch_to_each_ending(config, request):
    envs = hg.GymnasiumVectorEnv(request.getfixturevalue(config), NUM_ENVS)
    assert envs.action_space == gymnasium.spaces.Box(-0.5, 0.5, (NUM_ENVS, 3), np.float32)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (NUM_ENVS, 12) and obs.dtype == np.float32
    for t, expected in enumerate(ENDINGS[config]):
        obs, rewards, terms, truncs, _ = envs.step(np.zeros((NUM_ENVS, 3), np.float32))
        assert rewards.shape == (NUM_ENVS,) and np.isfinite(rewards).all()
        flags = [tuple(pair) for pair in zip(terms.tolist(), truncs.tolist(), strict=True)]
        assert flags == [expected] * NUM_ENVS, f"{config}, step {t + 1}"
    _, rewards, terms, truncs, _ = envs.step(envs.action_space.sample())
    assert not terms.any() and not truncs.any(), "NEXT_STEP: the step after an end resets"
    assert (rewards == 0.0).all()


def test_vector_env_action_rule(truncating):
    envs = hg.GymnasiumVectorEnv(truncating, NUM_ENVS)
    envs.reset(seed=0)
    for action, error, match in BAD_BATCH:
        with pytest.raises(error, match=match):
            envs.step(action)
    envs.step(np.zeros((NUM_ENVS, 3), np.int32))  # integers are cast to f32
    envs.step(np.stack([oversized(truncating)] * NUM_ENVS).astype(np.float64))


def test_same_observations_through_gymnasium_vector_and_native(truncating):
    """Contract 6 with in-bounds, oversized and non-finite commands: every path hands the
    same values to the family (no adapter clips), so the episodes agree bit for bit.

    All three drive ``horizax.make(ID, max_horizon_s=50.0)`` (one object: the adapters'
    programs compiled by the tests above are reused)."""
    seed, rng = 3, np.random.default_rng(0)
    native = truncating
    single, envs = hg.GymnasiumEnv(native), hg.GymnasiumVectorEnv(native, NUM_ENVS)
    big = oversized(native)
    rows = [ZERO, big, np.full(3, np.nan, np.float32), -big, rng.uniform(-0.5, 0.5, 3)]
    actions = np.stack([rows, rows[::-1]], axis=1).astype(np.float32)  # [T, NUM_ENVS, 3]

    reset, step = jax.jit(native.reset), jax.jit(native.step)

    def native_run(env_seed, env_actions):
        key = jax.random.PRNGKey(env_seed)
        state, out = reset(key)
        observations = [np.asarray(out.observation)]
        for t, action in enumerate(env_actions):
            state, out = step(engine.step_key(key, jnp.int32(t)), state, action)
            observations.append(np.asarray(out.observation))
        return np.stack(observations)

    obs, _ = single.reset(seed=seed)
    single_obs, infos = [obs], []
    for action in actions[:, 0]:
        obs, *_, info = single.step(action)
        single_obs.append(obs)
        infos.append(info)
    obs, _ = envs.reset(seed=seed)
    vector_obs = [obs] + [envs.step(action)[0] for action in actions]

    np.testing.assert_array_equal(np.stack(single_obs), native_run(seed, actions[:, 0]))
    vector_obs = np.stack(vector_obs)
    for i in range(NUM_ENVS):
        expected = native_run(seed + i, actions[:, i])
        np.testing.assert_array_equal(vector_obs[:, i], expected, f"vector env {i}")

    applied = infos[1]["applied_dv"][0]
    assert np.linalg.norm(np.cross(applied, big)) < 1e-4 * np.linalg.norm(big), (
        "the oversized command kept its direction: the family clipped its norm, not the adapter"
    )
    assert 0.0 < np.linalg.norm(applied) <= native.dv_max * (1 + 1e-6)
    assert infos[2]["invalid_action"].tolist() == [True], "NaN reaches the family's rule"
    assert not infos[2]["applied_dv"].any(), "a non-finite command is applied as no thrust"


# --- dm_env ----------------------------------------------------------------------------------


def test_dm_env_specs_and_a_few_steps(truncating):
    env = DmEnv(truncating, seed=0)
    spec = env.action_spec()
    assert isinstance(spec, specs.BoundedArray) and not isinstance(spec, specs.DiscreteArray)
    assert spec.shape == (3,) and spec.dtype == np.float32 and spec.name == "action"
    np.testing.assert_array_equal(spec.minimum, np.full(3, -truncating.dv_max, np.float32))
    np.testing.assert_array_equal(spec.maximum, np.full(3, truncating.dv_max, np.float32))
    spec.validate(spec.generate_value())
    assert env.observation_spec().shape == (12,)
    env.observation_spec().validate(env.reset().observation)
    for _ in range(3):
        timestep = env.step(np.asarray(truncating.action_space.sample(jax.random.PRNGKey(1))))
        assert timestep.mid() and timestep.discount == 1.0
        assert timestep.reward.dtype == np.float32
        env.observation_spec().validate(timestep.observation)


@pytest.mark.parametrize(("config", "discount"), [("truncating", 1.0), ("terminating", 0.0)])
def test_dm_env_episode_ends_with_its_discount(config, discount, request):
    env = DmEnv(request.getfixturevalue(config), seed=0)
    env.reset()
    timesteps = [env.step(ZERO) for _ in ENDINGS[config]]
    assert all(ts.mid() for ts in timesteps[:-1]), "no end before the last step"
    assert timesteps[-1].last() and timesteps[-1].discount == discount, (
        f"{config}: dm_env tells the two endings apart by the discount"
    )


def test_dm_env_action_rule(truncating):
    env = DmEnv(truncating)
    env.reset()
    for action, error, match in BAD_SINGLE:
        with pytest.raises(error, match=match):
            env.step(action)
    assert env.step(np.zeros(3, np.int64)).mid()
    assert env.step(oversized(truncating)).mid()


# --- TorchRL ---------------------------------------------------------------------------------


def torch_step(env, action):
    return env.step(TensorDict({"action": action}, [NUM_ENVS]))["next"]


def test_torchrl_check_env_specs(truncating):
    env = TorchRLEnv(truncating, num_envs=NUM_ENVS)
    assert isinstance(env.action_spec, Bounded)
    assert env.action_spec.shape == (NUM_ENVS, 3) and env.action_spec.dtype == torch.float32
    assert float(env.action_spec.space.high.max()) == truncating.dv_max
    check_env_specs(env)


@pytest.mark.parametrize("config", ENDINGS)
def test_torchrl_episode_ends_with_one_flag(config, request):
    env = TorchRLEnv(request.getfixturevalue(config), num_envs=NUM_ENVS)
    env.reset()
    for t, expected in enumerate(ENDINGS[config]):
        out = torch_step(env, torch.zeros(NUM_ENVS, 3))
        terminated, truncated = (out[k].squeeze(-1).tolist() for k in ("terminated", "truncated"))
        flags = list(zip(terminated, truncated, strict=True))
        assert flags == [expected] * NUM_ENVS, f"{config}, step {t + 1}"
        assert out["done"].squeeze(-1).tolist() == [any(expected)] * NUM_ENVS


def test_torchrl_action_rule(truncating):
    env = TorchRLEnv(truncating, num_envs=NUM_ENVS)
    env.reset()
    with pytest.raises(ValueError, match=r"shape \(2, 3\)"):
        torch_step(env, torch.zeros(NUM_ENVS, 2))
    with pytest.raises(TypeError, match=r"action.*bool"):
        torch_step(env, torch.ones(NUM_ENVS, 3, dtype=torch.bool))
    with pytest.raises(TypeError, match="action"):
        env.step(TensorDict({"action": "abc"}, [NUM_ENVS]))
    torch_step(env, torch.zeros(NUM_ENVS, 3, dtype=torch.int64))  # cast to f32
    big = torch.from_numpy(np.stack([oversized(truncating)] * NUM_ENVS))
    torch_step(env, big.double().requires_grad_())  # a policy's output: detached, cast


# --- gymnax ----------------------------------------------------------------------------------


@functools.cache
def gymnax_jitted(fenv):
    """The wrapper and its jitted reset/step, compiled once per environment object."""
    env = ToGymnax(fenv)
    return env, jax.jit(env.reset), jax.jit(env.step)


def test_gymnax_reset_and_step_under_jit(truncating):
    env, reset, step = gymnax_jitted(truncating)
    params = env.default_params
    space = env.action_space(params)
    assert type(space).__name__ == "Box" and space.shape == (3,) and env.num_actions == 3
    assert space.low == -truncating.dv_max and space.high == truncating.dv_max
    key = jax.random.PRNGKey(0)
    obs, state = reset(key, params)
    assert env.observation_space(params).contains(obs)
    for i in range(3):
        action = space.sample(jax.random.PRNGKey(10 + i))
        assert space.contains(action)
        obs, state, reward, done, _ = step(key, state, action, params)
        assert obs.shape == (12,) and reward.dtype == jnp.float32 and not bool(done)
    assert int(state.time) == 3


@pytest.mark.parametrize(("config", "discount"), [("truncating", 1.0), ("terminating", 0.0)])
def test_gymnax_episode_ends_with_one_flag(config, discount, request):
    env, reset, step = gymnax_jitted(request.getfixturevalue(config))
    key = jax.random.PRNGKey(0)
    params = env.default_params  # the same pytree as the other tests: no new compile
    _, state = reset(key, params)
    for t, expected in enumerate(ENDINGS[config]):
        _, state, _, done, info = step(key, state, jnp.zeros(3), params)
        flags = (bool(info["terminated"]), bool(info["truncated"]))
        assert flags == expected and bool(done) == any(expected), f"{config}, step {t + 1}"
    assert float(info["discount"]) == discount
    _, state, reward, done, _ = step(key, state, jnp.zeros(3), params)
    assert int(state.time) == 0 and not bool(done), "the next step starts a new episode"
    assert float(reward) == 0.0, "a reset step pays nothing"


def test_gymnax_action_rule(truncating):
    env, reset, step = gymnax_jitted(truncating)
    key, params = jax.random.PRNGKey(0), env.default_params
    _, state = reset(key, params)
    for action, error, match in BAD_SINGLE:  # eager: checked before anything runs
        with pytest.raises(error, match=match):
            env.step(key, state, action, params)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):  # under jit: at trace time
        step(key, state, jnp.zeros(2), params)
    step(key, state, jnp.asarray(oversized(truncating)), params)  # unclipped, accepted


# --- every adapter ---------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", ORBITAL_IDS)
def test_every_adapter_converts_the_box(env_id):
    fenv = horizax.make(env_id)
    low, high = -fenv.dv_max, fenv.dv_max
    box = gymnasium.spaces.Box(low, high, (3,), np.float32)
    assert hg.GymnasiumEnv(fenv).action_space == box
    assert hg.GymnasiumVectorEnv(fenv, NUM_ENVS).single_action_space == box
    dm_spec = DmEnv(fenv).action_spec()
    assert (dm_spec.shape, dm_spec.minimum.max(), dm_spec.maximum.min()) == ((3,), low, high)
    torch_spec = TorchRLEnv(fenv, num_envs=NUM_ENVS).action_spec
    assert isinstance(torch_spec, Bounded) and torch_spec.shape == (NUM_ENVS, 3)
    gymnax_space = ToGymnax(fenv).action_space()
    assert (gymnax_space.low, gymnax_space.high, gymnax_space.shape) == (low, high, (3,))


class _BoolActions(Corridor):
    @property
    def action_space(self) -> Box:  # pyright: ignore[reportIncompatibleMethodOverride]
        return Box(False, True, (2,), jnp.bool_)


@pytest.mark.parametrize(
    "make",
    [hg.GymnasiumEnv, lambda e: hg.GymnasiumVectorEnv(e, 2), DmEnv, TorchRLEnv, ToGymnax],
    ids=["gymnasium", "vector", "dm_env", "torchrl", "gymnax"],
)
def test_every_adapter_refuses_a_bool_box_action_space(make):
    with pytest.raises(TypeError, match="Discrete action space or a Box of a float or integer"):
        make(_BoolActions())


def test_cli_runs_an_orbital_id(capsys):
    assert cli.main(["run", "--env", ID, "--batch", "2", "--steps", "6"]) == 0
    out = capsys.readouterr().out
    assert f"environment      {ID}" in out and "steps/s" in out
