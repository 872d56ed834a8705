"""The TorchRL adapter: specs, check_env_specs, rollouts across episode boundaries with
terminated and truncated apart, partial resets through ``_reset``, DLPack transfers."""

from __future__ import annotations

import importlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensordict")
pytest.importorskip("torchrl")

from tensordict import TensorDict  # noqa: E402
from torchrl.data import Bounded, Categorical, Composite, Unbounded  # noqa: E402
from torchrl.envs import terminated_or_truncated as torchrl_terminated_or_truncated  # noqa: E402
from torchrl.envs.utils import check_env_specs, step_mdp  # noqa: E402

import horizax  # noqa: E402
from horizax.adapters.torchrl import TorchRLEnv, _to_torch, to_torchrl_spec  # noqa: E402
from horizax.core.protocol import functional  # noqa: E402
from horizax.core.spaces import Box, Dict, Discrete  # noqa: E402
from horizax.done import terminated_or_truncated  # noqa: E402
from tests.adapters.corridor import Corridor  # noqa: E402

ENV_ID = "MiniGrid-Empty-5x5-v0"
# Agent starts at (1, 1) facing east, goal at (3, 3): forward, forward, right, forward, forward.
TO_GOAL = [2, 2, 1, 2, 2]
LEFT, FORWARD = 0, 2


def actions(*values):
    return TensorDict({"action": torch.tensor(values, dtype=torch.int64)}, [len(values)])


def step(env, *values):
    """One env.step with the given per-env actions; returns the "next" TensorDict."""
    return env.step(actions(*values))["next"]


def flags(td):
    return td["terminated"].squeeze(-1).tolist(), td["truncated"].squeeze(-1).tolist()


def test_check_env_specs_grid():
    check_env_specs(TorchRLEnv(ENV_ID, num_envs=3, max_steps=4))


def test_check_env_specs_dict_observations():
    env = TorchRLEnv(Corridor(length=4, max_steps=3), num_envs=4)
    assert set(env.observation_spec.keys()) == {"position", "action_mask"}
    check_env_specs(env)


def test_specs_are_converted_from_the_spaces():
    env = TorchRLEnv(ENV_ID, num_envs=2)
    assert set(env.observation_spec.keys()) == {"image", "direction", "mission"}
    obs = env.observation_spec["image"]
    assert isinstance(obs, Bounded) and obs.dtype == torch.uint8
    assert obs.shape == (2, 7, 7, 3) and int(obs.space.high[0, 0, 0, 0]) == 255
    assert isinstance(env.action_spec, Categorical) and env.action_spec.space.n == 7
    assert env.reward_spec.shape == (2, 1) and env.reward_spec.dtype == torch.float32
    assert set(env.full_done_spec.keys()) == {"done", "terminated", "truncated"}
    assert all(env.full_done_spec[k].shape == (2, 1) for k in ("done", "terminated", "truncated"))


def test_space_conversion_covers_every_space():
    space = Dict(
        {
            "mask": Box(False, True, (4,), jnp.bool_),
            "free": Box(-np.inf, np.inf, (2,), jnp.float32),
            "choice": Discrete(3),
            "nested": Dict({"x": Box(-1.0, 1.0, (), jnp.float32)}),
        }
    )
    spec = to_torchrl_spec(space, (5,))
    assert isinstance(spec, Composite) and spec.shape == (5,)
    assert isinstance(spec["mask"], Categorical) and spec["mask"].dtype == torch.bool
    assert isinstance(spec["free"], Unbounded) and spec["free"].shape == (5, 2)
    assert spec["choice"].space.n == 3 and spec["choice"].dtype == torch.int32
    assert float(spec["nested", "x"].space.low[0]) == -1.0
    with pytest.raises(TypeError, match="no TorchRL spec"):
        to_torchrl_spec(object())


def test_time_limit_truncates_without_terminating():
    env = TorchRLEnv(ENV_ID, num_envs=1, max_steps=3)
    env.reset()
    seen = [flags(step(env, LEFT)) for _ in range(3)]
    assert seen == [([False], [False]), ([False], [False]), ([False], [True])]


def test_goal_terminates_without_truncating():
    env = TorchRLEnv(ENV_ID, num_envs=1)
    env.reset()
    seen = [step(env, a) for a in TO_GOAL]
    assert [flags(td) for td in seen][-1] == ([True], [False])
    assert not any(td["done"].item() for td in seen[:-1])
    assert seen[-1]["done"].item() and seen[-1]["reward"].item() > 0


