"""Pursuit-Evasion: the vehicle-0 distance reward, the endpoint capture, the game check, the
builder's defaults and one jitted env step."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital.env.core import EnvState, OrbitalGymEnv
from horizax.orbital.env.types import Side
from horizax.orbital.games import (
    PursuitEvasion,
    PursuitEvasionReward,
    PursuitEvasionTermination,
    make_game,
    make_lady_bandit_guard,
    make_pursuit_evasion,
)
from horizax.orbital.registry import GameKey, RewardFnKey, TerminationFnKey, resolve
from horizax.orbital.registry import StateComponentKey as K
from horizax.orbital.state.components import SideState

F32 = jnp.float32


def _side(points) -> SideState:
    rtn = jnp.asarray([[*p, 0.0, 0.0, 0.0] for p in points], F32)
    return SideState(rtn=rtn, rt=None, propellant_mass=None, applied_dv=jnp.zeros((len(points), 3)))


def _state(cfg, guards, bandits, step=3) -> EnvState:
    return EnvState(
        t=jnp.asarray(10.0 * step, F32),
        step=jnp.asarray(step, jnp.int32),
        guards=_side(guards),
        bandits=_side(bandits),
        reference_orbit=cfg.reference_orbit,
        dwell_catch=jnp.zeros((len(bandits),), jnp.int32),
        dwell_breach=jnp.zeros((len(bandits),), jnp.int32),
    )


def _flags(cfg, state):
    term = cfg.termination_fn
    return bool(term(state, state, cfg, state.t)), bool(
        term.terminal_events(state, state, cfg, state.t)
    )


def test_reward_is_plus_minus_the_vehicle_0_distance():
    cfg = make_pursuit_evasion(n_guards=2, n_bandits=2)
    # Vehicle 0s are 3-4-5 apart; vehicle 1s sit on top of each other and are ignored.
    state = _state(cfg, [(30.0, 0, 0), (0, 0, 7.0)], [(0, 40.0, 0), (0, 0, 7.0)])
    guard = cfg.reward_fn(state, None, state, Side.GUARD, cfg, state.t)
    bandit = cfg.reward_fn(state, None, state, Side.BANDIT, cfg, state.t)
    assert float(guard) == pytest.approx(50.0) and float(bandit) == pytest.approx(-50.0)
    assert not _flags(cfg, state)[0], "vehicle 1's zero distance is no capture"


def test_capture_is_strict_at_the_endpoint_and_an_event():
    cfg = make_pursuit_evasion(capture_distance_m=10.0, max_horizon_s=200.0)
    assert _flags(cfg, _state(cfg, [(0, 0, 0)], [(6.0, 8.0, 0)])) == (False, False), "d == 10"
    assert _flags(cfg, _state(cfg, [(0, 0, 0)], [(6.0, 7.9, 0)])) == (True, True)
    quiet = [(0, 0, 0)], [(0, 500.0, 0)]
    assert _flags(cfg, _state(cfg, *quiet, step=cfg.max_steps - 1)) == (False, False)
    assert _flags(cfg, _state(cfg, *quiet, step=cfg.max_steps)) == (True, False), "cap: truncation"
    # Endpoint only: a pass through the pursuer between the samples is no capture.
    prev = _state(cfg, [(0, 0, 0)], [(-100.0, 0, 0)], step=2)
    nxt = _state(cfg, [(0, 0, 0)], [(100.0, 0, 0)], step=3)
    assert not bool(cfg.termination_fn(prev, nxt, cfg, nxt.t))


def test_reward_and_termination_need_the_game():
    lbg = make_lady_bandit_guard()
    state = _state(lbg, [(0, 0, 0)], [(1.0, 0, 0)])
    with pytest.raises(TypeError, match="PursuitEvasion"):
        PursuitEvasionTermination()(state, state, lbg, state.t)
    with pytest.raises(TypeError, match="PursuitEvasion"):
        PursuitEvasionTermination().terminal_events(state, state, lbg, state.t)
    with pytest.raises(TypeError, match="PursuitEvasion"):
        PursuitEvasionReward()(state, None, state, Side.GUARD, lbg, state.t)


def test_under_jit_and_vmap():
    cfg = make_pursuit_evasion(max_horizon_s=200.0)
    states = [
        _state(cfg, [(0, 0, 0)], [(3.0, 4.0, 0)]),
        _state(cfg, [(0, 0, 0)], [(30.0, 40.0, 0)]),
        _state(cfg, [(0, 0, 0)], [(30.0, 40.0, 0)], step=cfg.max_steps),
    ]
    batch = jax.tree.map(lambda *x: jnp.stack(x), *states)

    def one(s):
        term = cfg.termination_fn
        return (
            term(s, s, cfg, s.t),
            term.terminal_events(s, s, cfg, s.t),
            cfg.reward_fn(s, None, s, Side.BANDIT, cfg, s.t),
        )

    done, events, bandit = jax.jit(jax.vmap(one))(batch)
    np.testing.assert_array_equal(np.asarray(done), [True, False, True])
    np.testing.assert_array_equal(np.asarray(events), [True, False, False])
    np.testing.assert_allclose(np.asarray(bandit), [-5.0, -50.0, -50.0], rtol=1e-6)


def test_builder_defaults_validation_and_registration():
    cfg = make_game(GameKey.PURSUIT_EVASION)
    assert cfg.game == PursuitEvasion(capture_distance_m=10.0) and cfg.max_steps == 200
    assert cfg.guard_components == (K.RTN,) and cfg.bandit_components == (K.RTN,)
    for params in (cfg.guard_params, cfg.bandit_params):
        assert (params.dry_mass_kg, params.isp_s, params.max_thrust_n) == (100.0, 220.0, 5.0)
    g, b = cfg.ic_sampler.guard_sampler, cfg.ic_sampler.bandit_sampler
    assert (g.radial_ellipse_m, g.phase_rad, g.sigma_radial_ellipse_m) == (1000.0, 0.0, 10.0)
    assert (b.radial_ellipse_m, b.cross_track_m, b.along_track_offset_m) == (500.0, 100.0, 200.0)
    assert b.phase_rad == pytest.approx(np.pi / 2) and b.sigma_radial_ellipse_m == 10.0
    assert isinstance(cfg.reward_fn, PursuitEvasionReward)
    assert isinstance(cfg.termination_fn, PursuitEvasionTermination)
    with pytest.raises(ValueError, match="capture_distance_m"):
        make_pursuit_evasion(capture_distance_m=-1.0)
    with pytest.raises(KeyError, match="no_game"):
        make_game(GameKey.NO_GAME)
    assert resolve(GameKey.PURSUIT_EVASION) is PursuitEvasion
    assert resolve(RewardFnKey.PURSUIT_EVASION) is PursuitEvasionReward
    assert resolve(TerminationFnKey.PURSUIT_EVASION) is PursuitEvasionTermination


def test_one_jitted_env_step():
    cfg = make_pursuit_evasion()
    env = OrbitalGymEnv(cfg)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    out = jax.jit(env.step)(jax.random.PRNGKey(1), state, env.identity_actions())
    d = np.linalg.norm(np.asarray(out.state.guards.rtn[0, :3] - out.state.bandits.rtn[0, :3]))
    assert float(out.outputs.guard.reward) == pytest.approx(d, rel=1e-5)
    assert float(out.outputs.bandit.reward) == pytest.approx(-d, rel=1e-5)
    assert not bool(out.episode_done) and not bool(out.truncated)
