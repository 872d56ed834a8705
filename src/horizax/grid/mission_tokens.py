"""BabyAI missions as word ids: the fixed vocabulary, the length bound and the decoder.

A BabyAI level keeps its mission in ``State.mission`` as i32[`MISSION_LENGTH`]: the word
ids of MiniGrid's mission string, left-aligned, padded with 0. Agents read it inside `jit`
(the adapters' ``mission`` entry, or ``timestep.state.mission``); `tokens_text` joins the
words back into MiniGrid's exact string (a ``","`` is its own word, written without the
space before it).

The vocabulary (`VOCABULARY`, id = position; 0 is padding) holds every word of BabyAI's
grammar (MiniGrid 3.2.0's ``verifier.py`` surfaces): the verbs, the two determiners, the
six colours, the four describable kinds and "object", the location phrases and the joins.

Length bound: the longest mission the grammar can produce is a ``then``/``after`` sequence
whose two sides are each an ``and`` of two action clauses (MiniGrid's ``rand_instr``: a
sequence's sides are actions or conjunctions, a conjunction's sides actions). The longest
action clause is PutNext with two located, coloured descriptions: "put" + 7 + "next to" +
7 = 17 words, a description being determiner, colour, kind and "in front of you" (7). So
``4 * 17`` clause words, ``2`` for the two "and" and ``2`` for ", then" / "after you":
`MISSION_LENGTH` = 72.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from horizax.grid import constants as C

VOCABULARY: tuple[str, ...] = (
    "",  # 0: padding
    "go",
    "to",
    "open",
    "pick",
    "up",
    "put",
    "next",
    "the",
    "a",
    *C.COLOR_NAMES,  # 10..15, in colour-index order
    "door",  # 16..19, in object-index order (DOOR, KEY, BALL, BOX)
    "key",
    "ball",
    "box",
    "object",
    "on",
    "your",
    "left",
    "right",
    "in",
    "front",
    "of",
    "you",
    "behind",
    "and",
    ",",
    "then",
    "after",
)
WORD: dict[str, int] = {word: index for index, word in enumerate(VOCABULARY) if word}
VOCABULARY_SIZE = len(VOCABULARY)
DESCRIPTION_WORDS = 7  # determiner, colour, kind, up to four location words
CLAUSE_WORDS = 1 + DESCRIPTION_WORDS + 2 + DESCRIPTION_WORDS  # PutNext's 17
MISSION_LENGTH = 4 * CLAUSE_WORDS + 2 + 2  # see the module docstring: 72
# The longest string: 72 words of at most 6 letters and their spaces.
TEXT_MAX_LENGTH = MISSION_LENGTH * (1 + max(len(word) for word in VOCABULARY))


def tokens_text(tokens: Sequence[int] | np.ndarray) -> str:
    """MiniGrid's mission string from word ids (padding ignored).

    Args:
        tokens: i32[L] word ids.

    Raises:
        ValueError: naming an id outside the vocabulary.
    """
    words = []
    for token in np.asarray(tokens).reshape(-1).tolist():
        if not 0 <= token < VOCABULARY_SIZE:
            raise ValueError(f"mission token {token} outside the vocabulary [0, {VOCABULARY_SIZE})")
        if token:
            words.append(VOCABULARY[token])
    return " ".join(words).replace(" ,", ",")


def text_tokens(text: str, length: int = MISSION_LENGTH) -> np.ndarray:
    """i32[length]: the word ids of a BabyAI mission string (host side; the inverse of
    `tokens_text`).

    Args:
        text: a mission string of BabyAI's grammar.
        length: the padded length.

    Raises:
        ValueError: naming a word outside the vocabulary, or a mission too long.
    """
    words = text.replace(",", " ,").split()
    unknown = [word for word in words if word not in WORD]
    if unknown:
        raise ValueError(f"words outside the BabyAI vocabulary: {unknown}")
    if len(words) > length:
        raise ValueError(f"{len(words)} words do not fit in {length}")
    out = np.zeros(length, np.int32)
    out[: len(words)] = [WORD[word] for word in words]
    return out
