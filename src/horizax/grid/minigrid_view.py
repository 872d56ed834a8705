"""MiniGrid's object model of a gridworld's state, for MiniGrid's own wrappers.

Farama MiniGrid's wrappers (``FullyObsWrapper``, ``RGBImgObsWrapper``, ``ViewSizeWrapper``,
``SymbolicObsWrapper``, ``NoDeath``, ``PositionBonus``, ``DirectionObsWrapper``, ...) read the
environment's objects from ``env.unwrapped``: ``grid`` (a ``minigrid.core.grid.Grid`` of
``minigrid.core.world_object`` objects), ``agent_pos``, ``agent_dir``, ``carrying``,
``mission``, ``get_frame``, ``gen_obs_grid``, ``pprint_grid``, ... `MiniGridObjectModel`
builds those attributes from a horizax `horizax.grid.state.State`; the gridworld's protocol
view offers it (``GridFunctional.object_model()``), and the Gymnasium adapter shows it as
attributes of every gridworld env (`horizax.adapters.object_model`), without naming the
family:

* `to_grid` converts the u8[W, H, 3] encoding into real MiniGrid objects (boxes with what they
  hold, doors open, closed or locked), `to_object` one cell (the carried object too).
* `state_view` fills a MiniGrid env shell (a ``MiniGridEnv`` that cannot generate layouts)
  with that grid, the agent, the hand, the mission string and the step count. Its methods are
  MiniGrid's own, so ``gen_obs_grid``, ``gen_obs``, ``get_frame`` (MiniGrid's rasteriser),
  ``pprint_grid``, ``agent_sees``, ``front_pos``, ``hash`` and the rest answer exactly as
  MiniGrid does on the same state, and wrappers built on them agree with MiniGrid's by
  construction.

The view is read-only: it is rebuilt from the horizax state after every ``reset`` and
``step`` (and only when an attribute is read), so changes made to it (``grid.set``,
``agent_pos = ...``) are not written back; assigning one of the state attributes on the
Gymnasium env raises `AttributeError`. The rendering options ``highlight``, ``tile_size`` and
``agent_pov`` may be set; they affect the view's ``render`` and ``get_frame`` defaults (the
Gymnasium env's own ``render()`` stays horizax's renderer). ``agent_view_size`` is fixed (the
jitted observation is 7 x 7); MiniGrid's ``ViewSizeWrapper`` works without changing it,
through ``gen_obs_grid(agent_view_size)``. ``goal_pos`` and ``goal_position`` (attributes of
some MiniGrid families: DistShift, LavaGap, the Crossings) are the position of the grid's
single goal here, for every family that has one.

Requires the optional dependency ``minigrid`` (the ``reference`` extra pins it:
``pip install 'horizax[reference]'`` or ``pip install minigrid==3.2.0``); it is imported the
first time the object model is read, and its absence raises `ImportError` then, never when
the adapter is imported or used otherwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from horizax.grid import cells, missions, observations
from horizax.grid import constants as C
from horizax.grid.state import State

__all__ = [
    "OBJECT_MODEL",
    "SETTABLE",
    "MiniGridObjectModel",
    "empty_view",
    "require_minigrid",
    "state_view",
    "to_grid",
    "to_object",
]

# What MiniGrid's wrappers and users read from ``env.unwrapped`` (besides ``max_steps``,
# ``np_random``, ``observation_space`` and ``action_space``, which the adapter has itself).
OBJECT_MODEL = frozenset(
    {
        "grid", "agent_pos", "agent_dir", "carrying", "width", "height", "mission",
        "step_count", "steps_remaining", "agent_view_size", "see_through_walls", "actions",
        "highlight", "tile_size", "agent_pov", "reward_range", "goal_pos", "goal_position",
        "dir_vec", "right_vec", "front_pos", "get_frame", "get_pov_render", "get_full_render",
        "gen_obs_grid", "gen_obs", "pprint_grid", "agent_sees", "in_view",
        "relative_coords", "get_view_coords", "get_view_exts", "hash",
    }
)  # fmt: skip
# Rendering options of the view that users may set (MiniGrid reads them in render()).
SETTABLE = frozenset({"highlight", "tile_size", "agent_pov"})

_EXTRA = "pip install 'horizax[reference]' (or: pip install minigrid==3.2.0)"


def require_minigrid() -> Any:
    """The ``minigrid`` package, imported on first use.

    Raises:
        ImportError: naming the extra that installs it.
    """
    try:
        import minigrid
        import minigrid.core.grid
        import minigrid.core.mission
        import minigrid.core.world_object
        import minigrid.minigrid_env
    except ImportError as err:
        raise ImportError(
            "MiniGrid's object model (env.unwrapped.grid, agent_pos, get_frame, ...) of a "
            f"horizax gridworld needs the optional dependency minigrid: {_EXTRA}. "
            f"Original error: {err}"
        ) from err
    return minigrid


def to_object(cell: Any) -> Any:
    """The MiniGrid object of one horizax cell encoding (None for an empty cell).

    Args:
        cell: u8[3] ``(object, colour, state)``; a box's state holds what it contains
            (`horizax.grid.cells.box_cell`).

    Raises:
        ValueError: for an encoding that no MiniGrid object has (unseen, agent, unknown).
    """
    world_object = require_minigrid().core.world_object
    kind, colour, state = (int(v) for v in np.asarray(cell))
    if kind == C.EMPTY:
        return None
    if kind in (C.UNSEEN, C.AGENT) or not 0 <= kind < C.NUM_OBJECTS:
        raise ValueError(f"cell {(kind, colour, state)} is not an object of the grid")
    if kind == C.BOX:
        # The content packed in the state channel (`cells.box_cell`), unpacked in numpy:
        # `cells.box_content` is a jnp function, a dispatch per cell here.
        inside = None
        if state:
            content_kind = state >> cells.CONTENT_KIND_SHIFT
            content_colour = (state >> cells.CONTENT_COLOUR_SHIFT) & 7
            inside = to_object((content_kind, content_colour, 0))
        return world_object.Box(C.COLOR_NAMES[colour], contains=inside)
    return world_object.WorldObj.decode(kind, colour, state & cells.VISIBLE_MASK[2])


def to_grid(grid: Any) -> Any:
    """A ``minigrid.core.grid.Grid`` equal to a horizax grid encoding.

    Args:
        grid: u8[W, H, 3] indexed ``[x, y]`` (`horizax.grid.state.State.grid`).

    Returns:
        The grid; each object's ``cur_pos`` is its cell, as MiniGrid's ``put_obj`` sets it.
    """
    mg_grid = require_minigrid().core.grid.Grid
    array = np.asarray(grid)
    width, height = array.shape[:2]
    out = mg_grid(width, height)
    for x in range(width):
        for y in range(height):
            obj = to_object(array[x, y])
            if obj is not None:
                obj.cur_pos = (x, y)
                out.set(x, y, obj)
    return out


def _shell_class() -> type:
    """A ``MiniGridEnv`` subclass that holds a state but cannot draw layouts."""
    base = require_minigrid().minigrid_env.MiniGridEnv

    class HorizaxStateView(base):  # type: ignore[misc, valid-type]
        """MiniGrid's env methods over a copy of a horizax state (see `state_view`)."""

        def _gen_grid(self, width: int, height: int) -> None:
            raise NotImplementedError(
                "a view of a horizax state cannot generate layouts: reset the horizax env"
            )

    return HorizaxStateView


