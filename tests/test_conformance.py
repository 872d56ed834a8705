"""Conformance of every registered id: jit, vmap, scan, one trace, determinism, spaces.

Every id gets `check_rollouts` (jit and scan, same key same rollout, spaces, rewards, the
episode boundary, autoreset), the checks whose outcome depends on its constants. The rest of
`check_env` (a vmapped batch equals the per-environment rollouts, one trace per jitted
function, ``disable_autoreset``) is decided by the code alone, so the full `check_env` runs
on one id of each family: the ids whose environments run the same functions and differ only
in numeric constants (sizes, time limits, counts), as `tests.code_families` reads them off the built
environments. Ids of the same registration module in different families (Unlock and
UnlockPickup terminate differently; Memory's fixed-length ids turn off `autoreset_rounds`)
each get their own full check.
"""

from __future__ import annotations

from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.core.spaces import Box
from horizax.grid import observations
from horizax.grid import registry as grid_registry
from horizax.grid.missions import mission_space
from horizax.maze import registration as maze_registration
from horizax.orbital import registration as orbital_registration
from horizax.testing import check_env
from horizax.testing.conformance import check_rollouts, grid_driver
from horizax.testing.harness import assert_in_space, batched_rollout, rollout, stepped_rollout
from tests import code_families as families
from tests.compiles import compiled_while

FULLY_CHECKED = families.REPRESENTATIVES
ROLLOUTS_ONLY = sorted(set(horizax.registered_ids()) - set(FULLY_CHECKED))
FAMILIES = families.FAMILIES


def _registration_module(env_id: str) -> ModuleType:
    """The module whose ``ENVIRONMENTS`` registers ``env_id``."""
    modules = (*grid_registry.FAMILY_MODULES, maze_registration, orbital_registration)
    owners = [m for m in modules if env_id in getattr(m, "ENVIRONMENTS", {})]
    assert len(owners) == 1, f"{env_id} is registered by {owners}"
    return owners[0]


@pytest.mark.parametrize("env_id", FULLY_CHECKED)
def test_check_env(env_id):
    check_env(horizax.make(env_id))


@pytest.mark.parametrize("env_id", ROLLOUTS_ONLY)
def test_check_rollouts(env_id):
    check_rollouts(horizax.make(env_id))


def test_every_family_gets_the_full_check():
    ids = horizax.registered_ids()
    assert sorted(FULLY_CHECKED + ROLLOUTS_ONLY) == ids, "an id is checked twice or never"
    # Independently of `families.family`: every registration module and every module defining a
    # layout function has a fully checked id.
    modules = {_registration_module(env_id).__name__ for env_id in ids}
    assert modules == {_registration_module(env_id).__name__ for env_id in FULLY_CHECKED}
    layouts = {getattr(horizax.make(i), "layout_fn", None) for i in ids}
    layout_modules = {getattr(fn, "__module__", None) for fn in layouts}
    checked = {
        getattr(getattr(horizax.make(i), "layout_fn", None), "__module__", None)
        for i in FULLY_CHECKED
    }
    assert layout_modules == checked
    # A family never spans two registration modules, and each family has a full check.
    for family, members in FAMILIES.items():
        assert len({_registration_module(i) for i in members}) == 1, members
        assert {families.family(i) for i in FULLY_CHECKED if i in members} == {family}


def test_families_group_by_code_not_constants():
    family = {env_id: families.family(env_id) for env_id in horizax.registered_ids()}
    # Sizes and time limits alone: one family.
    sizes = [f"MiniGrid-DoorKey-{n}x{n}-v0" for n in (5, 6, 8, 16)]
    assert len({family[i] for i in sizes}) == 1
    # Other termination code, other bools (random start, v1, autoreset rounds): new families.
    for a, b in [
        ("MiniGrid-Unlock-v0", "MiniGrid-UnlockPickup-v0"),
        ("MiniGrid-Empty-5x5-v0", "MiniGrid-Empty-Random-5x5-v0"),
        ("MiniGrid-ObstructedMaze-2Q-v0", "MiniGrid-ObstructedMaze-2Q-v1"),
        ("MiniGrid-MemoryS13-v0", "MiniGrid-MemoryS13Random-v0"),
    ]:
        assert family[a] != family[b], (a, b)
    env = horizax.make("MiniGrid-DoorKey-5x5-v0")
    changed = [
        env.replace(termination_fn=lambda p, a, s: s.step_count > 3),
        env.replace(autoreset_rounds=False),
        env.replace(observation_fn=observations.symbolic),
    ]
    codes = {families.code(e) for e in [env, *changed]}
    assert len(codes) == 1 + len(changed), "a change of code kept the family"
    assert families.code(env.replace(max_steps=7)) == families.code(env), (
        "a constant changed the family"
    )


