"""Episode boundaries, autoreset and bad input of the grid `Environment`."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core import StepType, episode_keys
from horizax.grid import Environment, observations
from horizax.grid import constants as C

# Empty-5x5: agent (1, 1) facing right, goal (3, 3): 5 actions reach it.
TO_GOAL = [C.FORWARD, C.FORWARD, C.RIGHT, C.FORWARD, C.FORWARD]


def _run(env, actions, key=0):
    ts = env.reset(jax.random.PRNGKey(key))
    out = [ts]
    step = jax.jit(env.step)
    for a in actions:
        ts = step(ts, jnp.int32(a))
        out.append(ts)
    return out


def test_goal_terminates_with_minigrid_reward():
    ts = _run(horizax.make("MiniGrid-Empty-5x5-v0"), TO_GOAL)
    assert [int(t.step_type) for t in ts] == [0, 0, 0, 0, 0, 2]
    assert float(ts[-1].reward) == pytest.approx(1 - 0.9 * 5 / 100)
    assert bool(ts[-1].is_termination()) and bool(ts[-1].is_done())


def test_time_limit_truncates_on_the_last_step_only():
    env = horizax.make("MiniGrid-Empty-5x5-v0", max_steps=3)
    ts = _run(env, [C.LEFT] * 3)
    assert [int(t.step_type) for t in ts] == [0, 0, 0, StepType.TRUNCATION]
    assert bool(ts[2].is_transition()) and bool(ts[3].is_truncation())
    assert not bool(ts[3].is_termination())


def _limit_by_direction(state):
    """A per-episode limit drawn by the layout: 2 + the agent's start direction."""
    return 2 + state.agent_dir


def test_each_episode_truncates_at_its_own_limit_under_vmap_and_scan():
    env = horizax.make("MiniGrid-Empty-Random-5x5-v0").replace(
        episode_max_steps=_limit_by_direction
    )
    keys = jax.random.split(jax.random.PRNGKey(3), 16)
    ts = jax.vmap(env.reset)(keys)
    limits = np.asarray(2 + ts.state.agent_dir)
    np.testing.assert_array_equal(np.asarray(ts.state.max_steps), limits)
    assert len(set(limits.tolist())) > 1

    def body(ts, _):
        ts = jax.vmap(env.step)(ts, jnp.full(16, C.LEFT, jnp.int32))
        return ts, (ts.step_type, ts.state.step_count)

    _, (types, counts) = jax.lax.scan(body, ts, None, length=6)
    first_end = np.argmax(np.asarray(types) == StepType.TRUNCATION, axis=0) + 1
    np.testing.assert_array_equal(first_end, limits)  # turning never ends otherwise
    # After the autoreset, the next episode carries the next layout's limit.
    assert (np.asarray(counts)[first_end - 1, np.arange(16)] == limits).all()
    assert env.replace(max_steps=4).episode_max_steps is None, "an override fixes the limit"
    with pytest.raises(ValueError, match="episode_max_steps"):
        env.replace(episode_max_steps=3)


def test_goal_on_the_time_limit_step_is_a_termination():
    env = horizax.make("MiniGrid-Empty-5x5-v0", max_steps=5)
    last = _run(env, TO_GOAL)[-1]
    assert int(last.step_type) == StepType.TERMINATION
    assert float(last.reward) == pytest.approx(1 - 0.9 * 5 / 5)


def test_step_after_the_end_starts_a_new_episode_and_ignores_the_action():
    env = horizax.make("MiniGrid-Empty-Random-5x5-v0", max_steps=2)
    ts = _run(env, [C.LEFT, C.LEFT, C.FORWARD, C.FORWARD])
    assert int(ts[2].step_type) == StepType.TRUNCATION
    restarted = ts[3]
    assert bool(restarted.is_start()) and int(restarted.t) == 0
    assert int(restarted.step_type) == StepType.TRANSITION
    assert float(restarted.reward) == 0.0 and int(restarted.action) == -1
    fresh = env.reset(episode_keys.next_episode_key(ts[2].state.key))
    np.testing.assert_array_equal(restarted.observation, fresh.observation)
    assert int(ts[4].t) == 1


