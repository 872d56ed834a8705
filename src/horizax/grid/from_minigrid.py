"""MiniGrid's layouts in horizax: a Farama MiniGrid env's current state copied into a `State`.

horizax draws its layouts from JAX keys: the same distribution as MiniGrid's, not the same
layout for a seed. Code that needs MiniGrid's exact layout for a seed (a test written against
MiniGrid, a replay of a MiniGrid run) lets MiniGrid generate it and copies the result here;
the steps that follow are horizax's. `state_from_minigrid` copies the grid (what each box
holds included), the agent, the hand, the step count, the mission and the family's private
state; `MiniGridLayouts` is what the gridworld's protocol view offers the Gymnasium adapter
for ``gymnasium.make(id, layouts="minigrid")`` (``GridFunctional.reference_layouts()``).

Covered: the 82 ``MiniGrid-*`` ids horizax has (WFC included). The only private state among them is
Dynamic-Obstacles' ball order (`horizax.grid.envs.dynamic_obstacles.BallOrder`), which is
MiniGrid's ``obstacles`` list order. BabyAI levels are not covered: their state holds the
level's instruction tree (``LevelState``) and their mission is a word-id array, neither of
which MiniGrid's objects carry in a form to copy, so `MiniGridLayouts` raises `ValueError`.

Nothing here imports ``minigrid``: the functions read a MiniGrid env's attributes
(``grid.encode()``, ``agent_pos``, ``mission``, ...), so whoever built the env installed it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import numpy as np

from horizax.grid import cells, missions
from horizax.grid import constants as C
from horizax.grid.state import State

__all__ = [
    "MiniGridLayouts",
    "carried_encoding",
    "data_files",
    "grid_encoding",
    "mission_from_minigrid",
    "object_encoding",
    "state_from_minigrid",
]

_FIXED = {text: template for template, text in missions._FIXED.items()}


def object_encoding(obj: Any) -> tuple[int, int, int]:
    """horizax's encoding of one MiniGrid object (``None``: the empty cell).

    Its ``encode()``, except a box, whose state channel holds what it contains
    (`horizax.grid.cells.box_cell`).
    """
    if obj is None:
        return C.EMPTY_CELL
    if obj.type == "box" and obj.contains is not None:
        content = obj.contains.encode()
        return cells.box_cell(int(obj.encode()[1]), (int(content[0]), int(content[1])))
    kind, colour, status = obj.encode()
    return int(kind), int(colour), int(status)


def grid_encoding(mg: Any) -> np.ndarray:
    """u8[W, H, 3]: MiniGrid env ``mg``'s ``grid.encode()`` with box contents filled in."""
    grid = mg.grid
    # One pass over MiniGrid's row-major cell list (index y * width + x), each cell encoded
    # once: half the time of `Grid.encode` (which writes the array cell by cell) plus a
    # second pass for the boxes, and tests convert hundreds of thousands of grids.
    codes = [object_encoding(obj) for obj in grid.grid]
    rows = np.array(codes, dtype=np.uint8).reshape(grid.height, grid.width, 3)
    return np.ascontiguousarray(rows.transpose(1, 0, 2))


def carried_encoding(mg: Any) -> np.ndarray:
    """u8[3]: the encoding of what ``mg``'s agent carries (the empty cell if nothing)."""
    return np.array(object_encoding(mg.carrying), dtype=np.uint8)


def _door_at(grid: np.ndarray, colour: int) -> tuple[int, int]:
    (xs, ys) = np.nonzero((grid[..., 0] == C.DOOR) & (grid[..., 1] == colour))
    if len(xs) != 1:
        raise ValueError(f"expected one {C.COLOR_NAMES[colour]} door, found {len(xs)}")
    return int(xs[0]), int(ys[0])


def _index(table: tuple[str, ...], name: str, text: str) -> int:
    if name not in table:
        raise ValueError(f"unknown word {name!r} in MiniGrid mission {text!r}")
    return table.index(name)


