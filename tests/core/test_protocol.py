"""The core protocol: `Step` dtypes, the never-both rule and `functional` dispatch."""

import jax
import jax.numpy as jnp
import pytest

from horizax.core.protocol import FunctionalEnv, Step, functional, make_step


def test_make_step_casts_dtypes_and_lets_termination_win():
    step = make_step(jnp.zeros(3), reward=1, terminated=True, truncated=True)
    assert step.reward.dtype == jnp.float32
    assert step.terminated.dtype == jnp.bool_ and step.truncated.dtype == jnp.bool_
    assert bool(step.terminated) and not bool(step.truncated), "termination must win"
    assert bool(step.done)


def test_make_step_keeps_truncation_alone():
    step = make_step(jnp.zeros(3), terminated=False, truncated=True)
    assert bool(step.truncated) and not bool(step.terminated)


def test_step_is_a_pytree_under_vmap():
    steps = jax.vmap(lambda r: make_step(r, r, r > 0, r > 1))(jnp.arange(3.0))
    assert isinstance(steps, Step)
    assert steps.terminated.tolist() == [False, True, True]
    assert steps.truncated.tolist() == [False, False, False]


def test_functional_rejects_objects_without_a_view():
    with pytest.raises(TypeError, match="functional protocol"):
        functional(object())


def test_functional_passes_protocol_objects_through():
    class Minimal:
        observation_space = None
        action_space = None
        max_steps = 1
        env_id = ""

        def reset(self, key):
            return None, make_step(0)

        def step(self, key, state, action):
            return None, make_step(0)

        def render(self, state):
            return None

    env = Minimal()
    assert isinstance(env, FunctionalEnv)
    assert functional(env) is env
