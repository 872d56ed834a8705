"""What the property-based tests of the episode contract share.

* **Which ids.** The ``fast`` hypothesis profile (the default, `tests/conftest.py`) checks a
  sample of one id per kind of environment (gridworld, Maze, orbital game), drawn by a
  seeded random generator: the same sample on every run, another one with another
  ``HORIZAX_PROPERTY_SEED``. The ``thorough`` profile (``--hypothesis-profile thorough``)
  checks every registered id (`contract_ids`). The properties the code alone decides (a
  batch against single environments, `jit` against eager execution, the adapters) run on
  one id of the sample, or on the whole sample when thorough (`code_ids`).
* **One compilation per id.** Every environment is run with a short time limit
  (`LIMIT`) and a fixed number of actions (`LENGTH`), all three autoreset modes in one
  jitted program (`program`), cached per id: hypothesis varies the seed and the action
  values, never a shape, so no example retraces.
* **Actions.** `actions` draws in-range actions, the space's boundaries and, where asked,
  out-of-range ones (negative and too-large integers; for a ``Box``, commands beyond its
  bounds, huge, infinite and NaN).
"""

from __future__ import annotations

import functools
import os
import random
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import numpy as np
from hypothesis import strategies as st

import horizax
from horizax.core import episode as engine
from horizax.core.episode import AutoresetMode
from horizax.core.protocol import functional
from horizax.core.spaces import Box, Discrete

LIMIT = 5  # the time limit every environment is given: episodes reach it inside a run
LENGTH = 16  # actions per run: at least two time limits in every mode
SEED_VARIABLE = "HORIZAX_PROPERTY_SEED"
MODES = tuple(AutoresetMode)
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


# --- which ids ----------------------------------------------------------------------------------


def is_thorough(config: Any) -> bool:
    """Whether pytest runs with ``--hypothesis-profile thorough``."""
    return config.getoption("--hypothesis-profile", default=None) == "thorough"


def kind(env_id: str) -> str:
    """``"grid"``, ``"maze"`` or ``"orbital"``: the package of the environment ``env_id`` makes."""
    return type(horizax.make(env_id)).__module__.split(".")[1]


@functools.cache
def _kinds() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for env_id in horizax.registered_ids():
        out.setdefault(kind(env_id), []).append(env_id)
    return out


def sample() -> list[str]:
    """One id of each kind, drawn by ``random.Random`` seeded from ``HORIZAX_PROPERTY_SEED``
    (default 0): the same sample on every run, another one for another seed."""
    rng = random.Random(os.environ.get(SEED_VARIABLE, "0"))
    return sorted(rng.choice(ids) for _, ids in sorted(_kinds().items()))


def contract_ids(config: Any) -> list[str]:
    """The ids the episode contract is checked on: the sample, or every registered id under
    the thorough profile."""
    return horizax.registered_ids() if is_thorough(config) else sample()


def code_ids(config: Any) -> list[str]:
    """The ids of the properties the code decides (a batch, eager execution, the adapters):
    one id of the sample (its kind rotates with the seed), or the whole sample when
    thorough."""
    if is_thorough(config):
        return sample()
    rng = random.Random(f"{os.environ.get(SEED_VARIABLE, '0')}/code")
    return [rng.choice(sample())]


def orbital_ids() -> list[str]:
    """The sample's orbital game (for the multi-agent view and PettingZoo)."""
    ids = [env_id for env_id in sample() if kind(env_id) == "orbital"]
    assert ids, "the sample has no orbital game"
    return ids


# --- actions --------------------------------------------------------------------------------


def _discrete(n: int, out_of_range: bool) -> st.SearchStrategy[int]:
    valid = st.integers(0, n - 1)
    if not out_of_range:
        return valid
    invalid = st.one_of(
        st.sampled_from([-1, n, INT32_MIN, INT32_MAX]),
        st.integers(INT32_MIN, -1),
        st.integers(n, INT32_MAX),
    )
    # About one action in four out of range: episodes still reach their ends.
    return st.integers(0, 3).flatmap(lambda i: invalid if i == 0 else valid)


def _component(bound: float, out_of_range: bool) -> st.SearchStrategy[float]:
    inside = st.one_of(
        st.sampled_from([-bound, bound, 0.0]),
        st.floats(-bound, bound, width=32),
    )
    if not out_of_range:
        return inside
    beyond = st.one_of(  # any float32: huge, infinite and NaN included
        st.floats(width=32),
        st.sampled_from([float("nan"), float("inf"), -float("inf"), 3e38, -3e38, 1e20]),
    )
    return st.integers(0, 3).flatmap(lambda i: beyond if i == 0 else inside)


def actions(
    space: Any, length: int = LENGTH, *, out_of_range: bool = True
) -> st.SearchStrategy[np.ndarray]:
    """``length`` actions of ``space`` as one array (i32[length] or f32[length, *shape])."""
    if isinstance(space, Discrete):
        return st.lists(
            _discrete(int(space.n), out_of_range), min_size=length, max_size=length
        ).map(lambda xs: np.asarray(xs, np.int32))
    assert isinstance(space, Box), f"no action strategy for {space!r}"
    shape = tuple(space.shape)
    bound = float(np.float32(np.max(np.abs(np.asarray(space.high)))))
    size = int(np.prod(shape)) * length
    return st.lists(_component(bound, out_of_range), min_size=size, max_size=size).map(
        lambda xs: np.asarray(xs, np.float32).reshape((length, *shape))
    )


seeds = st.integers(0, 2**32 - 1)


# --- one compiled program per id ----------------------------------------------------------------


