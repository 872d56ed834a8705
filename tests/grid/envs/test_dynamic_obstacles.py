"""Dynamic-Obstacles: lockstep against MiniGrid (its ball moves synced in), layout and
obstacle-move distributions, and structural checks of layouts and moves under vmap."""

from __future__ import annotations

from collections import Counter

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import horizax
from horizax.grid import constants as C
from horizax.grid.envs import dynamic_obstacles as D
from horizax.grid.state import State, make_state, walled_grid
from horizax.grid.timestep import Timestep
from tests.grid import distribution as dist
from tests.grid import minigrid_bridge as bridge

# id -> (size, random start, number of balls)
CONFIGS = {
    "MiniGrid-Dynamic-Obstacles-5x5-v0": (5, False, 2),
    "MiniGrid-Dynamic-Obstacles-Random-5x5-v0": (5, True, 2),
    "MiniGrid-Dynamic-Obstacles-6x6-v0": (6, False, 3),
    "MiniGrid-Dynamic-Obstacles-Random-6x6-v0": (6, True, 3),
    "MiniGrid-Dynamic-Obstacles-8x8-v0": (8, False, 4),
    "MiniGrid-Dynamic-Obstacles-16x16-v0": (16, False, 8),
}
IDS = list(CONFIGS)


def flat_of(positions, height: int) -> np.ndarray:
    """i32[n]: flat indices ``x * height + y`` of ``(x, y)`` positions."""
    return np.asarray([int(x) * height + int(y) for x, y in positions], np.int32)


ball_order = jax.jit(D.ball_order, static_argnums=1)


def ball_cells(state: State) -> np.ndarray:
    """The cells a state's `BallOrder` lists, in move order (batched or not)."""
    return np.asarray(state.extra.cells)


def order_of(cells: list[int]) -> D.BallOrder:
    return D.BallOrder(np.asarray(cells, np.int32))  # numpy: no eager dispatch per step


def check_moves(grid, agent, old, new, post_grid) -> Counter:
    """Replays ball moves in their move order and checks each one (numpy).

    Each ball, in turn, either stays or moves to a cell of its 3x3 window that is empty at
    that moment (earlier balls already moved, its own old cell still occupied) and is not the
    agent's; nothing else in the grid changes (the agent's actions here never touch it).

    Args:
        grid: u8[W, H, 3] before the moves; agent: ``(x, y)``; old, new: i32[n] flat cells
            ``x * H + y`` of the balls in move order before and after; post_grid: the result.
    """
    grid = np.array(grid)
    height = grid.shape[1]
    agent = tuple(int(v) for v in agent)
    counts: Counter[str] = Counter()
    for o, m in zip(old, new, strict=True):
        (ox, oy), (nx, ny) = divmod(int(o), height), divmod(int(m), height)
        assert grid[ox, oy, 0] == C.BALL, f"no ball at {ox, oy}"
        if (nx, ny) == (ox, oy):
            counts["stayed"] += 1
            continue
        assert max(abs(nx - ox), abs(ny - oy)) <= 1, f"ball {ox, oy} jumped to {nx, ny}"
        assert grid[nx, ny, 0] == C.EMPTY, f"ball {ox, oy} moved onto {grid[nx, ny]}"
        assert (nx, ny) != agent, "a ball moved onto the agent"
        grid[nx, ny], grid[ox, oy] = grid[ox, oy], C.EMPTY_CELL
        counts["moved"] += 1
    np.testing.assert_array_equal(post_grid, grid, err_msg="illegal grid change")
    return counts


def assert_legal_moves(prev: State, post: State, n: int) -> Counter:
    """`check_moves` for one horizax transition (order from ``prev``, result in ``post``)."""
    old, valid = ball_order(prev, n)
    assert np.asarray(valid).all(), "a ball went missing"
    new = ball_cells(post)[:n]
    return check_moves(prev.grid, prev.agent_pos, np.asarray(old), new, np.asarray(post.grid))


