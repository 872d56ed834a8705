"""The single-environment Gymnasium adapter: API compliance, MiniGrid's observation dict,
seeding, episode-boundary flags, registration and rendering."""

import itertools
import warnings

import jax
import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env, data_equivalence  # noqa: E402

import horizax  # noqa: E402
from horizax.adapters import gymnasium as hg  # noqa: E402
from horizax.core import episode_keys  # noqa: E402
from horizax.grid import constants as C  # noqa: E402
from horizax.grid.missions import FETCH_PHRASES, Template, encode, mission_text  # noqa: E402
from tests.core.toy_protocol import Walk  # noqa: E402

# One id per gridworld family module (src/horizax/grid/envs/*.py).
FAMILY_IDS = [
    "MiniGrid-LavaCrossingS9N1-v0",
    "MiniGrid-DistShift1-v0",
    "MiniGrid-Dynamic-Obstacles-5x5-v0",
    "MiniGrid-Empty-5x5-v0",
    "MiniGrid-Fetch-5x5-N2-v0",
    "MiniGrid-FourRooms-v0",
    "MiniGrid-GoToDoor-5x5-v0",
    "MiniGrid-GoToObject-6x6-N2-v0",
    "MiniGrid-KeyCorridorS3R1-v0",
    "MiniGrid-LavaGapS5-v0",
    "MiniGrid-LockedRoom-v0",
    "MiniGrid-MemoryS7-v0",
    "MiniGrid-MultiRoom-N2-S4-v0",
    "MiniGrid-ObstructedMaze-1Dl-v0",
    "MiniGrid-Playground-v0",
    "MiniGrid-PutNear-6x6-N2-v0",
    "MiniGrid-RedBlueDoors-6x6-v0",
    "MiniGrid-BlockedUnlockPickup-v0",
]
GOAL_PATH = [2, 2, 1, 2, 2]  # Empty-5x5: from (1, 1) facing right to the goal at (3, 3)


