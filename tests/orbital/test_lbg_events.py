"""LbgEventTermination, the distance cap and the composites: events against the step cap
(``terminal_events`` vs ``__call__``), the seed page's fields, and LadyBanditGuard's
validation and builder."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital.env.core import EnvState, OrbitalGymEnv
from horizax.orbital.games import LadyBanditGuard, make_game, make_lady_bandit_guard
from horizax.orbital.registry import DynamicsKey, GameKey, TerminationFnKey, resolve
from horizax.orbital.registry import StateComponentKey as K
from horizax.orbital.state.components import SideState
from horizax.orbital.termination.base import split_done
from horizax.orbital.termination.lbg_events import LbgEventTermination
from horizax.orbital.termination.max_distance import (
    AllOfTermination,
    AnyOfTermination,
    MaxDistanceTermination,
)
from horizax.orbital.termination.reference import MaxStepsOnly

F32 = jnp.float32
INF = float("inf")
QUIET_GUARD, QUIET_BANDIT = (300.0, 0.0, 0.0), (0.0, 400.0, 0.0)


def _side(points) -> SideState:
    rtn = jnp.asarray([[*p, 0.0, 0.0, 0.0] for p in points], F32)
    return SideState(rtn=rtn, rt=None, propellant_mass=None, applied_dv=jnp.zeros((len(points), 3)))


def _state(cfg, guards, bandits, step) -> EnvState:
    return EnvState(
        t=jnp.asarray(10.0 * step, F32),
        step=jnp.asarray(step, jnp.int32),
        guards=_side(guards),
        bandits=_side(bandits),
        reference_orbit=cfg.reference_orbit,
        ic_valid=jnp.asarray(True),
        dwell_catch=jnp.zeros((len(bandits),), jnp.int32),
        dwell_breach=jnp.zeros((len(bandits),), jnp.int32),
    )


def _step(cfg, step, *, bandit_from=QUIET_BANDIT, bandit_to=QUIET_BANDIT, guard=QUIET_GUARD):
    return _state(cfg, [guard], [bandit_from], step - 1), _state(cfg, [guard], [bandit_to], step)


def _flags(term, cfg, prev, nxt):
    done = term(prev, nxt, cfg, nxt.t)
    return bool(done), bool(term.terminal_events(prev, nxt, cfg, nxt.t))


def test_fields_and_defaults_are_the_seed_pages():
    fields = {f.name: f.default for f in dataclasses.fields(LbgEventTermination)}
    assert list(fields) == [
        "breach_radius_m",
        "catch_radius_m",
        "breach_speed_mps",
        "catch_speed_mps",
        "catch_dwell_steps",
        "breach_dwell_steps",
        "escape_radius_m",
        "repel_on_empty_tank",
    ]
    assert fields["breach_radius_m"] is dataclasses.MISSING, "breach_radius_m has no default"
    assert fields["catch_radius_m"] == 0.0 and fields["escape_radius_m"] == 0.0
    assert fields["breach_speed_mps"] == INF and fields["catch_speed_mps"] == INF
    assert fields["catch_dwell_steps"] == 0 and fields["breach_dwell_steps"] == 0
    assert fields["repel_on_empty_tank"] is False


def test_terminal_events_leave_out_the_cap_that_call_includes():
    cfg = make_lady_bandit_guard(max_horizon_s=200.0)
    term = cfg.termination_fn
    cap = cfg.max_steps
    assert _flags(term, cfg, *_step(cfg, cap - 1)) == (False, False), "quiet, before the cap"
    assert _flags(term, cfg, *_step(cfg, cap)) == (True, False), "the cap alone: truncation"
    assert _flags(term, cfg, *_step(cfg, cap + 3)) == (True, False), "past the cap"
    through = dict(bandit_from=(-100.0, 0.0, 0.0), bandit_to=(100.0, 0.0, 0.0))
    assert _flags(term, cfg, *_step(cfg, cap - 1, **through)) == (True, True), "a breach"
    assert _flags(term, cfg, *_step(cfg, cap, **through)) == (True, True), "breach on the cap"
    prev, nxt = _step(cfg, cap, **through)
    terminated, truncated = split_done(term, term(prev, nxt, cfg, nxt.t), prev, nxt, cfg, nxt.t)
    assert bool(terminated) and not bool(truncated), "termination wins on the cap step"


def test_catch_and_repel_are_events():
    cfg = make_lady_bandit_guard(escape_radius_m=1000.0)
    term = cfg.termination_fn
    caught = _step(cfg, 3, guard=(10.0, 400.0, 0.0))
    assert _flags(term, cfg, *caught) == (True, True), "a guard 10 m from the bandit"
    repelled = _step(cfg, 3, bandit_to=(0.0, 1001.0, 0.0))
    assert _flags(term, cfg, *repelled) == (True, True), "the only bandit beyond 1000 m"
    no_catch = LbgEventTermination(breach_radius_m=5.0)
    assert _flags(no_catch, cfg, *caught) == (False, False), "catch_radius_m defaults to 0"


def test_dwell_reads_the_counters_on_the_state():
    cfg = make_lady_bandit_guard(breach_dwell_steps=2, catch_dwell_steps=3)
    term = cfg.termination_fn
    prev, nxt = _step(cfg, 4, bandit_from=(1.0, 0, 0), bandit_to=(1.0, 0, 0), guard=(9.0, 0, 0))
    held = {"dwell_breach": jnp.asarray([1], jnp.int32), "dwell_catch": jnp.asarray([2])}
    assert _flags(term, cfg, prev, nxt.replace(**held)) == (False, False), "one step short"
    assert _flags(term, cfg, prev, nxt.replace(dwell_breach=jnp.asarray([2]))) == (True, True)
    assert _flags(term, cfg, prev, nxt.replace(dwell_catch=jnp.asarray([3]))) == (True, True)


def test_the_game_threads_its_knobs_into_the_default_termination():
    game = LadyBanditGuard(breach_radius_m=7.0, catch_radius_m=33.0, catch_dwell_steps=2)
    term = game.default_termination_fn()
    assert term == LbgEventTermination(
        breach_radius_m=7.0, catch_radius_m=33.0, catch_dwell_steps=2
    ), "every event knob reaches the termination"


def test_max_distance_has_no_cap_and_is_strict():
    cfg = make_lady_bandit_guard(max_horizon_s=200.0)
    term = MaxDistanceTermination(max_distance_m=1000.0)
    late = _step(cfg, cfg.max_steps + 5)
    assert _flags(term, cfg, *late) == (False, False), "past the cap but near: no end"
    at_cap = _step(cfg, 2, bandit_to=(1000.0, 0.0, 0.0))
    assert _flags(term, cfg, *at_cap) == (False, False), "exactly at the cap distance"
    beyond = _step(cfg, 2, guard=(0.0, 0.0, -1000.5))
    assert _flags(term, cfg, *beyond) == (True, True), "a guard beyond it ends the episode"


def _user_cap(prev_state, state, params, t):
    """A user's callable without terminal_events: the step cap by another name."""
    return state.step >= params.max_steps


