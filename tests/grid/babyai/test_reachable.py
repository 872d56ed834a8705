"""`babyai_goto.reachable` (rows packed as bits) against a plain breadth-first search."""

from collections import deque

import jax
import numpy as np
import pytest

from horizax.grid.envs.babyai_goto import reachable


def breadth_first(blocked: np.ndarray, start: tuple[int, int]) -> np.ndarray:
    """MiniGrid's ``check_objs_reachable`` walk: free cells from ``start``, plus the blocked
    cells next to them (the start's neighbours are entered even when it is blocked)."""
    width, height = blocked.shape
    walked = np.zeros_like(blocked)
    queue = deque()

    def neighbours(x: int, y: int):
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < width and 0 <= ny < height:
                yield nx, ny

    sx, sy = start
    if 0 <= sx < width and 0 <= sy < height:
        seeds = [(sx, sy), *neighbours(sx, sy)]
        for x, y in seeds:
            if not blocked[x, y] and not walked[x, y]:
                walked[x, y] = True
                queue.append((x, y))
    while queue:
        cell = queue.popleft()
        for x, y in neighbours(*cell):
            if not blocked[x, y] and not walked[x, y]:
                walked[x, y] = True
                queue.append((x, y))
    reached = walked.copy()
    for x, y in zip(*np.nonzero(walked), strict=True):
        for nx, ny in neighbours(int(x), int(y)):
            reached[nx, ny] = True
    return reached


@pytest.mark.parametrize("shape", [(8, 8), (5, 5), (22, 22), (13, 7)])
def test_reachable_equals_breadth_first_search(shape):
    rng = np.random.default_rng(shape[0] * 100 + shape[1])
    n = 200
    blocked = rng.random((n, *shape)) < rng.uniform(0.1, 0.6, (n, 1, 1))
    blocked[:, 0] = blocked[:, -1] = True  # the outer walls, as in every caller
    blocked[:, :, 0] = blocked[:, :, -1] = True
    starts = np.stack([rng.integers(1, shape[0] - 1, n), rng.integers(1, shape[1] - 1, n)], 1)
    ours = np.asarray(jax.jit(jax.vmap(reachable))(blocked, starts.astype(np.int32)))
    for k in range(n):
        expected = breadth_first(blocked[k], (int(starts[k, 0]), int(starts[k, 1])))
        np.testing.assert_array_equal(ours[k], expected, err_msg=f"mask {k}")


def test_reachable_names_a_grid_too_wide_for_its_words():
    blocked = np.zeros((32, 8), bool)
    with pytest.raises(ValueError, match="32 cells"):
        reachable(blocked, np.array([1, 1], np.int32))