class ObstacleSync:
    """The lockstep ``sync`` hook: check horizax's own obstacle moves, then adopt MiniGrid's.

    MiniGrid draws its moves from its own RNG, so after each step the horizax step is redone
    from the same pre-step state with MiniGrid's post-move ball positions (and order) injected
    as the dynamics. The agent's move, reward, termination and view are thus horizax's own,
    computed on MiniGrid's obstacle layout, and `lockstep` compares all of them.
    """

    def __init__(self, env: horizax.Environment, mg, n: int):
        self.n, self.mg = n, mg
        self.counts: Counter[str] = Counter()
        self.last: State | None = None
        # True while horizax's pre-step state is lockstep's `timestep_from_minigrid` copy
        # (a zero BallOrder: scan order), i.e. before the first step and after an episode end.
        self.fresh = True
        self._step = mg.step
        mg.step = self._mg_step  # record the pre-step state and the action
        env = env.disable_autoreset()

        def replay(prev: State, action, grid, order) -> Timestep:
            inject = env.replace(dynamics_fn=lambda s, a, k: s.replace(grid=grid, extra=order))
            start = bridge.first_timestep(prev, env.observation_fn(prev))
            return inject.step(start, action)

        self.replay = jax.jit(replay)

    def _mg_step(self, action):
        self.pre_minigrid = bridge.state_from_minigrid(self.mg, extra=order_of([0] * self.n))
        self.pre_order = flat_of([o.cur_pos for o in self.mg.obstacles], self.mg.height)
        self.action = int(action)
        result = self._step(action)
        reward, terminated = result[1], result[2]
        self.ended = bool(terminated or result[3])
        self.counts["collisions"] += int(terminated and reward == -1)
        self.counts["goals"] += int(terminated and reward > 0)
        return result

    def __call__(self, ts: Timestep, mg) -> Timestep:
        prev = self.pre_minigrid if self.fresh else self.last
        if not self.fresh:
            # Our previous sync recorded MiniGrid's order; horizax must follow it.
            np.testing.assert_array_equal(np.asarray(ball_order(prev, self.n)[0]), self.pre_order)
        self.counts.update(assert_legal_moves(prev, ts.state, self.n))
        order = order_of(flat_of([o.cur_pos for o in mg.obstacles], mg.height))
        grid = np.asarray(mg.grid.encode(), np.uint8)
        replayed = self.replay(prev, np.int32(self.action), grid, order)
        self.last, self.fresh = replayed.state, self.ended
        return replayed


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_configuration_matches_minigrid(env_id):
    bridge.assert_same_configuration(env_id)
    env, mg = bridge.paired(env_id)
    assert env.num_actions == 3
    assert len(mg.obstacles) == CONFIGS[env_id][2]


@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_lockstep_with_minigrid(env_id):
    env, mg = bridge.paired(env_id)
    sync = ObstacleSync(env, mg, CONFIGS[env_id][2])
    actions = bridge.random_actions(seed=1, n=2000, num_actions=3, forward_bias=0.2)
    counts = bridge.lockstep(env, mg, actions, sync=sync)
    assert counts["steps"] == 2000
    assert sync.counts["collisions"] >= 10, "no collision: the test lost its teeth"
    assert sync.counts["moved"] > 1000
    if CONFIGS[env_id][0] <= 6:
        assert sync.counts["goals"] >= 1, "the goal was never reached"


