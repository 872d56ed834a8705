"""jumanji-style specs: validate / generate_value on arrays, bounds and nested structures."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.core.specs import Array, BoundedArray, DiscreteArray, Spec


class Pair(NamedTuple):
    a: jax.Array
    b: jax.Array


def test_array_checks_shape_and_dtype_and_names_the_spec():
    spec = Array((2, 3), jnp.float32, "obs")
    value = spec.validate(np.zeros((2, 3), np.float32))
    assert isinstance(value, jax.Array) and value.shape == (2, 3)
    with pytest.raises(ValueError, match=r"'obs'.*shape \(2, 3\).*\(3, 2\)"):
        spec.validate(np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError, match=r"'obs'.*dtype float32.*int32"):
        spec.validate(np.zeros((2, 3), np.int32))


def test_array_dtype_is_canonicalised_like_jax():
    # Without x64, `float` means float32: a spec built with `float` must accept f32 rewards.
    assert Array((), float).dtype == np.float32
    Array((), float).validate(jnp.float32(1.0))


def test_array_generate_value_is_zeros_of_the_spec():
    value = Array((4,), jnp.int32).generate_value()
    assert value.dtype == jnp.int32 and value.shape == (4,) and not value.any()


def test_bounded_array_bounds_are_inclusive():
    spec = BoundedArray((3,), jnp.int32, 0, [2, 3, 4], "pos")
    spec.validate(jnp.array([0, 3, 4], jnp.int32))
    with pytest.raises(ValueError, match=r"'pos'.*1 element"):
        spec.validate(jnp.array([0, 4, 4], jnp.int32))
    with pytest.raises(ValueError, match="outside"):
        spec.validate(jnp.array([-1, 0, 0], jnp.int32))
    np.testing.assert_array_equal(spec.generate_value(), [0, 0, 0])


def test_bounded_array_rejects_bad_bounds():
    with pytest.raises(ValueError, match="minimum"):
        BoundedArray((2,), jnp.int32, 3, 1)
    with pytest.raises(ValueError, match="broadcast"):
        BoundedArray((2,), jnp.int32, [0, 0, 0], 1)


def test_bounded_bool_array():
    spec = BoundedArray((2, 2), jnp.bool_, False, True, "walls")
    spec.validate(jnp.array([[True, False], [False, True]]))
    with pytest.raises(ValueError, match="dtype"):
        spec.validate(jnp.zeros((2, 2), jnp.int32))


def test_bounds_are_skipped_on_traced_values_but_shape_is_checked():
    spec = BoundedArray((), jnp.int32, 0, 3)
    assert int(jax.jit(spec.validate)(jnp.int32(7))) == 7  # no concrete value to check
    with pytest.raises(ValueError, match="shape"):
        jax.jit(spec.validate)(jnp.zeros(2, jnp.int32))


def test_discrete_array():
    spec = DiscreteArray(4, name="action")
    assert spec.num_values == 4 and spec.shape == () and spec.dtype == jnp.int32
    assert int(spec.maximum) == 3
    spec.validate(jnp.int32(3))
    with pytest.raises(ValueError, match="'action'"):
        spec.validate(jnp.int32(4))
    assert int(spec.generate_value()) == 0
    for bad in (0, -2, 2.5, True):
        with pytest.raises(ValueError, match="num_values"):
            DiscreteArray(bad)
    with pytest.raises(ValueError, match="integer dtype"):
        DiscreteArray(3, jnp.float32)


def test_nested_spec_validates_every_field_and_rebuilds_the_value():
    inner = Spec(Pair, "PairSpec", a=Array((), jnp.int32), b=BoundedArray((), jnp.int32, 0, 5))
    spec = Spec(dict, "Outer", pair=inner, mask=Array((4,), jnp.bool_, "mask"))
    value = {"pair": Pair(jnp.int32(1), jnp.int32(2)), "mask": jnp.zeros(4, bool)}
    out = spec.validate(value)
    assert isinstance(out["pair"], Pair) and int(out["pair"].b) == 2
    assert spec.pair is inner and spec["mask"].name == "mask"
    bad = {"pair": Pair(jnp.int32(1), jnp.int32(9)), "mask": jnp.zeros(4, bool)}
    with pytest.raises(ValueError, match=r"'Outer'\.pair: spec 'PairSpec'\.b"):
        spec.validate(bad)
    with pytest.raises(ValueError, match="no field"):
        spec.validate({"pair": value["pair"]})
    with pytest.raises(ValueError, match="NamedTuple, dataclass or mapping"):
        spec.validate(3)


def test_nested_generate_value_conforms():
    spec = Spec(Pair, a=BoundedArray((2,), jnp.int32, 1, 3), b=Array((), jnp.float32))
    value = spec.generate_value()
    assert isinstance(value, Pair)
    np.testing.assert_array_equal(value.a, [1, 1])
    spec.validate(value)


def test_equality_and_replace():
    assert Array((2,), jnp.int32, "x") == Array((2,), jnp.int32, "x")
    assert Array((2,), jnp.int32) != Array((3,), jnp.int32)
    assert BoundedArray((), jnp.int32, 0, 1) != BoundedArray((), jnp.int32, 0, 2)
    assert DiscreteArray(3).replace(num_values=5) == DiscreteArray(5)
    assert BoundedArray((), jnp.int32, 0, 1).replace(maximum=4).maximum == 4
    spec = Spec(Pair, a=Array((), jnp.int32), b=Array((), jnp.int32))
    assert spec.replace(b=Array((2,), jnp.int32)).b.shape == (2,)
    assert spec.b.shape == ()  # the original is unchanged
