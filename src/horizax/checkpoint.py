"""Checkpoints of environment states: `save` a pytree of arrays to one file, `load` it back.

Any state round-trips exactly (a gridworld `Timestep`, the Maze's ``(State, TimeStep)``, the
orbital ``EnvState``, the engine's `Episode`; batched or not, mid-episode)::

    horizax.checkpoint.save("run.ckpt", timestep, env_id=env.env_id)
    timestep = horizax.checkpoint.load("run.ckpt", like=timestep, env_id=env.env_id)

`load` rebuilds the tree with ``like``'s structure (node classes and static fields come from
``like``, which may be ``jax.eval_shape`` output). Every leaf keeps its shape and dtype: typed
PRNG keys (their ``key_data`` and implementation stored), raw uint32 keys, bool, integers,
floats (float64 with ``jax_enable_x64``), ml_dtypes (their bits stored as unsigned integers).
A leaf comes back as the kind ``like`` holds: a ``jax.Array`` (with ``like``'s sharding), a
numpy array or scalar, or a Python scalar; strongly typed (weak typing is a tracing hint).

Format (version 1): one uncompressed zip (``numpy.load`` opens it) of ``manifest.json``
(format and versions, ``env_id``, user ``metadata``, ``str(treedef)``, per leaf its
``keystr`` path, shape and dtype) and ``leaves/<i>.npy``; the zip's CRC-32s catch damage.
`save` writes a temporary file beside the target and `os.replace` s it: never half-written.

Why not orbax: an environment state is a flat list of a few dozen arrays on one host; orbax
brings a dependency tree (tensorstore, protobuf, asyncio machinery) and a directory layout
built for sharded multi-host model weights. This needs numpy alone and stays one file.

Version policy: the format version must match exactly (a reader never guesses at a layout).
The horizax version must match by default, since a state's meaning (fields, key schedule,
counters) can change between releases where every shape still agrees: loading across versions
is an explicit ``allow_version_mismatch=True``. Shapes, dtypes and structure are always checked.

Placement: ARCHITECTURE.md plans ``core/checkpoint.py``; it is a top-level module because its
public name is ``horizax.checkpoint`` and nothing in core uses it (it serves users and the
adapters).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import zipfile
from collections.abc import Iterator, Mapping
from typing import Any

import jax
import jax.core
import jax.numpy as jnp
import numpy as np

__all__ = ["FORMAT_VERSION", "load", "read_manifest", "save"]

FORMAT = "horizax-checkpoint"
FORMAT_VERSION = 1
_MANIFEST = "manifest.json"
_PYTHON_SCALARS = {"bool": bool, "int": int, "float": float, "complex": complex}
_MAX_LISTED = 5  # differences named in one error


def save(
    path: str | os.PathLike[str],
    tree: Any,
    *,
    env_id: str | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> None:
    """Writes ``tree`` to ``path`` atomically (a temporary file, then `os.replace`).

    Args:
        path: the file to write (replaced if it exists; its directory must exist).
        tree: a pytree of concrete arrays (jax, numpy) or Python scalars; typed PRNG keys
            included. Call it outside `jax.jit`.
        env_id: the environment id to record; `load` checks it when given one.
        metadata: JSON-serializable user data with str keys, returned by `read_manifest`.

    Raises:
        TypeError: ``path``, ``env_id`` or ``metadata`` of the wrong type, metadata that is
            not JSON-serializable, or a leaf that is not a concrete array of a supported
            dtype (the error names its path).
        FileNotFoundError: the directory of ``path`` does not exist.
    """
    path = _check_path(path)
    _check_optional_str(env_id, "env_id")
    metadata = _check_metadata(metadata)
    flat, treedef = jax.tree_util.tree_flatten_with_path(tree)
    entries, arrays = [], []
    for keypath, leaf in flat:
        entry, array = _encode(jax.tree_util.keystr(keypath), leaf)
        entries.append(entry)
        arrays.append(array)
    arrays = jax.device_get(arrays)  # one transfer for every device array
    stored = [_storable(np.asarray(a), e) for a, e in zip(arrays, entries, strict=True)]
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "horizax_version": _horizax_version(),
        "jax_version": jax.__version__,
        "env_id": env_id,
        "metadata": metadata,
        "treedef": str(treedef),
        "leaves": entries,
    }
    _write_atomic(path, json.dumps(manifest, indent=1), stored)


def load(
    path: str | os.PathLike[str],
    like: Any,
    *,
    env_id: str | None = None,
    allow_version_mismatch: bool = False,
) -> Any:
    """Reads the tree saved at ``path``, shaped like ``like``.

    Args:
        path: a file written by `save`.
        like: a tree of the expected structure: real arrays, ``jax.ShapeDtypeStruct`` s
            (``jax.eval_shape`` output), numpy arrays or Python scalars. Each leaf comes back
            as the kind ``like`` holds there.
        env_id: when given, the id the checkpoint must have been saved with.
        allow_version_mismatch: load a checkpoint written by another horizax version.

    Returns:
        The saved tree, with ``like``'s treedef.

    Raises:
        FileNotFoundError: no file at ``path``.
        TypeError: an argument of the wrong type, or a ``like`` leaf that is not an array,
            a ``ShapeDtypeStruct`` or a Python scalar.
        ValueError: not a horizax checkpoint or a damaged one; another format version;
            another horizax version (unless allowed); another ``env_id``; or a tree whose
            leaf paths, shapes or dtypes differ from ``like``'s (each named).
    """
    path = _check_path(path)
    _check_optional_str(env_id, "env_id")
    if not isinstance(allow_version_mismatch, bool):
        raise TypeError(
            f"allow_version_mismatch must be a bool, got {type(allow_version_mismatch).__name__}"
        )
    flat, treedef = jax.tree_util.tree_flatten_with_path(like)
    names = [jax.tree_util.keystr(keypath) for keypath, _ in flat]
    expected = [_expected(name, leaf) for name, (_, leaf) in zip(names, flat, strict=True)]
    with _open(path) as archive:
        manifest = _read_manifest(archive, path)
        _check_versions(manifest, path, allow_version_mismatch)
        if env_id is not None and manifest.get("env_id") != env_id:
            raise ValueError(
                f"{path} holds a state of env_id {manifest.get('env_id')!r}, not {env_id!r}"
            )
        entries = manifest["leaves"]
        _check_structure([e["path"] for e in entries], names, path)
        _check_leaves(entries, expected, path)
        leaves = [
            _restore(_read_leaf(archive, i, entry, path), entry, leaf)
            for i, (entry, (_, leaf)) in enumerate(zip(entries, flat, strict=True))
        ]
    return jax.tree_util.tree_unflatten(treedef, leaves)


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of the checkpoint at ``path`` (no array is read).

    Returns:
        A dict with ``format``, ``format_version``, ``horizax_version``, ``jax_version``,
        ``env_id``, ``metadata``, ``treedef`` (a string) and ``leaves`` (per leaf: ``path``,
        ``shape``, ``dtype``, and ``key_impl`` for a typed key).

    Raises:
        FileNotFoundError, TypeError, ValueError: as `load`.
    """
    path = _check_path(path)
    with _open(path) as archive:
        return _read_manifest(archive, path)