def test_invalid_action_acts_as_left():
    env = horizax.make("MiniGrid-Dynamic-Obstacles-8x8-v0")
    ts = env.reset(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    left, invalid = step(ts, jnp.int32(C.LEFT)), step(ts, jnp.int32(5))
    assert int(invalid.state.agent_dir) == int(left.state.agent_dir) == 3
    np.testing.assert_array_equal(invalid.state.grid, left.state.grid)
    with pytest.raises(ValueError):
        env.step(ts, 3)


# ----------------------------------------------------------------------------- layouts


def minigrid_starts(env_id: str, n: int) -> tuple[dist.Layouts, np.ndarray]:
    """MiniGrid start states for seeds 0..n-1 and i32[n, balls] ball cells in move order."""
    mg = bridge.minigrid_env(env_id)
    grids, positions, dirs, balls = [], [], [], []
    for seed in range(n):
        mg.reset(seed=seed)
        grids.append(mg.grid.encode())
        positions.append(np.asarray(mg.agent_pos))
        dirs.append(int(mg.agent_dir))
        balls.append(flat_of([o.cur_pos for o in mg.obstacles], mg.height))
    layouts = dist.Layouts(
        grid=np.stack(grids).astype(np.uint8),
        agent_pos=np.stack(positions).astype(np.int32),
        agent_dir=np.asarray(dirs, np.int32),
    )
    return layouts, np.stack(balls)


def horizax_starts(
    env_id: str, n: int, seed: int, env: horizax.Environment | None = None
) -> tuple[dist.Layouts, np.ndarray]:
    """horizax start states from one jitted, vmapped reset, and their ball cells in order."""
    env = env or horizax.make(env_id)
    state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(seed), n)).state
    layouts = dist.Layouts(
        grid=np.asarray(state.grid),
        agent_pos=np.asarray(state.agent_pos),
        agent_dir=np.asarray(state.agent_dir),
    )
    balls = ball_cells(state)[:, : CONFIGS[env_id][2]]
    return layouts, balls


def start_features(layouts: dist.Layouts, balls: np.ndarray) -> dict[str, np.ndarray]:
    """Categorical features of start states (``balls``: i32[N, n] cells in move order)."""
    height = layouts.grid.shape[2]
    out = {
        "agent": dist.cell_index(layouts.agent_pos, height),
        "agent_dir": layouts.agent_dir,
        "first_ball_in_scan_order": np.sort(balls, axis=1)[:, 0],
        "first_two_balls": balls[:, 0] * height * height + balls[:, 1],
        # Joint with the agent: balls are placed after, and away from, the agent.
        "ball_0_minus_agent": dist.cell_index(
            np.stack(np.divmod(balls[:, 0], height), axis=1) - layouts.agent_pos + height,
            2 * height,
        ),
    }
    out.update({f"ball_{k}": balls[:, k] for k in range(balls.shape[1])})
    return out


def compare_starts(ours, theirs) -> None:
    """Asserts that two ``(layouts, balls)`` samples share every `start_features` law."""
    fa, fb = start_features(*ours), start_features(*theirs)
    failures = []
    for name in fa:
        stat, dof, p = dist.chi_square_homogeneity(fa[name], fb[name])
        if p < dist.P_MIN:
            failures.append(f"{name}: chi2={stat:.1f} dof={dof} p={p:.2e}")
    assert not failures, failures


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("env_id", IDS)
def test_layout_distribution_matches_minigrid(env_id):
    n = 3000
    compare_starts(horizax_starts(env_id, n, seed=0), minigrid_starts(env_id, n))


@pytest.mark.parametrize("env_id", IDS)
def test_every_layout_is_well_formed(env_id):
    size, random_start, n = CONFIGS[env_id]
    layouts, balls = horizax_starts(env_id, 512, seed=size)
    grid = layouts.grid
    goal = dist.single_position(dist.cells_of(grid, C.GOAL, C.GREEN))
    np.testing.assert_array_equal(goal, np.broadcast_to([size - 2, size - 2], goal.shape))
    is_ball = dist.cells_of(grid, C.BALL)
    assert (is_ball == dist.cells_of(grid, C.BALL, C.BLUE, 0)).all()
    assert (is_ball.sum(axis=(1, 2)) == n).all()
    for i in range(len(layouts)):
        g, pos = grid[i], layouts.agent_pos[i]
        assert set(np.unique(g[..., 0])) <= {C.EMPTY, C.WALL, C.BALL, C.GOAL}
        walls = g[..., 0] == C.WALL
        assert walls[0].all() and walls[-1].all() and walls[:, 0].all() and walls[:, -1].all()
        assert walls.sum() == 4 * (size - 1)
        assert g[pos[0], pos[1], 0] == C.EMPTY
        # The BallOrder lists exactly the balls, once each.
        listed = sorted(int(b) for b in balls[i])
        assert listed == sorted(np.flatnonzero(is_ball[i].reshape(-1)).tolist())
    if random_start:
        assert set(np.unique(layouts.agent_dir)) == {0, 1, 2, 3}
    else:
        assert (layouts.agent_pos == 1).all() and (layouts.agent_dir == 0).all()