@pytest.mark.parametrize("rounds", [True, False])
@pytest.mark.parametrize(
    "env_id", ["MiniGrid-Fetch-8x8-N3-v0", "MiniGrid-MemoryS13Random-v0", "MiniGrid-MemoryS13-v0"]
)
def test_batched_autoreset_state_is_a_fresh_reset_field_for_field(env_id, rounds):
    """Under `vmap` the finished environments get exactly `reset(next_episode_key)` (key,
    step count and limit included) and the others go on untouched by the reset, whether
    layouts are drawn in rounds or for every environment."""
    env = horizax.make(env_id, max_steps=3, autoreset_rounds=rounds)
    keys = jax.random.split(jax.random.PRNGKey(7), 8)
    step = jax.jit(jax.vmap(env.step))
    ts = jax.vmap(env.reset)(keys)
    # Environments 0..3 truncate after 3 left turns; 4..7 started one step later.
    ts = ts.replace(state=ts.state.replace(step_count=jnp.asarray([0, 0, 0, 0, -1, -1, -1, -1])))
    for _ in range(3):
        ts = step(ts, jnp.full(8, C.LEFT, jnp.int32))
    assert np.asarray(ts.is_truncation()).tolist() == [True] * 4 + [False] * 4
    after = step(ts, jnp.full(8, C.LEFT, jnp.int32))
    fresh = jax.vmap(env.reset)(jax.vmap(episode_keys.next_episode_key)(ts.state.key))
    for i in range(4):
        jax.tree.map(
            np.testing.assert_array_equal,
            jax.tree.map(lambda x, i=i: x[i], after.state),
            jax.tree.map(lambda x, i=i: x[i], fresh.state),
        )
    np.testing.assert_array_equal(after.state.key[4:], ts.state.key[4:])
    np.testing.assert_array_equal(after.state.step_count[4:], 3)
    np.testing.assert_array_equal(after.state.grid[4:], ts.state.grid[4:])


def test_disable_autoreset_keeps_stepping_the_episode():
    env = horizax.make("MiniGrid-Empty-5x5-v0", max_steps=2).disable_autoreset()
    ts = _run(env, [C.LEFT] * 4)
    assert [int(t.t) for t in ts] == [0, 1, 2, 3, 4]
    assert [int(t.step_type) for t in ts] == [0, 0, 1, 1, 1]


def test_consecutive_episodes_draw_different_layouts():
    env = horizax.make("MiniGrid-DoorKey-8x8-v0", max_steps=1)
    step = jax.jit(env.step)
    ts = env.reset(jax.random.PRNGKey(0))
    layouts = set()
    for _ in range(40):  # 20 episodes of one step each
        layouts.add(np.asarray(ts.state.grid).tobytes() + np.asarray(ts.state.agent_pos).tobytes())
        ts = step(ts, jnp.int32(0))
    assert len(layouts) >= 15, "autoreset keeps drawing the same layouts"


def test_typed_keys_work_like_raw_keys():
    env = horizax.make("MiniGrid-DoorKey-8x8-v0", max_steps=2)
    ts = env.reset(jax.random.key(0))
    for _ in range(4):
        ts = jax.jit(env.step)(ts, jnp.int32(1))
    assert int(ts.t) == 1


def test_same_key_same_episode_and_different_keys_differ():
    env = horizax.make("MiniGrid-Empty-Random-6x6-v0")
    a = env.reset(jax.random.PRNGKey(3))
    b = env.reset(jax.random.PRNGKey(3))
    np.testing.assert_array_equal(a.observation, b.observation)
    starts = {
        tuple(np.asarray(env.reset(jax.random.PRNGKey(k)).state.agent_pos)) for k in range(20)
    }
    assert len(starts) > 3