def mission_from_minigrid(mg: Any) -> np.ndarray:
    """i32[MISSION_SIZE]: horizax's mission array of ``mg``'s current mission.

    Parsed from the mission string; the positions the string does not say are read from
    the env (GoTo*'s and PutNear's ``target_pos``, Memory's ``success_pos`` and
    ``failure_pos``, RedBlueDoors' doors in the grid).

    Raises:
        ValueError: a mission no ``MiniGrid-*`` family has.
    """
    text = str(mg.mission)
    words = text.split()
    template = _FIXED.get(text)
    kw: dict[str, Any] = {}
    if template == missions.Template.MEMORY:
        kw = {"pos": tuple(mg.success_pos), "pos2": tuple(mg.failure_pos)}
    elif template == missions.Template.RED_BLUE_DOORS:
        grid = grid_encoding(mg)
        kw = {"pos": _door_at(grid, C.RED), "pos2": _door_at(grid, C.BLUE)}
    elif template is not None:
        pass
    elif text.startswith("go to the ") and len(words) == 5:
        colour = _index(C.COLOR_NAMES, words[3], text)
        kind = _index(C.OBJECT_NAMES, words[4], text)
        template = missions.Template.GO_TO_OBJECT
        if kind == C.DOOR:
            template = missions.Template.GO_TO_DOOR
        kw = {"color": colour, "kind": kind, "pos": tuple(mg.target_pos)}
    elif text.startswith("put the ") and len(words) == 8:
        template = missions.Template.PUT_NEAR
        kw = {
            "color": _index(C.COLOR_NAMES, words[2], text),
            "kind": _index(C.OBJECT_NAMES, words[3], text),
            "color2": _index(C.COLOR_NAMES, words[6], text),
            "kind2": _index(C.OBJECT_NAMES, words[7], text),
            "pos": tuple(mg.target_pos),
        }
    elif text.startswith("pick up the ") and len(words) == 5:
        template = missions.Template.PICK_UP
        kw = {
            "color": _index(C.COLOR_NAMES, words[3], text),
            "kind": _index(C.OBJECT_NAMES, words[4], text),
        }
    elif text.startswith("get the ") and " room, unlock the " in text:
        template = missions.Template.LOCKED_ROOM
        kw = {
            "color": _index(C.COLOR_NAMES, words[2], text),
            "color2": _index(C.COLOR_NAMES, words[6], text),
        }
    elif len(words) >= 4 and " ".join(words[:-2]) in missions.FETCH_PHRASES:
        template = missions.Template.FETCH
        kw = {
            "color": _index(C.COLOR_NAMES, words[-2], text),
            "kind": _index(C.OBJECT_NAMES, words[-1], text),
            "variant": missions.FETCH_PHRASES.index(" ".join(words[:-2])),
        }
    else:
        raise ValueError(f"no horizax mission for MiniGrid's {text!r}")
    kw = {k: tuple(int(x) for x in v) if isinstance(v, tuple) else v for k, v in kw.items()}
    # numpy, not `missions.encode` (jnp): called per reset, eager jnp would dispatch per slot.
    array = np.full(missions.MISSION_SIZE, -1, np.int32)
    array[: missions.X] = 0
    array[missions.TEMPLATE] = int(template)
    for name, slot in (("color", missions.COLOR), ("kind", missions.KIND)):
        array[slot] = kw.get(name, 0)
    for name, slot in (("color2", missions.COLOR2), ("kind2", missions.KIND2)):
        array[slot] = kw.get(name, 0)
    array[missions.VARIANT] = kw.get("variant", 0)
    array[missions.X : missions.Y + 1] = kw.get("pos", (-1, -1))
    array[missions.X2 : missions.Y2 + 1] = kw.get("pos2", (-1, -1))
    return array


def _extra(mg: Any, template: Any) -> Any:
    """The family's private state in the structure of ``template`` (its layouts' extra)."""
    leaves, treedef = jax.tree.flatten(template)
    if not leaves:
        return template
    obstacles = getattr(mg, "obstacles", None)
    # Dynamic-Obstacles: one leaf, i32[n], the balls' flat cells x * height + y in move
    # order, which is MiniGrid's `obstacles` order (the family is not imported: it imports
    # the grid's core, which imports this module).
    if obstacles is not None and len(leaves) == 1 and leaves[0].shape == (len(obstacles),):
        flat = [int(o.cur_pos[0]) * int(mg.height) + int(o.cur_pos[1]) for o in obstacles]
        return jax.tree.unflatten(treedef, [np.asarray(flat, np.int32)])
    raise ValueError(f"cannot copy the private state {treedef} of this family from MiniGrid")


