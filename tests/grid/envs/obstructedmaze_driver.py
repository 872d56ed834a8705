"""ObstructedMaze test helpers: layout features and a guided, noisy episode driver.

The driver plays MiniGrid itself (on a deep copy, as `distribution.lockstep_script` does)
with a breadth-first planner over the MiniGrid grid and a subgoal rule: pick up the blue
target ball when it can be reached; otherwise open the next door on the reachable region's
border -- toggle a closed door; for a locked one fetch a key of its colour (toggling boxes)
and toggle the door with it; lift a green ball that blocks a door and drop it elsewhere. A
noise rate mixes in uniform actions, and a few deliberate detours (toggling a locked door
with a wrong key, lifting a box and putting it back down) make sure the rare interactions the
test must cover happen. Every action's circumstances are tallied (a `collections.Counter`).
"""

from __future__ import annotations

import collections
import copy
from collections import deque
from typing import Any

import numpy as np

from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.obstructedmaze import CONFIGS, ROOM_SIZE, TARGET_COLOUR, plan
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge  # noqa: F401  (skips these tests without MiniGrid)

STEP = ROOM_SIZE - 1


def mission_fn(mg: Any) -> Any:
    """MiniGrid's mission as a horizax mission array (``pick up the blue ball``)."""
    return missions.encode(
        missions.Template.PICK_UP,
        color=C.COLOR_NAMES.index(mg.obj.color),
        kind=C.OBJECT_NAMES.index(mg.obj.type),
    )


# ----------------------------------------------------------------------------- features


def _door_walls(env_id: str) -> list[tuple[int, int, int]]:
    """``(i, j, idx)`` of every door the plan adds, in MiniGrid's order."""
    ops, _ = plan(CONFIGS[env_id])
    return [(op[1], op[2], op[3]) for op in ops if op[0] == "door"]


def _wall_cells(i: int, j: int, idx: int) -> tuple[np.ndarray, np.ndarray]:
    """The x and y coordinates of the 4 interior cells of wall ``idx`` of room ``(i, j)``."""
    x0, y0 = i * STEP, j * STEP
    along = np.arange(1, STEP)
    if idx in (0, 2):
        x = x0 + (STEP if idx == 0 else 0)
        return np.full(STEP - 1, x), y0 + along
    y = y0 + (STEP if idx == 1 else 0)
    return x0 + along, np.full(STEP - 1, y)


def _room_items(grid: np.ndarray, i: int, j: int) -> np.ndarray:
    """bool[N, 4, 4]: the keys and boxes inside room ``(i, j)``."""
    inner = grid[:, i * STEP + 1 : i * STEP + STEP, j * STEP + 1 : j * STEP + STEP]
    return (inner[..., 0] == C.KEY) | (inner[..., 0] == C.BOX)


