"""Playground: lockstep against MiniGrid, layout distribution and structure of every layout."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs import playground as P
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs import scripted_play as play

ENV_ID = "MiniGrid-Playground-v0"
N_LAYOUTS = 4000
KIND_NAMES = ("key", "ball", "box")
# What to try in front of each kind of thing: lists of interactions, one drawn per visit.
INTERACTIONS = {
    "key": [[C.PICKUP], [C.TOGGLE, C.DROP], [C.PICKUP, C.DROP]],
    "ball": [[C.PICKUP], [C.TOGGLE, C.DROP], [C.PICKUP, C.DROP]],
    "box": [[C.PICKUP], [C.DROP, C.TOGGLE], [C.PICKUP, C.DROP]],
    "door": [[C.TOGGLE], [C.TOGGLE, C.TOGGLE], [C.PICKUP, C.DROP, C.TOGGLE]],
}


@pytest.mark.reference
def test_configuration_matches_minigrid():
    bridge.assert_same_configuration(ENV_ID)


def explorer(rng: np.random.Generator) -> play.PolicyFactory:
    """Visits random reachable keys, balls, boxes and doors and interacts with them."""

    def make() -> play.Policy:
        plan: list = []  # [target, interactions left]

        def choose(sim) -> None:
            for _ in range(6):
                kind = str(rng.choice([*KIND_NAMES, "door"]))
                cells = play.positions(sim, kind)
                if not cells:
                    continue
                target = cells[int(rng.integers(len(cells)))]
                if play.toward(sim, target, C.DONE) is not None:
                    options = INTERACTIONS[kind]
                    plan[:] = [target, list(options[int(rng.integers(len(options)))])]
                    return

        def policy(sim) -> int | None:
            if not plan or not plan[1]:
                plan.clear()
                choose(sim)
                if not plan:
                    return None
            target, todo = plan
            action = play.toward(sim, target, todo[0])
            if action is None:
                plan.clear()
            elif play.front(sim) == target:
                todo.pop(0)
            return action

        return policy

    return make


@pytest.mark.reference
def test_lockstep_with_minigrid():
    """Noisy exploration that picks up, drops and toggles in front of keys, balls, boxes and
    doors (opening and closing them); every episode ends at the time limit."""
    env, mg = bridge.paired(ENV_ID)
    rng = np.random.default_rng(19)
    episodes = itertools.repeat(play.noisy(explorer(rng), 0.15, rng))
    actions, coverage = play.play(mg, episodes, rng, min_steps=3000)
    counts = bridge.lockstep(env, mg, actions)
    assert counts["steps"] == len(actions) >= 3000
    assert counts["truncated"] == counts["episodes"] == coverage["end", "truncated"] >= 30
    assert counts["terminated"] == counts["reward_nonzero"] == 0
    needed = [("pickup", kind, "taken") for kind in KIND_NAMES]
    needed += [("pickup", kind, "full hand") for kind in KIND_NAMES]
    needed += [("drop", kind, "blocked") for kind in (*KIND_NAMES, "door")]
    needed += [
        ("drop", "empty", "put"),
        ("toggle", "key", "nothing"),
        ("toggle", "ball", "nothing"),
    ]
    needed += [("toggle", "box", "opened"), ("pickup", "door", "nothing")]
    needed += [("toggle", "door", "closed->open"), ("toggle", "door", "open->closed")]
    missing = [entry for entry in needed if coverage[entry] < 2]
    assert not missing, f"never (or once) exercised: {missing}; coverage {coverage}"


def door_cells(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i32[N, 12] coordinate along each door slot, i32[N, 12] door colour), MiniGrid's order."""
    offsets, colours = [], []
    for vertical, fixed, start in P.DOOR_SLOTS:
        span = grid[:, fixed, start : start + 4] if vertical else grid[:, start : start + 4, fixed]
        is_door = span[..., 0] == C.DOOR
        assert (is_door.sum(axis=1) == 1).all(), "one door per slot"
        offset = is_door.argmax(axis=1)
        offsets.append(offset)
        colours.append(span[np.arange(len(grid)), offset, 1])
    return np.stack(offsets, 1).astype(np.int32), np.stack(colours, 1).astype(np.int32)


def object_mask(grid: np.ndarray) -> np.ndarray:
    kind = grid[..., 0]
    return (kind == C.KEY) | (kind == C.BALL) | (kind == C.BOX)


