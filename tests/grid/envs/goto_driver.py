"""A scripted driver for GoToDoor / GoToObject lockstep tests, with coverage bookkeeping.

`goto_script` plans one action sequence on a deep copy of a MiniGrid env, mirroring
`bridge.lockstep` (an episode ending at action index ``n`` is followed by ``reset(seed=n)``),
so replaying it in lockstep reproduces exactly the simulated episodes. Each episode follows
one scenario:

* ``success``: walk to a cell orthogonally next to the target and press ``done`` facing it;
* ``success_turned``: the same, but turned so as NOT to face the target (still a success);
* ``far_done``: press ``done`` on a reachable cell that is not next to the target
  (diagonal neighbours preferred: a diagonal must not count);
* ``toggle``: face a door/object/wall (or nothing) and toggle;
* ``wander``: no ``done``/``toggle``: random moves, pickups and drops until the time limit;
* ``juggle_then_success``/``juggle_then_far``: pick objects up and drop them elsewhere
  (also into a full hand, and onto occupied cells), then one of the above;
* ``stand_on_target``: pick the target object up, step onto its old cell and press ``done``
  (distance 0: a failure).

The coverage it returns counts what the simulation saw; since the dynamics are deterministic,
the lockstep run sees the very same steps and checks horizax agrees at each of them.
"""

from __future__ import annotations

import copy
from collections import Counter, deque
from typing import Any

import numpy as np

from horizax.grid import constants as C

NAMES = {C.EMPTY: "empty", C.WALL: "wall", C.DOOR: "door", C.KEY: "key", C.BALL: "ball"}
NAMES[C.BOX] = "box"
QUIET = (C.LEFT, C.RIGHT, C.FORWARD, C.PICKUP, C.DROP)  # actions that never end an episode
OBJECTS = (C.KEY, C.BALL, C.BOX)


class _EpisodeEndedError(Exception):
    """Raised inside a scenario when its episode ended (terminated or truncated)."""


