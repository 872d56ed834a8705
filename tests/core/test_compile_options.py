"""XLA:CPU's older loop emitters for horizax's own integer programs (`compile_options`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import horizax
from horizax.bench.harness import make_scan_rollout
from horizax.core.compile_options import (
    EMITTER_OPTION,
    has_transcendental,
    operations_text,
    quick_compile_options,
)


def _lowered(fn, *args):
    return jax.jit(fn).lower(*args)


def test_transcendental_float_programs_are_told_apart_from_the_rest():
    x = jnp.ones(3, jnp.float32)
    for fn in (jnp.sin, jnp.exp, jnp.sqrt, jnp.tanh, jax.scipy.special.erf, jnp.arcsin):
        assert has_transcendental(_lowered(fn, x).as_text()), fn
    for fn in (lambda v: v * 2.0 + 1.0, lambda v: jnp.argsort(v), lambda v: jax.lax.top_k(v, 2)):
        assert not has_transcendental(_lowered(fn, x).as_text())
    env = horizax.make("MiniGrid-DoorKey-5x5-v0")
    assert not has_transcendental(_lowered(env.reset, jax.random.PRNGKey(0)).as_text())
    orbital = horizax.make("Orbital-LadyBanditGuard-v0")
    assert has_transcendental(_lowered(orbital.reset, jax.random.PRNGKey(0)).as_text())


def test_operations_text_elides_large_constants_and_keeps_every_operation():
    table = jnp.asarray(np.arange(4096, dtype=np.float32).reshape(64, 64))
    for fn, transcendental in ((lambda v: jnp.sin(v) + table, True), (lambda v: v + table, False)):
        lowered = _lowered(fn, jnp.ones((64, 64), jnp.float32))
        whole, short = lowered.as_text(), operations_text(lowered.compiler_ir())
        assert len(short) < len(whole) / 10, "the constant was printed whole"
        assert has_transcendental(short) == has_transcendental(whole) == transcendental


def test_only_programs_without_transcendentals_get_the_older_emitters():
    ints, floats = jnp.arange(3), jnp.ones(3)
    given = {"xla_backend_optimization_level": "0"}
    chosen = quick_compile_options(_lowered(lambda v: v + 1, ints), given)
    assert chosen == {**given, EMITTER_OPTION: False}
    assert given == {"xla_backend_optimization_level": "0"}, "the caller's dict is kept"
    assert quick_compile_options(_lowered(jnp.sin, floats)) == {}
    kept = {EMITTER_OPTION: True}
    assert quick_compile_options(_lowered(lambda v: v + 1, ints), kept) == kept


def test_a_gridworld_rollout_is_the_same_under_either_emitter():
    env = horizax.make("MiniGrid-DoorKey-5x5-v0")
    rollout = make_scan_rollout(
        env.reset, env.step, lambda ts: ts.observation, lambda ts: ts.is_done(), 7, 16, 120
    )
    lowered = _lowered(rollout, jax.random.PRNGKey(1))
    options = quick_compile_options(lowered)
    assert options == {EMITTER_OPTION: False}
    # The newer emitters named outright: the suite's chooser (tests/xla_codegen.py) would
    # otherwise pick the older ones for an empty dict too.
    newer = {EMITTER_OPTION: True}
    outputs = [lowered.compile(o)(jax.random.PRNGKey(1)) for o in (newer, options)]
    np.testing.assert_array_equal(outputs[0], outputs[1])
    assert int(outputs[0][0]) > 0  # episodes ended
