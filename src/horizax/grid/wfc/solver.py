"""MiniGrid's WFC solver as one fixed-shape, jittable loop.

MiniGrid's solver (``wfclogic/solver.py`` with these presets' settings) repeats, until every
cell holds one pattern: propagate the wave to arc consistency; pick the unresolved cell with
the fewest remaining patterns, ties broken by a per-reset random priority ("entropy": the
count plus ``0.1 * U[0, 1)``, drawn once per reset); keep one of its patterns, drawn with
probability proportional to the pattern weights ("weighted"). A cell left with no pattern
is a contradiction: the attempt is dropped and the next starts from the full wave (no
backtracking), up to 1000 attempts.

Here the same steps run in two nested `lax.while_loop` calls, an outer one over attempts and
an inner one over an attempt's iterations, within one static budget of iterations. Each
iteration revises one block (`horizax.grid.wfc.propagation`); an iteration that starts
without dirty cells (the wave is arc consistent: MiniGrid's propagation has finished) first
collapses the chosen cell inside its block. A contradiction ends the attempt; the next one
starts from the initial wave, keeping the per-reset cell ranking, as MiniGrid keeps its
priorities across attempts. A solve that runs out of the budget reports ``solved = False``
(the level then falls back, `horizax.grid.wfc.level`).

The random choices are drawn by collapse number, not by iteration, so the levels do not
depend on the propagation's schedule (block size, sweeps), only on the key.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax

from horizax.core.struct import Replaceable, pytree_dataclass
from horizax.core.threefry import random_bits
from horizax.grid.wfc import propagation
from horizax.grid.wfc.program import Program

_U24 = float(1 << 24)  # (bits >> 8) / 2**24 is uniform in [0, 1)
_RANKS = 1 << 10  # cell ranks lie below this: outputs of at most 1024 cells


@pytree_dataclass
class Solution:
    """The outcome of one solve.

    Attributes:
        patterns: i32[S, S], the pattern of each output cell ``[x, y]`` (where the solve did
            not finish, the lowest one still possible, 0 for an emptied cell).
        solved: bool[], every cell was resolved without contradiction within the budget.
        attempts: i32[], attempts started (1 + restarts).
        iterations: i32[], loop iterations used.
    """

    patterns: Array
    solved: Array
    attempts: Array
    iterations: Array


@pytree_dataclass
class _Attempt(Replaceable):
    wave: Array  # u32[S + 2, S + 2, words]
    dirty: Array  # bool[S + 2, S + 2]
    score: Array  # i32[S, S]: patterns left * RANKS + rank, NONE where resolved
    status: Array  # i32[]: RUNNING, SOLVED or CONTRADICTION
    iteration: Array  # i32[], over every attempt
    collapses: Array  # i32[], cells collapsed so far, over every attempt


RUNNING, SOLVED, CONTRADICTION = 0, 1, 2


def choose(program: Program, cell: Array, bits: Array) -> Array:
    """u32[words]: one pattern of the bit set ``cell`` (u32[words]), drawn with probability
    proportional to its weight (MiniGrid's "weighted" choice) from 32 random ``bits``."""
    ids = np.arange(program.num_patterns)
    present = ((cell[ids // 32] >> (ids % 32).astype(np.uint32)) & 1).astype(jnp.float32)
    # The running mass as a product with a triangular matrix of the weights: under `vmap` one
    # small matrix product (XLA's CPU cumsum is a reduce-window, several times slower).
    mass = present @ jnp.asarray(
        np.triu(np.broadcast_to(program.weights[:, None], (ids.size,) * 2))
    )
    threshold = (bits >> 8).astype(jnp.float32) / _U24 * mass[-1]
    pattern = jnp.argmax(mass > threshold)
    one = jnp.uint32(1) << (pattern % 32).astype(jnp.uint32)
    return jnp.where(np.arange(program.words) == pattern // 32, one, jnp.uint32(0))


def _scores(left: Array, rank: Array) -> Array:
    """i32[...]: MiniGrid's "entropy" order of cells as integers: fewest patterns ``left``
    first, then the lowest ``rank``; `propagation.NONE` for resolved cells."""
    return jnp.where(left > 1, left * _RANKS + rank, propagation.NONE)


def _iteration(program: Program, key: Array, rank: Array, order: Array, att: _Attempt) -> _Attempt:
    """One loop step: collapse a cell if the wave is stable, then revise a block.

    ``rank`` (i32[S, S]) is each cell's tie-breaking rank, ``order`` (i32[S * S]) the cell of
    each rank.
    """
    s, k = program.size, program.window
    cells = jnp.arange(s * s, dtype=jnp.int32).reshape(s, s)
    # One integer minimum (argmin-style pair reductions are slow on CPU) finds both the
    # first dirty cell (its index, below RANKS) and, without one, the cell to collapse.
    inner = att.dirty[1 : s + 1, 1 : s + 1]
    first = jnp.where(inner, cells, att.score).min()
    stable = first >= _RANKS
    solved = first == propagation.NONE
    collapse = stable & ~solved
    chosen = order[jnp.minimum(first % _RANKS, s * s - 1)]
    centre = jnp.where(stable, chosen, first)
    low = propagation.block_origin(program, centre)
    block, marks = propagation.read_block(program, att.wave, att.dirty, low)
    # The chosen cell's place in the block (block [1 + i, 1 + j] is output low + (i, j)).
    x, y = chosen // s - low[0] + 1, chosen % s - low[1] + 1
    here = (jnp.arange(k + 2)[:, None] == x) & (jnp.arange(k + 2)[None, :] == y) & collapse
    cell = jnp.where(here[..., None], block, jnp.uint32(0)).max(axis=(0, 1))
    # Indexed by the collapse, not the iteration: the levels do not depend on how the
    # propagation is scheduled (block size, sweeps).
    bits = random_bits(jax.random.fold_in(key, att.collapses), ())
    block = jnp.where(here[..., None], choose(program, cell, bits), block)
    marks = marks | propagation.neighbours(here)
    wave, dirty, left = propagation.revise_block(program, att.wave, att.dirty, low, block, marks)
    ranks = lax.dynamic_slice(rank, (low[0], low[1]), (k, k))
    score = lax.dynamic_update_slice(att.score, _scores(left, ranks), (low[0], low[1]))
    ending = jnp.where((left == 0).any(), CONTRADICTION, RUNNING)
    status = jnp.where(solved, SOLVED, ending).astype(jnp.int32)
    return att.replace(
        wave=wave,
        dirty=dirty,
        score=score,
        status=status,
        iteration=att.iteration + 1,
        collapses=att.collapses + collapse.astype(jnp.int32),
    )


def solve(program: Program, key: Array) -> Solution:
    """Runs WFC on ``program`` with PRNG ``key``.

    Attempts run in an outer loop, each one's iterations in an inner one, both within the
    budget: contradictions are rare (under 1e-3 per attempt for the registered presets), so
    a batch seldom runs a second attempt, and no iteration pays for resetting the wave.

    Returns:
        The `Solution`: the patterns of the first attempt that resolved every cell, or,
        when the budget ran out, of the unfinished last attempt with ``solved = False``.
    """
    rank_key, choice_key = jax.random.split(key)
    s = program.size
    # MiniGrid breaks ties between cells by per-reset ``0.1 * U[0, 1)`` priorities: their
    # order is a uniformly random ranking of the cells.
    order = jnp.argsort(jax.random.uniform(rank_key, (s * s,))).astype(jnp.int32)
    rank = jnp.zeros(s * s, jnp.int32).at[order].set(jnp.arange(s * s, dtype=jnp.int32))
    rank = rank.reshape(s, s)
    initial = jnp.asarray(program.initial_wave)
    first_score = _scores(propagation.counts(initial[1:-1, 1:-1]), rank)
    step = functools.partial(_iteration, program, choice_key, rank, order)

    def fresh(att: _Attempt) -> _Attempt:
        return att.replace(
            wave=initial,
            dirty=jnp.zeros(initial.shape[:2], bool),
            score=first_score,
            status=jnp.int32(RUNNING),
        )

    def running(att: _Attempt) -> Array:
        return (att.status == RUNNING) & (att.iteration < program.max_iterations)

    def attempt(state: tuple[_Attempt, Array]) -> tuple[_Attempt, Array]:
        att, attempts = state
        return lax.while_loop(running, step, fresh(att)), attempts + 1

    def again(state: tuple[_Attempt, Array]) -> Array:
        att, _ = state
        return (att.status != SOLVED) & (att.iteration < program.max_iterations)

    start = _Attempt(
        wave=initial,
        dirty=jnp.zeros(initial.shape[:2], bool),
        score=first_score,
        status=jnp.int32(CONTRADICTION),  # no attempt yet
        iteration=jnp.int32(0),
        collapses=jnp.int32(0),
    )
    att, attempts = lax.while_loop(again, attempt, (start, jnp.int32(0)))
    wave = att.wave[1 : s + 1, 1 : s + 1]
    ids = np.arange(program.num_patterns)
    present = (wave[..., ids // 32] >> (ids % 32).astype(np.uint32)) & 1
    return Solution(
        patterns=jnp.argmax(present, axis=-1).astype(jnp.int32),
        solved=att.status == SOLVED,
        attempts=attempts,
        iterations=att.iteration,
    )