def strict_check_env(env):
    """gymnasium's check_env with its warnings turned into failures."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=False)


def test_check_env_passes_on_doorkey_with_render_checks():
    strict_check_env(hg.make("MiniGrid-DoorKey-5x5-v0"))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", FAMILY_IDS)
def test_check_env_passes_on_every_grid_family(env_id):
    strict_check_env(hg.make(env_id))


def test_check_env_passes_on_a_generic_protocol_env():
    env = hg.GymnasiumEnv(Walk(), render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*alternative render modes.*")  # no spec
        check_env(env)


def test_generic_env_spaces_and_values_convert_to_gymnasium():
    env = hg.GymnasiumEnv(Walk())
    space = env.observation_space
    assert space == gymnasium.spaces.Dict(
        {"pos": gymnasium.spaces.Box(0, 7, (1,), np.int32), "goal": gymnasium.spaces.Discrete(8)}
    )
    assert env.action_space == gymnasium.spaces.Discrete(3)
    obs, info = env.reset(seed=1)
    assert type(obs["goal"]) is int, "Discrete observations are Python ints"
    assert obs["pos"].dtype == np.int32 and obs["pos"].flags.writeable
    assert set(info) == {"dist", "hit"} and info["hit"].dtype == np.bool_
    assert float(info["dist"]) == obs["goal"], "the protocol's info is passed through"


@pytest.mark.reference
def test_observation_space_matches_minigrid():
    pytest.importorskip("minigrid")
    theirs = gymnasium.make("MiniGrid-DoorKey-5x5-v0")
    ours = gymnasium.make("horizax/MiniGrid-DoorKey-5x5-v0")
    t_space, o_space = theirs.observation_space, ours.observation_space
    assert list(o_space.spaces) == list(t_space.spaces), "same keys"
    assert o_space["image"] == t_space["image"], "MiniGrid's image Box(0, 255, (7, 7, 3), u8)"
    assert o_space["direction"] == t_space["direction"], "MiniGrid's Discrete(4)"
    assert o_space["mission"].dtype == t_space["mission"].dtype == np.dtype(str), "strings"
    assert ours.action_space == theirs.action_space
    assert ours.metadata["render_fps"] == theirs.metadata["render_fps"]
    assert ours.unwrapped.max_steps == theirs.unwrapped.max_steps
    for seed in range(3):
        t_obs, _ = theirs.reset(seed=seed)
        o_obs, _ = ours.reset(seed=seed)
        assert list(o_obs) == list(t_obs), "same dict keys in the same order"
        assert o_obs["image"].dtype == t_obs["image"].dtype
        assert o_obs["image"].shape == t_obs["image"].shape
        assert isinstance(o_obs["direction"], int), "a Python int, as MiniGrid's Empty gives"
        assert isinstance(t_obs["direction"], int | np.integer)
        assert o_obs["mission"] == t_obs["mission"], "DoorKey's fixed mission string"
        assert t_obs["mission"] in o_space["mission"], "MiniGrid's missions fit our Text space"
        assert t_obs in t_space and o_obs in o_space


def test_every_minigrid_mission_fits_the_text_space():
    space = hg.GymnasiumEnv("MiniGrid-Empty-5x5-v0").observation_space["mission"]
    texts = set()
    # Every template with every colour / object name in both slots and every phrasing.
    for template, color, kind, color2, kind2, variant in itertools.product(
        list(Template), range(len(C.COLOR_NAMES)), range(len(C.OBJECT_NAMES)),
        range(len(C.COLOR_NAMES)), range(len(C.OBJECT_NAMES)), range(len(FETCH_PHRASES)),
    ):  # fmt: skip
        mission = np.array([template, color, kind, color2, kind2, variant, -1, -1, -1, -1])
        texts.add(mission_text(mission))
    fetch = mission_text(np.asarray(encode(Template.FETCH, color=1, kind=C.BALL, variant=4)))
    assert fetch in texts, "the arrays above are the missions' own encoding"
    assert "" in texts, "Playground's empty mission is one of them"
    outside = [text for text in texts if text not in space]
    assert not outside, f"missions outside the Text space: {outside[:5]}"


def test_observation_is_the_horizax_episode_of_the_seed():
    env = hg.make("MiniGrid-DoorKey-8x8-v0")
    grid = horizax.make("MiniGrid-DoorKey-8x8-v0")
    for seed in (0, 5, 2**32 + 3):
        obs, info = env.reset(seed=seed)
        key = hg.seed_key(seed)
        if seed < 2**32:
            assert key.tolist() == jax.random.PRNGKey(seed).tolist(), "seed s is PRNGKey(s)"
        timestep = grid.reset(key)
        np.testing.assert_array_equal(obs["image"], timestep.observation)
        assert obs["direction"] == int(timestep.state.agent_dir)
        assert obs["mission"] == mission_text(timestep.state)
        assert info == {}
    # reset() without a seed continues with the next episode key, like the grid's autoreset.
    env.reset(seed=4)
    obs, _ = env.reset()
    expected = grid.reset(episode_keys.next_episode_key(jax.random.PRNGKey(4)))
    np.testing.assert_array_equal(obs["image"], expected.observation)


def test_reset_seed_is_reproducible_across_instances():
    def run(env):
        out = [env.reset(seed=11)]
        rng = np.random.default_rng(0)
        for _ in range(30):
            out.append(env.step(int(rng.integers(7))))
            if out[-1][2] or out[-1][3]:
                out.append(env.reset())
        return out

    first = run(hg.make("MiniGrid-DoorKey-5x5-v0", max_steps=8))
    second = run(hg.make("MiniGrid-DoorKey-5x5-v0", max_steps=8))
    assert data_equivalence(first, second, exact=True), "same seed and actions, same run"
    a, _ = hg.make("MiniGrid-DoorKey-8x8-v0").reset(seed=1)
    b, _ = hg.make("MiniGrid-DoorKey-8x8-v0").reset(seed=2)
    assert not data_equivalence(a, b, exact=True), "different seeds, different layouts"


def test_time_limit_truncates_without_terminating():
    env = hg.make("MiniGrid-Empty-5x5-v0", max_steps=3)
    env.reset(seed=0)
    flags = [env.step(0)[2:4] for _ in range(3)]
    assert flags == [(False, False), (False, False), (False, True)]
    assert all(type(flag) is bool for pair in flags for flag in pair), "Python bools"


def test_max_steps_follows_each_episodes_limit():
    """A BabyAI grammar level's limit depends on its instruction: ``max_steps`` reads it
    after every reset (as MiniGrid's does), and the episode truncates there."""
    env = hg.make("BabyAI-GoToSeqS5R2-v0")
    limits = set()
    for seed in range(12):
        env.reset(seed=seed)
        limits.add(env.max_steps)
        assert env.max_steps % 100 == 0 and env.max_steps <= env.fenv.max_steps
    assert len(limits) > 1, "the limit changes with the instruction"
    env.reset(seed=0)
    done = [env.step(6)[2:4] for _ in range(env.max_steps)]  # done: nothing happens
    assert done[-1] == (False, True) and not any(any(d) for d in done[:-1])


def test_goal_terminates_without_truncating():
    env = hg.make("MiniGrid-Empty-5x5-v0")
    env.reset(seed=0)
    results = [env.step(action) for action in GOAL_PATH]
    _, reward, terminated, truncated, _ = results[-1]
    assert terminated is True and truncated is False
    assert type(reward) is float and reward == pytest.approx(1 - 0.9 * 5 / 100)
    assert all(not (r[2] or r[3]) for r in results[:-1])


def test_goal_on_the_time_limit_step_terminates():
    env = hg.make("MiniGrid-Empty-5x5-v0", max_steps=len(GOAL_PATH))
    env.reset(seed=0)
    *_, last = (env.step(action) for action in GOAL_PATH)
    assert last[2] is True and last[3] is False, "termination wins over the time limit"


def test_gymnasium_make_registers_every_id_without_a_time_limit_wrapper():
    for env_id in horizax.registered_ids(include_aliases=True):
        spec = gymnasium.spec(f"horizax/{env_id}")
        assert spec.max_episode_steps is None, f"{env_id}: the env truncates by itself"
        assert spec.vector_entry_point is not None
    assert hg.register_all() == [], "registration is idempotent"
    env = gymnasium.make("horizax/MiniGrid-DoorKey-8x8-v0", max_steps=7)
    chain, wrapper = [], env
    while wrapper is not wrapper.unwrapped:
        chain.append(type(wrapper).__name__)
        wrapper = wrapper.env
    assert "TimeLimit" not in chain
    assert isinstance(env.unwrapped, hg.GymnasiumEnv) and env.unwrapped.unwrapped is env.unwrapped
    assert env.unwrapped.max_steps == 7
    env.reset(seed=0)
    flags = [env.step(0)[2:4] for _ in range(7)]
    assert flags[-1] == (False, True) and flags[:-1] == [(False, False)] * 6
    alias = gymnasium.make("horizax/Navix-DoorKey-8x8-v0")
    assert alias.unwrapped.env_id == "MiniGrid-DoorKey-8x8-v0"


def test_render_gives_rgb_frames():
    env = hg.make("MiniGrid-Empty-5x5-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (5 * 32, 5 * 32, 3)
    expected = env.fenv.render(env._episode.state)
    np.testing.assert_array_equal(frame, expected)
    env.step(2)
    assert not np.array_equal(env.render(), frame), "the frame follows the agent"
    collected = gymnasium.make("horizax/MiniGrid-Empty-5x5-v0", render_mode="rgb_array_list")
    collected.reset(seed=0)
    collected.step(2)
    frames = collected.render()
    assert isinstance(frames, list) and len(frames) == 2
    silent = hg.make("MiniGrid-Empty-5x5-v0")
    silent.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert silent.render() is None


def test_bad_input_raises_early():
    with pytest.raises(ValueError, match="render_mode"):
        hg.make("MiniGrid-Empty-5x5-v0", render_mode="human")
    with pytest.raises(ValueError, match="unknown environment id"):
        hg.make("MiniGrid-Emptyy-5x5-v0")
    with pytest.raises(TypeError, match="overrides"):
        hg.GymnasiumEnv(horizax.make("MiniGrid-Empty-5x5-v0"), max_steps=3)
    env = hg.make("MiniGrid-Empty-5x5-v0")
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(7)
    with pytest.raises(TypeError, match="integer"):
        env.step(True)
    with pytest.raises(TypeError, match="integer"):
        env.step(1.0)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=2**64)


def test_environment_objects_and_prefixed_ids_are_accepted():
    from_object = hg.GymnasiumEnv(horizax.make("MiniGrid-Empty-5x5-v0", max_steps=9))
    from_prefixed = hg.make("horizax/MiniGrid-Empty-5x5-v0", max_steps=9)
    assert from_object.max_steps == from_prefixed.max_steps == 9
    a, b = from_object.reset(seed=3), from_prefixed.reset(seed=3)
    assert data_equivalence(a, b, exact=True)
    assert from_prefixed.spec.id == "horizax/MiniGrid-Empty-5x5-v0"
    assert from_prefixed.spec.kwargs == {"env": "MiniGrid-Empty-5x5-v0", "max_steps": 9}


def test_check_env_passes_on_the_maze():
    env = hg.make("Maze-v0")
    assert isinstance(env.observation_space, gymnasium.spaces.Dict)
    assert env.observation_space["walls"].dtype == np.bool_
    strict_check_env(env)
