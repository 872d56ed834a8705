"""BabyAI's instruction language as arrays: descriptions, action instructions, composites
(and / then / after), their verifiers and MiniGrid's mission strings (Farama MiniGrid 3.2.0,
``minigrid/envs/babyai/core``)."""

from horizax.grid.babyai.descriptions import ANY, Loc, describe, find_matching
from horizax.grid.babyai.sequences import (
    Seq,
    SeqProgress,
    sequence,
    start_sequence,
    verify_sequence,
)
from horizax.grid.babyai.surface import description_text, instruction_text, sequence_text
from horizax.grid.babyai.verifiers import (
    Instr,
    Progress,
    Status,
    instruction,
    start,
    track,
    verify,
)

__all__ = [
    "ANY",
    "Instr",
    "Loc",
    "Progress",
    "Seq",
    "SeqProgress",
    "Status",
    "describe",
    "description_text",
    "find_matching",
    "instruction",
    "instruction_text",
    "sequence",
    "sequence_text",
    "start",
    "start_sequence",
    "track",
    "verify",
    "verify_sequence",
]
