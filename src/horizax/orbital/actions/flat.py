"""One side's command as one flat float vector, for the protocol views' ``Box`` actions.

The layout is orbitalgym's (``adapters/_command_flatten.py``): field-major, fields in their
components' order, each over all ``n`` vehicles, so a vector built for orbitalgym's
Gymnasium adapter means the same here:

* ``dv``: ``n * dim`` numbers, vehicle by vehicle (m/s, the action frame);
* with COMMUNICATE, then ``active``: ``n`` numbers, one per vehicle, **on above 0.5**;
* then ``payload``: ``n * 6`` numbers, vehicle by vehicle.

``active`` is carried as a float: a vehicle broadcasts when its number is strictly above
`ACTIVE_THRESHOLD` (0.5). orbitalgym casts the float to bool (any nonzero is on): both read
0 as off and 1 as on, but a continuous policy's output in ``[0, 1]`` (or a sample of the
box) broadcasts about half the time here rather than almost always, and a NaN is off (a
non-finite number never switches something on, as a non-finite ``dv`` is no thrust).

Bounds (`command_bounds`) are advisory, as for every ``Box`` action (the adapters pass values
unchanged): ``dv`` in ``[-dv_max, dv_max]``, ``active`` in ``[0, 1]``, ``payload`` in
``[-1, 1]``. Nothing reads the payload, so its bounds only keep the box finite (a finite box
samples finite actions and gives TorchRL a bounded spec).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.orbital.actions.components import PAYLOAD_DIM
from horizax.orbital.env.types import Command, CommunicatingCommand

__all__ = [
    "ACTIVE_THRESHOLD",
    "PAYLOAD_BOUND",
    "command_bounds",
    "command_flat_dim",
    "flatten_command",
    "unflatten_command",
]

ACTIVE_THRESHOLD = 0.5
"""A flat ``active`` number strictly above this broadcasts."""

PAYLOAD_BOUND = 1.0
"""The advisory ``[-PAYLOAD_BOUND, PAYLOAD_BOUND]`` box of each flat payload number."""


def _check_class(command_cls: type) -> type[Command]:
    if not (isinstance(command_cls, type) and issubclass(command_cls, Command)):
        raise TypeError(f"command_cls must be a Command class, got {command_cls!r}")
    return command_cls


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be an int >= 1, got {n!r}")
    return int(n)


def command_flat_dim(command_cls: type[Command], n: int) -> int:
    """The flat width of ``n`` vehicles' commands: ``n * dim``, plus ``n * (1 + 6)`` with
    COMMUNICATE.

    Raises:
        TypeError: if ``command_cls`` is not a `Command` class.
        ValueError: if ``n`` is not an int >= 1.
    """
    cls, n = _check_class(command_cls), _check_n(n)
    width = cls.dim
    if issubclass(cls, CommunicatingCommand):
        width += 1 + PAYLOAD_DIM
    return n * width


def flatten_command(command: Command) -> Array:
    """f32[D]: ``command`` in the module's layout (``active`` as 0.0 / 1.0).

    Args:
        command: a `Command` of ``n`` vehicles (``dv`` f32[n, dim]; ``active`` bool[n] and
            ``payload`` f32[n, 6] for a `CommunicatingCommand`).

    Raises:
        TypeError: if ``command`` is not a `Command`.
    """
    if not isinstance(command, Command):
        raise TypeError(f"command must be a Command, got {type(command).__name__}")
    parts = [jnp.asarray(command.dv, jnp.float32).reshape(-1)]
    if isinstance(command, CommunicatingCommand):
        parts.append(jnp.asarray(command.active).astype(jnp.float32).reshape(-1))
        parts.append(jnp.asarray(command.payload, jnp.float32).reshape(-1))
    return jnp.concatenate(parts)


def unflatten_command(command_cls: type[Command], n: int, flat: Array) -> Command:
    """The command of ``n`` vehicles that ``flat`` (f32[D], the module's layout) encodes.

    Args:
        command_cls: the side's command class.
        n: its vehicles.
        flat: f32[command_flat_dim(command_cls, n)] (any real dtype; cast to float32).

    Returns:
        ``command_cls`` with ``dv`` f32[n, dim] and, with COMMUNICATE, ``active`` bool[n]
        (``flat > 0.5``) and ``payload`` f32[n, 6].

    Raises:
        TypeError: if ``command_cls`` is not a `Command` class.
        ValueError: naming ``flat``, when its shape is not ``(D,)`` (checked when tracing).
    """
    cls = _check_class(command_cls)
    width = command_flat_dim(cls, n)
    flat = jnp.asarray(flat, jnp.float32)
    if flat.shape != (width,):
        raise ValueError(f"flat must have shape ({width},), got {flat.shape}")
    cut = n * cls.dim
    dv = flat[:cut].reshape(n, cls.dim)
    if not issubclass(cls, CommunicatingCommand):
        return cls(dv=dv)
    active = flat[cut : cut + n] > ACTIVE_THRESHOLD
    payload = flat[cut + n :].reshape(n, PAYLOAD_DIM)
    return cls(dv=dv, active=active, payload=payload)


def command_bounds(
    command_cls: type[Command], n: int, dv_max: float
) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)``, each f32[D]: the advisory box of the flat command (module docstring).

    Raises:
        TypeError: if ``command_cls`` is not a `Command` class.
        ValueError: if ``n`` is not an int >= 1 or ``dv_max`` is not a finite number >= 0.
    """
    cls = _check_class(command_cls)
    width = command_flat_dim(cls, n)
    number = isinstance(dv_max, int | float | np.integer | np.floating)
    if isinstance(dv_max, bool) or not number or not np.isfinite(dv_max) or dv_max < 0:
        raise ValueError(f"dv_max must be a finite number >= 0, got {dv_max!r}")
    cut = n * cls.dim
    low = np.full((width,), -PAYLOAD_BOUND, np.float32)
    high = np.full((width,), PAYLOAD_BOUND, np.float32)
    low[:cut], high[:cut] = -dv_max, dv_max
    if issubclass(cls, CommunicatingCommand):
        low[cut : cut + n], high[cut : cut + n] = 0.0, 1.0
    return low, high
