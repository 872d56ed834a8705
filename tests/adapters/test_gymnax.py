"""ToGymnax: gymnax's reset/step API over a horizax gridworld, episode flags and autoreset."""

from __future__ import annotations

import importlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

gymnax = pytest.importorskip("gymnax")

from gymnax.environments import environment as gymnax_environment  # noqa: E402
from gymnax.environments import spaces as gymnax_spaces  # noqa: E402
from gymnax.wrappers.purerl import LogWrapper  # noqa: E402

import horizax  # noqa: E402
from horizax.adapters.gymnax import GymnaxState, ToGymnax  # noqa: E402
from horizax.core.step_type import StepType  # noqa: E402

pytestmark = pytest.mark.reference

ENV_ID = "MiniGrid-Empty-5x5-v0"
# Agent starts at (1, 1) facing right, goal at (3, 3): forward, forward, right, forward, forward.
TO_GOAL = [2, 2, 1, 2, 2]
LEFT, FORWARD = 0, 2

# The `gymnax` extra pins gymnax < 1.0: 1.x wrappers (LogWrapper, ...) unpack a 6-tuple from
# step, where seed 004 documents 0.0.x's 5-tuple, so the LogWrapper tests below fail there.


def wrapped(max_steps: int = 100, env_id: str = ENV_ID):
    return ToGymnax.wrap(horizax.make(env_id, max_steps=max_steps))


def run_actions(gymnax_env, params, actions, key=None):
    """Jitted reset, then one jitted step per action; returns the list of step outputs."""
    key = jax.random.PRNGKey(0) if key is None else key
    _, state = jax.jit(gymnax_env.reset)(key, params)
    step = jax.jit(gymnax_env.step)
    outputs = []
    for action in actions:
        out = step(key, state, jnp.int32(action), params)
        state = out[1]
        outputs.append(out)
    return outputs


def rollout(gymnax_env, params, key, num_steps):
    """reset + lax.scan over random actions; returns (reset obs, stacked step outputs, actions)."""
    reset_key, action_key = jax.random.split(key)
    obs0, state = gymnax_env.reset(reset_key, params)
    actions = gymnax_env.action_space(params).n
    actions = jax.random.randint(action_key, (num_steps,), 0, actions)

    def body(state, action):
        obs, state, reward, done, info = gymnax_env.step(reset_key, state, action, params)
        return state, (obs, state, reward, done, info)

    _, outs = jax.lax.scan(body, state, actions)
    return obs0, outs, actions


def test_wrap_params_and_properties():
    env = horizax.make(ENV_ID, max_steps=37)
    gymnax_env, params = ToGymnax.wrap(env)
    assert isinstance(gymnax_env, ToGymnax)
    assert isinstance(gymnax_env, gymnax_environment.Environment)
    assert isinstance(params, gymnax_environment.EnvParams)
    assert params.max_steps_in_episode == 37
    assert gymnax_env.default_params.max_steps_in_episode == 37
    assert gymnax_env.env is env
    assert gymnax_env.name == ENV_ID
    assert gymnax_env.num_actions == 7
    assert repr(gymnax_env) == f"ToGymnax({ENV_ID})"


def test_navix_alias_name_and_default_max_steps():
    gymnax_env, params = ToGymnax.wrap(horizax.make("Navix-Empty-5x5-v0"))
    assert params.max_steps_in_episode == horizax.make(ENV_ID).max_steps == 100
    assert gymnax_env.name == ENV_ID


def test_spaces_copy_the_env_spaces_and_contain_observations():
    gymnax_env, params = wrapped(max_steps=10)
    horizax_space = gymnax_env.env.observation_space
    action_space = gymnax_env.action_space(params)
    obs_space = gymnax_env.observation_space(params)
    assert isinstance(action_space, gymnax_spaces.Discrete)
    assert action_space.n == 7
    assert isinstance(obs_space, gymnax_spaces.Box)
    assert tuple(obs_space.shape) == horizax_space.shape == (7, 7, 3)
    assert jnp.dtype(obs_space.dtype) == jnp.dtype(horizax_space.dtype) == jnp.uint8
    np.testing.assert_array_equal(obs_space.low, horizax_space.low)
    np.testing.assert_array_equal(obs_space.high, horizax_space.high)
    # params are ignored, as gymnax allows.
    assert gymnax_env.action_space(None).n == 7
    assert gymnax_env.observation_space().shape == obs_space.shape

    obs0, (obs, *_), actions = jax.jit(rollout, static_argnums=(0, 3))(
        gymnax_env, params, jax.random.PRNGKey(3), 100
    )
    assert bool(obs_space.contains(obs0))
    assert obs0.shape == tuple(obs_space.shape) and obs0.dtype == obs_space.dtype
    assert bool(jnp.all(jax.vmap(obs_space.contains)(obs)))
    assert bool(jnp.all(jax.vmap(action_space.contains)(actions)))
    # The check has teeth: an out-of-range observation is rejected.
    assert not bool(obs_space.contains(obs0.astype(jnp.int32) + 11))
    assert not bool(action_space.contains(jnp.int32(7)))


