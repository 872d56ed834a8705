"""Proximity geometry shared by the Lady-Bandit-Guard termination, reward and game.

A catch or a breach is a fact about the continuous motion, not about the two samples that
bound a decision step: at 20 m/s a bandit crosses a 5 m sphere in well under a 10 s step and
lands outside it at both ends. Within a step the relative motion is taken as the straight
chord between the samples, ``r(s) = r0 + v s`` with ``v = (r1 - r0) / dt``; over 10 s of a
7000 km orbit the HCW arc departs from that chord by far less than the event radii.

An event also needs the chord speed below a gate (a fast flyby is a near miss), and may need
*dwell*: the bandit inside for that many consecutive steps. The counters live on the
`EnvState` and `LadyBanditGuard.advance_state` moves them (`lbg_dwell_step`).

Every comparison is strict, as orbitalgym's are: a distance equal to the radius, or a speed
equal to the gate, is outside. Leading axes of the position arrays pass through.
"""

from __future__ import annotations

import math
import numbers
from functools import lru_cache
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.orbital.dynamics.hcw import hcw_rtn_stm
from horizax.orbital.reference_orbit import mean_motion
from horizax.orbital.state.components import positions

__all__ = [
    "advance_dwell",
    "ballistic_breach_possible",
    "check_dwell_steps",
    "check_length",
    "closest_approach",
    "lbg_dwell_step",
    "lbg_events",
    "lbg_events_from_positions",
    "lbg_events_with_dwell",
    "lbg_proximity_masks",
    "lbg_repelled",
    "positions",
    "proximity_event",
    "stm_power_stack",
]

# orbitalgym's regulariser of |v|^2: it keeps t* finite for two vehicles at rest relative to
# each other (t* is then 0, the start of the step) without moving any realistic encounter.
_EPS = 1e-12


def closest_approach(r0: Array, v: Array, dt: float) -> tuple[Array, Array]:
    """The least distance of a straight coast over one step, and its speed.

    Args:
        r0: f32[..., 3], the relative position at the start of the step (m).
        v: f32[..., 3], the constant relative velocity over the step (m/s).
        dt: the step (s).

    Returns:
        ``(distance f32[...], speed f32[...])``: ``min |r0 + v s|`` over ``s`` in ``[0, dt]``
        and ``|v|``.
    """
    vv = jnp.sum(v * v, axis=-1)
    t_star = jnp.clip(-jnp.sum(r0 * v, axis=-1) / (vv + _EPS), 0.0, dt)
    closest = r0 + v * t_star[..., None]
    return jnp.linalg.norm(closest, axis=-1), jnp.sqrt(vv)


def proximity_event(r0: Array, v: Array, dt: float, radius_m: float, speed_mps: float) -> Array:
    """bool[...]: the coast passes strictly inside ``radius_m`` strictly slower than
    ``speed_mps``."""
    distance, speed = closest_approach(r0, v, dt)
    return jnp.logical_and(distance < radius_m, speed < speed_mps)


