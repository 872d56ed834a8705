import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.core.spaces import Box, Dict, Discrete


def test_discrete_sample_and_contains():
    space = Discrete(3)
    samples = space.sample(jax.random.PRNGKey(0), (1000,))
    assert samples.dtype == jnp.int32
    assert set(np.unique(samples).tolist()) == {0, 1, 2}
    assert bool(space.contains(jnp.int32(2)))
    assert not bool(space.contains(jnp.int32(3)))
    assert not bool(space.contains(jnp.float32(1.0)))
    with pytest.raises(ValueError):
        Discrete(0)


def test_box_bounds_shape_dtype():
    space = Box(0, 10, (2, 3), jnp.uint8)
    x = space.sample(jax.random.PRNGKey(1), (5,))
    assert x.shape == (5, 2, 3) and x.dtype == jnp.uint8
    assert int(x.max()) <= 10
    assert bool(space.contains(x[0]))
    assert not bool(space.contains(jnp.full((2, 3), 11, jnp.uint8)))
    assert not bool(space.contains(jnp.zeros((3, 2), jnp.uint8)))
    with pytest.raises(ValueError):
        Box(1, 0, (1,))


def test_dict_space():
    space = Dict({"a": Discrete(2), "b": Box(0.0, 1.0, (2,))})
    x = space.sample(jax.random.PRNGKey(2))
    assert bool(space.contains(x))
    assert not bool(space.contains({"a": x["a"]}))