def _user_event(prev_state, state, params, t):
    """A user's callable that fires at a fixed step, cap or not."""
    return state.step == 7


def test_any_of_combines_members_events():
    cfg = make_lady_bandit_guard(max_horizon_s=200.0)
    cap = cfg.max_steps
    composite = AnyOfTermination([cfg.termination_fn, MaxDistanceTermination(1000.0)])
    assert isinstance(composite.terminations, tuple), "stored as a tuple (hashable)"
    assert _flags(composite, cfg, *_step(cfg, cap)) == (True, False)
    far = _step(cfg, 2, bandit_to=(0.0, 1500.0, 0.0))
    assert _flags(composite, cfg, *far) == (True, True), "the distance cap is an event"
    users = AnyOfTermination([_user_cap, _user_event])
    assert _flags(users, cfg, *_step(cfg, 7)) == (True, True), "before the cap: an event"
    assert _flags(users, cfg, *_step(cfg, cap)) == (True, False), "on the cap: the cap"
    assert _flags(AnyOfTermination(()), cfg, *_step(cfg, cap)) == (False, False)


def test_all_of_is_a_truncation_when_any_member_needed_the_cap():
    cfg = make_lady_bandit_guard(max_horizon_s=200.0)
    cap = cfg.max_steps
    composite = AllOfTermination([cfg.termination_fn, MaxDistanceTermination(1000.0)])
    far = dict(bandit_to=(0.0, 1500.0, 0.0))
    assert _flags(composite, cfg, *_step(cfg, 3, **far)) == (False, False), "only one holds"
    assert _flags(composite, cfg, *_step(cfg, cap, **far)) == (True, False), "far, but by the cap"
    both = AllOfTermination([MaxDistanceTermination(1000.0), MaxDistanceTermination(1200.0)])
    assert _flags(both, cfg, *_step(cfg, 3, **far)) == (True, True), "both events hold"
    assert _flags(AllOfTermination([MaxStepsOnly()]), cfg, *_step(cfg, cap)) == (True, False)
    with pytest.raises(ValueError, match="at least one"):
        AllOfTermination([])


def test_terminations_run_under_jit_and_vmap():
    cfg = make_lady_bandit_guard(max_horizon_s=200.0, escape_radius_m=1000.0)
    cap = cfg.max_steps
    cases = [
        _step(cfg, 3),
        _step(cfg, cap),
        _step(cfg, 3, bandit_from=(-100.0, 0, 0), bandit_to=(100.0, 0, 0)),
        _step(cfg, 3, bandit_to=(0.0, 2000.0, 0.0)),
    ]
    prev = jax.tree.map(lambda *x: jnp.stack(x), *[c[0] for c in cases])
    nxt = jax.tree.map(lambda *x: jnp.stack(x), *[c[1] for c in cases])
    composite = AnyOfTermination([cfg.termination_fn, MaxDistanceTermination(1500.0)])
    for term in (cfg.termination_fn, composite):
        done = jax.jit(jax.vmap(lambda p, n, term=term: term(p, n, cfg, n.t)))(prev, nxt)
        events = jax.jit(jax.vmap(lambda p, n, term=term: term.terminal_events(p, n, cfg, n.t)))(
            prev, nxt
        )
        np.testing.assert_array_equal(np.asarray(done), [False, True, True, True])
        np.testing.assert_array_equal(np.asarray(events), [False, False, True, True])


