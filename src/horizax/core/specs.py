"""jumanji-style specs: describe the arrays an environment takes and returns.

A spec is an immutable description that can check a value (`validate`) and build one
(`generate_value`). `Array`, `BoundedArray` and `DiscreteArray` describe single arrays;
`Spec` describes a structure (a NamedTuple, dataclass or dict) built by a constructor from
named sub-specs, so nested observations are described field by field::

    position = Spec(Position, "PositionSpec",
                    row=BoundedArray((), jnp.int32, 0, 9), col=BoundedArray((), jnp.int32, 0, 9))
    position.validate(Position(jnp.int32(3), jnp.int32(4)))  # returns the value
    position.generate_value()                                # Position(0, 0)

`validate` raises `ValueError` naming the spec and the mismatch. Shapes and dtypes are
checked on traced values too; bounds only on concrete values (a traced value has none yet).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

__all__ = ["Array", "BoundedArray", "DiscreteArray", "Spec"]

T = TypeVar("T")


def _fields_of(value: Any) -> Mapping[str, Any]:
    """The named fields of a NamedTuple, dataclass instance or mapping."""
    # NamedTuple is not a runtime type, so its `_asdict` is found by name.
    as_dict: Callable[[], Mapping[str, Any]] | None = getattr(value, "_asdict", None)
    if isinstance(value, tuple) and as_dict is not None:
        return as_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return value
    raise ValueError(
        f"expected a NamedTuple, dataclass or mapping to validate, got {type(value).__name__}"
    )


class Spec(Generic[T]):
    """A structure of named sub-specs and the constructor that assembles their values.

    Args:
        constructor: builds the described object from keyword arguments named like the
            sub-specs (a NamedTuple or dataclass type, ``dict``, or any callable).
        name: a label used in error messages and ``repr``.
        **specs: the sub-specs, each an `Array` (or subclass) or a nested `Spec`. They are
            also reachable as attributes (``spec.walls``) and items (``spec["walls"]``).
    """

    def __init__(self, constructor: Callable[..., T], name: str = "", **specs: Spec) -> None:
        self._constructor = constructor
        self._name = name
        self._specs = dict(specs)
        for spec_name, spec in self._specs.items():
            setattr(self, spec_name, spec)

    @property
    def name(self) -> str:
        """The spec's label ("" if none)."""
        return self._name

    @property
    def specs(self) -> dict[str, Spec]:
        """The named sub-specs (a copy)."""
        return dict(self._specs)

    def __getitem__(self, item: str) -> Spec:
        return self._specs[item]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self._specs.items())
        return f"{self._name or 'Spec'}({inner})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Spec) or isinstance(other, Array):
            return NotImplemented
        return self._constructor is other._constructor and self._specs == other._specs

    __hash__ = None  # type: ignore[assignment]  # mutable-looking containers are not keys

    def validate(self, value: T) -> T:
        """Checks every field of ``value`` against its sub-spec.

        Args:
            value: a NamedTuple, dataclass or mapping with (at least) the sub-specs' fields.

        Returns:
            The constructor applied to the validated fields (arrays converted with
            `jnp.asarray`).

        Raises:
            ValueError: a field is missing or does not conform; the message names it.
        """
        fields = _fields_of(value)
        missing = [k for k in self._specs if k not in fields]
        if missing:
            raise ValueError(f"{self._label()}: value has no field(s) {missing}")
        checked = {}
        for spec_name, spec in self._specs.items():
            try:
                checked[spec_name] = spec.validate(fields[spec_name])
            except ValueError as err:
                raise ValueError(f"{self._label()}.{spec_name}: {err}") from None
        return self._constructor(**checked)

    def generate_value(self) -> T:
        """A value that conforms to this spec (every leaf at its minimum, or zeros)."""
        return self._constructor(**{k: s.generate_value() for k, s in self._specs.items()})

    def replace(self, **specs: Spec) -> Spec:
        """A copy with some sub-specs replaced."""
        return Spec(self._constructor, self._name, **{**self._specs, **specs})

    def _label(self) -> str:
        return f"spec {self._name!r}" if self._name else "spec"