def test_check_rollouts_through_the_protocol_view():
    # The Maze's family is a single id, fully checked; this runs `check_rollouts`' own
    # protocol-view path (`check_functional_rollout`) once.
    check_rollouts(horizax.make("Maze-v0"))


def test_check_rollouts_catches_a_broken_environment():
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    broken = env.replace(reward_fn=lambda p, a, s: s.step_count.astype("float32") * float("nan"))
    with pytest.raises(AssertionError, match="non-finite reward"):
        check_rollouts(broken)


def test_check_env_catches_a_broken_environment():
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    broken = env.replace(reward_fn=lambda p, a, s: s.step_count.astype("float32") * float("nan"))
    with pytest.raises(AssertionError, match="non-finite reward"):
        check_env(broken)


def test_check_env_catches_a_batch_that_differs_from_stepping():
    # Python state read while tracing (a counter) makes each traced program differ: the
    # vmapped scan, traced after jit(step), pays other rewards. (Not in the layout: the
    # environment traces its layout once per function, `Environment._layout`.)
    env = horizax.make("MiniGrid-Empty-5x5-v0")
    traces = iter(range(1000))

    def reward(prev_state, action, state):
        return jnp.float32(next(traces))

    broken = env.replace(reward_fn=reward)
    with pytest.raises(AssertionError, match="vmap or scan differs from stepping"):
        check_env(broken)


def test_stepped_rollout_is_the_scanned_rollout():
    driver = grid_driver(horizax.make("BabyAI-GoToRedBallGrey-v0"))
    key = jax.random.PRNGKey(4)
    scanned = jax.jit(lambda k: rollout(driver, k, 20))(key)
    stepped = stepped_rollout(driver, jax.jit(driver.reset), jax.jit(driver.step), key, 20)
    for x, y in zip(jax.tree.leaves(scanned), jax.tree.leaves(stepped), strict=True):
        np.testing.assert_array_equal(np.asarray(x), y)


def test_batched_rollout_is_the_vmapped_rollout():
    # A scan of vmapped steps (what `check_env` compiles) plays each key's `rollout`, batch
    # axis first, with episodes ending inside it (a short limit).
    env = horizax.make("MiniGrid-DoorKey-5x5-v0").replace(max_steps=6)
    driver = grid_driver(env)
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    batched = jax.jit(lambda k: batched_rollout(driver, k, 20))(keys)
    vmapped = jax.jit(jax.vmap(lambda k: rollout(driver, k, 20)))(keys)
    for x, y in zip(jax.tree.leaves(batched), jax.tree.leaves(vmapped), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    assert (np.asarray(vmapped.outs.t) == 0).any(), "no episode ended"


@pytest.mark.parametrize("env_id", ["MiniGrid-Empty-5x5-v0", "Maze-v0"])
def test_the_checks_take_a_typed_key(env_id):
    # A `jax.random.key` (its states hold typed keys, which numpy cannot) as well as a raw one.
    env = horizax.make(env_id)
    check_env(env, key=jax.random.key(3), num_steps=24, batch=2)
    check_rollouts(env, key=jax.random.key(3), num_steps=24)


def test_stepped_rollouts_of_one_action_space_share_one_inputs_program():
    # The random actions and keys of a stepped rollout depend on the action space and the
    # length only, so every id with MiniGrid's seven actions draws them with one program
    # (once one per call: 0.2 s of compile in each check_env).
    for env_id, expected in (("MiniGrid-Empty-5x5-v0", None), ("MiniGrid-Empty-6x6-v0", 0)):
        driver = grid_driver(horizax.make(env_id))
        reset, step = jax.jit(driver.reset), jax.jit(driver.step)
        key = jax.random.PRNGKey(1)
        jax.block_until_ready(step(key, reset(key), jnp.int32(0)))  # compiled before counting
        count = compiled_while(
            lambda d=driver, r=reset, s=step: stepped_rollout(d, r, s, jax.random.PRNGKey(7), 13)
        )
        if expected is not None:
            assert count == expected, f"{env_id}: {count} programs compiled"


def test_observation_checks_reject_nan_and_read_text_spaces():
    # Found while writing tests/test_properties.py: a NaN compares False with both bounds,
    # so it passed as inside an unbounded Box; a Text space (the gridworld's mission) raised
    # AttributeError instead of checking its encoded array.
    box = Box(-np.inf, np.inf, (2,), np.float32)
    assert_in_space(box, np.array([0.0, 3e38], np.float32), 0, "finite")
    with pytest.raises(AssertionError, match="outside its space at 1 entries"):
        assert_in_space(box, np.array([0.0, np.nan], np.float32), 0, "NaN")
    text = mission_space()
    assert_in_space(text, np.zeros(text.shape, text.dtype), 0, "an encoded mission")
    with pytest.raises(AssertionError, match="dtype"):
        assert_in_space(text, np.zeros(text.shape, np.float32), 0, "not an encoding")
