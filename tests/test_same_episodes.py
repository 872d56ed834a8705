"""One id and seed play the same episodes through the native API and every adapter.

For each id, every path is driven with the same actions (action ``i`` of episode ``j``) until
``EPISODES`` episodes have ended, crossing at least three autoresets, and records each
episode as its first observation followed by ``(observation, reward, terminated,
truncated)`` per step. The records must be identical: the layouts (first observations), the
dynamics (Dynamic-Obstacles moves its balls at random), rewards and both flags.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.maze.types import observation_dict

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("dm_env")
torch = pytest.importorskip("torch")
pytest.importorskip("gymnax")
pytestmark = pytest.mark.slow  # every path compiles its own rollout: about two minutes

from horizax.adapters import dm_env as hdm  # noqa: E402
from horizax.adapters import gymnasium as hgym  # noqa: E402
from horizax.adapters import torchrl as htorch  # noqa: E402
from horizax.adapters.gymnax import ToGymnax  # noqa: E402
from horizax.maze.autoreset import AutoReset  # noqa: E402

SEED = 11
EPISODES = 4
MAZE_KEYS = ("agent_position", "target_position", "walls", "action_mask", "step_count")

CASES = {
    # costly layouts; truncation every 8 steps
    "MiniGrid-KeyCorridorS3R1-v0": {"max_steps": 8},
    # stochastic dynamics; random actions often hit a ball (termination)
    "MiniGrid-Dynamic-Obstacles-5x5-v0": {"max_steps": 10},
    # jumanji's key threading; small mazes reach the target now and then
    "Maze-v0": {"num_rows": 4, "num_cols": 4, "time_limit": 6},
}


def _actions(num_actions: int) -> np.ndarray:
    return np.random.default_rng(SEED).integers(0, num_actions, size=(EPISODES, 64))


def canonical(obs, is_maze: bool):
    """The comparable part of an observation: the grid image, or the Maze's arrays."""
    if is_maze:
        return {k: np.asarray(obs[k]) for k in MAZE_KEYS}
    if isinstance(obs, dict):
        obs = obs["image"]
    return np.asarray(obs)


def play(path, actions, is_maze):
    """Drives a path: ``path.first()``, ``path.step(a)`` and ``path.next_episode()``."""
    episodes = [[canonical(path.first(), is_maze)]]
    step = 0
    while True:
        obs, reward, terminated, truncated = path.step(int(actions[len(episodes) - 1][step]))
        episodes[-1].append(
            (canonical(obs, is_maze), float(reward), bool(terminated), bool(truncated))
        )
        step += 1
        if terminated or truncated:
            if len(episodes) == EPISODES:
                return episodes
            episodes.append([canonical(path.next_episode(), is_maze)])
            step = 0


class NativeGrid:
    def __init__(self, env_id, overrides):
        self.env = horizax.make(env_id, **overrides)
        self.step_fn = jax.jit(self.env.step)

    def first(self):
        self.ts = self.env.reset(jax.random.PRNGKey(SEED))
        return self.ts.observation

    def step(self, action):
        self.ts = self.step_fn(self.ts, np.int32(action))
        ts = self.ts
        return ts.observation, ts.reward, ts.is_termination(), ts.is_truncation()

    def next_episode(self):
        self.ts = self.step_fn(self.ts, np.int32(0))  # autoreset: the action is ignored
        assert bool(self.ts.is_start())
        return self.ts.observation


class NativeMaze:
    def __init__(self, env_id, overrides):
        self.env = AutoReset(horizax.make(env_id, **overrides))
        self.step_fn = jax.jit(self.env.step)

    def first(self):
        self.state, timestep = self.env.reset(jax.random.PRNGKey(SEED))
        return observation_dict(timestep.observation)

    def step(self, action):
        self.state, timestep = self.step_fn(self.state, np.int32(action))
        self.pending = observation_dict(timestep.observation)
        last = observation_dict(timestep.extras["next_obs"])
        return last, timestep.reward, timestep.terminated(), timestep.truncated()

    def next_episode(self):
        return self.pending


class GymnasiumEnv:
    def __init__(self, env_id, overrides):
        self.env = hgym.make(env_id, **overrides)

    def first(self):
        return self.env.reset(seed=SEED)[0]

    def step(self, action):
        return self.env.step(action)[:4]

    def next_episode(self):
        return self.env.reset()[0]


class GymnasiumVector:
    def __init__(self, mode, env_id, overrides):
        self.mode = mode
        self.env = hgym.make_vec(env_id, 1, autoreset_mode=mode, **overrides)

    def first(self):
        return self._one(self.env.reset(seed=SEED)[0])

    @staticmethod
    def _one(obs):
        if isinstance(obs, dict):
            return {k: v[0] for k, v in obs.items()}
        return obs[0]

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(np.array([action]))
        obs = self._one(obs)
        if self.mode == "SameStep" and (terminated[0] or truncated[0]):
            self.pending = obs
            obs = info["final_obs"][0]
        return obs, reward[0], terminated[0], truncated[0]

    def next_episode(self):
        if self.mode == "NextStep":
            return self._one(self.env.step(np.array([0]))[0])
        if self.mode == "SameStep":
            return self.pending
        return self._one(self.env.reset(options={"reset_mask": np.array([True])})[0])


