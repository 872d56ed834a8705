"""Library-agnostic throughput harness for JAX grid-world environments.

Every library is measured through the same shape of program: ONE jitted
function ``rollout(key)`` that

1. resets ``B`` environments with ``jax.vmap``,
2. samples all ``T x B`` uniform random actions up front (inside the jitted
   function),
3. runs ``jax.lax.scan`` over ``T`` steps of the vmapped step function, with the
   library's own autoreset switched on, and
4. returns the number of finished episodes and an ``int32`` reduction of every
   step's observation. The reduction keeps XLA from dead-code-eliminating the
   observation computation; it is a checksum, it wraps around on overflow.

``measure`` times such a function: compile time separately (``lower`` +
``compile`` wall time), one warm-up call, then the best of ``repeats`` timed
calls. Throughput is ``B * T / best_time`` environment steps per second.

This module imports nothing but the standard library, ``numpy`` and ``jax`` at
top level, so the same file can be used from every library's virtualenv. A
library adapter only has to provide a ``make_rollout(B, T) -> (rollout_fn,
key)`` callable; :func:`make_scan_rollout` builds a conforming ``rollout_fn``
from single-environment ``reset``/``step`` functions.
"""

from __future__ import annotations

import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

StateT = TypeVar("StateT")

RolloutFn = Callable[[jax.Array], tuple[jax.Array, jax.Array]]
"""``rollout(key) -> (num_finished_episodes, observation_checksum)``."""

MakeRollout = Callable[[int, int], tuple[RolloutFn, jax.Array]]
"""``make_rollout(B, T) -> (rollout_fn, key)``; ``rollout_fn`` is NOT yet jitted."""


def observation_checksum(observation: Any) -> jax.Array:
    """i32[]: every leaf of ``observation`` summed as int32 (wrapping around on overflow)."""
    total = jnp.int32(0)
    for leaf in jax.tree_util.tree_leaves(observation):
        total = total + jnp.asarray(leaf).astype(jnp.int32).sum()
    return total


