"""The BabyAI instruction arrays against MiniGrid 3.2.0's own verifier, step by step.

MiniGrid is the oracle: its BabyAI levels lay out the grid and pick the instruction (or we
give it one of ours, strict or not, to reach failures its levels never produce), its bot
and a random policy act, and at every step we record its grid, agent and hand, the status
its ``instrs.verify`` returned, the positions its descriptions hold (``obj_poss``) and the
objects a fresh description would match from the current pose. horizax then replays the
recorded states through `verify` under `jit` and `vmap` and must agree everywhere.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import level
from horizax.grid.babyai import surface as S
from horizax.grid.babyai import verifiers as V
from horizax.grid.state import State
from tests.grid.babyai.bridge import (
    HORIZON,
    desc_array,
    minigrid_env,
    positions_mask,
    record,
    snapshot,
    verifier,
)

pytestmark = pytest.mark.reference


def _pad(episode: dict[str, Any]) -> tuple[State, np.ndarray]:
    """States i32[HORIZON + 1] and actions [HORIZON], padded by repeating the last state
    under action -1 (no effect, status continue)."""
    states = episode["states"] + [episode["states"][-1]] * (HORIZON + 1 - len(episode["states"]))
    actions = np.full(HORIZON, -1, np.int32)
    actions[: len(episode["actions"])] = episode["actions"]
    return jax.tree.map(lambda *xs: np.stack(xs), *states), actions


@functools.partial(jax.jit, static_argnames=("room_size", "done_actions"))
def replay(instr, states, actions, *, room_size, done_actions):
    """Statuses i32[B, T], obj_poss bool[B, T, 2, W, H] and fresh matches bool[B, T, 2, W, H]."""

    def one(instr, states, actions):
        first = jax.tree.map(lambda x: x[0], states)
        prev = jax.tree.map(lambda x: x[:-1], states)
        cur = jax.tree.map(lambda x: x[1:], states)

        def body(progress, xs):
            p, s, a = xs
            status, progress = V.verify(instr, progress, p, s, a, done_actions=done_actions)
            match = jnp.stack(
                [
                    D.find_matching(d, s.grid, s.agent_pos, s.agent_dir, room_size=room_size)
                    for d in (V.desc_a(instr), V.desc_b(instr))
                ]
            )
            return progress, (status, progress.poss, match)

        progress = V.start(instr, first, room_size=room_size)
        return jax.lax.scan(body, progress, (prev, cur, actions))[1]

    return jax.vmap(one)(instr, states, actions)


def check(episodes: list[dict[str, Any]], done_actions: bool = False) -> np.ndarray:
    """Replays ``episodes`` (one grid shape) and asserts agreement; returns MiniGrid's
    statuses, flattened, for coverage asserts."""
    padded = [_pad(e) for e in episodes]
    states = jax.tree.map(lambda *xs: np.stack(xs), *[p[0] for p in padded])
    actions = np.stack([p[1] for p in padded])
    instrs = np.stack([e["instr"] for e in episodes])
    room_size = episodes[0]["room_size"]
    statuses, poss, fresh = jax.device_get(
        replay(instrs, states, actions, room_size=room_size, done_actions=done_actions)
    )
    for b, e in enumerate(episodes):
        first = e["states"][0]
        text = S.instruction_text(
            e["instr"], first.grid, first.agent_pos, int(first.agent_dir), room_size=room_size
        )
        assert text == e["mission"], f"episode {b}: surface string"
        for t in range(len(e["actions"])):
            where = f"episode {b} ({e['mission']!r}) step {t} action {e['actions'][t]}"
            assert statuses[b, t] == e["statuses"][t], f"status, {where}"
            for slot, mask in enumerate(e["poss"][t]):
                np.testing.assert_array_equal(poss[b, t, slot], mask, f"obj_poss {slot}, {where}")
            for slot, mask in enumerate(e["fresh"][t]):
                np.testing.assert_array_equal(fresh[b, t, slot], mask, f"matches {slot}, {where}")
    return np.concatenate([e["statuses"] for e in episodes])


# MiniGrid's bot (successes), the bot with random deviations, a random policy; "grabby"
# (random, but takes or toggles any object it faces) makes strict instructions fail.
POLICIES = ("bot", "noisy", "random")
LEVELS = ["BabyAI-GoToLocal-v0", "BabyAI-PickupLoc-v0", "BabyAI-PutNextLocal-v0", "BabyAI-Open-v0"]


@pytest.mark.parametrize("env_id", LEVELS)
def test_level_instructions_match_minigrid(env_id: str) -> None:
    """MiniGrid's own level instructions, played by its bot (successes), the bot with
    random deviations and a random policy: status, obj_poss, matches and mission agree."""
    episodes = [record(env_id, 7919 * seed, POLICIES[seed % 3], False) for seed in range(12)]
    statuses = check(episodes)
    assert (statuses == V.Status.SUCCESS).sum() >= 3, "the bot must reach success"
    assert len(statuses) >= 150, "hundreds of compared steps"


@pytest.mark.parametrize("env_id", ["BabyAI-PutNextLocal-v0", "BabyAI-Open-v0"])
def test_custom_instructions_match_minigrid(env_id: str) -> None:
    """Our instructions (all four kinds, strict or not, any kind/colour/location) on
    MiniGrid's layouts: wrong objects picked up or doors opened fail in strict mode."""
    episodes = [
        record(env_id, 7919 * seed + 1, (*POLICIES, "grabby")[seed % 4], custom=True)
        for seed in range(32)
    ]
    statuses = check(episodes)
    assert (statuses == V.Status.SUCCESS).sum() >= 4, "the bot must complete our instructions"
    assert (statuses == V.Status.FAILURE).sum() >= 2, "strict failures must be exercised"


