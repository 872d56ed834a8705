"""Spaces and observations for the Gymnasium adapters (`horizax.adapters.gymnasium`).

horizax spaces (`horizax.core.spaces`) become Gymnasium spaces; protocol observations (numpy
trees fetched from the jitted step) become what Gymnasium users expect: numpy arrays, Python
``int`` for ``Discrete`` entries and Python ``str`` for ``Text`` entries (decoded outside
`jit` by the space's own ``decode``, each distinct value once). Nothing here knows a family:
the gridworld's MiniGrid dict comes from its protocol view.

Scalar boxes. A 0-d ``Box`` (the Maze's ``step_count``) becomes a ``Box`` of shape ``(1,)``
here, and its values arrays of shape ``(1,)`` (``(N, 1)`` batched): Stable-Baselines3's
checker and policies, and PureJaxRL-style flatten wrappers, cannot take 0-d boxes. Only the
Gymnasium adapters do this; the native API and the other adapters keep the scalar.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces as gym_spaces
from gymnasium.vector.utils import read_from_shared_memory

from horizax.core import spaces

__all__ = ["LiveTexts", "ObservationCodec", "TextSpace", "copy_info", "to_gymnasium_space"]


class TextSpace(gym_spaces.Text):
    """``gymnasium.spaces.Text`` whose strings stay current in ``AsyncVectorEnv``'s shared
    memory.

    ``AsyncVectorEnv`` reads its shared memory once, when it is built, and hands out that
    object (a deep copy of it by default) after every step: arrays are live views, but
    Gymnasium's ``Text`` reader returns a fixed tuple of strings, so every later mission
    would read as the initial padding (``"aaa..."``). Here the reader returns `LiveTexts`,
    which decodes the shared buffer whenever it is read or copied.
    """


class LiveTexts(Sequence[str]):
    """The strings in a ``Text`` shared-memory buffer, decoded on every access.

    ``copy.deepcopy`` (what ``AsyncVectorEnv`` returns with ``copy=True``, its default)
    gives a plain tuple of the current strings; with ``copy=False`` users get this view.
    """

    def __init__(self, space: gym_spaces.Text, shared_memory: Any, n: int) -> None:
        self._space, self._shared_memory, self._n = space, shared_memory, n

    def current(self) -> tuple[str, ...]:
        """The strings the buffer holds now."""
        read = read_from_shared_memory.dispatch(gym_spaces.Text)
        return tuple(read(self._space, self._shared_memory, self._n))

    def __getitem__(self, index: Any) -> Any:
        return self.current()[index]

    def __len__(self) -> int:
        return self._n

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    __hash__ = None  # type: ignore[assignment]  # mutable: it follows the buffer

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return self.current()

    def __repr__(self) -> str:
        return f"LiveTexts({self.current()!r})"


def _read_live_texts(space: TextSpace, shared_memory: Any, n: int = 1) -> Any:
    return LiveTexts(space, shared_memory, n)


# Registered outside the decorator: Gymnasium's reader is typed to return arrays and tuples.
read_from_shared_memory.register(TextSpace, _read_live_texts)


def to_gymnasium_space(space: Any) -> gym_spaces.Space:
    """The Gymnasium space of a `horizax.core.spaces` space.

    Raises:
        TypeError: for a space type with no Gymnasium counterpart here.
    """
    if isinstance(space, spaces.Discrete):
        return gym_spaces.Discrete(int(space.n))
    if isinstance(space, spaces.Box):
        dtype = np.dtype(space.dtype)
        shape = _gym_shape(space)
        low = np.broadcast_to(np.asarray(space.low), shape).astype(dtype)
        high = np.broadcast_to(np.asarray(space.high), shape).astype(dtype)
        return gym_spaces.Box(low=low, high=high, shape=shape, dtype=dtype)
    if isinstance(space, spaces.Text):
        return TextSpace(
            int(space.max_length), min_length=int(space.min_length), charset=space.charset
        )
    if isinstance(space, spaces.Dict):
        return gym_spaces.Dict({k: to_gymnasium_space(s) for k, s in space.spaces.items()})
    raise TypeError(f"no Gymnasium space for {type(space).__name__}: {space!r}")


def _gym_shape(space: spaces.Box) -> tuple[int, ...]:
    """The Gymnasium shape of a Box: its own, or ``(1,)`` for a scalar (module docstring)."""
    return tuple(space.shape) or (1,)


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
        return np.array(obs, dtype=np.dtype(space.dtype)).reshape(_gym_shape(space))

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
        array = np.array(obs, dtype=np.dtype(space.dtype))
        return array.reshape(array.shape[:1] + _gym_shape(space))


def copy_info(info: Mapping[str, Any]) -> dict[str, Any]:
    """A fresh dict of fresh, writable numpy arrays (nested dicts kept)."""
    return {k: copy_info(v) if isinstance(v, Mapping) else np.array(v) for k, v in info.items()}
