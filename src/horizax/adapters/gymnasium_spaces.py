"""Spaces and observations for the Gymnasium adapters (`horizax.adapters.gymnasium`).

horizax spaces (`horizax.core.spaces`) become Gymnasium spaces; protocol observations (numpy
trees fetched from the jitted step) become what Gymnasium users expect: numpy arrays, Python
``int`` for ``Discrete`` entries and Python ``str`` for ``Text`` entries (decoded outside
`jit` by the space's own ``decode``, each distinct value once). Nothing here knows a family:
the gridworld's MiniGrid dict comes from its protocol view.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces as gym_spaces
from gymnasium.error import CustomSpaceError
from gymnasium.vector.utils import create_shared_memory

from horizax.core import spaces

__all__ = ["ObservationCodec", "TextSpace", "copy_info", "to_gymnasium_space"]


class TextSpace(gym_spaces.Text):
    """``gymnasium.spaces.Text`` that declines ``AsyncVectorEnv``'s shared memory.

    ``AsyncVectorEnv`` reads its shared memory once, when it is built: arrays come back as
    live views, but a ``Text`` entry as a fixed tuple of strings, so every later observation
    would show the initial padding (``"aaa..."``) instead of the mission. Declining makes it
    raise at construction, naming the fix: ``vector_kwargs={"shared_memory": False}``.
    """


@create_shared_memory.register(TextSpace)
def _decline_shared_memory(space: TextSpace, n: int = 1, ctx: Any = None) -> Any:
    raise CustomSpaceError(
        "AsyncVectorEnv cannot pass a Text observation through shared memory (it would read "
        "the strings once, at construction); pass vector_kwargs={'shared_memory': False} to "
        "gymnasium.make_vec (shared_memory=False to AsyncVectorEnv)"
    )


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
    if isinstance(space, spaces.Text):
        return TextSpace(
            int(space.max_length), min_length=int(space.min_length), charset=space.charset
        )
    if isinstance(space, spaces.Dict):
        return gym_spaces.Dict({k: to_gymnasium_space(s) for k, s in space.spaces.items()})
    raise TypeError(f"no Gymnasium space for {type(space).__name__}: {space!r}")


@functools.lru_cache(maxsize=4096)
def _decoded(decode: Callable[[np.ndarray], str], raw: bytes, dtype: str, shape: tuple) -> str:
    return decode(np.frombuffer(raw, np.dtype(dtype)).reshape(shape))


def _decode_one(space: spaces.Text, array: Any) -> str:
    array = np.ascontiguousarray(array, np.dtype(space.dtype))
    return _decoded(space.decode, array.tobytes(), array.dtype.str, array.shape)


def _decode_batch(space: spaces.Text, array: Any) -> tuple[str, ...]:
    """The strings of a batch of encoded values (each distinct one decoded once)."""
    rows = np.ascontiguousarray(array, np.dtype(space.dtype))
    if len(rows) == 0:
        return ()
    flat = rows.reshape(len(rows), -1)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    shape = rows.shape[1:]
    texts = np.array([_decode_one(space, row.reshape(shape)) for row in unique], dtype=object)
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
        """One environment's observation."""
        space = self.horizax_space if space is None else space
        if isinstance(space, spaces.Dict):
            return {k: self.single(obs[k], sub) for k, sub in space.spaces.items()}
        if isinstance(space, spaces.Discrete):
            return int(obs)
        if isinstance(space, spaces.Text):
            return _decode_one(space, obs)
        return np.array(obs, dtype=np.dtype(space.dtype))

    def batch(self, obs: Any, space: Any = None) -> Any:
        """A batch's observations, laid out as Gymnasium's batched space (``batch_space``)."""
        space = self.horizax_space if space is None else space
        if isinstance(space, spaces.Dict):
            # Gymnasium's batched Dict follows its own (sorted) key order.
            return {k: self.batch(obs[k], space.spaces[k]) for k in sorted(space.spaces)}
        if isinstance(space, spaces.Discrete):
            return np.array(obs, dtype=np.int64)
        if isinstance(space, spaces.Text):
            return _decode_batch(space, obs)
        return np.array(obs, dtype=np.dtype(space.dtype))


def copy_info(info: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh dict of fresh, writable numpy arrays (nested dicts kept)."""
    return {k: copy_info(v) if isinstance(v, Mapping) else np.array(v) for k, v in info.items()}