class Array(Spec[jax.Array]):
    """An array of a fixed ``shape`` and ``dtype``.

    Args:
        shape: the array shape, e.g. ``(10, 10)`` or ``()``.
        dtype: a dtype; canonicalised as JAX stores it (``float`` -> float32 without x64).
        name: a label used in error messages.
    """

    def __init__(self, shape: Iterable[int], dtype: Any, name: str = "") -> None:
        super().__init__(self._zeros, name)
        self._shape = tuple(int(d) for d in shape)
        self._dtype = jax.dtypes.canonicalize_dtype(dtype)

    def _zeros(self) -> jax.Array:
        return jnp.zeros(self._shape, self._dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        """The array shape."""
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        """The array dtype."""
        return self._dtype

    def __repr__(self) -> str:
        return f"Array(shape={self._shape}, dtype={self._dtype}, name={self._name!r})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def _key(self) -> tuple:
        return (self._shape, self._dtype, self._name)

    def _fail(self, message: str) -> None:
        raise ValueError(f"{self._label()}: {message}")

    def validate(self, value: Any) -> jax.Array:
        """Checks the shape and dtype of ``value``.

        Returns:
            ``value`` as a JAX array.

        Raises:
            ValueError: wrong shape or dtype (the message names the spec).
        """
        value = jnp.asarray(value)
        if value.shape != self._shape:
            self._fail(f"expected shape {self._shape}, got {value.shape}")
        if value.dtype != self._dtype:
            self._fail(f"expected dtype {self._dtype}, got {value.dtype}")
        return value

    def generate_value(self) -> jax.Array:
        """Zeros of the spec's shape and dtype."""
        return self._zeros()

    def replace(self, **changes: Any) -> Array:  # type: ignore[override]
        """A copy with some constructor arguments (``shape``, ``dtype``, ``name``) changed."""
        kwargs = {"shape": self._shape, "dtype": self._dtype, "name": self._name}
        return Array(**{**kwargs, **changes})


class BoundedArray(Array):
    """An array whose elements lie in ``[minimum, maximum]`` (both inclusive).

    Args:
        shape: the array shape.
        dtype: the array dtype.
        minimum: lower bound, broadcastable to ``shape``.
        maximum: upper bound, broadcastable to ``shape``.
        name: a label used in error messages.

    Raises:
        ValueError: a bound does not broadcast to ``shape`` or ``minimum > maximum`` somewhere.
    """

    def __init__(
        self, shape: Iterable[int], dtype: Any, minimum: Any, maximum: Any, name: str = ""
    ) -> None:
        super().__init__(shape, dtype, name)
        self._minimum = np.asarray(minimum, self._dtype)
        self._maximum = np.asarray(maximum, self._dtype)
        for label, bound in (("minimum", self._minimum), ("maximum", self._maximum)):
            try:
                np.broadcast_to(bound, self._shape)
            except ValueError:
                raise ValueError(
                    f"{self._label()}: {label} of shape {bound.shape} does not broadcast to "
                    f"shape {self._shape}"
                ) from None
        if np.any(self._minimum > self._maximum):
            raise ValueError(f"{self._label()}: minimum {self._minimum} > maximum {self._maximum}")

    @property
    def minimum(self) -> np.ndarray:
        """The inclusive lower bound."""
        return self._minimum

    @property
    def maximum(self) -> np.ndarray:
        """The inclusive upper bound."""
        return self._maximum

    def __repr__(self) -> str:
        return (
            f"BoundedArray(shape={self._shape}, dtype={self._dtype}, name={self._name!r}, "
            f"minimum={self._minimum.tolist()}, maximum={self._maximum.tolist()})"
        )

    def _key(self) -> tuple:
        return (*super()._key(), self._minimum.tobytes(), self._maximum.tobytes())

    def validate(self, value: Any) -> jax.Array:
        """Checks shape, dtype and (for concrete values) the bounds.

        Raises:
            ValueError: wrong shape or dtype, or an element outside the bounds.
        """
        value = super().validate(value)
        if not isinstance(value, Tracer):
            concrete = np.asarray(value)
            low = concrete < self._minimum
            high = concrete > self._maximum
            if low.any() or high.any():
                self._fail(
                    f"{int(low.sum() + high.sum())} element(s) outside "
                    f"[{self._minimum.tolist()}, {self._maximum.tolist()}]: {concrete.tolist()}"
                )
        return value

    def generate_value(self) -> jax.Array:
        """The minimum, broadcast to the spec's shape."""
        return jnp.broadcast_to(jnp.asarray(self._minimum, self._dtype), self._shape)

    def replace(self, **changes: Any) -> BoundedArray:  # type: ignore[override]
        """A copy with some constructor arguments changed."""
        kwargs = {
            "shape": self._shape,
            "dtype": self._dtype,
            "minimum": self._minimum,
            "maximum": self._maximum,
            "name": self._name,
        }
        return BoundedArray(**{**kwargs, **changes})


class DiscreteArray(BoundedArray):
    """A scalar integer in ``[0, num_values)``, e.g. a discrete action.

    Args:
        num_values: how many values (>= 1).
        dtype: an integer dtype (default int32).
        name: a label used in error messages.

    Raises:
        ValueError: ``num_values < 1`` or a non-integer ``dtype``.
    """

    def __init__(self, num_values: int, dtype: Any = jnp.int32, name: str = "") -> None:
        if isinstance(num_values, bool) or not isinstance(num_values, int | np.integer):
            raise ValueError(f"num_values must be a positive int, got {num_values!r}")
        if num_values < 1:
            raise ValueError(f"num_values must be a positive int, got {num_values}")
        if not jnp.issubdtype(dtype, jnp.integer):
            raise ValueError(f"DiscreteArray needs an integer dtype, got {dtype}")
        super().__init__((), dtype, 0, int(num_values) - 1, name)
        self._num_values = int(num_values)

    @property
    def num_values(self) -> int:
        """The number of values."""
        return self._num_values

    def __repr__(self) -> str:
        return (
            f"DiscreteArray(num_values={self._num_values}, dtype={self._dtype}, "
            f"name={self._name!r})"
        )

    def replace(self, **changes: Any) -> DiscreteArray:  # type: ignore[override]
        """A copy with ``num_values``, ``dtype`` or ``name`` changed."""
        kwargs = {"num_values": self._num_values, "dtype": self._dtype, "name": self._name}
        return DiscreteArray(**{**kwargs, **changes})
