"""An action instruction's mission as word ids, computed inside `jit`.

`instruction_tokens` writes MiniGrid's mission string of an action instruction
(`horizax.grid.babyai.surface.instruction_text`) as word ids of the fixed vocabulary of
`horizax.grid.mission_tokens`, padded to `MISSION_LENGTH`: what a BabyAI level stores in
``State.mission`` at reset. The determiner needs the start state ("the" when one object
matches the description, "a" when several do), so it is computed here from the same
matching rule the verifier uses (`descriptions.find_matching`).
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


def clause_tokens(instr: Array, state: State, *, room_size: int) -> Array:
    """i32[17]: an action instruction's words, with holes, given the start state.

    Args:
        instr: i32[8], the instruction (`verifiers.instruction`).
        state: the episode's start state (its pose fixes locations and the determiners).
        room_size: the level's room side, walls included (static).
    """
    instr = jnp.asarray(instr, jnp.int32)

    def words(desc: Array) -> Array:
        matches = D.find_matching(
            desc, state.grid, state.agent_pos, state.agent_dir, room_size=room_size
        )
        return description_tokens(desc, jnp.sum(matches, dtype=jnp.int32))

    kind = instr[0]
    put = kind == V.Instr.PUT_NEXT
    verb = jnp.asarray(_VERB_WORDS)[jnp.clip(kind, 0, len(V.Instr) - 1)]
    middle = jnp.where(put, jnp.array([_W["next"], _W["to"]], jnp.int32), 0)
    second = jnp.where(put, words(V.desc_b(instr)), 0)
    out = jnp.concatenate([verb, words(V.desc_a(instr)), middle, second])
    # verb (2, one hole for open/put) + 7 + 2 + 7 = 18 slots for PutNext's 17 words.
    assert out.shape == (CLAUSE_WORDS + 1,) and DESCRIPTION_WORDS == 7
    return out


def instruction_tokens(instr: Array, state: State, *, room_size: int) -> Array:
    """i32[`MISSION_LENGTH`]: MiniGrid's mission string of ``instr`` as word ids.

    Args:
        instr: i32[8], the instruction.
        state: the episode's start state.
        room_size: the level's room side, walls included (static).
    """
    return compact(clause_tokens(instr, state, room_size=room_size), MISSION_LENGTH)