def test_goal_on_the_time_limit_step_is_a_termination():
    env = TorchRLEnv(ENV_ID, num_envs=1, max_steps=len(TO_GOAL))
    env.reset()
    last = [step(env, a) for a in TO_GOAL][-1]
    assert flags(last) == ([True], [False]), "termination wins"


def reference_episodes(max_steps, policies, num_steps):
    """The JAX environment driven by hand (reset after every end): per env, per step,
    (root observation, next observation, reward, terminated, truncated)."""
    fenv = functional(horizax.make(ENV_ID, max_steps=max_steps))
    reset, step_fn = jax.jit(fenv.reset), jax.jit(fenv.step)
    key = jax.random.PRNGKey(0)
    records = []
    for policy in policies:
        state, first = reset(key)
        obs, rows, t = np.asarray(first.observation["image"]), [], 0
        for _ in range(num_steps):
            state, out = step_fn(key, state, jnp.int32(policy(t)))
            next_obs = np.asarray(out.observation["image"])
            rows.append(
                (obs, next_obs, float(out.reward), bool(out.terminated), bool(out.truncated))
            )
            t += 1
            obs = next_obs
            if bool(out.done):
                state, first = reset(key)
                obs, t = np.asarray(first.observation["image"]), 0
        records.append(rows)
    return records


def test_rollout_crosses_episode_boundaries_keeping_terminated_and_truncated_apart():
    # env 0 walks to the goal (terminates every 5 steps), env 1 turns forever (truncates
    # every 7): 35 steps cross 7 terminations and 5 truncations, with TorchRL resetting them.
    env = TorchRLEnv(ENV_ID, num_envs=2, max_steps=7)
    calls = []

    def policy(td):
        calls.append(None)
        return td.set("action", torch.tensor([TO_GOAL[(len(calls) - 1) % 5], LEFT]))

    rollout = env.rollout(35, policy, break_when_any_done=False)
    terminated = rollout["next", "terminated"].squeeze(-1)
    truncated = rollout["next", "truncated"].squeeze(-1)
    assert terminated[0].nonzero().flatten().tolist() == [4, 9, 14, 19, 24, 29, 34]
    assert truncated[1].nonzero().flatten().tolist() == [6, 13, 20, 27, 34]
    assert not truncated[0].any() and not terminated[1].any(), "never mixed up"
    assert torch.equal(rollout["next", "done"].squeeze(-1), terminated | truncated)

    policies = [lambda t: TO_GOAL[t % 5], lambda t: LEFT]
    for i, rows in enumerate(reference_episodes(7, policies, 35)):
        for t, (obs, next_obs, reward, term, trunc) in enumerate(rows):
            where = f"env {i}, step {t}"
            np.testing.assert_array_equal(rollout["image"][i, t].numpy(), obs, where)
            np.testing.assert_array_equal(rollout["next", "image"][i, t].numpy(), next_obs)
            assert rollout["next", "reward"][i, t].item() == pytest.approx(reward), where
            assert (terminated[i, t].item(), truncated[i, t].item()) == (term, trunc), where


def test_partial_reset_resets_only_the_marked_envs():
    env = TorchRLEnv(ENV_ID, num_envs=3, max_steps=4)
    td = env.reset()
    start = td["image"][0].clone()
    for _ in range(3):
        td = step_mdp(env.step(td.set("action", torch.tensor([FORWARD] * 3))))
    moved = td["image"].clone()
    assert not torch.equal(moved[0], start)
    td["_reset"] = torch.tensor([[False], [True], [False]])
    td = env.reset(td)
    assert torch.equal(td["image"][1], start), "env 1 starts a new episode"
    assert torch.equal(td["image"][0], moved[0]) and torch.equal(td["image"][2], moved[2])
    after = step(env, LEFT, LEFT, LEFT)
    assert flags(after) == ([False] * 3, [True, False, True]), "only envs 0 and 2 hit t = 4"


def test_in_place_writes_to_returned_tensors_do_not_reach_the_jax_state():
    env = TorchRLEnv(ENV_ID, num_envs=2, max_steps=9)
    env.reset()
    out = step(env, FORWARD, FORWARD)
    expected = out["image"][0].clone()
    out["image"].zero_()  # TorchRL's partial-reset merge writes into returned tensors
    td = TensorDict({"_reset": torch.tensor([[False], [True]])}, [2])
    reset = env._reset(td)
    assert torch.equal(reset["image"][0], expected), "env 0 keeps its true observation"