def test_done_actions_match_minigrid(monkeypatch: pytest.MonkeyPatch) -> None:
    """MiniGrid's BABYAI_DONE_ACTIONS mode: done after a completing step succeeds, done
    elsewhere (the wrong place) fails, nothing else ends the episode."""
    monkeypatch.setattr(verifier, "use_done_actions", True)
    episodes = [
        record("BabyAI-GoToLocal-v0", 7919 * seed + 2, POLICIES[seed % 3], False)
        for seed in range(12)
    ]
    statuses = check(episodes, done_actions=True)
    assert (statuses == V.Status.SUCCESS).sum() >= 1, "done after reaching the object"
    assert (statuses == V.Status.FAILURE).sum() >= 1, "done in the wrong place"


def test_done_actions_long_episodes_match_minigrid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Done-action mode lets episodes run past completion: objects picked up again while
    held (Pickup's pre-carrying rule), boxes toggled away (no longer tracked), objects
    dropped and moved on; the bot ends its episodes with done."""
    monkeypatch.setattr(verifier, "use_done_actions", True)
    episodes = [
        record("BabyAI-PutNextLocal-v0", 7919 * seed + 3, ("bot", "grabby")[seed % 2], True)
        for seed in range(32)
    ]
    statuses = check(episodes, done_actions=True)
    assert (statuses == V.Status.SUCCESS).sum() >= 2, "done after completing"


def test_done_after_a_second_pickup_matches_minigrid(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pickup's pre-carrying rule: picking up while already holding the object does not
    count, so a done after it fails where a done right after the pickup succeeds."""
    monkeypatch.setattr(verifier, "use_done_actions", True)
    episodes = [
        record("BabyAI-PickupLoc-v0", 7919 * seed + 4, ("then_done", "repick")[seed % 2], False)
        for seed in range(8)
    ]
    statuses = check(episodes, done_actions=True)
    assert (statuses == V.Status.SUCCESS).sum() >= 2, "done right after the pickup"
    assert (statuses == V.Status.FAILURE).sum() >= 2, "done after a second pickup"


@pytest.mark.parametrize(
    ("env_id", "policy"), [("BabyAI-Open-v0", "retoggle"), ("BabyAI-GoToLocal-v0", "then_pick")]
)
def test_done_after_one_more_action_matches_minigrid(
    monkeypatch: pytest.MonkeyPatch, env_id: str, policy: str
) -> None:
    """Done-action mode, one action between completion and done: closing the opened door
    again undoes Open (done fails); picking up the object gone to keeps GoTo satisfied,
    because MiniGrid still counts the object at the cell it left (done succeeds)."""
    monkeypatch.setattr(verifier, "use_done_actions", True)
    episodes = [record(env_id, 7919 * seed + 5, policy, False) for seed in range(8)]
    statuses = check(episodes, done_actions=True)
    assert (statuses != V.Status.CONTINUE).sum() >= 4, "episodes must reach their done"


def test_surface_words() -> None:
    """Articles, colour, kind and location words of ObjDesc.surface."""
    desc = D.describe(C.BALL, C.RED, D.Loc.LEFT)
    assert S.description_text(desc, 1) == "the red ball on your left"
    assert S.description_text(D.describe(loc=D.Loc.FRONT), 2) == "a object in front of you"
    with pytest.raises(ValueError, match="num_matching"):
        S.description_text(desc, 0)


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="kind"):
        D.describe(C.WALL)
    with pytest.raises(ValueError, match="desc_a"):
        V.instruction(V.Instr.OPEN, D.describe(C.BALL))
    with pytest.raises(ValueError, match="desc_b"):
        V.instruction(V.Instr.PUT_NEXT, D.describe(C.BALL))


