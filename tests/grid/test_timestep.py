"""`horizax.grid.timestep.Timestep`: its predicates read ``step_type`` and ``t`` exactly, and
it is a pytree that `jax.vmap` batches field by field."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from horizax.core.step_type import StepType
from horizax.grid import Timestep
from horizax.grid.environment import Timestep as TimestepFromEnvironment


def _with(ts: Timestep, step_type: int, step_count: int) -> Timestep:
    state = ts.state.replace(step_count=jnp.int32(step_count))
    return ts.replace(step_type=jnp.int32(step_type), state=state)


def test_predicates_follow_step_type_and_step_count():
    first = horizax.make("MiniGrid-Empty-5x5-v0").reset(jax.random.PRNGKey(0))
    expected = {  # step type -> (done, termination, truncation, transition)
        StepType.TRANSITION: (False, False, False, True),
        StepType.TRUNCATION: (True, False, True, False),
        StepType.TERMINATION: (True, True, False, False),
    }
    for step_type, flags in expected.items():
        ts = _with(first, int(step_type), 3)
        got = (ts.is_done(), ts.is_termination(), ts.is_truncation(), ts.is_transition())
        assert tuple(bool(x) for x in got) == flags, step_type
        assert int(ts.t) == 3 and not bool(ts.is_start())
    assert bool(first.is_start()) and int(first.t) == 0


def test_is_a_pytree_batched_field_by_field():
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    batch = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(1), 3))
    assert isinstance(batch, Timestep) and batch.step_type.shape == (3,)
    np.testing.assert_array_equal(batch.is_start(), [True, True, True])
    leaves, treedef = jax.tree.flatten(batch)
    rebuilt = jax.tree.unflatten(treedef, leaves)
    assert isinstance(rebuilt, Timestep) and rebuilt.state.agent_pos.shape == (3, 2)
    assert jax.tree.structure(jax.tree.map(lambda x: x[0], batch)) == jax.tree.structure(
        env.reset(jax.random.PRNGKey(2))
    )


def test_the_environment_module_still_names_it():
    # Code written against `horizax.grid.environment.Timestep` keeps working.
    assert TimestepFromEnvironment is Timestep
