"""Test-only bridge from MiniGrid's BabyAI verifier to the instruction arrays.

`record` plays one MiniGrid episode (its level's instruction or one of ours) with a chosen
policy and keeps what the array verifier must reproduce at every step: the states, the
statuses MiniGrid's ``instrs.verify`` returned, its descriptions' ``obj_poss`` and what a
fresh description would match from the current pose.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import trees as T
from horizax.grid.babyai import verifiers as V
from horizax.grid.state import State
from tests.grid.minigrid_bridge import minigrid_env, state_from_minigrid

verifier = pytest.importorskip("minigrid.envs.babyai.core.verifier")
baby_ai_bot = pytest.importorskip("minigrid.utils.baby_ai_bot")

HORIZON = 48  # steps recorded per episode: padded arrays give one compile per grid shape
_LOCS = {None: D.Loc.NONE, "left": D.Loc.LEFT, "right": D.Loc.RIGHT}
_LOCS.update({"front": D.Loc.FRONT, "behind": D.Loc.BEHIND})
_STATUS = {None: V.Status.CONTINUE, "continue": V.Status.CONTINUE}
_STATUS.update({"success": V.Status.SUCCESS, "failure": V.Status.FAILURE})
_SEQS = {"AndInstr": Q.Seq.AND, "BeforeInstr": Q.Seq.BEFORE, "AfterInstr": Q.Seq.AFTER}


def desc_array(desc: Any) -> np.ndarray:
    """Our array for a MiniGrid ``ObjDesc``."""
    kind = D.ANY if desc.type is None else C.OBJECT_NAMES.index(desc.type)
    colour = D.ANY if desc.color is None else C.COLOR_NAMES.index(desc.color)
    return D.describe(kind, colour, _LOCS[desc.loc])


def instr_array(instr: Any) -> np.ndarray:
    """Our array for a MiniGrid action instruction or a composite of two."""
    if isinstance(instr, verifier.SeqInstr):
        a, b = instr_array(instr.instr_a), instr_array(instr.instr_b)
        return Q.sequence(_SEQS[type(instr).__name__], a, b, strict=instr.strict)
    if isinstance(instr, verifier.GoToInstr):
        return V.instruction(V.Instr.GOTO, desc_array(instr.desc))
    if isinstance(instr, verifier.OpenInstr):
        return V.instruction(V.Instr.OPEN, desc_array(instr.desc), strict=instr.strict)
    if isinstance(instr, verifier.PickupInstr):
        return V.instruction(V.Instr.PICKUP, desc_array(instr.desc), strict=instr.strict)
    assert isinstance(instr, verifier.PutNextInstr), f"unexpected {type(instr)}"
    return V.instruction(
        V.Instr.PUT_NEXT,
        desc_array(instr.desc_move),
        desc_array(instr.desc_fixed),
        strict=instr.strict,
    )


def tree_array(instr: Any) -> np.ndarray:
    """Our `trees.tree` for any MiniGrid instruction of the grammar (an action, an ``and`` of
    two, or a ``then``/``after`` of those)."""

    def branch(clause: Any) -> np.ndarray:
        if isinstance(clause, verifier.AndInstr):
            return instr_array(clause)
        return Q.sequence(Q.Seq.SINGLE, instr_array(clause))

    if isinstance(instr, (verifier.BeforeInstr, verifier.AfterInstr)):
        kind = _SEQS[type(instr).__name__]
        return T.tree(kind, branch(instr.instr_a), branch(instr.instr_b), strict=instr.strict)
    return T.tree(Q.Seq.SINGLE, branch(instr))


def descs_of(instr: Any) -> list[Any]:
    """MiniGrid's descriptions in our slot order (desc_a, desc_b; clause a's then b's)."""
    if isinstance(instr, verifier.SeqInstr):
        return descs_of(instr.instr_a) + descs_of(instr.instr_b)
    if isinstance(instr, verifier.PutNextInstr):
        return [instr.desc_move, instr.desc_fixed]
    return [instr.desc]


def positions_mask(shape: tuple[int, int], positions: list[Any]) -> np.ndarray:
    mask = np.zeros(shape, bool)
    for x, y in positions:
        mask[x, y] = True
    return mask


def snapshot(mg: Any) -> State:
    return state_from_minigrid(mg, mission_fn=lambda _: np.zeros(missions.MISSION_SIZE))


def random_instruction(mg: Any, rng: np.random.Generator, strict: bool) -> Any:
    """A MiniGrid instruction of ours about an object of the current grid, often strict,
    with kind, colour or location sometimes dropped (so several objects match); if
    ``strict``, always strict and never GoTo (which has no strict mode)."""
    objects = [
        mg.grid.get(x, y)
        for x in range(mg.grid.width)
        for y in range(mg.grid.height)
        if mg.grid.get(x, y) is not None and mg.grid.get(x, y).type in verifier.OBJ_TYPES
    ]
    while True:
        kind = rng.choice(
            ["open", "pickup", "putnext"] if strict else ["goto", "open", "pickup", "putnext"]
        )
        pool = [o for o in objects if (o.type == "door") == (kind == "open")]
        if not pool:
            continue
        obj = pool[rng.integers(len(pool))]
        drop_kind = kind != "open" and rng.random() < 0.3
        desc = verifier.ObjDesc(
            None if drop_kind else obj.type,
            None if rng.random() < 0.3 else obj.color,
            [None, *verifier.LOC_NAMES][rng.integers(5)] if rng.random() < 0.5 else None,
        )
        if kind == "pickup" and desc.type is None:
            desc.type = obj.type  # MiniGrid allows "object", but it could name a door
        strict = strict or bool(rng.random() < 0.5)
        if kind == "goto":
            instr = verifier.GoToInstr(desc)
        elif kind == "open":
            instr = verifier.OpenInstr(desc, strict=strict)
        elif kind == "pickup":
            instr = verifier.PickupInstr(desc, strict=strict)
        else:
            fixed = objects[rng.integers(len(objects))]
            if fixed is obj:
                continue
            instr = verifier.PutNextInstr(
                verifier.ObjDesc(obj.type, obj.color), verifier.ObjDesc(fixed.type), strict=strict
            )
        if all(d.find_matching_objs(mg)[0] for d in descs_of(instr)):
            return instr


