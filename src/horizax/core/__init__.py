"""The episode contract shared by every horizax family."""

from horizax.core.compose import compose
from horizax.core.registry import make, register, registered_ids
from horizax.core.step_type import StepType, check_truncation
from horizax.core.struct import Replaceable, field, pytree_dataclass, static_field

__all__ = [
    "Replaceable",
    "StepType",
    "check_truncation",
    "compose",
    "field",
    "make",
    "pytree_dataclass",
    "register",
    "registered_ids",
    "static_field",
]
