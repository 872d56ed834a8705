"""Session setup: how the tests compile, and JAX's opt-in persistent compilation cache.

XLA's CPU backend compiles the tests' programs at LLVM optimisation level 0
(``--xla_backend_optimization_level=0`` in ``XLA_FLAGS``): most of the suite's time is
compilation, this cuts it by about a fifth, and it changes no integer result (the golden
layout and rollout hashes are bit-exact at both levels). Float transcendentals can differ
in the last bit: the orbital comparison with orbitalgym's recording compiles its replay at
level 2, where a tank burnt to its last gram must read exactly zero as it did there.
Programs without transcendental float math also compile with XLA's older loop emitters,
another third off (`tests.xla_codegen`, which says why float programs keep the default).
The benchmarks, `horizax run` and users' programs keep XLA's default.
``HORIZAX_TEST_XLA_DEFAULT=1`` tests the default code generation instead (an ``XLA_FLAGS``
that already sets the level keeps that level).

The cache is opt-in: set ``HORIZAX_TEST_JAX_CACHE`` to a directory to turn it on (unset,
or ``off``, ``0``, ``false``, ``no``, empty: off). A warm cache shortens compile-bound
reruns; a cold one (every CI run) saves nothing and slows the lockstep tests, hence off by
default (measurements in ``benchmarks/RESULTS.md``).
Only configuration is set here: no JAX computation runs at import.

It also registers the hypothesis profiles of the property-based tests (``fast``, loaded by
default, and ``thorough``; see the end of this file and docs/reliability.md).
"""

from __future__ import annotations

import os

import jax
import pytest
from hypothesis import HealthCheck, settings

from tests import xla_codegen

_OFF = {"", "0", "off", "false", "no"}
_OPT_LEVEL = "--xla_backend_optimization_level"


def _test_xla_flags(flags: str) -> str:
    """``XLA_FLAGS`` for the test run: level 0 added unless asked for the default."""
    if _OPT_LEVEL in flags or os.environ.get("HORIZAX_TEST_XLA_DEFAULT", "").lower() not in _OFF:
        return flags
    return f"{flags} {_OPT_LEVEL}=0".strip()


# Read when the backend starts (the first computation), which no import here triggers;
# xdist workers and the subprocesses tests start inherit it.
os.environ["XLA_FLAGS"] = _test_xla_flags(os.environ.get("XLA_FLAGS", ""))
if os.environ.get("HORIZAX_TEST_XLA_DEFAULT", "").lower() in _OFF:
    xla_codegen.install()


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


# Hypothesis profiles of the property-based tests (tests/test_properties.py,
# tests/adapters/test_adapter_properties.py). ``fast`` is loaded here, so a plain pytest run
# uses it: few examples, derandomized (the same examples on every run, as CI needs), on a
# sample of ids (tests/property_support.py). ``--hypothesis-profile thorough`` (the option
# of hypothesis' pytest plugin, which loads the profile after this file) checks every
# registered id with five times the examples. No deadline: the first example of an id
# includes its compilation.
settings.register_profile(
    "fast",
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("fast")


MAPPINGS_BEFORE_CLEARING = 30_000  # Linux's default vm.max_map_count is 65,530


def _memory_mappings() -> int:
    try:
        with open("/proc/self/maps", "rb") as maps:
            return sum(1 for _ in maps)
    except OSError:  # not Linux: nothing to watch
        return 0


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
    """Drops JAX's compiled programs after a test module once the process holds many.

    A worker of the whole suite compiles thousands of programs and JAX's caches keep them
    all: a worker reached 7 GB and 59,000 memory mappings by the end of a full run, against
    Linux's default limit of 65,530 (`vm.max_map_count`), past which compiling crashes the
    process (one worker died so in PPO's last tests). Clearing after every module costs
    more (JAX's own small eager programs are compiled again: the suite ran about 15% slower),
    so the caches are cleared only past `MAPPINGS_BEFORE_CLEARING`.
    """
    yield
    if _memory_mappings() > MAPPINGS_BEFORE_CLEARING:
        jax.clear_caches()


# The tests that draw one id's resets in batches share that id's one compiled reset
# (`tests.grid.batched_reset`; 2-7 s of compile for a BabyAI level) within a process. Under
# pytest-xdist, a worker is sent runs of consecutive tests, so they are moved next to each
# other: the first of them in collection order stays where it is, the others follow it.
# Order only; every test runs as before.
BATCHED_RESET_TESTS = (
    "test_reset_layouts_are_unchanged_key_for_key",  # tests/grid/test_layout_golden.py
    "test_reset_layouts_hold_only_the_declared_objects",  # the same file
    "test_random_episodes_match_minigrids",  # tests/grid/babyai/test_random_policy.py
    "test_reset_distribution_matches_minigrid",  # tests/grid/babyai/, one per level file
    "test_layout_distribution_matches_minigrid",  # tests/grid/envs/, one per family file
    "test_every_layout_is_well_formed",  # tests/grid/envs/, the same layouts
)


def _batched_reset_id(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if getattr(item, "originalname", None) not in BATCHED_RESET_TESTS or callspec is None:
        return None
    return callspec.params.get("env_id")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        env_id = _batched_reset_id(item)
        if env_id is not None:
            groups.setdefault(env_id, []).append(item)
    moved = {id(i) for group in groups.values() for i in group[1:]}
    ordered = []
    for item in items:
        if id(item) in moved:
            continue
        ordered.append(item)
        env_id = _batched_reset_id(item)
        if env_id is not None:
            ordered.extend(groups[env_id][1:])
    assert len(ordered) == len(items)
    items[:] = ordered
