"""Compile times measured in fresh processes, the same way for every library.

Why not the paired process of `compare.py`: there both rollouts are compiled one after the
other, and whichever goes second finds JAX's own caches warm (the jitted helpers inside
`jax.random`, the lowering rules already traced). Measured on MemoryS13 (B=1024, jax 0.12),
going second saved each library about 0.2 s, so the order decided the compile ratio
(0.38 with navix first, 0.51 with horizax first).

Here each measurement is its own child process that first compiles one trivial function
(JAX's backend start-up, the same for every library) and then compiles exactly one thing:

* ``rollout``: the whole benchmark program (`harness.make_scan_rollout`: vmapped reset, then
  a scan of vmapped steps with autoreset), ``jit(...).lower(key).compile()``;
* ``reset_step``: ``jit(vmap(env.reset))`` plus ``jit(vmap(env.step))`` (the step includes
  the library's autoreset), compiled separately as a user compiles them. Only for the
  gridworld libraries (horizax, navix), whose ``reset(key)``/``step(timestep, action)``
  have the same shape.

`cold_compile` repeats a measurement in ``repeats`` fresh processes and keeps the median.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "@@COMPILE@@ "
KINDS = ("rollout", "reset_step")
# ``lib`` values that name a bare probe (the env id is not read): Empty-8x8 and MemoryS13
# (``probe_memory_hash``: its layout drawn without Threefry), as (module, keyword arguments,
# typed key): each is compiled with the key its own script times it with.
PROBES = {
    "probe": ("probe_empty", {}, False),
    "probe_memory": ("probe_memory", {}, True),
    "probe_memory_hash": ("probe_memory", {"threefry": False}, True),
    "probe_fetch": ("probe_fetch", {}, True),
    "probe_fetch_hash": ("probe_fetch", {"threefry": False}, True),
}


def _warm_up_backend() -> None:
    import jax
    import jax.numpy as jnp

    jax.jit(lambda x: jnp.sin(x) + 1).lower(jnp.ones(4)).compile()


def _grid_env(lib: str, env_id: str, obs: str) -> Any:
    if lib == "horizax":
        import horizax
        from horizax.grid import observations

        return horizax.make(env_id, observation_fn=getattr(observations, obs))
    import navix

    return navix.make(env_id, observation_fn=getattr(navix.observations, obs))


def measure_once(kind: str, lib: str, env_id: str, obs: str, B: int, T: int) -> float:
    """Seconds to trace, lower and compile one program (``kind``), in this process."""
    import jax
    import jax.numpy as jnp

    _warm_up_backend()
    if kind == "rollout" and lib in PROBES:  # a bare dense-array task (probe_*.py)
        import importlib

        module, kwargs, typed = PROBES[lib]
        rollout = importlib.import_module(module).probe_rollout(B, T, **kwargs)
        key = jax.random.key(0) if typed else jax.random.PRNGKey(0)
        start = time.perf_counter()
        jax.jit(rollout).lower(key).compile()
        return time.perf_counter() - start
    if kind == "rollout":
        from compare import _make

        rollout, key = _make(lib, env_id, obs, B, T)
        start = time.perf_counter()
        jax.jit(rollout).lower(key).compile()
        return time.perf_counter() - start
    env = _grid_env(lib, env_id, obs)
    keys = jax.random.split(jax.random.key(0), B)
    start = time.perf_counter()
    reset = jax.jit(jax.vmap(env.reset)).lower(keys).compile()
    reset_s = time.perf_counter() - start
    timestep = jax.block_until_ready(reset(keys))
    actions = jnp.zeros((B,), jnp.int32)
    start = time.perf_counter()
    jax.jit(jax.vmap(env.step)).lower(timestep, actions).compile()
    return reset_s + time.perf_counter() - start


def cold_compile(
    kind: str, lib: str, env_id: str, obs: str, B: int, T: int, repeats: int = 3
) -> dict[str, Any]:
    """Median (and every value) of ``repeats`` measurements, each in a fresh process.

    Returns:
        ``{"median_s": float, "all_s": [float, ...]}``.

    Raises:
        RuntimeError: if a child fails (its stderr's tail is in the message).
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    values = []
    for _ in range(repeats):
        cmd = [sys.executable, os.path.abspath(__file__), kind, lib, env_id, obs, str(B), str(T)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=HERE)
        lines = [line for line in proc.stdout.splitlines() if line.startswith(MARKER)]
        if proc.returncode != 0 or len(lines) != 1:
            raise RuntimeError(f"compile child {cmd[2:]} failed:\n{proc.stderr[-3000:]}")
        values.append(json.loads(lines[0][len(MARKER) :]))
    return {"median_s": statistics.median(values), "all_s": values}


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    kind, lib, env_id, obs, B, T = sys.argv[1:7]
    print(MARKER + json.dumps(measure_once(kind, lib, env_id, obs, int(B), int(T))), flush=True)
