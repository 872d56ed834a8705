"""`random_bits` and `split_words` give JAX's own words, for every kind of key."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid.random_bits import random_bits, split_words


def raw_data(keys):
    return jax.random.key_data(keys) if jnp.issubdtype(keys.dtype, jax.dtypes.prng_key) else keys


KEY_MAKERS = {"typed": jax.random.key, "raw": jax.random.PRNGKey}


@pytest.mark.parametrize("kind", KEY_MAKERS)
@pytest.mark.parametrize("shape", [(), (1,), (2,), (7,), (3, 5)])
def test_random_bits_equal_jax_random_bits(kind, shape):
    for seed in (0, 1, 2**31 - 1, 123456789):
        key = KEY_MAKERS[kind](seed)
        expected = jax.random.bits(key, shape, jnp.uint32)
        got = random_bits(key, shape)
        assert got.dtype == jnp.uint32 and got.shape == shape
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kind", KEY_MAKERS)
def test_under_vmap_and_jit_with_keys_of_every_bit_pattern(kind):
    keys = jax.random.split(KEY_MAKERS[kind](7), 512)  # key words spread over all 32 bits
    expected = jax.vmap(lambda k: jax.random.bits(k, (4,), jnp.uint32))(keys)
    got = jax.jit(jax.vmap(lambda k: random_bits(k, (4,))))(keys)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kind", KEY_MAKERS)
@pytest.mark.parametrize("n", [1, 2, 3, 8, 11])
def test_split_words_are_the_data_of_split_keys(kind, n):
    key = KEY_MAKERS[kind](5)
    expected = raw_data(jax.random.split(key, (n + 1) // 2)).reshape(-1)[:n]
    got = split_words(key, n)
    assert got.dtype == jnp.uint32 and got.shape == (n,)
    np.testing.assert_array_equal(got, expected)
    keys = jax.random.split(key, 64)
    batched = jax.jit(jax.vmap(lambda k: split_words(k, n)))(keys)
    np.testing.assert_array_equal(batched[9], split_words(keys[9], n))


def test_other_key_implementations_fall_back_to_jax():
    key = jax.random.key(3, impl="rbg")
    np.testing.assert_array_equal(random_bits(key, (5,)), jax.random.bits(key, (5,), jnp.uint32))
    expected = jax.random.key_data(jax.random.split(key, 2)).reshape(-1)[:3].astype(jnp.uint32)
    np.testing.assert_array_equal(split_words(key, 3), expected)


def test_non_partitionable_threefry_falls_back_to_jax():
    key = jax.random.key(11)
    with jax.threefry_partitionable(False):
        np.testing.assert_array_equal(
            random_bits(key, (6,)), jax.random.bits(key, (6,), jnp.uint32)
        )
        expected = jax.random.key_data(jax.random.split(key, 2)).reshape(-1)[:4]
        np.testing.assert_array_equal(split_words(key, 4), expected)


def test_the_counter_space_is_bounded():
    with pytest.raises(ValueError, match="2\\*\\*32"):
        random_bits(jax.random.key(0), (2**16, 2**16))


def test_no_threefry_loop_is_compiled():
    """The point of the module: no rolled Threefry (`while`) in the program."""
    keys = jax.random.split(jax.random.key(0), 8)
    ours = jax.jit(jax.vmap(lambda k: random_bits(k, (3,)))).lower(keys).as_text()
    theirs = jax.jit(jax.vmap(lambda k: jax.random.bits(k, (3,)))).lower(keys).as_text()
    assert "threefry" in theirs.lower() and "threefry" not in ours.lower()