@functools.partial(jax.jit, static_argnames="room_size")
def _all_matches(descs, grid, pos, direction, *, room_size):
    return jax.vmap(lambda d: D.find_matching(d, grid, pos, direction, room_size=room_size))(descs)


@pytest.mark.parametrize("env_id", ["BabyAI-GoToLocal-v0", "BabyAI-Open-v0"])
def test_find_matching_every_description(env_id: str) -> None:
    """Every kind (or any), colour (or any) and location, from every direction at several
    positions: MiniGrid's ``find_matching_objs`` and ours pick the same cells (walls for
    "a grey object", the start room only for locations, nothing at the agent's side)."""
    descs = [
        verifier.ObjDesc(kind, colour, loc)
        for kind in [None, *verifier.OBJ_TYPES]
        for colour in [None, *C.COLOR_NAMES]
        for loc in [None, *verifier.LOC_NAMES]
    ]
    arrays = np.stack([desc_array(d) for d in descs])
    mg = minigrid_env(env_id)
    mg.reset(seed=3)
    rng = np.random.default_rng(3)
    poses = 0
    for _ in range(40):
        mg.step(int(rng.choice([C.LEFT, C.FORWARD, C.FORWARD])))
        if poses >= 8 or rng.random() < 0.7:
            continue
        poses += 1
        state = snapshot(mg)
        ours = np.asarray(
            _all_matches(
                arrays, state.grid, state.agent_pos, state.agent_dir, room_size=mg.room_size
            )
        )
        for desc, mask in zip(descs, ours, strict=True):
            expected = positions_mask(mask.shape, desc.find_matching_objs(mg)[1])
            np.testing.assert_array_equal(mask, expected, f"{desc!r} at {mg.agent_pos}")
    assert poses >= 4, "several poses compared"


def test_one_trace_serves_every_kind_under_jit_and_vmap() -> None:
    """A batch mixing the four kinds (strict or not) runs through one jitted, vmapped
    verify: the instruction is data, not a Python branch, so nothing retraces."""
    traces = []

    @jax.jit
    def step(instrs, progress, prev, cur, actions):
        traces.append(1)
        return jax.vmap(V.verify, in_axes=(0, 0, None, None, 0))(
            instrs, progress, prev, cur, actions
        )

    mg = minigrid_env("BabyAI-PutNextLocal-v0")
    mg.reset(seed=0)
    first = snapshot(mg)
    ball = D.describe(C.BALL)
    instrs = np.stack(
        [
            V.instruction(V.Instr.GOTO, ball),
            V.instruction(V.Instr.OPEN, D.describe(C.DOOR), strict=True),
            V.instruction(V.Instr.PICKUP, ball, strict=True),
            V.instruction(V.Instr.PUT_NEXT, ball, D.describe(C.KEY)),
        ]
    )
    progress = jax.vmap(lambda i: V.start(i, first, room_size=mg.room_size))(instrs)
    for action in (C.LEFT, C.FORWARD, C.PICKUP):
        mg.step(action)
        cur = snapshot(mg)
        status, progress = step(instrs, progress, first, cur, np.full(4, action, np.int32))
        first = cur
        assert status.shape == (4,) and status.dtype == jnp.int32, "one status per instruction"
    assert len(traces) == 1, "one trace for every kind and step"


def test_level_kinds_are_read_off_the_environment():
    assert level.level_kinds(horizax.make("BabyAI-GoToLocal-v0")) == (V.Instr.GOTO,)
    assert level.level_kinds(horizax.make("BabyAI-PickupLoc-v0")) == (V.Instr.PICKUP,)
    assert level.level_kinds(horizax.make("BabyAI-PutNextLocal-v0")) == (V.Instr.PUT_NEXT,)
    with pytest.raises(ValueError, match="env: 'MiniGrid-Empty-5x5-v0' is not a BabyAI level"):
        level.level_kinds(horizax.make("MiniGrid-Empty-5x5-v0"))
