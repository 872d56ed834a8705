"""Spaces and observations for the Gymnasium adapters (`horizax.adapters.gymnasium`).

horizax spaces (`horizax.core.spaces`) become Gymnasium spaces; protocol observations (numpy
trees fetched from the jitted step) become what Gymnasium users expect: numpy arrays, Python
``int`` for ``Discrete`` entries, and for the gridworlds MiniGrid's observation dict with the
mission as a string (rendered outside `jit` from the state's mission array, each distinct
mission once).
"""

from __future__ import annotations

import dataclasses
import functools
import string
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces as gym_spaces
from jax import Array

from horizax.core import spaces
from horizax.grid.functional import GridFunctional
from horizax.grid.missions import mission_text

__all__ = [
    "MISSION_CHARSET",
    "MISSION_MAX_LENGTH",
    "MiniGridCodec",
    "MiniGridObservation",
    "ObservationCodec",
    "codec_for",
    "copy_info",
    "to_gymnasium_space",
]

MISSION_CHARSET = string.ascii_letters + string.digits + " ,.;:'-"
MISSION_MAX_LENGTH = 128  # MiniGrid's longest mission (LockedRoom) has 82 characters


# --- MiniGrid's observation dict over the grid's protocol view -----------------------------


@dataclasses.dataclass(frozen=True)
class MiniGridObservation:
    """A gridworld protocol view whose observation is MiniGrid's dict (as arrays).

    The observation is ``{"image": <the env's observation>, "direction": i32[] (agent_dir),
    "mission": i32[10] (the mission array)}``; the adapter turns the mission array into
    MiniGrid's string outside `jit`. Everything else is the wrapped `GridFunctional`'s.

    Attributes:
        grid: the wrapped gridworld view.
    """

    grid: GridFunctional

    @property
    def observation_space(self) -> spaces.Dict:
        """horizax Dict of the image space, ``Discrete(4)`` and the i32[10] mission array."""
        return spaces.Dict(
            {
                "image": self.grid.observation_space,
                "direction": spaces.Discrete(4),
                "mission": spaces.Box(-1, 2**31 - 1, (10,), np.int32),
            }
        )

    @property
    def action_space(self) -> spaces.Discrete:
        """The grid's action space."""
        return self.grid.action_space

    @property
    def max_steps(self) -> int:
        """The grid's time limit."""
        return self.grid.max_steps

    @property
    def env_id(self) -> str:
        """The grid's registered id."""
        return self.grid.env_id

    def _observe(self, timestep: Any, step: Any) -> Any:
        state = timestep.state
        observation = {
            "image": step.observation,
            "direction": state.agent_dir,
            "mission": state.mission,
        }
        return step.replace(observation=observation)

    def reset(self, key: Array) -> tuple[Any, Any]:
        """The grid's reset, with the dict observation."""
        timestep, step = self.grid.reset(key)
        return timestep, self._observe(timestep, step)

    def step(self, key: Array, state: Any, action: Array) -> tuple[Any, Any]:
        """The grid's step, with the dict observation."""
        timestep, step = self.grid.step(key, state, action)
        return timestep, self._observe(timestep, step)

    def render(self, state: Any) -> np.ndarray:
        """The grid's frame, u8[H, W, 3]."""
        return self.grid.render(state)


# --- spaces and observation conversion ------------------------------------------------------


def to_gymnasium_space(space: Any) -> gym_spaces.Space:
    """The Gymnasium space of a `horizax.core.spaces` space.

    Raises:
        TypeError: for a space type with no Gymnasium counterpart here.
    """
    if isinstance(space, spaces.Discrete):
        return gym_spaces.Discrete(int(space.n))
    if isinstance(space, spaces.Box):
        dtype = np.dtype(space.dtype)
        low = np.broadcast_to(np.asarray(space.low), space.shape).astype(dtype)
        high = np.broadcast_to(np.asarray(space.high), space.shape).astype(dtype)
        return gym_spaces.Box(low=low, high=high, shape=space.shape, dtype=dtype)
    if isinstance(space, spaces.Dict):
        return gym_spaces.Dict({k: to_gymnasium_space(s) for k, s in space.spaces.items()})
    raise TypeError(f"no Gymnasium space for {type(space).__name__}: {space!r}")


@functools.lru_cache(maxsize=4096)
def _mission(raw: bytes) -> str:
    return mission_text(np.frombuffer(raw, np.int32))


def _missions(array: np.ndarray) -> tuple[str, ...]:
    """MiniGrid strings of a batch of i32[N, 10] mission arrays (each distinct one once)."""
    rows = np.ascontiguousarray(array, np.int32)
    if len(rows) == 0:
        return ()
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    texts = np.array([_mission(row.tobytes()) for row in unique], dtype=object)
    return tuple(texts[np.ravel(inverse)])


class ObservationCodec:
    """Protocol observations (numpy trees) to Gymnasium observations, unbatched and batched.

    Attributes:
        horizax_space: the protocol's observation space.
        space: its Gymnasium version (``single_observation_space`` of a vector env).
    """

    def __init__(self, space: Any) -> None:
        self.horizax_space = space
        self.space = to_gymnasium_space(space)

    def single(self, obs: Any, space: Any = None) -> Any:
        space = self.space if space is None else space
        if isinstance(space, gym_spaces.Dict):
            return {k: self.single(obs[k], space[k]) for k in obs}
        if isinstance(space, gym_spaces.Discrete):
            return int(obs)
        return np.array(obs, dtype=space.dtype)

    def batch(self, obs: Any, space: Any = None) -> Any:
        space = self.space if space is None else space
        if isinstance(space, gym_spaces.Dict):
            return {k: self.batch(obs[k], sub) for k, sub in space.spaces.items()}
        return np.array(obs, dtype=space.dtype)


class MiniGridCodec(ObservationCodec):
    """MiniGrid's dict: ``image`` array, ``direction`` int, ``mission`` string."""

    def __init__(self, space: spaces.Dict) -> None:
        self.horizax_space = space
        image = space.spaces["image"]
        if np.dtype(image.dtype) == np.uint8:  # MiniGrid declares Box(0, 255) for the image
            image_space = gym_spaces.Box(0, 255, image.shape, np.uint8)
        else:
            image_space = to_gymnasium_space(image)
        self.space = gym_spaces.Dict(
            {
                "image": image_space,
                "direction": gym_spaces.Discrete(4),
                "mission": gym_spaces.Text(
                    MISSION_MAX_LENGTH, min_length=0, charset=MISSION_CHARSET
                ),
            }
        )

    def single(self, obs: Any, space: Any = None) -> Any:
        return {
            "image": np.array(obs["image"], dtype=self.space["image"].dtype),
            "direction": int(obs["direction"]),
            "mission": _mission(np.ascontiguousarray(obs["mission"], np.int32).tobytes()),
        }

    def batch(self, obs: Any, space: Any = None) -> Any:
        return {  # Gymnasium's batched Dict follows the space's (sorted) key order
            "direction": np.array(obs["direction"], dtype=np.int64),
            "image": np.array(obs["image"], dtype=self.space["image"].dtype),
            "mission": _missions(obs["mission"]),
        }


def codec_for(fenv: Any) -> ObservationCodec:
    """The codec of a protocol view: MiniGrid's dict for `MiniGridObservation`, else generic."""
    if isinstance(fenv, MiniGridObservation):
        return MiniGridCodec(fenv.observation_space)
    return ObservationCodec(fenv.observation_space)


def copy_info(info: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh dict of fresh, writable numpy arrays (nested dicts kept)."""
    return {k: copy_info(v) if isinstance(v, Mapping) else np.array(v) for k, v in info.items()}
