"""MultiRoom test helpers: a guided driver for lockstep runs and a parser of room chains.

`guided` walks to the goal along a shortest path that may cross closed doors, toggling each
one open on the way; with probability ``probe`` it first tries pickup, drop, toggle or done
on the wall or door it faces (closing open doors, picking up walls, dropping with an empty
hand). `parse_chain` recovers the rooms of any MultiRoom grid (MiniGrid's or horizax's) by
walking from the agent's room through each next door, for the distribution and structural
tests.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from horizax.grid import constants as C
from tests.grid import distribution as dist
from tests.grid.envs import scripted_play as play

Room = tuple[int, int, int, int]  # top x, top y, size x, size y (walls included)
PROBES = (C.PICKUP, C.DROP, C.TOGGLE, C.DONE)


def bfs_distances(passable: np.ndarray, start: Any) -> np.ndarray:
    """i32[W, H]: 4-connected step counts from ``start`` through ``passable`` (-1: unreached)."""
    width, height = passable.shape
    dist_map = np.full((width, height), -1, np.int32)
    sx, sy = int(start[0]), int(start[1])
    dist_map[sx, sy] = 0
    todo = deque([(sx, sy)])
    while todo:
        x, y = todo.popleft()
        for dx, dy in C.DIR_TO_VEC:
            nx, ny = x + int(dx), y + int(dy)
            inside = 0 <= nx < width and 0 <= ny < height
            if inside and passable[nx, ny] and dist_map[nx, ny] < 0:
                dist_map[nx, ny] = dist_map[x, y] + 1
                todo.append((nx, ny))
    return dist_map


def next_target(grid: np.ndarray, agent: Any) -> tuple[tuple[int, int], int]:
    """The first closed door on a shortest path to the goal (toggle it), else the goal."""
    kind = grid[..., 0]
    passable = (kind == C.EMPTY) | (kind == C.GOAL) | (kind == C.DOOR)
    goal = tuple(int(v) for v in np.argwhere(kind == C.GOAL)[0])
    # Walk back from the goal along decreasing distances to list the path's cells.
    distance = bfs_distances(passable, goal)
    path, (x, y) = [], (int(agent[0]), int(agent[1]))
    while (x, y) != goal:
        for dx, dy in C.DIR_TO_VEC:
            nx, ny = x + int(dx), y + int(dy)
            if distance[nx, ny] == distance[x, y] - 1 and distance[nx, ny] >= 0:
                x, y = nx, ny
                break
        path.append((x, y))
    for cell in path:
        if kind[cell] == C.DOOR and grid[cell][2] != C.OPEN:
            return cell, C.TOGGLE
    return goal, C.FORWARD


def guided(rng: np.random.Generator, probe: float) -> play.PolicyFactory:
    """Policies that solve MultiRoom, probing walls and doors on the way (see module doc)."""

    def make() -> play.Policy:
        def policy(sim: Any) -> int | None:
            faced = sim.grid.get(*play.front(sim))
            if faced is not None and faced.type in ("wall", "door") and rng.random() < probe:
                return int(rng.choice(PROBES))
            target, interaction = next_target(sim.grid.encode(), sim.agent_pos)
            action = play.toward(sim, target, interaction)
            return C.FORWARD if action is None else action

        return policy

    return make


def parse_chain(grid: np.ndarray, agent: Any) -> tuple[list[Room], list[tuple[int, int]]]:
    """The rooms of a MultiRoom grid in chain order, and each next room's entry door.

    Room 0 is the agent's; the next room lies beyond the one door of the current room that
    is not its entry door. A room is the box around its interior (empty and goal cells).
    """
    kind = grid[..., 0]
    inner = (kind == C.EMPTY) | (kind == C.GOAL)
    doors = [tuple(int(v) for v in d) for d in np.argwhere(kind == C.DOOR)]
    rooms: list[Room] = []
    entries: list[tuple[int, int]] = []
    start, entry = (int(agent[0]), int(agent[1])), None
    while start is not None:
        area = dist.reachable(grid, start, inner)
        xs, ys = np.nonzero(area)
        rooms.append((xs.min() - 1, ys.min() - 1, xs.max() - xs.min() + 3, ys.max() - ys.min() + 3))
        start = None
        for door in doors:
            if door == entry:
                continue
            for dx, dy in C.DIR_TO_VEC:
                x, y = door[0] + int(dx), door[1] + int(dy)
                if 0 <= x < area.shape[0] and 0 <= y < area.shape[1] and area[x, y]:
                    entry, start = door, (door[0] - int(dx), door[1] - int(dy))
                    entries.append(door)
                    break
            if start is not None:
                break
    return rooms, entries
