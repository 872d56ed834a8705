"""KeyCorridor: lockstep against MiniGrid, layout distribution (connect_all's doors included),
structure and connectivity of every layout."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid import missions
from horizax.grid.envs.keycorridor import CONFIGS, _connected_at, _path_edges, keycorridor_layout
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs import pickup_driver as driver
from tests.grid.envs.prng_draws import JAX_PRNG_PRIMITIVES, trace_counting_draws

SHAPES = {f"MiniGrid-KeyCorridorS{s}R{r}-v0": (s, r) for s, r in CONFIGS}
IDS = list(SHAPES)
N_LAYOUTS = 10_000  # the connectivity (failure-rate) test needs >= 10,000
N_MINIGRID = 2000


def walls_between_rooms(room_size: int, rows: int) -> list[tuple[str, int, int]]:
    """Every wall slot that can hold a door, as ``(axis, fixed coordinate, first cell)``:
    ``("x", x, y0)`` is the vertical wall ``x`` over cells ``y0 .. y0 + S - 3``."""
    step = room_size - 1
    out = [("x", (c + 1) * step, j * step + 1) for c in (0, 1) for j in range(rows)]
    out += [("y", (j + 1) * step, c * step + 1) for c in (0, 2) for j in range(rows - 1)]
    return out


def wall_doors(grid: np.ndarray, room_size: int, rows: int) -> np.ndarray:
    """i32[N, walls]: per inter-room wall, 0 if no closed door, else 1 + offset * 6 + colour."""
    span = room_size - 2
    out = []
    for axis, fixed, first in walls_between_rooms(room_size, rows):
        cells = (
            grid[:, fixed, first : first + span]
            if axis == "x"
            else grid[:, first : first + span, fixed]
        )  # [N, span, 3]
        door = (cells[..., 0] == C.DOOR) & (cells[..., 2] == C.CLOSED)
        assert (door.sum(axis=1) <= 1).all(), "two doors on one wall"
        offset = door.argmax(axis=1)
        colour = cells[np.arange(len(grid)), offset, 1].astype(np.int32)
        out.append(np.where(door.any(axis=1), 1 + offset * C.NUM_COLORS + colour, 0))
    return np.stack(out, axis=1)


def keycorridor_features(room_size: int, rows: int):
    step, height = room_size - 1, rows * (room_size - 1) + 1

    def features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
        grid, agent, n = layouts.grid, layouts.agent_pos, len(layouts)
        locked = dist.single_position(dist.cells_of(grid, C.DOOR, state=C.LOCKED))
        ball = dist.single_position(dist.cells_of(grid, C.BALL))
        key = dist.single_position(dist.cells_of(grid, C.KEY))
        doors = wall_doors(grid, room_size, rows)
        front = agent + C.DIR_TO_VEC[layouts.agent_dir]
        out = {
            "locked_y": locked[:, 1],
            "locked_colour": driver.colour_at(grid, locked),
            "ball": dist.cell_index(ball, height),
            "ball_colour": driver.colour_at(grid, ball),
            "key": dist.cell_index(key, height),
            "rooms": (locked[:, 1] // step) * rows + key[:, 1] // step,
            "agent_and_dir": dist.cell_index(agent, height) * 4 + layouts.agent_dir,
            "front_kind": grid[np.arange(n), front[:, 0], front[:, 1], 0].astype(np.int32),
            "front_state": grid[np.arange(n), front[:, 0], front[:, 1], 2].astype(np.int32),
            "num_doors": (doors > 0).sum(axis=1),
            "door_pattern": ((doors > 0) * (1 << np.arange(doors.shape[1]))).sum(axis=1),
            "door_pattern_and_room": ((doors > 0) * (1 << np.arange(doors.shape[1]))).sum(axis=1)
            * rows
            + locked[:, 1] // step,
            "mission_colour": layouts.mission[:, missions.COLOR],
            "mission_kind": layouts.mission[:, missions.KIND],
        }
        for w in range(doors.shape[1]):
            out[f"wall_{w}"] = doors[:, w]
        return out

    return features


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)
    size, rows = SHAPES[env_id]
    env, mg = horizax.make(env_id), bridge.minigrid_env(env_id)
    assert (env.width, env.height) == (3 * (size - 1) + 1, rows * (size - 1) + 1)
    assert env.max_steps == 30 * size**2
    assert (mg.num_cols, mg.num_rows, mg.room_size, mg.obj_type) == (3, rows, size, "ball")


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Random actions to the time limit, then noisy expert episodes probing every object."""
    env, mg = bridge.paired(env_id)
    prefix = bridge.random_actions(seed=5, n=env.max_steps + 100, forward_bias=0.3)
    rng = np.random.default_rng(IDS.index(env_id))
    actions, seen = driver.script(mg, prefix, min_steps=max(2000, env.max_steps + 1000), rng=rng)
    counts = bridge.lockstep(env, mg, actions, mission_fn=driver.pickup_mission)
    assert counts["steps"] == len(actions) >= 2000
    assert counts["truncated"] == seen["truncated"] >= 1
    assert counts["terminated"] == counts["reward_nonzero"] == seen["success"] >= 5
    assert seen["picked ball"] == seen["success"]  # the ball is the only one: picked = success
    missing = [
        (action, kind)
        for kind in ("key", "ball", "door")
        for action in ("pickup", "drop", "toggle")
        if seen[(action, kind)] == 0
    ]
    assert not missing, f"never exercised: {missing} ({seen})"
    for event in (
        "picked key",
        "unlocked",
        "unlock failed",
        "dropped",
        "pickup with full hand",
        "door opened",
        "door closed",
    ):
        assert seen[event] >= 1, f"never exercised: {event} ({seen})"


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    size, rows = SHAPES[env_id]
    dist.compare_with_minigrid(
        env_id,
        keycorridor_features(size, rows),
        N_LAYOUTS,
        n_minigrid=N_MINIGRID,
        mission_fn=driver.pickup_mission,
    )