class DmEnv:
    def __init__(self, env_id, overrides):
        self.env = hdm.DmEnv(env_id, seed=SEED, **overrides)

    def first(self):
        return self.env.reset().observation

    def step(self, action):
        timestep = self.env.step(action)
        terminated = timestep.last() and timestep.discount == 0.0
        truncated = timestep.last() and timestep.discount == 1.0
        return timestep.observation, timestep.reward, terminated, truncated

    def next_episode(self):
        timestep = self.env.step(0)  # dm_env: the step after LAST starts a new episode
        assert timestep.first()
        return timestep.observation


class TorchRLEnv:
    def __init__(self, env_id, overrides):
        self.env = htorch.TorchRLEnv(env_id, num_envs=1, seed=SEED, **overrides)
        self.keys = list(self.env.observation_spec.keys())

    def _obs(self, td):
        return {k: td[k][0].numpy() for k in self.keys}

    def first(self):
        self.root = self.env.reset()
        return self._obs(self.root)

    def step(self, action):
        self.root.set("action", torch.tensor([action]))
        out, self.root = self.env.step_and_maybe_reset(self.root)
        nxt = out["next"]
        flags = (nxt["terminated"][0, 0].item(), nxt["truncated"][0, 0].item())
        return self._obs(nxt), nxt["reward"][0, 0].item(), *flags

    def next_episode(self):
        return self._obs(self.root)  # step_and_maybe_reset already reset the finished env


class Gymnax:
    def __init__(self, env_id, overrides):
        self.env, self.params = ToGymnax.wrap(horizax.make(env_id, **overrides))
        self.step_fn = jax.jit(self.env.step)

    def first(self):
        obs, self.state = self.env.reset(jax.random.PRNGKey(SEED), self.params)
        return obs

    def step(self, action):
        key = jax.random.PRNGKey(0)
        obs, self.state, reward, _, info = self.step_fn(
            key, self.state, np.int32(action), self.params
        )
        return obs, reward, info["terminated"], info["truncated"]

    def next_episode(self):
        key = jax.random.PRNGKey(0)
        obs, self.state, *_ = self.step_fn(key, self.state, np.int32(0), self.params)
        return obs


PATHS = {
    "gymnasium": GymnasiumEnv,
    "vector-next-step": lambda i, o: GymnasiumVector("NextStep", i, o),
    "vector-same-step": lambda i, o: GymnasiumVector("SameStep", i, o),
    "vector-disabled": lambda i, o: GymnasiumVector("Disabled", i, o),
    "dm_env": DmEnv,
    "torchrl": TorchRLEnv,
    "gymnax": Gymnax,
}


def assert_same_episodes(reference, other, name):
    assert len(reference) == len(other), f"{name}: number of episodes"
    for j, (ref_episode, episode) in enumerate(zip(reference, other, strict=True)):
        assert len(ref_episode) == len(episode), f"{name}: length of episode {j}"
        for i, (ref, got) in enumerate(zip(ref_episode, episode, strict=True)):
            where = f"{name}: episode {j}, " + ("first observation" if i == 0 else f"step {i}")
            ref_obs, got_obs = (ref, got) if i == 0 else (ref[0], got[0])
            jax.tree.map(
                lambda a, b, where=where: np.testing.assert_array_equal(a, b, err_msg=where),
                ref_obs,
                got_obs,
            )
            if i:
                assert ref[1:] == got[1:], f"{where}: (reward, terminated, truncated)"


@pytest.mark.parametrize("env_id", sorted(CASES))
def test_same_id_and_seed_play_the_same_episodes_on_every_path(env_id):
    overrides = CASES[env_id]
    is_maze = env_id.startswith("Maze")
    actions = _actions(4 if is_maze else horizax.make(env_id, **overrides).num_actions)
    native = (NativeMaze if is_maze else NativeGrid)(env_id, overrides)
    reference = play(native, actions, is_maze)
    # The run crosses both kinds of episode end or at least three autoresets of one kind.
    assert len(reference) == EPISODES
    layouts = {canonical_bytes(episode[0]) for episode in reference}
    assert len(layouts) > 1, "every episode drew the same layout: the schedule is not moving"
    for name, make_path in PATHS.items():
        assert_same_episodes(reference, play(make_path(env_id, overrides), actions, is_maze), name)


def canonical_bytes(obs) -> bytes:
    return b"".join(np.ascontiguousarray(x).tobytes() for x in jax.tree.leaves(obs))


def test_a_different_seed_plays_different_episodes():
    """Guards the comparison above against paths that ignore the seed altogether."""
    env_id, overrides = "MiniGrid-KeyCorridorS3R1-v0", CASES["MiniGrid-KeyCorridorS3R1-v0"]
    first = DmEnv(env_id, overrides).first()
    other = hdm.DmEnv(env_id, seed=SEED + 1, **overrides).reset().observation
    assert not np.array_equal(first, other)
