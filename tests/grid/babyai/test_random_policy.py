"""Random-policy episodes of every BabyAI level against MiniGrid 3.2.0's, in distribution.

The lockstep tests copy MiniGrid's layout in and prove every step; the reset-distribution
tests prove the layouts. This proves the two together, as a user meets them: each side plays
uniform random actions from its own resets (horizax's from JAX keys, MiniGrid's from its
seeds) until the first episode ends, and each episode is reduced to its outcome (success:
terminated with a positive reward; failure: terminated with reward 0, a strict level's wrong
pickup; truncated: the time limit) and its length. Both features, and the two crossed, must
share one distribution across the sides (chi-square homogeneity at `distribution.P_MIN`).

Its power is what 400 MiniGrid episodes give (against 1,000 of horizax's): it catches a
missing or extra outcome (a non-strict level's sample against its strict twin fails,
PickupDist's and OpenDoor's, p underflowing to 0) and shifted lengths, not a success rate a
few points off (GoToRedBall's episodes against GoToRedBallNoDists' pass at p = 0.03). Those
finer differences are the lockstep and reset tests' to catch.

horizax's side steps without autoreset, so an episode's first end is read off its step
type; one vmapped step program serves every level whose environments differ only in their
layout, and it computes no observation (the outcome does not read one).

Both sides are cut at `HORIZON` steps: an episode still running then is its own outcome
(``CUT``), so the levels with limits of hundreds of steps (OneRoomS20, the door levels), where
a random policy mostly runs to the limit, cost a bounded number of steps. The limit itself
is proven where it is cheap: the configuration tests compare ``max_steps`` with MiniGrid's,
and the lockstep tests play deliberate failures to the truncation, step by step.

MiniGrid's side is recorded (`tests.grid.babyai.random_policy_reference`: its episode ``i``
is a function of ``i`` alone): playing it is about 5 minutes of MiniGrid's level generation
and verifier, 6% of the suite's time. `test_recorded_episodes_are_live_minigrids` replays
`reference.LIVE_EPISODES` of every level in live MiniGrid and requires the recorded outcome
and length exactly, and the recording's MiniGrid version must be the installed one.
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core.step_type import StepType
from horizax.grid.environment import Environment
from tests.grid import batched_reset
from tests.grid import distribution as dist
from tests.grid.babyai import random_policy_reference as reference
from tests.grid.babyai.random_policy_reference import (
    CUT,
    FAILURE,
    HORIZON,
    N_MINIGRID,
    SUCCESS,
    TRUNCATED,
)

pytestmark = [pytest.mark.reference, pytest.mark.slow]

IDS = [i for i in horizax.registered_ids() if i.startswith("BabyAI-")]
N_OURS = 1000
LENGTH_BINS = 8
RECORDED = reference.load()


def _no_layout(key: Any) -> Any:
    raise AssertionError("a step without autoreset drew a layout")


def _no_observation(state: Any) -> Any:
    return jnp.zeros((), jnp.uint8)


_STEP = jax.jit(
    lambda env, ts, actions: jax.vmap(env.step)(ts, actions),
    static_argnums=0,
    compiler_options=dist.BATCH_OPTIONS,
)


def our_episodes(env: Environment, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes and lengths (i32[n] each) of ``n`` random episodes of ``env``, cut at
    `HORIZON` steps."""
    env = env.disable_autoreset()
    keys = jax.random.split(jax.random.PRNGKey(seed), n)
    # The step never reads the layout, and no outcome reads an observation.
    shared = env.replace(layout_fn=_no_layout, env_id="", observation_fn=_no_observation)
    # The id's one compiled batched reset, shared with the golden layouts' test.
    timestep = batched_reset.reset(env, keys)
    rng = np.random.default_rng(seed)
    outcome, length = np.full(n, -1), np.zeros(n, np.int64)
    horizon = min(env.max_steps, HORIZON)
    for t in range(1, horizon + 1):
        actions = rng.integers(0, env.num_actions, n, dtype=np.int32)
        timestep = _STEP(shared, timestep, actions)
        step_type = np.asarray(timestep.step_type)
        ended = (outcome < 0) & (step_type != StepType.TRANSITION)
        outcome[ended] = reference.outcome_of(np.asarray(timestep.reward), step_type)[ended]
        length[ended] = t
        if (outcome >= 0).all():
            break
    assert horizon < env.max_steps or (outcome >= 0).all(), "an episode outlived its limit"
    length[outcome < 0] = horizon
    outcome[outcome < 0] = CUT
    return outcome, length


def _features(outcome: np.ndarray, length: np.ndarray, max_steps: int) -> dict[str, np.ndarray]:
    horizon = min(max_steps, HORIZON)
    bins = np.minimum((length - 1) * LENGTH_BINS // horizon, LENGTH_BINS - 1)
    return {"outcome": outcome, "length": bins, "outcome_and_length": outcome * LENGTH_BINS + bins}


@pytest.mark.parametrize("env_id", IDS)
def test_random_episodes_match_minigrids(env_id):
    env = horizax.make(env_id)
    ours = _features(*our_episodes(env, N_OURS), env.max_steps)
    theirs = _features(*reference.recorded(RECORDED, env_id), env.max_steps)
    rates = [
        np.bincount(side["outcome"], minlength=4) / N
        for side, N in ((ours, N_OURS), (theirs, N_MINIGRID))
    ]
    for name in ours:
        _, _, p = dist.chi_square_homogeneity(ours[name], theirs[name])
        assert p >= dist.P_MIN, f"{env_id} {name}: p = {p:.2e}; outcome rates {rates}"


def test_recording_is_of_these_levels_and_settings():
    assert list(RECORDED["ids"]) == IDS
    assert RECORDED["minigrid"] == importlib.metadata.version("minigrid")
    assert (RECORDED["n"], RECORDED["horizon"]) == (N_MINIGRID, HORIZON)
    assert RECORDED["action_seed"] == reference.ACTION_SEED
    for env_id in IDS:
        outcome, length = reference.recorded(RECORDED, env_id)
        assert outcome.shape == length.shape == (N_MINIGRID,), env_id
        assert np.isin(outcome, [SUCCESS, FAILURE, TRUNCATED, CUT]).all(), env_id
        assert ((length >= 1) & (length <= HORIZON)).all(), env_id
        assert (length[outcome == CUT] == HORIZON).all(), env_id


@pytest.mark.parametrize("env_id", IDS)
def test_recorded_episodes_are_live_minigrids(env_id):
    """Live MiniGrid replays `reference.LIVE_EPISODES` of the level exactly as recorded."""
    live = reference.minigrid_episodes(env_id, reference.LIVE_EPISODES)
    outcome, length = reference.recorded(RECORDED, env_id)
    index = list(reference.LIVE_EPISODES)
    np.testing.assert_array_equal(live[0], outcome[index], f"{env_id}: outcomes")
    np.testing.assert_array_equal(live[1], length[index], f"{env_id}: lengths")
