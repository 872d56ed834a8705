"""The tests' per-program choice of XLA emitter (`tests.xla_codegen`)."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import pytest
from jax._src.interpreters import pxla

from tests import xla_codegen


@pytest.mark.skipif(
    os.environ.get("HORIZAX_TEST_XLA_DEFAULT", "") not in {"", "0", "off", "false", "no"},
    reason="the default code generation was asked for",
)
def test_the_suite_compiles_through_the_chooser():
    chooser = pxla.create_compile_options
    assert getattr(chooser, "original", None) is not None, "tests/conftest.py did not install it"
    seen = []
    ints, floats = jnp.arange(3), jnp.ones(3)

    def spy(computation, *args):
        seen.append(dict(args[-1]))
        return chooser.original(computation, *args)

    pxla.create_compile_options = xla_codegen._choosing(spy)  # what the chooser passes on
    try:
        jax.jit(lambda v: v + 1).lower(ints).compile()
        jax.jit(jnp.sin).lower(floats).compile()
    finally:
        pxla.create_compile_options = chooser
    assert seen == [{xla_codegen.OPTION: False}, {}]
