"""Gymnasium registrations serialise and Gymnasium environments pickle.

String entry points with the id in the spec's ``kwargs`` make every spec JSON-serialisable,
so tools that store or ship specs (process-based vector envs, experiment loggers) rebuild the
same environment from the spec alone.
"""

from __future__ import annotations

import importlib
import pickle

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.envs.registration import EnvSpec  # noqa: E402

import horizax  # noqa: E402
from horizax.adapters import gymnasium as hg  # noqa: E402
from horizax.adapters.gymnasium_vector import GymnasiumVectorEnv  # noqa: E402

GymnasiumEnv = hg.GymnasiumEnv
GYM_IDS = [f"horizax/{i}" for i in horizax.registered_ids(include_aliases=True)]


def test_every_id_is_registered_with_string_entry_points():
    assert len(GYM_IDS) > 100, "ids and aliases of every family"
    for gym_id in GYM_IDS:
        spec = gymnasium.spec(gym_id)
        # Gridworld ids: the GymnasiumEnv subclass named as MiniGrid's class for the id.
        module, _, name = spec.entry_point.partition(":")
        assert issubclass(getattr(importlib.import_module(module), name), GymnasiumEnv), gym_id
        assert module in ("horizax.adapters.gymnasium", "horizax.adapters.minigrid_classes")
        assert spec.vector_entry_point == (
            "horizax.adapters.gymnasium_vector:GymnasiumVectorEnv"
        ), gym_id
        assert spec.kwargs == {"env": gym_id.removeprefix("horizax/")}, gym_id


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_every_spec_round_trips_through_json(gym_id):
    spec = gymnasium.spec(gym_id)
    back = EnvSpec.from_json(spec.to_json())
    assert back == spec


def test_a_spec_from_json_makes_the_same_environment():
    spec = EnvSpec.from_json(gymnasium.spec("horizax/MiniGrid-DoorKey-5x5-v0").to_json())
    env, direct = gymnasium.make(spec), gymnasium.make("horizax/MiniGrid-DoorKey-5x5-v0")
    a, _ = env.reset(seed=3)
    b, _ = direct.reset(seed=3)
    np.testing.assert_array_equal(a["image"], b["image"])
    assert a["mission"] == b["mission"]


def test_make_and_make_vec_keep_the_id_in_their_specs():
    env = hg.make("MiniGrid-Empty-5x5-v0", max_steps=9)
    assert env.spec.kwargs == {"env": "MiniGrid-Empty-5x5-v0", "max_steps": 9}
    again = gymnasium.make(env.spec)
    assert again.unwrapped.max_steps == 9
    envs = gymnasium.make_vec("horizax/MiniGrid-Empty-5x5-v0", num_envs=3, max_steps=9)
    assert isinstance(envs, GymnasiumVectorEnv) and envs.num_envs == 3


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_every_gymnasium_env_pickles(gym_id):
    env = gymnasium.make(gym_id)
    back = pickle.loads(pickle.dumps(env))
    assert back.unwrapped.fenv == env.unwrapped.fenv, gym_id


@pytest.mark.parametrize("gym_id", ["horizax/MiniGrid-LavaGapS5-v0", "horizax/Maze-v0"])
def test_an_unpickled_env_plays_the_same_episode_mid_run(gym_id):
    env = gymnasium.make(gym_id)
    env.reset(seed=5)
    for action in (1, 2, 2):
        env.step(action)
    back = pickle.loads(pickle.dumps(env))
    for action in (2, 0, 2, 1, 2):
        a, ra, ta, ua, _ = env.step(action)
        b, rb, tb, ub, _ = back.step(action)
        assert (ra, ta, ua) == (rb, tb, ub)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
        if ta or ua:
            break


def test_a_vector_env_pickles_and_continues():
    envs = hg.make_vec("MiniGrid-Empty-Random-5x5-v0", num_envs=3)
    envs.reset(seed=1)
    envs.step(np.array([2, 1, 0]))
    back = pickle.loads(pickle.dumps(envs))
    a = envs.step(np.array([2, 2, 2]))
    b = back.step(np.array([2, 2, 2]))
    np.testing.assert_array_equal(a[0]["image"], b[0]["image"])
    np.testing.assert_array_equal(a[1], b[1])
