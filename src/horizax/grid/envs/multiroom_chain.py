"""MultiRoom's room chains: MiniGrid's recursive ``_placeRoom`` as fixed-size array code.

MiniGrid draws a chain level by level: at each level up to 8 candidate rooms are drawn, the
first that fits is kept and the chain goes on from it; if none fits the chain ends there
(nothing is undone). Its outer loop redraws whole chains, independently, until one has
``numRooms`` rooms. Here K chains are drawn side by side and the first full one is kept,
which has the distribution of MiniGrid's accepted chain; each level draws its 8 candidates
at once and keeps the first valid one, which is the outcome of MiniGrid's sequential tries.

Room 0 is drawn already fitting, an exact shortcut that keeps K small: MiniGrid's corner
``(U[0, W-3], U[0, W-3])`` and sizes are independent and its fit test splits into an x part
(``x + sx <= W``) and a y part (``y + sy < H``), so a chain whose room 0 fits starts with a
uniform admissible ``(x, sx)`` pair and an independent uniform admissible ``(y, sy)`` pair.
Chains whose room 0 does not fit (35% for N6) would be discarded by the outer loop anyway.

The bound: with room 0 fitting, an N6 chain reaches 6 rooms with probability p ~ 0.337, so
all K = 28 chains fall short with probability (1 - p)^28 ~ 1e-5 (p and the rate itself are
measured in the tests). Then the layout uses the longest chain (the first of the longest):
what MiniGrid holds at that point of its loop, with fewer rooms. It is still a valid,
solvable layout (agent in room 0, goal in its last room).

Random words: a reset needs one word per candidate room. Drawn by Threefry they would cost
more on CPU than all the rest of the layout, so `words` derives them from 64 Threefry bits with a
keyed 32-bit integer hash of a counter (two rounds of the ``lowbias32`` finaliser), computed
where each word is used. Its uniformity and independence are tested.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

MIN_SIZE = 4  # MiniGrid's minSz
TRIES = 8  # MiniGrid's tries per level
ROOM0_WALL = 2  # room 0 is "entered" through its left wall
_GOLDEN = 0x9E3779B9

ChainFn = Callable[[Array, Array], tuple[Array, Array]]


def _lowbias32(x: Array) -> Array:
    x = (x ^ (x >> 16)) * jnp.uint32(0x7FEB352D)
    x = (x ^ (x >> 15)) * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def words(seed: Array, counter: Array | np.ndarray) -> Array:
    """u32[...]: pseudo-random words number ``counter`` (u32[...]) of stream ``seed`` (u32[2]).

    Fixed ``seed``: distinct counters give the outputs of a bijective, well-mixing hash, so
    the words behave as independent uniform draws (checked in the tests).
    """
    counter = jnp.asarray(counter, jnp.uint32)
    return _lowbias32(_lowbias32(counter * jnp.uint32(_GOLDEN) + seed[0]) ^ seed[1])


def words_needed(max_rooms: int, chains: int) -> int:
    """Number of counters `chain_sampler`'s function uses (``0 .. words_needed - 1``)."""
    return chains * (1 + (max_rooms - 1) * TRIES)


def _room0_pairs(coord_span: int, max_size: int, fits: Callable[[int], bool]) -> np.ndarray:
    """i32[P, 2]: every admissible ``(corner, size)`` pair along one axis."""
    pairs = [
        (c, s) for c in range(coord_span) for s in range(MIN_SIZE, max_size + 1) if fits(c + s)
    ]
    return np.asarray(pairs, np.int32)


# A room packs into one u32 (5 bits per coordinate, 2 for its entry wall), so a level writes
# one word per chain: XLA fuses the candidate's computation into each of its consumers, and
# with the fields apart that recomputation would cost more than the 8 tries themselves.
_FIELDS = ("x", "y", "sx", "sy", "dx", "dy", "entry")
_SHIFTS = (0, 5, 10, 15, 20, 25, 30)
_MASKS = (31, 31, 31, 31, 31, 31, 3)


def pack(*fields: Array) -> Array:
    """u32: a room's corner, size, entry door and entry wall (i32, in `_FIELDS` order)."""
    out = jnp.uint32(0)
    for value, shift, mask in zip(fields, _SHIFTS, _MASKS, strict=True):
        out = out | ((value.astype(jnp.uint32) & jnp.uint32(mask)) << jnp.uint32(shift))
    return out


def unpack(packed: Array) -> tuple[Array, ...]:
    """The `_FIELDS` of packed rooms (i32, same shape as ``packed``)."""
    return tuple(
        ((packed >> jnp.uint32(shift)) & jnp.uint32(mask)).astype(jnp.int32)
        for shift, mask in zip(_SHIFTS, _MASKS, strict=True)
    )


