"""Arc consistency by block revisions: the solver's propagation, fixed-shape and jittable.

A cell is *dirty* when a neighbour lost a pattern since the cell was last revised; the wave
is arc consistent (MiniGrid's propagation has finished) when no cell is dirty. Revising a
block (`revise_block`) reads a ``window x window`` block of the wave with its one-cell ring
of neighbours, runs ``sweeps`` Jacobi sweeps over it (each cell keeps the patterns that all
four neighbours support), writes it back and updates the dirty marks: revised cells are clean
unless a neighbour changed in the last sweep; cells outside the block next to a changed cell
become dirty. Arc consistency has a unique greatest fixed point, so revising dirty blocks in
any order until none is left reaches the wave of MiniGrid's whole-grid sweeps; a collapse
seldom changes cells far away, so a block at a time does a fraction of their work.

Blocks are contiguous slices (`lax.dynamic_slice`), which a batch moves with one gather and
one scatter each. Block interiors lie inside the output; a wrapping output keeps its ring
(the halo of the border cells) a copy of the opposite edges (`wrap`).
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.grid.wfc.patterns import DIRECTIONS
from horizax.grid.wfc.program import Program

NONE = int(np.iinfo(np.int32).max)  # "no cell" in integer minima
_Loop = tuple[Array, Array, Array, Array]  # `propagate`'s loop: wave, dirty, contradiction, passes


def counts(wave: Array) -> Array:
    """i32[...]: patterns left in each u32[..., words] bit set."""
    return lax.population_count(wave).astype(jnp.int32).sum(axis=-1)


def neighbours(cells: Array) -> Array:
    """bool[A, B]: the 4-neighbours of the True cells of bool[A, B] ``cells``, not wrapping
    (callers leave a margin)."""
    padded = jnp.pad(cells, 1)
    out = jnp.zeros_like(cells)
    for dx, dy in DIRECTIONS:
        out = out | padded[1 - dx : padded.shape[0] - 1 - dx, 1 - dy : padded.shape[1] - 1 - dy]
    return out


def _support(program: Program, beside: Array, d: int) -> Array:
    """u32[..., words]: the patterns that neighbours ``beside`` (u32[..., words]) in direction
    ``d`` support: pattern ``i`` when ``beside`` shares a pattern with ``supported[d, i]``.

    Patterns that agree on their overlap in direction ``d`` have the same supporting set, so
    each distinct set is tested once and its patterns set together (4 sets for MazeSimple's
    12 patterns, 17 for ObstaclesHogs3's 40). Unrolled into elementwise operations that XLA
    fuses into one loop over the block (a pattern axis instead materialises a P-times larger
    array: 5x slower on CPU).
    """
    sets, members = _classes(program, d)
    out = [jnp.zeros(beside.shape[:-1], jnp.uint32) for _ in range(program.words)]
    for mask, member in zip(sets, members, strict=True):
        hit = functools.reduce(
            jnp.logical_or, [(beside[..., w] & np.uint32(m)) != 0 for w, m in enumerate(mask) if m]
        )
        for w, bits in enumerate(member):
            if bits:
                out[w] = out[w] | jnp.where(hit, np.uint32(bits), np.uint32(0))
    return jnp.stack(out, axis=-1)


def _classes(program: Program, d: int) -> tuple[np.ndarray, np.ndarray]:
    """``(u32[C, words] distinct supporting sets in direction d, u32[C, words] the patterns
    of each)``."""
    sets, index = np.unique(program.supported[d], axis=0, return_inverse=True)
    members = np.zeros_like(sets)
    for i, c in enumerate(index.reshape(-1)):
        members[c, i // 32] |= np.uint32(1) << np.uint32(i % 32)
    return sets, members


def _sweeps(program: Program, block: Array, marks: Array) -> tuple[Array, Array]:
    """``program.sweeps`` Jacobi sweeps over the interior of ``block`` (u32[k + 2, k + 2,
    words], its ring the fixed neighbours), keeping the dirty ``marks`` (bool[k + 2, k + 2])."""
    k = program.window
    interior = jnp.zeros((k + 2, k + 2), bool).at[1:-1, 1:-1].set(True)

    def sweep(_: int, state: tuple[Array, Array]) -> tuple[Array, Array]:
        block, marks = state
        old = block[1:-1, 1:-1]
        new = old
        for d, (dx, dy) in enumerate(DIRECTIONS):
            new = new & _support(program, block[1 + dx : 1 + k + dx, 1 + dy : 1 + k + dy], d)
        changed = (new != old).any(axis=-1)
        block = block.at[1:-1, 1:-1].set(new)
        # Revised cells are clean unless a neighbour changed in this very sweep.
        return block, (marks & ~interior) | neighbours(jnp.pad(changed, 1))

    # A loop, not unrolled: one copy of the sweep in the program keeps compiles short.
    return lax.fori_loop(0, program.sweeps, sweep, (block, marks))


def block_origin(program: Program, centre: Array) -> Array:
    """i32[2]: the output cell at the top-left of the block revised around ``centre`` (i32[],
    cell ``x * S + y``): the block centred there, shifted to lie inside the output."""
    s, k = program.size, program.window
    return jnp.clip(jnp.stack([centre // s, centre % s]) - k // 2, 0, s - k)


def read_block(program: Program, wave: Array, dirty: Array, low: Array) -> tuple[Array, Array]:
    """The block at ``low`` (from `block_origin`) with its ring: ``(u32[k + 2, k + 2, words],
    bool[k + 2, k + 2] dirty marks)``; block ``[1 + i, 1 + j]`` is output ``low + (i, j)``."""
    k = program.window
    block = lax.dynamic_slice(wave, (low[0], low[1], 0), (k + 2, k + 2, program.words))
    return block, lax.dynamic_slice(dirty, (low[0], low[1]), (k + 2, k + 2))


def revise_block(
    program: Program, wave: Array, dirty: Array, low: Array, block: Array, marks: Array
) -> tuple[Array, Array, Array]:
    """Sweeps ``block`` (from `read_block`, perhaps edited) and writes it back.

    Returns:
        ``(wave, dirty, left)``: the updated u32[S + 2, S + 2, words] wave and bool[S + 2,
        S + 2] marks, and i32[k, k], the patterns left in each revised cell (0: a
        contradiction).
    """
    block, marks = _sweeps(program, block, marks)
    wave = lax.dynamic_update_slice(wave, block[1:-1, 1:-1], (low[0] + 1, low[1] + 1, 0))
    dirty = lax.dynamic_update_slice(dirty, marks, (low[0], low[1]))
    if program.periodic:
        wave, dirty = wrap(wave, dirty)
    return wave, dirty, counts(block[1:-1, 1:-1])


def wrap(wave: Array, dirty: Array) -> tuple[Array, Array]:
    """A wrapping output's ring refreshed from the opposite edges, and the dirty marks left
    on the ring moved onto the cells it mirrors."""
    s = wave.shape[0] - 2
    wave = wave.at[0].set(wave[s]).at[s + 1].set(wave[1])
    wave = wave.at[:, 0].set(wave[:, s]).at[:, s + 1].set(wave[:, 1])
    dirty = dirty.at[1].max(dirty[s + 1]).at[s].max(dirty[0])
    dirty = dirty.at[:, 1].max(dirty[:, s + 1]).at[:, s].max(dirty[:, 0])
    # Cleared once moved: a mark left on the ring would be moved again at every call.
    inside = jnp.zeros_like(dirty).at[1 : s + 1, 1 : s + 1].set(True)
    return wave, dirty & inside


def first_dirty(program: Program, dirty: Array) -> Array:
    """i32[]: the first dirty output cell (``x * S + y``), `NONE` if there is none (a plain
    integer minimum: argmax-style pair reductions are slow on CPU)."""
    s = program.size
    flat = dirty[1 : s + 1, 1 : s + 1].reshape(-1)
    return jnp.where(flat, jnp.arange(s * s, dtype=jnp.int32), NONE).min()


def propagate(program: Program, wave: Array) -> tuple[Array, Array]:
    """Arc consistency of a whole wave by block revisions, every cell dirty at the start.

    Args:
        wave: u32[S + 2, S + 2, words], with its ring (as `Program.initial_wave`).

    Returns:
        ``(wave, contradiction)``: the arc-consistent wave (where a cell emptied, the wave
        as it stood then) and whether a cell lost its last pattern.
    """
    s = program.size
    dirty = jnp.zeros(wave.shape[:2], bool).at[1 : s + 1, 1 : s + 1].set(True)
    # Each revision cleans its block or removes a pattern: a static bound on the loop.
    bound = s * s * (program.num_patterns + 1)

    def running(state: _Loop) -> Array:
        _, dirty, contradiction, passes = state
        return (first_dirty(program, dirty) != NONE) & ~contradiction & (passes < bound)

    def step(state: _Loop) -> _Loop:
        wave, dirty, _, passes = state
        low = block_origin(program, first_dirty(program, dirty))
        block, marks = read_block(program, wave, dirty, low)
        wave, dirty, left = revise_block(program, wave, dirty, low, block, marks)
        return wave, dirty, (left == 0).any(), passes + 1

    start = (wave, dirty, jnp.bool_(False), jnp.int32(0))
    wave, _, contradiction, _ = lax.while_loop(running, step, start)
    return wave, contradiction
