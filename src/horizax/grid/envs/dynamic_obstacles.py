"""Dynamic-Obstacles: reach the goal in a room of randomly moving balls without touching one.

MiniGrid's DynamicObstaclesEnv: a ``size`` x ``size`` walled room, the goal at ``(size-2,
size-2)``, the agent at ``(1, 1)`` facing right or (``-Random-`` ids) on a uniform empty cell
with a uniform direction, then ``n`` blue balls, each on a uniform empty cell that is not the
agent's (``n = n_obstacles`` if ``n_obstacles <= size / 2 + 1`` else ``int(size / 2)``).
``max_steps = 4 * size**2``; ``see_through_walls=True``. Only ``left``, ``right`` and
``forward`` exist; inside `jit` any other action acts as ``left`` (MiniGrid's remapping).

Obstacle dynamics (`move_obstacles`), applied BEFORE the agent acts. In MiniGrid each ball in
turn calls ``place_obj(top=pos - 1, size=(3, 3), max_tries=100)``: up to 101 uniform draws
from the (clipped) 3x3 window around it, accepting the first cell that is empty and not the
agent's. The ball's own cell is still occupied while it is re-placed, balls moved earlier
occupy their new cells, and a ball's old cell is emptied only after its own move. The
accepted cell is uniform over the admissible cells, so a ball with ``k`` admissible cells
among the ``m`` window cells moves to one of them uniformly with probability ``1 - (1 -
k/m)**101`` and otherwise stays (MiniGrid swallows the exception). Both facts are modelled
exactly: one uniform decides whether all 101 draws fail (``(8/9)**101 ~ 7e-6`` at most),
nine more pick the cell; the float32 uniform resolves that probability to ~1e-7. At reset
MiniGrid's ``place_obj(max_tries=100)`` over the whole room could also fail and raise; that
has probability ~1e-12 at most (5x5, second ball: 6 free cells of 25) and is not modelled.

Ball order. The outcome depends on the order the balls move in: with two adjacent balls the
first to move can never land on the second's cell but the second can land on the first's
vacated cell, so a fixed grid-scan order would e.g. never refill the cell of the earlier ball
in scan order, while MiniGrid refills either with equal chance (its order is the placement
order, uniform given the positions at reset) -- and because that order persists for the whole
episode, even a freshly shuffled order per step would not reproduce the correlations across
steps. horizax therefore tracks MiniGrid's order in the family's private state,
``state.extra`` (a `BallOrder`): the flat cell indices ``x * height + y`` of the balls in move
order. The grid stays the single source of truth: the balls are recovered by scanning the
grid (column-major), ordered by where their cell appears in the `BallOrder`; balls it does
not list (e.g. a state copied from elsewhere, without one) move after the listed ones, in
scan order, and all moves stay legal. Balls beyond ``n`` never move.

* observation: u8[7, 7, 3] egocentric view without occlusion.
* action: i32[] in [0, 3) (left, right, forward).
* reward: f32[], ``1 - 0.9 * t / max_steps`` on reaching the goal; -1 on ``forward`` into a
  cell that, before the balls moved, held anything but nothing or the goal (walls too).
* termination: goal reached or such a collision; truncation at ``max_steps``.

Example:
    >>> env = horizax.make("MiniGrid-Dynamic-Obstacles-8x8-v0")
    >>> ts = env.reset(jax.random.PRNGKey(0))
    >>> ts = env.step(ts, jnp.int32(2))
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.struct import pytree_dataclass
from horizax.grid import constants as C
from horizax.grid import missions, observations, rewards, terminations
from horizax.grid.environment import DynamicsFn, LayoutFn
from horizax.grid.registration import factory, navix_aliases
from horizax.grid.sampling import empty_cells, sample_cell, sample_direction, uniform_scores
from horizax.grid.state import State, make_state, walled_grid

BALL_CELL = (C.BALL, C.BLUE, 0)
MAX_TRIES = 100  # MiniGrid's cap; ``num_tries > max_tries`` is checked first, so 101 draws


def num_obstacles(size: int, n_obstacles: int) -> int:
    """MiniGrid's obstacle count: ``n_obstacles`` if ``<= size / 2 + 1``, else ``size // 2``."""
    return int(n_obstacles) if n_obstacles <= size / 2 + 1 else int(size / 2)


@pytree_dataclass
class BallOrder:
    """Dynamic-Obstacles' private state (``State.extra``): the order its balls move in.

    Attributes:
        cells: i32[n], the balls' flat cell indices ``x * height + y`` in move order; 0 where
            no ball is listed (cell 0 is a wall corner, never a ball).
    """

    cells: Array