def test_concrete_out_of_range_action_raises():
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    ts = env.reset(jax.random.PRNGKey(0))
    for bad in (7, -1):
        with pytest.raises(ValueError, match=r"outside the action space \[0, 7\)"):
            env.step(ts, jnp.int32(bad))


def test_out_of_range_action_under_jit_only_advances_time():
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    ts = env.reset(jax.random.PRNGKey(0))
    out = jax.jit(env.step)(ts, jnp.int32(9))
    np.testing.assert_array_equal(out.state.grid, ts.state.grid)
    np.testing.assert_array_equal(out.state.agent_pos, ts.state.agent_pos)
    assert int(out.state.agent_dir) == int(ts.state.agent_dir)
    assert int(out.t) == 1 and int(out.action) == 9


@pytest.mark.parametrize("env_id", ["MiniGrid-GoToDoor-5x5-v0", "MiniGrid-GoToObject-6x6-N2-v0"])
def test_out_of_range_action_under_jit_is_not_the_done_action(env_id):
    # Found by tests/test_properties.py: an out-of-range action was applied as `done`, which
    # ends every GoTo* episode, where the docs promise it changes nothing but the step count.
    env = horizax.make(env_id)
    ts = env.reset(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    assert int(step(ts, jnp.int32(C.DONE)).step_type) == StepType.TERMINATION, "the premise"
    for bad in (-1, 7, 2**31 - 1):
        out = step(ts, jnp.int32(bad))
        assert int(out.step_type) == StepType.TRANSITION, f"action {bad} ended the episode"
        assert float(out.reward) == 0.0 and int(out.t) == 1


@pytest.mark.parametrize(
    ("action", "error", "match"),
    [
        (jnp.zeros(2, jnp.int32), ValueError, "scalar"),
        (jnp.float32(1.0), TypeError, "integer"),
        (True, TypeError, "bool"),
    ],
)
def test_action_shape_and_dtype_errors_name_the_argument(action, error, match):
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    ts = env.reset(jax.random.PRNGKey(0))
    with pytest.raises(error, match=match):
        jax.jit(env.step)(ts, action)


def test_invalid_configuration_raises_at_construction():
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    with pytest.raises(ValueError, match="width"):
        env.replace(width=2)
    with pytest.raises(ValueError, match="max_steps"):
        env.replace(max_steps=-3)
    with pytest.raises(ValueError, match="num_actions"):
        env.replace(num_actions=9)
    with pytest.raises(ValueError, match="autoreset_rounds must be a bool"):
        env.replace(autoreset_rounds="yes")
    with pytest.raises(TypeError):
        Environment.create(width=5, height=5, max_steps=10, layout_fn=lambda k: None, bogus=1)


def test_timestep_fields_from_the_quick_start():
    env = horizax.make("MiniGrid-Empty-8x8-v0")
    ts = env.step(env.reset(jax.random.PRNGKey(0)), jnp.asarray(2))
    assert ts.observation.shape == (7, 7, 3) and ts.observation.dtype == jnp.uint8
    assert ts.reward.dtype == jnp.float32 and ts.step_type.dtype == jnp.int32
    assert int(ts.t) == 1 and int(ts.action) == 2 and ts.info == {}
    assert env.action_space.n == 7


def test_memory_trajectories_do_not_depend_on_how_autoreset_draws():
    """MemoryS13 selects a fresh layout for every environment (`autoreset_rounds=False`);
    a vmapped rollout with many resets is the same as with the rounds."""
    runs = []
    for rounds in (True, False):
        env = horizax.make("MiniGrid-MemoryS13-v0", max_steps=5, autoreset_rounds=rounds)
        step = jax.jit(jax.vmap(env.step))
        ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(2), 64))
        actions = jax.random.randint(jax.random.PRNGKey(3), (23, 64), 0, 7)
        seen = []
        for action in actions:
            ts = step(ts, action)
            seen.append(jax.tree.map(np.asarray, (ts.observation, ts.reward, ts.step_type)))
        runs.append((seen, jax.tree.map(np.asarray, ts.state)))
    jax.tree.map(np.testing.assert_array_equal, runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1].grid, runs[1][1].grid)
    assert not horizax.make("MiniGrid-MemoryS13-v0").autoreset_rounds
    assert horizax.make("MiniGrid-MemoryS13Random-v0").autoreset_rounds


