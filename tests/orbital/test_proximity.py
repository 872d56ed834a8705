"""games/proximity.py: the swept closest approach, per-pair gates, strict comparisons, dwell,
and the two repel gates (escape radius, empty tank with the cached STM power stack)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital.dynamics.hcw import hcw_rtn_stm
from horizax.orbital.env.core import EnvState
from horizax.orbital.games import make_lady_bandit_guard
from horizax.orbital.games import proximity as px
from horizax.orbital.reference_orbit import mean_motion
from horizax.orbital.registry import StateComponentKey as K
from horizax.orbital.state.components import SideState

F32 = jnp.float32
DT = 10.0
INF = float("inf")


def _side(rtn, mass=None) -> SideState:
    rtn = jnp.asarray(rtn, F32).reshape(-1, 6)
    return SideState(
        rtn=rtn,
        rt=None,
        propellant_mass=None if mass is None else jnp.asarray(mass, F32).reshape(-1),
        applied_dv=jnp.zeros((rtn.shape[0], 3), F32),
    )


def _state(cfg, guards, bandits, *, step=0, guard_mass=None, bandit_mass=None) -> EnvState:
    guards, bandits = _side(guards, guard_mass), _side(bandits, bandit_mass)
    n_b = bandits.rtn.shape[0]
    return EnvState(
        t=jnp.asarray(DT * step, F32),
        step=jnp.asarray(step, jnp.int32),
        guards=guards,
        bandits=bandits,
        reference_orbit=cfg.reference_orbit,
        ic_valid=jnp.asarray(True),
        dwell_catch=jnp.zeros((n_b,), jnp.int32),
        dwell_breach=jnp.zeros((n_b,), jnp.int32),
    )


def _at(*p) -> list[float]:
    """An RTN state at position ``p`` at rest."""
    return [*p, 0.0, 0.0, 0.0]


def _breach(b0, b1, radius=5.0, speed=INF):
    far = jnp.asarray([[1e6, 0.0, 0.0]], F32)
    _, breached, _, d_bl = px.lbg_events_from_positions(
        far, far, jnp.asarray([b0], F32), jnp.asarray([b1], F32), DT, 0.0, INF, radius, speed
    )
    return bool(breached), float(d_bl)


def test_a_pass_between_samples_fires_though_both_samples_lie_outside():
    fired, d = _breach((-100.0, 0.0, 0.0), (100.0, 0.0, 0.0))
    assert fired, "the chord through the origin must breach a 5 m sphere"
    assert d == 0.0, "the closest approach of a chord through the origin is 0"
    assert not _breach((-100.0, 0.0, 0.0), (-90.0, 0.0, 0.0))[0], "a chord short of it must not"


def test_the_speed_gate_suppresses_a_fast_pass():
    # 200 m in 10 s is a 20 m/s chord.
    assert not _breach((-100.0, 0.0, 0.0), (100.0, 0.0, 0.0), speed=10.0)[0]
    assert _breach((-100.0, 0.0, 0.0), (100.0, 0.0, 0.0), speed=25.0)[0]


def test_comparisons_are_strict_at_the_boundary():
    # Closest approach exactly 5 m (at t* = 5 s, the chord's midpoint).
    fired, d = _breach((-100.0, 5.0, 0.0), (100.0, 5.0, 0.0), radius=5.0)
    assert d == 5.0 and not fired, "a distance equal to the radius is outside"
    assert _breach((-100.0, 5.0, 0.0), (100.0, 5.0, 0.0), radius=5.0001)[0]
    # Chord speed exactly 20 m/s.
    assert not _breach((-100.0, 0.0, 0.0), (100.0, 0.0, 0.0), speed=20.0)[0], (
        "a speed equal to the gate does not pass it"
    )
    assert _breach((-100.0, 0.0, 0.0), (100.0, 0.0, 0.0), speed=20.0001)[0]
    # The coast test of the empty-tank gate is strict in both too.
    r0, v = jnp.asarray([-100.0, 5.0, 0.0]), jnp.asarray([20.0, 0.0, 0.0])
    assert not bool(px.proximity_event(r0, v, DT, 5.0, INF))
    assert not bool(px.proximity_event(r0, v, DT, 6.0, 20.0))
    assert bool(px.proximity_event(r0, v, DT, 6.0, 21.0))


def test_closest_approach_clips_to_the_step_and_survives_zero_velocity():
    r0 = jnp.asarray([[10.0, 0.0, 0.0], [3.0, 4.0, 0.0]], F32)
    v = jnp.asarray([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]], F32)
    d, speed = px.closest_approach(r0, v, DT)
    # Moving away: t* clips to 0; at rest the epsilon keeps t* = 0 rather than NaN.
    np.testing.assert_array_equal(np.asarray(d), [10.0, 5.0])
    np.testing.assert_array_equal(np.asarray(speed), [1.0, 0.0])
    d_end, _ = px.closest_approach(jnp.asarray([-30.0, 0.0, 0.0]), jnp.asarray([1.0, 0, 0]), DT)
    assert float(d_end) == 20.0, "t* clips to dt when the minimum lies beyond the step"


def test_catch_needs_radius_and_gate_on_the_same_pair():
    b = jnp.asarray([[0.0, 0.0, 0.0]], F32)
    # Guard 0 passes 1 m from the bandit at 40 m/s; guard 1 sits 100 m away, at rest.
    g0 = jnp.asarray([[-200.0, 1.0, 0.0], [100.0, 0.0, 0.0]], F32)
    g1 = jnp.asarray([[200.0, 1.0, 0.0], [100.0, 0.0, 0.0]], F32)
    in_catch, _, d_gb_min, _ = px.lbg_proximity_masks(g0, g1, b, b, DT, 50.0, 10.0, 5.0, INF)
    assert not bool(in_catch[0]), "close-but-fast and slow-but-far must not combine to a catch"
    assert float(d_gb_min) == 1.0
    in_catch, *_ = px.lbg_proximity_masks(g0, g1, b, b, DT, 50.0, 50.0, 5.0, INF)
    assert bool(in_catch[0]), "with the gate above 40 m/s guard 0 catches"
    in_catch, _, d_gb_min, _ = px.lbg_proximity_masks(g0, g1, b, b, DT, 0.0, INF, 5.0, INF)
    assert not bool(in_catch[0]) and float(d_gb_min) == 1.0, "radius 0: off, distance reported"


def test_dwell_fires_after_n_consecutive_steps_and_restarts_on_leaving():
    cfg = make_lady_bandit_guard(breach_dwell_steps=3, catch_radius_m=0.0)
    game, term = cfg.game, cfg.termination_fn
    inside, far = _at(1.0, 0.0, 0.0), _at(0.0, 900.0, 0.0)
    guard = _at(5000.0, 0.0, 0.0)
    path = [inside, inside, far, far, inside, inside, inside]
    # The step leaving (inside -> far) still counts: it was inside for part of it.
    want_counts, want_fired = [1, 2, 0, 1, 2, 3], [False] * 5 + [True]
    prev = _state(cfg, guard, path[0])
    counts, fired = [], []
    for k, p in enumerate(path[1:], start=1):
        nxt = game.advance_state(prev, _state(cfg, guard, p, step=k), cfg)
        counts.append(int(nxt.dwell_breach[0]))
        fired.append(bool(term.terminal_events(prev, nxt, cfg, nxt.t)))
        prev = nxt
    assert counts == want_counts
    assert fired == want_fired


def test_the_speed_gate_holds_on_every_step_of_a_dwell():
    count = jnp.asarray([4], jnp.int32)
    b0, b1 = jnp.asarray([[-100.0, 0.0, 0.0]], F32), jnp.asarray([[100.0, 0.0, 0.0]], F32)
    far = jnp.asarray([[1e6, 0.0, 0.0]], F32)
    _, in_breach, _, _ = px.lbg_proximity_masks(far, far, b0, b1, DT, 0.0, INF, 5.0, 10.0)
    assert int(px.advance_dwell(count, in_breach)[0]) == 0, "a fast step resets the hold"


def test_escape_gate_needs_every_bandit_strictly_beyond_it():
    cfg = make_lady_bandit_guard(n_bandits=2)
    guard = _at(0.0, 0.0, 0.0)

    def repelled(*bandits):
        state = _state(cfg, guard, [_at(*b) for b in bandits])
        return bool(px.lbg_repelled(state, cfg, 1000.0, False, 5.0, INF))

    assert repelled((1500.0, 0, 0), (0, -1200.0, 0))
    assert not repelled((1500.0, 0, 0), (0, 300.0, 0)), "one bandit still inside"
    assert not repelled((1000.0, 0, 0), (0, 2000.0, 0)), "exactly at the radius is inside"
    gates_off = _state(cfg, guard, [_at(1e5, 0, 0), _at(1e5, 0, 0)])
    assert not bool(px.lbg_repelled(gates_off, cfg, 0.0, False, 5.0, INF))


def _tank_cfg():
    # The builder's IC has no bandit mass sampler; this one gives every bandit 1 kg.
    from horizax.orbital.sampling import ConstantMass, ICSpec, RelativeEllipse

    ic = ICSpec(
        guard_sampler=RelativeEllipse(1000.0, mass_sampler=ConstantMass(10.0), phase_rad=0.0),
        bandit_sampler=RelativeEllipse(1000.0, mass_sampler=ConstantMass(1.0), phase_rad=math.pi),
    )
    return make_lady_bandit_guard(
        repel_on_empty_tank=True, bandit_components=(K.RTN, K.MASS), ic_sampler=ic
    )


def _ellipse_state(n_m: float, radius: float, phase: float) -> list[float]:
    c, s = math.cos(phase), math.sin(phase)
    return [-radius * c, 2 * radius * s, 0.0, n_m * radius * s, 2 * n_m * radius * c, 0.0]


def _collision_course(cfg, steps_to_hit: int) -> list[float]:
    # The state that coasts exactly through the origin (at 1 m/s radially) `steps_to_hit` steps on.
    phi = hcw_rtn_stm(mean_motion(cfg.reference_orbit), cfg.dt, xp=np)
    hit = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])
    return list(np.linalg.solve(np.linalg.matrix_power(phi, steps_to_hit), hit))


def test_empty_tank_repel_ellipse_yes_collision_course_no():
    cfg = _tank_cfg()
    n_m = mean_motion(cfg.reference_orbit)
    guard = _at(0.0, 3000.0, 0.0)

    def repelled(bandit, mass, step=0):
        state = _state(cfg, guard, bandit, step=step, bandit_mass=mass)
        return bool(cfg.termination_fn.terminal_events(state, state, cfg, state.t))

    ellipse = _ellipse_state(n_m, 1000.0, math.pi)
    assert repelled(ellipse, 0.0), "an empty tank on a 1 km ellipse can never reach the lady"
    assert not repelled(ellipse, 1.0), "with propellant left it is still a threat"
    course = _collision_course(cfg, 5)
    assert not repelled(course, 0.0), "a coast through the origin 5 steps on is no repel"
    late = cfg.max_steps - 3
    assert repelled(course, 0.0, step=late), "the hit lies past the cap: only 3 steps remain"


def test_stm_power_stack_is_cached_read_only_float64_powers():
    n_m = mean_motion(make_lady_bandit_guard().reference_orbit)
    stack = px.stm_power_stack(n_m, DT, 30)
    assert px.stm_power_stack(n_m, DT, 30) is stack, "one table per (n, dt, max_steps)"
    assert stack.dtype == np.float64 and stack.shape == (31, 6, 6)
    assert not stack.flags.writeable, "the cache shares the array"
    phi = hcw_rtn_stm(n_m, DT, xp=np)
    np.testing.assert_array_equal(stack[0], np.eye(6))
    np.testing.assert_allclose(stack[17], np.linalg.matrix_power(phi, 17), rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(stack[1], phi)


def test_geometry_under_jit_and_vmap():
    cfg = _tank_cfg()
    b0 = jnp.asarray([[[-100.0, 0.0, 0.0]], [[-100.0, 5.0, 0.0]]], F32)
    b1 = b0.at[..., 0].set(100.0)
    far = jnp.full((2, 1, 3), 1e6, F32)

    @jax.jit
    @jax.vmap
    def events(g0, g1, b0, b1):
        return px.lbg_events_from_positions(g0, g1, b0, b1, DT, 50.0, INF, 5.0, INF)[1]

    np.testing.assert_array_equal(np.asarray(events(far, far, b0, b1)), [True, False])

    n_m = mean_motion(cfg.reference_orbit)
    bandits = jnp.asarray(
        [[_ellipse_state(n_m, 1000.0, math.pi)], [_collision_course(cfg, 5)]], F32
    )
    guards = jnp.broadcast_to(jnp.asarray(_at(0.0, 3000.0, 0.0), F32), (2, 1, 6))

    @jax.jit
    @jax.vmap
    def repelled(g, b):
        state = _state(cfg, g, b, bandit_mass=0.0)
        return px.lbg_repelled(state, cfg, 0.0, True, 5.0, INF)

    np.testing.assert_array_equal(np.asarray(repelled(guards, bandits)), [True, False])


def test_validation_helpers_name_the_field():
    with pytest.raises(ValueError, match=r"Owner\.radius_m"):
        px.check_length("Owner", "radius_m", -1.0)
    with pytest.raises(ValueError, match=r"Owner\.radius_m"):
        px.check_length("Owner", "radius_m", float("nan"))
    px.check_length("Owner", "radius_m", 0.0)
    for bad in (-1, 1.5, float("inf"), "3"):
        with pytest.raises(ValueError, match=r"Owner\.dwell"):
            px.check_dwell_steps("Owner", "dwell", bad)
    px.check_dwell_steps("Owner", "dwell", 2.0)  # orbitalgym accepts a whole float
