"""What the Gymnasium single and vector environments share: ids, render modes, actions.

Actions: a ``Discrete`` space takes integers in ``[0, n)`` (`check_action`), except where
MiniGrid maps larger ones: its Dynamic-Obstacles takes ``left`` for any action ``>= n``
(`above_range_action`), and so does the adapter; elsewhere MiniGrid raises ``ValueError``
("Unknown action"), as the adapter does. A ``Box`` space
follows the rule of every adapter (`horizax.adapters.actions.check_box_action`: float or
integer arrays of exactly the space's shape, cast to its dtype, values passed on unclipped).

Requires the ``gymnasium`` extra (imported by `horizax.adapters.gymnasium`, which checks it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from horizax.adapters.actions import check_action_space
from horizax.core.protocol import functional
from horizax.core.registry import make as make_horizax
from horizax.core.registry import resolve

__all__ = [
    "METADATA",
    "NAMESPACE",
    "StaticArg",
    "above_range_action",
    "check_action",
    "check_render_mode",
    "resolve_env",
]

NAMESPACE = "horizax"

# Gymnasium reads a creator's ``metadata`` (gymnasium.make offers rgb_array_list from it).
METADATA: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 10}


class StaticArg:
    """A static `jit` argument: equal by value when hashable (one compile per configuration),
    by identity otherwise."""

    def __init__(self, value: Any) -> None:
        self.value = value
        try:
            self._hash = hash(("value", value))
            self._by_value = True
        except TypeError:
            self._hash = hash(("id", id(value)))
            self._by_value = False

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StaticArg) or self._by_value != other._by_value:
            return False
        return self.value == other.value if self._by_value else self.value is other.value


def resolve_env(env: Any, overrides: Mapping[str, Any]) -> tuple[Any, str]:
    """``(protocol view, env id)`` of an id (with ``horizax.make`` overrides) or an env.

    The observation is the protocol view's own (the gridworld's is MiniGrid's dict).

    Raises:
        TypeError: overrides given with an environment object, or an env without a protocol
            view or with an action space other than Discrete or a float/integer Box.
        ValueError: an unknown id (with suggestions).
    """
    if isinstance(env, str):
        env_id = resolve(env.removeprefix(f"{NAMESPACE}/"))
        fenv = functional(make_horizax(env_id, **overrides))
    else:
        if overrides:
            raise TypeError(
                f"overrides {sorted(overrides)} need an environment id; got an environment "
                "object (configure it before wrapping)"
            )
        fenv = functional(env)
        env_id = getattr(fenv, "env_id", "") or ""
    check_action_space(fenv.action_space)
    return fenv, env_id


def check_render_mode(render_mode: str | None) -> str | None:
    """Validates ``render_mode`` against the adapters' ``metadata["render_modes"]``."""
    if render_mode is not None and render_mode not in METADATA["render_modes"]:
        raise ValueError(
            f"render_mode must be None or one of {METADATA['render_modes']}, got {render_mode!r}"
        )
    return render_mode


def above_range_action(fenv: Any) -> int | None:
    """The action taken in place of one ``>= n`` for this environment, or None (an error).

    It is the protocol view's optional ``above_range_action`` (`horizax.core.protocol`): the
    gridworld's is its ``invalid_action`` (Dynamic-Obstacles: ``left``, as MiniGrid's
    ``DynamicObstaclesEnv.step`` maps it); environments without it have None.
    """
    value = getattr(fenv, "above_range_action", None)
    return None if value is None else int(value)


def check_action(action: Any, n: int, above_range: int | None = None) -> np.ndarray:
    """An integer action of a ``Discrete(n)`` space, in ``[0, n)``, as an i32 array of the same
    shape.

    Args:
        action: an integer or integer array.
        n: the space's size.
        above_range: if not None, values ``>= n`` become this action instead of raising
            (`above_range_action`); negative values still raise.

    Raises:
        TypeError: for bools or non-integer dtypes.
        ValueError: for values outside ``[0, n)`` (only negative ones with ``above_range``).
    """
    if isinstance(action, bool):
        raise TypeError("action must be an integer, got a bool")
    array = np.asarray(action)
    if not np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_:
        raise TypeError(f"action must be an integer, got dtype {array.dtype}")
    if above_range is not None:
        array = np.where(array >= n, above_range, array)
    if np.any(array < 0) or np.any(array >= n):
        raise ValueError(f"action {action!r} is outside the action space [0, {n})")
    return array.astype(np.int32)