def test_layout_objects_are_validated_and_dropped_with_a_new_layout():
    env = horizax.make("MiniGrid-Empty-Random-6x6-v0")
    assert env.layout_objects == frozenset({C.WALL, C.GOAL}) and not env.agent_edits_grid
    assert env.replace(layout_objects={C.WALL, C.KEY}).layout_objects == {C.WALL, C.KEY}
    assert env.replace(layout_objects=[C.WALL, C.KEY]).agent_edits_grid
    for bad in ({C.WALL, 11}, {-1}, "WALL", {2.0}):
        with pytest.raises(ValueError, match="layout_objects"):
            env.replace(layout_objects=bad)
    assert env.replace(layout_fn=env.layout_fn).layout_objects is None
    assert env.replace(num_actions=3).agent_edits_grid is False
    assert horizax.make("MiniGrid-DoorKey-5x5-v0").agent_edits_grid
    assert not horizax.make("MiniGrid-Dynamic-Obstacles-5x5-v0").agent_edits_grid  # 3 actions


@pytest.mark.parametrize(
    ("env_id", "objects"),
    [
        ("MiniGrid-Empty-Random-6x6-v0", None),
        ("MiniGrid-Empty-8x8-v0", None),
        ("MiniGrid-DistShift1-v0", None),
        ("MiniGrid-LavaCrossingS9N1-v0", None),
        ("MiniGrid-MemoryS7-v0", {C.WALL, C.KEY, C.BALL}),
    ],
)
def test_skipping_the_edits_plays_the_same_episodes(env_id, objects):
    """Empty and the crossings declare `layout_objects` with nothing pickup, drop or toggle
    could change, so their steps skip those writes; every timestep equals that of the same
    environment left to write them (``layout_objects=None``), autoresets included. Memory,
    declared here (its pickup is a toggle, which leaves its key and ball alone, so its hands
    stay empty and drop changes nothing either), plays the same too. Empty and DistShift
    also read their fixed grid from the layout (`Environment.fixed_grid`), which the
    undeclared copy does not."""
    fast = horizax.make(env_id, max_steps=30)
    if objects is not None:
        fast = fast.replace(layout_objects=objects)
    assert not fast.agent_edits_grid
    assert fast.fixed_grid == (env_id.split("-")[1] in ("Empty", "DistShift1"))
    assert not fast.replace(layout_objects=None).fixed_grid
    runs = []
    for env in (fast, fast.replace(layout_objects=None)):

        def body(ts, action, env=env):
            ts = env.step(ts, action)
            return ts, ts

        ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(5), 8))
        actions = jax.random.randint(jax.random.PRNGKey(6), (200, 8), 0, 7)
        runs.append(jax.jit(lambda ts, a, b=body: jax.lax.scan(jax.vmap(b), ts, a))(ts, actions))
    jax.tree.map(np.testing.assert_array_equal, runs[0], runs[1])
    assert int((runs[0][1].step_type != 0).sum()) > 8  # several episodes ended


