"""Argument checks shared by every family: clear errors before anything is traced.

Each check reads only Python values, or the dtype and shape of an array, so it also runs
on a tracer (inside `jax.jit` or `jax.vmap`) and costs nothing in the compiled program.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

MAX_STEPS_LIMIT = 2**31 - 1  # step counters are int32


def _is_int(value: Any) -> bool:
    """A Python or numpy integer; bools (ints to ``isinstance``) are not."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def int_in_range(value: Any, name: str, *, minimum: int = 1, maximum: int = MAX_STEPS_LIMIT) -> int:
    """``value`` as an int in ``[minimum, maximum]``.

    Python and numpy integers are accepted; bools, floats (``2.0`` included), strings and
    None are not.

    Args:
        value: the argument given.
        name: the argument's name, for the message.
        minimum: the smallest value accepted.
        maximum: the largest value accepted (default: what an int32 step counter holds).

    Returns:
        ``int(value)``.

    Raises:
        ValueError: naming the argument and the accepted range.
    """
    if not _is_int(value) or not minimum <= value <= maximum:
        accepted = f"[{minimum}, {_power_of_two(maximum)}]"
        raise ValueError(f"{name} must be an int in {accepted}, got {value!r}")
    return int(value)


def check_num_envs(num_envs: Any) -> int:
    """A batch size of the adapters: an int >= 1.

    Raises:
        TypeError: not an int (a bool, a float, None, ...).
        ValueError: below 1.
    """
    if not _is_int(num_envs):
        raise TypeError(f"num_envs must be an int, got {type(num_envs).__name__}")
    if num_envs < 1:
        raise ValueError(f"num_envs must be >= 1, got {num_envs}")
    return int(num_envs)


def _power_of_two(maximum: int) -> str:
    """``2**31 - 1`` for 2147483647, so the message shows where the bound comes from."""
    exponent = (maximum + 1).bit_length() - 1
    return f"2**{exponent} - 1" if maximum + 1 == 2**exponent else str(maximum)


def check_key(key: Any, name: str = "key") -> Any:
    """Checks that ``key`` is one PRNG key, as ``reset`` takes it.

    Accepted: a typed key of shape ``()`` (`jax.random.key`) or a raw uint32 key of the
    default implementation's shape (`jax.random.PRNGKey`: ``(2,)``), a tracer included.

    Args:
        key: the argument given.
        name: the argument's name, for the message.

    Returns:
        ``key`` unchanged.

    Raises:
        TypeError: for anything that is not a key array (a seed int, a string, a float array).
        ValueError: for a batch of keys (use `jax.vmap` over the reset) or a malformed raw key.
    """
    dtype = getattr(key, "dtype", None)
    shape = getattr(key, "shape", None)
    if dtype is None or shape is None:
        raise TypeError(
            f"{name} must be a PRNG key (jax.random.key(seed) or jax.random.PRNGKey(seed)), "
            f"got {type(key).__name__}"
        )
    if jnp.issubdtype(dtype, jax.dtypes.prng_key):
        if shape != ():
            raise ValueError(
                f"{name} must be a single key of shape (), got shape {tuple(shape)}: "
                "for a batch of keys, jax.vmap the function"
            )
        return key
    if np.dtype(dtype) != np.uint32:
        raise TypeError(
            f"{name} must be a PRNG key (a typed key, or uint32 raw key data), got dtype {dtype}"
        )
    expected = _raw_key_shape()
    if tuple(shape) != expected:
        batch = " (for a batch of keys, jax.vmap the function)" if len(shape) > 1 else ""
        raise ValueError(
            f"{name} must be a single raw key of shape {expected}, got shape {tuple(shape)}" + batch
        )
    return key


@functools.cache
def _raw_key_shape() -> tuple[int, ...]:
    """The raw data shape of the default PRNG implementation's keys ((2,) for threefry)."""
    return tuple(jax.eval_shape(lambda: jax.random.key_data(jax.random.key(0))).shape)


def check_unbatched(counter: Any, name: str) -> None:
    """Checks that a state or timestep is one environment's, by one of its scalar leaves.

    Args:
        counter: a leaf that is a scalar for one environment (its step count or reward).
        name: the argument's name, for the message.

    Raises:
        ValueError: if ``counter`` has axes: a batch given to an unbatched ``step``.
    """
    shape = tuple(getattr(counter, "shape", ()))
    if shape != ():
        raise ValueError(
            f"{name} holds a batch (leading shape {shape}); step one environment at a time, "
            "or jax.vmap the step over the batch"
        )