def make_scan_rollout(
    reset: Callable[[jax.Array], StateT],
    step: Callable[[StateT, jax.Array], StateT],
    observe: Callable[[StateT], Any],
    is_done: Callable[[StateT], jax.Array],
    num_actions: int,
    batch_size: int,
    num_steps: int,
) -> RolloutFn:
    """Builds the standard benchmark rollout from single-environment functions.

    Args:
        reset: ``key -> state`` for ONE environment.
        step: ``(state, action) -> state`` for ONE environment, with the library's
            autoreset already applied (whatever its semantics).
        observe: ``state -> observation`` pytree of integer or float arrays.
        is_done: ``state -> bool[]``, true on the step that ended an episode.
        num_actions: actions are sampled uniformly from ``[0, num_actions)``.
        batch_size: number of environments ``B`` (vmapped).
        num_steps: number of scan steps ``T``.

    Returns:
        An un-jitted ``rollout(key) -> (episodes, checksum)`` function. Both
        outputs are ``int32`` scalars; ``checksum`` sums every step's
        observation (not the reset observation) and wraps around on overflow.
    """
    batch_reset = jax.vmap(reset)
    batch_step = jax.vmap(step)

    def obs_sum(state: StateT) -> jax.Array:
        return observation_checksum(observe(state))

    def rollout(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        reset_key, action_key = jax.random.split(key)
        state = batch_reset(jax.random.split(reset_key, batch_size))
        actions = jax.random.randint(
            action_key, (num_steps, batch_size), 0, num_actions, dtype=jnp.int32
        )

        def body(
            carry: tuple[StateT, jax.Array, jax.Array], action: jax.Array
        ) -> tuple[tuple[StateT, jax.Array, jax.Array], None]:
            state, episodes, checksum = carry
            state = batch_step(state, action)
            episodes = episodes + is_done(state).sum(dtype=jnp.int32)
            checksum = checksum + obs_sum(state)
            return (state, episodes, checksum), None

        init = (state, jnp.int32(0), jnp.int32(0))
        (_, episodes, checksum), _ = jax.lax.scan(body, init, actions)
        return episodes, checksum

    rollout.state_bytes_per_env = state_bytes(reset)  # type: ignore[attr-defined]
    return rollout


def state_bytes(reset: Callable[[jax.Array], Any]) -> int:
    """Bytes of what one environment carries from step to step: the leaves of ``reset``'s
    output (state and, where the library keeps it there, observation and timestep), by
    `jax.eval_shape` (nothing is computed)."""
    shapes = jax.eval_shape(reset, jax.random.PRNGKey(0))
    return sum(leaf.size * leaf.dtype.itemsize for leaf in jax.tree_util.tree_leaves(shapes))


def machine_info() -> dict[str, Any]:
    """Describes the host: uname, processor, CPU model and count, JAX backend.

    Returns:
        A JSON-serialisable dict.
    """
    uname = platform.uname()
    cpu_model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        affinity = os.cpu_count() or 0
    return {
        "system": uname.system,
        "release": uname.release,
        "machine": uname.machine,
        "processor": platform.processor() or uname.machine,
        "cpu_model": cpu_model,
        "cpu_count": os.cpu_count(),
        "cpu_affinity": affinity,
        "python": platform.python_version(),
        "jax_backend": jax.default_backend(),
        "jax_devices": [str(d) for d in jax.devices()],
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
    }


def _cpu_seconds() -> float:
    """Returns user + system CPU seconds used so far by this process (all threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load_average() -> float | None:
    """Returns the 1-minute system load average, or ``None`` where unsupported."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def wait_for_idle(max_load: float, max_wait_s: float, poll_s: float = 5.0) -> float:
    """Sleeps until the 1-minute load average drops below ``max_load``.

    Benchmarks on a shared machine are only comparable when nothing else is
    running; this gives other jobs a chance to finish first.

    Args:
        max_load: target 1-minute load average.
        max_wait_s: give up (and return) after this many seconds.
        poll_s: seconds between checks.

    Returns:
        Seconds spent waiting.
    """
    start = time.monotonic()
    while time.monotonic() - start < max_wait_s:
        load = load_average()
        if load is None or load < max_load:
            break
        time.sleep(poll_s)
    return time.monotonic() - start


def _max_rss_bytes() -> int:
    """Returns this process's peak resident set size in bytes."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports KiB, macOS reports bytes.
    return int(rss) if sys.platform == "darwin" else int(rss) * 1024


def _memory_analysis(compiled: Any) -> dict[str, int] | None:
    """Extracts XLA's static memory analysis of a compiled executable.

    Args:
        compiled: a ``jax.stages.Compiled``.

    Returns:
        ``{"temp": ..., "argument": ..., "output": ..., "alias": ...,
        "generated_code": ...}`` in bytes, or ``None`` when the backend does not
        provide it.
    """
    try:
        stats = compiled.memory_analysis()
    except Exception:  # backend-specific; absent on some platforms
        return None
    if stats is None:
        return None
    fields = {
        "temp": "temp_size_in_bytes",
        "argument": "argument_size_in_bytes",
        "output": "output_size_in_bytes",
        "alias": "alias_size_in_bytes",
        "generated_code": "generated_code_size_in_bytes",
    }
    out = {name: int(getattr(stats, attr, 0) or 0) for name, attr in fields.items()}
    return out


def time_rollout(
    rollout_fn: RolloutFn, key: jax.Array, repeats: int = 3, keep_compiled: bool = False
) -> dict[str, Any]:
    """Compiles and times one rollout function.

    Args:
        rollout_fn: un-jitted ``rollout(key)``.
        key: the PRNG key passed to every call.
        repeats: number of timed calls after the warm-up call; the best is kept.
        keep_compiled: also return the executable under ``"compiled"`` (not JSON-able), so a
            caller can time it again without compiling twice.

    Returns:
        Dict with ``lower_s`` (trace + lower), ``xla_compile_s``, ``compile_s``
        (their sum), ``times_s`` (every timed call), ``best_s``, ``warmup_s``,
        ``cpu_s`` (process CPU seconds of every timed call, all threads),
        ``best_cpu_s`` (CPU seconds of the fastest call), ``load_avg_1m``
        (system load before/after the timed calls), ``episodes`` and
        ``checksum`` (outputs of the last call), ``memory`` (XLA memory
        analysis or ``None``) and ``rss_delta_bytes`` (growth of max RSS from
        before tracing to the end, so it includes compiler memory).
    """
    rss_before = _max_rss_bytes()
    t0 = time.perf_counter()
    lowered = jax.jit(rollout_fn).lower(key)
    t1 = time.perf_counter()
    compiled = lowered.compile()
    t2 = time.perf_counter()

    t3 = time.perf_counter()
    out = jax.block_until_ready(compiled(key))
    warmup_s = time.perf_counter() - t3

    times, cpu_times = [], []
    load_before = load_average()
    for _ in range(repeats):
        cpu_start = _cpu_seconds()
        start = time.perf_counter()
        out = jax.block_until_ready(compiled(key))
        times.append(time.perf_counter() - start)
        cpu_times.append(_cpu_seconds() - cpu_start)
    best = min(range(repeats), key=times.__getitem__)

    episodes, checksum = (int(np.asarray(x)) for x in out)
    result = {
        "lower_s": t1 - t0,
        "xla_compile_s": t2 - t1,
        "compile_s": t2 - t0,
        "warmup_s": warmup_s,
        "times_s": times,
        "best_s": times[best],
        "cpu_s": cpu_times,
        "best_cpu_s": cpu_times[best],
        "load_avg_1m": [load_before, load_average()],
        "episodes": episodes,
        "checksum": checksum,
        "memory": _memory_analysis(compiled),
        "state_bytes_per_env": getattr(rollout_fn, "state_bytes_per_env", None),
        "rss_delta_bytes": max(0, _max_rss_bytes() - rss_before),
    }
    if keep_compiled:
        result["compiled"] = compiled
    return result


def measure(
    name: str,
    make_rollout_fn: MakeRollout,
    batch_sizes: Sequence[int],
    T: int,
    *,
    env: str = "",
    obs: str = "",
    steps_for_batch: Mapping[int, int] | None = None,
    repeats: int = 3,
    extra: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Measures rollout throughput for several batch sizes.

    Args:
        name: library name recorded as ``library``.
        make_rollout_fn: ``make_rollout(B, T) -> (rollout_fn, key)``.
        batch_sizes: the ``B`` values to measure, in order.
        T: scan length (steps per environment per rollout).
        env: environment id recorded as ``env``.
        obs: observation description recorded as ``obs``.
        steps_for_batch: optional per-batch-size override of ``T`` (e.g. a
            shorter rollout for the largest batch); the ``T`` actually used is
            recorded.
        repeats: timed calls per configuration (best is reported).
        extra: additional fields copied into every record.

    Returns:
        One dict per batch size with fields ``library, env, obs, B, T,
        steps_per_s, compile_s, peak_bytes, peak_bytes_source, jax_version,
        machine`` plus ``steps_per_cpu_s`` (throughput per CPU-second of the
        fastest call, less sensitive to other load on a shared machine) and
        timing details (see :func:`time_rollout`).
        ``peak_bytes`` is XLA's ``temp + argument + output`` bytes of the
        compiled rollout when available, otherwise the growth of the process's
        max RSS during the measurement.
    """
    machine = machine_info()
    results = []
    for B in batch_sizes:
        steps = T if steps_for_batch is None else steps_for_batch.get(B, T)
        jax.clear_caches()
        rollout_fn, key = make_rollout_fn(B, steps)
        timing = time_rollout(rollout_fn, key, repeats=repeats)
        memory = timing["memory"]
        if memory is not None:
            peak = memory["temp"] + memory["argument"] + memory["output"]
            source = "xla_memory_analysis"
        else:
            peak = timing["rss_delta_bytes"]
            source = "max_rss_delta"
        record: dict[str, Any] = {
            "library": name,
            "env": env,
            "obs": obs,
            "B": B,
            "T": steps,
            "steps_per_s": B * steps / timing["best_s"],
            "steps_per_cpu_s": B * steps / max(timing["best_cpu_s"], 1e-9),
            "compile_s": timing["compile_s"],
            "peak_bytes": peak,
            "peak_bytes_source": source,
            "jax_version": jax.__version__,
            "machine": machine,
            **timing,
        }
        if extra:
            record.update(extra)
        results.append(record)
    return results


def format_table(records: Sequence[Mapping[str, Any]]) -> str:
    """Renders measurement records as a Markdown table.

    Args:
        records: dicts as returned by :func:`measure`.

    Returns:
        A Markdown table string with one row per record.
    """
    header = (
        "| library | env | obs | B | T | steps/s | steps/CPU-s | compile s | peak MiB "
        "| max-RSS delta MiB | load |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    rows = [header]
    for r in records:
        rows.append(
            f"| {r['library']} | {r['env']} | {r['obs']} | {r['B']} | {r['T']} "
            f"| {r['steps_per_s']:,.0f} | {r['steps_per_cpu_s']:,.0f} | {r['compile_s']:.2f} "
            f"| {r['peak_bytes'] / 2**20:.1f} | {r['rss_delta_bytes'] / 2**20:.1f} "
            f"| {_fmt_load(r.get('load_avg_1m'))} |"
        )
    return "\n".join(rows)


def _fmt_load(load: Sequence[float | None] | None) -> str:
    """Formats a ``[before, after]`` load-average pair for the table."""
    if not load or load[0] is None:
        return "n/a"
    return "/".join(f"{x:.1f}" for x in load if x is not None)
