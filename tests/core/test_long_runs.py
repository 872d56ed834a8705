"""Long runs through the episode engine: millions of steps, one trace, flat memory, fresh keys.

What a training job that runs for days relies on and a short test never sees:

* the jitted chunk of steps is traced and compiled once, however many times it is called;
* resident memory does not grow with the number of steps (nothing accumulates on the host
  or in JAX's caches);
* the counters cannot overflow: an episode's step count restarts at every episode and never
  passes ``max_steps``; the next-episode key is a wrapping uint32 add (no counter at all);
* episode keys never repeat in the range a run reaches. Each environment's episode keys are
  ``k_i + n * c`` in the last key word (``c`` odd, `horizax.core.episode_keys`), so one
  environment repeats a key only after ``2**32`` episodes; two environments of a batch
  seeded ``seed + i`` (`horizax.core.episode.seed_keys`) share a key only when their episode
  counts differ by ``(i - j) / c mod 2**32``, which `min_episode_gap` computes exactly;
* the batch's statistics after a million steps match a fresh run's (no drift from stale
  bookkeeping).
"""

from __future__ import annotations

import resource
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core import episode as engine
from horizax.core import episode_keys
from horizax.core.protocol import functional

pytestmark = pytest.mark.slow

ENV_ID = "MiniGrid-Empty-5x5-v0"  # max_steps 100; a random walk ends about a third by success
BATCH, CHUNK = 1024, 100  # a chunk: 102,400 steps
LONG_CHUNKS = 100  # 10,240,000 steps, about 6 s on a 2-core CPU
U32 = 2**32
STRIDE = episode_keys._EPISODE_STRIDE


def min_episode_gap(batch_size: int) -> int:
    """Smallest difference of episode counts at which two of ``batch_size`` environments,
    seeded ``seed + i``, draw the same episode key.

    Environment ``i``'s ``n``-th key has last word ``seed + i + n * c`` (mod ``2**32``), so
    ``(i, n)`` and ``(j, m)`` collide exactly when ``m - n = (i - j) * c^-1`` (mod ``2**32``).
    """
    inverse = pow(STRIDE, -1, U32)
    gaps = (np.arange(1, batch_size, dtype=np.uint64) * np.uint64(inverse)) % np.uint64(U32)
    gaps = gaps.astype(np.int64)
    return int(np.minimum(gaps, U32 - gaps).min())


def resident_bytes() -> int:
    """Current resident set size (Linux ``/proc``), else the peak from `resource`."""
    statm = Path("/proc/self/statm")
    if statm.exists():
        return int(statm.read_text().split()[1]) * resource.getpagesize()
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def make_chunk(fenv, traces: list[int]):
    """A jitted ``(episodes, key) -> (episodes, totals, max_t)`` running ``CHUNK`` batched
    steps with random actions: ``totals`` is i32[3], the episodes ended, won (terminated:
    Empty's goal) and their summed lengths; ``max_t`` the largest step count seen."""
    step = engine.autoreset_step(fenv, engine.AutoresetMode.NEXT_STEP)

    def chunk(episodes, key):
        traces.append(1)  # runs at trace time only

        def body(episodes, action):
            episodes, out, _ = jax.vmap(step)(episodes, action)
            ended = out.terminated | out.truncated
            # Under NEXT_STEP the ending step keeps the episode's step count (the reset is
            # on the step after), so t is the finished episode's length.
            stats = jnp.stack(
                [ended.sum(), out.terminated.sum(), jnp.where(ended, episodes.t, 0).sum()]
            )
            return episodes, (stats, jnp.max(episodes.t))

        actions = jax.random.randint(key, (CHUNK, BATCH), 0, fenv.action_space.n)
        episodes, (stats, max_t) = jax.lax.scan(body, episodes, actions)
        return episodes, stats.sum(axis=0), max_t.max()

    return jax.jit(chunk)


def run(seed: int, chunks: int):
    fenv = functional(horizax.make(ENV_ID))
    traces: list[int] = []
    chunk = make_chunk(fenv, traces)
    keys = engine.seed_keys(seed, BATCH)
    episodes, _ = jax.jit(engine.start_episodes, static_argnums=0)(fenv, keys)
    action_key = jax.random.PRNGKey(seed)
    per_chunk, rss, max_t = [], [], 0
    for _ in range(chunks):
        action_key, sub = jax.random.split(action_key)
        episodes, totals, chunk_max_t = chunk(episodes, sub)
        per_chunk.append(np.asarray(totals))
        max_t = max(max_t, int(chunk_max_t))
        rss.append(resident_bytes())
    return fenv, keys, episodes, np.stack(per_chunk), rss, max_t, traces


