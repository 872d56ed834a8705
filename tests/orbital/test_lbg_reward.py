"""LbgZeroSumReward against hand-worked transitions: shaping (and its zeroing on an ending
step, the cap included), the catch/breach/repel payoffs, the guard's separation hinge and the
fuel cost (MASS sides only)."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital.actions.components import G0
from horizax.orbital.env.core import EnvState
from horizax.orbital.env.types import Side
from horizax.orbital.games import make_lady_bandit_guard
from horizax.orbital.registry import RewardFnKey, resolve
from horizax.orbital.registry import StateComponentKey as K
from horizax.orbital.rewards.base import RewardScope
from horizax.orbital.rewards.lbg_zero_sum import LbgZeroSumReward
from horizax.orbital.state.components import SideState
from horizax.orbital.termination.reference import MaxStepsOnly

F32 = jnp.float32
L, GAIN = 300.0, 50.0


def _side(points, mass, dtype) -> SideState:
    rtn = jnp.asarray([[*p, 0.0, 0.0, 0.0] for p in points], dtype)
    return SideState(
        rtn=rtn,
        rt=None,
        propellant_mass=None if mass is None else jnp.asarray(mass, dtype).reshape(-1),
        applied_dv=jnp.zeros((len(points), 3), dtype),
    )


def _state(cfg, guards, bandits, step, *, guard_mass=(10.0,), dtype=F32, **dwell) -> EnvState:
    n_b = len(bandits)
    return EnvState(
        t=jnp.asarray(10.0 * step, dtype),
        step=jnp.asarray(step, jnp.int32),
        guards=_side(guards, guard_mass, dtype),
        bandits=_side(bandits, None, dtype),
        reference_orbit=cfg.reference_orbit,
        ic_valid=jnp.asarray(True),
        dwell_catch=dwell.get("dwell_catch", jnp.zeros((n_b,), jnp.int32)),
        dwell_breach=dwell.get("dwell_breach", jnp.zeros((n_b,), jnp.int32)),
    )


def _rewards(cfg, prev, nxt, reward=None):
    reward = cfg.reward_fn if reward is None else reward
    return tuple(float(reward(prev, None, nxt, side, cfg, prev.t)) for side in Side)


def _transition(cfg, step, g0, b0, g1, b1):
    return _state(cfg, [g0], [b0], step - 1), _state(cfg, [g1], [b1], step)


# A 3-4-5 layout: d_gb 500 -> 375, d_bl 400 -> 225, no event, the guard far from the lady.
QUIET = ((300.0, 0, 0), (0, 400.0, 0), (300.0, 0, 0), (0, 225.0, 0))


def test_shaping_is_each_sides_potential_difference():
    cfg = make_lady_bandit_guard()
    guard, bandit = _rewards(cfg, *_transition(cfg, 5, *QUIET))
    assert guard == pytest.approx(GAIN * (-375.0 / L + 500.0 / L), rel=1e-6)
    assert bandit == pytest.approx(GAIN * (-225.0 / L + 400.0 / L), rel=1e-6)
    discounted = make_lady_bandit_guard(shaping_discount=0.9, home_weight=0.5)
    guard, bandit = _rewards(discounted, *_transition(discounted, 5, *QUIET))
    # home_weight adds the guard-lady distance (300 m at both ends) to the guard's potential.
    want = GAIN * (0.9 * (-375.0 - 150.0) / L - (-500.0 - 150.0) / L)
    assert guard == pytest.approx(want, rel=1e-6)
    assert bandit == pytest.approx(GAIN * (0.9 * -225.0 / L + 400.0 / L), rel=1e-6)


def test_the_potential_is_zero_at_the_cap():
    cfg = make_lady_bandit_guard(max_horizon_s=200.0)
    guard, bandit = _rewards(cfg, *_transition(cfg, cfg.max_steps, *QUIET))
    assert guard == pytest.approx(GAIN * 500.0 / L, rel=1e-6), "pays -gain * Phi_g(s) only"
    assert bandit == pytest.approx(GAIN * 400.0 / L, rel=1e-6)
    guard, _ = _rewards(cfg, *_transition(cfg, cfg.max_steps - 1, *QUIET))
    assert guard == pytest.approx(GAIN * 125.0 / L, rel=1e-6), "one step earlier: not zeroed"


def test_breach_catch_and_repel_payoffs():
    cfg = make_lady_bandit_guard(escape_radius_m=1000.0)
    # Breach: the bandit's chord crosses the origin; d_gb 400, d_bl 100 entering.
    breach = _transition(cfg, 5, (300.0, 0, 0), (-100.0, 0, 0), (300.0, 0, 0), (100.0, 0, 0))
    guard, bandit = _rewards(cfg, *breach)
    assert guard == pytest.approx(GAIN * 400.0 / L - 1000.0, rel=1e-6)
    assert bandit == pytest.approx(GAIN * 100.0 / L + 1000.0, rel=1e-6)
    # Catch: the guard closes from 60 m to 40 m of the bandit.
    catch = _transition(cfg, 5, (0, 460.0, 0), (0, 400.0, 0), (0, 440.0, 0), (0, 400.0, 0))
    guard, bandit = _rewards(cfg, *catch)
    assert guard == pytest.approx(GAIN * 60.0 / L + 1000.0, rel=1e-6)
    assert bandit == pytest.approx(GAIN * 400.0 / L - 1000.0, rel=1e-6)
    # Repel: the bandit ends beyond the 1000 m escape radius; it pays what a catch pays.
    repel = _transition(cfg, 5, (0, -300.0, 0), (0, 1100.0, 0), (0, -300.0, 0), (0, 1200.0, 0))
    guard, bandit = _rewards(cfg, *repel)
    assert guard == pytest.approx(GAIN * 1400.0 / L + 1000.0, rel=1e-6)
    assert bandit == pytest.approx(GAIN * 1100.0 / L - 1000.0, rel=1e-6)


def test_the_reward_does_not_read_the_termination():
    cfg = make_lady_bandit_guard()
    steps_only = dataclasses.replace(cfg, termination_fn=MaxStepsOnly())
    inside = _transition(cfg, 5, (300.0, 0, 0), (1.0, 0, 0), (300.0, 0, 0), (1.0, 0, 0))
    assert _rewards(steps_only, *inside) == _rewards(cfg, *inside)
    assert _rewards(steps_only, *inside)[1] > 999.0, "the breach bonus pays under MaxStepsOnly"


def test_a_dwell_holds_the_bonus_back():
    cfg = make_lady_bandit_guard(breach_dwell_steps=2)
    prev = _state(cfg, [(300.0, 0, 0)], [(1.0, 0, 0)], 4)
    short = _state(cfg, [(300.0, 0, 0)], [(1.0, 0, 0)], 5, dwell_breach=jnp.asarray([1]))
    held = _state(cfg, [(300.0, 0, 0)], [(1.0, 0, 0)], 5, dwell_breach=jnp.asarray([2]))
    assert _rewards(cfg, prev, short)[1] == pytest.approx(0.0, abs=1e-6), "no bonus, no zeroing"
    assert _rewards(cfg, prev, held)[1] == pytest.approx(1000.0 + GAIN / L, rel=1e-6)


def test_the_separation_hinge_is_strict_and_charged_to_the_guard_only():
    cfg = make_lady_bandit_guard(n_guards=2, shaping_gain=0.0)
    far = [(0, 2000.0, 0)]

    def rewards(g1, g2):
        prev = _state(cfg, [g1, g2], far, 4, guard_mass=(10.0, 10.0))
        nxt = _state(cfg, [g1, g2], far, 5, guard_mass=(10.0, 10.0))
        return _rewards(cfg, prev, nxt)

    # Pair 10 m apart (0.25), guard 1 10 m from the lady (0.25), guard 2 on it (1.0).
    guard, bandit = rewards((10.0, 0, 0), (0.0, 0, 0))
    assert guard == pytest.approx(-10.0 * 1.5, rel=1e-6) and bandit == 0.0
    # Pair exactly 20 m apart: no pair charge; each guard 10 m from the lady.
    guard, _ = rewards((10.0, 0, 0), (-10.0, 0, 0))
    assert guard == pytest.approx(-10.0 * 0.5, rel=1e-6)


def test_fuel_is_charged_from_the_propellant_and_only_with_mass():
    cfg = make_lady_bandit_guard(shaping_gain=0.0, dv_cost=0.5)
    g, b = (300.0, 0, 0), (0, 400.0, 0)
    prev = _state(cfg, [g], [b], 4, guard_mass=(10.0,))
    nxt = _state(cfg, [g], [b], 5, guard_mass=(9.0,))
    guard, bandit = _rewards(cfg, prev, nxt)
    assert guard == pytest.approx(-0.5 * 220.0 * G0 * math.log(110.0 / 109.0), rel=1e-5)
    assert bandit == 0.0, "the bandit has no MASS component: no fuel cost"
    massless = make_lady_bandit_guard(shaping_gain=0.0, dv_cost=0.5, guard_components=(K.RTN,))
    prev = _state(massless, [g], [b], 4, guard_mass=None)
    nxt = _state(massless, [g], [b], 5, guard_mass=None)
    assert _rewards(massless, prev, nxt) == (0.0, 0.0)


def test_rewards_under_jit_and_vmap():
    cfg = make_lady_bandit_guard(escape_radius_m=1000.0)
    cases = [
        _transition(cfg, 5, *QUIET),
        _transition(cfg, cfg.max_steps, *QUIET),
        _transition(cfg, 5, (300.0, 0, 0), (-100.0, 0, 0), (300.0, 0, 0), (100.0, 0, 0)),
        _transition(cfg, 5, (0, -300.0, 0), (0, 1100.0, 0), (0, -300.0, 0), (0, 1200.0, 0)),
    ]
    prev = jax.tree.map(lambda *x: jnp.stack(x), *[c[0] for c in cases])
    nxt = jax.tree.map(lambda *x: jnp.stack(x), *[c[1] for c in cases])
    for side in Side:
        batched = jax.jit(
            jax.vmap(lambda p, n, side=side: cfg.reward_fn(p, None, n, side, cfg, p.t))
        )(prev, nxt)
        one_by_one = [float(cfg.reward_fn(p, None, n, side, cfg, p.t)) for p, n in cases]
        np.testing.assert_allclose(np.asarray(batched), one_by_one, rtol=1e-6)


def test_float64_inputs_give_float64_rewards():
    with jax.enable_x64(True):
        cfg = make_lady_bandit_guard()
        prev = _state(cfg, [QUIET[0]], [QUIET[1]], 4, dtype=jnp.float64)
        nxt = _state(cfg, [QUIET[2]], [QUIET[3]], 5, dtype=jnp.float64)
        reward = jax.jit(lambda p, n: cfg.reward_fn(p, None, n, Side.GUARD, cfg, p.t))(prev, nxt)
        assert reward.dtype == jnp.float64
        assert float(reward) == pytest.approx(GAIN * 125.0 / L, rel=1e-14)


def test_fields_validation_and_registration():
    reward = make_lady_bandit_guard(dv_cost=0.25, home_weight=2.0).reward_fn
    assert (reward.dv_cost, reward.home_weight) == (0.25, 2.0), "the game threads its knobs"
    assert (reward.r_catch, reward.r_breach, reward.scope) == (1000.0, 1000.0, "per_side")
    assert reward.scope is RewardScope.PER_SIDE
    with pytest.raises(ValueError, match="shaping_scale_m"):
        LbgZeroSumReward(shaping_scale_m=0.0)
    with pytest.raises(ValueError, match="catch_radius_m"):
        LbgZeroSumReward(catch_radius_m=-1.0)
    assert resolve(RewardFnKey.LBG_ZERO_SUM) is LbgZeroSumReward
