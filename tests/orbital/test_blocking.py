"""Sun-Blocking and Observation-Blocking: the kernel, the gate, the knobs, the defaults."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.orbital import ObservationBlocking, OrbitalGymEnv, SunBlocking, make_game
from horizax.orbital.config import ScenarioConfig
from horizax.orbital.earth import sun_position_eci
from horizax.orbital.env.types import Side, command_class
from horizax.orbital.games import (
    LadyBanditGuard,
    ObservationBlockingReward,
    SunBlockingReward,
    make_observation_blocking,
    make_sun_blocking,
)
from horizax.orbital.games.blocking import blocking_kernel, lead_geometry
from horizax.orbital.games.observation_blocking import target_eci, target_visible_from_guard
from horizax.orbital.policies.heuristic import SunTrackerBlocker
from horizax.orbital.reference_orbit import ReferenceOrbitState
from horizax.orbital.registry import GameKey
from horizax.orbital.termination.reference import MaxStepsOnly


def test_kernel_is_plus_one_between_minus_one_behind_and_fades_with_range():
    """+1 with the bandit between guard and object at the standoff; -1 with the guard between."""
    far = jnp.array([1e11, 0.0, 0.0])
    assert float(blocking_kernel(jnp.array([-500.0, 0, 0]), far, 500.0, 4e-6)) == pytest.approx(1.0)
    assert float(blocking_kernel(jnp.array([500.0, 0, 0]), far, 500.0, 4e-6)) == pytest.approx(-1.0)
    across = blocking_kernel(jnp.array([0.0, -500.0, 0]), far, 500.0, 4e-6)
    assert abs(float(across)) < 1e-6
    off_range = blocking_kernel(jnp.array([-1500.0, 0, 0]), far, 500.0, 4e-6)
    assert float(off_range) == pytest.approx(math.exp(-4e-6 * 1000.0**2), rel=1e-5)
    assert float(blocking_kernel(jnp.zeros(3), far, 500.0, 4e-6)) == 0.0  # no NaN at zero range


def _above(target, deg):
    """A point 1000 km from ``target`` at ``deg`` above its horizon (target on the x axis)."""
    rad = math.radians(deg)
    return target + 1e6 * jnp.array([math.sin(rad), math.cos(rad), 0.0])


def test_visibility_gate_is_the_elevation_above_the_targets_horizon():
    target = jnp.array([6378e3, 0.0, 0.0])
    assert bool(target_visible_from_guard(target, _above(target, 5.01), 5.0))
    assert not bool(target_visible_from_guard(target, _above(target, 4.99), 5.0))
    assert bool(target_visible_from_guard(target, _above(target, -10.0), -20.0))


def _reference_over(lat_deg: float, lon_deg: float) -> ReferenceOrbitState:
    game = ObservationBlocking(target_lat_deg=lat_deg, target_lon_deg=lon_deg)
    up = np.asarray(target_eci(game, 60067.0, jnp.zeros((), jnp.float32)), np.float64)
    up /= np.linalg.norm(up)
    east = np.cross([0.0, 0.0, 1.0], up)
    east /= np.linalg.norm(east)
    return ReferenceOrbitState(
        position_eci=jnp.asarray(7000e3 * up, jnp.float32),
        velocity_eci=jnp.asarray(math.sqrt(3.986004418e14 / 7000e3) * east, jnp.float32),
    )


def test_rewards_are_zero_sum_bounded_and_follow_the_geometry():
    """A bandit put between the guard and the Sun (target) at the standoff earns ~+1."""
    for cfg in (
        make_sun_blocking(),
        make_observation_blocking(reference_orbit=_reference_over(37.4, -122.2)),
    ):
        env = OrbitalGymEnv(cfg)
        state, _ = env.reset(jax.random.PRNGKey(0))
        geometry = lead_geometry(state, cfg)
        if isinstance(cfg.game, SunBlocking):
            far = sun_position_eci(cfg.epoch_mjd_utc, state.t)
        else:
            far = target_eci(cfg.game, cfg.epoch_mjd_utc, state.t)
        # The RTN direction to the object, seen from the guard; the bandit 500 m along it.
        from horizax.orbital.reference_orbit import rotation_rtn_to_eci

        rotation = rotation_rtn_to_eci(cfg.reference_orbit)
        line = rotation.T @ (far - geometry.guard_eci)
        line = line / jnp.linalg.norm(line)
        guard = state.guards.rtn[0, :3]
        blocked = state.replace(
            bandits=state.bandits.replace(rtn=state.bandits.rtn.at[0, :3].set(guard + 500.0 * line))
        )
        bandit = cfg.reward_fn(blocked, None, blocked, Side.BANDIT, cfg, blocked.t)
        guard_r = cfg.reward_fn(blocked, None, blocked, Side.GUARD, cfg, blocked.t)
        assert float(bandit) == pytest.approx(1.0, abs=1e-4)
        assert float(guard_r) == -float(bandit)


def test_default_observation_blocking_never_pays():
    """The default equatorial orbit never rises 5 deg above the 37.4 N target's horizon."""
    cfg = make_observation_blocking(max_horizon_s=5400.0)
    env = OrbitalGymEnv(cfg)
    state, _ = env.reset(jax.random.PRNGKey(3))

    def step(state, _):
        out = env.step(jax.random.PRNGKey(0), state, env.identity_actions())
        return out.state, out.outputs.bandit.reward

    _, rewards = jax.jit(lambda s: jax.lax.scan(step, s, None, length=cfg.max_steps))(state)
    assert not np.any(np.asarray(rewards))