class Driver:
    """Steps a private copy of a MiniGrid env and records the actions and their coverage."""

    def __init__(self, mg: Any, rng: np.random.Generator, noise: float) -> None:
        self.sim = copy.deepcopy(mg)
        self.rng = rng
        self.noise = noise
        self.actions: list[int] = []
        self.coverage: Counter[str] = Counter()

    # ------------------------------------------------------------------ low level
    def front(self) -> tuple[int, int]:
        dx, dy = C.DIR_TO_VEC[int(self.sim.agent_dir)]
        return int(self.sim.agent_pos[0]) + int(dx), int(self.sim.agent_pos[1]) + int(dy)

    def kind_at(self, pos: tuple[int, int]) -> int:
        obj = self.sim.grid.get(*pos)
        return C.EMPTY if obj is None else int(obj.encode()[0])

    def _record(self, action: int) -> None:
        front = self.kind_at(self.front())
        what = NAMES.get(front, str(front))
        holding = self.sim.carrying is not None
        if action == C.PICKUP:
            self.coverage[f"pickup_{what}_{'full' if holding else 'empty'}_hand"] += 1
        elif action == C.DROP:
            self.coverage[f"drop_{what}_{'full' if holding else 'empty'}_hand"] += 1
        elif action == C.TOGGLE:
            self.coverage[f"toggle_{what}"] += 1
        elif action == C.DONE:
            target = tuple(int(v) for v in self.sim.target_pos)
            pos = tuple(int(v) for v in self.sim.agent_pos)
            distance = abs(pos[0] - target[0]) + abs(pos[1] - target[1])
            diagonal = abs(pos[0] - target[0]) == abs(pos[1] - target[1]) == 1
            if distance == 1:
                facing = self.front() == target
                self.coverage["done_next_facing" if facing else "done_next_not_facing"] += 1
            else:
                self.coverage[
                    "done_diagonal" if diagonal else f"done_distance_{min(distance, 2)}"
                ] += 1

    def act(self, action: int) -> None:
        """Takes ``action``; raises `_EpisodeEndedError` when the episode ends (sim reset)."""
        action = int(action)
        self._record(action)
        self.actions.append(action)
        _, reward, terminated, truncated, _ = self.sim.step(action)
        if reward > 0:
            self.coverage["success"] += 1
        if terminated or truncated:
            self.coverage["truncated" if truncated and not terminated else "terminated"] += 1
            self.sim.reset(seed=len(self.actions) - 1)
            raise _EpisodeEndedError

    def noisy(self, action: int) -> None:
        """``action``, or with probability ``noise`` a random quiet action instead."""
        if self.rng.random() < self.noise:
            action = int(self.rng.choice(QUIET))
        self.act(action)

    # ------------------------------------------------------------------ planning
    def walkable(self) -> np.ndarray:
        grid = self.sim.grid.encode()
        kind, state = grid[..., 0], grid[..., 2]
        return (kind == C.EMPTY) | ((kind == C.DOOR) & (state == C.OPEN))

    def plan(self, goal) -> list[int] | None:
        """Shortest left/right/forward sequence to a pose ``(x, y, d)`` with ``goal(x, y, d)``."""
        walk = self.walkable()
        width, height = walk.shape
        start = (int(self.sim.agent_pos[0]), int(self.sim.agent_pos[1]), int(self.sim.agent_dir))
        parent: dict[tuple[int, int, int], tuple[Any, int] | None] = {start: None}
        todo = deque([start])
        while todo:
            pose = todo.popleft()
            if goal(*pose):
                path = []
                while parent[pose] is not None:
                    pose, action = parent[pose]
                    path.append(action)
                return path[::-1]
            x, y, d = pose
            dx, dy = C.DIR_TO_VEC[d]
            fx, fy = x + int(dx), y + int(dy)
            moves = [(C.LEFT, (x, y, (d - 1) % 4)), (C.RIGHT, (x, y, (d + 1) % 4))]
            if 0 <= fx < width and 0 <= fy < height and walk[fx, fy]:
                moves.append((C.FORWARD, (fx, fy, d)))
            for action, nxt in moves:
                if nxt not in parent:
                    parent[nxt] = (pose, action)
                    todo.append(nxt)
        return None

    def go(self, goal, max_steps: int = 60) -> bool:
        """Walks (noisily, re-planning every step) until ``goal`` holds; False if unreachable."""
        for _ in range(max_steps):
            path = self.plan(goal)
            if path is None:
                return False
            if not path:
                return True
            self.noisy(path[0])
        return False

    def facing(self, cell: tuple[int, int]):
        def goal(x: int, y: int, d: int) -> bool:
            dx, dy = C.DIR_TO_VEC[d]
            return (x + int(dx), y + int(dy)) == cell

        return goal

    def cells(self, kinds: tuple[int, ...]) -> list[tuple[int, int]]:
        grid = self.sim.grid.encode()
        return [tuple(int(v) for v in p) for p in np.argwhere(np.isin(grid[..., 0], kinds))]

    # ------------------------------------------------------------------ scenarios
    def target(self) -> tuple[int, int]:
        return tuple(int(v) for v in self.sim.target_pos)

    def success(self, turned: bool) -> None:
        tx, ty = self.target()

        def goal(x: int, y: int, d: int) -> bool:
            if abs(x - tx) + abs(y - ty) != 1:
                return False
            dx, dy = C.DIR_TO_VEC[d]
            return ((x + int(dx), y + int(dy)) == (tx, ty)) != turned

        if self.go(goal):
            self.act(C.DONE)
        else:
            self.far_done()

    def far_done(self) -> None:
        tx, ty = self.target()
        walk = self.walkable()
        free = [tuple(int(v) for v in p) for p in np.argwhere(walk)]
        diagonal = [p for p in free if abs(p[0] - tx) == abs(p[1] - ty) == 1]
        far = [p for p in free if abs(p[0] - tx) + abs(p[1] - ty) >= 2]
        choices = diagonal if diagonal and self.rng.random() < 0.5 else far
        cell = choices[self.rng.integers(len(choices))] if choices else None
        if cell is not None:
            self.go(lambda x, y, d: (x, y) == cell)
        # Re-check: noise may have left the agent next to the target; then step away first.
        pos = tuple(int(v) for v in self.sim.agent_pos)
        if abs(pos[0] - tx) + abs(pos[1] - ty) == 1:
            self.go(lambda x, y, d: abs(x - tx) + abs(y - ty) != 1)
        self.act(C.DONE)

    def toggle(self) -> None:
        cells = self.cells((C.DOOR, *OBJECTS, C.WALL))
        interesting = self.cells((C.DOOR, *OBJECTS))
        pool = interesting if interesting and self.rng.random() < 0.7 else cells
        cell = pool[self.rng.integers(len(pool))]
        self.go(self.facing(cell))
        self.act(C.TOGGLE)

    def juggle(self, rounds: int) -> None:
        """Pick objects up and drop them: into an empty and a full hand, onto free and
        occupied cells."""
        for _ in range(rounds):
            objects = self.cells(OBJECTS)
            if self.sim.carrying is None and objects:
                cell = objects[self.rng.integers(len(objects))]
                if self.go(self.facing(cell)):
                    self.act(C.DROP if self.rng.random() < 0.2 else C.PICKUP)
            elif self.sim.carrying is not None:
                if objects and self.rng.random() < 0.4:  # full hand / occupied cell
                    cell = objects[self.rng.integers(len(objects))]
                    if self.go(self.facing(cell)):
                        self.act(C.PICKUP if self.rng.random() < 0.5 else C.DROP)
                for _ in range(self.rng.integers(1, 5)):
                    self.act(int(self.rng.choice((C.LEFT, C.RIGHT, C.FORWARD, C.FORWARD))))
                self.act(C.DROP)
            else:
                self.act(int(self.rng.choice(QUIET)))

    def stand_on_target(self) -> None:
        target = self.target()
        free_hand = self.sim.carrying is None
        if free_hand and self.kind_at(target) in OBJECTS and self.go(self.facing(target)):
            self.act(C.PICKUP)
            self.act(C.FORWARD)
        self.act(C.DONE)

    def wander(self) -> None:
        while True:  # until the time limit ends the episode
            if self.rng.random() < 0.1:
                self.juggle(1)
            else:
                self.act(int(self.rng.choice((*QUIET, C.FORWARD, C.FORWARD))))

    def episode(self, scenario: str) -> None:
        try:
            if scenario.startswith("juggle_then_"):
                self.juggle(int(self.rng.integers(1, 4)))
                scenario = scenario.removeprefix("juggle_then_")
            if scenario == "success":
                self.success(turned=False)
            elif scenario == "success_turned":
                self.success(turned=True)
            elif scenario == "far":
                self.far_done()
            elif scenario == "toggle":
                self.toggle()
            elif scenario == "stand_on_target":
                self.stand_on_target()
            elif scenario == "wander":
                self.wander()
            else:
                raise ValueError(scenario)
            raise AssertionError(f"scenario {scenario} did not end its episode")
        except _EpisodeEndedError:
            pass


def goto_script(
    mg: Any,
    scenarios: list[str],
    min_steps: int,
    seed: int,
    noise: float = 0.1,
    prelude: tuple[str, ...] = ("wander",),
) -> tuple[np.ndarray, Counter[str]]:
    """i32[T] actions for one `bridge.lockstep` run, and the coverage the episodes reached.

    The ``prelude`` scenarios run once (by default one ``wander`` episode, which reaches the
    time limit); then ``scenarios`` run in order, cycling, until every one has run once and
    at least ``min_steps`` actions are planned.

    Args:
        mg: the unwrapped MiniGrid env, already reset (it is not modified).
        scenarios: the episode scenarios to cycle through (see the module docstring).
        min_steps: the least number of actions to plan.
        seed: seed of the driver's own randomness.
        noise: probability of a random quiet action while walking.
        prelude: scenarios to run once first.
    """
    driver = Driver(mg, np.random.default_rng(seed), noise)
    for scenario in prelude:
        driver.episode(scenario)
    i = 0
    while len(driver.actions) < min_steps or i < len(scenarios):
        driver.episode(scenarios[i % len(scenarios)])
        i += 1
    driver.coverage["episodes"] = len(prelude) + i
    return np.asarray(driver.actions, np.int32), driver.coverage
