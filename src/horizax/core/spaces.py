"""Observation and action spaces: shape, dtype, bounds, sampling and membership.

Spaces are immutable descriptions (not pytrees). `contains` works on concrete arrays and
under `jit` (it returns a bool array).
"""

from __future__ import annotations

import dataclasses
import functools
import string
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array
from jax.core import Tracer

from horizax.core import threefry


@dataclasses.dataclass(frozen=True)
class Discrete:
    """Integers ``0 .. n-1``; scalar i32 by default."""

    n: int
    dtype: Any = jnp.int32

    def __post_init__(self) -> None:
        if int(self.n) < 1:
            raise ValueError(f"Discrete space needs n >= 1, got n={self.n}")

    @property
    def shape(self) -> tuple[int, ...]:
        return ()

    def sample(self, key: Array, shape: tuple[int, ...] = ()) -> Array:
        """Uniform sample of the given batch ``shape``."""
        return threefry.randint(key, shape, 0, int(self.n)).astype(self.dtype)

    def contains(self, x: Any) -> Array:
        """bool[]: whether every element of ``x`` is an integer in ``[0, n)``."""
        x = jnp.asarray(x)
        if not jnp.issubdtype(x.dtype, jnp.integer):
            return jnp.asarray(False)
        return jnp.all((x >= 0) & (x < self.n))


@dataclasses.dataclass(frozen=True)
class Box:
    """Arrays of a fixed ``shape``/``dtype`` with element-wise ``low <= x <= high``."""

    low: Any
    high: Any
    shape: tuple[int, ...]
    dtype: Any = jnp.float32

    def __post_init__(self) -> None:
        object.__setattr__(self, "shape", tuple(int(s) for s in self.shape))
        if np.any(np.asarray(self.low) > np.asarray(self.high)):
            raise ValueError("Box space needs low <= high everywhere")

    def sample(self, key: Array, shape: tuple[int, ...] = ()) -> Array:
        """Uniform sample (integers inclusive of ``high``) of batch ``shape`` + ``self.shape``."""
        full = tuple(shape) + self.shape
        low = jnp.broadcast_to(jnp.asarray(self.low), self.shape)
        high = jnp.broadcast_to(jnp.asarray(self.high), self.shape)
        if jnp.dtype(self.dtype) == jnp.bool_:  # e.g. masks: uniform over the allowed values
            bits = jax.random.randint(key, full, low.astype(jnp.int32), high.astype(jnp.int32) + 1)
            return bits.astype(jnp.bool_)
        if jnp.issubdtype(jnp.dtype(self.dtype), jnp.integer):
            return jax.random.randint(key, full, low, high.astype(jnp.int32) + 1).astype(self.dtype)
        return threefry.uniform(key, full, jnp.float32, low, high).astype(self.dtype)

    def contains(self, x: Any) -> Array:
        """bool[]: shape and dtype match and every element lies in ``[low, high]``."""
        x = jnp.asarray(x)
        if x.shape != self.shape or x.dtype != jnp.dtype(self.dtype):
            return jnp.asarray(False)
        return jnp.all((x >= self.low) & (x <= self.high))


@dataclasses.dataclass(frozen=True)
class Dict:
    """A mapping of named sub-spaces."""

    spaces: Mapping[str, Any]

    def sample(self, key: Array, shape: tuple[int, ...] = ()) -> dict[str, Array]:
        keys = threefry.split(key, len(self.spaces))
        return {
            k: s.sample(kk, shape) for (k, s), kk in zip(self.spaces.items(), keys, strict=True)
        }

    def contains(self, x: Mapping[str, Any]) -> Array:
        if set(x) != set(self.spaces):
            return jnp.asarray(False)
        return jnp.all(jnp.stack([jnp.asarray(s.contains(x[k])) for k, s in self.spaces.items()]))


