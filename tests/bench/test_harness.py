"""`horizax.bench.harness`: the rollout shape every library is measured through, and its
records (the benchmark scripts and ``horizax bench`` share it)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from horizax.bench import harness
from horizax.bench.gridworld import horizax_make_rollout


def test_the_checksum_sums_every_leaf_as_int32():
    tree = {"a": jnp.full((2, 2), 3, jnp.uint8), "b": (jnp.asarray([True, False]),)}
    assert int(harness.observation_checksum(tree)) == 13


def test_a_scan_rollout_counts_episodes_and_is_deterministic():
    rollout, key = horizax_make_rollout("MiniGrid-Empty-5x5-v0", "symbolic")(4, 300)
    episodes, checksum = jax.jit(rollout)(key)
    again = jax.jit(rollout)(key)
    assert int(episodes) >= 4 * 3  # 100-step limit: every environment ended at least 3 times
    assert (int(episodes), int(checksum)) == tuple(int(x) for x in again)
    assert rollout.state_bytes_per_env > 0


def test_measure_records_and_the_table():
    make = horizax_make_rollout("MiniGrid-Empty-5x5-v0", "symbolic")
    records = harness.measure("horizax", make, [2], 5, env="Empty-5x5", obs="symbolic", repeats=1)
    (record,) = records
    assert (record["library"], record["B"], record["T"]) == ("horizax", 2, 5)
    assert record["steps_per_s"] > 0 and record["compile_s"] > 0 and record["peak_bytes"] > 0
    assert record["machine"]["jax_backend"] == jax.default_backend()
    table = harness.format_table(records)
    assert table.splitlines()[0].startswith("| library | env | obs | B | T |")
    assert "| horizax | Empty-5x5 | symbolic | 2 | 5 |" in table


def test_time_rollout_keeps_the_compiled_program_when_asked():
    rollout, key = horizax_make_rollout("MiniGrid-Empty-5x5-v0", "symbolic")(2, 4)
    timing = harness.time_rollout(rollout, key, repeats=2, keep_compiled=True)
    assert len(timing["times_s"]) == 2 and timing["best_s"] == min(timing["times_s"])
    episodes, checksum = timing["compiled"](key)
    assert (int(episodes), int(checksum)) == (timing["episodes"], timing["checksum"])
    assert np.isfinite(timing["compile_s"])
