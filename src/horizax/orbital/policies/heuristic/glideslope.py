"""Glideslope guidance: onto the lady at the origin, or onto the nearest opponent.

Each step the law asks for the impulse that moves a vehicle's in-plane HCW velocity onto a
desired one: the target's velocity plus a closing speed ``s`` along the line of sight. With
``rho`` the in-plane range to the target, ``s`` is the least of

* the glideslope ``rho / slope_s + arrival_mps`` (a range rate linear in range, as in
  Hablani, Tapper and Dana-Bashian, JGCD 25(3), 2002);
* the braking speed ``sqrt(2 a rho)``, ``a = brake_fraction * max_dv_mps / dt``, that the
  vehicle's per-step budget can still cancel before it arrives;
* the sustainable speed ``hcw_fraction * max_dv_mps / (2 n dt)``: holding a relative velocity
  ``v`` that is not free HCW motion costs about ``2 n v dt`` per step through the Coriolis
  term, so this is the fraction ``hcw_fraction`` of the most the budget can keep up.

The impulse is then scaled down, keeping its direction, to norm ``max_dv_mps``. Only the
in-plane components are commanded; the cross-track impulse is zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.orbital.policies.heuristic._checks import (
    as_float,
    check_count,
    check_number,
    check_state_dim,
    require_command_cls,
)
from horizax.orbital.policies.heuristic.views import in_plane, mean_from_view, own_states
from horizax.orbital.registry import PolicyKey, register

__all__ = [
    "GlideslopeIntercept",
    "GlideslopeToLady",
    "clip_to_cap",
    "glideslope_dv",
    "glideslope_u",
    "in_plane_command",
]


def clip_to_cap(u: Array, max_dv_mps: float) -> Array:
    """``f32[..., k]``: each row of ``u`` scaled down to norm ``max_dv_mps`` if longer."""
    norm = jnp.linalg.norm(u, axis=-1, keepdims=True)
    return u * jnp.minimum(1.0, max_dv_mps / jnp.maximum(norm, 1e-12))


def glideslope_u(
    x: Array,
    x_target: Array,
    *,
    max_dv_mps: float,
    dt: float,
    mean_motion: float,
    slope_s: float,
    arrival_mps: float,
    brake_fraction: float,
    hcw_fraction: float = 0.5,
) -> Array:
    """The impulse that puts the in-plane velocity of ``x`` on the glideslope, before the clip.

    Args:
        x: f32[n, 4], the vehicles' in-plane states ``(R, T, Rdot, Tdot)``.
        x_target: f32[n, 4], each vehicle's target state.
        max_dv_mps: the most delta-v one step may spend (m/s).
        dt: the step (s).
        mean_motion: n, the reference orbit's mean motion (rad/s).
        slope_s: the glideslope's time constant: range rate ``rho / slope_s + arrival_mps``.
        arrival_mps: the glideslope's closing speed at zero range (m/s).
        brake_fraction: the share of ``max_dv_mps / dt`` the braking speed assumes.
        hcw_fraction: the share of the sustainable HCW speed the law allows.

    Returns:
        f32[n, 2], radial and along-track impulse, not yet bounded by ``max_dv_mps``: callers
        that add their own terms add them here and clip the sum once.
    """
    line = x[..., :2] - x_target[..., :2]
    rho = jnp.linalg.norm(line, axis=-1, keepdims=True)
    toward_vehicle = line / jnp.maximum(rho, 1e-9)
    brake_accel = brake_fraction * max_dv_mps / dt
    glide_speed = rho / slope_s + arrival_mps
    brake_speed = jnp.sqrt(2.0 * brake_accel * rho)
    sustainable_speed = hcw_fraction * max_dv_mps / (2.0 * mean_motion * dt)
    speed = jnp.minimum(jnp.minimum(glide_speed, brake_speed), sustainable_speed)
    wanted_velocity = x_target[..., 2:] - speed * toward_vehicle
    return wanted_velocity - x[..., 2:]


def glideslope_dv(
    x: Array,
    x_target: Array,
    *,
    max_dv_mps: float,
    dt: float,
    mean_motion: float,
    slope_s: float,
    arrival_mps: float,
    brake_fraction: float,
    hcw_fraction: float = 0.5,
) -> Array:
    """f32[n, 2]: `glideslope_u` clipped to norm ``max_dv_mps`` (`clip_to_cap`)."""
    u = glideslope_u(
        x,
        x_target,
        max_dv_mps=max_dv_mps,
        dt=dt,
        mean_motion=mean_motion,
        slope_s=slope_s,
        arrival_mps=arrival_mps,
        brake_fraction=brake_fraction,
        hcw_fraction=hcw_fraction,
    )
    return clip_to_cap(u, max_dv_mps)


def in_plane_command(dv_rt: Array, command_cls: Any, n_vehicles: int) -> Any:
    """The side's command with ``dv_rt`` (f32[n, 2]) in its first two ``dv`` columns.

    The cross-track column, where the command has one, is zero. The ``dv`` dtype is the wider
    of the command's and the impulse's, so float64 guidance stays float64 under x64 (the
    command class makes float32 zeros).
    """
    template = command_cls.zeros(n_vehicles)
    dtype = jnp.promote_types(template.dv.dtype, dv_rt.dtype)
    dv = dv_rt.astype(dtype)
    width = template.dv.shape[-1]
    if width > 2:
        dv = jnp.concatenate([dv, jnp.zeros((n_vehicles, width - 2), dtype)], axis=-1)
    return template.replace(dv=dv)


def _check_law(owner: str, policy: Any) -> None:
    check_number(owner, "mean_motion", policy.mean_motion, positive=True)
    check_number(owner, "dt", policy.dt, positive=True)
    check_number(owner, "max_dv_mps", policy.max_dv_mps)
    check_number(owner, "slope_s", policy.slope_s, positive=True)
    check_number(owner, "arrival_mps", policy.arrival_mps)
    check_number(owner, "brake_fraction", policy.brake_fraction)
    check_number(owner, "hcw_fraction", policy.hcw_fraction)
    check_count(owner, "n_vehicles", policy.n_vehicles, minimum=1)
    check_state_dim(owner, policy.state_dim)


@register(PolicyKey.GLIDESLOPE_TO_LADY)
@dataclass(frozen=True)
class GlideslopeToLady:
    """Glide onto the lady at the RTN origin, pushed away from nearby opponents.

    The target is the origin at rest, so the commanded velocity is the glideslope's closing
    speed pointed at the lady. Before the clip, each opponent adds a push directly away from
    it of ``avoidance_gain_mps * exp(-d**2 / (2 avoidance_sigma_m**2))`` (``d`` its in-plane
    distance; zero gain, the default, switches it off).

    Build it with `build` (the knobs' defaults live there). The environment fills
    ``n_vehicles`` and ``command_cls`` in for the side it drives.

    Attributes:
        mean_motion: rad/s, for the sustainable-speed term.
        dt: s, the decision step.
        max_dv_mps: the per-step impulse budget, m/s.
        slope_s, arrival_mps, brake_fraction, hcw_fraction: the law (`glideslope_u`).
        avoidance_gain_mps: peak avoidance push, m/s (any sign; negative attracts).
        avoidance_sigma_m: its width, m (> 0).
        n_vehicles: vehicles on the policy's side (observers).
        n_opponents: vehicles on the other side.
        state_dim: 6 for RTN observations (cross-track ignored), 4 for RT.
        command_cls: the side's command class.

    Call: ``(policy_state, agent_view, key, t) -> (command, policy_state)``; the state is
    passed through untouched, ``agent_view`` is a belief or a flat observation
    (`mean_from_view`), and the command's ``dv`` is f32[n_vehicles, dim].
    """

    mean_motion: float
    dt: float
    max_dv_mps: float
    slope_s: float
    arrival_mps: float
    brake_fraction: float
    hcw_fraction: float
    avoidance_gain_mps: float
    avoidance_sigma_m: float
    n_vehicles: int
    n_opponents: int
    state_dim: int
    command_cls: Any

    def __post_init__(self) -> None:
        _check_law("GlideslopeToLady", self)
        check_number("GlideslopeToLady", "avoidance_gain_mps", self.avoidance_gain_mps, signed=True)
        check_number("GlideslopeToLady", "avoidance_sigma_m", self.avoidance_sigma_m, positive=True)
        check_count("GlideslopeToLady", "n_opponents", self.n_opponents, minimum=0)

    @classmethod
    def build(
        cls,
        *,
        mean_motion: float,
        dt: float,
        n_vehicles: int,
        n_opponents: int,
        state_dim: int,
        command_cls: Any,
        max_dv_mps: float,
        slope_s: float = 100.0,
        arrival_mps: float = 0.3,
        brake_fraction: float = 0.5,
        hcw_fraction: float = 0.5,
        avoidance_gain_mps: float = 0.0,
        avoidance_sigma_m: float = 50.0,
    ) -> GlideslopeToLady:
        """The policy with its knobs as Python floats; ``command_cls`` may be None for the
        environment to fill.

        Raises:
            ValueError: naming the first knob out of range.
        """
        owner = "GlideslopeToLady"
        return cls(
            mean_motion=as_float(owner, "mean_motion", mean_motion),
            dt=as_float(owner, "dt", dt),
            max_dv_mps=as_float(owner, "max_dv_mps", max_dv_mps),
            slope_s=as_float(owner, "slope_s", slope_s),
            arrival_mps=as_float(owner, "arrival_mps", arrival_mps),
            brake_fraction=as_float(owner, "brake_fraction", brake_fraction),
            hcw_fraction=as_float(owner, "hcw_fraction", hcw_fraction),
            avoidance_gain_mps=as_float(owner, "avoidance_gain_mps", avoidance_gain_mps),
            avoidance_sigma_m=as_float(owner, "avoidance_sigma_m", avoidance_sigma_m),
            n_vehicles=n_vehicles,
            n_opponents=n_opponents,
            state_dim=state_dim,
            command_cls=command_cls,
        )

    def __call__(self, policy_state: Any, agent_view: Any, key: Array, t: Array) -> tuple[Any, Any]:
        """One decision for every vehicle of the side (see the class docstring)."""
        del key, t
        command_cls = require_command_cls("GlideslopeToLady", self.command_cls)
        n = self.n_vehicles
        mean = mean_from_view(agent_view, n, self.n_opponents, self.state_dim)
        own = in_plane(own_states(mean, n), self.state_dim)
        u_glide = glideslope_u(
            own,
            jnp.zeros_like(own),
            max_dv_mps=self.max_dv_mps,
            dt=self.dt,
            mean_motion=self.mean_motion,
            slope_s=self.slope_s,
            arrival_mps=self.arrival_mps,
            brake_fraction=self.brake_fraction,
            hcw_fraction=self.hcw_fraction,
        )
        away = own[:, None, :2] - mean[:, n:, :2]  # [n, n_opponents, 2]
        dist = jnp.linalg.norm(away, axis=-1, keepdims=True)
        # orbitalgym adds the epsilon to the distance here (the glideslope clamps it instead).
        push = self.avoidance_gain_mps * jnp.exp(-(dist**2) / (2.0 * self.avoidance_sigma_m**2))
        u_avoid = jnp.sum(push * (away / (dist + 1e-9)), axis=1)
        dv_rt = clip_to_cap(u_glide + u_avoid, self.max_dv_mps)
        return in_plane_command(dv_rt, command_cls, n), policy_state


@register(PolicyKey.GLIDESLOPE_INTERCEPT)
@dataclass(frozen=True)
class GlideslopeIntercept:
    """Glide onto the nearest opponent, matching its velocity as the range closes.

    Each observer takes the opponent nearest to it in the orbital plane (the first one on a
    tie) as its target, so the commanded velocity is that opponent's velocity plus the
    closing speed along the line of sight: range and relative speed go to zero together.

    Build it with `build`. The attributes and the call are those of `GlideslopeToLady`,
    without the avoidance knobs; ``n_opponents`` must be at least 1.
    """

    mean_motion: float
    dt: float
    max_dv_mps: float
    slope_s: float
    arrival_mps: float
    brake_fraction: float
    hcw_fraction: float
    n_vehicles: int
    n_opponents: int
    state_dim: int
    command_cls: Any

    def __post_init__(self) -> None:
        _check_law("GlideslopeIntercept", self)
        check_count("GlideslopeIntercept", "n_opponents", self.n_opponents, minimum=1)

    @classmethod
    def build(
        cls,
        *,
        mean_motion: float,
        dt: float,
        n_vehicles: int,
        n_opponents: int,
        state_dim: int,
        command_cls: Any,
        max_dv_mps: float,
        slope_s: float = 100.0,
        arrival_mps: float = 0.3,
        brake_fraction: float = 0.5,
        hcw_fraction: float = 0.5,
    ) -> GlideslopeIntercept:
        """The policy with its knobs as Python floats (see `GlideslopeToLady.build`).

        Raises:
            ValueError: naming the first knob out of range.
        """
        owner = "GlideslopeIntercept"
        return cls(
            mean_motion=as_float(owner, "mean_motion", mean_motion),
            dt=as_float(owner, "dt", dt),
            max_dv_mps=as_float(owner, "max_dv_mps", max_dv_mps),
            slope_s=as_float(owner, "slope_s", slope_s),
            arrival_mps=as_float(owner, "arrival_mps", arrival_mps),
            brake_fraction=as_float(owner, "brake_fraction", brake_fraction),
            hcw_fraction=as_float(owner, "hcw_fraction", hcw_fraction),
            n_vehicles=n_vehicles,
            n_opponents=n_opponents,
            state_dim=state_dim,
            command_cls=command_cls,
        )

    def __call__(self, policy_state: Any, agent_view: Any, key: Array, t: Array) -> tuple[Any, Any]:
        """One decision for every vehicle of the side (see the class docstring)."""
        del key, t
        command_cls = require_command_cls("GlideslopeIntercept", self.command_cls)
        n = self.n_vehicles
        mean = mean_from_view(agent_view, n, self.n_opponents, self.state_dim)
        own = in_plane(own_states(mean, n), self.state_dim)
        opponents = in_plane(mean[:, n:, :], self.state_dim)  # [n, n_opponents, 4]
        range_m = jnp.linalg.norm(own[:, None, :2] - opponents[..., :2], axis=-1)
        nearest = jnp.argmin(range_m, axis=-1)
        target = opponents[jnp.arange(n), nearest, :]
        dv_rt = glideslope_dv(
            own,
            target,
            max_dv_mps=self.max_dv_mps,
            dt=self.dt,
            mean_motion=self.mean_motion,
            slope_s=self.slope_s,
            arrival_mps=self.arrival_mps,
            brake_fraction=self.brake_fraction,
            hcw_fraction=self.hcw_fraction,
        )
        return in_plane_command(dv_rt, command_cls, n), policy_state
