"""docs/architecture.md's worked example runs as written, and its toy family behaves."""

import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.core import episode as engine
from horizax.core.protocol import FunctionalEnv, functional
from tests.markdown import python_blocks

PAGE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def _run(blocks, namespace):
    for number, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/architecture.md python block {number}", "exec"), namespace)
        except Exception as error:  # pragma: no cover - the message is the point
            raise AssertionError(
                f"docs/architecture.md python block {number} fails:\n{block}"
            ) from error
    return namespace


BLOCKS = python_blocks(PAGE.read_text(encoding="utf-8"))
# The adapter block needs the gymnasium extra; the family and engine blocks need only horizax.
ADAPTER_BLOCKS = [b for b in BLOCKS if "horizax.adapters" in b]
CORE_BLOCKS = [b for b in BLOCKS if "horizax.adapters" not in b]


@pytest.fixture(scope="module")
def page():
    """The names the page's family and engine blocks define, run in order."""
    return _run(CORE_BLOCKS, {})


def _walk(env, actions):
    """The protocol `Step`s of one episode from cell 0 under ``actions`` (no reset)."""
    state, _ = env.reset(jax.random.PRNGKey(0))
    steps = []
    for action in actions:
        state, step = env.step(jax.random.PRNGKey(1), state, jnp.int32(action))
        steps.append(step)
    return steps


def test_page_has_the_family_engine_and_adapter_examples():
    assert len(CORE_BLOCKS) >= 2, "expected the family block and the engine block"
    assert ADAPTER_BLOCKS, "expected a block driving the family through an adapter"


def test_the_family_is_a_protocol_view(page):
    env = page["Corridor"]()
    assert isinstance(env, FunctionalEnv), "the toy must satisfy the FunctionalEnv protocol"
    assert functional(env) is env, "functional() must hand a protocol object back unchanged"


def test_walking_right_terminates_at_the_end_with_reward_one(page):
    env = page["Corridor"](length=5, max_steps=8)
    steps = _walk(env, [1] * 4)
    last = steps[-1]
    assert int(last.observation) == 4, "four steps right from cell 0 reach the last cell"
    assert bool(last.terminated) and not bool(last.truncated), "the end is absorbing"
    assert float(last.reward) == 1.0, "reaching the end pays 1"
    for step in steps[:-1]:
        assert not bool(step.done) and float(step.reward) == 0.0, "only the end pays or ends"


def test_the_time_limit_truncates_without_terminating(page):
    env = page["Corridor"](length=5, max_steps=8)
    steps = _walk(env, [0] * 8)
    assert [bool(s.truncated) for s in steps] == [False] * 7 + [True], "truncate at step 8"
    assert not any(bool(s.terminated) for s in steps), "a time limit never terminates"
    assert all(float(s.reward) == 0.0 for s in steps), "no reward away from the end"


def test_termination_wins_on_the_time_limit_step(page):
    env = page["Corridor"](length=5, max_steps=4)
    last = _walk(env, [1] * 4)[-1]
    assert bool(last.terminated), "the end reached on the limit step terminates"
    assert not bool(last.truncated), "termination wins: truncated must be False with it"


def test_next_step_autoreset_starts_a_new_episode_after_a_done_step(page):
    env = page["Corridor"](length=3, max_steps=8)
    step_fn = jax.jit(engine.autoreset_step(env, engine.AutoresetMode.NEXT_STEP))
    episode, _ = engine.start_episode(env, engine.seed_key(0))
    for _ in range(2):
        episode, step, _ = step_fn(episode, jnp.int32(1))
    assert bool(step.terminated) and bool(episode.done), "two steps right end a 3-cell walk"
    episode, step, _ = step_fn(episode, jnp.int32(1))
    assert int(step.observation) == 0, "the step after a done step is the next episode's first"
    assert float(step.reward) == 0.0 and not bool(step.done), "a first step pays 0, ends nothing"
    assert int(episode.t) == 0 and not bool(episode.done), "the new episode has taken no step"
    episode, step, _ = step_fn(episode, jnp.int32(1))
    assert int(step.observation) == 1 and int(episode.t) == 1, "the new episode then plays on"


def test_the_pages_jitted_vmapped_scan_restarts_every_environment(page):
    steps, episodes = page["steps"], page["episodes"]
    expected = np.array([1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2])
    np.testing.assert_array_equal(
        np.asarray(steps.observation), np.tile(expected[:, None], (1, 4)), "the page's rollout"
    )
    ends = np.zeros(12, bool)
    ends[[3, 8]] = True
    np.testing.assert_array_equal(np.asarray(steps.terminated), np.tile(ends[:, None], (1, 4)))
    np.testing.assert_array_equal(np.asarray(steps.reward), np.tile(ends[:, None], (1, 4)))
    assert not np.asarray(steps.truncated).any(), "no episode of the page's rollout times out"
    np.testing.assert_array_equal(np.asarray(episodes.t), [2] * 4, "two steps into episode 3")


def test_the_adapter_block_runs_and_reports_the_episode_end(page):
    pytest.importorskip("gymnasium")
    namespace = _run(ADAPTER_BLOCKS, dict(page))
    assert namespace["obs"].tolist() == [4], "a scalar Box is shape (1,) in Gymnasium"
    assert namespace["reward"] == 1.0, "the end pays 1 in gym"
    assert namespace["terminated"] is True and namespace["truncated"] is False
    gym_env = namespace["gym_env"]
    gym_env.reset(seed=1)
    flags = [gym_env.step(0)[2:4] for _ in range(8)]
    assert flags == [(False, False)] * 7 + [(False, True)], "Gymnasium sees the truncation"
    assert gym_env.render().shape == (1, 5, 3), "render is the family's u8[H, W, 3] frame"
