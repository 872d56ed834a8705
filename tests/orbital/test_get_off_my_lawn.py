"""Get-Off-My-Lawn: the HCW standoff metric, the loiter / band / catch / chase / push-out
reward terms by hand, the termination's events against its cap, the game's validation, the
builder and one jitted env step."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital.env.core import EnvState, OrbitalGymEnv
from horizax.orbital.env.types import Side
from horizax.orbital.games import (
    GetOffMyLawn,
    GetOffMyLawnReward,
    GetOffMyLawnTermination,
    make_game,
    make_get_off_my_lawn,
    make_pursuit_evasion,
)
from horizax.orbital.games.get_off_my_lawn import hcw_lady_distance
from horizax.orbital.registry import GameKey, RewardFnKey, TerminationFnKey, resolve
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


def _rewards(cfg, guards, bandits):
    s = _state(cfg, guards, bandits)
    return tuple(float(cfg.reward_fn(s, None, s, side, cfg, s.t)) for side in Side)


def _flags(cfg, guards, bandits, step=3):
    s = _state(cfg, guards, bandits, step)
    term = cfg.termination_fn
    return bool(term(s, s, cfg, s.t)), bool(term.terminal_events(s, s, cfg, s.t))


def test_the_standoff_halves_the_along_track_axis():
    p = jnp.asarray([[300.0, 0, 0], [0, 600.0, 0], [0, 0, 300.0], [30.0, 80.0, 0]], F32)
    np.testing.assert_allclose(np.asarray(hcw_lady_distance(p)), [300.0, 300.0, 300.0, 50.0])


def test_reward_terms_by_hand():
    cfg = make_get_off_my_lawn()
    # Bandit loitering at R = 200 (along-track 400 m), guard 400 m away on the axis.
    guard, bandit = _rewards(cfg, [(0, 800.0, 0)], [(0, 400.0, 0)])
    assert bandit == pytest.approx(1.0), "the loiter bonus, nothing else"
    assert guard == pytest.approx(-1.0 - 1e-3 * 400.0), "minus it, minus the chase cost"
    # Bandit 100 m above the band (R = 600): d_band = 100.
    guard, bandit = _rewards(cfg, [(600.0, 1000.0, 0)], [(600.0, 0, 0)])
    assert bandit == pytest.approx(-1e-3 * 100.0)
    assert guard == pytest.approx(1e-3 * 100.0 - 1e-3 * 1000.0)
    # Caught: a guard 30 m from a bandit in the band.
    guard, bandit = _rewards(cfg, [(0, 430.0, 0)], [(0, 400.0, 0)])
    assert bandit == pytest.approx(1.0 - 1000.0)
    assert guard == pytest.approx(-1.0 + 1000.0 - 1e-3 * 30.0, rel=1e-6)
    # Pushed out (R = 2000): d_band = 1500, and the guard's push-out bonus.
    guard, bandit = _rewards(cfg, [(0, 0, 0)], [(2000.0, 0, 0)])
    assert bandit == pytest.approx(-1.5, rel=1e-6)
    assert guard == pytest.approx(1.5 - 2.0 + 500.0, rel=1e-6)


def test_band_edges_are_inclusive_and_any_bandit_loiters():
    cfg = make_get_off_my_lawn(n_bandits=2, alpha_chase=0.0)
    _, bandit = _rewards(cfg, [(0, 5000.0, 0)], [(100.0, 0, 0), (0, 0, 500.0)])
    assert bandit == pytest.approx(1.0), "R == r_min and R == r_max are both in the band"
    _, bandit = _rewards(cfg, [(0, 5000.0, 0)], [(300.0, 0, 0), (1000.0, 0, 0)])
    assert bandit == pytest.approx(1.0 - 1e-3 * 500.0), "one loitering bandit is enough"


def test_termination_events_against_the_cap():
    cfg = make_get_off_my_lawn(n_bandits=2, max_horizon_s=200.0)
    far_guard = [(0, 0, 5000.0)]
    assert _flags(cfg, far_guard, [(1600.0, 0, 0), (0, 3400.0, 0)]) == (True, True), "all out"
    assert _flags(cfg, far_guard, [(1600.0, 0, 0), (0, 400.0, 0)]) == (False, False)
    assert _flags(cfg, far_guard, [(1500.0, 0, 0), (1600.0, 0, 0)]) == (False, False), (
        "R equal to the keep-out radius is not out"
    )
    assert _flags(cfg, [(0, 449.0, 0)], [(0, 400.0, 0), (0, 300.0, 0)]) == (True, True), "caught"
    assert _flags(cfg, [(0, 450.0, 0)], [(0, 400.0, 0), (0, 300.0, 0)]) == (False, False), (
        "50 m is not inside a 50 m catch radius"
    )
    quiet = far_guard, [(0, 400.0, 0), (0, 300.0, 0)]
    assert _flags(cfg, *quiet, step=cfg.max_steps - 1) == (False, False)
    assert _flags(cfg, *quiet, step=cfg.max_steps) == (True, False), "the cap is a truncation"
    no_catch = make_get_off_my_lawn(catch_radius_m=0.0)
    assert _flags(no_catch, [(0, 400.0, 0)], [(0, 400.0, 0)]) == (False, False)


def test_reward_and_termination_need_the_game():
    pe = make_pursuit_evasion()
    s = _state(pe, [(0, 0, 0)], [(1.0, 0, 0)])
    with pytest.raises(TypeError, match="GetOffMyLawn"):
        GetOffMyLawnReward()(s, None, s, Side.GUARD, pe, s.t)
    with pytest.raises(TypeError, match="GetOffMyLawn"):
        GetOffMyLawnTermination(50.0, 1500.0)(s, s, pe, s.t)


@pytest.mark.parametrize(
    ("knobs", "field"),
    [
        ({"r_min_keep_m": 500.0}, "r_min_keep_m"),
        ({"keep_out_radius_m": 500.0}, "keep_out_radius_m"),
        ({"catch_radius_m": -1.0}, "catch_radius_m"),
        ({"r_min_keep_m": -10.0}, "r_min_keep_m"),
    ],
)
def test_the_game_rejects_incoherent_knobs(knobs, field):
    with pytest.raises(ValueError, match=field):
        GetOffMyLawn(**knobs)


def test_under_jit_and_vmap():
    cfg = make_get_off_my_lawn()
    states = [
        _state(cfg, [(0, 800.0, 0)], [(0, 400.0, 0)]),
        _state(cfg, [(0, 0, 0)], [(2000.0, 0, 0)]),
        _state(cfg, [(0, 430.0, 0)], [(0, 400.0, 0)], step=cfg.max_steps),
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
    np.testing.assert_array_equal(np.asarray(done), [False, True, True])
    np.testing.assert_array_equal(np.asarray(events), [False, True, True])
    np.testing.assert_allclose(np.asarray(bandit), [1.0, -1.5, -999.0], rtol=1e-6)


def test_builder_defaults_and_registration():
    cfg = make_game(GameKey.GET_OFF_MY_LAWN)
    assert cfg.game == GetOffMyLawn() and cfg.max_steps == 300
    assert cfg.termination_fn == GetOffMyLawnTermination(50.0, 1500.0)
    assert cfg.reward_fn == GetOffMyLawnReward()
    g, b = cfg.ic_sampler.guard_sampler, cfg.ic_sampler.bandit_sampler
    assert (g.radial_ellipse_m, g.phase_rad, g.sigma_radial_ellipse_m) == (300.0, 0.0, 20.0)
    assert (b.radial_ellipse_m, b.cross_track_m, b.along_track_offset_m) == (600.0, 50.0, 200.0)
    assert (b.phase_rad, b.sigma_radial_ellipse_m) == (np.pi, 20.0)
    assert resolve(GameKey.GET_OFF_MY_LAWN) is GetOffMyLawn
    assert resolve(RewardFnKey.GET_OFF_MY_LAWN) is GetOffMyLawnReward
    assert resolve(TerminationFnKey.GET_OFF_MY_LAWN) is GetOffMyLawnTermination


def test_one_jitted_env_step():
    cfg = make_get_off_my_lawn()
    env = OrbitalGymEnv(cfg)
    state, _ = jax.jit(env.reset)(jax.random.PRNGKey(0))
    out = jax.jit(env.step)(jax.random.PRNGKey(1), state, env.identity_actions())
    want = cfg.reward_fn(state, None, out.state, Side.GUARD, cfg, state.t)
    assert float(out.outputs.guard.reward) == pytest.approx(float(want), rel=1e-6)
    assert not bool(out.episode_done), "the default IC is inside the shell, outside the band"
