"""Guided MiniGrid episodes for the Unlock* and KeyCorridor lockstep tests, with coverage counts.

`expert_action` solves the key -> locked door -> object tasks on MiniGrid's own grid by a
breadth-first search over (cell, direction): it clears an object blocking the cell in front of
the locked door (BlockedUnlockPickup's ball), fetches the key, unlocks the door, opens the
closed doors on its way (KeyCorridor), drops whatever it holds when it needs a free hand and
picks up the mission's object (or, for Unlock, just opens the door).

`script` plays random actions then noisy expert episodes on a deep copy of the env, mirroring
`bridge.lockstep` (an episode ending at action index ``n`` is reset with ``seed=n``), and
returns the actions as one sequence for one lockstep call, plus a `Counter` of what the run
exercised (replaying the actions on the real env reproduces the same trajectory, and the
lockstep asserts that horizax matched it at every step):

* ``(action, front object)`` for every pickup, drop and toggle facing a key, ball, box or door;
* ``"picked <kind>"``, ``"dropped"``, ``"pickup with full hand"`` (facing an object);
* ``"unlocked"`` (locked door opened with its key), ``"unlock failed"`` (toggled while not
  holding a key), ``"door opened"`` / ``"door closed"`` (unlocked doors toggled);
* ``"success"`` (termination with a positive reward), ``"truncated"``.
"""

from __future__ import annotations

import copy
from collections import Counter, deque
from typing import Any

import numpy as np

from horizax.grid import constants as C
from horizax.grid import missions

OBJECTS = ("key", "ball", "box", "door")
INTERACTIONS = {C.PICKUP: "pickup", C.DROP: "drop", C.TOGGLE: "toggle"}


def pickup_mission(mg: Any) -> np.ndarray:
    """i32[10]: the mission array of MiniGrid's "pick up the {colour} {kind}" (its ``obj``)."""
    return np.asarray(
        missions.encode(
            missions.Template.PICK_UP,
            color=C.COLOR_NAMES.index(mg.obj.color),
            kind=C.OBJECT_NAMES.index(mg.obj.type),
        )
    )


