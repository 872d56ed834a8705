"""XLA's older loop emitters for the tests' programs that do no transcendental float math.

XLA's CPU backend compiles a fusion either with its newer fusion emitters (the default) or
with its older loop emitters (``xla_cpu_use_fusion_emitters=False``), which hand LLVM less
code: the suite's programs compile in about a third less time. Integer results do not
depend on the emitter (every golden layout and rollout hash is bit-exact under both), but
float transcendentals can: with the older emitters, the orbital games' vmapped and single
programs differ in the last bits (measurements in ``benchmarks/RESULTS.md``, "Issue 14,
2026-12-04 20:40 UTC"). So `install` picks the emitter per program: a program whose
StableHLO holds a transcendental op (sine, exponential, square root, ``chlo`` float
functions, ...) keeps XLA's default; every other one (the gridworlds, the Maze) gets the
older emitters. Users' programs are untouched: this is test configuration, like the
optimisation level set in ``tests/conftest.py``.

It wraps ``jax._src.interpreters.pxla.create_compile_options``, the one function through
which JAX builds every program's compile options; a JAX without it fails `install` loudly
rather than silently compiling everything at the default.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from jax._src.interpreters import pxla

OPTION = "xla_cpu_use_fusion_emitters"

# StableHLO and CHLO ops whose float results XLA's emitters may compute differently.
_TRANSCENDENTAL = re.compile(
    r"\b(?:stablehlo\.(?:sine|cosine|tan|tanh|exponential|exponential_minus_one|log|"
    r"log_plus_one|logistic|sqrt|rsqrt|cbrt|power|atan2)|chlo\.(?:acosh?|asinh?|atanh?|"
    r"bessel_i1e|cosh|sinh|tan|digamma|erfc?|erf_inv|lgamma|polygamma|zeta|next_after))\b"
)


def has_transcendental(module_text: str) -> bool:
    """Whether a program's StableHLO text holds a transcendental float op."""
    return _TRANSCENDENTAL.search(module_text) is not None


def _choosing(original: Callable[..., Any]) -> Callable[..., Any]:
    def create_compile_options(computation: Any, *args: Any) -> Any:
        *rest, compiler_options = args
        if OPTION not in compiler_options and not has_transcendental(str(computation)):
            compiler_options = {**compiler_options, OPTION: False}
        return original(computation, *rest, compiler_options)

    create_compile_options.original = original  # type: ignore[attr-defined]
    return create_compile_options


def install() -> None:
    """Compiles programs without transcendental float ops with XLA's older loop emitters."""
    current = pxla.create_compile_options
    if getattr(current, "original", None) is None:
        pxla.create_compile_options = _choosing(current)
