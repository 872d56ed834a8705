"""Pictures of Maze states: a numpy frame, and a matplotlib viewer with GIF animation.

`rgb_frame` needs numpy only. `MazeViewer` imports matplotlib when it first draws (install
the ``maze`` extra: ``pip install horizax[maze]``); GIFs are written by matplotlib's Pillow
writer. Colours follow jumanji's maze: floor white, walls black, agent green, target red.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from horizax.maze.types import State

__all__ = ["COLORS", "MazeViewer", "rgb_frame"]

FLOOR, WALL, AGENT, TARGET = 0, 1, 2, 3
COLORS = np.array([[255, 255, 255], [0, 0, 0], [0, 200, 0], [220, 0, 0]], np.uint8)
RENDER_MODES = ("human", "rgb_array")


def _cells(state: State) -> np.ndarray:
    """i32[R, C] of FLOOR / WALL / AGENT / TARGET codes; the target is drawn over the agent."""
    cells = np.asarray(state.walls).astype(np.int32)
    if cells.ndim != 2:
        raise ValueError(f"render one unbatched state: walls must be bool[R, C], got {cells.shape}")
    cells[int(state.agent_position.row), int(state.agent_position.col)] = AGENT
    cells[int(state.target_position.row), int(state.target_position.col)] = TARGET
    return cells


def rgb_frame(state: State, cell_size: int = 16) -> np.ndarray:
    """u8[R * cell_size, C * cell_size, 3]: one square of ``cell_size`` pixels per cell.

    Args:
        state: one (unbatched) `State`.
        cell_size: pixels per cell side (>= 1).
    """
    if cell_size < 1:
        raise ValueError(f"cell_size must be >= 1, got {cell_size}")
    image = COLORS[_cells(state)]
    return np.repeat(np.repeat(image, cell_size, axis=0), cell_size, axis=1)


class MazeViewer:
    """Draws Maze states with matplotlib.

    Args:
        name: the figure title.
        render_mode: "human" (draw in a window; `render` returns None) or "rgb_array"
            (`render` returns the figure as u8[H, W, 3]).

    Raises:
        ValueError: an unknown render mode.
    """

    def __init__(self, name: str = "Maze", render_mode: str = "human") -> None:
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}, got {render_mode!r}")
        self.name = name
        self.render_mode = render_mode
        self._figure: Any = None
        self._animation: Any = None

    def __getstate__(self) -> dict[str, Any]:
        # A figure belongs to this process's GUI; an unpickled viewer opens its own.
        return {**self.__dict__, "_figure": None, "_animation": None}

    def _draw(self, ax: Any, state: State) -> None:
        ax.clear()
        ax.set_axis_off()
        # A one-cell black frame around the maze, as jumanji draws it.
        image = np.pad(COLORS[_cells(state)], ((1, 1), (1, 1), (0, 0)))
        ax.imshow(image, interpolation="nearest")

    def _axes(self) -> Any:
        import matplotlib.pyplot as plt

        if self._figure is None or not plt.fignum_exists(self._figure.number):
            self._figure = plt.figure(self.name, figsize=(6.0, 6.0))
        self._figure.clear()
        return self._figure.add_subplot(111)

    def render(self, state: State, save_path: str | None = None) -> np.ndarray | None:
        """Draws ``state``.

        Args:
            state: one (unbatched) `State`.
            save_path: also save the figure as an image file here.

        Returns:
            u8[H, W, 3] in "rgb_array" mode, else None.
        """
        import matplotlib.pyplot as plt

        ax = self._axes()
        self._draw(ax, state)
        figure = self._figure
        if save_path:
            figure.savefig(save_path, bbox_inches="tight", pad_inches=0.2)
        figure.canvas.draw()
        if self.render_mode == "rgb_array":
            return np.asarray(figure.canvas.buffer_rgba())[..., :3].copy()
        if plt.get_backend().lower() != "agg":  # a window to update; Agg has none
            plt.pause(0.001)
        return None

    def animate(
        self, states: Sequence[State], interval: int = 200, save_path: str | None = None
    ) -> Any:
        """A `matplotlib.animation.FuncAnimation` with one frame per state.

        Args:
            states: a sequence of unbatched states (e.g. an episode).
            interval: milliseconds between frames.
            save_path: write the animation here as a GIF (matplotlib's Pillow writer).

        Returns:
            The animation.
        """
        import matplotlib.animation
        import matplotlib.pyplot as plt

        states = list(states)
        if not states:
            raise ValueError("animate needs at least one state")
        figure = plt.figure(f"{self.name} animation", figsize=(6.0, 6.0))
        ax = figure.add_subplot(111)
        plt.close(figure)  # drawn into the animation only, not shown as a window

        def frame(state: State) -> tuple[Any]:
            self._draw(ax, state)
            return (ax,)

        self._animation = matplotlib.animation.FuncAnimation(
            figure, frame, frames=states, interval=interval, cache_frame_data=False
        )
        if save_path:
            fps = max(1, round(1000 / interval))
            self._animation.save(save_path, writer=matplotlib.animation.PillowWriter(fps=fps))
        return self._animation

    def close(self) -> None:
        """Closes the viewer's figure."""
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None
