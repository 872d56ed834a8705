"""The action rule every adapter applies before an action reaches a jitted step.

Adapters accept the two action spaces a protocol view may declare (`check_action_space`):
``Discrete`` (each adapter keeps its established integer check, in its own module) and
``Box`` of a float or integer dtype, checked here once for all of them (`check_box_action`):

* the action is an array, or anything ``numpy.asarray`` turns into one, of a float or
  integer dtype (an integer ``Box`` takes integers only, as ``Discrete`` does): a bool, a
  string or an object raises `TypeError`;
* its shape is exactly the space's (a batched adapter: exactly ``(num_envs, *shape)``), else
  `ValueError` naming the shape expected;
* it is cast to the space's dtype;
* its values are **not** checked against the bounds, nor clipped: an action outside them,
  or not finite, is passed to the environment as it is. The family decides what such a
  command means (the orbital games clip the velocity change's *norm* by their thrust rule,
  keeping its direction, and apply a non-finite command as no thrust, flagged in
  ``info["invalid_action"]``); clipping each component to the box here would change the
  command's direction, so an adapter would play a different episode than the native API
  does for the same actions (ARCHITECTURE.md, contract 6).

The checks read only dtypes and shapes, so they also run at trace time on a tracer (the
gymnax adapter is stepped under the caller's `jax.jit`); a jax array stays a jax array.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from horizax.core import spaces

__all__ = ["check_action_space", "check_box_action"]


def check_action_space(space: Any) -> spaces.Discrete | spaces.Box:
    """The action space of a protocol view, if the adapters can drive it.

    Args:
        space: the view's ``action_space``.

    Returns:
        ``space`` itself.

    Raises:
        TypeError: for a space other than ``Discrete``, or a ``Box`` whose dtype is neither
            float nor integer (a bool ``Box``: no adapter's action check accepts bools).
    """
    if isinstance(space, spaces.Discrete):
        return space
    if isinstance(space, spaces.Box) and _is_real(np.dtype(space.dtype)):
        return space
    raise TypeError(
        "the adapters need a Discrete action space or a Box of a float or integer dtype, "
        f"got {space!r}"
    )


def _is_real(dtype: np.dtype) -> bool:
    """Float or integer, bool excluded (numpy does not count bool as an integer dtype)."""
    return bool(np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.integer))


def check_box_action(action: Any, space: spaces.Box, batch_shape: tuple[int, ...] = ()) -> Any:
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
        (out-of-bounds and non-finite values included, see the module docstring).

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
    if not _is_real(dtype):
        raise TypeError(f"action must be a float or integer array, got dtype {dtype}")
    if np.issubdtype(space_dtype, np.integer) and not np.issubdtype(dtype, np.integer):
        raise TypeError(f"action must be an integer array for a {space_dtype} Box, got {dtype}")
    if tuple(action.shape) != expected:
        raise ValueError(f"action must have shape {expected}, got {tuple(action.shape)}")
    return action.astype(space_dtype)