def colour_at(grid: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """i32[N]: the colour channel of ``grid`` (u8[N, W, H, 3]) at ``pos`` (i32[N, 2])."""
    return grid[np.arange(len(grid)), pos[:, 0], pos[:, 1], 1].astype(np.int32)


def primitives(jaxpr: Any) -> list[str]:
    """Every primitive of a jaxpr, nested calls included."""
    names = []
    for eqn in jaxpr.eqns:
        names.append(eqn.primitive.name)
        for param in eqn.params.values():
            inner = getattr(param, "jaxpr", None)
            if inner is not None:
                names += primitives(getattr(inner, "jaxpr", inner))
    return names


def _front(mg: Any) -> tuple[int, int]:
    x, y = mg.front_pos
    return int(x), int(y)


def _cells(mg: Any, kind: str, color: str | None = None) -> list[tuple[int, int]]:
    out = []
    for x in range(mg.width):
        for y in range(mg.height):
            obj = mg.grid.get(x, y)
            if obj is not None and obj.type == kind and (color is None or obj.color == color):
                out.append((x, y))
    return out


def _plan(mg: Any, targets: set[tuple[int, int]], interaction: int) -> int | None:
    """The first action towards facing any of ``targets`` then ``interaction`` there.

    Walks through empty cells and doors that are open or merely closed; when the next step
    is into a closed door the action is ``toggle`` (open it first). None: unreachable.
    """
    if _front(mg) in targets:
        return interaction
    width, height = mg.width, mg.height

    def passable(x: int, y: int) -> bool:
        obj = mg.grid.get(x, y)
        return obj is None or (obj.type == "door" and not obj.is_locked)

    start = (int(mg.agent_pos[0]), int(mg.agent_pos[1]), int(mg.agent_dir))
    first: dict[tuple[int, int, int], int | None] = {start: None}
    todo = deque([start])
    while todo:
        x, y, d = todo.popleft()
        dx, dy = (int(v) for v in C.DIR_TO_VEC[d])
        fx, fy = x + dx, y + dy
        if (fx, fy) in targets:
            action = first[(x, y, d)]
            break
        moves = [(C.LEFT, (x, y, (d - 1) % 4)), (C.RIGHT, (x, y, (d + 1) % 4))]
        if 0 <= fx < width and 0 <= fy < height and passable(fx, fy):
            moves.append((C.FORWARD, (fx, fy, d)))
        for move, nxt in moves:
            if nxt not in first:
                first[nxt] = move if first[(x, y, d)] is None else first[(x, y, d)]
                todo.append(nxt)
    else:
        return None
    if action == C.FORWARD:
        obj = mg.grid.get(*_front(mg))
        if obj is not None and obj.type == "door" and not obj.is_open:
            return C.TOGGLE
    return action


def _drop_somewhere(mg: Any, avoid: set[tuple[int, int]]) -> int | None:
    """``drop`` on the cell in front if it is free (and not in ``avoid``), else go to one."""
    free = {
        (x, y)
        for x in range(1, mg.width - 1)
        for y in range(1, mg.height - 1)
        if mg.grid.get(x, y) is None and (x, y) not in avoid
    }
    free.discard((int(mg.agent_pos[0]), int(mg.agent_pos[1])))
    return _plan(mg, free, C.DROP)


def expert_action(mg: Any, eager: bool = False, hold: bool = False) -> int | None:
    """A shortest-path action for Unlock*, KeyCorridor; None when stuck (take a random one).

    Two sloppy variants exercise failures: ``eager`` tries the locked door before fetching
    its key; ``hold`` walks to the mission's object still holding the key and tries to pick
    it up with a full hand (or to drop the key onto it).
    """
    locked = [p for p in _cells(mg, "door") if mg.grid.get(*p).is_locked]
    carrying = mg.carrying
    if locked:
        door_pos = locked[0]
        door = mg.grid.get(*door_pos)
        # The locked door always sits in a vertical wall and is opened from its left.
        approach = (door_pos[0] - 1, door_pos[1])
        if mg.grid.get(*approach) is not None:
            if carrying is None:
                return _plan(mg, {approach}, C.PICKUP)
            return _drop_somewhere(mg, {approach})
        if carrying is not None and carrying.type == "key" and carrying.color == door.color:
            return _plan(mg, {door_pos}, C.TOGGLE)
        if carrying is not None:
            return _drop_somewhere(mg, {approach})
        if eager:
            return _plan(mg, {door_pos}, C.TOGGLE)
        return _plan(mg, set(_cells(mg, "key", door.color)), C.PICKUP)
    target = getattr(mg, "obj", None)
    if target is None or target.cur_pos is None or mg.grid.get(*target.cur_pos) is not target:
        return None  # Unlock is over once the door opens; a toggled box is gone
    if carrying is not None and not hold:
        return _drop_somewhere(mg, set())
    target_pos = tuple(int(v) for v in target.cur_pos)
    if carrying is not None and _front(mg) == target_pos:
        # Holding on: a failed drop (the cell is taken) or a failed pickup (full hand).
        return C.DROP if mg.step_count % 2 else C.PICKUP
    return _plan(mg, {target_pos}, C.PICKUP)


def _record(counts: Counter, mg: Any, action: int) -> tuple[bool, bool]:
    """Steps ``mg`` with ``action``, counting what happened; returns (terminated, truncated)."""
    front = mg.grid.get(*_front(mg))
    kind = None if front is None else front.type
    held = mg.carrying
    was = (front.is_open, front.is_locked) if kind == "door" else None
    _, reward, terminated, truncated, _ = mg.step(action)
    if action in INTERACTIONS and kind in OBJECTS:
        counts[(INTERACTIONS[action], kind)] += 1
    if action == C.PICKUP and kind in ("key", "ball", "box"):
        if held is not None:
            counts["pickup with full hand"] += 1
        elif mg.carrying is not None:
            counts[f"picked {mg.carrying.type}"] += 1
    if action == C.DROP and held is not None and mg.carrying is None:
        counts["dropped"] += 1
    if action == C.TOGGLE and was is not None:
        is_open, is_locked = front.is_open, front.is_locked
        if was[1]:
            if not is_locked:
                assert held is not None and held.type == "key" and held.color == front.color
                counts["unlocked"] += 1
            elif held is None or held.type != "key":
                counts["unlock failed"] += 1
        elif was[0] and not is_open:
            counts["door closed"] += 1
        elif not was[0] and is_open:
            counts["door opened"] += 1
    if terminated and reward > 0:
        counts["success"] += 1
    if truncated and not terminated:
        counts["truncated"] += 1
    return terminated, truncated


def script(
    mg: Any,
    prefix: np.ndarray,
    min_steps: int,
    rng: np.random.Generator,
    noise: float = 0.15,
    probe: float = 0.15,
    sloppy: float = 0.3,
) -> tuple[np.ndarray, Counter]:
    """``(actions i32[T], counts)``: ``prefix`` then noisy expert episodes until ``T >=
    min_steps`` and the last episode has ended.

    Args:
        mg: the unwrapped MiniGrid env, already reset (left untouched: planned on a copy).
        prefix: actions played first (e.g. random ones, to reach the time limit).
        min_steps: the least number of actions.
        rng: drives the noise.
        noise: probability of a uniform action instead of the expert's.
        probe: probability, when facing a key, ball, box or door, of a uniform choice among
            pickup, drop and toggle (coverage of the interactions an expert never makes).
        sloppy: probability that an episode's expert has each sloppy habit of
            `expert_action` (``eager``, ``hold``).
    """
    sim = copy.deepcopy(mg)
    actions: list[int] = []
    counts: Counter = Counter()
    # This episode's sloppy habits, each dropped once it has produced its failure.
    quirks = {"eager": False, "hold": False}
    failures = {"eager": "unlock failed", "hold": "pickup with full hand"}

    def act(action: int) -> bool:
        actions.append(int(action))
        before = dict(counts)
        terminated, truncated = _record(counts, sim, int(action))
        for quirk, failure in failures.items():
            quirks[quirk] = quirks[quirk] and counts[failure] == before.get(failure, 0)
        if terminated or truncated:
            sim.reset(seed=len(actions) - 1)
            for quirk in quirks:
                quirks[quirk] = rng.random() < sloppy
            return True
        return False

    for action in np.asarray(prefix):
        act(int(action))
    done = len(actions) == 0
    while len(actions) < min_steps or not done:
        front = sim.grid.get(*_front(sim))
        if front is not None and front.type in OBJECTS and rng.random() < probe:
            action = int(rng.choice([C.PICKUP, C.DROP, C.TOGGLE]))
        elif rng.random() < noise:
            action = int(rng.integers(0, C.NUM_ACTIONS))
        else:
            expert = expert_action(sim, **quirks)
            action = int(rng.integers(0, C.NUM_ACTIONS)) if expert is None else expert
        done = act(action)
    return np.asarray(actions, np.int32), counts