def state_from_minigrid(
    mg: Any,
    key: Any = None,
    mission_fn: Any = None,
    extra: Any = (),
) -> State:
    """A horizax `State` equal to MiniGrid env ``mg``'s current state (numpy leaves).

    Args:
        mg: the unwrapped MiniGrid env (reset).
        key: the PRNG key to store (u32[2]); default ``jax.random.PRNGKey(0)``'s data.
        mission_fn: ``mg -> i32[MISSION_SIZE]``; default `mission_from_minigrid`.
        extra: the family's private state (`State.extra`), e.g. from `MiniGridLayouts`.

    Returns:
        A `State`: grid u8[W, H, 3], agent_pos i32[2], agent_dir i32[], carrying u8[3],
        step_count and max_steps i32[] (MiniGrid's), mission i32[MISSION_SIZE], key.
    """
    # numpy leaves: jit takes them as it takes jax arrays, without a dispatch per field
    # (typed Any: `State` declares jax arrays).
    fields: dict[str, Any] = {
        "grid": grid_encoding(mg),
        "agent_pos": np.asarray(mg.agent_pos, dtype=np.int32),
        "agent_dir": np.asarray(mg.agent_dir, dtype=np.int32),
        "carrying": carried_encoding(mg),
        "step_count": np.asarray(mg.step_count, np.int32),
        "max_steps": np.asarray(mg.max_steps, np.int32),
        "mission": np.asarray((mission_fn or mission_from_minigrid)(mg), np.int32),
        "extra": extra,
        "key": np.zeros(2, np.uint32) if key is None else key,
    }
    return State(**fields)


class MiniGridLayouts:
    """Copies MiniGrid's layouts into states of one horizax gridworld.

    Args:
        env: the horizax `horizax.grid.environment.Environment`.

    Attributes:
        reference_id: the MiniGrid id whose layouts are copied (the environment's id).
        data_files: files MiniGrid's env for it reads that MiniGrid's wheel lacks, by file
            name: the WFC ids' pattern images, which horizax ships; empty for the others.

    Raises:
        ValueError: for a BabyAI level or an environment without an id (see the module
            docstring).
    """

    def __init__(self, env: Any) -> None:
        if env.mission_size != missions.MISSION_SIZE:
            raise ValueError(
                f"layouts='minigrid' covers the MiniGrid-* ids, not the BabyAI level "
                f"{env.env_id!r}: its state holds the level's instruction tree, which "
                "MiniGrid's env does not expose to copy; use layouts='horizax'"
            )
        if not env.env_id:
            raise ValueError("layouts='minigrid' needs an environment made from an id")
        self.env = env
        self.reference_id = env.env_id
        self.data_files = data_files(env.env_id)
        shapes = jax.eval_shape(env.layout_fn, jax.ShapeDtypeStruct((2,), np.uint32)).extra
        self._extra_template = jax.tree.map(lambda s: np.zeros(s.shape, s.dtype), shapes)

    def state(self, mg: Any, key: Any) -> State:
        """The horizax `State` of MiniGrid env ``mg`` just reset, holding ``key``.

        Its ``max_steps`` is the horizax environment's (an override applies).

        Raises:
            ValueError: ``mg``'s grid is not the environment's size.
        """
        if (mg.width, mg.height) != (self.env.width, self.env.height):
            raise ValueError(
                f"MiniGrid's {self.reference_id} is {mg.width}x{mg.height}, the horizax "
                f"environment {self.env.width}x{self.env.height}: an override changed one"
            )
        state = state_from_minigrid(mg, key, extra=_extra(mg, self._extra_template))
        return state.replace(max_steps=np.asarray(self.env.max_steps, np.int32))


def data_files(env_id: str) -> dict[str, Path]:
    """Files MiniGrid's env for ``env_id`` reads that MiniGrid 3.2.0's wheel lacks, by file
    name: the pattern images horizax ships, for a WFC id; empty for the others."""
    if not env_id.startswith("MiniGrid-WFC-"):
        return {}
    from horizax.grid.wfc import presets

    return {path.name: path for path in sorted(presets.PATTERN_DIR.glob("*.png"))}