def test_builders_defaults_and_make_game():
    sb, ob = make_sun_blocking(), make_observation_blocking()
    assert sb.max_steps == ob.max_steps == 540
    assert isinstance(sb.reward_fn, SunBlockingReward) and isinstance(
        ob.reward_fn, ObservationBlockingReward
    )
    assert isinstance(sb.termination_fn, MaxStepsOnly) and isinstance(
        ob.termination_fn, MaxStepsOnly
    )
    assert make_game(GameKey.SUN_BLOCKING, range_decay_coef=1e-5).game.range_decay_coef == 1e-5
    assert make_game("observation_blocking", target_lat_deg=0.0).game.target_lat_deg == 0.0
    np.testing.assert_allclose(
        ObservationBlocking(target_lat_deg=0.0, target_lon_deg=0.0).target_ecef_m,
        (6378137.0, 0.0, 0.0),
    )


def test_changing_the_game_refreshes_the_blocking_defaults():
    cfg = dataclasses.replace(make_sun_blocking(), game=LadyBanditGuard())
    assert type(cfg.reward_fn).__name__ == "LbgZeroSumReward"
    cfg = dataclasses.replace(make_sun_blocking(), game=ObservationBlocking())
    assert isinstance(cfg.reward_fn, ObservationBlockingReward)
    mine = dataclasses.replace(make_sun_blocking(), reward_fn=SunBlockingReward())
    kept = dataclasses.replace(mine, game=ObservationBlocking())
    assert isinstance(kept.reward_fn, SunBlockingReward)  # the user's choice stays


def test_the_reward_checks_its_game():
    cfg = make_sun_blocking()
    state, _ = OrbitalGymEnv(cfg).reset(jax.random.PRNGKey(0))
    with pytest.raises(TypeError, match="ObservationBlocking"):
        ObservationBlockingReward()(state, None, state, Side.BANDIT, cfg, state.t)


@pytest.mark.parametrize(
    ("build", "name", "value"),
    [
        (SunBlocking, "target_viewing_distance_m", -1.0),
        (SunBlocking, "range_decay_coef", float("nan")),
        (SunBlocking, "range_decay_coef", float("inf")),
        (ObservationBlocking, "target_lat_deg", 91.0),
        (ObservationBlocking, "target_lon_deg", float("nan")),
        (ObservationBlocking, "target_alt_m", float("inf")),
        (ObservationBlocking, "min_elevation_deg", -90.5),
        (ObservationBlocking, "range_decay_coef", -1e-6),
        (ObservationBlocking, "target_viewing_distance_m", "500"),
    ],
)
def test_bad_knobs_raise_naming_the_field(build, name, value):
    with pytest.raises(ValueError, match=name):
        build(**{name: value})


def test_sun_tracker_blocker_thrusts_along_the_line_toward_the_opponent():
    cls = command_class("BanditCommand", 3)
    policy = SunTrackerBlocker(
        sun_dir_rtn=(0.0, 2.0, 0.0), max_dv_mps=0.3, n_vehicles=2, command_cls=cls
    )
    own, ahead = jnp.zeros(6), jnp.array([0.0, 100.0, 0.0, 0.0, 0.0, 0.0])
    command, _ = policy(None, jnp.concatenate([own, ahead]), jax.random.PRNGKey(0), 0.0)
    np.testing.assert_allclose(command.dv, [[0.0, 0.3, 0.0]] * 2)
    behind = jnp.concatenate([own, -ahead])
    command, _ = policy(None, behind, jax.random.PRNGKey(0), 0.0)
    np.testing.assert_allclose(command.dv, [[0.0, -0.3, 0.0]] * 2)
    across = jnp.concatenate([own, jnp.array([100.0, 0.0, 0.0, 0.0, 0.0, 0.0])])
    command, _ = policy(None, across, jax.random.PRNGKey(0), 0.0)
    np.testing.assert_allclose(command.dv, [[0.0, 0.3, 0.0]] * 2)  # sunward on the line
    for bad in ((0.0, 0.0, 0.0), (1.0, float("nan"), 0.0), (1.0, 0.0), ("x", 0, 0)):
        with pytest.raises(ValueError, match="sun_dir_rtn"):
            SunTrackerBlocker(sun_dir_rtn=bad)


@pytest.mark.parametrize("env_id", ["Orbital-SunBlocking-v0", "Orbital-ObservationBlocking-v0"])
def test_registered_ids_pass_check_env_and_hand_the_bandit_to_the_agent(env_id):
    env = horizax.make(env_id, max_steps=12)
    horizax.testing.check_env(env)
    assert env.action_space.shape == (3,) and env.env.config.controlled_side == Side.BANDIT
    assert type(env.env.config.guard_policy).__name__ == "ZeroControl"
    guard_agent = horizax.make(env_id, controlled_side="guard", max_steps=12)
    blocker = guard_agent.env.config.bandit_policy
    assert isinstance(blocker, SunTrackerBlocker)
    assert math.isclose(math.hypot(*blocker.sun_dir_rtn), 1.0, rel_tol=1e-6)
    state, step = jax.jit(guard_agent.reset)(jax.random.PRNGKey(0))
    state, step = jax.jit(guard_agent.step)(jax.random.PRNGKey(1), state, jnp.zeros(3))
    assert np.isfinite(np.asarray(step.reward))


def test_configs_round_trip_through_json():
    for cfg in (make_sun_blocking(), make_observation_blocking(target_lat_deg=10.0)):
        back = ScenarioConfig.from_json(cfg.to_json())
        assert back.game == cfg.game
        assert getattr(back.game, "target_ecef_m", None) == getattr(cfg.game, "target_ecef_m", None)
        assert type(back.reward_fn) is type(cfg.reward_fn)