def test_reset_and_step_under_jit_match_horizax():
    gymnax_env, params = wrapped(max_steps=100)
    env = gymnax_env.env
    key = jax.random.PRNGKey(1)
    obs, state = jax.jit(gymnax_env.reset)(key, params)
    ts = env.reset(key)
    assert isinstance(state, GymnaxState)
    assert isinstance(state, gymnax_environment.EnvState)
    np.testing.assert_array_equal(obs, ts.observation)
    assert int(state.time) == int(state.timestep.t) == 0

    step, ref_step = jax.jit(gymnax_env.step), jax.jit(env.step)
    for action in [1, 2, 2, 0, 3, 5, 2, 1, 2]:
        obs, state, reward, done, info = step(key, state, jnp.int32(action), params)
        ts = ref_step(ts, jnp.int32(action))
        np.testing.assert_array_equal(obs, ts.observation)
        np.testing.assert_array_equal(state.timestep.state.grid, ts.state.grid)
        assert float(reward) == float(ts.reward)
        assert bool(done) == bool(ts.is_done())
        assert int(state.time) == int(state.timestep.t) == int(ts.t)
        assert set(info) >= {"terminated", "truncated", "discount"}


def test_params_none_and_key_unused():
    gymnax_env, params = wrapped(max_steps=100)
    key = jax.random.PRNGKey(2)
    obs_a, state_a = gymnax_env.reset(key)
    obs_b, state_b = gymnax_env.reset(key, params)
    np.testing.assert_array_equal(obs_a, obs_b)
    out_a = gymnax_env.step(jax.random.PRNGKey(10), state_a, 2)
    out_b = gymnax_env.step(jax.random.PRNGKey(11), state_b, 2, params)
    for leaf_a, leaf_b in zip(jax.tree.leaves(out_a), jax.tree.leaves(out_b), strict=True):
        np.testing.assert_array_equal(leaf_a, leaf_b)


NUM_ENVS, NUM_STEPS = 8, 120


@pytest.fixture(scope="module")
def batched_rollout():
    """One jitted vmap-of-scan rollout (8 envs x 120 random steps), shared by two tests."""
    gymnax_env, params = wrapped(max_steps=10, env_id="MiniGrid-Empty-Random-5x5-v0")
    keys = jax.random.split(jax.random.PRNGKey(4), NUM_ENVS)
    batched = jax.jit(jax.vmap(rollout, in_axes=(None, None, 0, None)), static_argnums=(0, 3))
    obs0, outs, actions = batched(gymnax_env, params, keys, NUM_STEPS)
    return gymnax_env, keys, obs0, outs, actions


def test_vmap_and_scan_rollout_flags(batched_rollout):
    _, _, obs0, (obs, state, reward, done, info), _ = batched_rollout
    assert obs0.shape == (NUM_ENVS, 7, 7, 3)
    assert obs.shape == (NUM_ENVS, NUM_STEPS, 7, 7, 3)
    assert reward.shape == done.shape == (NUM_ENVS, NUM_STEPS)
    assert reward.dtype == jnp.float32 and done.dtype == jnp.bool_

    term, trunc, disc = info["terminated"], info["truncated"], info["discount"]
    step_type = state.timestep.step_type
    np.testing.assert_array_equal(done, term | trunc)
    assert not bool(jnp.any(term & trunc))
    np.testing.assert_array_equal(term, step_type == StepType.TERMINATION)
    np.testing.assert_array_equal(trunc, step_type == StepType.TRUNCATION)
    np.testing.assert_array_equal(disc, jnp.where(term, 0.0, 1.0))
    np.testing.assert_array_equal(state.time, state.timestep.state.step_count)
    # Random walks in a 5x5 room with a 10-step limit hit both kinds of ending.
    assert int(term.sum()) >= 1 and int(trunc.sum()) >= 1
    assert bool(jnp.all(reward[term] > 0)) and bool(jnp.all(reward[~term] == 0))
    # horizax autoreset: the step after an ending starts a new episode at t = 0.
    np.testing.assert_array_equal(state.time[:, 1:] == 0, done[:, :-1])


