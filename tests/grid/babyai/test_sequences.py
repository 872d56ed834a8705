"""BabyAI's composites (and, then, after) against MiniGrid 3.2.0's verifier, step by step.

Our composites of random clauses (strict or not) on MiniGrid's layouts, played by MiniGrid's
bot, the bot with random deviations, a random policy and a policy that takes or toggles
whatever it faces; horizax replays the recorded states under `jit` and `vmap`.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np
import pytest

from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import surface as S
from horizax.grid.babyai import verifiers as V
from horizax.grid.state import State
from tests.grid.babyai.bridge import HORIZON, minigrid_env, record, verifier

pytestmark = pytest.mark.reference


def _stack(episodes: list[dict[str, Any]]) -> tuple[State, np.ndarray]:
    states, actions = [], []
    for e in episodes:
        padded = e["states"] + [e["states"][-1]] * (HORIZON + 1 - len(e["states"]))
        states.append(jax.tree.map(lambda *xs: np.stack(xs), *padded))
        a = np.full(HORIZON, -1, np.int32)
        a[: len(e["actions"])] = e["actions"]
        actions.append(a)
    return jax.tree.map(lambda *xs: np.stack(xs), *states), np.stack(actions)


@functools.partial(jax.jit, static_argnames=("room_size", "done_actions"))
def replay(seqs, states, actions, *, room_size, done_actions):
    """Statuses i32[B, T] and obj_poss bool[B, T, 2 clauses, 2 descs, W, H]."""

    def one(seq, states, actions):
        first = jax.tree.map(lambda x: x[0], states)
        prev = jax.tree.map(lambda x: x[:-1], states)
        cur = jax.tree.map(lambda x: x[1:], states)

        def body(progress, xs):
            p, s, a = xs
            status, progress = Q.verify_sequence(seq, progress, p, s, a, done_actions=done_actions)
            return progress, (status, progress.clauses.poss)

        progress = Q.start_sequence(seq, first, room_size=room_size)
        return jax.lax.scan(body, progress, (prev, cur, actions))[1]

    return jax.vmap(one)(seqs, states, actions)


def check(episodes: list[dict[str, Any]], done_actions: bool = False) -> np.ndarray:
    """Replays ``episodes`` (one grid shape), asserts agreement, returns MiniGrid's statuses."""
    states, actions = _stack(episodes)
    seqs = np.stack([e["instr"] for e in episodes])
    room_size = episodes[0]["room_size"]
    statuses, poss = jax.device_get(
        replay(seqs, states, actions, room_size=room_size, done_actions=done_actions)
    )
    for b, e in enumerate(episodes):
        first = e["states"][0]
        text = S.sequence_text(
            e["instr"], first.grid, first.agent_pos, int(first.agent_dir), room_size=room_size
        )
        assert text == e["mission"], f"episode {b}: surface string"
        # MiniGrid's descriptions, flattened over the clauses, in our (clause, slot) order
        slots = [
            (c, d)
            for c, clause in enumerate(Q.clauses(e["instr"]))
            for d in range(2 if clause[0] == V.Instr.PUT_NEXT else 1)
        ]
        for t in range(len(e["actions"])):
            where = f"episode {b} ({e['mission']!r}) step {t} action {e['actions'][t]}"
            assert statuses[b, t] == e["statuses"][t], f"status, {where}"
            for (c, d), mask in zip(slots, e["poss"][t], strict=True):
                np.testing.assert_array_equal(poss[b, t, c, d], mask, f"obj_poss {c}.{d}, {where}")
    return np.concatenate([e["statuses"] for e in episodes])


POLICIES = ("bot", "noisy", "random", "grabby")


@pytest.mark.parametrize("env_id", ["BabyAI-PutNextLocal-v0", "BabyAI-Open-v0"])
def test_composites_match_minigrid(env_id: str) -> None:
    """and / then / after, strict or not, over all four clause kinds."""
    episodes = [
        record(env_id, 7919 * seed + 6, POLICIES[seed % 4], custom=True, composite=True)
        for seed in range(32)
    ]
    statuses = check(episodes)
    kinds = {int(e["instr"][0]) for e in episodes}
    assert kinds == {0, 1, 2}, "every join exercised"
    assert (statuses == V.Status.SUCCESS).sum() >= 2, "composites completed"
    assert (statuses == V.Status.FAILURE).sum() >= 2, "composites failed"


def flat_seeds(env_id: str, count: int) -> list[int]:
    """Seeds whose level instruction is a composite of two action clauses (the levels also
    draw "and" inside "then"/"after", which this encoding does not cover yet)."""
    mg, seeds = minigrid_env(env_id), []
    for seed in range(0, 7919 * 200, 7919):
        mg.reset(seed=seed)
        instr = mg.instrs
        flat = isinstance(instr, verifier.SeqInstr) and not any(
            isinstance(c, verifier.SeqInstr) for c in (instr.instr_a, instr.instr_b)
        )
        if flat:
            seeds.append(seed)
        if len(seeds) == count:
            return seeds
    raise AssertionError(f"only {len(seeds)} flat composites in {env_id}")


@pytest.mark.parametrize("env_id", ["BabyAI-GoToSeqS5R2-v0", "BabyAI-SynthSeq-v0"])
def test_level_composites_match_minigrid(env_id: str) -> None:
    """MiniGrid's own sampled composites, played by its bot, noisy bot and a random policy."""
    seeds = flat_seeds(env_id, 12)
    episodes = [record(env_id, seed, POLICIES[i % 3], False) for i, seed in enumerate(seeds)]
    statuses = check(episodes)
    assert (statuses == V.Status.SUCCESS).sum() >= 1, "the bot completes a level composite"


def test_composites_done_actions_match_minigrid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Done-action mode: clauses answer only on done, and composites read those answers."""
    monkeypatch.setattr(verifier, "use_done_actions", True)
    episodes = [
        record("BabyAI-PutNextLocal-v0", 7919 * seed + 7, POLICIES[seed % 4], True, True)
        for seed in range(24)
    ]
    statuses = check(episodes, done_actions=True)
    assert (statuses != V.Status.CONTINUE).sum() >= 4, "episodes must reach a done"


def test_sequence_rejects_non_clauses() -> None:
    with pytest.raises(ValueError, match="instr_b"):
        Q.sequence(Q.Seq.AND, V.instruction(V.Instr.GOTO, np.array([5, 0, 0])), np.zeros(3))


def test_a_single_composite_holds_one_clause():
    clause = V.instruction(V.Instr.OPEN, np.array([4, 0, 0], np.int32))
    single = Q.sequence(Q.Seq.SINGLE, clause)
    np.testing.assert_array_equal(Q.clauses(single)[0], clause)
    with pytest.raises(ValueError, match="instr_b"):
        Q.sequence(Q.Seq.SINGLE, clause, clause)
    with pytest.raises(ValueError, match="instr_b"):
        Q.sequence(Q.Seq.BEFORE, clause)
    grid = np.zeros((5, 5, 3), np.uint8)
    grid[..., 0] = 1  # empty
    grid[4, 2] = (4, 0, 1)  # a closed red door
    pos, direction = np.array([2, 2]), 0
    assert S.sequence_text(single, grid, pos, direction, room_size=5) == S.instruction_text(
        clause, grid, pos, direction, room_size=5
    )
