"""MiniGrid's mission strings for BabyAI descriptions and action instructions (host side).

The words are MiniGrid 3.2.0's ``ObjDesc.surface`` and ``*Instr.surface``: kind or
"object", the colour before it, the location after it, then "the" when exactly one object
matches at the start and "a" when several do.
"""

from __future__ import annotations

import numpy as np

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import sequences as Q
from horizax.grid.babyai import verifiers as V

_LOC_WORDS = {
    D.Loc.NONE: "",
    D.Loc.LEFT: " on your left",
    D.Loc.RIGHT: " on your right",
    D.Loc.FRONT: " in front of you",
    D.Loc.BEHIND: " behind you",
}


def description_text(desc: np.ndarray, num_matching: int) -> str:
    """The words for ``desc`` when ``num_matching`` objects match it at the start.

    Raises:
        ValueError: if ``num_matching`` is not positive (MiniGrid asserts a match).
    """
    if num_matching < 1:
        raise ValueError(f"num_matching={num_matching}: no object matches {list(desc)}")
    kind, colour, loc = (int(v) for v in desc)
    words = "object" if kind == D.ANY else C.OBJECT_NAMES[kind]
    if colour != D.ANY:
        words = f"{C.COLOR_NAMES[colour]} {words}"
    words += _LOC_WORDS[D.Loc(loc)]
    return ("a " if num_matching > 1 else "the ") + words


def instruction_text(
    instr: np.ndarray,
    grid: np.ndarray,
    start_pos: np.ndarray,
    start_dir: int,
    *,
    room_size: int,
) -> str:
    """MiniGrid's mission string for ``instr`` given at the start state.

    Args:
        instr: i32[8], an instruction from `verifiers.instruction`.
        grid: u8[W, H, 3], the grid at the start.
        start_pos: i32[2], the agent's start position.
        start_dir: the agent's start direction.
        room_size: the level's room side, walls included.
    """
    instr = np.asarray(instr, np.int32)

    def words(desc: np.ndarray) -> str:
        match = D.find_matching(desc, grid, start_pos, start_dir, room_size=room_size)
        return description_text(desc, int(np.asarray(match).sum()))

    a = words(instr[2 : 2 + D.DESC_SIZE])
    kind = V.Instr(int(instr[0]))
    if kind == V.Instr.GOTO:
        return "go to " + a
    if kind == V.Instr.OPEN:
        return "open " + a
    if kind == V.Instr.PICKUP:
        return "pick up " + a
    return f"put {a} next to {words(instr[2 + D.DESC_SIZE :])}"


_JOINS = {0: " and ", 1: ", then ", 2: " after you "}  # sequences.Seq order


def sequence_text(
    seq: np.ndarray,
    grid: np.ndarray,
    start_pos: np.ndarray,
    start_dir: int,
    *,
    room_size: int,
) -> str:
    """MiniGrid's mission string for a composite (`sequences.sequence`) at the start state."""
    seq = np.asarray(seq, np.int32)
    a, b = seq[2:].reshape(2, V.INSTR_SIZE)
    first = instruction_text(a, grid, start_pos, start_dir, room_size=room_size)
    if int(seq[0]) == Q.Seq.SINGLE:  # the one clause
        return first
    return (
        first
        + _JOINS[int(seq[0])]
        + instruction_text(b, grid, start_pos, start_dir, room_size=room_size)
    )


def tree_text(
    tree: np.ndarray,
    grid: np.ndarray,
    start_pos: np.ndarray,
    start_dir: int,
    *,
    room_size: int,
) -> str:
    """MiniGrid's mission string for an instruction tree (`horizax.grid.babyai.trees`) at the
    start state."""
    tree = np.asarray(tree, np.int32)
    a, b = tree[2:].reshape(2, -1)
    first = sequence_text(a, grid, start_pos, start_dir, room_size=room_size)
    if int(tree[0]) == Q.Seq.SINGLE:
        return first
    return (
        first
        + _JOINS[int(tree[0])]
        + sequence_text(b, grid, start_pos, start_dir, room_size=room_size)
    )
