"""The COMMUNICATE action component, LbgWithCommsReward and CommsLeakObservation: the LBG
builder's ``with_communication=True`` wiring and checks, the command fields, the per-broadcast
charge against hand-worked rewards, broadcasts moving nothing (but leaking to the bandits),
the env's wiring check, JSON, the transforms and the flat protocol views."""

from __future__ import annotations

import dataclasses
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.orbital import OrbitalGymEnv, ScenarioConfig, make_lady_bandit_guard
from horizax.orbital.actions.components import PAYLOAD_DIM, Communicate
from horizax.orbital.actions.flat import (
    command_bounds,
    command_flat_dim,
    flatten_command,
    unflatten_command,
)
from horizax.orbital.env.core import EnvState
from horizax.orbital.env.types import (
    Actions,
    BySide,
    Command,
    CommunicatingCommand,
    Side,
    command_class,
)
from horizax.orbital.games.lady_bandit_guard import _COMMS_UNSUPPORTED_DEFAULTS, LadyBanditGuard
from horizax.orbital.observations.comms_leak import CommsLeakObservation
from horizax.orbital.observations.types import flatten_observations
from horizax.orbital.registry import ActionComponentKey as A
from horizax.orbital.registry import ObservationFnKey, RewardFnKey, resolve
from horizax.orbital.rewards.lbg_with_comms import LbgWithCommsReward
from horizax.orbital.rewards.lbg_zero_sum import LbgZeroSumReward
from horizax.orbital.rewards.reference import DistanceToReferenceOrbit
from horizax.orbital.state.components import SideState
from horizax.orbital.termination.lbg_events import LbgEventTermination
from tests.orbital.helpers import plain_config

COMMS = (A.IMPULSIVE_MANEUVER, A.COMMUNICATE)


def _comms_cfg(**overrides):
    return make_lady_bandit_guard(with_communication=True, **overrides)


def _guard_actions(env, active, payload=None, dv=None):
    """Identity actions with the guards' ``active`` (and optionally payload, dv) set."""
    n = env.config.n_guards
    guard = env.guard_command_cls.zeros(n).replace(active=jnp.asarray(active, bool))
    if payload is not None:
        guard = guard.replace(payload=jnp.asarray(payload, jnp.float32))
    if dv is not None:
        guard = guard.replace(dv=jnp.asarray(dv, jnp.float32))
    return Actions(sides=BySide(guard=guard, bandit=env.identity_actions().sides.bandit))


# -- the builder ------------------------------------------------------------------------------


def test_the_builder_wires_the_component_and_the_reward():
    cfg = _comms_cfg(comm_cost=2.5, n_guards=2)
    assert cfg.guard_action_components == COMMS
    assert cfg.bandit_action_components == (A.IMPULSIVE_MANEUVER,)
    assert cfg.reward_fn == LbgWithCommsReward(comm_cost=2.5)
    assert cfg.reward_fn.base_reward == DistanceToReferenceOrbit()
    assert cfg.game == LadyBanditGuard() and isinstance(cfg.termination_fn, LbgEventTermination)
    plain = make_lady_bandit_guard(comm_cost=2.5)  # without the flag comm_cost is inert
    assert plain.guard_action_components == (A.IMPULSIVE_MANEUVER,)
    assert isinstance(plain.reward_fn, LbgZeroSumReward)
    assert resolve(A.COMMUNICATE) is Communicate
    assert resolve(RewardFnKey.LBG_WITH_COMMS) is LbgWithCommsReward
    assert resolve(RewardFnKey.DISTANCE_TO_REFERENCE_ORBIT) is DistanceToReferenceOrbit
    assert resolve(ObservationFnKey.COMMS_LEAK) is CommsLeakObservation


def test_the_knob_list_is_every_knob_at_the_builders_default():
    defaults = {
        name: p.default
        for name, p in inspect.signature(make_lady_bandit_guard).parameters.items()
        if name in _COMMS_UNSUPPORTED_DEFAULTS
    }
    assert defaults == _COMMS_UNSUPPORTED_DEFAULTS
    assert set(_COMMS_UNSUPPORTED_DEFAULTS) == {f.name for f in dataclasses.fields(LadyBanditGuard)}


