"""The Maze's dm_env-style TimeStep and its constructors; Position equality."""

import jax
import jax.numpy as jnp
import numpy as np

from horizax.core.step_type import StepType as GridStepType
from horizax.maze.types import (
    Position,
    StepType,
    TimeStep,
    restart,
    termination,
    transition,
    truncation,
)


def test_step_type_values_are_dm_env_and_distinct_from_the_gridworld_enum():
    assert (StepType.FIRST, StepType.MID, StepType.LAST) == (0, 1, 2)
    assert StepType is not GridStepType


def test_constructors_set_step_type_reward_and_discount():
    obs = jnp.zeros(3)
    cases = {
        "restart": (restart(obs), StepType.FIRST, 0.0, 1.0),
        "transition": (transition(0.5, obs), StepType.MID, 0.5, 1.0),
        "termination": (termination(1.0, obs), StepType.LAST, 1.0, 0.0),
        "truncation": (truncation(0.0, obs), StepType.LAST, 0.0, 1.0),
    }
    for name, (ts, step_type, reward, discount) in cases.items():
        assert ts.step_type.dtype == jnp.int8, name  # jumanji stores step types as i8
        assert ts.reward.dtype == ts.discount.dtype == jnp.float32, name
        assert int(ts.step_type) == step_type, name
        assert float(ts.reward) == reward and float(ts.discount) == discount, name
        assert ts.extras == {}, name


def test_last_steps_tell_termination_from_truncation_by_discount():
    obs = jnp.zeros(())
    terminal, truncated, middle = termination(1.0, obs), truncation(0.0, obs), transition(0, obs)
    assert bool(terminal.last() & terminal.terminated()) and not bool(terminal.truncated())
    assert bool(truncated.last() & truncated.truncated()) and not bool(truncated.terminated())
    assert bool(middle.mid()) and not bool(middle.terminated() | middle.truncated())
    assert bool(restart(obs).first())


def test_optional_discount_extras_and_shape():
    ts = transition(jnp.ones(2), jnp.zeros(2), discount=0.5, extras={"x": 1}, shape=(2,))
    np.testing.assert_array_equal(ts.discount, [0.5, 0.5])
    assert ts.extras == {"x": 1} and ts.step_type.shape == (2,)
    np.testing.assert_array_equal(truncation(0.0, 0, discount=0.9).discount, np.float32(0.9))


def test_timestep_is_a_pytree_that_flows_through_jit():
    ts = jax.jit(lambda r: transition(r, {"a": jnp.ones(2)}))(jnp.float32(2.0))
    assert isinstance(ts, TimeStep) and float(ts.reward) == 2.0
    assert len(jax.tree.leaves(ts)) == 4  # step_type, reward, discount, observation leaf


def test_position_equality_is_elementwise_and_jittable():
    a, b = Position(jnp.int32(1), jnp.int32(2)), Position(jnp.int32(1), jnp.int32(3))
    assert bool(a == a) and not bool(a == b) and bool(a != b)
    eq = jax.jit(lambda p, q: p == q)(a, b)
    assert eq.dtype == jnp.bool_ and not bool(eq)
    batch = Position(jnp.array([1, 1]), jnp.array([2, 3]))
    np.testing.assert_array_equal(batch == a, [True, False])
