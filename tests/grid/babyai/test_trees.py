"""BabyAI's instruction trees (an ``and`` inside then / after) against MiniGrid 3.2.0's
verifier, step by step: random trees of ours (strict or not at every level) and the trees
MiniGrid's grammar levels draw, played by MiniGrid's bot, the bot with random deviations, a
random policy and a policy that takes or toggles whatever it faces; horizax replays the
recorded states under `jit` and `vmap`.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np
import pytest

from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import surface as S
from horizax.grid.babyai import trees as T
from horizax.grid.babyai import verifiers as V
from tests.grid.babyai.bridge import record
from tests.grid.babyai.test_sequences import POLICIES, _stack

pytestmark = pytest.mark.reference


@functools.partial(jax.jit, static_argnames=("room_size",))
def replay(trees, states, actions, *, room_size):
    """Statuses i32[B, T] and obj_poss bool[B, T, 2 branches, 2 clauses, 2 descs, W, H]."""

    def one(tree, states, actions):
        first = jax.tree.map(lambda x: x[0], states)
        prev = jax.tree.map(lambda x: x[:-1], states)
        cur = jax.tree.map(lambda x: x[1:], states)

        def body(progress, xs):
            p, s, a = xs
            status, progress = T.verify_tree(tree, progress, p, s, a)
            return progress, (status, progress.branches.clauses.poss)

        progress = T.start_tree(tree, first, room_size=room_size)
        return jax.lax.scan(body, progress, (prev, cur, actions))[1]

    return jax.vmap(one)(trees, states, actions)


def check(episodes: list[dict[str, Any]]) -> np.ndarray:
    """Replays ``episodes`` (one grid shape), asserts agreement, returns MiniGrid's statuses."""
    states, actions = _stack(episodes)
    trees = np.stack([e["tree"] for e in episodes])
    room_size = episodes[0]["room_size"]
    statuses, poss = jax.device_get(replay(trees, states, actions, room_size=room_size))
    for b, e in enumerate(episodes):
        first = e["states"][0]
        text = S.tree_text(
            e["tree"], first.grid, first.agent_pos, int(first.agent_dir), room_size=room_size
        )
        assert text == e["mission"], f"episode {b}: surface string"
        used = np.asarray(T.leaves_used(e["tree"]))
        # MiniGrid's descriptions, flattened over the leaves, in our (branch, clause, slot) order
        slots = [
            (leaf // 2, leaf % 2, d)
            for leaf, instr in enumerate(np.asarray(T.leaves(e["tree"])))
            if used[leaf]
            for d in range(2 if instr[0] == V.Instr.PUT_NEXT else 1)
        ]
        for t in range(len(e["actions"])):
            where = f"episode {b} ({e['mission']!r}) step {t} action {e['actions'][t]}"
            assert statuses[b, t] == e["statuses"][t], f"status, {where}"
            for (br, c, d), mask in zip(slots, e["poss"][t], strict=True):
                np.testing.assert_array_equal(poss[b, t, br, c, d], mask, f"obj_poss, {where}")
    return np.concatenate([e["statuses"] for e in episodes])


def test_random_trees_match_minigrid() -> None:
    """Trees of every shape, strict or not, over all four action kinds."""
    episodes = [
        record("BabyAI-PutNextLocal-v0", 7919 * seed + 11, POLICIES[seed % 4], True, "tree")
        for seed in range(40)
    ]
    statuses = check(episodes)
    nested = [e for e in episodes if e["instr"] is None]
    assert len(nested) >= 4, "an and inside then / after"
    assert (statuses == V.Status.SUCCESS).sum() >= 2, "trees completed"
    assert (statuses == V.Status.FAILURE).sum() >= 2, "trees failed"


@pytest.mark.parametrize("env_id", ["BabyAI-GoToSeqS5R2-v0", "BabyAI-MiniBossLevel-v0"])
def test_level_trees_match_minigrid(env_id: str) -> None:
    """MiniGrid's own sampled instructions, played by its bot, noisy bot and a random policy."""
    episodes = [record(env_id, 7919 * i + 3, POLICIES[i % 3], False) for i in range(16)]
    statuses = check(episodes)
    assert any(e["instr"] is None for e in episodes), "a nested tree among MiniGrid's"
    assert (statuses == V.Status.SUCCESS).sum() >= 1, "the bot completes a level instruction"


def test_tree_rejects_what_the_grammar_cannot_say() -> None:
    goto = V.instruction(V.Instr.GOTO, np.array([5, 0, 0], np.int32))
    single = Q.sequence(Q.Seq.SINGLE, goto)
    conj = Q.sequence(Q.Seq.AND, goto, goto)
    with pytest.raises(ValueError, match="kind=AND"):
        T.tree(Q.Seq.AND, single, single)
    with pytest.raises(ValueError, match="branch_b"):
        T.tree(Q.Seq.SINGLE, single, single)
    with pytest.raises(ValueError, match="branch_a"):
        T.tree(Q.Seq.BEFORE, Q.sequence(Q.Seq.AFTER, goto, goto), conj)
    tree = T.tree(Q.Seq.AFTER, conj, single)
    np.testing.assert_array_equal(np.asarray(T.leaves_used(tree)), [True, True, True, False])
    put = V.instruction(V.Instr.PUT_NEXT, np.array([5, 0, 0]), np.array([6, 0, 0]))
    tree = T.tree(Q.Seq.BEFORE, Q.sequence(Q.Seq.AND, put, goto), Q.sequence(Q.Seq.AND, put, put))
    assert int(T.num_navs(tree)) == 7
    assert int(T.num_navs(T.tree(Q.Seq.SINGLE, single))) == 1
