"""Pure, jittable, branch-free helpers for generating layouts.

MiniGrid places things by rejection sampling (``place_obj``: draw a cell uniformly in a
rectangle until it is empty, not the agent's, and not rejected). The accepted cell is then
uniform over the admissible cells, so here we draw it directly from a boolean mask in one
fixed-cost step: no `while_loop`, the same cost under `vmap`. `pick_cell` does it from one
random word (the cheap form every family uses); `sample_cell` from one uniform per cell.
`mixed_radix` splits one random word into several small uniform integers.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import cells
from horizax.grid import constants as C


def sample_cell(key: Array, mask: Array) -> Array:
    """i32[2]: an ``(x, y)`` drawn uniformly among the True cells of ``mask`` (bool[W, H]).

    If ``mask`` has no True cell the result is ``(0, 0)``; callers build masks that cannot
    be empty (checked in the tests of each family).
    """
    width, height = mask.shape
    noise = jax.random.uniform(key, (width * height,))
    flat = jnp.argmax(jnp.where(mask.reshape(-1), noise, -1.0))
    return jnp.stack([flat // height, flat % height]).astype(jnp.int32)


def sample_direction(key: Array) -> Array:
    """i32[]: a direction drawn uniformly from 0..3 (MiniGrid's ``_rand_int(0, 4)``)."""
    return jax.random.randint(key, (), 0, 4, dtype=jnp.int32)


def random_agent(key: Array, grid: Array) -> tuple[Array, Array]:
    """``(pos i32[2], dir i32[])``: MiniGrid's ``place_agent()`` on the whole grid.

    A uniform empty cell and a uniform direction (Empty-Random, DistShift with no fixed start).
    """
    pos_key, dir_key = jax.random.split(key)
    return sample_cell(pos_key, empty_cells(grid)), sample_direction(dir_key)


def empty_cells(grid: Array) -> Array:
    """bool[W, H]: cells with nothing in them (MiniGrid's ``grid.get(x, y) is None``)."""
    return grid[..., 0] == C.EMPTY


def rect_mask(width: int, height: int, top: tuple[int, int], size: tuple[int, int]) -> np.ndarray:
    """bool[W, H] numpy mask of MiniGrid's placement rectangle ``top``/``size`` (clipped)."""
    x0, y0 = max(top[0], 0), max(top[1], 0)
    mask = np.zeros((width, height), dtype=bool)
    mask[x0 : min(x0 + size[0], width), y0 : min(y0 + size[1], height)] = True
    return mask


def put(grid: Array, pos: Array, cell: tuple[int, int, int] | Array) -> Array:
    """u8[W, H, 3]: ``grid`` with ``cell`` written at ``pos`` (MiniGrid's ``put_obj``)."""
    return cells.write_cell(grid, pos, cell)


def pick_cell(mask: Array, bits: Array) -> Array:
    """i32[2]: a uniform True cell of ``mask`` (bool[W, H]) from 32 random ``bits`` (u32[]).

    Draws a rank among the True cells (modulo bias < count / 2**32) and finds that cell in two
    short prefix sums, over the column counts and then within the chosen column. It costs one
    random word per draw instead of `layout.sample_cell`'s one per cell (threefry per cell
    dominates a vmapped reset on CPU), and avoids a prefix sum over all W*H cells (XLA's CPU
    cumsum is quadratic in its length). An empty mask gives ``(0, 0)``.
    """
    per_column = mask.sum(axis=1, dtype=jnp.int32)  # i32[W]
    rank = (bits % jnp.maximum(per_column.sum(), 1).astype(jnp.uint32)).astype(jnp.int32)
    through = jnp.cumsum(per_column)  # True cells in columns 0..x
    x = jnp.argmax(through > rank)
    rank_in_column = rank - (through[x] - per_column[x])
    y = jnp.argmax(jnp.cumsum(mask[x].astype(jnp.int32)) > rank_in_column)
    return jnp.stack([x, y]).astype(jnp.int32)


def pick_interior_cells(bits: Array, width: int, height: int) -> Array:
    """i32[k, 2]: ``k`` distinct interior cells of an empty walled room, drawn in order.

    Cell ``i`` is uniform among the interior cells not drawn before it, from the 32 random
    ``bits[i]`` (u32[k]). The result equals ``k`` successive `pick_cell` calls on the empty
    mask of a ``width`` x ``height`` `walled_grid` into which each drawn cell is filled before
    the next draw (MiniGrid's ``place_obj`` one object after the other): both rank the free
    cells in x-major order and take ``bits[i] % free_count``. Here it is scalar arithmetic on
    the ranks -- no mask, prefix sum or argmax per draw -- which keeps a layout's compiled
    program (and so reset and autoreset compile time) small.

    Args:
        bits: u32[k] random words, one per cell.
        width, height: the room's size, walls included (interior ``(width-2) x (height-2)``).

    Raises:
        ValueError: if the interior has fewer than ``k`` cells.
    """
    inner_height = height - 2
    count = (width - 2) * inner_height
    if bits.shape[0] > count:
        raise ValueError(f"cannot draw {bits.shape[0]} distinct cells from {count}")
    drawn: list[Array] = []
    for i in range(bits.shape[0]):
        rank = jax.lax.rem(bits[i], jnp.uint32(count - i)).astype(jnp.int32)
        # The rank-th free index is the least fixed point of q = rank + #{drawn <= q}; each
        # pass that moves q passes at least one more drawn index, so i passes reach it.
        index = rank
        for _ in range(i):
            index = rank + sum((d <= index).astype(jnp.int32) for d in drawn)
        drawn.append(index)
    column, row = truncating_divmod(jnp.stack(drawn), inner_height)
    return jnp.stack([column, row], axis=-1) + 1


def mixed_radix(word: Array, *radices: int | Array) -> list[Array]:
    """Splits u32 ``word`` (any shape) into mixed-radix digits, i32 of the same shape each.

    Digit k lies in ``[0, radices[k])`` and is uniform up to a bias below
    ``prod(radices) / 2**32``: negligible for the few small ranges a layout needs (checked
    against MiniGrid by the distribution tests); callers keep that product below ~10**5.
    Divisions are `lax.div`/`lax.rem` (the values are non-negative): ``//`` and ``%`` add
    sign fix-ups that cost compile time and nothing else here.
    """
    out = []
    word = jnp.asarray(word, jnp.uint32)
    for radix in radices:
        radix = jnp.broadcast_to(jnp.asarray(radix, jnp.uint32), word.shape)
        out.append(jax.lax.rem(word, radix).astype(jnp.int32))
        word = jax.lax.div(word, radix)
    return out


def truncating_divmod(value: Array, divisor: int | Array) -> tuple[Array, Array]:
    """``(value // divisor, value % divisor)`` for non-negative i32 ``value`` and positive
    ``divisor``: plain truncating division, without the sign fix-ups of ``//`` and ``%``."""
    divisor = jnp.broadcast_to(jnp.asarray(divisor, value.dtype), jnp.shape(value))
    return jax.lax.div(value, divisor), jax.lax.rem(value, divisor)
