"""Observation functions ``fn(state) -> Array``; each carries its space.

Names follow navix; semantics follow Farama MiniGrid 3.2.0:

* `symbolic_first_person` -- MiniGrid's egocentric ``image``: u8[7, 7, 3] indexed
  ``[i, j]`` (i across the view, j from far (0) to the agent's row (6)), the agent at
  ``(3, 6)`` facing up, with MiniGrid's exact occlusion (`horizax.grid.view`), unseen cells
  ``(0, 0, 0)``, off-grid cells walls, and the agent's own cell showing what it carries.
  Boxes show ``state = 0`` whatever they hold (`cells.visible`), as in MiniGrid.
* `symbolic_first_person_see_through` -- the same without occlusion, for the MiniGrid
  families built with ``see_through_walls=True``.
* `symbolic` -- the full grid, u8[W, H, 3] indexed ``[x, y]``, with the agent encoded as
  ``(AGENT, red, direction)`` like MiniGrid's ``FullyObsWrapper``.
* `categorical`, `categorical_first_person` -- the object channel alone, u8[W, H] / u8[7, 7].
* `rgb`, `rgb_first_person` -- rendered tiles (`horizax.grid.render`), u8[H*T, W*T, 3] and
  u8[7*T, 7*T, 3], image convention (rows = y).

Spaces: `observation_space` derives any observation function's `Box`, a user's own
included: shape and dtype from `jax.eval_shape` on a state of the grid's size, bounds from
`horizax.core.spaces.with_bounds` where the function declares them (every function here
does; a `functools.partial` keeps its function's bounds), else the dtype's full range.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core.spaces import Box, space_of, with_bounds
from horizax.grid import cells, render, view
from horizax.grid import constants as C
from horizax.grid.state import State, make_state

__all__ = [
    "ObservationFn",
    "categorical",
    "categorical_first_person",
    "observation_space",
    "rgb",
    "rgb_first_person",
    "symbolic",
    "symbolic_first_person",
    "symbolic_first_person_see_through",
]

VIEW = C.AGENT_VIEW_SIZE
# Per channel: object index, colour, state (a door's 0-2, an agent's direction 0-3).
_SYMBOLIC_HIGH = np.array([C.NUM_OBJECTS - 1, C.NUM_COLORS - 1, 3], dtype=np.uint8)

symbolic_first_person = with_bounds(0, _SYMBOLIC_HIGH)(view.symbolic_first_person)
symbolic_first_person_see_through = with_bounds(0, _SYMBOLIC_HIGH)(
    view.symbolic_first_person_see_through
)


@with_bounds(0, _SYMBOLIC_HIGH)
def symbolic(state: State) -> Array:
    """u8[W, H, 3]: the full grid with the agent as ``(AGENT, red, direction)``."""
    agent = jnp.stack([jnp.int32(C.AGENT), jnp.int32(C.RED), state.agent_dir]).astype(jnp.uint8)
    return cells.put_inside(cells.visible(state.grid), state.agent_pos, agent)


@with_bounds(0, C.NUM_OBJECTS - 1)
def categorical(state: State) -> Array:
    """u8[W, H]: object indices of the full grid, the agent as ``AGENT``."""
    return symbolic(state)[..., 0]


@with_bounds(0, C.NUM_OBJECTS - 1)
def categorical_first_person(state: State) -> Array:
    """u8[7, 7]: object indices of the egocentric view."""
    return symbolic_first_person(state)[..., 0]


@with_bounds(0, 255)
def rgb(state: State) -> Array:
    """u8[H*T, W*T, 3]: the full grid rendered with the default tile size."""
    return render.render_grid(state)


@with_bounds(0, 255)
def rgb_first_person(state: State) -> Array:
    """u8[7*T, 7*T, 3]: the egocentric view rendered with the default tile size."""
    return render.render_view(state)


ObservationFn = Callable[[State], Array]


def example_state(width: int, height: int) -> State:
    """The shapes and dtypes (`jax.ShapeDtypeStruct` s) of a `State` on a grid of that size."""
    return jax.eval_shape(
        lambda: make_state(
            jnp.zeros((width, height, 3), jnp.uint8), jnp.zeros(2, jnp.int32), jnp.int32(0)
        )
    )


def observation_space(fn: ObservationFn, width: int, height: int) -> Box:
    """The `Box` an observation function produces on a ``width`` x ``height`` grid.

    Works for any ``fn(state) -> Array``, not only this module's (see the module docstring).

    Raises:
        TypeError: if ``fn`` does not return a single array.
    """
    return space_of(fn, example_state(width, height))
