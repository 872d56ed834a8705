"""MultiRoom: lockstep against MiniGrid, layout distribution, structure, and the redraw bound."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.environment import Environment
from horizax.grid.envs import multiroom_chain as chain
from horizax.grid.envs.multiroom import CONFIGS, SIZE, multiroom_layout, multiroom_rooms
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge
from tests.grid.envs import multiroom_driver as driver
from tests.grid.envs import scripted_play as play

IDS = list(CONFIGS)
N_LAYOUTS = 3000


def rooms_of(config: tuple[int, ...], keys: jax.Array):
    """The `Rooms` behind ``env.reset(key)`` for each key (numpy leaves)."""
    rooms_fn = multiroom_rooms(*config)
    fn = jax.jit(jax.vmap(lambda k: rooms_fn(jax.random.bits(k, (2,), jnp.uint32))[0]))
    return jax.tree.map(np.asarray, fn(keys))


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)
    min_rooms, max_rooms, max_size, _ = CONFIGS[env_id]
    mg = bridge.minigrid_env(env_id)
    assert (mg.minNumRooms, mg.maxNumRooms, mg.maxRoomSize) == (min_rooms, max_rooms, max_size)


def test_navix_aliases():
    # navix's N4-S5-v0 has the 4 rooms its name says: MiniGrid's v1, not the legacy v0.
    assert horizax.make("Navix-MultiRoom-N4-S5-v0").env_id == "MiniGrid-MultiRoom-N4-S5-v1"
    assert horizax.make("Navix-MultiRoom-N6-v0").env_id == "MiniGrid-MultiRoom-N6-v0"


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    """Two random episodes (time limits), then guided episodes that open every door on the
    way to the goal, probing walls and doors with pickup/drop/toggle/done on the way."""
    env, mg = bridge.paired(env_id)
    rng = np.random.default_rng(7)
    guided = play.noisy(driver.guided(rng, probe=0.2), 0.1, rng)
    policies = itertools.chain([play.random_policy(rng)] * 2, itertools.repeat(guided))
    actions, coverage = play.play(mg, policies, rng, min_steps=2000, min_episodes=8)
    counts = bridge.lockstep(env, mg, actions)
    assert counts["steps"] == len(actions) >= 2000
    assert counts["truncated"] == coverage["end", "truncated"] >= 1
    assert counts["terminated"] == counts["reward_nonzero"] == coverage["end", "success"] >= 5
    for kind in ("wall", "door"):
        for action in ("pickup", "drop", "toggle"):
            assert sum(n for k, n in coverage.items() if k[:2] == (action, kind)) >= 1, (
                action,
                kind,
            )
    assert coverage["toggle", "door", "closed->open"] >= 10
    assert coverage["toggle", "door", "open->closed"] >= 1, "no door was ever closed"


def _gaps(rooms: list[driver.Room]) -> dict[str, int]:
    """Closest approach of each later room to a room two or more before it, per side.

    For each pair whose spans overlap across the axis, the count of free lines between their
    walls when the later room lies right of / left of / below / above the earlier one,
    clipped to 3 (-1: no such pair). MiniGrid's asymmetric test allows 0 on the right and
    below but needs 1 on the left and above.
    """
    out = {"gap_right": -1, "gap_left": -1, "gap_below": -1, "gap_above": -1}
    for j, (x, y, w, h) in enumerate(rooms):
        for rx, ry, rw, rh in rooms[: max(j - 1, 0)]:
            gaps = {}
            if y < ry + rh and ry < y + h:  # rows overlap: apart along x
                gaps["gap_right"], gaps["gap_left"] = x - (rx + rw), rx - (x + w)
            if x < rx + rw and rx < x + w:
                gaps["gap_below"], gaps["gap_above"] = y - (ry + rh), ry - (y + h)
            for name, gap in gaps.items():
                if gap >= 0:
                    out[name] = min(gap, 3) if out[name] < 0 else min(out[name], gap, 3)
    return out


def chain_features(layouts: dist.Layouts) -> dict[str, np.ndarray]:
    """Rooms (corners, sizes, sides), doors (offsets, colours), agent, goal and distances."""
    n = len(layouts)
    feats: dict[str, list] = {}

    def add(name: str, value: int) -> None:
        if name not in feats:  # (not `setdefault`, which would build the list on every call)
            feats[name] = [-1] * n
        feats[name][i] = value

    for i in range(n):
        grid, agent = layouts.grid[i], layouts.agent_pos[i]
        rooms, doors = driver.parse_chain(grid, agent)
        goal = np.argwhere(grid[..., 0] == C.GOAL)[0]
        add("rooms", len(rooms))
        for k, (x, y, w, h) in enumerate(rooms):
            add(f"room{k}_x", x)
            add(f"room{k}_y", y)
            add(f"room{k}_size", w * 16 + h)
        for k, (dx, dy) in enumerate(doors, start=1):
            px, py, pw, ph = rooms[k - 1]
            side = 0 if dx == px + pw - 1 else 2 if dx == px else 1 if dy == py + ph - 1 else 3
            add(f"door{k}_side", side)
            add(f"door{k}_offset", side * 16 + (dy - py if side % 2 == 0 else dx - px))
            add(f"door{k}_colour", int(grid[dx, dy, 1]))
            # The next room's offset along the door's wall and its size: a joint feature.
            nx, ny, nw, _ = rooms[k]
            add(
                f"room{k}_shift",
                (side % 2) * 400 + (ny - dy if side % 2 == 0 else nx - dx) * 20 + nw,
            )
        for name, gap in _gaps(rooms).items():
            add(name, gap)
        if len(doors) >= 2:
            add("colour_pair", int(grid[doors[0]][1]) * 6 + int(grid[doors[1]][1]))
        last = rooms[-1]
        add("agent_rel", (agent[0] - rooms[0][0]) * 16 + agent[1] - rooms[0][1])
        add("goal_rel", (goal[0] - last[0]) * 16 + goal[1] - last[1])
        kind = grid[..., 0]
        walk = (kind == C.EMPTY) | (kind == C.GOAL) | (kind == C.DOOR)
        add("path", int(driver.bfs_distances(walk, agent)[tuple(goal)]) // 3)
        add("manhattan", int(np.abs(goal - agent).sum()))
        add("walls", int((kind == C.WALL).sum()) // 8)
    out = {name: np.asarray(v, np.int64) for name, v in feats.items()}
    grid = layouts.grid
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    out.update(
        agent=dist.cell_index(layouts.agent_pos, SIZE),
        agent_dir=layouts.agent_dir,
        goal=dist.cell_index(goal, SIZE),
        doors=dist.cells_of(grid, C.DOOR).sum(axis=(1, 2)),
    )
    return out


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    # As many of each: the features parse every layout in Python, which costs more than
    # MiniGrid's reset, so more of ours would cost more than it saves (`dist.sample_sizes`).
    dist.compare_with_minigrid(env_id, chain_features, N_LAYOUTS, n_minigrid=N_LAYOUTS)


@pytest.mark.slow
@pytest.mark.reference
def test_random_room_count_matches_minigrid():
    """minNumRooms < maxNumRooms (no registered id has it): numRooms ~ U[2, 4]."""
    env = Environment(width=SIZE, height=SIZE, max_steps=80, layout_fn=multiroom_layout(2, 4, 5, 8))
    ours = dist.horizax_layouts(env, 2000)
    kwargs = {"minNumRooms": 2, "maxNumRooms": 4, "maxRoomSize": 5}
    theirs = dist.minigrid_layouts("MiniGrid-MultiRoom-N6-v0", 2000, **kwargs)
    p_values = dist.compare_layouts(chain_features, ours, theirs)
    assert "room3_x" in p_values
    counts = np.bincount(chain_features(ours)["rooms"], minlength=5)[2:]
    assert counts.min() > 500, counts


def check_chain_layouts(layouts: dist.Layouts, rooms, count: np.ndarray, limit: int) -> None:
    """Asserts what every MultiRoom layout satisfies (first ``limit`` layouts parsed)."""
    grid, agent = layouts.grid, layouts.agent_pos
    kind = grid[..., 0]
    assert set(np.unique(kind)) <= {C.EMPTY, C.WALL, C.DOOR, C.GOAL}
    door_cells = dist.cells_of(grid, C.DOOR)
    assert (grid[door_cells][:, 2] == C.CLOSED).all()
    np.testing.assert_array_equal(door_cells.sum(axis=(1, 2)), count - 1)
    assert (dist.cells_of(grid, C.GOAL, C.GREEN).sum(axis=(1, 2)) == 1).all()
    rows = np.arange(len(layouts))
    assert (kind[rows, agent[:, 0], agent[:, 1]] == C.EMPTY).all()
    assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    for i in range(limit):
        parsed, doors = driver.parse_chain(grid[i], agent[i])
        n = int(count[i])
        # The chain from the agent's room through each next door is the generator's chain.
        assert len(parsed) == n
        np.testing.assert_array_equal(np.asarray(parsed)[:, :2], rooms.top[i, :n])
        np.testing.assert_array_equal(np.asarray(parsed)[:, 2:], rooms.size[i, :n])
        np.testing.assert_array_equal(np.asarray(doors).reshape(-1, 2), rooms.door[i, 1:n])
        # Room by room, MiniGrid's drawing order: walls, then the room's entry door.
        expected = np.zeros_like(grid[i])
        expected[...] = C.EMPTY_CELL
        for k in range(n):
            (x, y), (w, h) = rooms.top[i, k], rooms.size[i, k]
            for cells in (np.s_[x : x + w, y], np.s_[x : x + w, y + h - 1]):
                expected[cells] = C.WALL_CELL
            for cells in (np.s_[x, y : y + h], np.s_[x + w - 1, y : y + h]):
                expected[cells] = C.WALL_CELL
            if k > 0:
                expected[tuple(rooms.door[i, k])] = (C.DOOR, rooms.colour[i, k], C.CLOSED)
        goal = tuple(np.argwhere(kind[i] == C.GOAL)[0])
        expected[goal] = C.GOAL_CELL
        np.testing.assert_array_equal(grid[i], expected)
        # Agent inside room 0, goal inside the last room, the goal reachable through doors.
        (x0, y0), (w0, h0) = rooms.top[i, 0], rooms.size[i, 0]
        assert x0 < agent[i, 0] < x0 + w0 - 1 and y0 < agent[i, 1] < y0 + h0 - 1
        (xl, yl), (wl, hl) = rooms.top[i, n - 1], rooms.size[i, n - 1]
        assert xl < goal[0] < xl + wl - 1 and yl < goal[1] < yl + hl - 1
        walk = (kind[i] == C.EMPTY) | (kind[i] == C.GOAL) | (kind[i] == C.DOOR)
        assert dist.reachable(grid[i], agent[i], walk)[goal]
        colours = rooms.colour[i, 1:n]
        assert (colours[1:] != colours[:-1]).all(), "consecutive doors share a colour"


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    _, max_rooms, max_size, _ = CONFIGS[env_id]
    layouts = dist.horizax_layouts(horizax.make(env_id), N_LAYOUTS)  # shared with the above
    rooms = rooms_of(CONFIGS[env_id], jax.random.split(jax.random.PRNGKey(0), N_LAYOUTS))
    assert (rooms.num_rooms == max_rooms).all()  # the redraw bound was not exhausted here
    sizes = rooms.size[:, :max_rooms]
    assert sizes.min() == chain.MIN_SIZE and sizes.max() == max_size
    check_chain_layouts(layouts, rooms, rooms.num_rooms, limit=400)


def test_exhausted_bound_keeps_the_first_longest_chain():
    """With K = 1, two thirds of N6 chains fall short: the layout then has that chain's
    rooms (fewer than 6), the goal in its last room, and is otherwise well-formed."""
    config = (6, 6, 10, 1)
    env = Environment(width=SIZE, height=SIZE, max_steps=120, layout_fn=multiroom_layout(*config))
    layouts = dist.horizax_layouts(env, 600)
    rooms = rooms_of(config, jax.random.split(jax.random.PRNGKey(0), 600))
    np.testing.assert_array_equal(rooms.num_rooms, rooms.chain_lengths[:, 0])
    assert 0.55 < (rooms.num_rooms < 6).mean() < 0.75
    assert set(np.unique(rooms.num_rooms)) == {1, 2, 3, 4, 5, 6}
    check_chain_layouts(layouts, rooms, rooms.num_rooms, limit=300)
    # K = 3: the first longest chain is kept.
    rooms = rooms_of((6, 6, 10, 3), jax.random.split(jax.random.PRNGKey(1), 2000))
    np.testing.assert_array_equal(rooms.num_rooms, rooms.chain_lengths.max(axis=1))


@pytest.mark.parametrize(
    ("env_id", "n_keys"),
    [(env_id, 20_000 if env_id.endswith("N6-v0") else 10_000) for env_id in IDS],
)
def test_redraw_bound_is_rarely_exhausted(env_id, n_keys):
    """How often all K chains fall short of numRooms, measured on ``n_keys`` keys.

    Measured (keys from PRNGKey(2)): per-chain rate p of reaching numRooms (room 0 drawn
    fitting) and the resulting (1 - p)^K, vs the exhausted layouts seen:

    * N2-S4 (K=3): p = 0.997, ~3e-8; 0 / 10,000.
    * N4-S5-v0 (6 rooms of <= 5, K=13): p = 0.607, ~5e-6; 0 / 10,000.
    * N4-S5-v1 (K=8): p = 0.808, ~2e-6; 0 / 10,000.
    * N6 (K=28): p = 0.336, ~1e-5; 0 / 20,000.

    Every rate is far below 1e-4. When it happens the layout keeps the first longest chain
    (`test_exhausted_bound_keeps_the_first_longest_chain`).
    """
    _, max_rooms, _, chains = CONFIGS[env_id]
    rooms = rooms_of(CONFIGS[env_id], jax.random.split(jax.random.PRNGKey(2), n_keys))
    p = (rooms.chain_lengths == max_rooms).mean()
    exhausted = int((rooms.num_rooms < max_rooms).sum())
    print(f"{env_id}: p={p:.4f} (1-p)^K={(1 - p) ** chains:.1e} exhausted={exhausted}/{n_keys}")
    assert (1 - p) ** chains < 2e-5
    assert exhausted <= 2
    np.testing.assert_array_equal(
        rooms.num_rooms < max_rooms, rooms.chain_lengths.max(1) < max_rooms
    )


def test_words_look_uniform_and_independent():
    """The hashed word stream: digits, bits and consecutive pairs vs numpy's generator."""
    seeds = jax.random.bits(jax.random.PRNGKey(3), (500, 2), jnp.uint32)
    counters = np.arange(400, dtype=np.uint32)
    w = np.asarray(jax.vmap(lambda s: chain.words(s, counters))(seeds)).astype(np.int64)
    ref = np.random.default_rng(0).integers(0, 2**32, size=w.shape)
    for radix in (3, 6, 7, 8, 9):
        _, _, p = dist.chi_square_homogeneity(w % radix, ref % radix)
        assert p > 1e-6, radix
    _, _, p = dist.chi_square_homogeneity(w >> 26, ref >> 26)
    assert p > 1e-6
    pairs = (w[:, :-1] % 8) * 8 + w[:, 1:] % 8  # consecutive counters
    _, _, p = dist.chi_square_homogeneity(pairs, (ref[:, :-1] % 8) * 8 + ref[:, 1:] % 8)
    assert p > 1e-6
    across = (w[:-1] % 8) * 8 + w[1:] % 8  # neighbouring seeds, same counter
    _, _, p = dist.chi_square_homogeneity(across, (ref[:-1] % 8) * 8 + ref[1:] % 8)
    assert p > 1e-6
    bits = (w[..., None] >> np.arange(32)) & 1
    assert np.abs(bits.mean(axis=(0, 1)) - 0.5).max() < 0.005


def test_single_room_keeps_the_goal_off_the_agent():
    env = Environment(width=SIZE, height=SIZE, max_steps=20, layout_fn=multiroom_layout(1, 1, 4, 1))
    layouts = dist.horizax_layouts(env, 2000)
    goal = dist.single_position(dist.cells_of(layouts.grid, C.GOAL, C.GREEN))
    assert (goal != layouts.agent_pos).any(axis=1).all()
    # 4 x 4 rooms: the agent on one of the 4 interior cells, the goal on one of the 3 others.
    assert len(np.unique(dist.cell_index(goal - layouts.agent_pos + 3, 8))) == 8


def test_invalid_configurations_are_rejected():
    with pytest.raises(ValueError, match="max_room_size >= 4"):
        multiroom_layout(2, 2, 3, 4)
    with pytest.raises(ValueError, match="min_rooms <= max_rooms"):
        multiroom_layout(3, 2, 5, 4)
