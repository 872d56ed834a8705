"""OrbitalGymEnv, SingleAgentView and the rollouts: transforms, keys, latching, boundary."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.orbital.env.core import OrbitalGymEnv
from horizax.orbital.env.single_agent import SingleAgentView
from horizax.orbital.env.types import Actions, BySide, Side
from horizax.orbital.observations.types import flatten_observations
from horizax.orbital.policies.zero import ZeroControl
from horizax.orbital.rollout import episode_mask, rollout, rollout_single_agent
from horizax.orbital.sampling import ICSpec, MaxRange, MinSeparation, RelativeEllipse
from horizax.orbital.termination.reference import MaxStepsOnly
from tests.orbital.helpers import plain_config


def _actions(env, g, b):
    return Actions(
        sides=BySide(guard=env.guard_command_cls(dv=g), bandit=env.bandit_command_cls(dv=b))
    )


def test_reset_draws_the_documented_ellipse_and_zeroes_the_clock():
    env = OrbitalGymEnv(plain_config())
    state, outputs = env.reset(jax.random.PRNGKey(0))
    assert state.t.dtype == jnp.float32 and int(state.step) == 0 and bool(state.ic_valid)
    assert state.dwell_catch.shape == (1,) and state.dwell_catch.dtype == jnp.int32
    # Phase 0 on an ellipse of radial size R: r = -R, t = 0, dt = 2 n R.
    r, t = float(state.guards.rtn[0, 0]), float(state.guards.rtn[0, 1])
    assert r == pytest.approx(-float(np.abs(r))) and abs(t) < 1e-3
    np.testing.assert_allclose(float(state.guards.rtn[0, 4]), 2 * env.mean_motion * -r, rtol=1e-5)
    assert float(state.guards.propellant_mass[0]) == 10.0 and state.bandits.propellant_mass is None
    obs = flatten_observations(outputs.guard.obs)
    assert obs.shape == (12,)  # one observer, two vehicles, six numbers each
    np.testing.assert_array_equal(np.asarray(obs[:6]), np.asarray(state.guards.rtn[0]))
    assert float(outputs.guard.reward) == 0.0 and not bool(outputs.bandit.done)


def test_step_under_jit_vmap_and_scan_traces_once_and_is_deterministic():
    env = OrbitalGymEnv(plain_config())
    traces = []

    def step(key, state, actions):
        traces.append(1)
        return env.step(key, state, actions)

    jstep = jax.jit(step)
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    states, _ = jax.vmap(env.reset)(keys)
    acts = _actions(env, jnp.full((8, 1, 3), 0.05), jnp.zeros((8, 1, 3)))

    def body(s, _):
        out = jax.vmap(jstep)(keys, s, acts)
        return out.state, out.state.guards.rtn

    final, traj = jax.jit(lambda s: jax.lax.scan(body, s, None, length=5))(states)
    again, _ = jax.jit(lambda s: jax.lax.scan(body, s, None, length=5))(states)
    assert len(traces) == 1
    np.testing.assert_array_equal(np.asarray(final.guards.rtn), np.asarray(again.guards.rtn))
    assert traj.shape == (5, 8, 1, 6) and int(final.step[0]) == 5
    # Eager and jitted agree bit for bit.
    one = env.step(
        keys[0], jax.tree.map(lambda x: x[0], states), jax.tree.map(lambda x: x[0], acts)
    )
    jitted = jax.jit(env.step)(
        keys[0], jax.tree.map(lambda x: x[0], states), jax.tree.map(lambda x: x[0], acts)
    )
    np.testing.assert_array_equal(
        np.asarray(one.state.guards.rtn), np.asarray(jitted.state.guards.rtn)
    )


def test_the_step_cap_is_a_truncation_not_a_termination():
    env = OrbitalGymEnv(plain_config(max_horizon_s=30.0))  # 3 steps
    state, _ = env.reset(jax.random.PRNGKey(0))
    zero = env.identity_actions()
    flags = []
    for _ in range(4):
        out = jax.jit(env.step)(jax.random.PRNGKey(0), state, zero)
        flags.append((bool(out.episode_done), bool(out.terminated), bool(out.truncated)))
        state = out.state
    assert flags == [
        (False, False, False),
        (False, False, False),
        (True, False, True),
        (True, False, True),
    ]


@dataclasses.dataclass(frozen=True)
class AndComposite:
    first: object
    second: object

    def __call__(self, prev_state, state, params, t):
        return jnp.logical_and(
            self.first(prev_state, state, params, t), self.second(prev_state, state, params, t)
        )


@dataclasses.dataclass(frozen=True)
class _NearOrigin:
    """A user termination without terminal_events: the guard within 2 km of the origin."""

    def __call__(self, prev_state, state, params, t):
        return jnp.linalg.norm(state.guards.rtn[0, :3]) < 2000.0


def test_a_user_termination_is_split_by_time():
    """Rule for callables without terminal_events: before the cap terminated, at it truncated."""
    early = OrbitalGymEnv(plain_config(termination_fn=_NearOrigin()))
    state, _ = early.reset(jax.random.PRNGKey(0))
    out = early.step(jax.random.PRNGKey(0), state, early.identity_actions())
    assert bool(out.episode_done) and bool(out.terminated) and not bool(out.truncated)
    capped = OrbitalGymEnv(
        plain_config(
            max_horizon_s=10.0, termination_fn=AndComposite(MaxStepsOnly(), MaxStepsOnly())
        )
    )
    state, _ = capped.reset(jax.random.PRNGKey(0))
    out = capped.step(jax.random.PRNGKey(0), state, capped.identity_actions())
    assert bool(out.episode_done) and bool(out.truncated) and not bool(out.terminated)


def test_nan_and_infinite_commands_leave_the_state_finite():
    env = OrbitalGymEnv(plain_config())
    state, _ = env.reset(jax.random.PRNGKey(0))
    bad = _actions(env, jnp.array([[jnp.nan, 0.0, 0.0]]), jnp.array([[0.0, jnp.inf, 0.0]]))
    out = jax.jit(env.step)(jax.random.PRNGKey(0), state, bad)
    free = env.step(jax.random.PRNGKey(0), state, env.identity_actions())
    np.testing.assert_array_equal(
        np.asarray(out.state.guards.rtn), np.asarray(free.state.guards.rtn)
    )
    assert bool(out.info["invalid_action"].guard[0]) and bool(out.info["invalid_action"].bandit[0])
    assert float(out.state.guards.propellant_mass[0]) == 10.0


def test_rejection_sampling_sets_ic_valid():
    ok = plain_config(
        ic_sampler=dataclasses.replace(plain_config().ic_sampler, validators=(MaxRange(5000.0),))
    )
    state, _ = OrbitalGymEnv(ok).reset(jax.random.PRNGKey(0))
    assert bool(state.ic_valid)
    impossible = dataclasses.replace(
        plain_config().ic_sampler, validators=(MinSeparation(1e7),), max_attempts=4
    )
    state, _ = jax.jit(OrbitalGymEnv(plain_config(ic_sampler=impossible)).reset)(
        jax.random.PRNGKey(0)
    )
    assert not bool(state.ic_valid)
    # A validator that passes only on some draws: the reset redraws until it does.
    spec = ICSpec(
        guard_sampler=RelativeEllipse(
            radial_ellipse_m=1000.0,
            sigma_radial_ellipse_m=10.0,
            mass_sampler=plain_config().ic_sampler.guard_sampler.mass_sampler,
        ),
        bandit_sampler=RelativeEllipse(radial_ellipse_m=1000.0),
        validators=(MinSeparation(1500.0),),
    )
    states, _ = jax.vmap(OrbitalGymEnv(plain_config(ic_sampler=spec)).reset)(
        jax.random.split(jax.random.PRNGKey(1), 64)
    )
    gap = jnp.linalg.norm(states.guards.rtn[:, 0, :3] - states.bandits.rtn[:, 0, :3], axis=-1)
    assert bool(jnp.all(states.ic_valid)) and float(gap.min()) >= 1500.0


def test_rollout_latches_and_masks_like_orbitalgym():
    """MaxStepsOnly, max_steps 20, 25 steps: done from index 19, mask through 19, step 20."""
    env = OrbitalGymEnv(plain_config(max_horizon_s=200.0))
    zero = BySide(
        guard=ZeroControl(env.guard_command_cls, 1), bandit=ZeroControl(env.bandit_command_cls, 1)
    )
    none = BySide(guard=lambda c, s, k: None, bandit=lambda c, s, k: None)
    traj = jax.jit(lambda k: rollout(env, zero, none, k, 25))(jax.random.PRNGKey(0))
    done = np.asarray(traj.episode_done)
    assert done.tolist() == [False] * 19 + [True] * 6
    assert np.asarray(episode_mask(traj)).tolist() == [True] * 20 + [False] * 5
    assert np.asarray(traj.truncated).tolist() == done.tolist()
    assert not np.asarray(traj.terminated).any()
    assert int(traj.final_state.step) == 20 and int(traj.env_state.step[-1]) == 20
    batched = jax.jit(jax.vmap(lambda k: rollout(env, zero, none, k, 25)))(
        jax.random.split(jax.random.PRNGKey(0), 4)
    )
    assert batched.episode_done.shape == (4, 25)
    assert np.asarray(episode_mask(batched)).sum(axis=-1).tolist() == [20] * 4


def test_single_agent_view_drives_the_opponent_and_reports_both_flags():
    cfg = plain_config(max_horizon_s=20.0, controlled_side="bandit")
    view = SingleAgentView(OrbitalGymEnv(cfg))
    assert view.controlled_side is Side.BANDIT and view.opponent_side is Side.GUARD
    state, obs, ps = view.reset(jax.random.PRNGKey(0))
    assert obs.shape == (12,) and ps is None
    step = jax.jit(view.step)
    command = view.controlled_command_cls(dv=jnp.zeros((1, 3)))
    state, obs, reward, done, ps, info = step(jax.random.PRNGKey(1), state, command, ps)
    assert not bool(done) and float(reward) == 0.0
    state, obs, reward, done, ps, info = step(jax.random.PRNGKey(2), state, command, ps)
    assert bool(done) and bool(info["truncated"]) and not bool(info["terminated"])
    # The bandit's own vehicle comes first in its observation.
    np.testing.assert_array_equal(np.asarray(obs[:6]), np.asarray(state.bandits.rtn[0]))


def test_rollout_single_agent_matches_rollout_with_the_view_policies():
    view = SingleAgentView(OrbitalGymEnv(plain_config()))
    controlled = ZeroControl(view.env.guard_command_cls, 1)
    traj = rollout_single_agent(view, controlled, lambda c, s, k: None, jax.random.PRNGKey(5), 6)
    direct = rollout(
        view.env,
        BySide(guard=controlled, bandit=view.opponent_policy),
        BySide(guard=lambda c, s, k: None, bandit=lambda c, s, k: None),
        jax.random.PRNGKey(5),
        6,
    )
    np.testing.assert_array_equal(
        np.asarray(traj.env_state.guards.rtn), np.asarray(direct.env_state.guards.rtn)
    )


def test_bad_arguments_raise_early():
    with pytest.raises(TypeError, match="config"):
        OrbitalGymEnv("lbg")  # type: ignore[arg-type]
    env = OrbitalGymEnv(plain_config())
    zero = BySide(
        guard=ZeroControl(env.guard_command_cls, 1), bandit=ZeroControl(env.bandit_command_cls, 1)
    )
    none = BySide(guard=lambda c, s, k: None, bandit=lambda c, s, k: None)
    with pytest.raises(ValueError, match="n_steps"):
        rollout(env, zero, none, jax.random.PRNGKey(0), 0)
    with pytest.raises(ValueError, match="ZeroControl"):
        ZeroControl()(None, None, jax.random.PRNGKey(0), 0.0)
