"""`OrbitalGymEnv`: the symmetric two-sided core, and its state `EnvState`.

Both sides run through the same code; the caller supplies both sides' commands
(`SingleAgentView` supplies the opponent's). A step, in orbitalgym's order:

1. each side's command is clipped by thrust and propellant (`apply_impulse`) and the
   propellant booked;
2. both sides are propagated one ``dt`` by the closed-form HCW transition, the velocity
   change applied at the start of the step;
3. ``t += dt``, ``step += 1``;
4. the game advances its own bookkeeping (`Game.advance_state`, e.g. LBG's dwell counters);
5. each side observes the new state;
6. rewards ``reward_fn(prev_state, actions, next_state, side, cfg, prev_state.t)`` (the
   pre-step time, as orbitalgym);
7. ``episode_done = termination_fn(prev_state, next_state, cfg, next_state.t)``, split into
   ``terminated`` and ``truncated`` (`horizax.orbital.termination.base.split_done`).

A side with the COMMUNICATE action component carries ``active`` and ``payload`` in its
command (`horizax.orbital.env.types.CommunicatingCommand`); they change no state (a broadcast
moves nothing) and reach only the observation and reward functions, which receive both
sides' commands. A reward or observation that reads the guards' ``active``
(``reads_guard_active = True``, e.g. `LbgWithCommsReward`) needs COMMUNICATE in
``guard_action_components``: the constructor checks it, as orbitalgym's does.

`step` never stops by itself: it keeps simulating after an end (the rollouts latch). The
reference orbit in the state is the one of the episode's start; `reference_orbit_at`
propagates it when something needs absolute positions (orbitalgym integrates it every step).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core import threefry
from horizax.core.checks import check_key, check_unbatched
from horizax.core.struct import Replaceable, field, pytree_dataclass
from horizax.orbital.actions.components import apply_impulse
from horizax.orbital.config import ScenarioConfig
from horizax.orbital.dynamics.hcw import hcw_rt_stm, hcw_rtn_stm
from horizax.orbital.env.types import (
    Actions,
    BySide,
    Side,
    SideOutput,
    StepOutput,
    command_class,
)
from horizax.orbital.reference_orbit import ReferenceOrbitState
from horizax.orbital.registry import ActionComponentKey, Frame
from horizax.orbital.state.components import SideState, truth_state, with_truth_state
from horizax.orbital.termination.base import split_done

__all__ = ["EnvState", "OrbitalGymEnv"]


@pytree_dataclass
class EnvState(Replaceable):
    """The state of one scenario.

    Attributes:
        t: f32[], seconds since the episode began.
        step: i32[], steps taken.
        guards: `SideState` of the n_guards guards.
        bandits: `SideState` of the n_bandits bandits.
        reference_orbit: `ReferenceOrbitState` at the episode's start.
        ic_valid: bool[], False when the reset ran out of ``ic_sampler.max_attempts``.
        dwell_catch: i32[n_bandits], consecutive steps each bandit has been inside a guard's
            catch radius (advanced by the game).
        dwell_breach: i32[n_bandits], consecutive steps inside the breach radius.
    """

    t: Array
    step: Array
    guards: SideState
    bandits: SideState
    reference_orbit: ReferenceOrbitState
    ic_valid: Array = field(default_factory=lambda: jnp.asarray(True))
    dwell_catch: Array = field(default_factory=lambda: jnp.zeros((0,), jnp.int32))
    dwell_breach: Array = field(default_factory=lambda: jnp.zeros((0,), jnp.int32))


@dataclasses.dataclass(frozen=True)
class _VehicleModel:
    dry_mass_kg: float
    isp_s: float
    max_thrust_n: float
    mean_motion: float


def _check_comms_wiring(config: ScenarioConfig) -> None:
    """Raises ``ValueError`` when a component reads the guards' ``active`` but the guards
    cannot broadcast.

    Such a component would fail with an ``AttributeError`` deep inside a trace; orbitalgym
    checks the same at construction.
    """
    readers = [
        name
        for name in ("reward_fn", "guard_observation_fn", "bandit_observation_fn")
        if getattr(getattr(config, name), "reads_guard_active", False)
    ]
    if readers and ActionComponentKey.COMMUNICATE not in config.guard_action_components:
        names = ", ".join(f"{name}={getattr(config, name)!r}" for name in readers)
        raise ValueError(
            f"{names} reads the guards' broadcasts (actions.sides.guard.active), so "
            "guard_action_components must include ActionComponentKey.COMMUNICATE; got "
            f"guard_action_components={config.guard_action_components!r}"
        )


def _apply_stm(phi: np.ndarray, x: Array) -> Array:
    """``x @ phi.T`` as explicit products over phi's nonzero entries, summed in column order.

    A matrix product lowers to a dot whose accumulation order XLA picks per shape, so a
    batch (vmap) and one scenario would differ in the last bit; these elementwise sums do
    not. Skipping the zeros (half of HCW's matrix) also halves the work.
    """
    columns = []
    for row in phi:
        terms = [x[..., k] * jnp.asarray(v, x.dtype) for k, v in enumerate(row) if v != 0.0]
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        columns.append(total)
    return jnp.stack(columns, axis=-1)


class OrbitalGymEnv:
    """The two-sided orbital environment of a `ScenarioConfig`.

    Attributes:
        config: the scenario.
        mean_motion: the reference orbit's mean motion (rad/s).
        guard_command_cls, bandit_command_cls: each side's `Command` class (``.zeros(n)``).
        guard_params, bandit_params: each side's vehicle model with the mean motion.
    """

    def __init__(self, config: ScenarioConfig):
        if not isinstance(config, ScenarioConfig):
            raise TypeError(f"config must be a ScenarioConfig, got {type(config).__name__}")
        _check_comms_wiring(config)
        self.config = config
        self.mean_motion = config.mean_motion
        self.truth_frame: Frame = config.truth_frame
        dim = self.truth_frame.dim
        self.guard_command_cls = command_class("GuardCommand", dim, config.guard_action_components)
        self.bandit_command_cls = command_class(
            "BanditCommand", dim, config.bandit_action_components
        )
        self.guard_params = _VehicleModel(
            config.guard_params.dry_mass_kg,
            config.guard_params.isp_s,
            config.guard_params.max_thrust_n,
            self.mean_motion,
        )
        self.bandit_params = _VehicleModel(
            config.bandit_params.dry_mass_kg,
            config.bandit_params.isp_s,
            config.bandit_params.max_thrust_n,
            self.mean_motion,
        )
        # The transition matrix in float64 on the host: exact to the last bit of the state's
        # dtype, and nothing trigonometric left to compile.
        stm = hcw_rtn_stm if self.truth_frame is Frame.RTN else hcw_rt_stm
        self._stm_t = np.ascontiguousarray(stm(self.mean_motion, config.dt, xp=np).T)
        self.guard_observation_fn = config.guard_observation_fn
        self.bandit_observation_fn = config.bandit_observation_fn
        self.reward_fn = config.reward_fn
        self.termination_fn = config.termination_fn
        self.ic_sampler = config.ic_sampler

    # -- reset -------------------------------------------------------------------------------

    def reset(self, key: Array) -> tuple[EnvState, BySide]:
        """Draws a scenario: ``(EnvState, BySide[SideOutput])`` with zero rewards and
        ``done`` False. The key is split as orbitalgym splits it (initial conditions, then
        each side's observation key), so the same key draws the same scenario."""
        k_ic, k_obs_g, k_obs_b = threefry.split(check_key(key), 3)
        guards, bandits, ok = self._draw_initial_conditions(k_ic)
        zero_dwell = jnp.zeros((self.config.n_bandits,), jnp.int32)
        state = EnvState(
            t=jnp.asarray(0.0, guards.applied_dv.dtype),
            step=jnp.asarray(0, jnp.int32),
            guards=guards,
            bandits=bandits,
            reference_orbit=self._reference(),
            ic_valid=ok,
            dwell_catch=zero_dwell,
            dwell_breach=zero_dwell,
        )
        return state, self._initial_outputs(state, k_obs_g, k_obs_b)

    def reset_from_state(self, state: EnvState, key: Array) -> tuple[EnvState, BySide]:
        """Starts an episode from a stored state: clock, step and dwell counters zeroed,
        observations recomputed with ``key``; the stored reference orbit is kept."""
        k_obs_g, k_obs_b = threefry.split(key, 2)
        zero_dwell = jnp.zeros((self.config.n_bandits,), jnp.int32)
        restored = state.replace(
            t=jnp.zeros_like(state.t),
            step=jnp.zeros_like(state.step),
            dwell_catch=zero_dwell,
            dwell_breach=zero_dwell,
        )
        return restored, self._initial_outputs(restored, k_obs_g, k_obs_b)

    def identity_actions(self) -> Actions:
        """Both sides' no-thrust commands."""
        return Actions(
            sides=BySide(
                guard=self.guard_command_cls.zeros(self.config.n_guards),
                bandit=self.bandit_command_cls.zeros(self.config.n_bandits),
            )
        )

    def _reference(self) -> ReferenceOrbitState:
        ref = self.config.reference_orbit
        return ReferenceOrbitState(
            position_eci=jnp.asarray(ref.position_eci, jnp.float32),
            velocity_eci=jnp.asarray(ref.velocity_eci, jnp.float32),
        )

    def _initial_outputs(self, state: EnvState, k_obs_g: Array, k_obs_b: Array) -> BySide:
        actions = self.identity_actions()
        cfg = self.config
        obs_g = self.guard_observation_fn(state, actions, Side.GUARD, cfg, k_obs_g, state.t)
        obs_b = self.bandit_observation_fn(state, actions, Side.BANDIT, cfg, k_obs_b, state.t)
        zero, done = jnp.zeros((), state.t.dtype), jnp.asarray(False)
        return BySide(
            guard=SideOutput(obs=obs_g, reward=zero, done=done),
            bandit=SideOutput(obs=obs_b, reward=zero, done=done),
        )

    def _draw_initial_conditions(self, k_ic: Array) -> tuple[SideState, SideState, Array]:
        cfg, spec = self.config, self.ic_sampler

        def draw(i: Array) -> tuple[SideState, SideState, Array]:
            kg, kb = threefry.split(threefry.fold_in(k_ic, i), 2)
            guards = spec.guard_sampler(
                cfg,
                kg,
                n_vehicles=cfg.n_guards,
                components=cfg.guard_components,
                class_name="GuardState",
            )
            bandits = spec.bandit_sampler(
                cfg,
                kb,
                n_vehicles=cfg.n_bandits,
                components=cfg.bandit_components,
                class_name="BanditState",
            )
            if not spec.validators:
                return guards, bandits, jnp.asarray(True)
            checks = [jnp.asarray(v(cfg, guards, bandits)) for v in spec.validators]
            return guards, bandits, jnp.all(jnp.stack(checks))

        first = draw(jnp.asarray(0))
        if not spec.validators or spec.max_attempts == 1:
            return first

        def redraw_needed(carry: tuple[Array, SideState, SideState, Array]) -> Array:
            i, _, _, ok = carry
            return ~ok & (i < spec.max_attempts)

        def redraw(carry: tuple[Array, SideState, SideState, Array]) -> Any:
            return (carry[0] + 1, *draw(carry[0]))

        _, guards, bandits, ok = jax.lax.while_loop(redraw_needed, redraw, (jnp.asarray(1), *first))
        return guards, bandits, ok

    # -- pictures ----------------------------------------------------------------------------

    def render(self, state: EnvState, save_path: str | None = None) -> np.ndarray:
        """u8[H, W, 3]: a matplotlib picture of one unbatched ``state`` (`OrbitalViewer` in
        "rgb_array" mode, so no window opens; for one, build
        ``OrbitalViewer(env.config, render_mode="human")``). ``save_path`` also writes it as
        an image file (e.g. ``.png``). Raises ``ValueError`` for a batched state."""
        # An "rgb_array" viewer always returns the picture.
        return cast(np.ndarray, self._viewer.render(state, save_path=save_path))

    def animate(self, states: Any, interval: int = 200, save_path: str | None = None) -> Any:
        """A matplotlib ``FuncAnimation`` of ``states`` (a sequence of unbatched `EnvState`s,
        or one stacked over time, e.g. by `jax.lax.scan`), with each vehicle's trail;
        ``interval`` ms between frames; written as a GIF when ``save_path`` is set."""
        return self._viewer.animate(states, interval=interval, save_path=save_path)

    def close(self) -> None:
        """Closes the viewer's figure, if one was drawn."""
        if "_viewer" in self.__dict__:
            self._viewer.close()

    @functools.cached_property
    def _viewer(self) -> Any:
        # Made on first use: matplotlib is imported only by those who draw. The viewer drops
        # its figure when pickled or deep-copied, and takes no part in equality or hashing.
        from horizax.orbital.viewer import OrbitalViewer

        return OrbitalViewer(self.config, render_mode="rgb_array")

    # -- step --------------------------------------------------------------------------------

    def step(self, key: Array, state: EnvState, actions: Actions) -> StepOutput:
        """Advances one ``dt`` with both sides' commands; see the module docstring for the
        order of operations. Non-finite commands are applied as no thrust and flagged in
        ``info["invalid_action"]``. A ``state`` that holds a batch raises `ValueError`
        (`jax.vmap` the step over a batch)."""
        check_unbatched(state.step, "state")
        cfg = self.config
        _, k_obs_g, k_obs_b = threefry.split(key, 3)
        guards, applied_g, invalid_g = self._propagate(
            state.guards, actions.sides.guard.dv, self.guard_params
        )
        bandits, applied_b, invalid_b = self._propagate(
            state.bandits, actions.sides.bandit.dv, self.bandit_params
        )
        next_state = state.replace(
            t=state.t + jnp.asarray(cfg.dt, state.t.dtype),
            step=state.step + 1,
            guards=guards,
            bandits=bandits,
        )
        next_state = cfg.game.advance_state(state, next_state, cfg)
        obs_g = self.guard_observation_fn(
            next_state, actions, Side.GUARD, cfg, k_obs_g, next_state.t
        )
        obs_b = self.bandit_observation_fn(
            next_state, actions, Side.BANDIT, cfg, k_obs_b, next_state.t
        )
        reward_g = self.reward_fn(state, actions, next_state, Side.GUARD, cfg, state.t)
        reward_b = self.reward_fn(state, actions, next_state, Side.BANDIT, cfg, state.t)
        done = jnp.asarray(self.termination_fn(state, next_state, cfg, next_state.t), bool)
        terminated, truncated = split_done(
            self.termination_fn, done, state, next_state, cfg, next_state.t
        )
        return StepOutput(
            state=next_state,
            outputs=BySide(
                guard=SideOutput(obs=obs_g, reward=reward_g, done=done),
                bandit=SideOutput(obs=obs_b, reward=reward_b, done=done),
            ),
            episode_done=done,
            info={
                "applied_dv": BySide(guard=applied_g, bandit=applied_b),
                "invalid_action": BySide(guard=invalid_g, bandit=invalid_b),
            },
            terminated=terminated,
            truncated=truncated,
        )

    def _propagate(
        self, side: SideState, dv: Array, model: _VehicleModel
    ) -> tuple[SideState, Array, Array]:
        current = truth_state(side)
        dim = self.truth_frame.dim
        dv = jnp.asarray(dv, current.dtype).reshape(current.shape[0], dim)
        applied, propellant, invalid = apply_impulse(
            dv,
            side.propellant_mass,
            model.dry_mass_kg,
            model.isp_s,
            model.max_thrust_n,
            self.config.dt,
        )
        kicked = current.at[:, dim:].add(applied)
        moved = _apply_stm(self._stm_t.T, kicked)
        padded = jnp.pad(applied, ((0, 0), (0, 3 - dim)))
        side = with_truth_state(side, moved).replace(applied_dv=jnp.zeros_like(side.applied_dv))
        if propellant is not None:
            side = side.replace(propellant_mass=propellant)
        return side, padded, invalid
