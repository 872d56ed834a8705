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
`check_box_action` lives in `horizax.core.spaces`, so a family's native ``step`` applies the
same rule (the orbital games' functional view does) and re-exported here for the adapters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from horizax.core import spaces
from horizax.core.spaces import check_box_action, is_real_dtype

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
    if isinstance(space, spaces.Box) and is_real_dtype(np.dtype(space.dtype)):
        return space
    raise TypeError(
        "the adapters need a Discrete action space or a Box of a float or integer dtype, "
        f"got {space!r}"
    )