def lbg_proximity_masks(
    guard_prev: Array,
    guard_next: Array,
    bandit_prev: Array,
    bandit_next: Array,
    dt: float,
    catch_radius_m: float,
    catch_speed_mps: float,
    breach_radius_m: float,
    breach_speed_mps: float,
) -> tuple[Array, Array, Array, Array]:
    """Which bandits are inside the catch and breach tests over one step.

    A bandit is in catch when *some one guard* both passes inside ``catch_radius_m`` of it and
    is slower than ``catch_speed_mps`` relative to it: the radius and the gate are tested per
    pair, so a slow distant guard and a fast close one do not make a catch together. It is in
    breach when its own pass at the lady (the origin) meets the breach radius and gate. A
    catch radius of zero or less turns catches off but still reports ``d_gb_min``.

    Args:
        guard_prev: f32[..., n_g, 3], guard positions entering the step.
        guard_next: f32[..., n_g, 3], guard positions leaving it.
        bandit_prev: f32[..., n_b, 3], bandit positions entering the step.
        bandit_next: f32[..., n_b, 3], bandit positions leaving it.
        dt: the step (s).
        catch_radius_m: the catch test's radius (m).
        catch_speed_mps: the catch test's relative speed bound (m/s).
        breach_radius_m: the breach test's radius (m).
        breach_speed_mps: the breach test's relative speed bound (m/s).

    Returns:
        ``(in_catch bool[..., n_b], in_breach bool[..., n_b], d_gb_min f32[...],
        d_bl_min f32[...])``: the masks, the least guard-bandit closest approach over all
        pairs and the least bandit-lady closest approach.
    """
    rel = guard_prev[..., :, None, :] - bandit_prev[..., None, :, :]
    rel_next = guard_next[..., :, None, :] - bandit_next[..., None, :, :]
    d_gb, speed_gb = closest_approach(rel, (rel_next - rel) / dt, dt)
    d_gb_min = jnp.min(d_gb, axis=(-2, -1))

    d_bl, speed_bl = closest_approach(bandit_prev, (bandit_next - bandit_prev) / dt, dt)
    d_bl_min = jnp.min(d_bl, axis=-1)

    if catch_radius_m > 0.0:
        pair = jnp.logical_and(d_gb < catch_radius_m, speed_gb < catch_speed_mps)
        in_catch = jnp.any(pair, axis=-2)
    else:
        in_catch = jnp.zeros(d_bl.shape, dtype=bool)
    in_breach = jnp.logical_and(d_bl < breach_radius_m, speed_bl < breach_speed_mps)
    return in_catch, in_breach, d_gb_min, d_bl_min


def lbg_events_from_positions(
    guard_prev: Array,
    guard_next: Array,
    bandit_prev: Array,
    bandit_next: Array,
    dt: float,
    catch_radius_m: float,
    catch_speed_mps: float,
    breach_radius_m: float,
    breach_speed_mps: float,
) -> tuple[Array, Array, Array, Array]:
    """`lbg_proximity_masks` reduced over the bandits.

    Returns:
        ``(caught bool[...], breached bool[...], d_gb_min f32[...], d_bl_min f32[...])``.
    """
    in_catch, in_breach, d_gb_min, d_bl_min = lbg_proximity_masks(
        guard_prev,
        guard_next,
        bandit_prev,
        bandit_next,
        dt,
        catch_radius_m,
        catch_speed_mps,
        breach_radius_m,
        breach_speed_mps,
    )
    return jnp.any(in_catch, axis=-1), jnp.any(in_breach, axis=-1), d_gb_min, d_bl_min


def _step_positions(prev_state: Any, next_state: Any) -> tuple[Array, Array, Array, Array]:
    return (
        positions(prev_state.guards),
        positions(next_state.guards),
        positions(prev_state.bandits),
        positions(next_state.bandits),
    )


def lbg_events(
    prev_state: Any,
    next_state: Any,
    dt: float,
    catch_radius_m: float,
    catch_speed_mps: float,
    breach_radius_m: float,
    breach_speed_mps: float,
) -> tuple[Array, Array, Array, Array]:
    """`lbg_events_from_positions` over the step from ``prev_state`` to ``next_state``
    (`EnvState`s): ``(caught bool[], breached bool[], d_gb_min f32[], d_bl_min f32[])``."""
    return lbg_events_from_positions(
        *_step_positions(prev_state, next_state),
        dt,
        catch_radius_m,
        catch_speed_mps,
        breach_radius_m,
        breach_speed_mps,
    )


def advance_dwell(count: Array, inside: Array) -> Array:
    """i32[n_b]: ``count + 1`` where ``inside``, else 0.

    A step counts as inside when its closest approach is, so the step a bandit leaves on
    still counts (it was inside for part of it); the first step wholly outside breaks the
    hold.
    """
    return jnp.where(inside, count + 1, jnp.zeros_like(count))