@pytest.mark.parametrize("knob", sorted(_COMMS_UNSUPPORTED_DEFAULTS))
def test_a_tuned_knob_is_refused_by_name(knob):
    default = _COMMS_UNSUPPORTED_DEFAULTS[knob]
    if isinstance(default, bool):
        value = not default
    else:
        value = 1.0 if default == float("inf") else default + 1
    with pytest.raises(ValueError, match=f"{knob}={value!r}"):
        _comms_cfg(**{knob: value})


def test_bad_builder_arguments_raise_naming_them():
    with pytest.raises(TypeError, match="with_communication"):
        make_lady_bandit_guard(with_communication="yes")
    for cost in (-1.0, float("nan"), float("inf"), True, "5"):
        with pytest.raises(ValueError, match="comm_cost"):
            _comms_cfg(comm_cost=cost)
    with pytest.raises(ValueError, match="reward_fn"):
        _comms_cfg(reward_fn=LbgWithCommsReward())
    with pytest.raises(ValueError, match="guard_action_components"):
        _comms_cfg(guard_action_components=COMMS)
    with pytest.raises(ValueError, match="base_reward"):
        LbgWithCommsReward(base_reward=3.0)


# -- the command ------------------------------------------------------------------------------


def test_the_command_classes_have_the_fields_and_identity():
    env = OrbitalGymEnv(_comms_cfg(n_guards=3, n_bandits=2))
    guard_cls, bandit_cls = env.guard_command_cls, env.bandit_command_cls
    assert issubclass(guard_cls, CommunicatingCommand) and guard_cls.components == COMMS
    assert [f.name for f in dataclasses.fields(guard_cls)] == ["dv", "active", "payload"]
    assert [f.name for f in dataclasses.fields(bandit_cls)] == ["dv"]
    zero = guard_cls.zeros(3)
    assert zero.dv.shape == (3, 3) and zero.dv.dtype == jnp.float32
    assert zero.active.shape == (3,) and zero.active.dtype == jnp.bool_
    assert not np.any(np.asarray(zero.active))
    assert zero.payload.shape == (3, PAYLOAD_DIM) and zero.payload.dtype == jnp.float32
    assert not np.any(np.asarray(zero.payload))
    assert Communicate().fields() == {"active": (), "payload": (6,)}
    guards = _side([(1.0, 2.0, 3.0)])
    assert Communicate().apply(zero, guards, None, 10.0, None, None) is guards
    rt = command_class("GuardCommand", 2, ("impulsive_maneuver", "communicate"))
    assert rt.zeros(1).dv.shape == (1, 2) and rt is not guard_cls


@pytest.mark.parametrize(
    "components",
    [(A.COMMUNICATE,), (A.COMMUNICATE, A.IMPULSIVE_MANEUVER), (*COMMS, A.COMMUNICATE), ("x",), ()],
)
def test_other_component_tuples_are_refused(components):
    with pytest.raises(ValueError, match="guard_action_components"):
        plain_config(guard_action_components=components)
    with pytest.raises(ValueError, match="components"):
        command_class("GuardCommand", 3, components)


def test_the_config_takes_the_keys_values_and_either_side():
    cfg = plain_config(
        guard_action_components=("impulsive_maneuver", "communicate"),
        bandit_action_components=["impulsive_maneuver", "communicate"],
    )
    assert cfg.guard_action_components == COMMS and cfg.bandit_action_components == COMMS
    env = OrbitalGymEnv(cfg)
    assert issubclass(env.bandit_command_cls, CommunicatingCommand)


# -- the reward -------------------------------------------------------------------------------


def _side(points):
    rtn = jnp.asarray([[*p, 0.0, 0.0, 0.0] for p in points], jnp.float32)
    return SideState(rtn=rtn, rt=None, propellant_mass=None, applied_dv=jnp.zeros_like(rtn[:, :3]))


def _state(guards, bandits, step):
    cfg = _comms_cfg()
    return EnvState(
        t=jnp.asarray(10.0 * step, jnp.float32),
        step=jnp.asarray(step, jnp.int32),
        guards=_side(guards),
        bandits=_side(bandits),
        reference_orbit=cfg.reference_orbit,
    )


