"""One episode of any id as pictures: `record_episode` plays it, `write_frames` saves it.

`record_episode` steps one environment (autoreset off, so the episode's real end is drawn)
with a uniform random policy or any ``policy_fn(keys, observation)`` in `VectorEnv.rollout`'s
convention (a trained `horizax.train.ppo.PPO`'s ``policy(state)`` is one), and draws every
state with the family's ``render`` (numpy only: gridworlds MiniGrid's tiles, the Maze its
cells, the orbital games the top view). `write_frames` writes the frames as an animated GIF
or as numbered PNGs; it needs Pillow (extra ``render``). ``horizax render`` is both::

    from horizax.recording import record_episode, write_frames

    recording = record_episode("MiniGrid-DoorKey-5x5-v0", seed=0)
    print(recording.length, recording.total_return, recording.ending)
    write_frames(recording.frames, "doorkey.gif", fps=8)
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Recording", "record_episode", "write_frames"]

ENDINGS = ("terminated", "truncated", "running")


@dataclasses.dataclass(frozen=True)
class Recording:
    """One recorded episode.

    Attributes:
        env_id: the id played (``""`` for an environment object).
        frames: u8[H, W, 3] pictures: the reset state, then the state after each step.
        rewards: f32[T], the reward of each step (``T = len(frames) - 1``).
        ending: ``"terminated"`` (the task ended it), ``"truncated"`` (the time limit) or
            ``"running"`` (the recording's ``steps`` ran out first).
    """

    env_id: str
    frames: list[np.ndarray]
    rewards: np.ndarray
    ending: str

    @property
    def length(self) -> int:
        """Steps taken, ``T``."""
        return len(self.rewards)

    @property
    def total_return(self) -> float:
        """The undiscounted sum of the rewards."""
        return float(np.sum(self.rewards))


def record_episode(
    env: Any,
    *,
    seed: int = 0,
    steps: int | None = None,
    policy_fn: Callable[[Any, Any], Any] | None = None,
    **overrides: Any,
) -> Recording:
    """Plays one episode of ``env`` and draws each of its states.

    Args:
        env: a registered id (with ``horizax.make`` ``overrides``) or an environment object.
        seed: seeds the environment (as ``VectorEnv.reset(seed=seed)``) and the policy's keys.
        steps: stop after this many steps even if the episode runs on (default: the
            environment's time limit, so the episode ends; ``max_steps=`` is an override).
        policy_fn: ``policy_fn(keys [1], observation [1, ...]) -> actions [1, ...]``;
            default uniform random over the action space.
        **overrides: ``horizax.make`` overrides, with an id only.

    Returns:
        The `Recording`.

    Raises:
        ValueError: ``seed`` or ``steps`` out of range, an unknown id.
        TypeError: an environment whose family cannot ``render``.
    """
    import jax

    from horizax.core.checks import int_in_range
    from horizax.vector import VectorEnv, random_policy

    seed = int_in_range(seed, "seed", minimum=0, maximum=2**32 - 1)
    venv = VectorEnv(env, 1, autoreset_mode="Disabled", devices=1, **overrides)
    if not callable(getattr(venv.fenv, "render", None)):
        raise TypeError(f"{type(venv.fenv).__name__} has no render(state): nothing to draw")
    limit = getattr(venv.fenv, "max_steps", None)
    if steps is None:
        if limit is None:
            raise ValueError("this environment has no time limit: give steps")
        steps = int(limit)
    steps = int_in_range(steps, "steps")
    policy = policy_fn or random_policy(venv)
    act = jax.jit(lambda keys, observation: policy(keys, observation))
    step = jax.jit(venv.step)

    def draw(env_state: Any) -> np.ndarray:
        return np.asarray(venv.fenv.render(jax.tree.map(lambda x: x[0], env_state.state)))

    env_state, first = venv.reset(seed=seed)
    observation, frames, rewards = first.observation, [draw(env_state)], []
    key, ending = jax.random.PRNGKey(seed), "running"
    for _ in range(steps):
        key, act_key = jax.random.split(key)
        env_state, result, _ = step(env_state, act(act_key[None], observation))
        observation = result.observation
        frames.append(draw(env_state))
        rewards.append(float(np.asarray(result.reward)[0]))
        if bool(np.asarray(result.terminated)[0]) or bool(np.asarray(result.truncated)[0]):
            ending = "terminated" if bool(np.asarray(result.terminated)[0]) else "truncated"
            break
    env_id = env if isinstance(env, str) else ""
    return Recording(env_id, frames, np.asarray(rewards, np.float32), ending)


def write_frames(
    frames: Sequence[np.ndarray], out: str | os.PathLike[str], *, fps: float = 8.0
) -> list[Path]:
    """Writes ``frames`` (u8[H, W, 3] each) as a GIF, or as numbered PNGs in a folder.

    Args:
        frames: the pictures, in order (at least one).
        out: a path ending in ``.gif`` (one animated GIF, looping), or a folder (created if
            missing) that receives ``frame_0000.png``, ``frame_0001.png``, ...
        fps: frames per second of the GIF, in (0, 100].

    Returns:
        The paths written.

    Raises:
        ImportError: Pillow is not installed (the ``render`` extra).
        ValueError: no frames, a frame that is not u8[H, W, 3], frames of different sizes,
            ``fps`` out of range, or ``out`` an existing file that is not a GIF.
    """
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError(
            "writing frames needs Pillow: install the render extra, `pip install 'horizax[render]'`"
        ) from err
    if not 0 < float(fps) <= 100:
        raise ValueError(f"fps must be in (0, 100], got {fps}")
    arrays = [np.asarray(frame) for frame in frames]
    if not arrays:
        raise ValueError("frames is empty: nothing to write")
    for index, array in enumerate(arrays):
        if array.dtype != np.uint8 or array.ndim != 3 or array.shape[-1] != 3:
            raise ValueError(
                f"frames[{index}] is {array.dtype}{list(array.shape)}, not u8[H, W, 3]"
            )
        if array.shape != arrays[0].shape:
            raise ValueError(f"frames[{index}] is {array.shape}, frames[0] {arrays[0].shape}")
    images = [Image.fromarray(np.ascontiguousarray(array)) for array in arrays]
    out = Path(out)
    if out.suffix.lower() == ".gif":
        out.parent.mkdir(parents=True, exist_ok=True)
        duration_ms = max(10, round(1000 / float(fps)))  # GIF delays are whole hundredths
        images[0].save(out, save_all=True, append_images=images[1:], duration=duration_ms, loop=0)
        return [out]
    if out.exists() and not out.is_dir():
        raise ValueError(f"out must end in .gif or be a folder; {out} is a file")
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"frame_{index:04d}.png" for index in range(len(images))]
    for image, path in zip(images, paths, strict=True):
        image.save(path, format="PNG")
    return paths