def test_batched_rollout_matches_horizax(batched_rollout):
    gymnax_env, keys, _, (obs, _, reward, done, _), actions = batched_rollout
    env = gymnax_env.env

    def horizax_rollout(key, actions):
        ts = env.reset(jax.random.split(key)[0])

        def body(ts, action):
            ts = env.step(ts, action)
            return ts, (ts.observation, ts.reward, ts.is_done())

        return jax.lax.scan(body, ts, actions)[1]

    ref_obs, ref_reward, ref_done = jax.jit(jax.vmap(horizax_rollout))(keys, actions)
    np.testing.assert_array_equal(obs, ref_obs)
    np.testing.assert_array_equal(reward, ref_reward)
    np.testing.assert_array_equal(done, ref_done)


def test_time_limit_truncates_with_discount_one():
    gymnax_env, params = wrapped(max_steps=3)
    outs = run_actions(gymnax_env, params, [LEFT, LEFT, LEFT])
    for *_, done, info in outs[:2]:
        assert not bool(done) and not bool(info["truncated"]) and not bool(info["terminated"])
    _, state, reward, done, info = outs[-1]
    assert bool(done)
    assert bool(info["truncated"]) and not bool(info["terminated"])
    assert float(info["discount"]) == 1.0
    assert float(reward) == 0.0
    assert int(state.time) == 3 == params.max_steps_in_episode
    assert int(state.timestep.step_type) == StepType.TRUNCATION
    assert bool(gymnax_env.is_truncated(state, params)) and bool(gymnax_env.is_terminal(state))


def test_goal_terminates_with_discount_zero():
    gymnax_env, params = wrapped(max_steps=100)
    outs = run_actions(gymnax_env, params, TO_GOAL)
    assert not any(bool(out[3]) for out in outs[:-1])
    _, state, reward, done, info = outs[-1]
    assert bool(done)
    assert bool(info["terminated"]) and not bool(info["truncated"])
    assert float(info["discount"]) == 0.0
    assert float(reward) == pytest.approx(1 - 0.9 * 5 / 100)
    assert int(state.time) == 5
    np.testing.assert_array_equal(state.timestep.state.agent_pos, [3, 3])
    assert bool(gymnax_env.is_terminated(state, params))
    assert float(gymnax_env.discount(state, params)) == 0.0


def test_goal_on_the_time_limit_step_is_a_termination():
    gymnax_env, params = wrapped(max_steps=len(TO_GOAL))
    _, state, reward, done, info = run_actions(gymnax_env, params, TO_GOAL)[-1]
    assert int(state.time) >= params.max_steps_in_episode  # the limit was hit too
    assert bool(done)
    assert bool(info["terminated"]) and not bool(info["truncated"])
    assert float(info["discount"]) == 0.0
    assert float(reward) == pytest.approx(0.1)


def test_autoreset_follows_horizax_not_gymnax():
    gymnax_env, params = wrapped(max_steps=100)
    outs = run_actions(gymnax_env, params, [*TO_GOAL, FORWARD, FORWARD])
    last_obs, last_state, _, done, _ = outs[len(TO_GOAL) - 1]
    assert bool(done)
    # The ending step keeps the episode's last observation (gymnax's own step would have
    # replaced it by a reset observation).
    np.testing.assert_array_equal(last_obs, last_state.timestep.observation)
    np.testing.assert_array_equal(last_state.timestep.state.agent_pos, [3, 3])
    # The next step ignores its action and starts a new episode from the carried key.
    obs, state, reward, done, info = outs[len(TO_GOAL)]
    fresh = gymnax_env.env.reset(last_state.timestep.state.key)
    np.testing.assert_array_equal(obs, fresh.observation)
    np.testing.assert_array_equal(state.timestep.state.agent_pos, [1, 1])
    assert int(state.time) == 0 and float(reward) == 0.0 and not bool(done)
    assert not bool(info["terminated"]) and not bool(info["truncated"])
    # Then play resumes: forward moves the agent.
    np.testing.assert_array_equal(outs[-1][1].timestep.state.agent_pos, [2, 1])


