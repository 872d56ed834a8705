"""Counting the XLA programs a piece of code compiles (tests that guard against recompiles)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax

_EVENT = "/jax/core/compile/backend_compile_duration"


def compiled_while(fn: Callable[[], Any]) -> int:
    """How many XLA programs ``fn()`` compiles."""
    events = []

    def listen(name: str, _seconds: float, **_: Any) -> None:
        if name == _EVENT:
            events.append(name)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        fn()
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    return len(events)
