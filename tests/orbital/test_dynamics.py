"""HCW transition, the impulse clip and propellant bookkeeping, and the reference orbit."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from horizax.orbital.actions.components import G0, apply_impulse
from horizax.orbital.dynamics.hcw import hcw_rt_stm, hcw_rtn_step, hcw_rtn_stm
from horizax.orbital.reference_orbit import MU_EARTH, mean_motion, reference_orbit_at
from tests.orbital.helpers import REFERENCE

N = 1.0977442493458165e-3  # the default reference orbit's mean motion


def _hcw_rhs(n):
    def rhs(t, x):
        r, _, c, dr, dt_, dc = x
        return [dr, dt_, dc, 3 * n * n * r + 2 * n * dt_, -2 * n * dr, -n * n * c]

    return rhs


def test_mean_motion_of_the_default_orbit():
    # r = 7000 km, v = 7.5 km/s: a = 1 / (2/r - v^2/mu) ~ 6915.8 km, period ~ 95.4 min.
    n = mean_motion(REFERENCE)
    a = (MU_EARTH / n**2) ** (1 / 3)
    assert n == pytest.approx(N, rel=1e-12)
    assert a == pytest.approx(6915.8e3, abs=100.0)
    assert 2 * np.pi / n / 60 == pytest.approx(95.4, abs=0.1)


@pytest.mark.parametrize("dt", [1.0, 10.0, 600.0])
def test_stm_matches_a_high_accuracy_integration(dt):
    """Relative error below 1e-9 against an RK45 solve at rtol 1e-12 (float64)."""
    rng = np.random.default_rng(0)
    phi = hcw_rtn_stm(N, dt, xp=np)
    for _ in range(5):
        x0 = np.concatenate([rng.uniform(-2000, 2000, 3), rng.uniform(-2, 2, 3)])
        ref = solve_ivp(_hcw_rhs(N), (0, dt), x0, rtol=1e-12, atol=1e-12).y[:, -1]
        got = phi @ x0
        assert np.max(np.abs(got - ref)) / np.max(np.abs(ref)) < 1e-9


def test_rt_stm_is_the_in_plane_block_of_rtn():
    full, planar = hcw_rtn_stm(N, 10.0, xp=np), hcw_rt_stm(N, 10.0, xp=np)
    np.testing.assert_array_equal(full[np.ix_([0, 1, 3, 4], [0, 1, 3, 4])], planar)
    # Built on the device in float32, the 1 - cos(n dt) entries lose about 1e-3 of their
    # value to cancellation; that is why the environment builds its matrix in float64.
    np.testing.assert_allclose(hcw_rtn_stm(N, 10.0), full.astype(np.float32), rtol=5e-3, atol=1e-9)


def test_the_impulse_is_added_at_the_start_of_the_step():
    x = jnp.zeros((1, 6))
    dv = jnp.array([[0.0, 0.1, 0.0]])
    got = hcw_rtn_step(x, dv, N, 10.0)
    want = hcw_rtn_stm(N, 10.0, xp=np) @ np.array([0, 0, 0, 0, 0.1, 0])
    np.testing.assert_allclose(np.asarray(got[0]), want, rtol=1e-6)


@pytest.mark.parametrize("dv", [[0.0, 0.0, 3e38], [1e20, -1e20, 0.0], [-3e38, 3e38, 3e38]])
def test_a_command_whose_float32_norm_overflows_is_invalid_not_nan(dv):
    # Found by tests/test_properties.py: |dv| overflowed to inf, so the scale limit/|dv| was 0
    # (no thrust, as in orbitalgym) and the propellant booked inf * 0 = NaN. Such a command
    # now counts as not finite: no thrust, flagged, the tank untouched. Jitted too.
    command = jnp.array([dv], jnp.float32)
    impulse = functools.partial(apply_impulse, dry_mass_kg=100.0, isp_s=220.0, max_thrust_n=5.0)
    for run in (impulse, jax.jit(impulse, static_argnames="dt")):
        applied, prop, invalid = run(command, jnp.array([10.0]), dt=10.0)
        assert np.asarray(applied).tolist() == [[0.0, 0.0, 0.0]]
        assert float(prop[0]) == 10.0 and bool(invalid[0])
        applied, prop, invalid = run(command, None, dt=10.0)
        assert np.asarray(applied).tolist() == [[0.0, 0.0, 0.0]] and bool(invalid[0])
        assert prop is None
    # Just below the overflow, a command is clipped along its direction as usual.
    applied, _, invalid = impulse(jnp.array([[1e18, 0.0, 0.0]]), None, dt=10.0)
    np.testing.assert_allclose(np.asarray(applied[0]), [0.5, 0.0, 0.0], rtol=1e-6)
    assert not bool(invalid[0])


def test_thrust_clip_keeps_the_direction():
    # m_wet = 100 + 10 kg, 5 N for 10 s: at most 50/110 m/s.
    applied, prop, invalid = apply_impulse(
        jnp.array([[3.0, 4.0, 0.0]]), jnp.array([10.0]), 100.0, 220.0, 5.0, 10.0
    )
    np.testing.assert_allclose(
        np.asarray(applied[0]), [0.6 * 50 / 110, 0.8 * 50 / 110, 0.0], rtol=1e-6
    )
    used = 110.0 * (1 - np.exp(-(50 / 110) / (220.0 * G0)))
    np.testing.assert_allclose(float(prop[0]), 10.0 - used, rtol=1e-6)
    assert not bool(invalid[0])


def test_propellant_caps_the_impulse_and_floors_at_zero():
    # 0.1 kg left: the rocket equation allows Isp g0 ln(100.1/100) ~ 2.156 m/s, less than the
    # thrust cap of 1000*10/100.1.
    reach = 220.0 * G0 * np.log(100.1 / 100.0)
    applied, prop, _ = apply_impulse(
        jnp.array([[10.0, 0.0, 0.0]]), jnp.array([0.1]), 100.0, 220.0, 1000.0, 10.0
    )
    # float32 ln(m_wet / dry) of a ratio this close to 1 keeps about 4 digits.
    np.testing.assert_allclose(float(applied[0, 0]), reach, rtol=2e-4)
    assert float(prop[0]) == pytest.approx(0.0, abs=1e-4) and float(prop[0]) >= 0.0
    empty, prop, _ = apply_impulse(
        jnp.array([[1.0, 0.0, 0.0]]), jnp.array([0.0]), 100.0, 220.0, 5.0, 10.0
    )
    assert float(jnp.abs(empty).max()) == 0.0 and float(prop[0]) == 0.0


def test_without_mass_only_thrust_limits():
    applied, prop, _ = apply_impulse(jnp.array([[0.01, 0.0, 0.0]]), None, 100.0, 220.0, 5.0, 10.0)
    assert prop is None and float(applied[0, 0]) == pytest.approx(0.01)


def test_non_finite_commands_are_no_thrust_and_flagged():
    dv = jnp.array([[jnp.nan, 0.0, 0.0], [jnp.inf, 1.0, 0.0], [0.1, 0.0, 0.0]])
    applied, prop, invalid = jax.jit(apply_impulse, static_argnums=(2, 3, 4, 5))(
        dv, jnp.array([5.0, 5.0, 5.0]), 100.0, 220.0, 5.0, 10.0
    )
    assert invalid.tolist() == [True, True, False]
    assert np.all(np.isfinite(np.asarray(applied))) and np.all(np.isfinite(np.asarray(prop)))
    assert float(jnp.abs(applied[:2]).max()) == 0.0 and prop[:2].tolist() == [5.0, 5.0]


def _two_body(t, y):
    r = y[:3]
    return np.concatenate([y[3:], -MU_EARTH * r / np.linalg.norm(r) ** 3])


@pytest.mark.parametrize("t", [10.0, 2000.0, 5400.0])
def test_reference_orbit_in_closed_form_matches_integration(t):
    """float64 Kepler solution within 1 mm and 1 um/s of an rtol-1e-12 integration."""
    y0 = np.array([7000e3, 0, 0, 0, 7.5e3, 0.0])
    want = solve_ivp(_two_body, (0, t), y0, rtol=1e-12, atol=1e-6).y[:, -1]
    with jax.enable_x64(True):
        ref = type(REFERENCE)(jnp.asarray(y0[:3]), jnp.asarray(y0[3:]))
        got = reference_orbit_at(ref, jnp.asarray(t))
        np.testing.assert_allclose(np.asarray(got.position_eci), want[:3], atol=1e-3)
        np.testing.assert_allclose(np.asarray(got.velocity_eci), want[3:], atol=1e-6)
