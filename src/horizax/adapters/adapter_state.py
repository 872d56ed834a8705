"""An adapter's state in a horizax checkpoint: what `save_state` / `load_state` share.

The Gymnasium vector environment and the TorchRL environment keep their JAX episodes (states,
episode keys, step counts, done flags) and their last outputs between calls; `save_adapter`
writes them with `horizax.checkpoint.save`, recording the adapter's kind and the settings a
restored state only makes sense under (``num_envs``, the autoreset mode), and `load_adapter`
refuses a checkpoint made under other settings before `horizax.checkpoint.load` checks the
tree itself.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from horizax import checkpoint

__all__ = ["load_adapter", "save_adapter"]


def save_adapter(
    path: str | os.PathLike[str],
    adapter: str,
    tree: Any,
    *,
    env_id: str,
    settings: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Writes an adapter's ``tree`` to ``path``.

    Args:
        path: the checkpoint file.
        adapter: the adapter's class name, checked by `load_adapter`.
        tree: the adapter's JAX state (a pytree of arrays).
        env_id: the environment's id ("" when built by hand: not recorded).
        settings: JSON values that must be equal when loading (e.g. ``num_envs``).
        extra: JSON values of the state that are not arrays, returned by `load_adapter`.
    """
    metadata = {"adapter": adapter, "settings": dict(settings), "extra": dict(extra or {})}
    checkpoint.save(path, tree, env_id=env_id or None, metadata=metadata)


def load_adapter(
    path: str | os.PathLike[str],
    adapter: str,
    like: Any,
    *,
    env_id: str,
    settings: Mapping[str, Any],
) -> tuple[Any, dict[str, Any]]:
    """Reads an adapter's tree written by `save_adapter`.

    Returns:
        ``(tree, extra)``.

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: a checkpoint of another adapter, setting or env id, or one whose tree
            differs from ``like`` (`horizax.checkpoint.load`).
    """
    metadata = checkpoint.read_manifest(path).get("metadata") or {}
    saved_by = metadata.get("adapter")
    if saved_by != adapter:
        raise ValueError(f"{os.fspath(path)} holds the state of a {saved_by}, not a {adapter}")
    saved = metadata.get("settings") or {}
    for name, value in settings.items():
        if saved.get(name) != value:
            raise ValueError(
                f"{os.fspath(path)} was saved with {name}={saved.get(name)!r}; "
                f"this {adapter} has {name}={value!r}"
            )
    tree = checkpoint.load(path, like, env_id=env_id or None)
    return tree, dict(metadata.get("extra") or {})
