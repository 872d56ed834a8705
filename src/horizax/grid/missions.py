"""Missions as arrays, and MiniGrid's mission strings rendered from them.

A task's mission lives in ``State.mission``, i32[`MISSION_SIZE`], so it is part of the pytree
(batched, jitted, reset with the layout) and reward/termination functions can read it. The
slots:

=========  ==================================================================================
slot       meaning
=========  ==================================================================================
TEMPLATE   which mission sentence (`Template`)
COLOR      colour of the (first) object named, e.g. the door to go to, the object to move
KIND       its object kind (``C.KEY``, ``C.BALL``, ``C.BOX``, ``C.DOOR``)
COLOR2     colour of the second object named (PutNear's target, LockedRoom's key room)
KIND2      its object kind
VARIANT    the phrasing, where MiniGrid draws one (Fetch: "get a", "go get a", ...)
X, Y       position of the target (GoTo*'s target, PutNear's target, Memory's success cell,
           RedBlueDoors' red door); -1 where unused
X2, Y2     a second position (Memory's failure cell, RedBlueDoors' blue door); -1 where unused
=========  ==================================================================================

`mission_text` turns the array back into MiniGrid's exact string (for adapters, logging and
the differential tests); `encode` builds the array in layout functions.

BabyAI levels hold their mission as word ids instead, i32[`mission_tokens.MISSION_LENGTH`]
(`horizax.grid.mission_tokens`): `mission_text` tells the two apart by the array's length.
"""

from __future__ import annotations

import enum
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array
from jax.core import Tracer

from horizax.core import spaces
from horizax.grid import constants as C
from horizax.grid import mission_tokens

MISSION_SIZE = 10
TEMPLATE, COLOR, KIND, COLOR2, KIND2, VARIANT, X, Y, X2, Y2 = range(MISSION_SIZE)


class Template(enum.IntEnum):
    """The mission sentences of MiniGrid 3.2.0's task families."""

    NONE = 0  # Playground: ""
    GREEN_GOAL = 1  # Empty, DistShift, Dynamic-Obstacles
    DOOR_KEY = 2
    REACH_GOAL = 3  # FourRooms
    AVOID_LAVA = 4  # LavaGap, LavaCrossing
    FIND_OPENING = 5  # SimpleCrossing
    GO_TO_DOOR = 6
    GO_TO_OBJECT = 7
    FETCH = 8
    PUT_NEAR = 9
    RED_BLUE_DOORS = 10
    MEMORY = 11
    PICK_UP = 12  # KeyCorridor, UnlockPickup, BlockedUnlockPickup, ObstructedMaze
    OPEN_DOOR = 13  # Unlock
    LOCKED_ROOM = 14
    MULTI_ROOM = 15
    TRAVERSE_MAZE = 16  # WFC


FETCH_PHRASES = ("get a", "go get a", "fetch a", "go fetch a", "you must fetch a")

_FIXED = {
    Template.NONE: "",
    Template.GREEN_GOAL: "get to the green goal square",
    Template.DOOR_KEY: "use the key to open the door and then get to the goal",
    Template.REACH_GOAL: "reach the goal",
    Template.AVOID_LAVA: "avoid the lava and get to the green goal square",
    Template.FIND_OPENING: "find the opening and get to the green goal square",
    Template.RED_BLUE_DOORS: "open the red door then the blue door",
    Template.MEMORY: "go to the matching object at the end of the hallway",
    Template.OPEN_DOOR: "open the door",
    Template.MULTI_ROOM: "traverse the rooms to get to the goal",
    Template.TRAVERSE_MAZE: "traverse the maze to get to the goal",
}


def encode(
    template: Template | int,
    *,
    color: Any = 0,
    kind: Any = 0,
    color2: Any = 0,
    kind2: Any = 0,
    variant: Any = 0,
    pos: Any = (-1, -1),
    pos2: Any = (-1, -1),
) -> Array:
    """i32[MISSION_SIZE]: a mission array (arguments may be traced scalars).

    Args:
        template: the `Template`.
        color: the first object's colour index.
        kind: the first object's object index.
        color2: the second object's colour index.
        kind2: the second object's object index.
        variant: the phrasing index (Fetch).
        pos: an ``(x, y)`` position the task's rules need.
        pos2: a second such position.
    """
    scalars = [template, color, kind, color2, kind2, variant]
    if not any(isinstance(x, Tracer) for x in jax.tree.leaves((scalars, pos, pos2))):
        # Concrete values (a mission read off MiniGrid, a test's expectation): built in
        # numpy and transferred once, not a dozen eager JAX operations (0.9 ms a mission).
        # (`int` first: a value beyond int32 raises OverflowError, as `jnp.asarray` does.)
        values = [int(v) for v in scalars] + [int(v) for p in (pos, pos2) for v in np.ravel(p)]
        return jnp.asarray(np.array(values, np.int32))
    pos = jnp.asarray(pos, jnp.int32)
    pos2 = jnp.asarray(pos2, jnp.int32)
    head = jnp.stack([jnp.asarray(v, jnp.int32) for v in scalars])
    return jnp.concatenate([head, pos, pos2])