def lbg_dwell_step(
    prev_state: Any,
    next_state: Any,
    dt: float,
    catch_radius_m: float,
    catch_speed_mps: float,
    breach_radius_m: float,
    breach_speed_mps: float,
) -> tuple[Array, Array]:
    """The dwell counters leaving a step: ``prev_state``'s advanced by this step's masks.

    A step that fails the radius *or* the speed gate resets its counter, so the gate holds on
    every step of a dwell.

    Returns:
        ``(dwell_catch i32[n_b], dwell_breach i32[n_b])``.
    """
    in_catch, in_breach, _, _ = lbg_proximity_masks(
        *_step_positions(prev_state, next_state),
        dt,
        catch_radius_m,
        catch_speed_mps,
        breach_radius_m,
        breach_speed_mps,
    )
    return (
        advance_dwell(prev_state.dwell_catch, in_catch),
        advance_dwell(prev_state.dwell_breach, in_breach),
    )


def lbg_events_with_dwell(
    prev_state: Any,
    next_state: Any,
    dt: float,
    catch_radius_m: float,
    catch_speed_mps: float,
    breach_radius_m: float,
    breach_speed_mps: float,
    catch_dwell_steps: int,
    breach_dwell_steps: int,
) -> tuple[Array, Array, Array, Array]:
    """`lbg_events`, with a positive dwell replacing its event by the counters.

    With ``catch_dwell_steps > 0`` the catch is ``any(next_state.dwell_catch >=
    catch_dwell_steps)``; likewise the breach. The counters are the ones the *game* advanced
    (with the game's radii and gates), read off ``next_state``. The distances are this
    step's closest approaches either way.

    Returns:
        ``(caught bool[], breached bool[], d_gb_min f32[], d_bl_min f32[])``.
    """
    caught, breached, d_gb_min, d_bl_min = lbg_events(
        prev_state,
        next_state,
        dt,
        catch_radius_m,
        catch_speed_mps,
        breach_radius_m,
        breach_speed_mps,
    )
    if catch_dwell_steps > 0:
        caught = jnp.any(next_state.dwell_catch >= catch_dwell_steps, axis=-1)
    if breach_dwell_steps > 0:
        breached = jnp.any(next_state.dwell_breach >= breach_dwell_steps, axis=-1)
    return caught, breached, d_gb_min, d_bl_min


@lru_cache(maxsize=8)
def stm_power_stack(mean_motion_rad_s: float, dt: float, max_steps: int) -> np.ndarray:
    """f64[max_steps + 1, 6, 6]: ``Phi^0 ... Phi^max_steps`` of the one-step HCW-RTN STM.

    Built once per ``(n, dt, max_steps)`` on the host in float64 and cached, so coasting a
    state to every step of the horizon is one batched product whichever step asks, and the
    table is a constant of the compiled program, never a traced value. The array is
    read-only because the cache shares it.
    """
    phi = hcw_rtn_stm(mean_motion_rad_s, dt, xp=np)
    stack = np.empty((max_steps + 1, 6, 6), np.float64)
    stack[0] = np.eye(6)
    for k in range(1, max_steps + 1):
        stack[k] = phi @ stack[k - 1]
    stack.flags.writeable = False
    return stack


def ballistic_breach_possible(
    x_rtn: Array,
    phi_powers: Array | np.ndarray,
    n_remaining: Array,
    dt: float,
    radius_m: float,
    speed_mps: float,
) -> Array:
    """Whether a coasting RTN state can still breach the lady before the clock runs out.

    Coasts ``x_rtn`` to every step of the horizon at once and applies `proximity_event` at
    the origin to each step's chord, keeping the first ``n_remaining`` chords. The horizon
    length is static (the stack's), ``n_remaining`` traced, so one program serves every step.

    Args:
        x_rtn: f32[..., 6], ``[R, T, N, dR, dT, dN]``.
        phi_powers: f[max_steps + 1, 6, 6] from `stm_power_stack`; cast to ``x_rtn``'s dtype.
        n_remaining: i32[], steps left in the episode.
        dt: the step (s) the stack was built with.
        radius_m: the breach test's radius (m).
        speed_mps: the breach test's relative speed bound (m/s).

    Returns:
        bool[...].
    """
    phi_powers = jnp.asarray(phi_powers, dtype=x_rtn.dtype)
    coast = jnp.einsum("kij,...j->...ki", phi_powers, x_rtn)  # f[..., max_steps + 1, 6]
    r0 = coast[..., :-1, :3]
    v = (coast[..., 1:, :3] - r0) / dt
    hits = proximity_event(r0, v, dt, radius_m, speed_mps)
    in_time = jnp.arange(r0.shape[-2]) < n_remaining
    return jnp.any(jnp.logical_and(hits, in_time), axis=-1)


