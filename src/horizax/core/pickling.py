"""Pickling environments by id: their layouts are closures, their registered ids are not.

A registry-made environment pickles as its id plus the configuration fields that differ from
``make(env_id)``'s, and unpickles as ``make(env_id).replace(**changes)``, so it is equal to the
original and its closures never enter the pickle. An environment built by hand pickles field
by field. Either way, a field that cannot be pickled raises `pickle.PicklingError` naming it.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any


def reduce_environment(env: Any) -> tuple[Any, tuple[Any, ...]]:
    """The ``__reduce__`` value of a frozen-dataclass environment.

    Args:
        env: a dataclass instance whose init fields are its whole configuration and whose
            ``env_id`` field names the registered id it came from ("" when built by hand).

    Returns:
        ``(rebuild_environment, (env_id, changes))`` for a registry-made environment, else
        ``(construct_environment, (type(env), fields))``.
    """
    fields = {f.name: getattr(env, f.name) for f in dataclasses.fields(env) if f.init}
    base = _registered_base(env)
    if base is None:
        kwargs = {name: _Field(type(env).__name__, name, value) for name, value in fields.items()}
        return construct_environment, (type(env), kwargs)
    changes = {
        name: _Field(type(env).__name__, name, value)
        for name, value in fields.items()
        if not _same(value, getattr(base, name))
    }
    return rebuild_environment, (env.env_id, changes)


def rebuild_environment(env_id: str, changes: dict[str, Any]) -> Any:
    """``make(env_id).replace(**changes)``: a registry-made environment, unpickled."""
    from horizax.core.registry import make

    env = make(env_id)
    changes = {name: _unwrap(value) for name, value in changes.items()}
    return env.replace(**changes) if changes else env


def construct_environment(cls: type, fields: dict[str, Any]) -> Any:
    """``cls(**fields)``: an environment built by hand, unpickled."""
    return cls(**{name: _unwrap(value) for name, value in fields.items()})


def _registered_base(env: Any) -> Any:
    """``make(env.env_id)`` when that rebuilds an environment of the same type, else None."""
    env_id = getattr(env, "env_id", "")
    if not env_id:
        return None
    from horizax.core.registry import make, registered_ids

    if env_id not in registered_ids():
        return None
    base = make(env_id)
    return base if type(base) is type(env) else None


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays, whose == is elementwise: treat as changed
        return False


def _unwrap(value: Any) -> Any:
    return value.value if isinstance(value, _Field) else value


@dataclasses.dataclass(frozen=True)
class _Field:
    """One configuration value on its way into a pickle, named for the error message.

    `copy.copy` and `copy.deepcopy` also go through ``__reduce__``; they never pickle, so only
    `pickle` runs the check (in `_Field.__reduce__`), and copying still works for closures.
    """

    owner: str
    name: str
    value: Any

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        try:
            pickle.dumps(self.value)
        except Exception as error:
            raise pickle.PicklingError(
                f"cannot pickle {self.owner} field {self.name!r} = {self.value!r}: {error}. "
                "Pickle a registered environment (horizax.make) and change only picklable "
                "fields, or use module-level functions instead of closures."
            ) from error
        return _identity, (self.value,)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Field:
        import copy

        return _Field(self.owner, self.name, copy.deepcopy(self.value, memo))


def _identity(value: Any) -> Any:
    return value
