"""XLA's older loop emitters for the tests' programs that do no transcendental float math.

XLA's CPU backend compiles a fusion either with its newer fusion emitters (the default) or
with its older loop emitters (``xla_cpu_use_fusion_emitters=False``), which hand LLVM less
code: the suite's programs compile in about a third less time. Integer results do not
depend on the emitter (every golden layout and rollout hash is bit-exact under both), but
float transcendentals can: with the older emitters, the orbital games' vmapped and single
programs differ in the last bits (measurements in ``benchmarks/RESULTS.md``, "Issue 14,
2026-12-04 20:40 UTC"). So `install` picks the emitter per program: a program whose
StableHLO holds a transcendental op (`horizax.core.compile_options.has_transcendental`, the
rule `horizax run` follows for its own programs) keeps XLA's default; every other one (the
gridworlds, the Maze) gets the older emitters. Users' programs are untouched: this is test
configuration, like the optimisation level set in ``tests/conftest.py``.

It wraps ``jax._src.interpreters.pxla.create_compile_options``, the one function through
which JAX builds every program's compile options; a JAX without it fails `install` loudly
rather than silently compiling everything at the default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jax._src.interpreters import pxla

from horizax.core.compile_options import EMITTER_OPTION as OPTION
from horizax.core.compile_options import has_transcendental, operations_text


def _choosing(original: Callable[..., Any]) -> Callable[..., Any]:
    def create_compile_options(computation: Any, *args: Any) -> Any:
        *rest, compiler_options = args
        if OPTION not in compiler_options and not has_transcendental(operations_text(computation)):
            compiler_options = {**compiler_options, OPTION: False}
        return original(computation, *rest, compiler_options)

    create_compile_options.original = original  # type: ignore[attr-defined]
    return create_compile_options


def install() -> None:
    """Compiles programs without transcendental float ops with XLA's older loop emitters."""
    current = pxla.create_compile_options
    if getattr(current, "original", None) is None:
        pxla.create_compile_options = _choosing(current)
