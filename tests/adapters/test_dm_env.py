"""The dm_env adapter: FIRST/MID/LAST, discounts that tell termination from truncation,
restart after LAST, specs, and dm_env's own conformance mixin."""

from __future__ import annotations

import importlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

dm_env = pytest.importorskip("dm_env")
pytest.importorskip("dm_env.test_utils")  # needs absl-py and dm-tree, dm-env's dependencies

from absl.testing import absltest  # noqa: E402
from dm_env import specs, test_utils  # noqa: E402

import horizax  # noqa: E402
from horizax.adapters.dm_env import DmEnv, to_dm_env_spec  # noqa: E402
from horizax.core.spaces import Box, Dict, Discrete  # noqa: E402
from tests.adapters.corridor import Corridor  # noqa: E402

ENV_ID = "MiniGrid-Empty-5x5-v0"
# Agent starts at (1, 1) facing east, goal at (3, 3): forward, forward, right, forward, forward.
TO_GOAL = [2, 2, 1, 2, 2]
LEFT = 0

FIRST, MID, LAST = dm_env.StepType.FIRST, dm_env.StepType.MID, dm_env.StepType.LAST


def run(env, actions):
    return [env.step(a) for a in actions]


def same(x, y) -> bool:
    """Whether two observation trees (MiniGrid's dicts) are equal leaf for leaf."""
    leaves = jax.tree.leaves(jax.tree.map(np.array_equal, x, y))
    return bool(leaves) and all(leaves)


class TestDmEnvConformance(test_utils.EnvironmentTestMixin, absltest.TestCase):
    """dm_env's own contract checks; the action sequence ends episodes both ways."""

    def make_object_under_test(self):
        return DmEnv(ENV_ID, seed=0, max_steps=7)

    def make_action_sequence(self):
        # goal (LAST, terminated), the restart step, then 7 turns: LAST by the time limit.
        yield from [*TO_GOAL, LEFT, *([LEFT] * 7), LEFT]


def test_reset_is_first_with_no_reward_or_discount():
    timestep = DmEnv(ENV_ID).reset()
    assert timestep.step_type is FIRST
    assert timestep.reward is None and timestep.discount is None


def test_goal_is_last_with_discount_zero():
    env = DmEnv(ENV_ID)
    env.reset()
    steps = run(env, TO_GOAL)
    assert [s.step_type for s in steps] == [MID, MID, MID, MID, LAST]
    assert [float(s.discount) for s in steps[:-1]] == [1.0] * 4, "MID steps discount 1"
    assert float(steps[-1].discount) == 0.0, "termination: nothing to bootstrap"
    assert float(steps[-1].reward) > 0.0


def test_time_limit_is_last_with_discount_one():
    env = DmEnv(ENV_ID, max_steps=3)
    env.reset()
    steps = run(env, [LEFT] * 3)
    assert [s.step_type for s in steps] == [MID, MID, LAST]
    assert float(steps[-1].discount) == 1.0, "truncation: bootstrap from the last observation"
    assert float(steps[-1].reward) == 0.0


def test_goal_on_the_time_limit_step_is_a_termination():
    env = DmEnv(ENV_ID, max_steps=len(TO_GOAL))
    env.reset()
    last = run(env, TO_GOAL)[-1]
    assert last.step_type is LAST and float(last.discount) == 0.0, "termination wins"


def test_step_after_last_restarts_and_ignores_the_action():
    env = DmEnv(ENV_ID)
    first = env.reset()
    run(env, TO_GOAL)
    restart = env.step(99)  # out of range on purpose: the action is ignored, not validated
    assert restart.step_type is FIRST
    assert restart.reward is None and restart.discount is None
    assert same(restart.observation, first.observation)
    steps = run(env, TO_GOAL)
    assert [s.step_type for s in steps][-1] is LAST, "a full new episode follows"
    assert float(steps[-1].discount) == 0.0


