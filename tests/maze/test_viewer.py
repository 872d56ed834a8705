"""Matplotlib rendering (Agg backend): rgb_array frames, human mode, GIF animation."""

import jax
import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
PIL_Image = pytest.importorskip("PIL.Image")
matplotlib.use("Agg")

from horizax.maze import Maze, RandomGenerator, ToyGenerator  # noqa: E402
from horizax.maze.viewer import COLORS, MazeViewer  # noqa: E402


@pytest.fixture(scope="module")
def toy_states():
    env = Maze(ToyGenerator())
    state, _ = env.reset(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    states = [state]
    for action in (2, 2, 2, 1):
        state, _ = step(state, action)
        states.append(state)
    return states


def _has_colour(frame, colour, min_pixels=50):
    return int((frame == colour).all(axis=-1).sum()) >= min_pixels


def test_rgb_array_frame_shows_walls_agent_and_target(toy_states):
    viewer = MazeViewer(render_mode="rgb_array")
    frame = viewer.render(toy_states[0])
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
    assert frame.ndim == 3 and frame.shape[2] == 3 and min(frame.shape[:2]) > 100
    for colour in COLORS:  # floor, wall, agent, target are all visible
        assert _has_colour(frame, colour), colour
    moved = viewer.render(toy_states[-1])
    assert moved.shape == frame.shape and not np.array_equal(moved, frame)
    viewer.close()


def test_maze_render_defaults_to_human_mode(toy_states, tmp_path):
    env = Maze(ToyGenerator())
    assert env.render(toy_states[0]) is None  # "human": draws, returns nothing
    env.close()
    rgb = Maze(RandomGenerator(4, 4), viewer=MazeViewer(render_mode="rgb_array"))
    state, _ = rgb.reset(jax.random.PRNGKey(1))
    assert rgb.render(state).dtype == np.uint8
    path = tmp_path / "frame.png"
    MazeViewer(render_mode="rgb_array").render(state, save_path=str(path))
    assert path.stat().st_size > 0
    rgb.close()


def test_animate_writes_a_gif_with_one_frame_per_state(toy_states, tmp_path):
    path = tmp_path / "episode.gif"
    animation = Maze(ToyGenerator()).animate(toy_states, interval=100, save_path=str(path))
    assert animation is not None
    with PIL_Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == len(toy_states)
        gif.seek(0)
        first = np.asarray(gif.convert("RGB"))
        gif.seek(gif.n_frames - 1)
        last = np.asarray(gif.convert("RGB"))
    assert not np.array_equal(first, last)  # the agent moved between the frames


def test_bad_arguments():
    with pytest.raises(ValueError, match="render_mode"):
        MazeViewer(render_mode="ansi")
    with pytest.raises(ValueError, match="at least one state"):
        MazeViewer().animate([])