def test_ten_million_steps_trace_once_keep_memory_flat_and_keys_on_their_chain():
    fenv, keys, episodes, per_chunk, rss, max_t, traces = run(seed=3, chunks=LONG_CHUNKS)
    assert BATCH * CHUNK * LONG_CHUNKS >= 10**7
    assert len(traces) == 1, "the chunk was traced again"
    # Memory: the first million steps warm the allocator up (measured: 312 -> 323 MiB), then
    # it stays flat, but for a rare step of the allocator (measured on another VM: one rise
    # of 4.9 MiB, in two adjacent chunks, over nine million steps). A leak grows with the
    # steps: even 1 byte a step is 0.1 MiB in every chunk. So after warm-up, memory may rise
    # in a few chunks only, and by a bounded amount.
    mib = [round(r / 2**20, 1) for r in rss]
    assert rss[-1] - rss[0] < 32 * 2**20, f"resident memory grew: {mib}"
    rises = np.diff(np.asarray(rss[10:], np.int64))
    assert (rises > 64 * 2**10).sum() <= 5, f"resident memory grew chunk after chunk: {mib}"
    assert max(rss[10:]) - rss[10] < 12 * 2**20, f"resident memory grew after warm-up: {mib}"
    # Counters: an episode's step count restarts with every episode.
    assert 0 < max_t <= fenv.max_steps
    # Keys: every environment's key is its first key advanced once per finished episode.
    # The first step of the run resets nothing, so the keys moved exactly as episodes ended.
    first = np.asarray(keys, np.uint64)[:, -1]
    last = np.asarray(episodes.key, np.uint64)[:, -1]
    advanced = ((last - first) % U32 * np.uint64(pow(STRIDE, -1, U32))) % U32
    total_episodes = int(per_chunk[:, 0].sum())
    # Under NEXT_STEP an episode ending on the last step has not reset yet.
    pending = int(np.asarray(episodes.done).sum())
    assert int(advanced.sum()) == total_episodes - pending
    assert np.asarray(episodes.key)[:, 0].tolist() == np.asarray(keys)[:, 0].tolist()
    # So no two (environment, episode) pairs of this run shared a key: the counts stay far
    # below the gap at which two environments' chains meet (and below 2**32 for one).
    assert int(advanced.max()) - int(advanced.min()) < min_episode_gap(BATCH)


def test_the_key_chains_of_a_batch_are_far_apart():
    # Exact: the episode counts two environments must drift apart by before sharing a key.
    assert min_episode_gap(1024) == 732_539
    assert min_episode_gap(8192) == 328_757
    assert min_episode_gap(65536) == 28_657
    # The engine's rule is the chain the formula assumes: one episode adds c to the last word.
    key = jnp.asarray(engine.seed_key(5))
    for _ in range(3):
        advanced = episode_keys.next_episode_key(key)
        assert int(advanced[0]) == int(key[0])
        assert int(advanced[1]) == (int(key[1]) + STRIDE) % U32
        key = advanced
    # And at the gap, environment j + d at episode n has environment j's key of episode n + gap.
    inverse = pow(STRIDE, -1, U32)
    for d in (1, 2, 227, 1000):
        gap = d * inverse % U32
        assert (d - gap * STRIDE) % U32 == 0


def test_statistics_after_a_million_steps_match_a_fresh_run():
    # 12 chunks: 1,228,800 steps.
    *_, late, _, _, _ = run(seed=11, chunks=12)
    *_, fresh, _, _, _ = run(seed=12, chunks=4)
    # Past the synchronised start (the first chunk), compare episode success rate and
    # mean length of the long run's last chunks with a fresh run's chunks 2-4.
    (ends_a, wins_a, length_a), (ends_b, wins_b, length_b) = late[-3:].sum(0), fresh[1:].sum(0)
    p_a, p_b = wins_a / ends_a, wins_b / ends_b
    pooled = (wins_a + wins_b) / (ends_a + ends_b)
    se = np.sqrt(pooled * (1 - pooled) * (1 / ends_a + 1 / ends_b))
    assert abs(p_a - p_b) < 5 * se, (p_a, p_b, se)
    mean_a, mean_b = length_a / ends_a, length_b / ends_b
    assert abs(mean_a - mean_b) / mean_b < 0.05, (mean_a, mean_b)