def test_step_after_a_truncation_restarts_too():
    env = DmEnv(ENV_ID, max_steps=2)
    env.reset()
    assert run(env, [LEFT, LEFT])[-1].step_type is LAST
    assert env.step(LEFT).step_type is FIRST
    assert env.step(LEFT).step_type is MID


def test_step_before_reset_starts_an_episode():
    env = DmEnv(ENV_ID)
    assert env.step(LEFT).step_type is FIRST
    assert env.step(LEFT).step_type is MID


def test_specs_are_converted_from_the_spaces():
    env = DmEnv(ENV_ID)
    obs_spec = env.observation_spec()
    image = obs_spec["image"]
    assert isinstance(image, specs.BoundedArray)
    assert image.shape == (7, 7, 3) and image.dtype == np.uint8
    assert image.maximum.max() == 255 and image.minimum.min() == 0, "MiniGrid's image bounds"
    assert obs_spec["direction"].num_values == 4
    assert obs_spec["mission"].shape == (10,) and obs_spec["mission"].dtype == np.int32
    assert env.action_spec().num_values == 7
    timestep = env.reset()
    for name, spec in obs_spec.items():
        spec.validate(timestep.observation[name])
    step = env.step(2)
    env.reward_spec().validate(step.reward)
    env.discount_spec().validate(step.discount)


def test_dict_spaces_become_dicts_of_specs():
    space = Dict(
        {
            "mask": Box(False, True, (4,), jnp.bool_),
            "pos": Box(0, 9, (2,), jnp.int32),
            "choice": Discrete(3),
            "nested": Dict({"x": Box(-1.0, 1.0, (), jnp.float32)}),
        }
    )
    spec = to_dm_env_spec(space, "observation")
    assert spec["mask"].dtype == np.bool_ and spec["mask"].shape == (4,)
    assert spec["pos"].maximum.tolist() == [9, 9]
    assert spec["choice"].num_values == 3
    assert spec["nested"]["x"].name == "observation/nested/x"
    with pytest.raises(TypeError, match="no dm_env spec"):
        to_dm_env_spec(object(), "x")


def test_dict_observations_from_a_protocol_env():
    env = DmEnv(Corridor(length=4, max_steps=10), seed=3)
    timestep = env.reset()
    spec = env.observation_spec()
    spec["position"].validate(timestep.observation["position"])
    spec["action_mask"].validate(timestep.observation["action_mask"])
    while not timestep.last():
        timestep = env.step(1)
    assert float(timestep.discount) == 0.0 and int(timestep.observation["position"]) == 3


def test_same_seed_same_episodes_and_seeds_differ():
    def starts(seed):
        env = DmEnv("MiniGrid-Empty-Random-5x5-v0", seed=seed, max_steps=1)
        return [env.reset().observation for _ in range(4)]

    a, b, c = starts(0), starts(0), starts(1)
    assert all(same(x, y) for x, y in zip(a, b, strict=True))
    assert any(not same(x, y) for x, y in zip(a, c, strict=True))
    assert any(not same(a[0], x) for x in a[1:]), "each reset draws a new episode"


@pytest.mark.parametrize(
    ("action", "error"), [(7, ValueError), (1.0, TypeError), ([1], ValueError)]
)
def test_bad_actions_are_refused(action, error):
    env = DmEnv(ENV_ID)
    env.reset()
    with pytest.raises(error, match="action"):
        env.step(action)


def test_overrides_need_an_id():
    with pytest.raises(TypeError, match="overrides"):
        DmEnv(horizax.make(ENV_ID), max_steps=3)


def test_render_returns_a_frame():
    env = DmEnv(ENV_ID)
    with pytest.raises(RuntimeError, match="reset"):
        env.render()
    env.reset()
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


def test_missing_dm_env_raises_an_import_error_naming_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "dm_env" or m.startswith("dm_env.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "horizax.adapters.dm_env")
    with pytest.raises(ImportError, match=r"horizax\[dm-env\]"):
        importlib.import_module("horizax.adapters.dm_env")
