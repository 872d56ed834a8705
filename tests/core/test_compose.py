import jax.numpy as jnp
import pytest

from horizax.core import compose


def _const(value):
    return lambda prev, action, state: jnp.asarray(value)


def test_compose_ors_terminations_by_default():
    assert bool(compose(_const(False), _const(True))(None, 0, None))
    assert not bool(compose(_const(False), _const(False))(None, 0, None))


def test_compose_with_sum_adds_rewards():
    fn = compose(_const(1.0), _const(0.5), operator=jnp.sum)
    assert float(fn(None, 0, None)) == pytest.approx(1.5)


def test_compose_rejects_nothing_and_non_callables():
    with pytest.raises(ValueError, match="at least one"):
        compose()
    with pytest.raises(ValueError, match="non-callable"):
        compose(_const(True), 3)