_EXTRA = {"retoggle": C.TOGGLE, "then_pick": C.PICKUP}


def random_sequence(mg: Any, rng: np.random.Generator, strict: bool) -> Any:
    """A composite of ours: two random clauses joined by and / then / after."""
    a, b = (random_instruction(mg, rng, strict) for _ in range(2))
    join = [verifier.AndInstr, verifier.BeforeInstr, verifier.AfterInstr][rng.integers(3)]
    return join(a, b, strict=bool(rng.random() < 0.5))


def random_tree(mg: Any, rng: np.random.Generator, strict: bool) -> Any:
    """An instruction of the whole grammar: an action, an ``and``, or a then / after of two
    clauses each an action or an ``and`` (strict or not at every level)."""
    kind = rng.integers(3)
    if kind == 0:
        return random_instruction(mg, rng, strict)

    def conjunction() -> Any:
        a, b = (random_instruction(mg, rng, strict) for _ in range(2))
        return verifier.AndInstr(a, b, strict=bool(rng.random() < 0.5))

    if kind == 1:
        return conjunction()
    a, b = (
        conjunction() if rng.random() < 0.5 else random_instruction(mg, rng, strict)
        for _ in range(2)
    )
    join = verifier.BeforeInstr if rng.random() < 0.5 else verifier.AfterInstr
    return join(a, b, strict=bool(rng.random() < 0.5))


def record(
    env_id: str, seed: int, policy: str, custom: bool, composite: bool | str = False
) -> dict[str, Any]:
    """Plays one MiniGrid episode and records what our verifier must reproduce
    (``composite``: True for `random_sequence`, ``"tree"`` for `random_tree`)."""
    mg = minigrid_env(env_id)
    mg.reset(seed=seed)
    rng = np.random.default_rng(seed)
    if custom:
        make = {False: random_instruction, True: random_sequence, "tree": random_tree}[composite]
        mg.instrs = make(mg, rng, strict=policy == "grabby")
        mg.instrs.reset_verifier(mg)
        mg.mission = mg.instrs.surface(mg)
    instr = mg.instrs
    shape = (mg.grid.width, mg.grid.height)
    statuses: list[Any] = []
    verify, depth = instr.verify, [0]

    def recorded(action: int) -> Any:
        # composites call their own verify again on the step a clause completes:
        # only the outermost call is the step's status
        depth[0] += 1
        try:
            status = verify(action)
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            statuses.append(status)
        return status

    instr.verify = recorded
    bot = baby_ai_bot.BabyAIBot(mg) if policy not in ("random", "grabby") else None
    states, actions, poss, fresh = [snapshot(mg)], [], [], []
    taken, repicked = None, False
    for _ in range(HORIZON):
        # grabby never says done: in done-action mode its episodes run on past success
        action = int(rng.integers(C.DONE if policy == "grabby" else C.NUM_ACTIONS))
        if bot is not None:
            try:
                suggested = int(bot.replan(taken))
            except Exception:  # the bot gives up after some deviations: act randomly
                bot = None
            else:
                if policy != "noisy" or rng.random() < 0.7:
                    action = suggested
        if policy in ("repick", "then_done") and mg.carrying is not None:
            # once the bot holds something: done, or a second pickup and then done
            action = C.PICKUP if policy == "repick" and not repicked else C.DONE
            repicked = True
        if policy in _EXTRA and (repicked or action == C.DONE):
            # when the bot says done: one more action first (closing the opened door,
            # taking the object gone to), then done
            action, repicked = (C.DONE if repicked else _EXTRA[policy]), True
        front = mg.grid.get(*mg.front_pos)
        grab = policy == "grabby" and rng.random() < 0.6
        if grab and front is not None and front.type in verifier.OBJ_TYPES:
            # deliberate mistakes: take or toggle whatever is faced, right object or not
            action = C.TOGGLE if front.type == "door" else C.PICKUP
        taken = action
        _, _, terminated, _, _ = mg.step(action)
        states.append(snapshot(mg))
        actions.append(action)
        poss.append([positions_mask(shape, d.obj_poss) for d in descs_of(instr)])
        fresh.append(
            [positions_mask(shape, copy.copy(d).find_matching_objs(mg)[1]) for d in descs_of(instr)]
        )
        if terminated:
            break
    assert len(statuses) == len(actions), "one recorded status per step"
    nested = isinstance(instr, verifier.SeqInstr) and any(
        isinstance(c, verifier.SeqInstr) for c in (instr.instr_a, instr.instr_b)
    )
    return {
        "instr": None if nested else instr_array(instr),
        "tree": tree_array(instr),
        "mission": mg.mission,
        "room_size": mg.room_size,
        "states": states,
        "actions": np.array(actions, np.int32),
        "statuses": np.array([_STATUS[s] for s in statuses], np.int32),
        "poss": poss,
        "fresh": fresh,
    }
