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
"""

from __future__ import annotations

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
from tests.grid import minigrid_bridge as bridge

pytestmark = [pytest.mark.reference, pytest.mark.slow]

IDS = [i for i in horizax.registered_ids() if i.startswith("BabyAI-")]
N_OURS = 1000
N_MINIGRID = 400
LENGTH_BINS = 8
HORIZON = 192  # steps played per episode at most (see the module docstring)
SUCCESS, FAILURE, TRUNCATED, CUT = 0, 1, 2, 3


def _no_layout(key: Any) -> Any:
    raise AssertionError("a step without autoreset drew a layout")


def _no_observation(state: Any) -> Any:
    return jnp.zeros((), jnp.uint8)


_STEP = jax.jit(
    lambda env, ts, actions: jax.vmap(env.step)(ts, actions),
    static_argnums=0,
    compiler_options=dist.BATCH_OPTIONS,
)


def _outcome(reward: np.ndarray, step_type: np.ndarray) -> np.ndarray:
    """i32[N]: SUCCESS, FAILURE or TRUNCATED of episodes that ended."""
    return np.where(
        reward > 0, SUCCESS, np.where(step_type == StepType.TERMINATION, FAILURE, TRUNCATED)
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
        outcome[ended] = _outcome(np.asarray(timestep.reward), step_type)[ended]
        length[ended] = t
        if (outcome >= 0).all():
            break
    assert horizon < env.max_steps or (outcome >= 0).all(), "an episode outlived its limit"
    length[outcome < 0] = horizon
    outcome[outcome < 0] = CUT
    return outcome, length


def minigrid_episodes(env_id: str, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Outcomes and lengths (i32[n] each) of MiniGrid's ``n`` random episodes of ``env_id``,
    cut at `HORIZON` steps."""
    mg = bridge.minigrid_env(env_id)
    # No observation is compared here, and MiniGrid's image is ~90% of its step's time.
    mg.gen_obs = lambda: None
    rng = np.random.default_rng(seed)
    outcome, length = np.zeros(n, np.int64), np.zeros(n, np.int64)
    for i in range(n):
        mg.reset(seed=seed + i)
        horizon = min(mg.max_steps, HORIZON)
        for t in range(1, horizon + 1):
            _, reward, terminated, truncated, _ = mg.step(int(rng.integers(mg.action_space.n)))
            if terminated or truncated:
                kind = StepType.TERMINATION if terminated else StepType.TRUNCATION
                outcome[i] = _outcome(np.asarray(reward), np.asarray(kind))
                length[i] = t
                break
        else:
            if horizon == mg.max_steps:
                raise AssertionError(f"MiniGrid's episode {i} outlived its time limit")
            outcome[i], length[i] = CUT, horizon
    return outcome, length


def _features(outcome: np.ndarray, length: np.ndarray, max_steps: int) -> dict[str, np.ndarray]:
    horizon = min(max_steps, HORIZON)
    bins = np.minimum((length - 1) * LENGTH_BINS // horizon, LENGTH_BINS - 1)
    return {"outcome": outcome, "length": bins, "outcome_and_length": outcome * LENGTH_BINS + bins}


@pytest.mark.parametrize("env_id", IDS)
def test_random_episodes_match_minigrids(env_id):
    env = horizax.make(env_id)
    ours = _features(*our_episodes(env, N_OURS), env.max_steps)
    theirs = _features(*minigrid_episodes(env_id, N_MINIGRID), env.max_steps)
    rates = [
        np.bincount(side["outcome"], minlength=4) / N
        for side, N in ((ours, N_OURS), (theirs, N_MINIGRID))
    ]
    for name in ours:
        _, _, p = dist.chi_square_homogeneity(ours[name], theirs[name])
        assert p >= dist.P_MIN, f"{env_id} {name}: p = {p:.2e}; outcome rates {rates}"