@pytest.mark.parametrize(
    ("knobs", "field"),
    [
        ({"catch_dwell_steps": -1}, "catch_dwell_steps"),
        ({"breach_dwell_steps": 1.5}, "breach_dwell_steps"),
        ({"shaping_scale_m": 0.0}, "shaping_scale_m"),
        ({"breach_radius_m": -1.0}, "breach_radius_m"),
        ({"catch_radius_m": -0.5}, "catch_radius_m"),
        ({"escape_radius_m": -10.0}, "escape_radius_m"),
        ({"guard_separation_m": -1.0}, "guard_separation_m"),
        ({"lady_keepout_m": float("nan")}, "lady_keepout_m"),
        ({"repel_on_empty_tank": True}, "repel_on_empty_tank"),  # the bandit has no MASS
        (
            {
                "repel_on_empty_tank": True,
                "truth_dynamics": DynamicsKey.HCW_RT,
                "policy_dynamics": DynamicsKey.HCW_RT,
                "guard_components": (K.RT, K.MASS),
                "bandit_components": (K.RT,),
            },
            "repel_on_empty_tank",
        ),
    ],
)
def test_validate_names_the_field(knobs, field):
    with pytest.raises(ValueError, match=field):
        make_lady_bandit_guard(**knobs)


def test_the_termination_rejects_what_the_game_rejects():
    with pytest.raises(ValueError, match="breach_radius_m"):
        LbgEventTermination(breach_radius_m=-5.0)
    with pytest.raises(ValueError, match="catch_dwell_steps"):
        LbgEventTermination(breach_radius_m=5.0, catch_dwell_steps=-2)


def test_builder_defaults_are_orbitalgyms():
    cfg = make_lady_bandit_guard()
    assert cfg.max_steps == 200 and cfg.dt == 10.0 and cfg.seed == 0
    assert make_lady_bandit_guard(seed=0, max_horizon_s=200.0).max_steps == 20
    assert cfg.epoch_mjd_utc == 60067.0
    assert cfg.guard_components == (K.RTN, K.MASS) and cfg.bandit_components == (K.RTN,)
    assert (cfg.guard_params.dry_mass_kg, cfg.guard_params.isp_s) == (100.0, 220.0)
    assert cfg.guard_params.max_thrust_n == 5.0
    bandit = cfg.bandit_params
    assert (bandit.dry_mass_kg, bandit.isp_s, bandit.max_thrust_n) == (50.0, 200.0, 2.0)
    g, b = cfg.ic_sampler.guard_sampler, cfg.ic_sampler.bandit_sampler
    assert (g.radial_ellipse_m, g.phase_rad, g.sigma_radial_ellipse_m) == (1000.0, 0.0, 10.0)
    assert g.mass_sampler.propellant_mass_kg == 10.0
    assert (b.radial_ellipse_m, b.phase_rad, b.sigma_radial_ellipse_m) == (1000.0, np.pi, 10.0)
    assert cfg.game == LadyBanditGuard(), "every knob at orbitalgym's default"
    assert cfg.termination_fn == LbgEventTermination(breach_radius_m=5.0, catch_radius_m=50.0)
    assert make_game(GameKey.LADY_BANDIT_GUARD, catch_radius_m=20.0).game.catch_radius_m == 20.0
    assert make_lady_bandit_guard(controlled_side="bandit").controlled_side == "bandit", (
        "extra keywords reach ScenarioConfig"
    )
    comms = make_lady_bandit_guard(with_communication=True)  # wiring: test_communication.py
    assert comms.game == LadyBanditGuard() and comms.termination_fn == cfg.termination_fn


def test_registered_under_their_keys():
    assert resolve(TerminationFnKey.LBG_EVENTS) is LbgEventTermination
    assert resolve(TerminationFnKey.MAX_DISTANCE) is MaxDistanceTermination
    assert resolve(TerminationFnKey.ANY_OF) is AnyOfTermination
    assert resolve(TerminationFnKey.ALL_OF) is AllOfTermination
    assert resolve(GameKey.LADY_BANDIT_GUARD) is LadyBanditGuard


def test_one_jitted_env_step_advances_the_dwell_counters():
    cfg = make_lady_bandit_guard(max_horizon_s=200.0)
    env = OrbitalGymEnv(cfg)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    # Park the bandit 1 m from the lady: the step's chord stays inside the breach sphere.
    parked = state.bandits.rtn.at[:, :].set(jnp.asarray([1.0, 0, 0, 0, 0, 0], F32))
    state = state.replace(bandits=state.bandits.replace(rtn=parked))
    out = jax.jit(env.step)(jax.random.PRNGKey(1), state, env.identity_actions())
    assert int(out.state.dwell_breach[0]) == 1, "the game advanced the counter in the step"
    assert bool(out.episode_done) and bool(out.terminated) and not bool(out.truncated)
    assert float(out.outputs.bandit.reward) > 900.0, "the breach bonus"
