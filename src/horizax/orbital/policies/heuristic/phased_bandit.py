"""A scheduled bandit: coast, move onto a standoff ring, hold there, then commit to the lady.

The schedule puts timing into the game: the bandit is quiet for a while, spends fuel once to
reach a bounded ring of radial amplitude ``standoff_m`` around the lady, waits on it (the ring
is free HCW motion, so waiting costs nothing) and only then glides in.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
from jax import Array

from horizax.core.struct import Replaceable, pytree_dataclass
from horizax.orbital.policies.heuristic._checks import as_float, check_count, check_number
from horizax.orbital.policies.heuristic.glideslope import GlideslopeToLady, glideslope_dv
from horizax.orbital.policies.heuristic.views import in_plane, mean_from_view, own_states
from horizax.orbital.registry import PolicyKey, register

__all__ = ["COAST", "COMMIT", "HOLD", "TRANSFER", "PhasedBandit", "PhasedBanditState"]

COAST = 0
TRANSFER = 1
HOLD = 2
COMMIT = 3


@pytree_dataclass
class PhasedBanditState(Replaceable):
    """Where each bandit is in its schedule; every vehicle advances on its own clock.

    Attributes:
        phase: i32[n_vehicles], `COAST`, `TRANSFER`, `HOLD` or `COMMIT`.
        t_in_phase: f32[n_vehicles], seconds spent in the current phase (zeroed on each
            change of phase).
    """

    phase: Array
    t_in_phase: Array


def _ring_target(own: Array, standoff_m: float, mean_motion: float) -> Array:
    """f32[n, 4]: the point of the standoff ring at each vehicle's own phase angle.

    The ring is the drift-free 2:1 ellipse ``R = -A cos(theta)``, ``T = 2 A sin(theta)``
    (the family `RelativeEllipse` samples), with its own velocity at that angle, so a vehicle
    that reaches the target then coasts round the ring. The angle is read off the position,
    ``(R, T / 2) = rho (-cos(theta), sin(theta))``: the transfer changes the amplitude, not
    the phase. A vehicle at the lady has no angle; the radial direction stands in for it.
    """
    radial, half_along = own[:, 0], 0.5 * own[:, 1]
    rho = jnp.sqrt(radial**2 + half_along**2)
    at_lady = rho < 1e-6
    unit_r = jnp.where(at_lady, 1.0, radial / jnp.maximum(rho, 1e-12))
    unit_t = jnp.where(at_lady, 0.0, half_along / jnp.maximum(rho, 1e-12))
    amp = standoff_m
    return jnp.stack(
        [
            amp * unit_r,
            2.0 * amp * unit_t,
            mean_motion * amp * unit_t,
            -2.0 * mean_motion * amp * unit_r,
        ],
        axis=-1,
    )


@register(PolicyKey.PHASED_BANDIT)
@dataclass(frozen=True)
class PhasedBandit:
    """Run each bandit through coast, transfer, hold and commit.

    1. Coast: no thrust for ``t_coast_s``.
    2. Transfer: glide onto the standoff ring (`_ring_target`) with `glideslope_dv`, the
       commit law's ``slope_s``, ``brake_fraction`` and ``hcw_fraction`` and an arrival speed
       of zero, so the vehicle stops *on* the ring state. It ends once the vehicle is within
       ``settle_tol_m`` and ``settle_tol_mps`` of that state, or after
       ``t_transfer_max_s``. No avoidance: pushing off a guard would leave the ring short.
    3. Hold: no thrust for ``t_hold_s``.
    4. Commit: the ``commit`` policy's command (`GlideslopeToLady`, with its avoidance) to the
       end of the episode.

    Each call issues the command of the phase the vehicle is in, then advances its clock by
    ``dt`` and moves it to the next phase when that phase's test holds on this call's
    observation. So a phase lasts at least one step (a zero ``t_coast_s`` still coasts one
    step), and the clock counts steps from the first call, not the absolute time ``t``.

    Build it with `build`; the policy state starts from `init_state`.

    Attributes:
        commit: the `GlideslopeToLady` of the last phase; it also holds ``max_dv_mps``,
            the fleet sizes, ``state_dim`` and ``command_cls``.
        mean_motion: rad/s, for the ring's velocity and the transfer's sustainable speed.
        dt: s, the decision step (the phase clock's tick).
        t_coast_s, t_hold_s, t_transfer_max_s: phase durations, s.
        standoff_m: the ring's radial amplitude, m (its along-track amplitude is twice that).
        settle_tol_m, settle_tol_mps: how close to the ring state ends the transfer.
        n_vehicles, command_cls: horizax's addition, so that the environment can fill them
            in with `dataclasses.replace` as for every other policy; they are pushed into
            ``commit``. None (the default) leaves ``commit``'s own.

    Call: ``(policy_state, agent_view, key, t) -> (command, next PhasedBanditState)``. A
    ``None`` policy state is read as `init_state` (horizax's addition: `SingleAgentView`
    starts an opponent's state as None).
    """

    commit: GlideslopeToLady
    mean_motion: float
    dt: float
    t_coast_s: float
    standoff_m: float
    t_hold_s: float
    settle_tol_m: float
    settle_tol_mps: float
    t_transfer_max_s: float
    n_vehicles: int | None = None
    command_cls: Any = None

    def __post_init__(self) -> None:
        owner = "PhasedBandit"
        if not isinstance(self.commit, GlideslopeToLady):
            raise ValueError(f"{owner}.commit must be a GlideslopeToLady, got {self.commit!r}")
        check_number(owner, "mean_motion", self.mean_motion, positive=True)
        check_number(owner, "dt", self.dt, positive=True)
        for name in (
            "t_coast_s",
            "standoff_m",
            "t_hold_s",
            "settle_tol_m",
            "settle_tol_mps",
            "t_transfer_max_s",
        ):
            check_number(owner, name, getattr(self, name))
        changes: dict[str, Any] = {}
        if self.n_vehicles is not None:
            check_count(owner, "n_vehicles", self.n_vehicles, minimum=1)
            if self.n_vehicles != self.commit.n_vehicles:
                changes["n_vehicles"] = self.n_vehicles
        if self.command_cls is not None and self.command_cls is not self.commit.command_cls:
            changes["command_cls"] = self.command_cls
        if changes:
            object.__setattr__(self, "commit", dataclasses.replace(self.commit, **changes))

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
        t_coast_s: float,
        standoff_m: float,
        t_hold_s: float,
        settle_tol_m: float = 20.0,
        settle_tol_mps: float = 0.02,
        t_transfer_max_s: float = 3000.0,
        slope_s: float = 100.0,
        arrival_mps: float = 0.3,
        brake_fraction: float = 0.5,
        hcw_fraction: float = 0.5,
        avoidance_gain_mps: float = 0.0,
        avoidance_sigma_m: float = 50.0,
    ) -> PhasedBandit:
        """The schedule and its commit policy, knobs as Python floats.

        Raises:
            ValueError: naming the first knob out of range.
        """
        owner = "PhasedBandit"
        commit = GlideslopeToLady.build(
            mean_motion=mean_motion,
            dt=dt,
            n_vehicles=n_vehicles,
            n_opponents=n_opponents,
            state_dim=state_dim,
            command_cls=command_cls,
            max_dv_mps=max_dv_mps,
            slope_s=slope_s,
            arrival_mps=arrival_mps,
            brake_fraction=brake_fraction,
            hcw_fraction=hcw_fraction,
            avoidance_gain_mps=avoidance_gain_mps,
            avoidance_sigma_m=avoidance_sigma_m,
        )
        return cls(
            commit=commit,
            mean_motion=as_float(owner, "mean_motion", mean_motion),
            dt=as_float(owner, "dt", dt),
            t_coast_s=as_float(owner, "t_coast_s", t_coast_s),
            standoff_m=as_float(owner, "standoff_m", standoff_m),
            t_hold_s=as_float(owner, "t_hold_s", t_hold_s),
            settle_tol_m=as_float(owner, "settle_tol_m", settle_tol_m),
            settle_tol_mps=as_float(owner, "settle_tol_mps", settle_tol_mps),
            t_transfer_max_s=as_float(owner, "t_transfer_max_s", t_transfer_max_s),
        )

    def init_state(self) -> PhasedBanditState:
        """Every vehicle coasting, its phase clock at zero (the clock in the default float
        dtype: float32, or float64 under x64)."""
        n = self.commit.n_vehicles
        return PhasedBanditState(
            phase=jnp.zeros((n,), jnp.int32),
            t_in_phase=jnp.zeros((n,), jnp.result_type(float)),
        )

    def __call__(
        self, policy_state: PhasedBanditState | None, agent_view: Any, key: Array, t: Array
    ) -> tuple[Any, PhasedBanditState]:
        """One decision per vehicle, and the advanced schedule (see the class docstring)."""
        if policy_state is None:
            policy_state = self.init_state()
        inner = self.commit
        n = inner.n_vehicles
        mean = mean_from_view(agent_view, n, inner.n_opponents, inner.state_dim)
        own = in_plane(own_states(mean, n), inner.state_dim)

        # Every phase's command is computed and the vehicle's phase selects one: no branch on
        # traced values, so vehicles (and vmapped scenarios) in different phases share a trace.
        target = _ring_target(own, self.standoff_m, self.mean_motion)
        dv_transfer = glideslope_dv(
            own,
            target,
            max_dv_mps=inner.max_dv_mps,
            dt=self.dt,
            mean_motion=self.mean_motion,
            slope_s=inner.slope_s,
            arrival_mps=0.0,
            brake_fraction=inner.brake_fraction,
            hcw_fraction=inner.hcw_fraction,
        )
        commit_command, _ = inner(None, agent_view, key, t)
        dv_commit = commit_command.dv
        width = dv_commit.shape[-1]
        if width > 2:
            dv_transfer = jnp.concatenate(
                [dv_transfer, jnp.zeros((n, width - 2), dv_transfer.dtype)], axis=-1
            )

        phase = policy_state.phase
        dv = jnp.where((phase == TRANSFER)[:, None], dv_transfer, 0.0) + jnp.where(
            (phase == COMMIT)[:, None], dv_commit, 0.0
        )

        clock = policy_state.t_in_phase + self.dt
        error = own - target
        settled = (jnp.linalg.norm(error[:, :2], axis=-1) < self.settle_tol_m) & (
            jnp.linalg.norm(error[:, 2:], axis=-1) < self.settle_tol_mps
        )
        advance = jnp.select(
            [phase == COAST, phase == TRANSFER, phase == HOLD],
            [
                clock >= self.t_coast_s,
                settled | (clock >= self.t_transfer_max_s),
                clock >= self.t_hold_s,
            ],
            False,
        )
        next_state = PhasedBanditState(
            phase=phase + advance.astype(phase.dtype),
            t_in_phase=jnp.where(advance, 0.0, clock).astype(policy_state.t_in_phase.dtype),
        )
        return commit_command.replace(dv=dv.astype(dv_commit.dtype)), next_state