# --- arguments ---------------------------------------------------------------------------------


def _check_path(path: Any) -> str:
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    return path


def _check_optional_str(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a str or None, got {type(value).__name__}")


def _check_metadata(metadata: Any) -> dict[str, Any] | None:
    if metadata is None:
        return None
    if not isinstance(metadata, Mapping) or not all(isinstance(k, str) for k in metadata):
        raise TypeError(f"metadata must be a mapping with str keys, got {metadata!r}")
    try:
        return json.loads(json.dumps(dict(metadata)))
    except (TypeError, ValueError) as err:
        raise TypeError(f"metadata must be JSON-serializable: {err}") from None


def _horizax_version() -> str:
    from horizax import __version__

    return __version__


# --- leaves ------------------------------------------------------------------------------------


def _is_key(x: Any) -> bool:
    return jnp.issubdtype(x.dtype, jax.dtypes.prng_key)


def _encode(name: str, leaf: Any) -> tuple[dict[str, Any], Any]:
    """The manifest entry of one leaf and the array to store (a key's data for a typed key)."""
    if isinstance(leaf, jax.core.Tracer):
        raise TypeError(f"leaf {name} is a traced value: save concrete arrays, outside jit")
    if type(leaf) in _PYTHON_SCALARS.values():
        array = np.asarray(leaf)
        entry = {"path": name, "shape": [], "dtype": str(array.dtype)}
        return {**entry, "python": type(leaf).__name__}, array
    if not isinstance(leaf, jax.Array | np.ndarray | np.generic):
        raise TypeError(f"leaf {name} is a {type(leaf).__name__}, not an array")
    entry = {"path": name, "shape": list(leaf.shape), "dtype": str(leaf.dtype)}
    if isinstance(leaf, jax.Array) and _is_key(leaf):
        entry["key_impl"] = str(jax.random.key_impl(leaf))
        return entry, jax.random.key_data(leaf)
    dtype = np.dtype(leaf.dtype)
    ml_dtype = dtype.kind == "V" and dtype.names is None and _dtype(str(dtype)) == dtype
    if dtype.kind not in "biufc" and not ml_dtype:  # no objects, strings, records, dates
        raise TypeError(f"leaf {name} has the unsupported dtype {leaf.dtype!r}")
    return entry, leaf


def _dtype(name: str) -> np.dtype | None:
    """The numpy dtype of a stored dtype name (ml_dtypes included), None if unknown."""
    try:
        return np.dtype(jnp.dtype(name))
    except TypeError:
        return None


def _storable(array: np.ndarray, entry: dict[str, Any]) -> np.ndarray:
    """``array`` as `.npy` stores it: ml_dtypes types as unsigned integers of their width."""
    if array.dtype.kind == "V":  # bfloat16, float8, int4: numpy writes them as opaque bytes
        array = array.view(np.dtype(f"u{array.dtype.itemsize}"))
    entry["stored"] = str(array.dtype)
    return array


def _expected(name: str, leaf: Any) -> tuple[tuple[int, ...], str, str | None]:
    """(shape, dtype name, Python type name or None) that a ``like`` leaf asks for."""
    if type(leaf) in _PYTHON_SCALARS.values():
        return (), str(np.asarray(leaf).dtype), type(leaf).__name__
    if isinstance(leaf, jax.Array | np.ndarray | np.generic | jax.ShapeDtypeStruct):
        return tuple(leaf.shape), str(leaf.dtype), None
    raise TypeError(
        f"like's leaf {name} is a {type(leaf).__name__}, not an array, a "
        "jax.ShapeDtypeStruct or a Python scalar"
    )


def _restore(data: np.ndarray, entry: dict[str, Any], like: Any) -> Any:
    """One stored leaf as the kind ``like`` holds (checked against it already)."""
    if "key_impl" in entry:
        key = jax.random.wrap_key_data(jnp.asarray(data), impl=entry["key_impl"])
        return _place(key, like)
    dtype = np.dtype(jnp.dtype(entry["dtype"]))  # known: like's dtype equals it
    array = data if data.dtype == dtype else data.view(dtype)  # ml_dtypes: their bits back
    if type(like) in _PYTHON_SCALARS.values():
        return type(like)(array.item())
    if isinstance(like, np.generic):
        return array[()]
    if isinstance(like, np.ndarray):
        return array
    if jax.dtypes.canonicalize_dtype(array.dtype) != array.dtype:
        raise ValueError(
            f"leaf {entry['path']} is {array.dtype}, which JAX holds only with "
            "jax_enable_x64 on: enable it, or pass a numpy array in like"
        )
    return _place(jnp.asarray(array), like)


def _place(x: jax.Array, like: Any) -> jax.Array:
    sharding = getattr(like, "sharding", None)
    return x if sharding is None else jax.device_put(x, sharding)


# --- the file ----------------------------------------------------------------------------------


def _member(i: int) -> str:
    return f"leaves/{i}.npy"


def _write_atomic(path: str, manifest: str, arrays: list[np.ndarray]) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise FileNotFoundError(errno.ENOENT, "no directory to save the checkpoint in", directory)
    # A fresh name opened exclusively: the file gets the user's umask, as `open` gives it.
    temporary = os.path.join(
        directory, f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    )
    try:
        with open(temporary, "xb") as raw:
            with zipfile.ZipFile(raw, "w", compression=zipfile.ZIP_STORED) as archive:
                archive.writestr(_MANIFEST, manifest)
                for i, array in enumerate(arrays):
                    with archive.open(_member(i), "w", force_zip64=True) as member:
                        np.lib.format.write_array(member, array, allow_pickle=False)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def _open(path: str) -> Iterator[zipfile.ZipFile]:
    if not os.path.isfile(path):
        raise FileNotFoundError(errno.ENOENT, "no horizax checkpoint file", path)
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as err:
        raise ValueError(f"{path} is not a horizax checkpoint (not a zip archive: {err})") from None
    with archive:
        yield archive


def _read_manifest(archive: zipfile.ZipFile, path: str) -> dict[str, Any]:
    try:
        manifest = json.loads(archive.read(_MANIFEST))
    except KeyError:
        raise ValueError(f"{path} is not a horizax checkpoint (no {_MANIFEST})") from None
    except (zipfile.BadZipFile, ValueError) as err:
        raise ValueError(f"{path} is damaged: its manifest cannot be read ({err})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"{path} is not a horizax checkpoint (its manifest is not horizax's)")
    leaves = manifest.get("leaves")
    if not isinstance(leaves, list) or not all(_well_formed(entry) for entry in leaves):
        raise ValueError(f"{path} is damaged: its manifest's list of leaves is malformed")
    return manifest


def _well_formed(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(k), str) for k in ("path", "dtype", "stored"))
        and isinstance(entry.get("shape"), list)
        and all(type(n) is int and n >= 0 for n in entry["shape"])
    )


def _check_versions(manifest: dict[str, Any], path: str, allow_mismatch: bool) -> None:
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise ValueError(
            f"{path} is in checkpoint format version {version!r}; this horizax reads "
            f"version {FORMAT_VERSION} only"
        )
    saved, ours = manifest.get("horizax_version"), _horizax_version()
    if saved != ours and not allow_mismatch:
        raise ValueError(
            f"{path} was saved by horizax {saved}, this is horizax {ours}: a state's meaning "
            "can change between versions; pass allow_version_mismatch=True to load it anyway"
        )


def _check_structure(saved: list[str], wanted: list[str], path: str) -> None:
    if saved == wanted:
        return
    missing = [p for p in wanted if p not in saved][:_MAX_LISTED]
    extra = [p for p in saved if p not in wanted][:_MAX_LISTED]
    parts = [f"leaves in like only: {missing}"] * bool(missing)
    parts += [f"leaves in the file only: {extra}"] * bool(extra)
    detail = "; ".join(parts) or f"the same leaves in another order: saved {saved}"
    raise ValueError(f"{path} holds a tree of another structure than like: {detail}")


def _check_leaves(entries: list[dict[str, Any]], expected: list[Any], path: str) -> None:
    wrong = []
    for entry, (shape, dtype, python) in zip(entries, expected, strict=True):
        saved_shape = tuple(entry["shape"])
        if saved_shape != shape:
            wrong.append(f"{entry['path']}: shape {saved_shape} saved, {shape} in like")
        elif entry["dtype"] != dtype:
            wrong.append(f"{entry['path']}: dtype {entry['dtype']} saved, {dtype} in like")
        elif python is not None and entry.get("python") != python:
            wrong.append(f"{entry['path']}: {entry.get('python') or 'an array'} saved, {python}")
    if wrong:
        more = f" (and {len(wrong) - _MAX_LISTED} more)" if len(wrong) > _MAX_LISTED else ""
        raise ValueError(f"{path} does not match like: " + "; ".join(wrong[:_MAX_LISTED]) + more)


def _read_leaf(archive: zipfile.ZipFile, i: int, entry: dict[str, Any], path: str) -> np.ndarray:
    """The stored array of leaf ``i``, checked against its manifest entry."""
    try:
        with archive.open(_member(i)) as member:
            data = np.lib.format.read_array(member, allow_pickle=False)
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as err:
        raise ValueError(
            f"{path} is damaged: leaf {entry['path']} cannot be read ({err})"
        ) from None
    shape = tuple(entry["shape"])
    # A typed key's data has the key's shape plus the implementation's trailing axes.
    stored_shape = data.shape[: len(shape)] if "key_impl" in entry else data.shape
    if stored_shape != shape or str(data.dtype) != entry["stored"]:
        raise ValueError(
            f"{path} is damaged: leaf {entry['path']} holds {data.dtype}{list(data.shape)}, "
            f"its manifest says {entry['stored']}{list(shape)}"
        )
    return data
