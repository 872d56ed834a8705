"""Hill-Clohessy-Wiltshire relative motion in closed form.

A vehicle near a circular reference orbit of mean motion ``n`` moves, to first order, by the
linear HCW equations; their exact solution over a step ``dt`` is a state transition matrix
``Phi(n, dt)``. The velocity change of a step is an impulse at its start:
``x' = Phi (x + [0, dv])``. States are rows, ``[R, T, N, dR, dT, dN]`` (RTN) or
``[R, T, dR, dT]`` (RT).
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import Array

__all__ = ["hcw_rt_step", "hcw_rt_stm", "hcw_rtn_step", "hcw_rtn_stm"]


def _in_plane(s: Any, c: Any, n: Any, dt: Any, xp: Any) -> Any:
    # Rows/columns [R, T, dR, dT]: the textbook (Vallado) in-plane solution.
    return xp.array(
        [
            [4 - 3 * c, 0.0, s / n, 2 * (1 - c) / n],
            [6 * (s - n * dt), 1.0, -2 * (1 - c) / n, (4 * s - 3 * n * dt) / n],
            [3 * n * s, 0.0, c, 2 * s],
            [-6 * n * (1 - c), 0.0, -2 * s, 4 * c - 3],
        ]
    )


def hcw_rt_stm(mean_motion: float, dt: float, *, xp: Any = jnp) -> Any:
    """f[4, 4], the in-plane transition matrix over ``dt`` (``x' = Phi @ x``).

    Args:
        mean_motion: n (rad/s) of the reference orbit.
        dt: the step (s).
        xp: the array module (``jax.numpy``, or ``numpy`` for host-side float64 tables).
    """
    n = mean_motion
    s, c = xp.sin(n * dt), xp.cos(n * dt)
    return _in_plane(s, c, n, dt, xp)


def hcw_rtn_stm(mean_motion: float, dt: float, *, xp: Any = jnp) -> Any:
    """f[6, 6], the full transition matrix over ``dt`` (``x' = Phi @ x``): the in-plane block
    on ``(R, T, dR, dT)`` and the cross-track oscillator ``[[c, s/n], [-n s, c]]`` on
    ``(N, dN)``.
    """
    n = mean_motion
    s, c = xp.sin(n * dt), xp.cos(n * dt)
    inp = np.asarray(_in_plane(s, c, n, dt, np)) if xp is np else _in_plane(s, c, n, dt, xp)
    phi = xp.zeros((6, 6))
    in_axes = np.array([0, 1, 3, 4])
    out_axes = np.array([2, 5])
    cross = xp.array([[c, s / n], [-n * s, c]])
    if xp is np:
        phi[np.ix_(in_axes, in_axes)] = inp
        phi[np.ix_(out_axes, out_axes)] = cross
        return phi
    phi = phi.at[np.ix_(in_axes, in_axes)].set(inp)
    return phi.at[np.ix_(out_axes, out_axes)].set(cross)


def _matrix(stm: Any, mean_motion: Any, dt: Any, dtype: Any) -> Array:
    # Python numbers: build in float64 on the host (on the device in float32 the 1 - cos(n dt)
    # entries lose ~1e-3 of their value to cancellation); traced ones: on the device.
    n = getattr(mean_motion, "mean_motion", mean_motion)
    if isinstance(n, int | float | np.floating) and isinstance(dt, int | float | np.floating):
        return jnp.asarray(stm(float(n), float(dt), xp=np), dtype)
    return stm(n, dt).astype(dtype)


def hcw_rtn_step(state: Array, dv: Array, mean_motion: Any, dt: float) -> Array:
    """One HCW step of RTN states.

    Args:
        state: f[n, 6].
        dv: f[n, 3], the impulse added to the velocity at the start of the step.
        mean_motion: n (rad/s), a Python float or an object with a ``mean_motion`` attribute.
        dt: the step (s).

    Returns:
        f[n, 6], the states ``dt`` later.
    """
    phi = _matrix(hcw_rtn_stm, mean_motion, dt, state.dtype)
    kicked = state.at[:, 3:].add(dv.astype(state.dtype))
    return kicked @ phi.T


def hcw_rt_step(state: Array, dv: Array, mean_motion: Any, dt: float) -> Array:
    """One HCW step of in-plane states: ``state`` f[n, 4], ``dv`` f[n, 2]; see
    `hcw_rtn_step`."""
    phi = _matrix(hcw_rt_stm, mean_motion, dt, state.dtype)
    kicked = state.at[:, 2:].add(dv.astype(state.dtype))
    return kicked @ phi.T