def _listed_cells(state: State) -> Array:
    """i32[k]: the cells a state's `BallOrder` lists (one unlisted slot if it has none)."""
    if isinstance(state.extra, BallOrder):
        return jnp.asarray(state.extra.cells, jnp.int32)
    return jnp.zeros(1, jnp.int32)


def ball_order(state: State, n: int) -> tuple[Array, Array]:
    """The balls of ``state`` in the order they move.

    Args:
        state: a Dynamic-Obstacles state.
        n: the number of ball slots (static).

    Returns:
        ``(flat, valid)``: i32[n] flat cell indices ``x * height + y`` in move order and
        bool[n] marking real balls (False for missing ones, which sort last).
    """
    is_ball = (state.grid[..., 0] == C.BALL).reshape(-1)
    scan = jnp.nonzero(is_ball, size=n, fill_value=0)[0].astype(jnp.int32)
    slot = jnp.arange(n, dtype=jnp.int32)
    valid = slot < jnp.sum(is_ball)
    listed = scan[:, None] == _listed_cells(state)[None, :]  # [ball, listed slot]
    known = jnp.any(listed, axis=1) & valid
    rank = jnp.where(known, jnp.argmax(listed, axis=1), n + slot)
    rank = jnp.where(valid, rank, 2 * n + slot)  # distinct by construction
    # Sorting by rank without a sort (slow under vmap on CPU): each ball's place is the
    # number of smaller ranks, and the order is the inverse of that permutation.
    place = jnp.sum(rank[None, :] < rank[:, None], axis=1)
    order = jnp.argmax(place[None, :] == slot[:, None], axis=1)
    return scan[order], valid[order]


