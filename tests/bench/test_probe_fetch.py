"""`benchmarks/probe_fetch.py`: the bare Fetch-8x8-N3 that bounds what the task costs.

The probe only bounds horizax's Fetch if it plays the same task: here it plays horizax's
episodes key for key, step by step (observation, reward, end of episode) and through the
benchmark harness (the same episode count and observation checksum), over more steps than
an episode's limit, so resets, autoresets, truncations and pickups, right and wrong, are all
compared.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import observations
from tests.bench.probes import (
    assert_plays_horizax_s_harness_rollout,
    hashed_resets,
    horizax_s_first_observations,
    load,
)


def test_the_probe_draws_horizax_s_first_observations():
    probe = load("probe_fetch")
    ours = horizax_s_first_observations(probe, 64)
    # Both kinds, every colour and every facing occur.
    kinds = np.asarray(ours[..., 0])
    assert {probe.KEY, probe.BALL} <= set(kinds.ravel().tolist())
    assert set(np.asarray(ours[..., 1])[kinds == probe.KEY].tolist()) == set(range(6))
    assert set(np.asarray(ours[..., 2])[kinds == 10].tolist()) == set(range(4))


def _steps(reset, step, observe, reward, done, keys, actions):
    """Per step of a vmapped scan: (observation, reward, done)."""

    def body(state, action):
        state = jax.vmap(step)(state, action)
        return state, (observe(state), reward(state), done(state))

    return jax.jit(lambda: jax.lax.scan(body, jax.vmap(reset)(keys), actions)[1])()


@pytest.mark.slow
def test_the_probe_plays_horizax_s_episodes_step_by_step():
    probe = load("probe_fetch")
    env = horizax.make(probe.ENV_ID, observation_fn=observations.symbolic)
    batch, steps = 16, 2 * probe.MAX_STEPS + 40  # every environment ends at least two episodes
    keys = jax.random.split(jax.random.key(3), batch)
    # Pickup twice as often as a uniform policy, so that right and wrong pickups both occur.
    actions = jax.random.choice(
        jax.random.key(4), jnp.array([0, 1, 2, 3, 3, 4, 5, 6]), (steps, batch)
    )
    ours = _steps(
        env.reset, env.step, lambda s: s.observation, lambda s: s.reward, lambda s: s.is_done(),
        keys, actions,
    )  # fmt: skip
    theirs = _steps(
        probe.probe_reset, probe.probe_step, lambda s: s.observation, lambda s: s.reward,
        lambda s: s.done, keys, actions,
    )  # fmt: skip
    np.testing.assert_array_equal(np.asarray(theirs[0]), np.asarray(ours[0]))
    np.testing.assert_allclose(np.asarray(theirs[1]), np.asarray(ours[1]), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(theirs[2]), np.asarray(ours[2]))
    rewards, done = np.asarray(ours[1]), np.asarray(ours[2])
    assert (rewards > 0).sum() >= 5, "too few right pickups"
    assert (done & (rewards == 0)).sum() >= 5, "too few wrong pickups and truncations"


@pytest.mark.slow
def test_the_probe_plays_horizax_s_harness_rollout():
    probe = load("probe_fetch")
    assert_plays_horizax_s_harness_rollout(probe, 8, 2 * probe.MAX_STEPS)


def test_the_hashed_probe_draws_other_layouts_of_the_same_task():
    probe = load("probe_fetch")
    hashed = hashed_resets(probe, 256)
    # Every interior cell for the agent and the objects, every kind, colour, facing and target.
    interior = {(x, y) for x in range(1, 7) for y in range(1, 7)}
    assert set(map(tuple, np.asarray(hashed.pos).tolist())) == interior
    assert set(map(tuple, np.asarray(hashed.cells).reshape(-1, 2).tolist())) == interior
    assert set(np.asarray(hashed.kinds).ravel().tolist()) == {probe.KEY, probe.BALL}
    assert set(np.asarray(hashed.colours).ravel().tolist()) == set(range(6))
    assert set(np.asarray(hashed.direction).tolist()) == set(range(4))
    assert set(np.asarray(hashed.target).tolist()) == set(range(3))
    # The objects and the agent never share a cell.
    cells = np.concatenate([np.asarray(hashed.cells), np.asarray(hashed.pos)[:, None]], axis=1)
    assert all(len(set(map(tuple, c.tolist()))) == 4 for c in cells)