def test_the_reward_by_hand():
    # Guards 5 m and 12 m from the lady: -17; two of three broadcast at 2.5 each: -5 more.
    prev = _state([(100.0, 0, 0), (0, 50.0, 0), (1.0, 1.0, 1.0)], [(500.0, 0, 0)], 3)
    nxt = _state([(3.0, 4.0, 0), (0, 0, 12.0), (0, 0, 0)], [(400.0, 0, 0)], 4)
    cfg = _comms_cfg(n_guards=3, comm_cost=2.5)
    env = OrbitalGymEnv(cfg)
    reward = cfg.reward_fn
    acts = _guard_actions(env, [True, False, True])
    assert float(reward(prev, acts, nxt, Side.GUARD, cfg, prev.t)) == -17.0 - 5.0
    assert float(reward(prev, acts, nxt, "bandit", cfg, prev.t)) == 0.0
    silent = _guard_actions(env, [False, False, False])
    assert float(reward(prev, silent, nxt, Side.GUARD, cfg, prev.t)) == -17.0
    assert float(DistanceToReferenceOrbit()(prev, None, nxt, Side.GUARD, cfg, prev.t)) == -17.0
    with pytest.raises(ValueError, match="COMMUNICATE"):
        reward(
            prev, OrbitalGymEnv(plain_config(n_guards=3)).identity_actions(), nxt, "guard", cfg, 0
        )


