"""The PettingZoo adapter on the orbital games: PettingZoo's own API tests and the boundary."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test

from horizax.adapters.pettingzoo import ParallelEnv


def test_parallel_api_test_passes():
    env = ParallelEnv("Orbital-LadyBanditGuard-v0", n_guards=2, n_bandits=2, max_horizon_s=100.0)
    assert env.possible_agents == ["guard_0", "guard_1", "bandit_0", "bandit_1"]
    parallel_api_test(env, num_cycles=30)


def test_parallel_seed_test_passes():
    parallel_seed_test(lambda: ParallelEnv("Orbital-PursuitEvasion-v0", max_horizon_s=100.0))


def test_the_horizon_truncates_every_agent():
    env = ParallelEnv("Orbital-LadyBanditGuard-v0", max_horizon_s=30.0)
    env.reset(seed=0)
    zero = {a: np.zeros(3, np.float32) for a in env.agents}
    for _ in range(2):
        _, _, term, trunc, _ = env.step(zero)
        assert not any(term.values()) and not any(trunc.values())
    _, rewards, term, trunc, _ = env.step(zero)
    assert trunc == {"guard_0": True, "bandit_0": True} and not any(term.values())
    assert env.agents == [] and set(rewards) == {"guard_0", "bandit_0"}
    assert env.step({}) == ({}, {}, {}, {}, {})


def test_a_breach_terminates_every_agent():
    env = ParallelEnv("Orbital-LadyBanditGuard-v0", breach_radius_m=5000.0)
    env.reset(seed=0)
    _, rewards, term, trunc, _ = env.step({a: np.zeros(3, np.float32) for a in env.agents})
    assert term == {"guard_0": True, "bandit_0": True} and not any(trunc.values())
    assert rewards["bandit_0"] > 0 > rewards["guard_0"]


def test_bad_actions_are_rejected_naming_the_agent():
    env = ParallelEnv("Orbital-LadyBanditGuard-v0")
    env.reset(seed=0)
    with pytest.raises(KeyError, match="bandit_0"):
        env.step({"guard_0": np.zeros(3)})
    with pytest.raises(ValueError, match="guard_0"):
        env.step({"guard_0": np.zeros(2), "bandit_0": np.zeros(3)})
    with pytest.raises(TypeError, match="guard_0"):
        env.step({"guard_0": True, "bandit_0": np.zeros(3)})


def test_a_seed_replays_the_same_episode_and_reset_continues():
    a, b = ParallelEnv("Orbital-PursuitEvasion-v0"), ParallelEnv("Orbital-PursuitEvasion-v0")
    first, _ = a.reset(seed=3)
    again, _ = b.reset(seed=3)
    np.testing.assert_array_equal(first["guard_0"], again["guard_0"])
    nxt, _ = a.reset()
    assert not np.array_equal(nxt["guard_0"], first["guard_0"])
    frame = ParallelEnv("Orbital-PursuitEvasion-v0", render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().shape == (256, 256, 3)
