import dataclasses

import jax
import jax.numpy as jnp
import pytest

from horizax.core import Replaceable, field, pytree_dataclass, static_field


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


@pytree_dataclass
class Tagged(Replaceable):
    x: jax.Array
    tags: dict = field(default_factory=dict)
    name: str = static_field(default="t")


def test_replaceable_replace_copies_with_changes_and_keeps_the_original():
    # Replaceable only declares .replace() to type checkers; it must behave like the decorator's.
    t = Tagged(jnp.zeros(2))
    moved = t.replace(x=jnp.ones(2), name="u")
    assert type(moved) is Tagged and moved.name == "u" and float(moved.x.sum()) == 2.0
    assert t.name == "t" and float(t.x.sum()) == 0.0, "replace mutated the original"
    assert t.tags == {} and t.tags is not Tagged(jnp.zeros(2)).tags, "default_factory not used"
    assert len(jax.tree.leaves(moved)) == 1, "a static field became a leaf"
