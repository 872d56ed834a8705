"""`benchmarks/probe_memory.py`: the bare MemoryS13 that bounds what the task costs.

The probe only bounds horizax's MemoryS13 if it plays the same task: here it plays
horizax's episodes key for key through the benchmark harness (the same episode count and
observation checksum), over more steps than an episode's limit, so resets, autoresets,
truncations and the random walk's terminations are all compared.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.bench.probes import (
    assert_plays_horizax_s_harness_rollout,
    hashed_resets,
    horizax_s_first_observations,
    load,
)


def test_the_probe_draws_horizax_s_first_observations():
    probe = load("probe_memory")
    ours = horizax_s_first_observations(probe, 64)
    # Both kinds in the start room and both orders at the corridor's ends occur.
    kinds = np.asarray(ours[:, 1, probe.MID - 1, 0]), np.asarray(ours[:, probe.END_X, 4, 0])
    assert all(set(k.tolist()) == {probe.KEY, probe.BALL} for k in kinds)


@pytest.mark.slow
def test_the_probe_plays_horizax_s_episodes():
    probe = load("probe_memory")
    # Every environment ends at least one episode.
    assert_plays_horizax_s_harness_rollout(probe, 8, 2 * probe.MAX_STEPS)


def test_the_hashed_probe_draws_other_layouts_of_the_same_task():
    probe = load("probe_memory")
    hashed = hashed_resets(probe, 256)
    # Every start column and both object kinds, as the cipher's draws give.
    assert set(np.asarray(hashed.pos[:, 0]).tolist()) == set(range(1, probe.HALLWAY_END + 1))
    assert set(np.asarray(hashed.start_kind).tolist()) == {probe.KEY, probe.BALL}
    assert set(np.asarray(hashed.top_kind).tolist()) == {probe.KEY, probe.BALL}
