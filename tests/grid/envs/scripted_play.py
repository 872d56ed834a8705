"""Scripted MiniGrid episodes for lockstep tests, with a record of what they exercised.

Used by the RedBlueDoors, Memory, Playground and LockedRoom tests. A *policy* is a callable
``sim -> action | None`` made fresh for each episode (it may keep its own progress); None
asks for a uniform random action. `play` runs policies on a deep copy of a MiniGrid env,
mirroring `bridge.lockstep` (an episode ending at action index ``n`` is reset with
``seed=n``), and returns the actions as ONE sequence for one lockstep call plus a `Counter`
of what happened: ``(action, front object, outcome)`` for every pickup, drop and toggle, and
``("end", "success" | "failure" | "truncated")`` for every episode end. Replaying the actions
on the real env reproduces the same trajectory (deterministic dynamics), and the lockstep
asserts horizax matched it at every step, so the counts describe the compared run.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from horizax.grid import constants as C
from tests.grid import distribution as dist

Policy = Callable[[Any], int | None]
PolicyFactory = Callable[[], Policy]


def front(sim: Any) -> tuple[int, int]:
    """The cell the agent faces."""
    x, y = sim.front_pos
    return int(x), int(y)


def toward(sim: Any, target: Any, interaction: int) -> int | None:
    """``interaction`` when facing ``target``, else the first move of a shortest path to
    facing it (through empty cells and open doors); None when it cannot be reached."""
    target = (int(target[0]), int(target[1]))
    if front(sim) == target:
        return interaction
    grid = sim.grid.encode()
    return dist._first_action_to_face(grid, sim.agent_pos, int(sim.agent_dir), target)


def positions(sim: Any, kind: str, color: str | None = None) -> list[tuple[int, int]]:
    """Cells holding an object of type ``kind`` (and ``color``), in x-major order."""
    out = []
    for x in range(sim.width):
        for y in range(sim.height):
            obj = sim.grid.get(x, y)
            if obj is not None and obj.type == kind and color in (None, obj.color):
                out.append((x, y))
    return out


def door_state(obj: Any) -> str:
    return "locked" if obj.is_locked else "open" if obj.is_open else "closed"


def sequence(*steps: tuple[Callable[[Any], Any], list[int]]) -> PolicyFactory:
    """A policy factory walking through ``(target_fn, interactions)`` steps in order.

    A step's target is ``target_fn(sim)`` when the step starts (kept for all its
    interactions, even once the object there is gone); None skips the step. Each interaction
    is performed while facing the target (the agent walks there first, again if noise moved
    it away); after the last step the policy acts at random.
    """

    def make() -> Policy:
        todo = [[target_fn, list(actions), None] for target_fn, actions in steps]

        def policy(sim: Any) -> int | None:
            while todo:
                step = todo[0]
                if step[2] is None:
                    target = step[0](sim)
                    if target is None or not step[1]:
                        todo.pop(0)
                        continue
                    step[2] = (int(target[0]), int(target[1]))
                target, actions = step[2], step[1]
                chosen = toward(sim, target, actions[0])
                if front(sim) == target:
                    actions.pop(0)
                    if not actions:
                        todo.pop(0)
                return chosen
            return None

        return policy

    return make


def _outcome(sim: Any, action: int, kind: str, before: str, held_before: Any) -> str:
    fx, fy = front(sim)
    after = sim.grid.get(fx, fy)
    if action == C.PICKUP and sim.carrying is not held_before:
        return "taken"
    if action == C.PICKUP:
        return "full hand" if held_before is not None else "nothing"
    if action == C.DROP:
        if held_before is None:
            return "empty hand"
        return "put" if sim.carrying is None else "blocked"
    if action == C.TOGGLE and kind == "door":
        return f"{before}->{door_state(after)}"
    if action == C.TOGGLE and kind == "box":
        return "opened" if after is None or after.type != "box" else "nothing"
    return "nothing"


def play(
    mg: Any,
    policies: Iterator[PolicyFactory],
    rng: np.random.Generator,
    *,
    min_steps: int,
    min_episodes: int = 1,
) -> tuple[np.ndarray, Counter]:
    """Plays episodes from ``policies`` until ``min_steps`` and ``min_episodes`` are reached.

    Args:
        mg: the MiniGrid env in its current state (left untouched; a copy is played).
        policies: an iterator of policy factories, one per episode (the first continues
            the episode ``mg`` is in).
        rng: draws the uniform action a policy asks for with None.
        min_steps, min_episodes: stop at the first episode end past both.

    Returns:
        ``(i32[T] actions, coverage Counter)``.
    """
    sim = copy.deepcopy(mg)
    actions: list[int] = []
    coverage: Counter = Counter()
    episodes = 0
    while len(actions) < min_steps or episodes < min_episodes:
        policy = next(policies)()
        done = False
        while not done:
            action = policy(sim)
            if action is None:
                action = int(rng.integers(0, C.NUM_ACTIONS))
            obj = sim.grid.get(*front(sim))
            kind = "empty" if obj is None else obj.type
            before = door_state(obj) if kind == "door" else ""
            held = sim.carrying
            _, reward, terminated, truncated, _ = sim.step(action)
            actions.append(action)
            if action in (C.PICKUP, C.DROP, C.TOGGLE):
                outcome = _outcome(sim, action, kind, before, held)
                coverage[(C.ACTION_NAMES[action], kind, outcome)] += 1
            if terminated or truncated:
                end = "truncated" if not terminated else "success" if reward > 0 else "failure"
                coverage[("end", end)] += 1
                sim.reset(seed=len(actions) - 1)
                episodes += 1
                done = True
    return np.asarray(actions, np.int32), coverage


def noisy(factory: PolicyFactory, noise: float, rng: np.random.Generator) -> PolicyFactory:
    """``factory``'s policies, their action replaced by a uniform one with probability
    ``noise``."""

    def make() -> Policy:
        policy = factory()

        def noisy_policy(sim: Any) -> int | None:
            # Decide first: a policy advances its plan when it returns an interaction.
            return None if rng.random() < noise else policy(sim)

        return noisy_policy

    return make


def random_policy(rng: np.random.Generator, excluded: tuple[int, ...] = ()) -> PolicyFactory:
    """A factory of uniform random policies avoiding ``excluded`` actions (e.g. to idle
    until the time limit without toggling anything)."""
    allowed = [a for a in range(C.NUM_ACTIONS) if a not in excluded]

    def make() -> Policy:
        return lambda sim: int(rng.choice(allowed))

    return make
