"""`ScenarioConfig` to and from JSON, every component written by its registry key.

A component (reward, termination, game, sampler, validator, observation function, policy)
is written as its key and its fields, ``{"component": "<KeyClass>:<value>", "fields": ...}``,
and rebuilt from the registry (`horizax.orbital.registry`), so only registered classes
round-trip: a user's own callable raises ``ValueError`` naming it and saying how to register
it. Enums, tuples, arrays and non-finite floats keep their types. A reward or termination
that the configuration took from its game's defaults is written as "default", so reading it
back refills it from the game, as constructing the configuration did.
"""

from __future__ import annotations

import dataclasses
import json
import math
from enum import StrEnum
from typing import Any

import numpy as np

from horizax.orbital import registry

__all__ = ["config_from_json", "config_to_json"]

_FORMAT = "horizax.orbital.ScenarioConfig/1"
_ENUMS: dict[str, type[StrEnum]] = {
    cls.__name__: cls
    for cls in (
        registry.Frame,
        registry.DynamicsKey,
        registry.StateComponentKey,
        registry.ActionComponentKey,
        registry.GameKey,
        registry.TerminationFnKey,
        registry.RewardFnKey,
        registry.ObservationFnKey,
        registry.PolicyKey,
        registry.SideSamplerKey,
        registry.MassSamplerKey,
        registry.ValidatorKey,
    )
}


def _extra_enums() -> dict[str, type[StrEnum]]:
    from horizax.orbital.env.types import Side
    from horizax.orbital.rewards.base import RewardScope
    from horizax.orbital.sampling.validators import SeparationScope, SideSelector

    return {
        "Side": Side,
        "SeparationScope": SeparationScope,
        "SideSelector": SideSelector,
        # A reward's ``scope`` field: written whenever a reward is set explicitly.
        "RewardScope": RewardScope,
    }


def _encode(value: Any, where: str) -> Any:
    if isinstance(value, StrEnum):
        return {"enum": f"{type(value).__name__}:{value.value}"}
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, np.generic):
        return _encode(value.item(), where)
    if isinstance(value, tuple | list):
        return {"tuple": [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if hasattr(value, "__array__") and not dataclasses.is_dataclass(value):
        array = np.asarray(value)
        return {"array": array.tolist(), "dtype": str(array.dtype)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        key = registry.key_of(type(value))
        fields = {
            f.name: _encode(getattr(value, f.name), f"{where}.{f.name}")
            for f in dataclasses.fields(value)
            if f.init and f.name != "command_cls"
        }
        if key is None:
            if type(value).__name__ in _PLAIN:
                return {"plain": type(value).__name__, "fields": fields}
            raise ValueError(
                f"{where}: {type(value).__qualname__} is not a registered horizax.orbital "
                "component, so it cannot be written to JSON; register it with "
                "horizax.orbital.registry.register(<key>)"
            )
        return {"component": f"{type(key).__name__}:{key.value}", "fields": fields}
    raise ValueError(f"{where}: cannot write {type(value).__qualname__} {value!r} to JSON")


# Plain (unregistered) dataclasses a configuration holds; their classes are passed in by
# `ScenarioConfig.from_json`, which owns them.
_PLAIN = ("VehicleParamsSpec", "ReferenceOrbitState", "ICSpec")


def _enum(text: str) -> StrEnum:
    cls_name, _, value = text.partition(":")
    enums = {**_ENUMS, **_extra_enums()}
    if cls_name not in enums:
        raise ValueError(f"unknown enum {cls_name!r} in the JSON")
    return enums[cls_name](value)


def _decode(value: Any, plain: dict[str, type]) -> Any:
    if isinstance(value, list):
        return [_decode(v, plain) for v in value]
    if not isinstance(value, dict):
        return value
    if "enum" in value:
        return _enum(value["enum"])
    if "float" in value:
        return float(value["float"])
    if "tuple" in value:
        return tuple(_decode(v, plain) for v in value["tuple"])
    if "array" in value:
        return np.asarray(value["array"], value["dtype"])
    if "plain" in value:
        cls = plain[value["plain"]]
        return cls(**{k: _decode(v, plain) for k, v in value["fields"].items()})
    if "component" in value:
        cls = registry.resolve(_enum(value["component"]))
        return cls(**{k: _decode(v, plain) for k, v in value["fields"].items()})
    raise ValueError(f"unreadable JSON value {value!r}")


def config_to_json(cfg: Any) -> str:
    """The JSON text of a `ScenarioConfig` (see the module docstring).

    Raises:
        ValueError: naming the field, for a component that is not registered.
    """
    filled_reward, filled_termination = cfg._filled_defaults
    out: dict[str, Any] = {"format": _FORMAT}
    for f in dataclasses.fields(cfg):
        if not f.init or f.name == "_filled_defaults":
            continue
        value = getattr(cfg, f.name)
        if (f.name == "reward_fn" and value is filled_reward) or (
            f.name == "termination_fn" and value is filled_termination
        ):
            out[f.name] = "default"
            continue
        out[f.name] = _encode(value, f.name)
    return json.dumps(out, sort_keys=True)


def config_from_json(text: str, config_cls: type, plain: dict[str, type]) -> Any:
    """The configuration written by `config_to_json`.

    Args:
        text: the JSON.
        config_cls: `ScenarioConfig`.
        plain: the plain dataclasses by name (`VehicleParamsSpec`, `ReferenceOrbitState`,
            `ICSpec`).

    Raises:
        ValueError: for JSON of another format, or naming an unknown component.
    """
    raw = json.loads(text)
    if not isinstance(raw, dict) or raw.get("format") != _FORMAT:
        raise ValueError(f"not a {_FORMAT} JSON document")
    kwargs = {}
    for name, value in raw.items():
        if name == "format":
            continue
        kwargs[name] = None if value == "default" else _decode(value, plain)
    return config_cls(**kwargs)
