"""The tests' per-program choice of XLA emitter (`tests.xla_codegen`)."""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import pytest
from jax._src.interpreters import pxla

import horizax
from tests import xla_codegen


def _text(fn, *args) -> str:
    return jax.jit(fn).lower(*args).as_text()


def test_transcendental_float_programs_are_told_apart_from_the_rest():
    x = jnp.ones(3, jnp.float32)
    for fn in (jnp.sin, jnp.exp, jnp.sqrt, jnp.tanh, jax.scipy.special.erf, jnp.arcsin):
        assert xla_codegen.has_transcendental(_text(fn, x)), fn
    for fn in (lambda v: v * 2.0 + 1.0, lambda v: jnp.argsort(v), lambda v: jax.lax.top_k(v, 2)):
        assert not xla_codegen.has_transcendental(_text(fn, x))
    env = horizax.make("MiniGrid-DoorKey-5x5-v0")
    assert not xla_codegen.has_transcendental(_text(env.reset, jax.random.PRNGKey(0)))
    orbital = horizax.make("Orbital-LadyBanditGuard-v0")
    assert xla_codegen.has_transcendental(_text(orbital.reset, jax.random.PRNGKey(0)))


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