def _name(table: tuple[str, ...], index: int, what: str) -> str:
    if not 0 <= index < len(table):
        raise ValueError(f"mission has an invalid {what} index {index}")
    return table[index]


def _text_of(mission: np.ndarray) -> str:
    template = int(mission[TEMPLATE])
    if template in _FIXED:
        return _FIXED[Template(template)]
    color = _name(C.COLOR_NAMES, int(mission[COLOR]), "colour")
    color2 = _name(C.COLOR_NAMES, int(mission[COLOR2]), "colour")
    kind = _name(C.OBJECT_NAMES, int(mission[KIND]), "object")
    kind2 = _name(C.OBJECT_NAMES, int(mission[KIND2]), "object")
    if template == Template.GO_TO_DOOR:
        return f"go to the {color} door"
    if template == Template.GO_TO_OBJECT:
        return f"go to the {color} {kind}"
    if template == Template.FETCH:
        return f"{_name(FETCH_PHRASES, int(mission[VARIANT]), 'phrasing')} {color} {kind}"
    if template == Template.PUT_NEAR:
        return f"put the {color} {kind} near the {color2} {kind2}"
    if template == Template.PICK_UP:
        return f"pick up the {color} {kind}"
    if template == Template.LOCKED_ROOM:
        return (
            f"get the {color} key from the {color2} room, unlock the {color} door"
            " and go to the goal"
        )
    raise ValueError(f"unknown mission template {template}")


def mission_text(state: Any) -> Any:
    """MiniGrid's mission string for a concrete state (outside `jit`).

    Args:
        state: a `State` (or its ``mission`` array, i32[..., MISSION_SIZE]).

    Returns:
        ``str`` for one state; nested lists of ``str`` for a batch (leading axes).

    Raises:
        TypeError: if called on traced values (inside `jit`/`vmap`).
        ValueError: if the array holds no valid mission.
    """
    mission = getattr(state, "mission", state)
    try:
        array = np.asarray(mission)
    except Exception as error:  # a tracer refuses conversion
        raise TypeError("mission_text needs a concrete state; call it outside jit") from error
    sizes = (MISSION_SIZE, mission_tokens.MISSION_LENGTH)
    if array.ndim == 0 or array.shape[-1] not in sizes:
        raise ValueError(
            f"mission must have shape [..., {MISSION_SIZE}] or [..., "
            f"{mission_tokens.MISSION_LENGTH}] (BabyAI), got {array.shape}"
        )
    if array.ndim == 1:
        if array.shape[0] == mission_tokens.MISSION_LENGTH:
            return mission_tokens.tokens_text(array)
        return _text_of(array)
    return [mission_text(row) for row in array]


MISSION_MAX_LENGTH = 128  # the longest MiniGrid mission (LockedRoom's) is well below this


def mission_space(size: int = MISSION_SIZE) -> spaces.Text:
    """The `horizax.core.spaces.Text` of missions, decoded to MiniGrid's string by
    `mission_text`.

    Args:
        size: the mission array's length: `MISSION_SIZE` (i32[10] inside `jit`) or
            `mission_tokens.MISSION_LENGTH` (a BabyAI level's word ids, in
            ``[0, VOCABULARY_SIZE)``).

    Raises:
        ValueError: for any other size.
    """
    if size == mission_tokens.MISSION_LENGTH:
        return spaces.Text(
            max_length=mission_tokens.TEXT_MAX_LENGTH,
            encoded=spaces.Box(0, mission_tokens.VOCABULARY_SIZE - 1, (size,), jnp.int32),
            decode=mission_text,
        )
    if size != MISSION_SIZE:
        raise ValueError(
            f"size={size}: missions are {MISSION_SIZE} slots or "
            f"{mission_tokens.MISSION_LENGTH} BabyAI words"
        )
    return spaces.Text(
        max_length=MISSION_MAX_LENGTH,
        encoded=spaces.Box(-1, 2**31 - 1, (MISSION_SIZE,), jnp.int32),
        decode=mission_text,
    )