def test_gymnax_hooks_agree_with_step():
    gymnax_env, params = wrapped(max_steps=100)
    key = jax.random.PRNGKey(0)
    obs, state = gymnax_env.reset_env(key, params)
    ref_obs, _ = gymnax_env.reset(key, params)
    np.testing.assert_array_equal(obs, ref_obs)
    np.testing.assert_array_equal(gymnax_env.get_obs(state), obs)

    @jax.jit
    def step_and_hooks(state, action):
        _, state, _, done, info = gymnax_env.step_env(key, state, action, params)
        hooks = (
            gymnax_env.is_terminal(state, params),
            gymnax_env.is_terminated(state, params),
            gymnax_env.is_truncated(state, params),
            gymnax_env.discount(state, params),
        )
        return state, (done, info["terminated"], info["truncated"], info["discount"]), hooks

    for action in TO_GOAL:
        state, flags, hooks = step_and_hooks(state, jnp.int32(action))
        assert [float(x) for x in hooks] == [float(x) for x in flags]
    assert bool(flags[0]) and bool(flags[1])


def test_log_wrapper_scripted_episodes():
    max_steps = 7
    gymnax_env, params = wrapped(max_steps=max_steps)
    log_env = LogWrapper(gymnax_env)
    # goal in 5 steps | reset step | time limit (7 turns) | reset step | goal in 5 steps
    actions = [*TO_GOAL, LEFT, *([LEFT] * max_steps), LEFT, *TO_GOAL]
    goal_return = 1 - 0.9 * 5 / max_steps
    key = jax.random.PRNGKey(0)
    _, state = log_env.reset(key, params)
    logged = []
    for action in actions:
        _, state, _, done, info = log_env.step(key, state, action, params)
        if bool(done):
            logged.append(
                (
                    float(info["returned_episode_returns"]),
                    int(info["returned_episode_lengths"]),
                    bool(info["terminated"]),
                )
            )
    assert [(r, t) for r, _, t in logged] == [
        (pytest.approx(goal_return), True),
        (0.0, False),
        (pytest.approx(goal_return), True),
    ]
    # Lengths after the first episode include the horizax reset step (documented quirk).
    assert [length for _, length, _ in logged] == [5, max_steps + 1, 5 + 1]


def test_log_wrapper_returns_match_under_vmap_and_scan():
    gymnax_env, params = wrapped(max_steps=10, env_id="MiniGrid-Empty-Random-5x5-v0")
    log_env = LogWrapper(gymnax_env)
    num_envs, num_steps = 8, 120

    def run(key):
        reset_key, action_key = jax.random.split(key)
        _, state = log_env.reset(reset_key, params)
        actions = jax.random.randint(action_key, (num_steps,), 0, 7)

        def body(carry, action):
            state, running = carry
            _, state, reward, done, info = log_env.step(reset_key, state, action, params)
            # Our own bookkeeping: the sum of rewards since the previous ending.
            episode_return = running + reward
            out = (done, info["returned_episode_returns"], episode_return)
            return (state, jnp.where(done, 0.0, episode_return)), out

        return jax.lax.scan(body, (state, jnp.float32(0.0)), actions)[1]

    keys = jax.random.split(jax.random.PRNGKey(6), num_envs)
    done, logged, expected = jax.jit(jax.vmap(run))(keys)
    assert int(done.sum()) >= num_envs  # every env finished at least one episode
    np.testing.assert_allclose(logged[done], expected[done], rtol=1e-6)
    assert float(expected[done].max()) > 0  # some ending was a goal with positive return


def test_spec_usage_snippet_runs_verbatim():
    import horizax as nx
    from horizax.adapters.gymnax import ToGymnax

    key = jax.random.PRNGKey(0)
    action = jnp.int32(2)

    gymnax_env, params = ToGymnax.wrap(nx.make("Navix-Empty-5x5-v0"))
    obs, state = gymnax_env.reset(key, params)
    obs, state, reward, done, info = gymnax_env.step(key, state, action, params)

    assert obs.shape == (7, 7, 3) and int(state.time) == 1
    assert not bool(done) and float(reward) == 0.0
    assert float(info["discount"]) == 1.0


