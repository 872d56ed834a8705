"""Every adapter's environment pickles with the standard `pickle` and continues identically.

(Gymnasium's are in `test_gymnasium_registration.py`.)
"""

from __future__ import annotations

import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax

IDS = ["MiniGrid-LavaGapS5-v0", "Maze-v0"]


def _round_trip(obj):
    return pickle.loads(pickle.dumps(obj))


def _same_tree(a, b) -> bool:
    leaves = jax.tree.leaves(jax.tree.map(lambda x, y: np.array_equal(x, y), a, b))
    return bool(leaves) and all(leaves)


@pytest.mark.parametrize("env_id", IDS)
def test_dm_env_pickles_mid_episode_and_continues(env_id):
    pytest.importorskip("dm_env")
    from horizax.adapters.dm_env import DmEnv

    env = DmEnv(env_id, seed=4)
    env.reset()
    env.step(1)
    back = _round_trip(env)
    for action in (2, 2, 1, 2, 0, 2):
        a, b = env.step(action), back.step(action)
        assert a.step_type == b.step_type and a.reward == b.reward and a.discount == b.discount
        assert _same_tree(a.observation, b.observation)


@pytest.mark.parametrize("env_id", IDS)
def test_torchrl_env_pickles_and_continues(env_id):
    torch = pytest.importorskip("torch")
    from tensordict import TensorDict

    from horizax.adapters.torchrl import TorchRLEnv

    env = TorchRLEnv(env_id, num_envs=3, seed=2)
    env.reset()
    env.step(TensorDict({"action": torch.tensor([1, 2, 0])}, [3]))
    back = _round_trip(env)
    for action in (1, 2, 2, 0, 2):
        actions = torch.full((3,), action)
        a = env.step(TensorDict({"action": actions}, [3]))["next"]
        b = back.step(TensorDict({"action": actions.clone()}, [3]))["next"]
        assert set(a.keys()) == set(b.keys())
        for key in sorted(a.keys()):  # iterating a TensorDict walks its batch, not its keys
            assert torch.equal(a[key], b[key]), key


@pytest.mark.parametrize("env_id", IDS)
def test_gymnax_env_pickles_and_plays_the_same_rollout(env_id):
    pytest.importorskip("gymnax")
    from horizax.adapters.gymnax import ToGymnax

    env, params = ToGymnax.wrap(horizax.make(env_id))
    back = _round_trip(env)

    def rollout(gymnax_env, key):
        # Jitted: eagerly, every primitive of the Maze's generator compiles on its own.
        reset, step = jax.jit(gymnax_env.reset), jax.jit(gymnax_env.step)
        obs, state = reset(key, params)
        outs = [obs]
        for action in (1, 2, 2, 0, 2, 1):
            obs, state, reward, done, _ = step(key, state, jnp.int32(action), params)
            outs += [obs, reward, done]
        return outs

    key = jax.random.PRNGKey(9)
    assert _same_tree(rollout(env, key), rollout(back, key))
