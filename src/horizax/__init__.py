"""horizax: JAX-native RL environments with exact episode boundaries.

Importing horizax has no side effects: no environment variables, precision flags, file loads
or registrations happen until you call `make` or `registered_ids`.
"""

from typing import Any

from horizax.core.registry import add_source as _add_source
from horizax.core.registry import make, registered_ids
from horizax.families import register_families as _register_families

__version__ = "0.1.0"

__all__ = ["__version__", "make", "registered_ids"]

# Registers the families' ids on the first `make` / `registered_ids`, not now.
_add_source(_register_families)

# Submodules reachable as attributes (``horizax.done.terminated_or_truncated``) without
# importing them up front: they load on first access.
_LAZY_SUBMODULES = ("checkpoint", "done", "maze", "grid", "core", "testing")


def __getattr__(name: str) -> Any:
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"horizax.{name}")
    raise AttributeError(f"module 'horizax' has no attribute {name!r}")