@pytest.mark.parametrize(
    ("env_id", "fixed"),
    [
        ("MiniGrid-Empty-8x8-v0", True),
        ("MiniGrid-Empty-Random-6x6-v0", True),  # the agent is drawn, the grid is not
        ("MiniGrid-DistShift2-v0", True),
        ("MiniGrid-FourRooms-v0", False),  # its doors are drawn
        ("MiniGrid-LavaGapS6-v0", False),
        ("MiniGrid-DoorKey-5x5-v0", False),  # the agent edits the grid
        ("MiniGrid-Dynamic-Obstacles-6x6-v0", False),  # its obstacles move
    ],
)
def test_fixed_grid_is_read_off_the_layout(env_id, fixed):
    env = horizax.make(env_id)
    assert env.fixed_grid is fixed
    if fixed:
        ts = env.reset(jax.random.PRNGKey(3))
        grid = env.layout_fn(jax.random.PRNGKey(11)).grid
        np.testing.assert_array_equal(ts.state.grid, grid)  # every key draws it
    # Anything that may edit the grid turns it back into state.
    assert not env.replace(dynamics_fn=lambda state, action, key: state).fixed_grid
    assert not env.replace(post_action_fn=lambda prev, action, state: state).fixed_grid
    assert not env.replace(layout_objects={C.WALL, C.GOAL, C.KEY}).fixed_grid


def test_a_fixed_grid_edited_by_hand_is_stepped_as_the_layouts():
    """Documented: where `fixed_grid` holds, the step reads the layout's grid, not the
    state's; without the `layout_objects` declaration the edited grid is the one stepped."""
    env = horizax.make("MiniGrid-Empty-8x8-v0", observation_fn=observations.symbolic)
    ts = env.reset(jax.random.PRNGKey(0))  # the agent at (1, 1), facing right
    wall = jnp.array(C.WALL_CELL, jnp.uint8)
    walled = ts.replace(state=ts.state.replace(grid=ts.state.grid.at[2, 1].set(wall)))
    forward = jnp.int32(C.FORWARD)
    moved = jax.jit(env.step)(walled, forward)
    np.testing.assert_array_equal(moved.state.agent_pos, [2, 1])
    np.testing.assert_array_equal(moved.state.grid, ts.state.grid)
    assert moved.observation[2, 1, 0] == C.AGENT
    undeclared = env.replace(layout_objects=None)
    blocked = jax.jit(undeclared.step)(walled, forward)
    np.testing.assert_array_equal(blocked.state.agent_pos, [1, 1])
    assert blocked.observation[2, 1, 0] == C.WALL


@pytest.mark.parametrize("batch", [None, 3])
def test_a_rollout_traces_the_layout_once(batch):
    # Reset and autoreset share the layout's trace (a BabyAI level's takes seconds).
    env = horizax.make("MiniGrid-DoorKey-5x5-v0")
    traces = []

    def layout(key):
        traces.append(key)
        return env.layout_fn(key)

    counted = env.replace(layout_fn=layout, layout_objects=env.layout_objects, max_steps=4)

    def rollout(key):
        timestep = counted.reset(key)
        body = lambda ts, a: (counted.step(ts, a), ts.step_type)  # noqa: E731
        return jax.lax.scan(body, timestep, jnp.zeros(9, jnp.int32))[1]

    run = rollout if batch is None else jax.vmap(rollout)
    keys = jax.random.PRNGKey(0) if batch is None else jax.random.split(jax.random.PRNGKey(0), 3)
    step_types = jax.jit(run)(keys)
    # Traced once each by reset and autoreset before. Under `vmap` the sparse reset's batched
    # rule runs while the scan body is re-batched, in a tracing context that missed the
    # layout's cache until `sparse_reset.shared_jit` (2 traces).
    assert len(traces) == 1
    assert (np.asarray(step_types) == StepType.TRUNCATION).sum() >= 1  # autoreset ran


def test_a_layout_jit_cannot_hold_is_traced_at_each_use():
    # `jax.jit` keeps a weak reference to its function; a callable without one still works.
    env = horizax.make("MiniGrid-Empty-5x5-v0")

    class Layout:
        __slots__ = ()

        def __call__(self, key):
            return env.layout_fn(key)

    slotted = env.replace(layout_fn=Layout())
    key = jax.random.PRNGKey(3)
    ours, theirs = jax.jit(slotted.reset)(key), jax.jit(env.reset)(key)
    for x, y in zip(jax.tree.leaves(ours), jax.tree.leaves(theirs), strict=True):
        np.testing.assert_array_equal(x, y)