def chain_sampler(max_rooms: int, max_size: int, chains: int, width: int, height: int) -> ChainFn:
    """``(seed u32[2], target i32[]) -> (rooms, lengths)``: K room chains, drawn in parallel.

    ``rooms`` is u32[K, N] packed rooms (see `unpack`; slot 0 is room 0, whose "door" is its
    corner; slots past a chain's length are junk) and ``lengths`` is i32[K]. ``target`` is
    the number of rooms wanted (``<= max_rooms``).

    Each candidate reads one word: the exit wall, the two sizes (static radices 3, S', S'
    with ``S' = max_size - 3``) and, in fixed point from the quotient ``q``, the door offset
    and the room's offset (radices that depend on sizes). Every digit tuple gets the same
    number of words up to one, so the relative bias is below
    ``3 * S'**2 * (max_size - 2)**2 / 2**32`` (2.2e-6 for max_size 10).
    """
    span = max_size - MIN_SIZE + 1
    quotient = (2**32 - 1) // (3 * span * span) + 1  # values q takes
    if quotient * (max_size - 2) >= 2**32 or max(width, height) > 32:
        raise ValueError("MultiRoom supports max_room_size and grid sides up to 32")
    # Both corner coordinates of room 0 are MiniGrid's `_rand_int(0, width - 2)`.
    xs = _room0_pairs(width - 2, max_size, lambda end: end <= width)
    ys = _room0_pairs(width - 2, max_size, lambda end: end < height)
    tries = np.arange(TRIES, dtype=np.uint32)[:, None]
    ks = np.arange(chains, dtype=np.uint32)[None, :]

    def sample(seed: Array, target: Array) -> tuple[Array, Array]:
        q = jnp.uint32(quotient)  # here, not in the factory: building a sampler starts no XLA
        w0 = words(seed, ks[0])
        ix = (w0 % jnp.uint32(len(xs))).astype(jnp.int32)
        iy = ((w0 // jnp.uint32(len(xs))) % jnp.uint32(len(ys))).astype(jnp.int32)
        (x0, sx0), (y0, sy0) = jnp.asarray(xs)[ix].T, jnp.asarray(ys)[iy].T
        entry = jnp.full((chains,), ROOM0_WALL, jnp.int32)
        room0 = pack(x0, y0, sx0, sy0, x0, y0, entry)
        rooms = jnp.zeros((chains, max_rooms), jnp.uint32).at[:, 0].set(room0)

        def level_step(carry, level):
            rooms, length = carry
            last = unpack(jax.lax.dynamic_index_in_dim(rooms, level - 1, 1, keepdims=False))
            current = (last[0], last[1], last[2], last[3], last[6])  # x, y, sx, sy, entry
            counter = (chains * (1 + (level - 1) * TRIES)).astype(jnp.uint32) + tries * chains + ks
            w = words(seed, counter)  # u32[8, K]
            cand = _candidates(w, *(v[None] for v in current), span=span, q=q)
            x, y, sx, sy = cand[:4]
            ok = (x >= 0) & (y >= 0) & (x + sx <= width) & (y + sy < height)
            for j in range(max_rooms - 2):  # every room but the previous one: slots < level-1
                rx, ry, rw, rh, *_ = unpack(rooms[:, j])
                apart = (x + sx < rx) | (rx + rw <= x) | (y + sy < ry) | (ry + rh <= y)
                ok = ok & (apart | (j >= level - 1))
            # The first valid try (8 if none) and its word, as reductions over the tries:
            # XLA then computes the 8 candidates once, vectorised, instead of fusing them
            # into each consumer of the result.
            first = jnp.min(jnp.where(ok, tries.astype(jnp.int32), TRIES), axis=0)
            chosen = jnp.max(jnp.where(tries == first, w, jnp.uint32(0)), axis=0)
            new = pack(*_candidates(chosen, *current, span=span, q=q))
            rooms = jax.lax.dynamic_update_index_in_dim(rooms, new, level, 1)
            placed = (first < TRIES) & (length == level) & (level < target)
            return (rooms, length + placed), None

        length = jnp.ones((chains,), jnp.int32)
        levels = jnp.arange(1, max_rooms, dtype=jnp.int32)
        (rooms, length), _ = jax.lax.scan(level_step, (rooms, length), levels)
        return rooms, length

    return sample


def _candidates(
    w: Array, tx: Array, ty: Array, sx: Array, sy: Array, entry: Array, span: int, q: Array
) -> tuple[Array, ...]:
    """The candidate next rooms drawn from words ``w`` (u32[...], broadcast with the rest).

    ``tx, ty, sx, sy, entry`` (i32) describe the current last room and its entry wall.
    Returns i32 corner x, y, size x, y, door x, y and the new room's entry wall.
    """
    digit = (w % jnp.uint32(3)).astype(jnp.int32)
    rest = w // jnp.uint32(3)
    nsx = MIN_SIZE + (rest % jnp.uint32(span)).astype(jnp.int32)
    rest = rest // jnp.uint32(span)
    nsy = MIN_SIZE + (rest % jnp.uint32(span)).astype(jnp.int32)
    frac = rest // jnp.uint32(span)  # uniform on [0, q): a fixed-point fraction
    # The exit wall: uniform over the three walls other than the entry wall (sorted).
    exit_wall = digit + (digit >= entry)
    along_y = (exit_wall & 1) == 0  # right (0) / left (2) walls run along y
    # MiniGrid's `_rand_int(1, size - 1)` along the exit wall, then the new room's offset
    # `_rand_int(door - size + 2, door)` along the same line (its size on that axis).
    radix = (jnp.where(along_y, sy, sx) - 2).astype(jnp.uint32)
    scaled = frac * radix
    offset = 1 + (scaled // q).astype(jnp.int32)
    radix = (jnp.where(along_y, nsy, nsx) - 2).astype(jnp.uint32)
    shift = (((scaled % q) * radix) // q).astype(jnp.int32)
    door_x = jnp.where(exit_wall == 0, tx + sx - 1, jnp.where(exit_wall == 2, tx, tx + offset))
    door_y = jnp.where(exit_wall == 1, ty + sy - 1, jnp.where(exit_wall == 3, ty, ty + offset))
    new_entry = exit_wall ^ 2  # (exit + 2) % 4
    # Entered on its right (0) / bottom (1) wall the room extends left / up from the door.
    top_x = jnp.where(
        new_entry == 0,
        door_x - nsx + 1,
        jnp.where(new_entry == 2, door_x, door_x - nsx + 2 + shift),
    )
    top_y = jnp.where(
        new_entry == 1,
        door_y - nsy + 1,
        jnp.where(new_entry == 3, door_y, door_y - nsy + 2 + shift),
    )
    return top_x, top_y, nsx, nsy, door_x, door_y, new_entry
