"""Immutable pytree dataclasses.

`pytree_dataclass` turns a class into a frozen dataclass registered with
`jax.tree_util.register_dataclass`, so instances flow through `jit`, `vmap` and `scan`.
Fields declared with `static_field()` are part of the tree structure (hashed, never traced);
every other field is a leaf. Instances are never mutated: `.replace(**changes)` returns a copy.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

import jax

T = TypeVar("T")


def static_field(**kwargs: Any) -> Any:
    """A dataclass field that is static metadata of the pytree (not a traced leaf)."""
    metadata = dict(kwargs.pop("metadata", {}) or {})
    metadata["static"] = True
    return dataclasses.field(metadata=metadata, **kwargs)


def field(**kwargs: Any) -> Any:
    """A regular (traced) dataclass field; accepts the usual `dataclasses.field` arguments."""
    return dataclasses.field(**kwargs)


def _replace(self: T, **changes: Any) -> T:
    return dataclasses.replace(self, **changes)


def pytree_dataclass(cls: type[T]) -> type[T]:
    """Decorator: frozen dataclass + pytree registration + `.replace()`.

    Args:
        cls: the class to decorate. Its annotations become fields.

    Returns:
        The same class, now a frozen dataclass registered as a JAX pytree.
    """
    if "replace" not in cls.__dict__:
        cls.replace = _replace  # type: ignore[attr-defined]
    data_cls = dataclasses.dataclass(frozen=True)(cls)
    data_fields, meta_fields = [], []
    for f in dataclasses.fields(data_cls):
        if not f.init:
            continue
        (meta_fields if f.metadata.get("static", False) else data_fields).append(f.name)
    jax.tree_util.register_dataclass(data_cls, data_fields=data_fields, meta_fields=meta_fields)
    return data_cls
