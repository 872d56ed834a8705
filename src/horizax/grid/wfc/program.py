"""A preset's solver constants, built on the host with numpy: bit sets, the initial wave.

`build` turns the overlapping model's tables (`horizax.grid.wfc.patterns`) into the arrays
the jitted solver closes over: the compatibility as one bit set per pattern and direction,
and the wave after MiniGrid's first propagation (it is the same for every reset, so it is
computed once here rather than in every solve).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from horizax.grid.wfc import patterns as pattern_tables


@dataclasses.dataclass(frozen=True, eq=False)
class Program:
    """A preset's solver constants for an ``size x size`` output (numpy, read-only).

    Attributes:
        size: the output side S.
        num_patterns: P; words: ``ceil(P / 32)``, the u32 words of a bit set of patterns.
        periodic: whether the output wraps around its edges.
        weights: f32[P], the pattern weights.
        supported: u32[4, P, words], ``[d, i]``: the patterns ``j`` that may sit at offset
            `patterns.DIRECTIONS` ``[d]`` from pattern ``i``.
        initial_wave: u32[S + 2, S + 2, words], the full wave after the first propagation,
            the output ``[x, y]`` at ``[x + 1, y + 1]`` inside the ring of halo cells (every
            pattern for a non-wrapping output; the opposite edge for a wrapping one).
        pattern_walls: bool[P], whether a pattern writes a wall.
        window: side of the block an iteration revises; sweeps: its Jacobi sweeps per
            iteration; max_iterations: the solver loop's budget.
    """

    size: int
    num_patterns: int
    words: int
    periodic: bool
    weights: np.ndarray
    supported: np.ndarray
    initial_wave: np.ndarray
    pattern_walls: np.ndarray
    window: int
    sweeps: int
    max_iterations: int


def to_bits(sets: np.ndarray, words: int) -> np.ndarray:
    """u32[..., words]: the bit sets of bool[..., P] ``sets`` (pattern ``j``: word ``j // 32``,
    bit ``j % 32``)."""
    padded = np.zeros((*sets.shape[:-1], 32 * words), np.uint64)
    padded[..., : sets.shape[-1]] = sets
    weights = np.uint64(1) << np.arange(32, dtype=np.uint64)
    return (padded.reshape(*sets.shape[:-1], words, 32) * weights).sum(-1).astype(np.uint32)


def from_bits(bits: np.ndarray, num_patterns: int) -> np.ndarray:
    """bool[..., P]: the inverse of `to_bits`."""
    ids = np.arange(num_patterns)
    return ((bits[..., ids // 32] >> (ids % 32).astype(np.uint32)) & 1).astype(bool)


def with_ring(sets: np.ndarray, periodic: bool) -> np.ndarray:
    """bool[S + 2, S + 2, P]: ``sets`` (bool[S, S, P]) inside its ring of halo cells."""
    if periodic:
        return np.pad(sets, ((1, 1), (1, 1), (0, 0)), mode="wrap")
    return np.pad(sets, ((1, 1), (1, 1), (0, 0)), constant_values=True)


def host_propagate(
    sets: np.ndarray, compatible: np.ndarray, periodic: bool
) -> tuple[np.ndarray, int]:
    """``(bool[S, S, P], sweeps)``: ``sets`` after MiniGrid's whole-grid sweeps to arc
    consistency (numpy; the reference the solver's block revisions are tested against)."""
    size = sets.shape[0]
    for sweeps in range(1, size * size * sets.shape[2] + 2):
        ring = with_ring(sets, periodic).astype(np.int32)
        new = sets.copy()
        for d, (dx, dy) in enumerate(pattern_tables.DIRECTIONS):
            beside = ring[1 + dx : 1 + size + dx, 1 + dy : 1 + size + dy]
            new &= beside @ compatible[d].T.astype(np.int32) > 0
        if np.array_equal(new, sets):
            return sets, sweeps
        sets = new
    raise AssertionError("unreachable: every sweep that changes removes a pattern")


def build(
    tables: pattern_tables.Tables,
    size: int,
    periodic: bool,
    *,
    window: int,
    sweeps: int,
    max_iterations: int,
) -> Program:
    """The solver constants of ``tables`` for an ``size x size`` output.

    Raises:
        ValueError: a window outside ``[1, size]``, or a pattern set that contradicts
            itself before any choice.
    """
    if not 1 <= window <= size:
        raise ValueError(f"window {window} must lie in [1, {size}]")
    n = tables.num_patterns
    words = -(-n // 32)
    initial, _ = host_propagate(np.ones((size, size, n), bool), tables.compatible, periodic)
    if not initial.any(axis=2).all():
        raise ValueError("the pattern set contradicts itself before any choice")
    return Program(
        size=size,
        num_patterns=n,
        words=words,
        periodic=periodic,
        weights=tables.weights.astype(np.float32),
        supported=to_bits(tables.compatible, words),
        initial_wave=to_bits(with_ring(initial, periodic), words),
        pattern_walls=tables.pattern_walls,
        window=window,
        sweeps=sweeps,
        max_iterations=max_iterations,
    )
