"""`random_bits` and `split_words` give JAX's own words, for every kind of key."""

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.core.threefry import (
    fold_in,
    normal,
    randint,
    random_bits,
    split,
    split_words,
    uniform,
)


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
    """The point of the module: no rolled Threefry (an HLO `while`) in the compiled program."""
    keys = jax.random.split(jax.random.key(0), 8)

    def loops(fn):
        return jax.jit(jax.vmap(fn)).lower(keys).compile().as_text().count(" while(")

    assert loops(lambda k: jax.random.normal(k, (3,))) > 0  # the check can see JAX's loop
    assert loops(lambda k: random_bits(k, (3,))) == 0
    assert loops(lambda k: normal(split(fold_in(k, 3), 2)[1], (3,))) == 0
    assert loops(lambda k: uniform(k, (3,), minval=-1.0, maxval=2.0)) == 0
    assert loops(lambda k: randint(k, (3,), 0, 7)) == 0


def key_words(keys):
    return np.asarray(raw_data(keys))


@pytest.mark.parametrize("kind", KEY_MAKERS)
def test_split_and_fold_in_give_jax_keys(kind):
    for seed in (0, 1, 2**31 - 1, 123456789):
        key = KEY_MAKERS[kind](seed)
        for num in (1, 2, 3, 4, 7):
            got, expected = split(key, num), jax.random.split(key, num)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            np.testing.assert_array_equal(key_words(got), key_words(expected))
        for data in (0, 1, 5, 2**31 - 1, 2**32 - 1, jnp.int32(-3)):
            got, expected = fold_in(key, data), jax.random.fold_in(key, data)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            np.testing.assert_array_equal(key_words(got), key_words(expected))


BOUNDS = [(0.0, 1.0), (0.0, 2 * np.pi), (-5.0, 3.0), (100.0, 250.0), (np.zeros(3), np.arange(1, 4))]


@pytest.mark.parametrize("kind", KEY_MAKERS)
def test_uniform_and_normal_give_jax_floats_bit_for_bit(kind):
    """Eager, and jitted and vmapped over keys of every bit pattern: the same float32s."""
    keys = jax.random.split(KEY_MAKERS[kind](9), 2048)
    for low, high in BOUNDS:
        ours = jax.jit(jax.vmap(lambda k, lo=low, hi=high: uniform(k, (3,), None, lo, hi)))
        theirs = jax.jit(
            jax.vmap(lambda k, lo=low, hi=high: jax.random.uniform(k, (3,), None, lo, hi))
        )
        np.testing.assert_array_equal(ours(keys), theirs(keys))
        got = uniform(keys[5], (3,), minval=low, maxval=high)
        assert got.dtype == jnp.float32
        np.testing.assert_array_equal(
            got, jax.random.uniform(keys[5], (3,), minval=low, maxval=high)
        )
    for shape in [(), (1,), (4,), (2, 3)]:
        np.testing.assert_array_equal(normal(keys[3], shape), jax.random.normal(keys[3], shape))
    ours = jax.jit(jax.vmap(lambda k: normal(k, (5,))))(keys)
    np.testing.assert_array_equal(
        ours, jax.jit(jax.vmap(lambda k: jax.random.normal(k, (5,))))(keys)
    )
    assert np.isfinite(ours).all()


def test_other_dtypes_and_key_kinds_are_jax_own_draws():
    key = jax.random.key(4)
    np.testing.assert_array_equal(
        uniform(key, (3,), jnp.bfloat16), jax.random.uniform(key, (3,), jnp.bfloat16)
    )
    with jax.enable_x64(True):
        got = normal(jax.random.PRNGKey(4), (3,))
        assert got.dtype == jnp.float64  # JAX's default float under x64, drawn by JAX
        np.testing.assert_array_equal(got, jax.random.normal(jax.random.PRNGKey(4), (3,)))
    rbg = jax.random.key(3, impl="rbg")
    np.testing.assert_array_equal(key_words(split(rbg, 3)), key_words(jax.random.split(rbg, 3)))
    np.testing.assert_array_equal(key_words(fold_in(rbg, 7)), key_words(jax.random.fold_in(rbg, 7)))
    np.testing.assert_array_equal(normal(rbg, (4,)), jax.random.normal(rbg, (4,)))
    with jax.threefry_partitionable(False):
        k = jax.random.key(11)
        np.testing.assert_array_equal(key_words(split(k, 3)), key_words(jax.random.split(k, 3)))
        np.testing.assert_array_equal(key_words(fold_in(k, 2)), key_words(jax.random.fold_in(k, 2)))
        np.testing.assert_array_equal(uniform(k, (4,)), jax.random.uniform(k, (4,)))


RANGES = [(0, 1), (0, 3), (0, 7), (-5, 5), (3, 3), (5, 2), (0, 65537), (7, 2**20 + 3)]
RANGES += [(0, 2**31 - 1), (-(2**31), 2**31 - 1), (-(2**31), 0)]  # spans that wrap uint32


@pytest.mark.parametrize("kind", KEY_MAKERS)
def test_randint_gives_jax_integers(kind):
    """Every span regime of JAX's rule: one value, small, above 2**16 (the multiplier
    wraps to 0), empty ranges (minval), and spans beyond int32."""
    keys = jax.random.split(KEY_MAKERS[kind](5), 512)
    cases = [(low, high, shape) for low, high in RANGES for shape in [(), (3,), (2, 2)]]

    # Every case in one program per side: 66 small programs took most of the test's time.
    def draws(fn: Any) -> Any:
        return jax.jit(jax.vmap(lambda k: [fn(k, shape, lo, hi) for lo, hi, shape in cases]))

    got, expected = draws(randint)(keys), draws(jax.random.randint)(keys)
    for case, ours, theirs in zip(cases, got, expected, strict=True):
        assert ours.dtype == theirs.dtype == jnp.int32
        np.testing.assert_array_equal(ours, theirs, err_msg=str(case))


def test_randint_other_bounds_and_dtypes_are_jax_own_draws():
    key = jax.random.key(2)
    bounds = jnp.array([1, 2, 3])
    np.testing.assert_array_equal(
        randint(key, (3,), bounds, 9), jax.random.randint(key, (3,), bounds, 9)
    )
    np.testing.assert_array_equal(
        randint(key, (4,), 0, 256, jnp.uint8), jax.random.randint(key, (4,), 0, 256, jnp.uint8)
    )
    with pytest.raises(OverflowError):  # a bound beyond int32: JAX's own error
        randint(key, (4,), 0, 2**40)
    with pytest.raises(ValueError, match="single key"):  # JAX's own error, not a misuse
        randint(jax.random.split(key, 2), (2,), 0, 5)