def empty_view(width: int, height: int, max_steps: int, see_through_walls: bool) -> Any:
    """A MiniGrid env shell before any reset: an empty grid, no agent (``pprint_grid`` raises
    MiniGrid's error)."""
    mission_space = require_minigrid().core.mission.MissionSpace(mission_func=lambda: "")
    return _shell_class()(
        mission_space=mission_space,
        width=width,
        height=height,
        max_steps=max_steps,
        see_through_walls=see_through_walls,
        agent_view_size=C.AGENT_VIEW_SIZE,
    )


def state_view(shell: Any, state: State) -> Any:
    """Fills ``shell`` (from `empty_view`) with an unbatched horizax ``state``; returns it."""
    shell.grid = to_grid(state.grid)
    shell.agent_pos = tuple(int(v) for v in np.asarray(state.agent_pos))
    shell.agent_dir = int(state.agent_dir)
    carried = to_object(state.carrying)
    if carried is not None:
        carried.cur_pos = np.array([-1, -1])  # where MiniGrid puts a picked-up object
    shell.carrying = carried
    shell.step_count = int(state.step_count)
    shell.mission = missions.mission_text(state)
    return shell


def _goal_pos(view: Any) -> tuple[int, int]:
    goals = [
        (x, y)
        for x in range(view.width)
        for y in range(view.height)
        if (obj := view.grid.get(x, y)) is not None and obj.type == "goal"
    ]
    if len(goals) != 1:
        raise AttributeError(f"goal_pos: the grid holds {len(goals)} goals, not one")
    return goals[0]


class MiniGridObjectModel:
    """MiniGrid's object model of one gridworld `Environment`: the provider that
    `horizax.adapters.object_model` reads (the protocol's optional ``object_model()``).

    Args:
        env: the gridworld (`horizax.grid.environment.Environment`) whose states are viewed.

    Attributes:
        names: the attributes of the model (`OBJECT_MODEL`).
        settable: the rendering options users may set (`SETTABLE`).
    """

    names = OBJECT_MODEL
    settable = SETTABLE

    def __init__(self, env: Any) -> None:
        # `Any`, not `Environment`: environment.py imports this module (no cycle).
        self.env = env

    def new_view(self) -> Any:
        """A MiniGrid env shell before any reset (`empty_view`); needs ``minigrid``."""
        see_through = self.env.observation_fn is observations.symbolic_first_person_see_through
        return empty_view(self.env.width, self.env.height, self.env.max_steps, see_through)

    def update(self, view: Any, state: State) -> Any:
        """Fills ``view`` with an unbatched ``state`` (`state_view`); returns it."""
        return state_view(view, state)

    def read(self, view: Any, name: str) -> Any:
        """The attribute ``name`` of `names` on a filled view (``goal_pos`` and
        ``goal_position``: the grid's single goal).

        Raises:
            AttributeError: ``goal_pos`` of a grid without exactly one goal.
        """
        if name in ("goal_pos", "goal_position"):
            return _goal_pos(view)
        return getattr(view, name)
