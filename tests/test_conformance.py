"""`check_env` on every registered id: jit, vmap, scan, one trace, determinism, spaces."""

import pytest

import horizax
from horizax.testing import check_env


@pytest.mark.parametrize("env_id", horizax.registered_ids())
def test_check_env(env_id):
    check_env(horizax.make(env_id))


def test_check_env_catches_a_broken_environment():
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    broken = env.replace(reward_fn=lambda p, a, s: s.step_count.astype("float32") * float("nan"))
    with pytest.raises(AssertionError, match="non-finite reward"):
        check_env(broken)