def test_a_saved_state_resumes_the_same_trajectories(tmp_path):
    """N steps, save_state, load_state into a fresh env, M steps (TorchRL's step and partial
    reset): every step's outputs equal to N + M steps straight, across episode ends."""
    N, M = 3, 6
    rows = np.random.default_rng(6).integers(0, 3, (N + M, 3))

    def play(env, td, rows):
        outputs = []
        for row in rows:
            out, td = env.step_and_maybe_reset(td.set("action", torch.tensor(row)))
            outputs.append(out["next"].clone())
        return outputs, td

    def make():  # DoorKey: each episode's layout comes from its key, so keys must survive
        return TorchRLEnv("MiniGrid-DoorKey-5x5-v0", num_envs=3, seed=0, max_steps=4)

    straight = make()
    expected, _ = play(straight, straight.reset(), rows)
    saved = make()
    before, root = play(saved, saved.reset(), rows[:N])
    saved.save_state(tmp_path / "torchrl.ckpt")
    resumed = make()
    restored = resumed.load_state(tmp_path / "torchrl.ckpt")
    for key in ("image", "direction", "done", "terminated", "truncated"):
        assert torch.equal(restored[key], root[key]), f"load_state returns the root {key}"
    after, _ = play(resumed, restored, rows[N:])
    assert any(td["done"].any() for td in after), "an episode ends after the save"
    for t, (got, want) in enumerate(zip(before + after, expected, strict=True)):
        assert set(got.keys()) == set(want.keys())
        for key in want.keys():  # noqa: SIM118  iterating a TensorDict walks its batch
            assert torch.equal(got[key], want[key]), f"step {t}: {key}"


def test_save_state_needs_a_reset_and_load_state_the_same_batch(tmp_path):
    env = TorchRLEnv(ENV_ID, num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.save_state(tmp_path / "t.ckpt")
    env.reset()
    env.save_state(tmp_path / "t.ckpt")
    with pytest.raises(ValueError, match="num_envs=2; this TorchRLEnv has num_envs=3"):
        TorchRLEnv(ENV_ID, num_envs=3).load_state(tmp_path / "t.ckpt")
    with pytest.raises(ValueError, match="TorchRLEnv"):
        from horizax.adapters.gymnasium_vector import GymnasiumVectorEnv

        GymnasiumVectorEnv(ENV_ID, 2).load_state(tmp_path / "t.ckpt")


def test_transfers_use_dlpack_without_copies():
    x = jnp.arange(6, dtype=jnp.float32)
    assert _to_torch(x).data_ptr() == x.unsafe_buffer_pointer()


def test_horizax_done_matches_torchrl_on_rollout_steps():
    env = TorchRLEnv(ENV_ID, num_envs=3, max_steps=3)
    rollout = env.rollout(9, break_when_any_done=False)
    for t in range(9):
        ours, theirs = rollout["next"][:, t].clone(), rollout["next"][:, t].clone()
        assert terminated_or_truncated(ours, env.full_done_spec) == bool(
            torchrl_terminated_or_truncated(theirs, env.full_done_spec)
        )
        assert ours.get("_reset", None) is None or torch.equal(ours["_reset"], theirs["_reset"])


def test_same_seed_same_rollouts_and_set_seed_reseeds():
    def first_observations(**kw):
        env = TorchRLEnv("MiniGrid-Empty-Random-5x5-v0", num_envs=4, **kw)
        return env.reset()["image"]

    a, b, c = first_observations(seed=0), first_observations(seed=0), first_observations(seed=1)
    assert torch.equal(a, b) and not torch.equal(a, c)
    env = TorchRLEnv("MiniGrid-Empty-Random-5x5-v0", num_envs=4, seed=5)
    env.set_seed(1)
    assert torch.equal(env.reset()["image"], c)


def test_bad_actions_are_refused():
    env = TorchRLEnv(ENV_ID, num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="outside"):
        env.step(actions(0, 7))
    with pytest.raises(TypeError, match="integer"):
        env.step(TensorDict({"action": torch.tensor([0.0, 1.0])}, [2]))


def test_constructor_checks():
    with pytest.raises(ValueError, match="num_envs"):
        TorchRLEnv(ENV_ID, num_envs=0)
    with pytest.raises(TypeError, match="overrides"):
        TorchRLEnv(horizax.make(ENV_ID), max_steps=3)


def test_render_returns_a_frame():
    env = TorchRLEnv(ENV_ID, num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.render()
    env.reset()
    frame = env.render(1)
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


def test_missing_torchrl_raises_an_import_error_naming_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "torchrl" or m.startswith("torchrl.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "horizax.adapters.torchrl")
    with pytest.raises(ImportError, match=r"horizax\[torch\]"):
        importlib.import_module("horizax.adapters.torchrl")