# ----------------------------------------------------------------------------- dynamics


@pytest.mark.parametrize("env_id", ["MiniGrid-Dynamic-Obstacles-6x6-v0", IDS[-1]])
def test_moves_are_legal_under_vmap(env_id):
    """Many vmapped random episodes: every step's ball moves replay legally."""
    n = CONFIGS[env_id][2]
    env = horizax.make(env_id)
    batch = 64
    ts = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(1), batch))
    step = jax.jit(jax.vmap(env.step))
    rng = np.random.default_rng(0)
    totals: Counter[str] = Counter()
    order = jax.jit(jax.vmap(lambda s: D.ball_order(s, n)[0]))
    for _ in range(20):
        nxt = step(ts, jnp.asarray(rng.integers(0, 3, batch), jnp.int32))
        old = np.asarray(order(ts.state))
        new = ball_cells(nxt.state)
        pre, post = jax.device_get((ts, nxt))
        for b in range(batch):
            if pre.step_type[b] != 0:
                continue  # autoreset: a fresh layout, not a move
            totals.update(
                check_moves(
                    pre.state.grid[b],
                    pre.state.agent_pos[b],
                    old[b],
                    new[b, :n],
                    post.state.grid[b],
                )
            )
        ts = nxt
    assert totals["moved"] > 0.9 * sum(totals.values())


def _scenario(size: int, agent, balls) -> State:
    grid = walled_grid(size, size)
    grid[size - 2, size - 2] = C.GOAL_CELL
    for x, y in balls:
        grid[x, y] = D.BALL_CELL
    return make_state(grid, np.asarray(agent), 0, extra=order_of(flat_of(balls, size)))


def _destinations(state: State, n: int, trials: int, seed: int) -> np.ndarray:
    """i32[trials, n]: each ball's cell after one move, in move order (vmapped, chunked)."""
    dynamics = jax.jit(jax.vmap(lambda k: D.move_obstacles(n)(state, 0, k).extra.cells))
    keys = jax.random.split(jax.random.PRNGKey(seed), trials)
    chunks = [np.asarray(dynamics(c))[:, :n] for c in np.array_split(keys, max(1, trials >> 17))]
    return np.concatenate(chunks)


def test_ball_with_no_free_cell_stays():
    # (1, 1) moves first; its window holds only walls, balls and the agent.
    state = _scenario(6, (2, 2), [(1, 1), (2, 1), (1, 2)])
    dest = _destinations(state, 3, 4096, seed=0)
    assert (dest[:, 0] == 1 * 6 + 1).all()
    assert (dest[:, 1:] != 1 * 6 + 1).all()


def test_the_101_try_cap_is_modelled():
    """One admissible cell of nine: MiniGrid gives up after 101 failed draws.

    That happens with probability (8/9)**101 ~ 6.8e-6, so ~7 of 2**20 balls stay; without
    the cap none would.
    """
    # 5x5: (1, 1) sees walls, itself, the ball (2, 1), the agent (1, 2) and (2, 2) free.
    state = _scenario(5, (1, 2), [(1, 1), (2, 1)])
    dest = _destinations(state, 2, 1 << 20, seed=1)
    assert set(np.unique(dest[:, 0]).tolist()) == {1 * 5 + 1, 2 * 5 + 2}
    stays = int(np.sum(dest[:, 0] == 1 * 5 + 1))
    assert 1 <= stays <= 25, stays


# (env id, agent, ball cells in MiniGrid's move order): crowded corners, balls next to each
# other, to the agent and to the goal, where order, exclusions and walls all matter.
SCENARIOS = {
    "pair": ("MiniGrid-Dynamic-Obstacles-5x5-v0", (1, 1), [(2, 2), (2, 1)]),
    "corner": ("MiniGrid-Dynamic-Obstacles-6x6-v0", (2, 3), [(1, 1), (2, 2), (3, 2)]),
    "cluster": ("MiniGrid-Dynamic-Obstacles-8x8-v0", (5, 5), [(3, 3), (4, 3), (3, 4), (6, 5)]),
}