@dataclasses.dataclass(frozen=True)
class Text:
    """Strings of ``min_length`` to ``max_length`` characters from ``charset``.

    A string cannot cross `jit`, so inside the environment a value is an array of the
    ``encoded`` space (the gridworld's mission is i32[10]); ``decode`` turns one concrete
    encoded array into its string, outside `jit`. Adapters to APIs with string spaces
    (Gymnasium's ``Text``) decode; the others pass the encoded array on, with the encoded
    space's spec. ``shape``, ``dtype``, `sample` and `contains` are the encoded space's.

    Attributes:
        max_length: the longest string.
        encoded: the `Box` of the arrays carried inside `jit`.
        decode: ``numpy array of encoded -> str``, a module-level function (so the space
            compares, hashes and pickles by it).
        charset: the characters a string may hold.
        min_length: the shortest string.
    """

    max_length: int
    encoded: Box
    decode: Callable[[np.ndarray], str]
    charset: str = string.ascii_letters + string.digits + " ,.;:'-"
    min_length: int = 0

    def __post_init__(self) -> None:
        if not 0 <= int(self.min_length) <= int(self.max_length):
            raise ValueError(
                f"Text space needs 0 <= min_length <= max_length, got {self.min_length}, "
                f"{self.max_length}"
            )
        if not isinstance(self.encoded, Box):
            raise TypeError(f"Text.encoded must be a Box, got {type(self.encoded).__name__}")
        if not callable(self.decode):
            raise TypeError(f"Text.decode must be callable, got {self.decode!r}")

    @property
    def shape(self) -> tuple[int, ...]:
        return self.encoded.shape

    @property
    def dtype(self) -> Any:
        return self.encoded.dtype

    def sample(self, key: Array, shape: tuple[int, ...] = ()) -> Array:
        """A sample of the encoded space (it need not decode to a meaningful string)."""
        return self.encoded.sample(key, shape)

    def contains(self, x: Any) -> Array:
        """bool[]: ``x`` lies in the encoded space."""
        return self.encoded.contains(x)


# --- spaces carried by the functions that produce the values ------------------------------------

_BOUNDS_ATTRIBUTE = "observation_bounds"


def with_bounds(low: Any, high: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: declares the range of the values a function returns.

    ``low`` and ``high`` broadcast to the function's output shape (a scalar, or one bound per
    channel of the last axis). `space_of` reads them; the shape and dtype come from the
    function itself (`jax.eval_shape`), so the same declaration serves every grid size.

    Raises:
        ValueError: if ``low > high`` somewhere.
    """
    low, high = np.asarray(low), np.asarray(high)
    if np.any(low > high):
        raise ValueError(f"with_bounds needs low <= high, got {low} and {high}")

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, _BOUNDS_ATTRIBUTE, (low, high))
        return fn

    return declare


def declared_bounds(fn: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The ``(low, high)`` declared with `with_bounds` on ``fn``, or on the function a
    `functools.partial` wraps (a partial keeps its function's range); None if none."""
    while fn is not None:
        bounds = getattr(fn, _BOUNDS_ATTRIBUTE, None)
        if bounds is not None:
            return bounds
        fn = getattr(fn, "func", None) if isinstance(fn, functools.partial) else None
    return None


