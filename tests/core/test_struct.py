import dataclasses

import jax
import jax.numpy as jnp
import pytest

from horizax.core import pytree_dataclass, static_field


@pytree_dataclass
class Point:
    x: jax.Array
    name: str = static_field(default="p")


def test_pytree_roundtrip_and_static_fields_are_not_leaves():
    p = Point(jnp.ones(3), name="a")
    leaves, treedef = jax.tree.flatten(p)
    assert len(leaves) == 1
    assert jax.tree.unflatten(treedef, leaves).name == "a"
    doubled = jax.jit(lambda q: q.replace(x=q.x * 2))(p)
    assert doubled.name == "a" and float(doubled.x.sum()) == 6.0


def test_instances_are_immutable():
    p = Point(jnp.ones(3))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = jnp.zeros(3)
