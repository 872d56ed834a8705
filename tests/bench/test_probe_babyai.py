"""`benchmarks/probe_babyai.py`: the bare GoToLocal that bounds what this harness can reach.

The probe only bounds horizax's speed if it does the observation's real work: its view must
be MiniGrid's egocentric image with occlusion, which horizax's GoToLocal is proven to equal
(`tests/grid/test_minigrid_view.py`, the BabyAI lockstep tests).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from tests.bench.probes import load


def _probe():
    return load("probe_babyai")


def test_the_probe_sees_what_horizax_shows():
    probe = _probe()
    env = horizax.make("BabyAI-GoToLocal-v0")
    ts = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 128))
    step = jax.jit(jax.vmap(env.step))
    observe = jax.jit(jax.vmap(probe._observe))
    compared = 0
    for t in range(40):
        # Turns and moves only: nothing is carried, so the agent's own cell shows empty.
        ts = step(ts, jax.random.randint(jax.random.PRNGKey(t), (128,), 0, 3))
        state = ts.state
        ours = observe(state.grid, state.agent_pos, state.agent_dir)
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(ts.observation))
        compared += 128
    assert compared == 40 * 128


def test_the_probe_plays_goto_episodes():
    probe = _probe()
    state = probe.probe_reset(jax.random.PRNGKey(3))
    assert state.observation.shape == (7, 7, 3) and state.observation.dtype == jnp.uint8
    kinds = np.asarray(state.grid[1:-1, 1:-1, 0])
    assert (np.isin(kinds, (1, *probe.KINDS))).all()  # empty or an object inside the walls
    assert tuple(np.asarray(state.target)) in {
        (int(k), int(c)) for k, c in np.asarray(state.grid[1:-1, 1:-1, :2]).reshape(-1, 2)
    }
    step = jax.jit(probe.probe_step)
    ended = 0
    for t in range(300):
        state = step(state, jnp.int32(t % 3))
        ended += int(state.done)
        assert not state.done or state.t <= probe.MAX_STEPS
    assert ended >= 300 // (probe.MAX_STEPS + 1)  # truncation at the latest
