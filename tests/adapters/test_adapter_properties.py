"""Property: every adapter plays the episodes the episode engine plays (contract 6).

For seeds and action sequences that hypothesis generates (in range; out of range too for a
``Box``, whose commands every adapter passes on unclipped), each adapter is driven
with the actions and compared, step by step, with the engine's runs of
`tests/property_support.py` (same id, time limit `LIMIT`, seed): observations, rewards,
``terminated`` and ``truncated`` apart, the reset after an end and the key schedule. The
engine run each adapter should match is the one of the autoreset mode it implements:

* gymnax (`ToGymnax`, over the gridworld's own ``Timestep`` API for a gridworld) and
  dm_env: NEXT_STEP (the step after an end is a reset that ignores its action; dm_env's is a
  FIRST timestep with reward None); gymnax is stepped under `jit`, so it takes out-of-range
  actions too;
* the Gymnasium ``Env`` (``reset()`` after an end) and TorchRL (``step_and_maybe_reset``):
  DISABLED with the finished episode restarted;
* the Gymnasium vector env: each of its three modes against the engine's, two environments
  seeded ``s`` and ``s + 1``;
* PettingZoo (the orbital games' multi-agent view): the view stepped by hand with the
  engine's step keys and next-episode key, every agent's flags apart.

Out-of-range discrete actions raise `ValueError` in the adapters that receive concrete
values (all but gymnax), which `test_out_of_range_discrete_actions_raise` pins.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("dm_env")
torch = pytest.importorskip("torch")
pytest.importorskip("gymnax")
pytest.importorskip("pettingzoo")

import horizax  # noqa: E402
from horizax.adapters.dm_env import DmEnv  # noqa: E402
from horizax.adapters.gymnasium import GymnasiumEnv  # noqa: E402
from horizax.adapters.gymnasium_vector import GymnasiumVectorEnv  # noqa: E402
from horizax.adapters.gymnax import ToGymnax  # noqa: E402
from horizax.adapters.pettingzoo import ParallelEnv  # noqa: E402
from horizax.adapters.torchrl import TorchRLEnv  # noqa: E402
from horizax.core import episode as engine  # noqa: E402
from horizax.core import episode_keys  # noqa: E402
from horizax.core.episode import AutoresetMode  # noqa: E402
from horizax.core.spaces import Box, Dict, Discrete, Text  # noqa: E402
from tests import property_support as ps  # noqa: E402

pytestmark = pytest.mark.slow  # each adapter compiles its own programs for each id
# Adapters convert, the engine decides: at most 10 examples (the thorough profile gives the
# engine's properties 25).
FEW = settings(max_examples=min(10, settings.default.max_examples))
NEXT, SAME, DISABLED = AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED


def pytest_generate_tests(metafunc):
    if "code_id" in metafunc.fixturenames:
        metafunc.parametrize("code_id", ps.code_ids(metafunc.config))
    if "orbital_id" in metafunc.fixturenames:
        metafunc.parametrize("orbital_id", ps.orbital_ids())


def draw(data, env_id, count=1, *, out_of_range=False):
    """A seed and ``count`` action sequences; out of range too for a ``Box`` (every adapter
    passes its commands on unclipped) or where asked."""
    seed = data.draw(ps.seeds, label="seed")
    space = ps.view(env_id).action_space
    out_of_range = out_of_range or isinstance(space, Box)
    acts = [data.draw(ps.actions(space, out_of_range=out_of_range)) for _ in range(count)]
    return seed, acts


def python_obs(space, obs):
    """What a Gymnasium user receives for an engine observation: Text decoded, Discrete int."""
    if isinstance(space, Dict):
        return {k: python_obs(s, obs[k]) for k, s in space.spaces.items()}
    if isinstance(space, Text):
        return space.decode(np.asarray(obs))
    if isinstance(space, Discrete):
        return int(obs)
    return np.asarray(obs)


def assert_obs(got, expected, where):
    if isinstance(expected, dict):
        assert set(got) == set(expected), f"{where}: observation keys"
        for k in expected:
            assert_obs(got[k], expected[k], f"{where}, {k!r}")
    elif isinstance(expected, str | int):
        assert got == expected, f"{where}: {got!r} != {expected!r}"
    else:
        got = np.asarray(got)
        assert got.dtype == expected.dtype, f"{where}: dtype {got.dtype} != {expected.dtype}"
        np.testing.assert_array_equal(got, expected, err_msg=where)


def engine_step(run, k):
    """(reward, terminated, truncated) of step ``k`` of an engine run."""
    steps = run.steps
    return float(steps.reward[k]), bool(steps.terminated[k]), bool(steps.truncated[k])


# --- gymnax ------------------------------------------------------------------------------------


@functools.cache
def gymnax_program(env_id):
    env = horizax.make(env_id, max_steps=ps.LIMIT) if ps.kind(env_id) == "grid" else ps.view(env_id)
    gymnax_env, params = ToGymnax.wrap(env)

    def run(key, actions):
        obs, state = gymnax_env.reset(key, params)

        def body(state, action):
            obs, state, reward, done, info = gymnax_env.step(key, state, action, params)
            return state, (obs, reward, done, info["terminated"], info["truncated"])

        return obs, jax.lax.scan(body, state, actions)[1]

    return jax.jit(run)


@FEW
@given(data=st.data())
def test_gymnax_plays_the_next_step_run(code_id, data):
    # Stepped under jit, gymnax sees traced actions: out-of-range ones are applied as the
    # family documents, and must be so through the adapter (the gridworld's own Timestep API).
    seed, (actions,) = draw(data, code_id, out_of_range=True)
    run = ps.run_modes(code_id, seed, actions)[NEXT]
    first, (obs, reward, done, term, trunc) = gymnax_program(code_id)(
        engine.seed_key(seed), actions
    )
    image = (lambda o: o["image"]) if ps.kind(code_id) == "grid" else (lambda o: o)
    ps.assert_same(first, image(run.first.observation), "gymnax reset")
    ps.assert_same(obs, image(run.steps.observation), "gymnax observations")
    ps.assert_same(reward, run.steps.reward, "gymnax rewards")
    ps.assert_same((term, trunc), (run.steps.terminated, run.steps.truncated), "gymnax flags")
    ps.assert_same(done, run.steps.terminated | run.steps.truncated, "gymnax done")


# --- Gymnasium ---------------------------------------------------------------------------------


@FEW
@given(data=st.data())
def test_gymnasium_env_plays_the_disabled_run_with_resets(code_id, data):
    seed, (actions,) = draw(data, code_id)
    fenv = ps.view(code_id)
    run = ps.run_modes(code_id, seed, actions)[DISABLED]
    env = GymnasiumEnv(fenv)
    obs, _ = env.reset(seed=seed)
    assert_obs(obs, python_obs(fenv.observation_space, run.first.observation), "reset")
    for k, action in enumerate(actions):
        obs, reward, terminated, truncated, _ = env.step(action)
        assert type(reward) is float and type(terminated) is type(truncated) is bool
        assert (reward, terminated, truncated) == engine_step(run, k), f"step {k}"
        expected = python_obs(fenv.observation_space, ps.index(run.steps.observation, k))
        assert_obs(obs, expected, f"step {k}")
        if terminated or truncated:
            obs, _ = env.reset()  # the next episode, from the family's next-episode key
            expected = python_obs(fenv.observation_space, ps.index(run.restart, k))
            assert_obs(obs, expected, f"reset after step {k}")


def _vector_env_one(obs, i):
    """Environment ``i`` of a Gymnasium vector observation (a batched array or a tuple)."""
    if isinstance(obs, dict):
        return {k: _vector_env_one(v, i) for k, v in obs.items()}
    return obs[i]


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.value)
@FEW
@given(data=st.data())
def test_gymnasium_vector_env_plays_the_engine_runs_of_its_mode(code_id, mode, data):
    seed, acts = draw(data, code_id, count=2)
    fenv, space = ps.view(code_id), ps.view(code_id).observation_space
    runs = [ps.run_modes(code_id, seed + i, a)[mode] for i, a in enumerate(acts)]
    env = GymnasiumVectorEnv(fenv, 2, autoreset_mode=mode)
    obs, _ = env.reset(seed=seed)
    for i, run in enumerate(runs):
        assert_obs(_vector_env_one(obs, i), python_obs(space, run.first.observation), "reset")
    for k in range(ps.LENGTH):
        obs, rewards, terms, truncs, info = env.step(np.stack([a[k] for a in acts]))
        for i, run in enumerate(runs):
            where = f"{mode.value} env {i} step {k}"
            got = (float(rewards[i]), bool(terms[i]), bool(truncs[i]))
            assert got == engine_step(run, k), where
            expected = python_obs(space, ps.index(run.steps.observation, k))
            assert_obs(_vector_env_one(obs, i), expected, where)
            if mode is SAME and run.final.mask[k]:
                final = python_obs(space, ps.index(run.final.observation, k))
                assert_obs(info["final_obs"][i], final, f"{where}, final_obs")
        done = terms | truncs
        if mode is DISABLED and done.any():
            obs, _ = env.reset(options={"reset_mask": done})
            for i in np.flatnonzero(done):
                expected = python_obs(space, ps.index(runs[i].restart, k))
                assert_obs(_vector_env_one(obs, i), expected, f"restart of env {i} at {k}")


# --- dm_env, TorchRL --------------------------------------------------------------------------


@FEW
@given(data=st.data())
def test_dm_env_plays_the_next_step_run(code_id, data):
    seed, (actions,) = draw(data, code_id)
    run = ps.run_modes(code_id, seed, actions)[NEXT]
    env = DmEnv(ps.view(code_id), seed=seed)
    ps.assert_same(env.reset().observation, run.first.observation, "dm_env reset")
    previous_last = False
    for k, action in enumerate(actions):
        timestep = env.step(action)
        where = f"dm_env step {k}"
        ps.assert_same(timestep.observation, ps.index(run.steps.observation, k), where)
        if previous_last:  # the step after LAST: FIRST of the next episode, action ignored
            assert timestep.first() and timestep.reward is None, where
        else:
            reward, terminated, truncated = engine_step(run, k)
            assert float(timestep.reward) == reward, where
            assert timestep.last() == (terminated or truncated), where
            if timestep.last():
                assert float(timestep.discount) == (0.0 if terminated else 1.0), where
        previous_last = timestep.last()


@FEW
@given(data=st.data())
def test_torchrl_plays_the_disabled_runs_with_resets(code_id, data):
    seed, acts = draw(data, code_id, count=2)
    fenv = ps.view(code_id)
    runs = [ps.run_modes(code_id, seed + i, a)[DISABLED] for i, a in enumerate(acts)]
    env = TorchRLEnv(fenv, num_envs=2, seed=seed)
    keys = list(fenv.observation_space.spaces) if isinstance(fenv.observation_space, Dict) else []

    def observation(td, i):
        if not keys:
            return td["observation"][i].numpy()
        return {k: td[k][i].numpy() for k in keys}

    root = env.reset()
    for i, run in enumerate(runs):
        ps.assert_same(observation(root, i), run.first.observation, f"torchrl reset {i}")
    action_dtype = torch.int64 if isinstance(fenv.action_space, Discrete) else torch.float32
    for k in range(ps.LENGTH):
        root.set("action", torch.as_tensor(np.stack([a[k] for a in acts]), dtype=action_dtype))
        out, root = env.step_and_maybe_reset(root)
        nxt = out["next"]
        for i, run in enumerate(runs):
            where = f"torchrl env {i} step {k}"
            got = (
                nxt["reward"][i, 0].item(),
                nxt["terminated"][i, 0].item(),
                nxt["truncated"][i, 0].item(),
            )
            assert got == engine_step(run, k), where
            ps.assert_same(observation(nxt, i), ps.index(run.steps.observation, k), where)
            after = run.restart if run.steps.done[k] else run.steps.observation
            ps.assert_same(observation(root, i), ps.index(after, k), f"{where}, next root")


def test_out_of_range_discrete_actions_raise():
    env_id = "MiniGrid-Empty-5x5-v0"
    n = ps.view(env_id).action_space.n
    gym_env, vec_env = GymnasiumEnv(ps.view(env_id)), GymnasiumVectorEnv(ps.view(env_id), 1)
    dm, rl = DmEnv(ps.view(env_id)), TorchRLEnv(ps.view(env_id), num_envs=1)
    gym_env.reset(seed=0), vec_env.reset(seed=0), dm.reset()
    root = rl.reset()
    for bad in (-1, n, ps.INT32_MAX):
        with pytest.raises(ValueError, match="outside"):
            gym_env.step(bad)
        with pytest.raises(ValueError, match="outside"):
            vec_env.step(np.array([bad]))
        with pytest.raises(ValueError, match="outside"):
            dm.step(bad)
        with pytest.raises(ValueError, match="outside"):
            rl.step(root.set("action", torch.tensor([bad], dtype=torch.int64)))


# --- PettingZoo -------------------------------------------------------------------------------


@functools.cache
def multi_agent(env_id):
    menv = horizax.make(env_id, max_steps=ps.LIMIT).as_multi_agent()
    return menv, jax.jit(menv.reset), jax.jit(menv.step)


@FEW
@given(data=st.data())
def test_pettingzoo_plays_the_multi_agent_view(orbital_id, data):
    menv, reset, step = multi_agent(orbital_id)
    seed = data.draw(ps.seeds, label="seed")
    acts = {a: data.draw(ps.actions(s), label=a) for a, s in menv.action_spaces.items()}
    env = ParallelEnv(horizax.make(orbital_id, max_steps=ps.LIMIT))
    obs, _ = env.reset(seed=seed)
    key = np.asarray(engine.seed_key(seed))
    state, expected = reset(key)
    t = 0
    for k in range(ps.LENGTH):
        for a in env.possible_agents:
            np.testing.assert_array_equal(obs[a], expected.observations[a], f"{a} at step {k}")
        actions = {a: acts[a][k] for a in env.agents}
        obs, rewards, terms, truncs, _ = env.step(actions)
        state, expected = step(engine.step_key(key, np.int32(t)), state, actions)
        t += 1
        for a in env.possible_agents:
            where = f"{a} at step {k}"
            assert rewards[a] == float(expected.rewards[a]), where
            assert (terms[a], truncs[a]) == (
                bool(expected.terminated[a]),
                bool(expected.truncated[a]),
            ), where
            assert not (terms[a] and truncs[a]), f"{where}: terminated and truncated"
            assert truncs[a] == (t == ps.LIMIT and not terms[a]), f"{where}: the time limit"
        if not env.agents:  # every agent's episode ended: the next from the engine's key
            assert set(terms) == set(env.possible_agents)
            obs, _ = env.reset()
            key = np.asarray(episode_keys.next_episode_key(jax.numpy.asarray(key)))
            state, expected = reset(key)
            t = 0
        else:
            assert env.agents == env.possible_agents, "agents end their episode together"
