"""Session setup: JAX's persistent compilation cache, shared by test runs and xdist workers.

Opt-in: set ``HORIZAX_TEST_JAX_CACHE`` to a directory to turn it on (unset, or ``off``, ``0``,
``false``, ``no``, empty: off). A warm cache shortens compile-bound reruns; a cold one (every
CI run) saves nothing and slows the lockstep tests, hence off by default (measurements in
``benchmarks/RESULTS.md``).
Only configuration is set here: no JAX computation runs at import.
"""

from __future__ import annotations

import os

import jax

_OFF = {"", "0", "off", "false", "no"}


def _cache_dir() -> str | None:
    value = os.environ.get("HORIZAX_TEST_JAX_CACHE")
    if value is None or value.strip().lower() in _OFF:
        return None
    return value


_CACHE_DIR = _cache_dir()
if _CACHE_DIR is not None:
    jax.config.update("jax_compilation_cache_dir", _CACHE_DIR)
    # Cache every program that takes noticeable time to compile, whatever its size.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.1)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
