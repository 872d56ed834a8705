"""Aggregate nested done signals into reset flags (TorchRL's `terminated_or_truncated`).

`terminated_or_truncated(data, full_done_spec=None, key="_reset", write_full_false=False)`
keeps the name, signature and semantics documented for TorchRL's function of the same name:

* At every level of ``data`` (a nested mapping), the entries ``"done"``, ``"terminated"``
  and ``"truncated"`` -- or exactly the leaves of ``full_done_spec`` when one is given -- are
  OR-ed together (broadcasting, so ``bool[B, 1]`` and ``bool[B, A, 1]`` mix), and the
  result is written under ``key`` at that level. A spec leaf missing from the data reads as
  "not done"; a spec composite missing from the data raises `KeyError`.
* ``key=None`` writes nothing; the function only reports whether anything is done.
* A value already present under ``key`` (and not ``None``) prevails: it is left untouched.
* Unless ``write_full_false`` is set, nothing is written when no done value is True.
* The return value says whether any done value found anywhere in ``data`` is True.

``data`` may be a nested mapping of numpy or JAX arrays (Python bools work too), horizax
pytree dataclasses (read through their fields; see below), or a ``tensordict.TensorDict``
(handled with torch ops, written in place; torch is only touched when a TensorDict comes in).

`terminated_or_truncated_pure` is the functional twin for `jax.jit`: it returns
``(new_data, any_done)`` and never mutates its input. A traced function cannot choose its
output structure from values, so the pure form always writes the flags (all False when
nothing is done), as ``write_full_false=True`` does in place.

Where TorchRL's code departs from the documented behaviour, horizax follows the page
(docs/done.md): TorchRL (0.14) overwrites a value already present under ``key``, and when
nothing is done (and ``write_full_false`` is off) it deletes that entry altogether; here the
present value prevails and is never touched. A composite of ``full_done_spec`` missing from
the data raises `KeyError` here (an `AttributeError` on ``None`` there).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, MutableMapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["DONE_KEYS", "terminated_or_truncated", "terminated_or_truncated_pure"]

DONE_KEYS: tuple[str, ...] = ("done", "terminated", "truncated")
"""The entries read at every level when no ``full_done_spec`` is given."""

Path = tuple[str, ...]


def _is_dataclass_instance(x: Any) -> bool:
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def _spec_children(spec: Any) -> Mapping[str, Any] | None:
    """The named sub-specs of a composite spec, or None for a leaf spec."""
    if isinstance(spec, Mapping):
        return spec
    spaces = getattr(spec, "spaces", None)  # horizax (or gymnasium) Dict space
    if isinstance(spaces, Mapping):
        return spaces
    torchrl_data = sys.modules.get("torchrl.data")
    if torchrl_data is not None and isinstance(spec, torchrl_data.Composite):
        return dict(spec.items())
    return None


def _check_flag_dtype(dtype: Any, where: Path) -> None:
    dtype = np.dtype(dtype)
    if not (dtype == np.bool_ or np.issubdtype(dtype, np.integer)):
        raise TypeError(f"done value at {where!r} must be boolean or integer, got dtype {dtype}")


class _ArrayTree:
    """Levels are mappings or dataclasses; leaves are numpy/JAX arrays or Python scalars."""

    @staticmethod
    def is_level(x: Any) -> bool:
        return isinstance(x, Mapping) or _is_dataclass_instance(x)

    @staticmethod
    def items(level: Any) -> list[tuple[str, Any]]:
        if isinstance(level, Mapping):
            return list(level.items())
        return [(f.name, getattr(level, f.name)) for f in dataclasses.fields(level)]

    @staticmethod
    def get(level: Any, name: str) -> Any:
        if isinstance(level, Mapping):
            return level.get(name)
        names = {f.name for f in dataclasses.fields(level)}
        return getattr(level, name) if name in names else None

    @staticmethod
    def flag(value: Any, where: Path) -> Any:
        if _ArrayTree.is_level(value):
            raise TypeError(f"done entry {where!r} must be an array, got a nested structure")
        if not isinstance(value, jax.Array):
            value = np.asarray(value)
        _check_flag_dtype(value.dtype, where)
        return value if value.dtype == np.bool_ else value != 0

    @staticmethod
    def missing(level: Any, spec_leaf: Any) -> Any:
        del level
        return np.zeros(tuple(getattr(spec_leaf, "shape", None) or ()), np.bool_)

    @staticmethod
    def present(level: Any, key: Path) -> bool:
        for name in key:
            if not _ArrayTree.is_level(level):
                return False
            level = _ArrayTree.get(level, name)
        return level is not None

    @staticmethod
    def write(level: Any, key: Path, value: Any) -> None:
        for name in key[:-1]:
            if not isinstance(level, MutableMapping):
                break
            level = level.setdefault(name, {})
        if not isinstance(level, MutableMapping):
            raise TypeError(
                f"cannot write {key!r} in place into an immutable {type(level).__name__}; "
                "use terminated_or_truncated_pure, or key=None to only read"
            )
        level[key[-1]] = value


class _TensorDictTree:
    """TensorDict levels, torch tensor leaves (torch is imported by the caller already)."""

    @staticmethod
    def is_level(x: Any) -> bool:
        return isinstance(x, sys.modules["tensordict"].TensorDictBase)

    @staticmethod
    def items(level: Any) -> list[tuple[str, Any]]:
        return list(level.items())

    @staticmethod
    def get(level: Any, name: str) -> Any:
        return level.get(name, None)

    @staticmethod
    def flag(value: Any, where: Path) -> Any:
        import torch

        if not isinstance(value, torch.Tensor):
            raise TypeError(f"done entry {where!r} must be a tensor, got {type(value).__name__}")
        if value.dtype == torch.bool:
            return value
        if value.dtype.is_floating_point or value.dtype.is_complex:
            raise TypeError(
                f"done value at {where!r} must be boolean or integer, got {value.dtype}"
            )
        return value != 0

    @staticmethod
    def missing(level: Any, spec_leaf: Any) -> Any:
        import torch

        del spec_leaf  # TorchRL's choice: one flag per element of the level's batch
        return torch.zeros((*level.batch_size, 1), dtype=torch.bool, device=level.device)

    @staticmethod
    def present(level: Any, key: Path) -> bool:
        return level.get(key[0] if len(key) == 1 else key, None) is not None

    @staticmethod
    def write(level: Any, key: Path, value: Any) -> None:
        level.set(key[0] if len(key) == 1 else key, value)


def _tree_for(data: Any) -> type[_ArrayTree] | type[_TensorDictTree]:
    tensordict = sys.modules.get("tensordict")  # a TensorDict implies tensordict is imported
    if tensordict is not None and isinstance(data, tensordict.TensorDictBase):
        return _TensorDictTree
    if _ArrayTree.is_level(data):
        return _ArrayTree
    raise TypeError(
        f"data must be a mapping, a dataclass or a tensordict.TensorDict, got {type(data).__name__}"
    )


def _key_path(key: Any) -> Path | None:
    if key is None:
        return None
    if isinstance(key, str):
        return (key,)
    if isinstance(key, tuple) and key and all(isinstance(k, str) for k in key):
        return key
    raise TypeError(f"key must be None, a str or a non-empty tuple of str, got {key!r}")


def _collect(tree: Any, level: Any, spec: Any, path: Path, found: list[tuple[Path, Any]]) -> None:
    """Appends ``(level path, aggregated flag)`` for every level holding done entries."""
    aggregate = None
    children: list[tuple[str, Any, Any]] = []
    if spec is None:
        for name, item in tree.items(level):
            if name in DONE_KEYS:
                flag = tree.flag(item, (*path, name))
                aggregate = flag if aggregate is None else aggregate | flag
            elif tree.is_level(item):
                children.append((name, item, None))
    else:
        sub_specs = _spec_children(spec)
        if sub_specs is None:
            raise TypeError(f"full_done_spec at {path!r} must be a composite, got {spec!r}")
        for name, sub_spec in sub_specs.items():
            item = tree.get(level, name)
            if _spec_children(sub_spec) is not None:
                if item is None:
                    raise KeyError(
                        f"full_done_spec has a composite entry {(*path, name)!r} "
                        "that the data lacks"
                    )
                if not tree.is_level(item):
                    raise TypeError(
                        f"full_done_spec entry {(*path, name)!r} is a composite but the data "
                        f"holds a {type(item).__name__} there"
                    )
                children.append((name, item, sub_spec))
            else:
                flag = (
                    tree.missing(level, sub_spec)
                    if item is None
                    else tree.flag(item, (*path, name))
                )
                aggregate = flag if aggregate is None else aggregate | flag
    for name, child, sub_spec in children:
        _collect(tree, child, sub_spec, (*path, name), found)
    if aggregate is not None:
        found.append((path, aggregate))


def _level_at(tree: Any, data: Any, path: Path) -> Any:
    for name in path:
        data = tree.get(data, name)
    return data


def _any_true(flag: Any) -> bool:
    try:
        return bool(flag.any())
    except jax.errors.ConcretizationTypeError as err:
        raise TypeError(
            "terminated_or_truncated writes in place and returns a Python bool, which a traced "
            "value cannot give; under jax.jit use terminated_or_truncated_pure"
        ) from err


def terminated_or_truncated(
    data: Any,
    full_done_spec: Any = None,
    key: str | tuple[str, ...] | None = "_reset",
    write_full_false: bool = False,
) -> bool:
    """Aggregates the done/terminated/truncated entries of ``data`` level by level, in place.

    Args:
        data: a nested mutable mapping (dicts of numpy/JAX arrays or Python bools, with done
            values ``bool[*batch, 1]`` or any shape that broadcasts within a level), or a
            ``tensordict.TensorDict``. Dataclass levels (horizax pytrees) can be read, and
            only written by `terminated_or_truncated_pure`.
        full_done_spec: where the done leaves are (e.g. a TorchRL env's ``full_done_spec``, a
            nested dict whose leaves may carry a ``shape``, or a horizax ``Dict`` space).
            Without it, ``"done"``, ``"terminated"`` and ``"truncated"`` are read at every
            level.
        key: the entry written at each level holding done values (a str or a tuple for a
            nested key below that level); None writes nothing.
        write_full_false: write the flags even when no done value is True.

    Returns:
        Whether any done value found in ``data`` is True.

    Raises:
        KeyError: a composite entry of ``full_done_spec`` is missing from ``data``.
        TypeError: ``data`` or a done value has the wrong type (floats are refused), a level
            to write into is immutable, or the values are traced (use the pure form).
    """
    tree = _tree_for(data)
    key_path = _key_path(key)
    found: list[tuple[Path, Any]] = []
    _collect(tree, data, full_done_spec, (), found)
    any_done = any([_any_true(flag) for _, flag in found])
    if key_path is not None and (any_done or write_full_false):
        for path, flag in found:
            level = _level_at(tree, data, path)
            if not tree.present(level, key_path):
                tree.write(level, key_path, flag)
    return any_done


def _assign(level: Any, key: Path, value: Any) -> Any:
    """A copy of ``level`` with ``value`` at the nested ``key`` (intermediates created)."""
    name = key[0]
    if len(key) > 1:
        child = _ArrayTree.get(level, name) if _ArrayTree.is_level(level) else None
        value = _assign({} if child is None else child, key[1:], value)
    if isinstance(level, Mapping):
        out = dict(level) if not isinstance(level, dict) else level.copy()
        out[name] = value
        return out
    if name not in {f.name for f in dataclasses.fields(level)}:
        raise TypeError(
            f"{type(level).__name__} has no field {name!r} to hold the flag; add one "
            "(None when absent) or pass key=None"
        )
    return dataclasses.replace(level, **{name: value})


def _rebuild(level: Any, path: Path, writes: dict[Path, Any], key: Path) -> Any:
    depth = len(path)
    below = {p[depth] for p in writes if len(p) > depth and p[:depth] == path}
    for name in below:
        level = _assign(
            level, (name,), _rebuild(_ArrayTree.get(level, name), (*path, name), writes, key)
        )
    if path in writes and not _ArrayTree.present(level, key):
        level = _assign(level, key, writes[path])
    return level


def terminated_or_truncated_pure(
    data: Any,
    full_done_spec: Any = None,
    key: str | tuple[str, ...] | None = "_reset",
) -> tuple[Any, Any]:
    """The functional form: returns a new structure instead of writing in place.

    Works under `jax.jit` and `jax.vmap`. The flags are always written (as with
    ``write_full_false=True``): a traced function's output structure cannot depend on
    whether anything is done, and an all-False flag resets nothing.

    Args:
        data: a nested mapping of numpy/JAX arrays and pytree dataclasses (a dataclass level
            is updated with `dataclasses.replace`, so it needs a field named ``key``, whose
            value None means "absent"), or a ``tensordict.TensorDict`` (cloned, then
            written).
        full_done_spec: as in `terminated_or_truncated`.
        key: as in `terminated_or_truncated`; None returns ``data`` unchanged.

    Returns:
        ``(new_data, any_done)``: the structure with the flags (JAX arrays) added where no
        value was present under ``key``, and bool[] (a torch bool tensor for a TensorDict),
        True if any done value is True.
    """
    tree = _tree_for(data)
    if tree is _TensorDictTree:
        import torch

        out = data.clone()
        any_done = terminated_or_truncated(out, full_done_spec, key, write_full_false=True)
        return out, torch.tensor(any_done)
    key_path = _key_path(key)
    found: list[tuple[Path, Any]] = []
    _collect(tree, data, full_done_spec, (), found)
    if found:
        any_done = jnp.any(jnp.stack([jnp.any(jnp.asarray(flag)) for _, flag in found]))
    else:
        any_done = jnp.zeros((), jnp.bool_)
    if key_path is None or not found:
        return data, any_done
    writes = {path: jnp.asarray(flag) for path, flag in found}
    return _rebuild(data, (), writes, key_path), any_done
