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
* `rgb`, `rgb_first_person` -- MiniGrid's frames pixel for pixel (`horizax.grid.render`), as
  its ``RGBImgObsWrapper`` and ``RGBImgPartialObsWrapper`` give them with their defaults:
  tiles of 8 pixels, u8[H*8, W*8, 3] and u8[56, 56, 3], image convention (rows = y). The full
  frame highlights what the agent sees; the first-person frame highlights it too and empties
  occluded cells. `rgb_observation` and `rgb_first_person_observation` choose another tile
  size (and highlight); each follows the environment's ``see_through_walls`` (`RGBObservation`).

Spaces: `observation_space` derives any observation function's `Box`, a user's own
included: shape and dtype from `jax.eval_shape` on a state of the grid's size, bounds from
`horizax.core.spaces.with_bounds` where the function declares them (every function here
does; a `functools.partial` keeps its function's bounds), else the dtype's full range.
"""

from __future__ import annotations

import dataclasses
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
    "RGB_TILE_SIZE",
    "ObservationFn",
    "RGBObservation",
    "categorical",
    "categorical_first_person",
    "observation_space",
    "rgb",
    "rgb_first_person",
    "rgb_first_person_observation",
    "rgb_observation",
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


RGB_TILE_SIZE = 8
"""The tile edge of the RGB observations: MiniGrid's ``RGBImg(Partial)ObsWrapper`` default."""


@dataclasses.dataclass(frozen=True)
class RGBObservation:
    """An RGB observation function: MiniGrid's frame of a state, pixel for pixel.

    Call it as ``fn(state) -> u8[H*T, W*T, 3]`` (the full grid, `render.render_grid`) or
    ``u8[7*T, 7*T, 3]`` (``first_person``, `render.render_view`). Build one with
    `rgb_observation` or `rgb_first_person_observation`.

    Which cells the agent sees (highlighted, and shown in the first-person frame) depends on
    MiniGrid's ``see_through_walls``. ``None`` follows the environment: an `Environment`
    given this function binds it to its own ``see_through_walls``; called on its own it
    means False, MiniGrid's default.

    Attributes:
        first_person: the agent's view (``RGBImgPartialObsWrapper``) instead of the grid
            (``RGBImgObsWrapper``).
        tile_size: the tile edge T in pixels.
        highlight: highlight the cells the agent sees (full grid only: the first-person
            frame always does, as MiniGrid's).
        see_through_walls: the view without occlusion; None follows the environment.
    """

    first_person: bool = False
    tile_size: int = RGB_TILE_SIZE
    highlight: bool = True
    see_through_walls: bool | None = None

    def __post_init__(self) -> None:
        size = self.tile_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"tile_size must be a positive int, got {size!r}")
        for name in ("first_person", "highlight"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if self.see_through_walls is not None and not isinstance(self.see_through_walls, bool):
            raise ValueError(
                f"see_through_walls must be a bool or None, got {self.see_through_walls!r}"
            )

    @property
    def __name__(self) -> str:
        return "rgb_first_person" if self.first_person else "rgb"

    def bound_to(self, see_through_walls: bool) -> RGBObservation:
        """This function for an environment with that ``see_through_walls`` (an explicit
        setting wins)."""
        if self.see_through_walls is not None:
            return self
        return dataclasses.replace(self, see_through_walls=see_through_walls)

    def __call__(self, state: State) -> Array:
        see_through = bool(self.see_through_walls)
        if self.first_person:
            return render.render_view(state, self.tile_size, see_through)
        return render.render_grid(state, self.tile_size, self.highlight, see_through)


# Every RGB observation's values are colours: the class carries the declared bounds.
with_bounds(0, 255)(RGBObservation)


def rgb_observation(
    tile_size: int = RGB_TILE_SIZE, highlight: bool = True, see_through_walls: bool | None = None
) -> RGBObservation:
    """MiniGrid's ``RGBImgObsWrapper(env, tile_size)`` image: u8[H*T, W*T, 3].

    Args:
        tile_size: the tile edge T in pixels (MiniGrid's default 8).
        highlight: highlight the cells the agent sees (MiniGrid's env default, True).
        see_through_walls: None follows the environment (see `RGBObservation`).
    """
    return RGBObservation(False, tile_size, highlight, see_through_walls)


def rgb_first_person_observation(
    tile_size: int = RGB_TILE_SIZE, see_through_walls: bool | None = None
) -> RGBObservation:
    """MiniGrid's ``RGBImgPartialObsWrapper(env, tile_size)`` image: u8[7*T, 7*T, 3].

    Args:
        tile_size: the tile edge T in pixels (MiniGrid's default 8).
        see_through_walls: None follows the environment (see `RGBObservation`).
    """
    return RGBObservation(True, tile_size, True, see_through_walls)


rgb = rgb_observation()
"""u8[H*8, W*8, 3]: MiniGrid's ``RGBImgObsWrapper`` image (8-pixel tiles, highlighted)."""

rgb_first_person = rgb_first_person_observation()
"""u8[56, 56, 3]: MiniGrid's ``RGBImgPartialObsWrapper`` image (8-pixel tiles)."""


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
