"""Shared test helpers: layout-distribution checks against MiniGrid, and episode drivers.

A family's layout generator must reproduce MiniGrid's layout *distribution* (not its RNG
stream). The tests draw many layouts from both sides, reduce each layout to a few categorical
features (the cell of the agent, of the goal, a gap's coordinate, ...) and compare each
feature's two samples with a chi-square test of homogeneity. Seeds are fixed, so the tests
are deterministic; the threshold `P_MIN` is loose enough for a correct generator and tight
enough that an off-by-one range (a missing or extra category of ~1/8 of the mass) fails by
many orders of magnitude.

The episode drivers (`guided_actions`, `lockstep_script`) produce action sequences that
actually solve key/door/goal tasks, so the lockstep tests reach terminations random actions
never reach.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections import deque
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax.scipy.special import gammaincc

from horizax.grid import constants as C
from horizax.grid.environment import Environment
from tests.grid import batched_reset
from tests.grid import minigrid_bridge as bridge

# ~300 feature comparisons run across the families, so at 1e-3 roughly one in three suite
# runs with fresh seeds would flag a correct generator by chance (it happened: DoorKey-16x16's
# split column at p=6e-4, whose marginal is uniform over four other key sets). Almost every
# deliberate break (off-by-one ranges, wrong order, fixed direction) fails at p < 1e-50; the
# one weak catch (a goal allowed onto the agent, p~4e-5) is also caught by the structural tests.
P_MIN = 1e-6
# MiniGrid's reset takes 0.4-10 ms a layout in these tests, horizax's batched reset 0.01-0.8
# ms (benchmarks/RESULTS.md), so the comparisons take more of ours than of MiniGrid's. A
# homogeneity test resolves a difference of proportions in proportion to sqrt(1/n_ours +
# 1/n_minigrid): `n` of each side give sqrt(2/n); `4 n` of ours and `n / 2` of MiniGrid's
# give sqrt(2.25/n), a 6% coarser test for half of MiniGrid's draws: simulated, 12% of a
# uniform 4-way feature's mass moved is caught at `P_MIN` 83% of the time with 2,000 a side
# and 65% with 8,000 and 1,000; 15% moved, 99% and 95% (benchmarks/RESULTS.md). (Not where
# a test's features cost more per layout than MiniGrid's reset: MultiRoom's parse each.)
OURS_PER_SIDE, MINIGRID_PER_SIDE = 4, 0.5
MIN_BIN = 10  # categories with fewer pooled observations are merged into one bin
# Programs run over thousands of environments at once (batched resets, random-policy
# rollouts) compile at XLA's default optimisation level, not the suite's level 0
# (tests/conftest.py): their run time, not their compile time, dominates. Measured: GoTo's
# 1,000 resets 19.3 s at level 0, 4.6 s at level 2, compile included; PickupDist's
# 2,000: 0.43 s and 0.54 s (benchmarks/RESULTS.md). Integer results do not depend on it.
BATCH_OPTIONS = batched_reset.BATCH_OPTIONS


@dataclasses.dataclass(frozen=True)
class Layouts:
    """A batch of start states as numpy arrays.

    Attributes:
        grid: u8[N, W, H, 3] encodings, box contents in the state channel (`cells.box_cell`).
        agent_pos: i32[N, 2] ``(x, y)``.
        agent_dir: i32[N].
        mission: i32[N, MISSION_SIZE] mission arrays (MiniGrid's side: from ``mission_fn``,
            or None when none was given).
    """

    grid: np.ndarray
    agent_pos: np.ndarray
    agent_dir: np.ndarray
    mission: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.agent_dir)


@functools.cache
def horizax_layouts(env: Environment, n: int, seed: int = 0) -> Layouts:
    """``n`` start states of ``env`` from its one compiled, vmapped reset.

    Cached (environments are hashable), so a family's structural and distribution tests
    share one run; the compiled reset (`tests.grid.batched_reset`, no observation) is shared
    with every other test of the process that draws the environment's resets in batches.
    """
    keys = jax.random.split(jax.random.PRNGKey(seed), n)
    state = batched_reset.reset(env, keys).state
    arrays = [np.array(x) for x in (state.grid, state.agent_pos, state.agent_dir, state.mission)]
    for array in arrays:
        array.setflags(write=False)  # shared through the cache
    return Layouts(*arrays)


def minigrid_layouts(
    env_id: str,
    n: int,
    first_seed: int = 0,
    mission_fn: Callable[[Any], Any] | None = None,
    **kwargs: Any,
) -> Layouts:
    """``n`` MiniGrid start states, reset with seeds ``first_seed .. first_seed + n - 1``.

    ``mission_fn`` (``mg -> i32[MISSION_SIZE]``, as in the bridge) fills ``Layouts.mission``.
    """
    mg = bridge.minigrid_env(env_id, **kwargs)
    grids, positions, dirs, mission = [], [], [], []
    for seed in range(first_seed, first_seed + n):
        mg.reset(seed=seed)
        grids.append(bridge.grid_encoding(mg))
        positions.append(np.asarray(mg.agent_pos))
        dirs.append(int(mg.agent_dir))
        if mission_fn is not None:
            mission.append(np.asarray(mission_fn(mg)))
    return Layouts(
        grid=np.stack(grids).astype(np.uint8),
        agent_pos=np.stack(positions).astype(np.int32),
        agent_dir=np.asarray(dirs, np.int32),
        mission=np.stack(mission).astype(np.int32) if mission_fn is not None else None,
    )


def sample_sizes(n: int) -> tuple[int, int]:
    """The numbers of horizax's and of MiniGrid's layouts for a comparison about as fine as
    ``n`` layouts of each side: ``4 n`` and ``n / 2`` (`OURS_PER_SIDE`)."""
    return int(OURS_PER_SIDE * n), int(MINIGRID_PER_SIDE * n)


FeatureFn = Callable[[Layouts], dict[str, np.ndarray]]


def compare_resets(
    env_id: str,
    n: int,
    features: FeatureFn,
    ours: Callable[[str, int], Layouts],
    theirs: Callable[[str, int], Layouts],
) -> Layouts:
    """`compare_layouts` of ``ours(env_id, k)`` and ``theirs(env_id, k)`` at `sample_sizes`
    of ``n``; returns our layouts, for the caller's structural checks."""
    n_ours, n_minigrid = sample_sizes(n)
    layouts = ours(env_id, n_ours)
    compare_layouts(features, layouts, theirs(env_id, n_minigrid))
    return layouts


