"""Stable-Baselines3 takes horizax's environments through the Gymnasium adapter.

SB3's checker and a short PPO run cover one id of each code family (`tests.code_families`).

Gridworlds (BabyAI's levels included) go through MiniGrid's own ``ImgObsWrapper`` at most
(SB3's policies take Box or Dict-of-Box observations, not MiniGrid's ``mission`` string);
every other id as it is, the
Maze included (its scalar ``step_count`` is a ``(1,)`` Box in the Gymnasium adapter,
`horizax.adapters.gymnasium_spaces`).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

gymnasium = pytest.importorskip("gymnasium")
sb3 = pytest.importorskip("stable_baselines3")

from stable_baselines3.common.env_checker import check_env  # noqa: E402

import horizax.adapters.gymnasium  # noqa: E402, F401  (registers horizax/<id>)
from tests import code_families as families  # noqa: E402

pytestmark = pytest.mark.reference

# One id of each code family for the per-id check: SB3's checker and a PPO update exercise
# the adapter and the environment's code; each id's constants are `tests/test_conformance.py`'s.
FAMILY_IDS = families.REPRESENTATIVES
SAMPLE = ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-Dynamic-Obstacles-5x5-v0", "Maze-v0"]


@pytest.fixture(autouse=True)
def _logs_in_tmp_path(tmp_path, monkeypatch):
    # SB3's logger makes a folder per model, by default in the system's temp directory.
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))


def make(env_id: str):
    env = gymnasium.make(f"horizax/{env_id}")
    if env_id.startswith(("MiniGrid-", "BabyAI-")):
        from minigrid.wrappers import ImgObsWrapper

        env = ImgObsWrapper(env)
    return env


def _ppo(env: Any, n_steps: int) -> Any:
    policy = (
        "MultiInputPolicy"
        if isinstance(env.observation_space, gymnasium.spaces.Dict)
        else "MlpPolicy"
    )
    return sb3.PPO(policy, env, n_steps=n_steps, batch_size=n_steps, n_epochs=1, device="cpu")


@pytest.mark.slow
@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_check_env_and_ppo_run(env_id):
    """SB3's checker passes, then PPO collects a rollout and updates once (the same process
    and env: the compiled reset and step are shared)."""
    env = make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # SB3's advice (e.g. image shapes)
        check_env(env, warn=True)
    model = _ppo(env, n_steps=16).learn(16)
    assert model.num_timesteps >= 16


def test_maze_has_no_scalar_box():
    space = gymnasium.make("horizax/Maze-v0").observation_space
    assert all(sub.shape != () for sub in space.spaces.values()), space


@pytest.mark.slow
@pytest.mark.parametrize("env_id", SAMPLE)
def test_ppo_learns_a_few_steps(env_id):
    """Longer runs on three ids: two rollouts, episodes ending inside them."""
    model = _ppo(make(env_id), n_steps=64)
    model.learn(128)
    assert model.num_timesteps >= 128
