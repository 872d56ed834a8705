"""XLA options for the programs horizax compiles itself (`horizax run`'s rollout).

XLA's CPU backend emits each fusion either with its newer fusion emitters (the default) or
with its older loop emitters (``xla_cpu_use_fusion_emitters=False``), which give LLVM less
code to compile. Integer results do not depend on the emitter: every golden layout and
rollout hash of the test suite is the same under both. Float transcendentals can differ in
their last bits (the orbital games' vmapped and single programs did), so a program whose
StableHLO holds a transcendental op keeps XLA's default, and with it the bit-equality
between programs that users' own `jax.jit` calls rely on.

Users' programs are never changed; measurements are in ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import re
from typing import Any

EMITTER_OPTION = "xla_cpu_use_fusion_emitters"

# StableHLO and CHLO ops whose float results XLA's emitters may compute differently.
_TRANSCENDENTAL = re.compile(
    r"\b(?:stablehlo\.(?:sine|cosine|tan|tanh|exponential|exponential_minus_one|log|"
    r"log_plus_one|logistic|sqrt|rsqrt|cbrt|power|atan2)|chlo\.(?:acosh?|asinh?|atanh?|"
    r"bessel_i1e|cosh|sinh|tan|digamma|erfc?|erf_inv|lgamma|polygamma|zeta|next_after))\b"
)


def has_transcendental(module_text: str) -> bool:
    """Whether a program's StableHLO text holds a transcendental float op.

    Args:
        module_text: the program's StableHLO, e.g. ``jax.jit(f).lower(x).as_text()``, or
            `operations_text` of it (the same answer, without printing large constants).
    """
    return _TRANSCENDENTAL.search(module_text) is not None


def operations_text(module: Any) -> str:
    """A program's StableHLO text with its large constants elided, for `has_transcendental`.

    Printed whole, a program's constants can dwarf its operations (a frame renderer's tile
    images: 12 MB of text where the operations take 35 kB), and the search then costs more
    than it saves. Constants hold no operation, so the answer is the same.

    Args:
        module: the program's MLIR module, e.g. ``jax.jit(f).lower(x).compiler_ir()``.
    """
    return module.operation.get_asm(large_elements_limit=16)


def quick_compile_options(lowered: Any, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """``options`` plus XLA:CPU's older loop emitters where they cannot change a result.

    Args:
        lowered: a `jax.stages.Lowered` program.
        options: the compiler options chosen so far (not modified).

    Returns:
        The options to pass to ``lowered.compile``: unchanged on other backends, for a
        program with a transcendental op, or where the emitter is already chosen.
    """
    import jax

    options = dict(options or {})
    if jax.default_backend() != "cpu" or EMITTER_OPTION in options:
        return options
    if not has_transcendental(operations_text(lowered.compiler_ir())):
        options[EMITTER_OPTION] = False
    return options