def playground_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    grid, n = layouts.grid, len(layouts)
    offsets, colours = door_cells(grid)
    objects = object_mask(grid)
    flat = objects.reshape(n, -1)
    cells = np.nonzero(flat)[1].reshape(n, P.NUM_OBJECTS)
    encoded = grid.reshape(n, -1, 3)[np.arange(n)[:, None], cells]
    agent = layouts.agent_pos
    room_of = lambda x, y: (y // P.ROOM) * 3 + x // P.ROOM  # noqa: E731
    in_agent_room = room_of(cells // P.SIZE, cells % P.SIZE) == room_of(agent[:, :1], agent[:, 1:])
    kinds = grid[..., 0][objects].reshape(n, P.NUM_OBJECTS)
    return {
        "door_offsets": (offsets + 4 * np.arange(12)).ravel(),
        "door_colours": (colours + 6 * np.arange(12)).ravel(),
        "first_doors": offsets[:, 0] * 4 + offsets[:, 1],
        "agent": dist.cell_index(agent, P.SIZE),
        "agent_dir": layouts.agent_dir,
        "object_cells": cells.ravel(),
        "object_kind_colour": (encoded[..., 0] * 8 + encoded[..., 1]).ravel(),
        "objects_in_agent_room": in_agent_room.sum(axis=1),
        "keys": (kinds == C.KEY).sum(axis=1),
        "boxes": (kinds == C.BOX).sum(axis=1),
        "objects_per_room": room_of(cells // P.SIZE, cells % P.SIZE).ravel(),
    }


@pytest.mark.slow
@pytest.mark.reference
def test_layout_distribution_matches_minigrid():
    ours = dist.horizax_layouts(horizax.make(ENV_ID), N_LAYOUTS)
    theirs = dist.minigrid_layouts(ENV_ID, N_LAYOUTS)
    dist.compare_layouts(playground_features, ours, theirs)


def test_every_layout_is_well_formed():
    layouts = dist.horizax_layouts(horizax.make(ENV_ID), N_LAYOUTS)
    grid, pos, n = layouts.grid, layouts.agent_pos, len(layouts)
    offsets, colours = door_cells(grid)  # one door per slot
    assert set(np.unique(offsets)) == {0, 1, 2, 3} and set(np.unique(colours)) == set(range(6))
    # Walls on rows/columns 0, 6, 12, 18 except for the twelve closed doors.
    lines = np.zeros((P.SIZE, P.SIZE), bool)
    lines[::6, :] = lines[:, ::6] = True
    doors = grid[..., 0] == C.DOOR
    assert (doors.sum(axis=(1, 2)) == 12).all() and (grid[doors][:, 2] == C.CLOSED).all()
    np.testing.assert_array_equal(grid[..., 0] == C.WALL, lines & ~doors)
    assert not (doors & ~lines).any()
    # Twelve keys, balls and (empty) boxes on room cells, none under the agent.
    objects = object_mask(grid)
    assert (objects.sum(axis=(1, 2)) == P.NUM_OBJECTS).all() and not (objects & lines).any()
    assert (grid[objects][:, 2] == 0).all()
    assert set(np.unique(grid[..., 0])) == {C.EMPTY, C.WALL, C.DOOR, C.KEY, C.BALL, C.BOX}
    rows = np.arange(n)
    assert (grid[rows, pos[:, 0], pos[:, 1], 0] == C.EMPTY).all()
    assert not lines[pos[:, 0], pos[:, 1]].any()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    assert (layouts.mission[:, 0] == 0).all()


def test_distinct_ranks_are_sequential_draws_without_replacement():
    """Every digit vector maps to distinct ranks; exhaustive on a small case."""
    draw = jax.jit(lambda first, digits: jnp.stack(P.distinct_ranks(first, list(digits))))
    rng = np.random.default_rng(0)
    for _ in range(200):
        first = int(rng.integers(P.NUM_CELLS))
        digits = [int(rng.integers(P.NUM_CELLS - 1 - k)) for k in range(P.NUM_OBJECTS)]
        ranks = np.asarray(draw(jnp.int32(first), jnp.asarray(digits, jnp.int32)))
        free = [r for r in range(P.NUM_CELLS) if r != first]
        expected = []
        for digit in digits:  # the reference: remove the digit-th free rank
            expected.append(free.pop(digit))
        np.testing.assert_array_equal(ranks, expected)