def minigrid_destinations(env_id: str, agent, balls, trials: int) -> np.ndarray:
    """i32[trials, n]: MiniGrid's cell of each ball (its list order) after one step from the
    same state, by re-placing the balls and stepping ``left`` (which leaves the grid alone)."""
    mg = bridge.minigrid_env(env_id)
    mg.reset(seed=0)
    assert len(mg.obstacles) == len(balls)
    out = np.zeros((trials, len(balls)), np.int32)
    for t in range(trials):
        for ball in mg.obstacles:
            mg.grid.set(*ball.cur_pos, None)
        for ball, pos in zip(mg.obstacles, balls, strict=True):
            mg.grid.set(*pos, ball)
            ball.cur_pos = pos
        mg.agent_pos, mg.agent_dir, mg.step_count = np.asarray(agent), 0, 0
        mg.step(C.LEFT)
        out[t] = flat_of([ball.cur_pos for ball in mg.obstacles], mg.height)
    return out


def joint_code(dest: np.ndarray, cells: int) -> np.ndarray:
    """i64[N]: one category per set of occupied cells (balls are indistinguishable)."""
    ordered = np.sort(dest, axis=1).astype(np.int64)
    return (ordered * cells ** np.arange(dest.shape[1], dtype=np.int64)).sum(axis=1)


@pytest.mark.slow
@pytest.mark.reference
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_obstacle_moves_match_minigrid(scenario):
    env_id, agent, balls = SCENARIOS[scenario]
    size, _, n = CONFIGS[env_id]
    trials = 20000
    theirs = minigrid_destinations(env_id, agent, balls, trials)
    ours = _destinations(_scenario(size, agent, balls), n, trials, seed=7)
    failures = []
    features = {f"ball_{k}": (ours[:, k], theirs[:, k]) for k in range(n)}
    features["joint"] = (joint_code(ours, size * size), joint_code(theirs, size * size))
    for name, (a, b) in features.items():
        stat, dof, p = dist.chi_square_homogeneity(a, b)
        if p < dist.P_MIN:
            failures.append(f"{name}: chi2={stat:.1f} dof={dof} p={p:.2e}")
    assert not failures, failures
    # Negative control: moving the balls in the reverse order is visibly different, so the
    # order tracking is load-bearing and the test can tell.
    reverse = _destinations(_scenario(size, agent, balls[::-1]), n, trials, seed=7)
    _, _, p = dist.chi_square_homogeneity(joint_code(reverse, size * size), features["joint"][1])
    assert p < 1e-6, p


def test_order_is_tracked_and_defaults_to_scan_order():
    state = _scenario(8, (5, 5), [(3, 4), (2, 2), (6, 1)])  # not in scan order
    order, valid = D.ball_order(state, 3)
    np.testing.assert_array_equal(order, flat_of([(3, 4), (2, 2), (6, 1)], 8))
    assert np.asarray(valid).all()
    # A state without the order (e.g. copied from MiniGrid) moves its balls in scan order,
    # with no BallOrder at all or with a zero one.
    for unknown in ((), order_of([0, 0, 0])):
        order, _ = D.ball_order(state.replace(extra=unknown), 3)
        np.testing.assert_array_equal(order, flat_of([(2, 2), (3, 4), (6, 1)], 8))
    moved = D.move_obstacles(3)(state.replace(extra=()), 0, jax.random.PRNGKey(0))
    assert isinstance(moved.extra, D.BallOrder), "the dynamics record the order they used"
    # Fewer balls than slots: the missing ones come last and never move.
    order, valid = D.ball_order(state, 4)
    np.testing.assert_array_equal(valid, [True, True, True, False])
    moved = D.move_obstacles(4)(state, 0, jax.random.PRNGKey(0))
    assert int(jnp.sum(moved.grid[..., 0] == C.BALL)) == 3


@pytest.mark.parametrize("env_id", ["MiniGrid-Dynamic-Obstacles-16x16-v0"])
def test_step_is_branch_free(env_id):
    env = horizax.make(env_id).disable_autoreset()
    ts = env.reset(jax.random.PRNGKey(0))
    text = str(jax.make_jaxpr(env.step)(ts, jnp.int32(2)))
    assert "while[" not in text and "cond[" not in text