def lbg_repelled(
    state: Any,
    params: Any,
    escape_radius_m: float,
    repel_on_empty_tank: bool,
    breach_radius_m: float,
    breach_speed_mps: float,
) -> Array:
    """bool[]: every bandit is repelled, no longer a threat to the lady.

    A bandit is repelled when it is strictly farther than ``escape_radius_m`` from the lady
    (a radius of zero or less turns this gate off), or, with ``repel_on_empty_tank``, when
    its tank is empty (``<= 0``) and its coast cannot breach in the steps left. With both
    gates off the result is False.

    Args:
        state: the `EnvState` to judge (the one leaving the step).
        params: the `ScenarioConfig`: its ``dt``, ``max_steps`` and ``reference_orbit`` set
            the coast (read on the host, so they must be concrete).
        escape_radius_m: the escape gate's radius (m); 0 disables it.
        repel_on_empty_tank: the empty-tank gate.
        breach_radius_m: the radius of the breach test a coast must fail (m).
        breach_speed_mps: that test's relative speed bound (m/s).
    """
    if escape_radius_m <= 0.0 and not repel_on_empty_tank:
        return jnp.asarray(False)
    bandits = state.bandits
    r_bandits = positions(bandits)
    repelled = jnp.zeros(r_bandits.shape[:-1], dtype=bool)
    if escape_radius_m > 0.0:
        repelled = jnp.linalg.norm(r_bandits, axis=-1) > escape_radius_m
    if repel_on_empty_tank:
        if bandits.rtn is None or bandits.propellant_mass is None:
            # A structural fact of the configuration, known before tracing; LadyBanditGuard's
            # validate rejects it at construction, this catches a termination used alone.
            raise ValueError("repel_on_empty_tank needs bandits with the RTN and MASS components")
        powers = stm_power_stack(
            mean_motion(params.reference_orbit), float(params.dt), int(params.max_steps)
        )
        reachable = ballistic_breach_possible(
            bandits.rtn,
            powers,
            params.max_steps - state.step,
            params.dt,
            breach_radius_m,
            breach_speed_mps,
        )
        stranded = jnp.logical_and(bandits.propellant_mass <= 0.0, jnp.logical_not(reachable))
        repelled = jnp.logical_or(repelled, stranded)
    return jnp.all(repelled, axis=-1)


def check_length(owner: str, name: str, value: float) -> None:
    """Raises ``ValueError`` naming ``owner.name`` unless ``value`` is a length ``>= 0``.

    orbitalgym accepts a negative radius (the event then never fires); horizax rejects it,
    since zero is already the documented way to turn a radius off.
    """
    if not value >= 0.0:  # also rejects NaN
        raise ValueError(f"{owner}.{name} is a length in metres, so it must be >= 0; got {value!r}")


def check_dwell_steps(owner: str, name: str, value: Any) -> None:
    """Raises ``ValueError`` naming ``owner.name`` unless ``value`` is a whole number
    ``>= 0`` (orbitalgym's rule: a float equal to an integer is accepted)."""
    whole = isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()
    if not whole or value < 0:
        raise ValueError(
            f"{owner}.{name} counts consecutive steps, so it must be a non-negative integer; "
            f"got {value!r}. Zero fires the event on the first step inside the radius."
        )
