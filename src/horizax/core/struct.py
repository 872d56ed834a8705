"""Immutable pytree dataclasses.

`pytree_dataclass` turns a class into a frozen dataclass registered with
`jax.tree_util.register_dataclass`, so instances flow through `jit`, `vmap` and `scan`.
Fields declared with `static_field()` are part of the tree structure (hashed, never traced);
every other field is a leaf. Instances are never mutated: `.replace(**changes)` returns a copy.
Classes that call `.replace()` in typed code inherit `Replaceable`, which declares it to type
checkers; the decorator adds the same method to every other class at runtime.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast, dataclass_transform, overload

import jax

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T")
V = TypeVar("V")


def _with_static(metadata: Mapping[Any, Any] | None) -> dict[Any, Any]:
    return {**(metadata or {}), "static": True}


@overload
def field(
    *,
    default: V,
    init: bool = ...,
    repr: bool = ...,
    hash: bool | None = ...,
    compare: bool = ...,
    metadata: Mapping[Any, Any] | None = ...,
    kw_only: bool = ...,
) -> V: ...
@overload
def field(
    *,
    default_factory: Callable[[], V],
    init: bool = ...,
    repr: bool = ...,
    hash: bool | None = ...,
    compare: bool = ...,
    metadata: Mapping[Any, Any] | None = ...,
    kw_only: bool = ...,
) -> V: ...
@overload
def field(
    *,
    init: bool = ...,
    repr: bool = ...,
    hash: bool | None = ...,
    compare: bool = ...,
    metadata: Mapping[Any, Any] | None = ...,
    kw_only: bool = ...,
) -> Any: ...
def field(**kwargs: Any) -> Any:
    """A regular (traced) dataclass field; accepts the usual `dataclasses.field` arguments."""
    return dataclasses.field(**kwargs)


@overload
def static_field(
    *,
    default: V,
    init: bool = ...,
    repr: bool = ...,
    hash: bool | None = ...,
    compare: bool = ...,
    metadata: Mapping[Any, Any] | None = ...,
    kw_only: bool = ...,
) -> V: ...
@overload
def static_field(
    *,
    default_factory: Callable[[], V],
    init: bool = ...,
    repr: bool = ...,
    hash: bool | None = ...,
    compare: bool = ...,
    metadata: Mapping[Any, Any] | None = ...,
    kw_only: bool = ...,
) -> V: ...
@overload
def static_field(
    *,
    init: bool = ...,
    repr: bool = ...,
    hash: bool | None = ...,
    compare: bool = ...,
    metadata: Mapping[Any, Any] | None = ...,
    kw_only: bool = ...,
) -> Any: ...
def static_field(**kwargs: Any) -> Any:
    """A dataclass field that is static metadata of the pytree (not a traced leaf)."""
    metadata = _with_static(kwargs.pop("metadata", None))
    return dataclasses.field(metadata=metadata, **kwargs)


def _replace(self: DataclassInstance, **changes: Any) -> DataclassInstance:
    return dataclasses.replace(self, **changes)


class Replaceable:
    """Declares `.replace()` for a `pytree_dataclass` class, so type checkers see it."""

    def replace(self, **changes: Any) -> Self:
        """Returns a copy with `changes` applied to the named fields."""
        # Only `pytree_dataclass` classes inherit this, so `self` is a dataclass instance.
        return cast(Self, _replace(cast("DataclassInstance", self), **changes))


@dataclass_transform(frozen_default=True, field_specifiers=(field, static_field))
def pytree_dataclass(cls: type[T]) -> type[T]:
    """Decorator: frozen dataclass + pytree registration + `.replace()`.

    Args:
        cls: the class to decorate. Its annotations become fields.

    Returns:
        The same class, now a frozen dataclass registered as a JAX pytree.
    """
    if not hasattr(cls, "replace"):
        setattr(cls, "replace", _replace)  # noqa: B010  # the class has no such attribute yet
    data_cls = cast("type[DataclassInstance]", dataclasses.dataclass(frozen=True)(cls))
    data_fields, meta_fields = [], []
    for f in dataclasses.fields(data_cls):
        if not f.init:
            continue
        (meta_fields if f.metadata.get("static", False) else data_fields).append(f.name)
    jax.tree_util.register_dataclass(data_cls, data_fields=data_fields, meta_fields=meta_fields)
    return cast("type[T]", data_cls)
