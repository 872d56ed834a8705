"""The Gymnasium vector adapter: each autoreset mode pinned step by step and compared with
Gymnasium's own ``SyncVectorEnv`` over the single-environment adapter (the reference)."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

from horizax.adapters import gymnasium as hg  # noqa: E402
from horizax.adapters import gymnasium_vector as hgv  # noqa: E402
from horizax.adapters.gymnasium_vector import GymnasiumVectorEnv  # noqa: E402
from horizax.core.episode import AutoresetMode as HorizaxMode  # noqa: E402
from tests.core.toy_protocol import Walk  # noqa: E402

EMPTY = "MiniGrid-Empty-5x5-v0"
GOAL_PATH = [2, 2, 1, 2, 2]  # Empty-5x5: from (1, 1) facing right to the goal at (3, 3)


def assert_same(ours, ref, what):
    assert data_equivalence(ours, ref, exact=True), f"{what}:\nours={ours}\nref={ref}"


def lockstep(make_env, mode, actions, seed):
    """Drives our vector env and SyncVectorEnv over the single adapter with the same seeds
    and actions (DISABLED: resetting the finished environments by mask), comparing every
    output exactly, dtypes included."""
    num_envs = actions.shape[1]
    ours = GymnasiumVectorEnv(make_env(), num_envs, autoreset_mode=mode)
    ref = SyncVectorEnv([lambda: hg.GymnasiumEnv(make_env()) for _ in range(num_envs)],
                        autoreset_mode=mode)  # fmt: skip
    assert ours.observation_space == ref.observation_space
    assert ours.action_space == ref.action_space
    assert ours.metadata["autoreset_mode"] == ref.metadata["autoreset_mode"] == mode
    assert_same(ours.reset(seed=seed), ref.reset(seed=seed), "reset")
    ends = {"terminated": 0, "truncated": 0, "resets": 0}
    for t, action in enumerate(actions):
        if mode is AutoresetMode.DISABLED and ref._autoreset_envs.any():
            mask = ref._autoreset_envs.copy()
            ends["resets"] += 1
            out = ours.reset(options={"reset_mask": mask})
            expected = ref.reset(options={"reset_mask": mask.copy()})
            assert_same(out, expected, f"masked reset {t}")
        out, expected = ours.step(action), ref.step(action)
        assert_same(out, expected, f"{mode} step {t}")
        ends["terminated"] += int(out[2].sum())
        ends["truncated"] += int(out[3].sum())
    return ends


@pytest.mark.reference
@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_grid_matches_sync_vector_env(mode):
    actions = np.random.default_rng(1).integers(0, 3, (16, 3))
    actions[:5, 0] = GOAL_PATH  # env 0 reaches the goal, the others hit the time limit
    ends = lockstep(lambda: hg.GymnasiumEnv(EMPTY, max_steps=6).fenv, mode, actions, seed=0)
    assert ends["terminated"] >= 1 and ends["truncated"] >= 2, f"both ends covered: {ends}"


@pytest.mark.reference
@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_infos_match_sync_vector_env(mode):
    """Walk has a non-empty info, a random goal per episode and key-dependent rewards."""
    rng = np.random.default_rng(2)
    actions = rng.choice(3, (24, 5), p=[0.2, 0.7, 0.1])
    ends = lockstep(lambda: Walk(max_steps=5), mode, actions, seed=9)
    assert ends["terminated"] >= 2 and ends["truncated"] >= 2, f"both ends covered: {ends}"


def test_next_step_pins():
    envs = hg.make_vec(EMPTY, 2)  # NEXT_STEP by default
    single = hg.make(EMPTY)
    envs.reset(seed=0)
    start, _ = single.reset(seed=0)
    for t, action in enumerate(GOAL_PATH):
        obs, rewards, terms, truncs, infos = envs.step(np.array([action, 0]))
        expected = single.step(action)
        assert infos == {}
        assert_same(obs["image"][0], expected[0]["image"], f"step {t}: env 0's observation")
    assert terms.tolist() == [True, False] and truncs.tolist() == [False, False]
    assert rewards.dtype == np.float64 and rewards[0] == expected[1]
    # The next step ignores env 0's action and starts its next episode: reward 0, no flags.
    obs, rewards, terms, truncs, _ = envs.step(np.array([2, 0]))
    restart, _ = single.reset()
    assert_same(obs["image"][0], restart["image"], "env 0 returns the new first observation")
    assert obs["mission"][0] == restart["mission"]
    assert rewards.tolist() == [0.0, 0.0] and not terms.any() and not truncs.any()
    assert_same(restart["image"], start["image"], "Empty-5x5's layout is fixed")
    assert obs["direction"].tolist() == [0, 2], "env 1 kept turning (6 lefts: facing left)"


def test_same_step_pins_final_obs_to_the_terminal_observation():
    envs = hg.make_vec(EMPTY, 2, autoreset_mode="SameStep")
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    single = hg.make(EMPTY)
    envs.reset(seed=0)
    single.reset(seed=0)
    for action in GOAL_PATH:
        obs, rewards, terms, truncs, infos = envs.step(np.array([action, 0]))
        terminal = single.step(action)
    new_first, _ = single.reset()
    assert terms.tolist() == [True, False] and rewards[0] == terminal[1]
    assert_same(obs["image"][0], new_first["image"], "the returned observation is the new one")
    assert infos["_final_obs"].tolist() == [True, False]
    assert infos["_final_info"].tolist() == [True, False] and infos["final_info"] == {}
    assert infos["final_obs"].dtype == object and infos["final_obs"][1] is None
    assert_same(infos["final_obs"][0], terminal[0], "final_obs is the non-vector terminal obs")
    assert set(infos) == {"final_obs", "_final_obs", "final_info", "_final_info"}
    obs, rewards, terms, truncs, infos = envs.step(np.array([2, 0]))
    assert infos == {} and rewards[0] == 0.0, "the new episode simply goes on"
    assert not terms.any() and not truncs.any()


def test_disabled_needs_a_masked_reset():
    envs = hg.make_vec(EMPTY, 2, autoreset_mode=AutoresetMode.DISABLED, max_steps=3)
    envs.reset(seed=0)
    envs.step(np.array([2, 2]))
    envs.step(np.array([0, 1]))
    envs.reset(options={"reset_mask": np.array([False, True])})  # env 1 starts over
    last, _, _, truncs, _ = envs.step(np.array([0, 0]))
    assert truncs.tolist() == [True, False], "env 0 hit its limit; env 1 is at step 1"
    with pytest.raises(RuntimeError, match="reset_mask"):
        envs.step(np.array([0, 0]))
    obs, infos = envs.reset(options={"reset_mask": np.array([True, False])})
    assert infos == {}
    fresh, _ = hg.make(EMPTY).reset(seed=0)
    assert_same(obs["image"][0], fresh["image"], "env 0 restarted")
    assert_same(obs["image"][1], last["image"][1], "env 1 kept its observation")
    assert obs["direction"].tolist() == [0, last["direction"][1]]
    _, _, _, truncs, _ = envs.step(np.array([0, 0]))
    assert not truncs.any(), "env 0 at step 1, env 1 at step 2"
    _, _, terms, truncs, _ = envs.step(np.array([0, 0]))
    assert truncs.tolist() == [False, True] and not terms.any(), "env 1 truncates on step 3"


def test_spaces_dtypes_and_gymnasium_make_vec():
    envs = gymnasium.make_vec("horizax/MiniGrid-DoorKey-5x5-v0", num_envs=3,
                              autoreset_mode="SameStep")  # fmt: skip
    assert isinstance(envs.unwrapped, GymnasiumVectorEnv), "the vector entry point is ours"
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert envs.single_observation_space == hg.make("MiniGrid-DoorKey-5x5-v0").observation_space
    obs, _ = envs.reset(seed=0)
    assert obs in envs.observation_space
    assert obs["image"].dtype == np.uint8 and obs["image"].shape == (3, 7, 7, 3)
    assert (
        obs["direction"].dtype == np.int64
        and obs["mission"] == ("use the key to open the door and then get to the goal",) * 3
    )
    actions = envs.action_space.sample()
    obs, rewards, terms, truncs, _ = envs.step(actions)
    assert rewards.dtype == np.float64 and terms.dtype == truncs.dtype == np.bool_
    sync = gymnasium.make_vec("horizax/MiniGrid-DoorKey-5x5-v0", num_envs=2,
                              vectorization_mode="sync")  # fmt: skip
    assert (
        isinstance(sync, SyncVectorEnv)
        and sync.observation_space == hg.make_vec("MiniGrid-DoorKey-5x5-v0", 2).observation_space
    )


def test_modes_are_accepted_in_every_spelling():
    for mode in (HorizaxMode.SAME_STEP, AutoresetMode.SAME_STEP, "SameStep"):
        envs = hg.make_vec(EMPTY, 1, autoreset_mode=mode)
        assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
        assert envs.spec.kwargs["autoreset_mode"] == "SameStep"
    with pytest.raises(ValueError, match="autoreset_mode"):
        hg.make_vec(EMPTY, 1, autoreset_mode="same_step")
    with pytest.raises(ValueError, match="num_envs"):
        hg.make_vec(EMPTY, 0)


def test_seeds_follow_sync_vector_env_conventions():
    envs = hg.make_vec("MiniGrid-DoorKey-8x8-v0", 3)
    singles = [hg.make("MiniGrid-DoorKey-8x8-v0") for _ in range(3)]
    obs, _ = envs.reset(seed=10)
    for i, single in enumerate(singles):
        assert_same(obs["image"][i], single.reset(seed=10 + i)[0]["image"], f"seed 10 + {i}")
    obs, _ = envs.reset()  # no seed: every env continues with its next episode key
    for i, single in enumerate(singles):
        assert_same(obs["image"][i], single.reset()[0]["image"], f"next episode of env {i}")
    obs, _ = envs.reset(seed=[5, None, 7])
    assert_same(obs["image"][0], singles[0].reset(seed=5)[0]["image"], "a list seeds each env")
    assert_same(obs["image"][1], singles[1].reset()[0]["image"], "None continues that env")
    assert_same(obs["image"][2], singles[2].reset(seed=7)[0]["image"], "a list seeds each env")
    with pytest.raises(ValueError, match="length must match"):
        envs.reset(seed=[1, 2])


def test_reset_mask_is_validated_like_sync_vector_env():
    envs = hg.make_vec(EMPTY, 2, autoreset_mode="Disabled")
    with pytest.raises(gymnasium.error.ResetNeeded):
        envs.reset(options={"reset_mask": np.array([True, False])})
    envs.reset(seed=0)
    with pytest.raises(TypeError, match="numpy array"):
        envs.reset(options={"reset_mask": [True, False]})
    with pytest.raises(ValueError, match="shape"):
        envs.reset(options={"reset_mask": np.array([True])})
    with pytest.raises(TypeError, match="dtype"):
        envs.reset(options={"reset_mask": np.array([1, 0])})
    with pytest.raises(ValueError, match="at least one True"):
        envs.reset(options={"reset_mask": np.array([False, False])})
    with pytest.raises(ValueError, match="shape"):
        envs.step(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match="outside the action space"):
        envs.step(np.array([0, 7]))


def test_render_gives_one_frame_per_environment():
    envs = hg.make_vec(EMPTY, 2, render_mode="rgb_array")
    envs.reset(seed=0)
    envs.step(np.array([2, 0]))
    frames = envs.render()
    assert isinstance(frames, tuple) and len(frames) == 2
    single = hg.make(EMPTY, render_mode="rgb_array")
    single.reset(seed=0)
    single.step(2)
    np.testing.assert_array_equal(frames[0], single.render())
    assert frames[0].dtype == np.uint8 and not np.array_equal(frames[0], frames[1])


def test_one_compiled_step_for_the_whole_run():
    envs = hg.make_vec(EMPTY, 4, max_steps=3)
    envs.reset(seed=0)
    envs.step(np.zeros(4, np.int64))
    compiled = hgv._step._cache_size()
    for _ in range(8):  # through several autoresets
        envs.step(np.ones(4, np.int64))
    envs.reset(seed=1)
    envs.step(np.zeros(4, np.int32))
    assert hgv._step._cache_size() == compiled, "the jitted vmapped step must not retrace"


@pytest.mark.reference
@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_maze_matches_sync_vector_env(mode):
    actions = np.random.default_rng(3).integers(0, 4, (10, 3))
    # Maze instances compare by identity: share one so the reference compiles once.
    fenv = hg.GymnasiumEnv("Maze-v0", time_limit=4).fenv
    ends = lockstep(lambda: fenv, mode, actions, seed=5)
    assert ends["truncated"] >= 3, f"episodes ended inside the run: {ends}"


@pytest.mark.reference
def test_batched_missions_match_sync_vector_env():
    """Fetch draws a mission per episode: the batched strings must follow each environment."""
    fetch = "MiniGrid-Fetch-5x5-N2-v0"
    actions = np.random.default_rng(4).integers(0, 7, (12, 4))
    lockstep(lambda: hg.GymnasiumEnv(fetch, max_steps=3).fenv, AutoresetMode.NEXT_STEP, actions, 0)
    obs, _ = hg.make_vec(fetch, 4).reset(seed=0)
    singles = [hg.make(fetch).reset(seed=i)[0]["mission"] for i in range(4)]
    assert list(obs["mission"]) == singles and len(set(singles)) > 1, "distinct missions"


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_a_saved_state_resumes_the_same_trajectories(mode, tmp_path):
    """N steps, save_state, load_state into a fresh vector env, M steps: every output equal to
    N + M steps straight, with episodes ending and restarting after the save."""
    N, M = 3, 6
    actions = np.random.default_rng(5).integers(0, 3, (N + M, 3))

    def play(envs, rows):
        outputs = []
        for action in rows:
            if mode is AutoresetMode.DISABLED and envs._done.any():
                outputs.append(envs.reset(options={"reset_mask": envs._done.copy()}))
            outputs.append(envs.step(action))
        return outputs

    def make():  # DoorKey: each episode's layout comes from its key, so keys must survive
        return GymnasiumVectorEnv("MiniGrid-DoorKey-5x5-v0", 3, autoreset_mode=mode, max_steps=4)

    straight = make()
    straight.reset(seed=0)
    expected = play(straight, actions)
    saved = make()
    saved.reset(seed=0)
    before = play(saved, actions[:N])
    saved.save_state(tmp_path / "vector.ckpt")
    resumed = make()
    obs = resumed.load_state(tmp_path / "vector.ckpt")
    assert_same(obs, before[-1][0], "load_state returns the saved observations")
    compiled = hgv._step._cache_size()
    after = play(resumed, actions[N:])
    assert hgv._step._cache_size() == compiled, "a restored state must not retrace the step"
    assert_same(before + after, expected, f"{mode}: the resumed run")
    ends = [out for out in after if len(out) == 5 and (out[2] | out[3]).any()]
    assert ends, "an episode ends after the save"


def test_load_state_refuses_another_configuration(tmp_path):
    envs = GymnasiumVectorEnv(EMPTY, 2)
    with pytest.raises(gymnasium.error.ResetNeeded, match="save_state"):
        envs.save_state(tmp_path / "v.ckpt")
    envs.reset(seed=0)
    envs.save_state(tmp_path / "v.ckpt")
    with pytest.raises(ValueError, match="num_envs=2; this GymnasiumVectorEnv has num_envs=3"):
        GymnasiumVectorEnv(EMPTY, 3).load_state(tmp_path / "v.ckpt")
    with pytest.raises(ValueError, match="autoreset_mode='NextStep'"):
        GymnasiumVectorEnv(EMPTY, 2, autoreset_mode="SameStep").load_state(tmp_path / "v.ckpt")
    with pytest.raises(ValueError, match="env_id"):
        GymnasiumVectorEnv("MiniGrid-Empty-6x6-v0", 2).load_state(tmp_path / "v.ckpt")
    with pytest.raises(FileNotFoundError, match=r"missing\.ckpt"):
        envs.load_state(tmp_path / "missing.ckpt")
