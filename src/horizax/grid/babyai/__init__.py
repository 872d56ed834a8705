"""BabyAI's instruction language as arrays: descriptions, action instructions, composites
(and / then / after) and trees of them, their verifiers, the grammar's sampler and
MiniGrid's mission strings (Farama MiniGrid 3.2.0, ``minigrid/envs/babyai/core``)."""

from horizax.grid.babyai.descriptions import ANY, Loc, describe, find_matching
from horizax.grid.babyai.sequences import (
    Seq,
    SeqProgress,
    sequence,
    start_sequence,
    verify_sequence,
)
from horizax.grid.babyai.surface import (
    description_text,
    instruction_text,
    sequence_text,
    tree_text,
)
from horizax.grid.babyai.trees import TreeProgress, start_tree, tree, verify_tree
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
    "TreeProgress",
    "describe",
    "description_text",
    "find_matching",
    "instruction",
    "instruction_text",
    "sequence",
    "sequence_text",
    "start",
    "start_sequence",
    "start_tree",
    "track",
    "tree",
    "tree_text",
    "verify",
    "verify_sequence",
    "verify_tree",
]
