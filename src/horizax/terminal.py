"""Whether to colour terminal output: only for a terminal, and never against the user's wish.

The conventions followed: https://no-color.org (``NO_COLOR`` set and not empty: no colour)
and https://force-color.org (``FORCE_COLOR`` set and not empty: colour even into a pipe or a
file). ``NO_COLOR`` wins when both are set, as in CPython's own colouring: a user who asks
for no colour gets none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["use_colour"]


def use_colour(stream: Any, environ: Mapping[str, str] | None = None) -> bool:
    """True when ANSI colour may be written to ``stream``.

    Args:
        stream: where the output goes; colour by default only if ``stream.isatty()``.
        environ: the environment variables to read (default `os.environ`).
    """
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())