class Run(NamedTuple):
    """One rollout of one autoreset mode, as numpy arrays.

    Attributes:
        first: the reset's `Step`.
        first_state: the protocol state after the reset.
        steps: `Step` per action (leading axis `LENGTH`).
        final: SAME_STEP: `Final` per action (the terminal observation where ``mask``).
        restart: DISABLED: the first observation of the episode restarted after an end
            (``restart_where``, as a Gymnasium user does with ``reset_mask``), else zeros.
        states: the protocol state after each action (leading axis `LENGTH`).
        t: the engine's step counter after each action.
    """

    first: Any
    first_state: Any
    steps: Any
    final: Any
    restart: Any
    states: Any
    t: Any


# Eager execution runs a Maze layout's generator op by op (two minutes for a default Maze):
# the jit-versus-eager property checks the same code on a smaller maze.
EAGER_SIZES = {"maze": {"num_rows": 5, "num_cols": 5}}


def _eager_size(env_id: str, eager_size: bool) -> bool:
    return eager_size and kind(env_id) in EAGER_SIZES


def view(env_id: str, eager_size: bool = False) -> Any:
    """The protocol view of ``env_id`` with the time limit `LIMIT` (at the size of
    `EAGER_SIZES` if ``eager_size``)."""
    return _view(env_id, _eager_size(env_id, eager_size))


@functools.cache
def _view(env_id: str, eager_size: bool) -> Any:
    overrides = EAGER_SIZES[kind(env_id)] if eager_size else {}
    return functional(horizax.make(env_id, **overrides)).replace(max_steps=LIMIT)


def rollout(fenv: Any, mode: AutoresetMode, key: Any, actions: Any) -> Run:
    """A scanned run of ``actions`` from the episode of ``key`` under ``mode``."""
    episode, first = engine.start_episode(fenv, key)

    def body(episode: engine.Episode, action: Any) -> tuple[engine.Episode, tuple]:
        episode, step, final = engine.step_episode(fenv, mode, episode, action)
        restart = None
        if mode is AutoresetMode.DISABLED:
            key = engine.next_episode_key(fenv, episode)
            episode, restarted = engine.restart_where(fenv, episode, key, step.done)
            restart = restarted.observation
        return episode, (step, final, restart, episode.state, episode.t)

    _, (steps, final, restart, states, t) = jax.lax.scan(body, episode, actions)
    return Run(first, episode.state, steps, final, restart, states, t)


def rollouts(fenv: Any, keys: Any, actions: Any) -> tuple[Run, ...]:
    """`rollout` in every mode of `MODES`; ``keys[i]`` and ``actions[i]`` for mode ``i``."""
    return tuple(rollout(fenv, m, k, a) for m, k, a in zip(MODES, keys, actions, strict=True))


def program(
    env_id: str, batched: bool = False, eager_size: bool = False
) -> Callable[..., tuple[Run, ...]]:
    """``jit(rollouts)`` of ``env_id``'s `view` (of its `vmap` when ``batched``), cached."""
    return _program(env_id, batched, _eager_size(env_id, eager_size))


@functools.cache
def _program(env_id: str, batched: bool, eager_size: bool) -> Callable[..., tuple[Run, ...]]:
    fn = functools.partial(rollouts, view(env_id, eager_size))
    return jax.jit(jax.vmap(fn) if batched else fn)


def run_modes(
    env_id: str, seed: int, *per_mode: np.ndarray, eager_size: bool = False
) -> dict[AutoresetMode, Run]:
    """Every mode of `MODES` from ``seed``, with ``per_mode[i]`` the actions of mode ``i``
    (one array: the same actions for every mode)."""
    acts = per_mode * len(MODES) if len(per_mode) == 1 else per_mode
    key = engine.seed_key(seed)
    runs = program(env_id, eager_size=eager_size)((key,) * len(MODES), acts)
    return dict(zip(MODES, (to_numpy(r) for r in runs), strict=True))


# --- comparisons --------------------------------------------------------------------------------


def to_numpy(tree: Any) -> Any:
    """``tree`` with every array on the host (typed PRNG keys as their raw data)."""

    def host(x: Any) -> Any:
        if isinstance(x, jax.Array) and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key):
            x = jax.random.key_data(x)
        return np.asarray(x)

    return jax.tree.map(host, tree)


def index(tree: Any, i: Any) -> Any:
    """Entry ``i`` of the leading axis of every leaf."""
    return jax.tree.map(lambda x: x[i], tree)


def assert_same(a: Any, b: Any, message: str) -> None:
    """Same tree structure and bit-identical leaves (NaN equal to NaN)."""
    assert jax.tree.structure(a) == jax.tree.structure(b), f"{message}: structures differ"
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=message)
        assert np.asarray(x).dtype == np.asarray(y).dtype, f"{message}: dtypes differ"


def episode_clock(done: np.ndarray, *, next_step: bool) -> np.ndarray:
    """Steps into its episode at each step, counted from the flags alone (not the engine's
    counter). After an end, NEXT_STEP's next step is the reset (0); in the other modes the
    next step is the new episode's first (1)."""
    clock, count, previous_done = [], 0, False
    for d in done:
        count = (0 if next_step else 1) if previous_done else count + 1
        clock.append(count)
        previous_done = bool(d)
    return np.asarray(clock)


def select(mask: np.ndarray, a: Any, b: Any) -> Any:
    """Leafwise ``a`` where ``mask`` (over the leading axis), else ``b``."""

    def pick(x: Any, y: Any) -> np.ndarray:
        x, y = np.asarray(x), np.asarray(y)
        return np.where(mask.reshape(mask.shape + (1,) * (x.ndim - mask.ndim)), x, y)

    return jax.tree.map(pick, a, b)