@pytest.mark.parametrize("env_id", IDS)
def test_connect_all_never_fails(env_id):
    """connect_all's failure rate, measured: every room reachable in 10,000 layouts.

    Doors (locked or not) and objects count as passable, as in MiniGrid's ``find_reach``. The
    closed-form emulation cannot run out of iterations; this measures it anyway: 0 failures.
    """
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    kinds = layouts.grid[..., 0]
    seen = dist.reachable_batch(kinds != C.WALL, layouts.agent_pos)
    failures = int((seen != (kinds != C.WALL)).any(axis=(1, 2)).sum())
    assert len(layouts) >= 10_000 and failures == 0, f"{failures}/{len(layouts)} disconnected"


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size, rows = SHAPES[env_id]
    step = size - 1
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)
    grid, agent, n = layouts.grid, layouts.agent_pos, len(layouts)
    idx = np.arange(n)
    kinds = grid[..., 0]
    assert set(np.unique(kinds)) == {C.EMPTY, C.WALL, C.DOOR, C.KEY, C.BALL}
    locked = dist.single_position(dist.cells_of(grid, C.DOOR, state=C.LOCKED))
    ball = dist.single_position(dist.cells_of(grid, C.BALL))
    key = dist.single_position(dist.cells_of(grid, C.KEY))
    assert not dist.cells_of(grid, C.DOOR, state=C.OPEN).any()
    # The room grid: outer walls, the corridor's inner walls removed, every door on a wall
    # between two rooms, one door per wall at most (`wall_doors` asserts it).
    walls = kinds == C.WALL
    assert walls[:, [0, -1], :].all() and walls[:, :, [0, -1]].all()
    for j in range(1, rows):
        assert (kinds[:, step + 1 : 2 * step, j * step] == C.EMPTY).all()
    doors = wall_doors(grid, size, rows)
    closed = dist.cells_of(grid, C.DOOR, state=C.CLOSED).sum(axis=(1, 2))
    np.testing.assert_array_equal((doors > 0).sum(axis=1), closed)
    # The locked door on the left wall of room (2, room_idx), the ball in that room, whose
    # other walls have no door; the key (door colour) in a left room.
    room_idx = locked[:, 1] // step
    assert (locked[:, 0] == 2 * step).all() and set(np.unique(room_idx)) == set(range(rows))
    assert (ball[:, 0] > 2 * step).all() and (ball[:, 1] // step == room_idx).all()
    np.testing.assert_array_equal(driver.colour_at(grid, key), driver.colour_at(grid, locked))
    assert (key[:, 0] < step).all()
    y0, y1 = room_idx * step, room_idx * step + step
    for i in range(min(n, 500)):
        room_walls = np.concatenate(
            [kinds[i, 2 * step + 1 : 3 * step, y0[i]], kinds[i, 2 * step + 1 : 3 * step, y1[i]]]
        )
        assert (room_walls == C.WALL).all(), "a door into the locked room"
    # The agent: on an empty cell of room (1, R // 2)'s rectangle; its front was empty or a
    # wall before connect_all, so now it is empty, a wall or a (closed) door.
    assert (kinds[idx, agent[:, 0], agent[:, 1]] == C.EMPTY).all()
    assert ((agent[:, 0] > step) & (agent[:, 0] < 2 * step)).all()
    top = (rows // 2) * step
    assert ((agent[:, 1] >= top) & (agent[:, 1] <= top + step)).all()
    front = agent + C.DIR_TO_VEC[layouts.agent_dir]
    assert np.isin(kinds[idx, front[:, 0], front[:, 1]], [C.EMPTY, C.WALL, C.DOOR]).all()
    # The mission names the ball.
    np.testing.assert_array_equal(layouts.mission[:, missions.COLOR], driver.colour_at(grid, ball))
    assert (layouts.mission[:, missions.KIND] == C.BALL).all()
    assert (layouts.mission[:, missions.TEMPLATE] == missions.Template.PICK_UP).all()


def test_layout_is_cheap_under_vmap():
    """One PRNG call and no loop (connect_all in closed form): the autoreset evaluates the
    layout at every step."""
    jaxpr, draws = trace_counting_draws(keycorridor_layout(3, 3), jax.random.PRNGKey(0))
    names = driver.primitives(jaxpr.jaxpr)
    assert "while" not in names and "scan" not in names
    assert draws == 1 and not JAX_PRNG_PRIMITIVES & set(names)


def sequential_connect_all(h: np.ndarray, v: np.ndarray, locked_row: int) -> int:
    """The priority of the door that connects the last room, MiniGrid's way: add admissible
    doors in priority order (a uniformly random order of the admissible slots) until every
    room is joined to the corridor. ``h``, ``v``: u32[2, R] / u32[2, R - 1] priorities of
    columns 0 and 2; the locked room (column 2, ``locked_row``) starts joined and no door
    touches it."""
    rows = h.shape[1]
    parent = {("c",): ("c",)}
    for column in (0, 2):
        for j in range(rows):
            parent[(column, j)] = (column, j)
    parent[(2, locked_row)] = ("c",)

    def find(room):
        while parent[room] != room:
            room = parent[room]
        return room

    edges = []
    for side, column in enumerate((0, 2)):
        for j in range(rows):
            if not (column == 2 and j == locked_row):
                edges.append((int(h[side, j]), (column, j), ("c",)))
        for j in range(rows - 1):
            if not (column == 2 and locked_row in (j, j + 1)):
                edges.append((int(v[side, j]), (column, j), (column, j + 1)))
    for priority, a, b in sorted(edges):
        parent[find(a)] = find(b)
        if len({find(room) for room in parent}) == 1:
            return priority
    raise AssertionError("never connected")


@pytest.mark.parametrize("rows", [1, 2, 3, 4])
def test_closed_form_connect_all_matches_the_sequential_process(rows):
    """`_connected_at` (the bottleneck closed form) equals the time at which MiniGrid's
    door-by-door process connects the last room, for random priorities."""
    rng = np.random.default_rng(rows)
    between = _path_edges(rows)
    connected_at = jax.jit(lambda h, v: _connected_at(h, v, between))
    for _ in range(300):
        locked_row = int(rng.integers(rows))
        h = rng.choice(1 << 20, (2, rows), replace=False).astype(np.uint32)  # distinct
        v = rng.integers(0, 1 << 20, (2, rows - 1)).astype(np.uint32)
        expected = sequential_connect_all(h, v, locked_row)
        h_in, v_in = h.copy(), v.copy()
        h_in[1, locked_row] = 0  # joined from the start
        for j in range(rows - 1):
            if locked_row in (j, j + 1):
                v_in[1, j] = np.uint32(0xFFFFFFFF)  # never a door
        assert int(connected_at(h_in, v_in)) == expected
