"""An action instruction's mission as word ids, computed inside `jit`.

`instruction_tokens` writes MiniGrid's mission string of an action instruction
(`horizax.grid.babyai.surface.instruction_text`) as word ids of the fixed vocabulary of
`horizax.grid.mission_tokens`, padded to `MISSION_LENGTH`: what a BabyAI level stores in
``State.mission`` at reset. The determiners need the start state ("the" when one object
matches a description, "a" when several do): a level passes the counts of the objects its
verifier matched at reset (`verifiers.start`), and `start_tokens` counts them itself with
the same rule (`descriptions.find_matching`).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.grid import constants as C
from horizax.grid.babyai import descriptions as D
from horizax.grid.babyai import verifiers as V
from horizax.grid.mission_tokens import CLAUSE_WORDS, DESCRIPTION_WORDS, MISSION_LENGTH, WORD
from horizax.grid.state import State

_W = WORD
# Each Loc's words, padded to 4 (Loc order: none, left, right, front, behind).
_LOC_WORDS = np.array(
    [
        [0, 0, 0, 0],
        [_W["on"], _W["your"], _W["left"], 0],
        [_W["on"], _W["your"], _W["right"], 0],
        [_W["in"], _W["front"], _W["of"], _W["you"]],
        [_W["behind"], _W["you"], 0, 0],
    ],
    np.int32,
)
# The words before the first description, per `Instr` (go to / open / pick up / put).
_VERB_WORDS = np.array(
    [[_W["go"], _W["to"]], [_W["open"], 0], [_W["pick"], _W["up"]], [_W["put"], 0]], np.int32
)


def description_tokens(desc: Array, num_matching: Array) -> Array:
    """i32[7]: a description's words with holes (0) where it has none.

    Args:
        desc: i32[3], the description.
        num_matching: i32[], how many objects it matches at the start.
    """
    kind, colour, loc = desc[0], desc[1], desc[2]
    det = jnp.where(num_matching > 1, _W["a"], _W["the"])
    colour_word = jnp.where(colour == D.ANY, 0, _W[C.COLOR_NAMES[0]] + colour)
    kind_word = jnp.where(kind == D.ANY, _W["object"], _W["door"] + kind - C.DOOR)
    loc_words = jnp.asarray(_LOC_WORDS)[jnp.clip(loc, 0, len(D.Loc) - 1)]
    return jnp.concatenate([jnp.stack([det, colour_word, kind_word]), loc_words]).astype(jnp.int32)


def compact(words: Array, length: int) -> Array:
    """i32[length]: the non-zero ``words``, in order, left-aligned and padded with 0.

    A one-hot product rather than a scatter: the inputs are a few dozen words.
    """
    present = words != 0
    slot = jnp.cumsum(present) - 1
    onehot = present[:, None] & (slot[:, None] == jnp.arange(length)[None, :])
    return jnp.sum(jnp.where(onehot, words[:, None], 0), axis=0).astype(jnp.int32)


def clause_tokens(instr: Array, counts: Array, *, kinds: tuple[int, ...] = V.ALL_KINDS) -> Array:
    """i32[18]: an action instruction's words, with holes.

    Args:
        instr: i32[8], the instruction (`verifiers.instruction`).
        counts: i32[2], how many objects desc_a and desc_b match at the start (the
            determiners; `verifiers.start`'s ``tracked`` counts them).
        kinds: static, the `verifiers.Instr` kinds ``instr`` may be; without PutNext the
            second description's words are not computed.
    """
    instr = jnp.asarray(instr, jnp.int32)
    kind = instr[0]
    verb = jnp.asarray(_VERB_WORDS)[jnp.clip(kind, 0, len(V.Instr) - 1)]
    first = description_tokens(V.desc_a(instr), counts[0])
    if V.Instr.PUT_NEXT in kinds:
        put = kind == V.Instr.PUT_NEXT
        middle = jnp.where(put, jnp.array([_W["next"], _W["to"]], jnp.int32), 0)
        second = jnp.where(put, description_tokens(V.desc_b(instr), counts[1]), 0)
    else:
        middle = jnp.zeros(2, jnp.int32)
        second = jnp.zeros(DESCRIPTION_WORDS, jnp.int32)
    # verb (2, one hole for open/put) + 7 + 2 + 7 = 18 slots for PutNext's 17 words.
    out = jnp.concatenate([verb, first, middle, second])
    assert out.shape == (CLAUSE_WORDS + 1,)
    return out


def instruction_tokens(
    instr: Array, counts: Array, *, kinds: tuple[int, ...] = V.ALL_KINDS
) -> Array:
    """i32[`MISSION_LENGTH`]: MiniGrid's mission string of ``instr`` as word ids.

    Args:
        instr: i32[8], the instruction.
        counts: i32[2], the objects each description matches at the start.
        kinds: static, as in `clause_tokens`.
    """
    return compact(clause_tokens(instr, counts, kinds=kinds), MISSION_LENGTH)


# The words joining a composite's clauses, per `sequences.Seq` (and, then, after, single).
_JOIN_WORDS = np.array(
    [[_W["and"], 0], [_W[","], _W["then"]], [_W["after"], _W["you"]], [0, 0]], np.int32
)


def _joined(kind: Array, first: Array, second: Array) -> Array:
    """``first``, the join words of `sequences.Seq` ``kind``, then ``second`` (dropped for
    `Seq.SINGLE`), holes kept: a composite's words and a tree's alike."""
    kind = jnp.clip(kind, 0, len(_JOIN_WORDS) - 1)
    second = jnp.where(kind == len(_JOIN_WORDS) - 1, 0, second)  # SINGLE: no second part
    return jnp.concatenate([first, jnp.asarray(_JOIN_WORDS)[kind], second])


def sequence_words(seq: Array, counts: Array, *, kinds: tuple[int, ...] = V.ALL_KINDS) -> Array:
    """i32[38]: a composite's words, with holes (`sequence_tokens` before `compact`).

    Args:
        seq: i32[18], the composite (`sequences.sequence`); a `Seq.SINGLE` gives its one
            clause's words.
        counts: i32[2, 2], per clause the objects each description matches at the start.
        kinds: static, as in `clause_tokens`.
    """
    seq = jnp.asarray(seq, jnp.int32)
    a, b = seq[2:].reshape(2, V.INSTR_SIZE)
    first, second = (clause_tokens(c, counts[i], kinds=kinds) for i, c in enumerate((a, b)))
    return _joined(seq[0], first, second)


def sequence_tokens(seq: Array, counts: Array, *, kinds: tuple[int, ...] = V.ALL_KINDS) -> Array:
    """i32[`MISSION_LENGTH`]: MiniGrid's mission string of a composite as word ids.

    Args:
        seq: i32[18], the composite (`sequences.sequence`); a `Seq.SINGLE` gives its one
            clause's words.
        counts: i32[2, 2], per clause the objects each description matches at the start.
        kinds: static, as in `clause_tokens`.
    """
    return compact(sequence_words(seq, counts, kinds=kinds), MISSION_LENGTH)


def tree_tokens(tree: Array, counts: Array, *, kinds: tuple[int, ...] = V.ALL_KINDS) -> Array:
    """i32[`MISSION_LENGTH`]: MiniGrid's mission string of an instruction tree as word ids
    (`horizax.grid.babyai.trees`; four PutNext leaves and three joins fill all 72).

    Args:
        tree: i32[38], the instruction.
        counts: i32[2, 2, 2], per branch and clause the objects each description matches at
            the start.
        kinds: static, as in `clause_tokens`.
    """
    tree = jnp.asarray(tree, jnp.int32)
    a, b = tree[2:].reshape(2, -1)
    first, second = (sequence_words(c, counts[i], kinds=kinds) for i, c in enumerate((a, b)))
    return compact(_joined(tree[0], first, second), MISSION_LENGTH)


def start_tokens(instr: Array, state: State, *, room_size: int) -> Array:
    """i32[`MISSION_LENGTH`]: `instruction_tokens` with the counts read off ``state``, the
    episode's start state (`descriptions.find_matching`).

    Args:
        instr: i32[8], the instruction.
        state: the start state.
        room_size: the level's room side, walls included (static).
    """
    instr = jnp.asarray(instr, jnp.int32)
    counts = jnp.stack(
        [
            jnp.sum(
                D.find_matching(
                    d, state.grid, state.agent_pos, state.agent_dir, room_size=room_size
                ),
                dtype=jnp.int32,
            )
            for d in (V.desc_a(instr), V.desc_b(instr))
        ]
    )
    return instruction_tokens(instr, counts)