def _move_one(
    blocked: Array, shape: tuple[int, int], flat: Array, valid: Array, noise: Array
) -> tuple[Array, Array]:
    """Re-places one ball as MiniGrid's ``place_obj(top=pos-1, size=(3,3), max_tries=100)``.

    Args:
        blocked: bool[W*H], cells that are not empty or are the agent's (flat ``x * H + y``).
        shape: ``(W, H)``.
        flat: i32[], the ball's cell; valid: bool[], whether the slot holds a ball.
        noise: f32[10] uniforms: whether all draws fail, then a score per window cell.

    Returns:
        The updated ``blocked`` and the ball's new flat cell.
    """
    width, height = shape
    top = jnp.maximum(jnp.stack([flat // height, flat % height]) - 1, 0)
    cand = top + jnp.asarray(_WINDOW)  # i32[9, 2], MiniGrid's window (clipped below)
    in_grid = (cand[:, 0] < width) & (cand[:, 1] < height)
    cand_flat = cand[:, 0] * height + cand[:, 1]
    free = in_grid & ~blocked[jnp.where(in_grid, cand_flat, 0)]
    window = jnp.sum(in_grid).astype(jnp.float32)
    all_fail = ((window - jnp.sum(free)) / window) ** (MAX_TRIES + 1)
    moves = valid & (noise[0] >= all_fail)
    pick = jnp.argmax(jnp.where(free, noise[1:], -1.0))
    new_flat = jnp.where(moves, cand_flat[pick], flat)
    # The new cell is taken before the old one is freed (a no-op pair when it stays).
    cells = jnp.arange(width * height)
    blocked = (blocked | (cells == new_flat)) & ~((cells == flat) & moves)
    return blocked, new_flat.astype(jnp.int32)


_WINDOW = np.stack(np.meshgrid(np.arange(3), np.arange(3), indexing="ij"), -1).reshape(9, 2)


def move_obstacles(n: int) -> DynamicsFn:
    """The dynamics of MiniGrid's DynamicObstaclesEnv for ``n`` balls (see module doc).

    Returns:
        ``(state, action, key) -> state`` moving every ball once, in MiniGrid's order, and
        recording the new order in ``state.extra`` (a `BallOrder`): a fixed-length
        `lax.scan` over the ball slots on a flat occupancy mask, then one masked rewrite of
        the grid.
    """
    if n < 1:
        raise ValueError(f"move_obstacles needs at least one ball, got {n}")

    def dynamics(state: State, action: Array, key: Array) -> State:
        del action
        width, height = state.grid.shape[0], state.grid.shape[1]
        flat, valid = ball_order(state, n)
        cells = state.grid.reshape(-1, 3)
        agent = state.agent_pos[0] * height + state.agent_pos[1]
        index = jnp.arange(width * height)
        blocked = (cells[:, 0] != C.EMPTY) | (index == agent)

        def body(blocked: Array, slot: tuple[Array, Array, Array]) -> tuple[Array, Array]:
            return _move_one(blocked, (width, height), *slot)

        # One draw for all balls: threefry calls dominate the cost of small ops under vmap.
        noise = jax.random.uniform(key, (n, 10))
        _, new_flat = jax.lax.scan(body, blocked, (flat, valid, noise), unroll=True)
        old_hit = (index[:, None] == flat[None, :]) & valid[None, :]  # [W*H, n]
        new_hit = (index[:, None] == new_flat[None, :]) & valid[None, :]
        ball_cells = cells[flat]  # u8[n, 3], each ball's own encoding
        # A cell receives at most one ball, so the sum selects that ball's encoding.
        arriving = jnp.sum(new_hit[..., None] * ball_cells[None].astype(jnp.int32), axis=1)
        cells = jnp.where(jnp.any(old_hit, axis=1)[:, None], jnp.asarray(C.EMPTY_CELL), cells)
        cells = jnp.where(jnp.any(new_hit, axis=1)[:, None], arriving, cells)
        # Missing balls keep index 0, which never matches a ball (a corner is a wall).
        return state.replace(
            grid=cells.astype(jnp.uint8).reshape(width, height, 3),
            extra=BallOrder(jnp.where(valid, new_flat, 0).astype(jnp.int32)),
        )

    return dynamics


def dynamic_obstacles_layout(size: int, n: int, random_start: bool) -> LayoutFn:
    """The layout function of MiniGrid's DynamicObstaclesEnv with ``n`` balls.

    Raises:
        ValueError: if the room cannot hold the agent, goal and ``n`` balls.
    """
    if size < 4 or (size - 2) ** 2 < n + 2 or n < 1:
        raise ValueError(f"Dynamic-Obstacles cannot hold {n} balls in a {size}x{size} room")
    base = walled_grid(size, size)
    base[size - 2, size - 2] = C.GOAL_CELL
    xs, ys = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")

    def layout(key: Array) -> State:
        agent_key, dir_key, ball_key = jax.random.split(key, 3)
        grid = jnp.asarray(base)
        if random_start:
            agent_pos = sample_cell(agent_key, empty_cells(grid))
            agent_dir = sample_direction(dir_key)
        else:
            agent_pos, agent_dir = jnp.array([1, 1], jnp.int32), jnp.int32(0)
        not_agent = (xs != agent_pos[0]) | (ys != agent_pos[1])
        # MiniGrid places the balls one by one, each uniformly on a cell that is empty and not
        # the agent's; that is a uniform ordered draw without replacement from those cells,
        # i.e. the cells of the n largest of i.i.d. uniform scores, in decreasing order.
        # (One draw of W*H scores instead of n, each a `sample_cell`.)
        # f32 scores (exact below 2**24): XLA:CPU's top_k is much slower on integers.
        scores = jnp.where(
            (empty_cells(grid) & not_agent).reshape(-1),
            uniform_scores(ball_key, (size * size,)).astype(jnp.float32),
            -1.0,
        )
        flats = jax.lax.top_k(scores, n)[1].astype(jnp.int32)  # placement = move order
        is_ball = jnp.any(jnp.arange(size * size)[:, None] == flats[None, :], axis=1)
        grid = jnp.where(is_ball.reshape(size, size, 1), jnp.asarray(BALL_CELL, jnp.uint8), grid)
        return make_state(
            grid,
            agent_pos,
            agent_dir,
            extra=BallOrder(flats),
            mission=missions.encode(missions.Template.GREEN_GOAL),
        )

    return layout


def _entry(size: int, random_start: bool, n_obstacles: int) -> tuple[str, object]:
    name = f"MiniGrid-Dynamic-Obstacles-{'Random-' if random_start else ''}{size}x{size}-v0"
    n = num_obstacles(size, n_obstacles)
    return name, factory(
        name,
        width=size,
        height=size,
        max_steps=4 * size**2,
        layout_fn=dynamic_obstacles_layout(size, n, random_start),
        dynamics_fn=move_obstacles(n),
        observation_fn=observations.symbolic_first_person_see_through,
        see_through_walls=True,
        reward_fn=rewards.compose(
            rewards.on_goal_reached_discounted, rewards.on_obstacle_collision, operator=jnp.sum
        ),
        termination_fn=terminations.compose(
            terminations.on_goal_reached, terminations.on_obstacle_collision
        ),
        num_actions=3,
        invalid_action=C.LEFT,
    )


ENVIRONMENTS = dict(
    _entry(size, random_start, n_obstacles)
    for size, random_start, n_obstacles in [
        (5, False, 2),
        (5, True, 2),
        (6, False, 3),
        (6, True, 3),
        (8, False, 4),
        (16, False, 8),
    ]
)
ALIASES = navix_aliases(list(ENVIRONMENTS))