def compare_with_minigrid(
    env_id: str,
    features: Callable[[Layouts], dict[str, np.ndarray]],
    n: int,
    *,
    n_minigrid: int | None = None,
    mission_fn: Callable[[Any], Any] | None = None,
) -> None:
    """`compare_layouts` of horizax's and MiniGrid's resets of ``env_id``, MiniGrid's
    missions read with ``mission_fn``: ``n`` of ours and ``n_minigrid`` of MiniGrid's, or
    by default `sample_sizes` of ``n``."""
    import horizax

    n_ours, n_theirs = sample_sizes(n) if n_minigrid is None else (n, n_minigrid)
    ours = horizax_layouts(horizax.make(env_id), n_ours)
    theirs = minigrid_layouts(env_id, n_theirs, mission_fn=mission_fn)
    compare_layouts(features, ours, theirs)


def cells_of(
    grid: np.ndarray, obj: int, color: int | None = None, state: int | None = None
) -> np.ndarray:
    """bool[..., W, H]: cells holding ``obj`` (and ``color``/``state`` when given)."""
    mask = grid[..., 0] == obj
    if color is not None:
        mask &= grid[..., 1] == color
    if state is not None:
        mask &= grid[..., 2] == state
    return mask


def single_position(mask: np.ndarray) -> np.ndarray:
    """i32[N, 2]: the one True cell of each bool[N, W, H] mask (asserts there is exactly one)."""
    counts = mask.reshape(len(mask), -1).sum(axis=1)
    assert np.all(counts == 1), f"expected exactly one cell per layout, got counts {counts}"
    flat = mask.reshape(len(mask), -1).argmax(axis=1)
    height = mask.shape[2]
    return np.stack([flat // height, flat % height], axis=1).astype(np.int32)


def cell_index(pos: np.ndarray, height: int) -> np.ndarray:
    """i32[N]: a categorical code ``x * H + y`` for positions i32[N, 2]."""
    return (pos[:, 0] * height + pos[:, 1]).astype(np.int32)


def chi_square_homogeneity(a: np.ndarray, b: np.ndarray) -> tuple[float, int, float]:
    """Chi-square test that two samples of integer categories share one distribution.

    Categories with fewer than `MIN_BIN` observations in both samples together are pooled
    into one bin, so sparse tails (e.g. 19x19 cells at a few counts each) do not blow up the
    statistic; a category one side never produces still shows once it is frequent enough.

    Returns:
        ``(statistic, degrees of freedom, p-value)``; p = 1 when there is a single bin.
    """
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    # Counts per category by one sort (features run to thousands of categories).
    cats, index = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca = np.bincount(index[: len(a)], minlength=len(cats)).astype(np.float64)
    cb = np.bincount(index[len(a) :], minlength=len(cats)).astype(np.float64)
    small = (ca + cb) < MIN_BIN
    if small.any():
        ca = np.append(ca[~small], ca[small].sum())
        cb = np.append(cb[~small], cb[small].sum())
        keep = (ca + cb) > 0
        ca, cb = ca[keep], cb[keep]
    if len(ca) < 2:
        return 0.0, 0, 1.0
    total = ca + cb
    na, nb = ca.sum(), cb.sum()
    ea, eb = total * na / (na + nb), total * nb / (na + nb)
    statistic = float(((ca - ea) ** 2 / ea).sum() + ((cb - eb) ** 2 / eb).sum())
    dof = len(ca) - 1
    # The chi-square survival function, Q(dof/2, x/2), without a SciPy dependency.
    return statistic, dof, float(gammaincc(dof / 2, statistic / 2))


def total_variation(a: np.ndarray, b: np.ndarray) -> float:
    """The total-variation distance between the empirical distributions of two samples."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    cats = np.union1d(a, b)
    pa = np.array([(a == c).mean() for c in cats])
    pb = np.array([(b == c).mean() for c in cats])
    return float(0.5 * np.abs(pa - pb).sum())


def compare_layouts(
    features: FeatureFn, ours: Layouts, theirs: Layouts, p_min: float = P_MIN
) -> dict[str, float]:
    """Asserts every feature of ``ours`` is distributed like in ``theirs`` (MiniGrid).

    Args:
        features: ``layouts -> {name: i32[N] categories}``, applied to both batches.
        ours, theirs: the horizax and MiniGrid layouts.
        p_min: the smallest acceptable chi-square p-value.

    Returns:
        ``{name: p-value}`` (for reports; all are >= ``p_min``).
    """
    fa, fb = features(ours), features(theirs)
    assert fa.keys() == fb.keys()
    p_values, failures = {}, []
    for name in fa:
        statistic, dof, p = chi_square_homogeneity(fa[name], fb[name])
        p_values[name] = p
        support_a, support_b = set(np.unique(fa[name])), set(np.unique(fb[name]))
        if p < p_min:
            failures.append(
                f"{name}: chi2={statistic:.1f} dof={dof} p={p:.2e} "
                f"tv={total_variation(fa[name], fb[name]):.3f} "
                f"only-horizax={sorted(support_a - support_b)[:8]} "
                f"only-minigrid={sorted(support_b - support_a)[:8]}"
            )
    assert not failures, "layout distributions differ:\n" + "\n".join(failures)
    return p_values


def reachable(grid: np.ndarray, start: np.ndarray, passable: np.ndarray) -> np.ndarray:
    """bool[W, H]: cells 4-connected to ``start`` through ``passable`` cells (start included).

    Args:
        grid: u8[W, H, 3] (only its shape is used).
        start: ``(x, y)``.
        passable: bool[W, H].
    """
    from scipy import ndimage  # C-speed labelling: the guided drivers call this per step

    del grid
    start = tuple(int(v) for v in start)
    cells = np.array(passable, dtype=bool)
    cells[start] = True
    labels, _ = ndimage.label(cells)  # default structure: 4-connectivity
    return labels == labels[start]


def reachable_batch(passable: np.ndarray, start: np.ndarray) -> np.ndarray:
    """bool[N, W, H]: `reachable` of a batch at once, one flood fill over every layout
    (no Python loop over the layouts).

    Args:
        passable: bool[N, W, H].
        start: i32[N, 2] ``(x, y)``, reachable whatever ``passable`` says there.
    """
    rows = np.arange(len(passable))
    passable = np.array(passable, dtype=bool)
    passable[rows, start[:, 0], start[:, 1]] = True
    seen = np.zeros_like(passable)
    seen[rows, start[:, 0], start[:, 1]] = True
    while True:
        grown = neighbourhood(seen) & passable
        if (grown == seen).all():
            return seen
        seen = grown


def neighbourhood(mask: np.ndarray) -> np.ndarray:
    """bool[N, W, H]: ``mask`` and its cells' 4-neighbours."""
    out = mask.copy()
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    out[:, :, 1:] |= mask[:, :, :-1]
    out[:, :, :-1] |= mask[:, :, 1:]
    return out


# ----------------------------------------------------------------------------- drivers


def _walkable(grid: np.ndarray) -> np.ndarray:
    """bool[W, H]: cells the expert walks through (never lava; the goal only as target)."""
    obj, state = grid[..., 0], grid[..., 2]
    return (obj == C.EMPTY) | (obj == C.FLOOR) | ((obj == C.DOOR) & (state == C.OPEN))


_STEPS = tuple((int(dx), int(dy)) for dx, dy in C.DIR_TO_VEC)  # plain ints: a per-step BFS


def _first_action_to_face(grid: np.ndarray, pos, direction: int, target) -> int | None:
    """The first of left/right/forward on a shortest path to facing ``target``, or None."""
    width, height = grid.shape[:2]
    # Python lists and ints: the lockstep drivers run this search at every step, and numpy
    # scalar indexing made it most of a BabyAI lockstep test's own time.
    walk = _walkable(grid).tolist()
    goal = (int(target[0]), int(target[1]))
    start = (int(pos[0]), int(pos[1]), int(direction))
    first: dict[tuple[int, int, int], int | None] = {start: None}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        x, y, d = here
        dx, dy = _STEPS[d]
        fx, fy = x + dx, y + dy
        via = first[here]
        if (fx, fy) == goal:
            return C.FORWARD if via is None else via
        moves = [(C.LEFT, (x, y, (d - 1) % 4)), (C.RIGHT, (x, y, (d + 1) % 4))]
        if 0 <= fx < width and 0 <= fy < height and walk[fx][fy]:
            moves.append((C.FORWARD, (fx, fy, d)))
        for action, nxt in moves:
            if nxt not in first:
                first[nxt] = action if via is None else via
                todo.append(nxt)
    return None


def expert_action(mg: Any) -> int:
    """A shortest-path action for key -> locked door -> goal tasks (DoorKey, FourRooms, ...).

    Fetches the key while a door is locked, toggles a shut door, then walks onto the goal.
    Facing the current target it interacts (pickup / toggle / forward).
    """
    grid = bridge.grid_encoding(mg)  # MiniGrid's encode, one pass (box states aside)
    carrying = bridge.carried_encoding(mg)
    doors = np.argwhere(cells_of(grid, C.DOOR) & (grid[..., 2] != C.OPEN))
    keys = np.argwhere(cells_of(grid, C.KEY))
    if len(doors) and grid[tuple(doors[0])][2] == C.LOCKED and carrying[0] != C.KEY and len(keys):
        target, interaction = keys[0], C.PICKUP
    elif len(doors):
        target, interaction = doors[0], C.TOGGLE
    else:
        target, interaction = np.argwhere(cells_of(grid, C.GOAL))[0], C.FORWARD
    action = _first_action_to_face(grid, mg.agent_pos, int(mg.agent_dir), target)
    if action is None:
        return C.FORWARD
    dx, dy = C.DIR_TO_VEC[int(mg.agent_dir)]
    facing = (int(mg.agent_pos[0]) + int(dx), int(mg.agent_pos[1]) + int(dy))
    return interaction if facing == tuple(int(v) for v in target) else action


def guided_actions(mg: Any, rng: np.random.Generator, noise: float = 0.2) -> np.ndarray:
    """i32[T]: one whole episode of ``mg`` from its current state, ``expert_action`` with
    probability ``1 - noise`` and a uniform action otherwise.

    Simulated on a deep copy, so ``mg`` itself is untouched; replaying the actions on ``mg``
    (deterministic dynamics) reproduces the episode up to its termination or truncation.
    Prefer `lockstep_script` for several episodes: one `bridge.lockstep` call compiles once.
    """
    return lockstep_script(mg, np.zeros(0, np.int32), 1, rng, noise)


def lockstep_script(
    mg: Any,
    prefix: np.ndarray,
    guided_episodes: int,
    rng: np.random.Generator,
    noise: float = 0.2,
) -> np.ndarray:
    """i32[T]: ``prefix`` followed by ``guided_episodes`` noisy expert episodes, as ONE action
    sequence for a single `bridge.lockstep` call (one compilation instead of one per episode).

    The actions are planned on a deep copy of ``mg`` that mirrors `bridge.lockstep`: when an
    episode ends at action index ``n`` it is reset with ``seed=n``. The first guided episode
    continues from wherever the prefix left off. Dynamics must be deterministic.
    """
    sim = copy.deepcopy(mg)
    actions: list[int] = []

    def act(action: int) -> bool:
        actions.append(int(action))
        _, _, terminated, truncated, _ = sim.step(int(action))
        if terminated or truncated:
            sim.reset(seed=len(actions) - 1)
            return True
        return False

    for action in np.asarray(prefix):
        act(action)
    for _ in range(guided_episodes):
        done = False
        while not done:
            noisy = rng.random() < noise
            done = act(int(rng.integers(0, C.NUM_ACTIONS)) if noisy else expert_action(sim))
    return np.asarray(actions, np.int32)
