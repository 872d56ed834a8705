"""The grammar sampler's parts: which descriptions match, ``rand_obj`` given success and its
chance of success, and ``validate_instrs``."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import grammar as G
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import trees as T
from horizax.grid.babyai import verifiers as V
from horizax.grid.draws import sequential_draws
from horizax.grid.sampling import WIDE_DIGIT_BUDGET
from horizax.grid.state import make_state
from tests.grid import distribution as dist


@functools.cache
def _boss_states(n: int):
    env = horizax.make("BabyAI-MiniBossLevel-v0")
    return jax.jit(jax.vmap(env.layout_fn))(jax.random.split(jax.random.PRNGKey(4), n))


@jax.jit
def _every_description_matches(state):
    """bool[140, W, H]: `descriptions.find_matching` of each description."""
    descs = jax.vmap(G.description)(jnp.arange(G.NUM_DESCS))
    return jax.vmap(
        lambda d: D.find_matching(d, state.grid, state.agent_pos, state.agent_dir, room_size=5)
    )(descs)


def test_matched_descriptions_is_find_matching_over_every_description():
    states = _boss_states(6)
    outside = np.zeros((9, 9), bool)
    outside[:, 4:] = True
    for i in range(6):
        state = jax.tree.map(lambda x, i=i: x[i], states)
        found = np.asarray(_every_description_matches(state))
        for region in (None, outside):
            table = np.asarray(G.matched_descriptions(state, room_size=5, outside=region))
            inside = found if region is None else found & region
            np.testing.assert_array_equal(table, inside.any(axis=(1, 2)), err_msg=f"state {i}")


def test_rand_obj_given_success_is_the_prior_restricted_to_the_matches():
    """Draws against the prior over the matching descriptions (chi-square), and ``p`` is
    the prior's mass on them."""
    rng = np.random.default_rng(0)
    matched = rng.random(G.NUM_DESCS) < 0.3
    types = (False, True, True, True)

    def one(key):
        return sequential_draws(
            key,
            lambda draw: G.draw_description(
                draw, jnp.asarray(matched), jnp.asarray(types), locations=True
            ),
            budget=WIDE_DIGIT_BUDGET,
        )

    n = 20_000
    descs, p = jax.jit(jax.vmap(one))(jax.random.split(jax.random.PRNGKey(0), n))
    descs, p = np.asarray(descs), np.asarray(p)
    prior = G.prior_weights(types, locations=True)
    weights = np.where(matched, prior, 0)
    np.testing.assert_allclose(p, weights.sum() / prior.sum(), rtol=1e-6)
    index = (descs[:, 0] - C.DOOR) * 35 + (descs[:, 1] + 1) * 5 + descs[:, 2]
    assert weights[index].min() > 0, "a description that matches nothing, or a door"
    expected = rng.choice(G.NUM_DESCS, size=n, p=weights / weights.sum())
    _, _, p_value = dist.chi_square_homogeneity(index, expected)
    assert p_value > dist.P_MIN


def test_survives_is_the_chance_of_a_match_within_101_tries():
    p = jnp.asarray([0.0, 0.01, 0.05, 0.5, 1.0])
    np.testing.assert_allclose(
        np.asarray(G.survives(p)), 1 - (1 - np.asarray(p)) ** 101, rtol=1e-5, atol=1e-7
    )
    assert float(G.survives(jnp.float32(0))) == 0 and float(G.survives(jnp.float32(1))) == 1


def _room_with(objects: dict[tuple[int, int], tuple[int, int, int]]):
    grid = np.zeros((7, 7, 3), np.uint8)
    grid[...] = C.EMPTY_CELL
    grid[[0, -1], :] = C.WALL_CELL
    grid[:, [0, -1]] = C.WALL_CELL
    for (x, y), obj in objects.items():
        grid[x, y] = obj
    return make_state(jnp.asarray(grid), jnp.array([1, 1]), jnp.int32(0))


def _put(move, fixed):
    leaf = V.instruction(V.Instr.PUT_NEXT, D.describe(*move), D.describe(*fixed))
    return T.tree(Q.Seq.SINGLE, Q.sequence(Q.Seq.SINGLE, leaf))


@pytest.mark.parametrize(
    ("objects", "move", "fixed", "ok"),
    [
        ({(3, 3): (C.BALL, 0, 0), (5, 5): (C.KEY, 1, 0)}, (C.BALL, 0), (C.KEY, 1), True),
        ({(3, 3): (C.BALL, 0, 0), (3, 4): (C.KEY, 1, 0)}, (C.BALL, 0), (C.KEY, 1), False),
        ({(3, 3): (C.BALL, 0, 0), (4, 4): (C.KEY, 1, 0)}, (C.BALL, 0), (C.KEY, 1), True),
        ({(3, 3): (C.BALL, 0, 0), (5, 5): (C.BALL, 1, 0)}, (C.BALL, 0), (C.BALL, D.ANY), False),
    ],
    ids=["apart", "touching", "diagonal", "shared"],
)
def test_validate_refuses_putnext_whose_objects_touch_or_overlap(objects, move, fixed, ok):
    state = _room_with(objects)
    assert bool(G.valid(_put(move, fixed), state, room_size=7)) is ok


def test_validate_refuses_a_key_of_the_locked_doors_colour_and_ignores_unused_leaves():
    state = _room_with({(3, 3): (C.KEY, 2, 0), (5, 5): (C.BALL, 1, 0)})
    pick = V.instruction(V.Instr.PICKUP, D.describe(C.KEY, 2))
    tree = T.tree(Q.Seq.SINGLE, Q.sequence(Q.Seq.SINGLE, pick))
    assert bool(G.valid(tree, state, room_size=7, locked_key_colour=jnp.int32(1)))
    assert not bool(G.valid(tree, state, room_size=7, locked_key_colour=jnp.int32(2)))
    assert bool(G.valid(tree, state, room_size=7))  # no unblocking: no such check
    # A touching PutNext in the unused half of a SINGLE branch is not part of the sentence.
    touching = V.instruction(V.Instr.PUT_NEXT, D.describe(C.KEY, 2), D.describe(C.BALL, 1))
    state = _room_with({(3, 3): (C.KEY, 2, 0), (3, 4): (C.BALL, 1, 0)})
    branch = Q.sequence(Q.Seq.SINGLE, pick)
    branch[2 + V.INSTR_SIZE :] = touching
    tree = T.tree(Q.Seq.SINGLE, branch)
    assert bool(G.valid(tree, state, room_size=7))
    tree = T.tree(Q.Seq.SINGLE, Q.sequence(Q.Seq.AND, pick, touching))
    assert not bool(G.valid(tree, state, room_size=7))


def test_grammar_rejects_unknown_kinds():
    with pytest.raises(ValueError, match="instr_kinds"):
        G.Grammar(instr_kinds=("action", "or"))
    with pytest.raises(ValueError, match="action_kinds"):
        G.Grammar(action_kinds=(7,))
    assert G.Grammar().max_navs == 8 and G.Grammar(instr_kinds=("action",)).max_navs == 2
    assert G.Grammar(action_kinds=(0,)).max_navs == 4