def dtype_bounds(dtype: Any) -> tuple[Any, Any]:
    """The widest ``(low, high)`` of a dtype: its integer range, ``(False, True)`` for bool,
    ``(-inf, inf)`` for floats."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return False, True
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return info.min, info.max
    return -np.inf, np.inf


def space_of(fn: Callable[..., Any], *example_args: Any) -> Box:
    """The `Box` of the values ``fn(*example_args)`` returns, without running it.

    Shape and dtype come from `jax.eval_shape` (the arguments may be arrays or
    `jax.ShapeDtypeStruct` trees); bounds from `with_bounds` where declared, else the
    dtype's full range (`dtype_bounds`).

    Raises:
        TypeError: if ``fn`` does not return a single array.
    """
    out = jax.eval_shape(fn, *example_args)
    if not isinstance(out, jax.ShapeDtypeStruct):
        raise TypeError(
            f"an observation function must return one array, {fn!r} returns {type(out)!r}"
        )
    dtype = np.dtype(out.dtype)
    low, high = declared_bounds(fn) or dtype_bounds(dtype)
    low, high = np.asarray(low), np.asarray(high)
    if low.ndim:
        low = np.broadcast_to(low, out.shape).astype(dtype)
    if high.ndim:
        high = np.broadcast_to(high, out.shape).astype(dtype)
    return Box(low, high, out.shape, dtype)


def check_action(action: Any, num_actions: int) -> Array:
    """Validates a discrete action for ``step``; returns it as i32[].

    The dtype and shape are checked at trace time; the value only when it is concrete
    (inside `jit` no value can raise, so each environment documents what an out-of-range
    action does there).

    Args:
        action: the action passed to ``step``.
        num_actions: the size of the action space.

    Raises:
        TypeError: a bool, or a non-integer dtype.
        ValueError: a non-scalar, or a concrete value outside ``[0, num_actions)``.
    """
    if isinstance(action, bool):
        raise TypeError("action must be an integer, got a bool")
    concrete = not isinstance(action, Tracer)
    # The value is read before any conversion: an int64 action outside int32 would wrap
    # into the action space when JAX (32-bit by default) converts it.
    value = np.asarray(action) if concrete else None
    arr = jnp.asarray(action)
    if arr.shape != ():
        raise ValueError(f"action must be a scalar (i32[]), got shape {arr.shape}")
    if not jnp.issubdtype(arr.dtype, jnp.integer):
        raise TypeError(f"action must be an integer, got dtype {arr.dtype}")
    if value is not None:
        value = int(value)
        if not 0 <= value < num_actions:
            raise ValueError(f"action {value} is outside the action space [0, {num_actions})")
    return arr.astype(jnp.int32)


def is_real_dtype(dtype: np.dtype) -> bool:
    """Float or integer, bool excluded (numpy does not count bool as an integer dtype)."""
    return bool(np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.integer))


def check_box_action(action: Any, space: Box, batch_shape: tuple[int, ...] = ()) -> Any:
    """Checks an action of a ``Box`` space and casts it to the space's dtype.

    Args:
        action: the action given to ``step``: a numpy or jax array (a tracer included), a
            list, or a Python number for a scalar space.
        space: the ``Box`` action space.
        batch_shape: leading batch axes the adapter steps at once (``(num_envs,)`` for a
            vector env; ``()`` for a single one).

    Returns:
        The action as an array of shape ``batch_shape + space.shape`` and the space's dtype:
        a jax array if ``action`` was one, else a numpy array. Its values are unchanged
        (out-of-bounds and non-finite values included: the family decides what they mean,
        see `horizax.adapters.actions`).

    Raises:
        TypeError: a bool, string or other non-numeric action; a float action for an
            integer ``Box``.
        ValueError: an action of any other shape.
    """
    expected = tuple(batch_shape) + tuple(space.shape)
    if isinstance(action, bool | np.bool_ | str | bytes):
        raise TypeError(f"action must be a float or integer array, got {type(action).__name__}")
    if not isinstance(action, jax.Array):
        try:
            action = np.asarray(action)
        except (TypeError, ValueError) as err:  # ragged lists, unconvertible objects
            raise TypeError(
                f"action must be a float or integer array of shape {expected}, got {action!r}"
            ) from err
    dtype = np.dtype(action.dtype)
    space_dtype = np.dtype(space.dtype)
    if not is_real_dtype(dtype):
        raise TypeError(f"action must be a float or integer array, got dtype {dtype}")
    if np.issubdtype(space_dtype, np.integer) and not np.issubdtype(dtype, np.integer):
        raise TypeError(f"action must be an integer array for a {space_dtype} Box, got {dtype}")
    if tuple(action.shape) != expected:
        raise ValueError(f"action must have shape {expected}, got {tuple(action.shape)}")
    return action.astype(space_dtype)