def layout_features(env_id: str):
    """``layouts -> {name: i32[N]}`` for `distribution.compare_layouts`."""
    cfg = CONFIGS[env_id]
    walls = _door_walls(env_id)
    ops, _ = plan(cfg)
    key_rooms = sorted({(op[1], op[2]) for op in ops if op[0] == "key"})

    def features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
        grid, n = layouts.grid, len(layouts)
        height = grid.shape[2]
        rows = np.arange(n)
        out: dict[str, np.ndarray] = {}
        colours = []
        for d, (i, j, idx) in enumerate(walls):
            xs, ys = _wall_cells(i, j, idx)
            line = grid[:, xs, ys]  # [N, 4, 3]
            is_door = line[..., 0] == C.DOOR
            assert (is_door.sum(axis=1) == 1).all(), f"one door on wall {(i, j, idx)}"
            offset = is_door.argmax(axis=1)
            door = line[rows, offset]
            colours.append(door[:, 1].astype(np.int32))
            out[f"door{d}_offset"] = offset
            out[f"door{d}_colour_state"] = door[:, 1] * 3 + door[:, 2]
            vx, vy = C.DIR_TO_VEC[idx]
            inside = grid[rows, xs[offset] - vx, ys[offset] - vy]
            out[f"door{d}_front"] = inside[:, 0] * 8 + inside[:, 1]
        for d in range(len(colours) - 1):  # the permutation, pairwise
            out[f"colours{d}_{d + 1}"] = colours[d] * 6 + colours[d + 1]
        out["all_colours"] = sum(c * 6**k for k, c in enumerate(colours[:4]))
        for i, j in key_rooms:
            items = _room_items(grid, i, j)
            flat = items.reshape(n, -1)
            out[f"items{i}{j}"] = flat.sum(axis=1)
            out[f"items{i}{j}_first"] = np.where(flat.any(axis=1), flat.argmax(axis=1), -1)
            last = flat.shape[1] - 1 - flat[:, ::-1].argmax(axis=1)
            out[f"items{i}{j}_last"] = np.where(flat.any(axis=1), last, -1)
            inner = grid[:, i * STEP + 1 : i * STEP + STEP, j * STEP + 1 : j * STEP + STEP]
            content = np.where(items, inner[..., 1] * 64 + inner[..., 2], 0).reshape(n, -1)
            out[f"items{i}{j}_contents"] = np.sort(content, axis=1)[:, -2:] @ [4096, 1]
        target = dist.single_position(dist.cells_of(grid, C.BALL, TARGET_COLOUR))
        out["target"] = dist.cell_index(target, height)
        out["target_room"] = (target[:, 0] // STEP) * 3 + target[:, 1] // STEP
        out["green_balls"] = dist.cells_of(grid, C.BALL, C.GREEN).sum(axis=(1, 2))
        agent = layouts.agent_pos
        out["agent"] = dist.cell_index(agent, height)
        out["agent_dir"] = layouts.agent_dir
        front = agent + C.DIR_TO_VEC[layouts.agent_dir]
        out["agent_front"] = grid[rows, front[:, 0], front[:, 1], 0]
        out["agent_and_dir"] = out["agent"] * 4 + layouts.agent_dir
        if layouts.mission is not None:
            out["mission"] = layouts.mission @ (1 << (3 * np.arange(layouts.mission.shape[1])))
        return out

    return features


# ----------------------------------------------------------------------------- driver


def _walkable(grid: np.ndarray) -> np.ndarray:
    kind, state = grid[..., 0], grid[..., 2]
    return (kind == C.EMPTY) | ((kind == C.DOOR) & (state == C.OPEN))


_STEPS = tuple((int(dx), int(dy)) for dx, dy in C.DIR_TO_VEC)  # plain ints: a hot loop


def _plan_to_face(grid: np.ndarray, pos, direction: int, targets: set) -> tuple[int, Any]:
    """First action of a shortest path to facing one of ``targets``; ``(None, None)`` if none.

    Returns ``(action, target)``; the action is None when already facing the target.
    """
    width, height = grid.shape[:2]
    walk = _walkable(grid).tolist()  # list indexing: this search runs thousands of times
    start = (int(pos[0]), int(pos[1]), int(direction))
    first: dict = {start: None}
    todo = deque([start])
    while todo:
        pose = todo.popleft()
        x, y, d = pose
        dx, dy = _STEPS[d]
        fx, fy = x + dx, y + dy
        if (fx, fy) in targets:
            return first[pose], (fx, fy)
        came = first[pose]
        moves = [(C.LEFT, (x, y, (d - 1) % 4)), (C.RIGHT, (x, y, (d + 1) % 4))]
        if 0 <= fx < width and 0 <= fy < height and walk[fx][fy]:
            moves.append((C.FORWARD, (fx, fy, d)))
        for action, nxt in moves:
            if nxt not in first:
                first[nxt] = action if came is None else came
                todo.append(nxt)
    return None, None


def _touching(region: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """bool[W, H]: non-walkable, non-wall cells next to ``region`` (objects, shut doors)."""
    near = np.zeros_like(region)
    near[1:] |= region[:-1]
    near[:-1] |= region[1:]
    near[:, 1:] |= region[:, :-1]
    near[:, :-1] |= region[:, 1:]
    return near & ~region & (kind != C.WALL) & (kind != C.EMPTY)


def _cells(grid: np.ndarray, mask: np.ndarray) -> set:
    return {(int(x), int(y)) for x, y in np.argwhere(mask)}


class Expert:
    """Chooses the next action of the subgoal rule described in the module docstring.

    ``detour`` is the probability, at each decision where one applies, of a deliberate detour
    (toggle a locked door holding a wrong key, or lift a box instead of opening it); ``poke``
    the probability of a uniform pickup/drop/toggle whenever an object is in front;
    ``fumble`` that of another interaction first on reaching a subgoal (drop or toggle
    before lifting the target, pickup or drop before opening a box, ...).
    """

    def __init__(
        self,
        rng: np.random.Generator,
        detour: float = 0.15,
        poke: float = 0.1,
        fumble: float = 0.3,
    ) -> None:
        self.rng, self.detour, self.poke, self.fumble = rng, detour, poke, fumble
        self.wrong_door: tuple[int, int] | None = None  # a wrong-key toggle in progress
        self.fetch_other = False  # fetching a key that opens none of the doors in reach
        self.tried_wrong = False  # one wrong-key detour per episode
        self.clear_first = False  # this episode, move every blocking ball before any key

    def _go(
        self, mg, grid, targets: set, interaction: int, fumble: float | None = None
    ) -> int | None:
        """Walk to face one of ``targets`` and apply ``interaction``; None if none is in reach.

        Facing the target, another interaction comes first with probability ``fumble``
        (``self.fumble`` by default).
        """
        action, target = _plan_to_face(grid, mg.agent_pos, int(mg.agent_dir), targets)
        if target is None:
            return None
        if action is None and self.rng.random() < (self.fumble if fumble is None else fumble):
            others = [a for a in (C.PICKUP, C.DROP, C.TOGGLE) if a != interaction]
            return int(self.rng.choice(others))
        return interaction if action is None else action

    def _drop(self, mg, grid) -> int:
        """Drop the carried object where it walls nothing off (walks to such a cell).

        A cell qualifies if it is empty, not in front of a door, and filling it removes
        nothing but itself from the reachable region and hides no object or door from it.
        """
        kind = grid[..., 0]
        doorish = np.zeros(kind.shape, bool)
        for x, y in np.argwhere(kind == C.DOOR):
            for dx, dy in C.DIR_TO_VEC:
                doorish[x + dx, y + dy] = True
        pos = tuple(int(v) for v in mg.agent_pos)
        walk = _walkable(grid)
        region = dist.reachable(grid, pos, walk)
        touched = _touching(region, kind)
        spots = set()
        for spot in _cells(grid, region & (kind == C.EMPTY) & ~doorish):
            if spot == pos:
                continue
            walk[spot] = False
            after = dist.reachable(grid, pos, walk)
            walk[spot] = True
            region_minus = region.copy()
            region_minus[spot] = False
            if (after == region_minus).all() and (_touching(after, kind) >= touched).all():
                spots.add(spot)
        action = self._go(mg, grid, spots, C.DROP)
        return int(self.rng.integers(0, 3)) if action is None else action

    def _unblock(self, mg, grid) -> int | None:
        """Lift an object whose removal opens up the reachable region (nothing else to do)."""
        kind = grid[..., 0]
        pos = tuple(int(v) for v in mg.agent_pos)
        walk = _walkable(grid)
        size = dist.reachable(grid, pos, walk).sum()
        movable = (kind == C.KEY) | (kind == C.BALL) | (kind == C.BOX)
        separators = set()
        for cell in _cells(grid, movable):
            walk[cell] = True
            if dist.reachable(grid, pos, walk).sum() > size + 1:
                separators.add(cell)
            walk[cell] = False
        return self._go(mg, grid, separators, C.PICKUP)

    def __call__(self, mg: Any) -> int:
        if mg.step_count == 0:
            self.wrong_door, self.fetch_other, self.tried_wrong = None, False, False
            self.clear_first = bool(self.rng.random() < 0.5)
        if mg.carrying is not None:
            self.fetch_other = False
        front = _front(mg)
        if front is not None and front.type != "wall" and self.rng.random() < self.poke:
            # Poke at objects: pickup / drop / toggle in front of each kind, hand full or not.
            return int(self.rng.choice([C.PICKUP, C.DROP, C.TOGGLE]))
        grid = mg.grid.encode()
        kind, colour, state = grid[..., 0], grid[..., 1], grid[..., 2]
        carrying = mg.carrying
        target = C.COLOR_NAMES.index(mg.obj.color)
        goal_cells = _cells(grid, (kind == C.BALL) & (colour == target))
        if carrying is not None and carrying.type == "box" and self.rng.random() < 0.5:
            return self._drop(mg, grid)
        # Many fumbles at the target: drop and toggle there are rare chances otherwise.
        goal = self._go(mg, grid, goal_cells, C.PICKUP, fumble=0.75)
        if goal is not None:
            return self._drop(mg, grid) if carrying is not None else goal
        # Doors on the border of the reachable region, and green balls blocking doors.
        shut = (kind == C.DOOR) & (state != C.OPEN)
        closed = self._go(mg, grid, _cells(grid, shut & (state == C.CLOSED)), C.TOGGLE)
        if closed is not None:
            return closed
        locked = _cells(grid, shut & (state == C.LOCKED))
        reachable_locked = [
            d for d in locked if _plan_to_face(grid, mg.agent_pos, mg.agent_dir, {d})[1]
        ]
        blockers = set()
        for x, y in locked:
            for dx, dy in C.DIR_TO_VEC:
                if kind[x + dx, y + dy] == C.BALL and colour[x + dx, y + dy] == C.GREEN:
                    blockers.add((x + dx, y + dy))
        if carrying is not None and carrying.type == "ball":
            return self._drop(mg, grid)
        if self.clear_first and carrying is None:  # both doors in reach: wrong keys can be tried
            action = self._go(mg, grid, blockers, C.PICKUP)
            if action is not None:
                return action
        if reachable_locked:
            colours = {int(colour[d]) for d in reachable_locked}
            held = C.COLOR_NAMES.index(carrying.color) if carrying is not None else None
            if carrying is not None and carrying.type == "key":
                wrong = {d for d in reachable_locked if int(colour[d]) != held}
                start = wrong and not self.tried_wrong and self.rng.random() < 2 * self.detour
                if self.wrong_door is None and start:
                    self.wrong_door = sorted(wrong)[int(self.rng.integers(len(wrong)))]
                if self.wrong_door in wrong:  # the detour: try the key on another door
                    action = self._go(mg, grid, {self.wrong_door}, C.TOGGLE)
                    if action == C.TOGGLE:
                        self.wrong_door, self.tried_wrong = None, True
                    return action
                self.wrong_door = None
                if held in colours:
                    right = {d for d in reachable_locked if int(colour[d]) == held}
                    return self._go(mg, grid, right, C.TOGGLE)
                return self._drop(mg, grid)
            if carrying is not None:
                return self._drop(mg, grid)
            matching = (kind == C.KEY) & np.isin(colour, list(colours))
            if not self.tried_wrong and self.rng.random() < self.detour:
                self.fetch_other = True  # the detour: fetch a wrong key to try it
            if self.fetch_other:
                action = self._go(mg, grid, _cells(grid, (kind == C.KEY) & ~matching), C.PICKUP)
                if action is not None:
                    return action
                self.fetch_other = False
            action = self._go(mg, grid, _cells(grid, matching), C.PICKUP)
            if action is not None:
                return action
            boxes = _cells(grid, kind == C.BOX)
            lift = self.rng.random() < self.detour
            action = self._go(mg, grid, boxes, C.PICKUP if lift else C.TOGGLE)
            if action is not None:
                return action
        if carrying is not None:
            return self._drop(mg, grid)
        action = self._go(mg, grid, blockers, C.PICKUP)
        if action is not None:
            return action
        action = self._unblock(mg, grid)
        if action is None and reachable_locked and self.rng.random() < self.detour:
            # No matching key in reach: fetch any key, for a wrong-key toggle.
            action = self._go(mg, grid, _cells(grid, kind == C.KEY), C.PICKUP)
        return int(self.rng.integers(0, C.NUM_ACTIONS)) if action is None else action


def _front(mg: Any) -> Any:
    fx, fy = mg.front_pos
    return mg.grid.get(int(fx), int(fy))


def _tally(coverage: collections.Counter, mg: Any, action: int) -> None:
    """Counts what ``action`` is about to do in MiniGrid state ``mg`` (before stepping)."""
    front = _front(mg)
    name = C.ACTION_NAMES[action]
    what = "empty" if front is None else front.type
    if front is not None and front.type == "ball":
        what = "target_ball" if front is mg.obj else "green_ball"
    if action in (C.PICKUP, C.DROP, C.TOGGLE):
        coverage[f"{name}_{what}"] += 1
    held = mg.carrying
    is_locked_door = front is not None and front.type == "door" and front.is_locked
    if action == C.TOGGLE and is_locked_door and held is not None and held.type == "key":
        coverage["unlock" if held.color == front.color else "unlock_wrong_key"] += 1
    if action == C.TOGGLE and front is not None and front.type == "box":
        coverage["box_reveals_key"] += int(front.contains is not None)
    if action == C.PICKUP and held is None and front is not None:
        coverage[f"lift_{what}"] += 1
    if action == C.DROP and held is not None and front is None:
        coverage[f"put_{'green_ball' if held.type == 'ball' else held.type}"] += 1


def guided_script(
    mg: Any,
    prefix: np.ndarray,
    episodes: int,
    rng: np.random.Generator,
    noise: float = 0.1,
    max_actions: int | None = None,
) -> tuple[np.ndarray, collections.Counter]:
    """``prefix`` then ``episodes`` noisy guided episodes, as one action sequence.

    Mirrors `minigrid_bridge.lockstep` (an episode ending at action index ``n`` is reset
    with ``seed=n``). Stops early after ``max_actions`` actions. Returns the actions and the
    tally of what they did: ``{pickup,drop,toggle}_{front object}``, ``lift_*``/``put_*``
    (effective pickups/drops), ``unlock``, ``unlock_wrong_key``, ``box_reveals_key``,
    ``success``, ``truncated``.
    """
    sim = copy.deepcopy(mg)
    expert = Expert(rng)
    actions: list[int] = []
    coverage: collections.Counter = collections.Counter()

    def act(action: int) -> bool:
        _tally(coverage, sim, action)
        actions.append(int(action))
        _, reward, terminated, truncated, _ = sim.step(int(action))
        if terminated:
            coverage["success" if reward > 0 else "failure"] += 1
        if truncated and not terminated:
            coverage["truncated"] += 1
        if terminated or truncated:
            sim.reset(seed=len(actions) - 1)
            return True
        return False

    for action in np.asarray(prefix):
        act(int(action))
    for _ in range(episodes):
        done = False
        while not done and (max_actions is None or len(actions) < max_actions):
            noisy = rng.random() < noise
            done = act(int(rng.integers(0, C.NUM_ACTIONS)) if noisy else expert(sim))
    return np.asarray(actions, np.int32), coverage
