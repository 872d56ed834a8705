"""Construction-time checks of the heuristic policies' knobs.

The policies hold their knobs as Python numbers and use them inside traced code, where a bad
value can only turn into NaNs or a Python ``ZeroDivisionError`` at trace time. These checks run
once, in ``__post_init__``, and raise ``ValueError`` naming the offending field instead.
"""

from __future__ import annotations

import math
from typing import Any

from jax.core import Tracer

__all__ = [
    "as_float",
    "check_count",
    "check_number",
    "check_state_dim",
    "require_command_cls",
]


def check_number(
    owner: str, name: str, value: Any, *, positive: bool = False, signed: bool = False
) -> None:
    """Raises ValueError unless ``value`` is a finite real >= 0 (> 0 when ``positive``, any
    sign when ``signed``).

    A traced value (a policy built inside a transformed function) cannot be inspected and is
    let through.
    """
    if isinstance(value, Tracer):
        return
    if isinstance(value, bool):
        raise ValueError(f"{owner}.{name} must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}.{name} must be a number, got {value!r}") from None
    if signed:
        bound_ok, bound = True, "real"
    elif positive:
        bound_ok, bound = number > 0.0, "> 0"
    else:
        bound_ok, bound = number >= 0.0, ">= 0"
    if not math.isfinite(number) or not bound_ok:
        raise ValueError(f"{owner}.{name} must be finite and {bound}, got {value!r}")


def check_count(owner: str, name: str, value: Any, *, minimum: int) -> None:
    """Raises ValueError unless ``value`` is a Python int (not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{owner}.{name} must be an int >= {minimum}, got {value!r}")


def check_state_dim(owner: str, value: Any) -> None:
    """Raises ValueError unless ``value`` is 4 (RT states) or 6 (RTN states)."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in (4, 6):
        raise ValueError(f"{owner}.state_dim must be 4 (RT) or 6 (RTN), got {value!r}")


def require_command_cls(owner: str, command_cls: Any) -> Any:
    """``command_cls``, or ValueError when the environment has not filled it in yet.

    The check is on a static attribute, so it runs once while tracing, never on traced data.
    """
    if command_cls is None:
        raise ValueError(
            f"{owner}.command_cls is None: use the policy through OrbitalGymEnv or "
            f"SingleAgentView, which fill it in, or pass command_cls=... yourself"
        )
    return command_cls


def as_float(owner: str, name: str, value: Any) -> float:
    """``float(value)``, or ValueError naming the field when it is not a number."""
    if isinstance(value, bool):
        raise ValueError(f"{owner}.{name} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{owner}.{name} must be a number, got {value!r}") from None