def test_missing_gymnax_raises_an_import_error_naming_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "gymnax" or m.startswith("gymnax.")]:
        monkeypatch.setitem(sys.modules, name, None)  # None makes `import` raise
    monkeypatch.delitem(sys.modules, "horizax.adapters.gymnax")
    with pytest.raises(ImportError, match=r"horizax\[gymnax\]"):
        importlib.import_module("horizax.adapters.gymnax")


@pytest.mark.parametrize("env_id", ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-Dynamic-Obstacles-5x5-v0"])
def test_protocol_path_equals_the_gridworld_path(env_id):
    # The same gridworld wrapped natively and through its core-protocol view (the path the
    # Maze takes) must give identical rollouts, autoresets included.
    from horizax.core.protocol import functional

    env = horizax.make(env_id, max_steps=9)
    native, params = ToGymnax.wrap(env)
    via_protocol, _ = ToGymnax.wrap(functional(env))
    key = jax.random.PRNGKey(3)
    out_native = jax.jit(lambda k: rollout(native, params, k, 40))(key)
    out_protocol = jax.jit(lambda k: rollout(via_protocol, params, k, 40))(key)
    obs0_n, (obs_n, _, reward_n, done_n, info_n), _ = out_native
    obs0_p, (obs_p, _, reward_p, done_p, info_p), _ = out_protocol
    # The protocol view's observation is MiniGrid's dict; its image is the native observation.
    np.testing.assert_array_equal(obs0_n, obs0_p["image"], "reset observation")
    np.testing.assert_array_equal(obs_n, obs_p["image"], "observations")
    np.testing.assert_array_equal(reward_n, reward_p, "rewards")
    np.testing.assert_array_equal(done_n, done_p, "done")
    for name in ("terminated", "truncated", "discount"):
        np.testing.assert_array_equal(info_n[name], info_p[name], name)
    assert int(np.asarray(done_n).sum()) >= 3, "the rollout must cross several episode ends"
    space = via_protocol.observation_space(params)
    assert space.spaces["image"].shape == (7, 7, 3)
    assert space.spaces["mission"].shape == (10,), "the mission travels encoded"


def test_rejects_objects_without_a_protocol_view():
    with pytest.raises(TypeError, match="functional-protocol view"):
        ToGymnax(object())


# The toy maze: agent (0, 0), target (0, 4); down x3, right x2, up x3, right x2 reaches it.
TOY_PATH = [2, 2, 2, 1, 1, 0, 0, 0, 1, 1]


def _maze_outputs(time_limit, actions):
    from horizax.maze import Maze, ToyGenerator

    gymnax_env, params = ToGymnax.wrap(Maze(generator=ToyGenerator(), time_limit=time_limit))
    return gymnax_env, params, run_actions(gymnax_env, params, actions)


def test_maze_goal_terminates_with_discount_zero():
    gymnax_env, params, outputs = _maze_outputs(50, TOY_PATH)
    obs, _, reward, done, info = outputs[-1]
    assert bool(done) and bool(info["terminated"]) and not bool(info["truncated"])
    assert float(info["discount"]) == 0.0 and float(reward) == 1.0
    assert [int(v) for v in obs["agent_position"]] == [0, 4]
    assert not any(bool(out[3]) for out in outputs[:-1]), "ended before the target"
    assert params.max_steps_in_episode == 50
    space = gymnax_env.observation_space(params)
    assert isinstance(space, gymnax_spaces.Dict)
    assert space.spaces["walls"].shape == (5, 5)


def test_maze_time_limit_truncates_then_autoresets():
    # Up from (0, 0) is blocked: the agent stays put until the limit of 3 steps.
    _, _, outputs = _maze_outputs(3, [0, 0, 0, 0])
    flags = [(bool(o[3]), bool(o[4]["terminated"]), bool(o[4]["truncated"])) for o in outputs]
    assert flags[:3] == [(False, False, False), (False, False, False), (True, False, True)]
    assert float(outputs[2][4]["discount"]) == 1.0, "a truncation must keep discount 1"
    # The step after the end ignores its action and starts a new episode (t == 0).
    assert int(outputs[3][1].time) == 0 and not flags[3][0]
