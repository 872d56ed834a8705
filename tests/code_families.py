"""Families of registered ids: the ids whose environments run the same code.

Ids of one family differ only in numeric constants (sizes, time limits, counts), as
`family` reads them off the built environments; checks whose outcome the code alone decides
(a vmapped batch, trace counts, a pickled environment's program) run on one id of each family
(`REPRESENTATIVES`, the smallest: the same code, compiled fastest), and those that depend on
the constants on every id. Used by `tests/test_conformance.py` (which tests this grouping)
and `tests/test_pickle.py`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Hashable
from typing import Any

import horizax


def code(obj: Any, depth: int = 0) -> Hashable:
    """What of ``obj`` decides which program it traces: functions, bools, None; not numbers.

    A function is named by module and qualified name (one ``def``: one code object) together
    with what its closure cells and default arguments hold; containers and dataclasses by
    their items. Numbers, strings and arrays (sizes, counts, encodings) are left out: they
    are the constants that ids of one family differ in. Bools and None are kept, as they
    usually switch code paths (a random start, MiniGrid v0 versus v1, no dynamics).
    """
    if depth > 12:
        return "..."
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, functools.partial):
        return ("partial", code(obj.func, depth + 1), code(obj.args, depth + 1))
    wrapped = getattr(obj, "__wrapped__", None)  # jax.jit, functools.wraps
    if wrapped is not None:
        return ("wrapped", code(wrapped, depth + 1))
    if isinstance(obj, tuple | list):
        return tuple(code(item, depth + 1) for item in obj)
    if isinstance(obj, dict):
        return tuple((key, code(value, depth + 1)) for key, value in sorted(obj.items()))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = dataclasses.fields(obj)
        return (_type(obj), *((f.name, code(getattr(obj, f.name), depth + 1)) for f in fields))
    if getattr(obj, "__code__", None) is not None:
        cells = tuple(code(cell.cell_contents, depth + 1) for cell in obj.__closure__ or ())
        defaults = code(obj.__defaults__ or (), depth + 1)
        return (obj.__module__, obj.__qualname__, cells, defaults)
    if callable(obj) and not isinstance(obj, type):
        return _type(obj)
    return type(obj).__name__ if not isinstance(obj, int | float | str) else "constant"


def _type(obj: Any) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def family(env_id: str) -> Hashable:
    """The family of ``env_id``: the code its environment runs, constants left out."""
    env = horizax.make(env_id)
    return (_type(env), code(env))


def families() -> dict[Hashable, list[str]]:
    out: dict[Hashable, list[str]] = {}
    for env_id in horizax.registered_ids():
        out.setdefault(family(env_id), []).append(env_id)
    return out


def grid_area(env_id: str) -> int:
    env = horizax.make(env_id)
    return getattr(env, "width", 0) * getattr(env, "height", 0)


FAMILIES = families()
# The smallest id of each family: the same code, compiled fastest.
REPRESENTATIVES = sorted(min(ids, key=lambda i: (grid_area(i), i)) for ids in FAMILIES.values())
