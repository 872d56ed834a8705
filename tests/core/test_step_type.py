import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.core import StepType, check_truncation
from horizax.core.step_type import discount, to_dm_env, to_flags


@pytest.mark.parametrize(
    ("terminated", "truncated", "expected"),
    [(False, False, 0), (False, True, 1), (True, False, 2), (True, True, 2)],
)
def test_check_truncation_table_termination_wins(terminated, truncated, expected):
    out = check_truncation(jnp.asarray(terminated), jnp.asarray(truncated))
    assert out.dtype == jnp.int32
    assert int(out) == expected


def test_check_truncation_batched_and_jitted():
    term = jnp.array([False, False, True, True])
    trunc = jnp.array([False, True, False, True])
    out = jax.jit(check_truncation)(term, trunc)
    np.testing.assert_array_equal(out, [0, 1, 2, 2])


def test_step_type_values_match_seed():
    assert (StepType.TRANSITION, StepType.TRUNCATION, StepType.TERMINATION) == (0, 1, 2)


def test_flags_and_discount_keep_truncation_bootstrappable():
    st = jnp.array([0, 1, 2])
    terminated, truncated = to_flags(st)
    np.testing.assert_array_equal(terminated, [False, False, True])
    np.testing.assert_array_equal(truncated, [False, True, False])
    np.testing.assert_array_equal(discount(st), [1.0, 1.0, 0.0])


def test_to_dm_env_numbering():
    dm, disc = to_dm_env(jnp.array([0, 0, 1, 2]), jnp.array([True, False, False, False]))
    np.testing.assert_array_equal(dm, [0, 1, 2, 2])
    np.testing.assert_array_equal(disc, [1.0, 1.0, 1.0, 0.0])