def test_a_jitted_step_charges_comm_cost_per_broadcast_and_moves_nothing():
    cfg = _comms_cfg(n_guards=3, comm_cost=5.0, bandit_observation_fn=CommsLeakObservation())
    env = OrbitalGymEnv(cfg)
    state, _ = env.reset(jax.random.PRNGKey(2))
    step = jax.jit(env.step)
    dv = [[0.1, -0.2, 0.05], [0.0, 0.0, 0.0], [-0.3, 0.1, 0.0]]
    payload = jax.random.normal(jax.random.PRNGKey(9), (3, PAYLOAD_DIM))
    loud = step(jax.random.PRNGKey(1), state, _guard_actions(env, [True, False, True], payload, dv))
    quiet = step(jax.random.PRNGKey(1), state, _guard_actions(env, [False] * 3, dv=dv))
    # The broadcasts and payloads change no state, no guard observation and no info...
    for a, b in zip(
        jax.tree_util.tree_leaves((loud.state, loud.outputs.guard.obs)),
        jax.tree_util.tree_leaves((quiet.state, quiet.outputs.guard.obs)),
        strict=True,
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # ... but the bandit overhears every guard's state on the step they broadcast.
    leak = np.asarray(flatten_observations(loud.outputs.bandit.obs)).reshape(4, 6)
    np.testing.assert_array_equal(leak[0], 0.0)  # its own column: never visible
    np.testing.assert_array_equal(leak[1:], np.asarray(loud.state.guards.rtn))
    assert not np.any(np.asarray(flatten_observations(quiet.outputs.bandit.obs)))
    info = (jax.tree_util.tree_leaves(loud.info), jax.tree_util.tree_leaves(quiet.info))
    for a, b in zip(*info, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    # Hand-computed: minus the guards' distances from the lady after the step, minus 2 * 5.
    distance = np.linalg.norm(np.asarray(loud.state.guards.rtn[:, :3], np.float64), axis=-1).sum()
    assert float(quiet.outputs.guard.reward) == pytest.approx(-distance, rel=1e-6)
    assert float(loud.outputs.guard.reward) == pytest.approx(-distance - 10.0, rel=1e-6)
    assert float(quiet.outputs.guard.reward) - float(loud.outputs.guard.reward) == 10.0
    assert float(loud.outputs.bandit.reward) == 0.0 == float(quiet.outputs.bandit.reward)


def test_the_env_refuses_a_reader_without_the_component():
    cfg = _comms_cfg()
    with pytest.raises(ValueError, match="guard_action_components must include"):
        OrbitalGymEnv(dataclasses.replace(cfg, guard_action_components=(A.IMPULSIVE_MANEUVER,)))
    with pytest.raises(ValueError, match="reward_fn=LbgWithCommsReward"):
        OrbitalGymEnv(plain_config(reward_fn=LbgWithCommsReward(), bandit_action_components=COMMS))
    OrbitalGymEnv(plain_config(reward_fn=LbgWithCommsReward(), guard_action_components=COMMS))
    with pytest.raises(ValueError, match="bandit_observation_fn=CommsLeakObservation"):
        OrbitalGymEnv(plain_config(bandit_observation_fn=CommsLeakObservation()))


def test_the_leak_by_hand():
    state = _state([(1.0, 2.0, 3.0), (4.0, 5.0, 6.0)], [(7.0, 8.0, 9.0)], 0)
    env = OrbitalGymEnv(_comms_cfg(n_guards=2))
    leak = CommsLeakObservation(epsilon=1e-4)
    for active, seen in (([False, True], True), ([False, False], False)):
        (channel,) = leak(state, _guard_actions(env, active), Side.BANDIT, None, None, 0.0)
        assert channel.obs.shape == (1, 3, 6) and channel.visible.shape == (1, 3)
        np.testing.assert_array_equal(np.asarray(channel.visible), [[False, seen, seen]])
        np.testing.assert_array_equal(np.asarray(channel.obs[0, 1:]), np.asarray(state.guards.rtn))
        np.testing.assert_allclose(np.asarray(channel.obs_noise), 1e-4 * np.eye(6))
    (channel,) = leak(state, _guard_actions(env, [True, True]), "guard", None, None, 0.0)
    assert channel.obs.shape == (2, 3, 6) and not np.any(np.asarray(channel.visible))
    with pytest.raises(ValueError, match="COMMUNICATE"):
        leak(state, OrbitalGymEnv(plain_config()).identity_actions(), "bandit", None, None, 0.0)


# -- JSON, transforms -------------------------------------------------------------------------


def test_json_round_trip_plays_the_same():
    leak = CommsLeakObservation(epsilon=1e-4)
    cfg = _comms_cfg(comm_cost=1.25, n_guards=2, bandit_observation_fn=leak)
    text = cfg.to_json()
    back = ScenarioConfig.from_json(text)
    assert back.to_json() == text
    assert back.reward_fn == cfg.reward_fn and back.guard_action_components == COMMS
    assert back.bandit_observation_fn == leak
    env = OrbitalGymEnv(back)
    prev = _state([(0, 0, 0), (0, 0, 0)], [(500.0, 0, 0)], 0)
    nxt = _state([(6.0, 8.0, 0), (0, 0, 0)], [(400.0, 0, 0)], 1)
    reward = back.reward_fn(prev, _guard_actions(env, [True, True]), nxt, Side.GUARD, back, prev.t)
    assert float(reward) == -10.0 - 2 * 1.25


def test_vmap_of_a_scan_charges_every_step():
    cfg = _comms_cfg(n_guards=2, comm_cost=3.0, max_horizon_s=50.0)
    env = OrbitalGymEnv(cfg)
    batch, steps = 4, 5
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    # Per episode and step, which guards broadcast.
    active = jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (batch, steps, 2))

    def episode(key, active):
        state, _ = env.reset(key)

        def body(state, inputs):
            k, on = inputs
            out = env.step(k, state, _guard_actions(env, on))
            return out.state, (out.outputs.guard.reward, out.outputs.bandit.reward, out.state)

        _, ys = jax.lax.scan(body, state, (jax.random.split(key, steps), active))
        return ys

    rewards_g, rewards_b, states = jax.jit(jax.vmap(episode))(keys, active)
    assert rewards_g.shape == (batch, steps) and rewards_g.dtype == jnp.float32
    distance = np.linalg.norm(np.asarray(states.guards.rtn[..., :3], np.float64), axis=-1).sum(-1)
    charge = 3.0 * np.asarray(active).sum(-1)
    np.testing.assert_allclose(np.asarray(rewards_g), -distance - charge, rtol=1e-6)
    assert not np.any(np.asarray(rewards_b))


# -- the flat views ---------------------------------------------------------------------------


def test_the_flat_layout_is_orbitalgyms():
    cls = command_class("GuardCommand", 3, COMMS)
    assert command_flat_dim(cls, 2) == 20 and command_flat_dim(command_class("G", 3), 2) == 6
    flat = np.arange(20, dtype=np.float32)
    flat[6:8] = [0.5, 0.51]  # the active numbers: on strictly above 0.5
    command = unflatten_command(cls, 2, flat)
    np.testing.assert_array_equal(np.asarray(command.dv), flat[:6].reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(command.active), [False, True])
    np.testing.assert_array_equal(np.asarray(command.payload), flat[8:].reshape(2, 6))
    expected = flat.copy()
    expected[6:8] = [0.0, 1.0]
    np.testing.assert_array_equal(np.asarray(flatten_command(command)), expected)
    nan = unflatten_command(cls, 2, np.where(np.arange(20) == 6, np.nan, 1.0))
    assert not bool(nan.active[0]) and bool(nan.active[1])
    low, high = command_bounds(cls, 2, 0.5)
    np.testing.assert_array_equal(low, [-0.5] * 6 + [0.0] * 2 + [-1.0] * 12)
    np.testing.assert_array_equal(high, [0.5] * 6 + [1.0] * 2 + [1.0] * 12)
    with pytest.raises(ValueError, match="flat"):
        unflatten_command(cls, 2, np.zeros(6))
    with pytest.raises(TypeError, match="command_cls"):
        command_flat_dim(Side, 1)
    assert isinstance(unflatten_command(command_class("G", 3), 1, np.ones(3)), Command)


def test_the_registered_id_carries_active_in_its_flat_action():
    from horizax.testing.conformance import check_env

    fenv = horizax.make("Orbital-LadyBanditGuard-v0", with_communication=True, comm_cost=5.0)
    space = fenv.action_space
    assert space.shape == (10,) and space.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(space.low)[3:5], [0.0, -1.0])
    assert bool(space.contains(jnp.asarray(space.sample(jax.random.PRNGKey(0)))))
    state, _ = fenv.reset(jax.random.PRNGKey(3))
    step = jax.jit(fenv.step)
    rewards = {}
    for on in (0.0, 1.0):
        action = jnp.zeros(10).at[3].set(on).at[4:].set(0.7)
        _, out = step(jax.random.PRNGKey(4), state, action)
        rewards[on] = float(out.reward)
    assert rewards[0.0] - rewards[1.0] == 5.0
    check_env(fenv, num_steps=12, batch=2)
    # The agent as the bandit: a dv-only action; the guard's scripted opponent fills its
    # command from the class's zeros, so it never broadcasts.
    bandit = horizax.make(
        "Orbital-LadyBanditGuard-v0", with_communication=True, controlled_side="bandit"
    )
    assert bandit.action_space.shape == (3,)
    assert issubclass(bandit.view.opponent_policy.command_cls, CommunicatingCommand)


def test_the_multi_agent_view_gives_each_guard_its_own_broadcast():
    fenv = horizax.make("Orbital-LadyBanditGuard-v0", with_communication=True, n_guards=2)
    multi = fenv.as_multi_agent()
    assert multi.action_spaces["guard_0"].shape == (10,)
    assert multi.action_spaces["bandit_0"].shape == (3,)
    state, _ = multi.reset(jax.random.PRNGKey(0))
    actions = {
        "guard_0": jnp.zeros(10).at[3].set(1.0),
        "guard_1": jnp.zeros(10),
        "bandit_0": jnp.zeros(3),
    }
    loud, out = multi.step(jax.random.PRNGKey(1), state, actions)
    _, silent = multi.step(jax.random.PRNGKey(1), state, {**actions, "guard_0": jnp.zeros(10)})
    assert float(silent.rewards["guard_0"]) - float(out.rewards["guard_0"]) == 5.0
    distance = np.linalg.norm(np.asarray(loud.guards.rtn[:, :3], np.float64), axis=-1).sum()
    assert float(out.rewards["guard_1"]) == pytest.approx(-distance - 5.0, rel=1e-6)
