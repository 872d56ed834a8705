"""MiniGrid's success reward, bit for bit, for every step count up to a range of time limits."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid import rewards
from horizax.grid.state import make_state, walled_grid

BASE = make_state(walled_grid(5, 5), jnp.array([1, 1]), jnp.int32(0))


def minigrid_success_value(step_count, max_steps):
    """MiniGrid's ``1 - 0.9 * (self.step_count / self.max_steps)`` in Python floats, as f32."""
    return (1 - 0.9 * (step_count / max_steps)).astype(np.float32)


def assert_same_values(ours, step_count, max_steps):
    reference = minigrid_success_value(step_count, max_steps)
    assert ours.dtype == np.float32
    mismatched = np.flatnonzero(ours != reference)
    assert mismatched.size == 0, (
        f"{mismatched.size} of {ours.size} differ, first at step_count="
        f"{np.broadcast_to(step_count, ours.shape)[mismatched[0]]}, max_steps="
        f"{np.broadcast_to(max_steps, ours.shape)[mismatched[0]]}"
    )


def test_success_value_is_minigrid_rounded_to_float32_for_batched_limits():
    limits, counts = np.meshgrid(np.arange(1, 601), np.arange(0, 601), indexing="ij")
    keep = counts <= limits
    limits, counts = limits[keep], counts[keep]

    def value(step_count, max_steps):
        return rewards.success_value(BASE.replace(step_count=step_count, max_steps=max_steps))

    ours = np.asarray(jax.jit(jax.vmap(value))(jnp.int32(counts), jnp.int32(limits)))
    assert_same_values(ours, counts, limits)


@pytest.mark.parametrize("max_steps", [6, 7, 100, 250, 288, 324, 640, 1000, 1444, 4096, 400_000])
def test_success_value_is_exact_for_a_limit_known_at_compile_time(max_steps):
    # A limit XLA sees as a constant: it would turn a float division into a reciprocal product.
    counts = np.unique(np.linspace(0, max_steps, 4001).astype(np.int64))

    def value(step_count):
        return rewards.success_value(
            BASE.replace(step_count=step_count, max_steps=jnp.int32(max_steps))
        )

    ours = np.asarray(jax.jit(jax.vmap(value))(jnp.int32(counts)))
    assert_same_values(ours, counts, max_steps)
    # Unbatched, inside the same program as the state it reads.
    for count in counts[[0, 1, len(counts) // 3, -1]]:
        one = jax.jit(lambda c=int(count): value(jnp.int32(c)))()
        assert np.float32(one) == minigrid_success_value(count, max_steps), count


def test_success_value_beyond_the_exact_range_is_within_an_ulp():
    counts = np.arange(0, 600_001, 997)
    ours = np.asarray(
        jax.jit(
            jax.vmap(
                lambda t: rewards.success_value(
                    BASE.replace(step_count=t, max_steps=jnp.int32(600_000))
                )
            )
        )(jnp.int32(counts))
    )
    reference = minigrid_success_value(counts, 600_000)
    np.testing.assert_array_max_ulp(ours, reference, maxulp=2)


def test_success_value_past_the_limit_keeps_falling_like_minigrids():
    # With autoreset off an episode can run past its limit; MiniGrid's value then drops below
    # 0.1 and turns negative (an unsigned long division would wrap around there).
    counts = np.arange(0, 3 * 250 + 1)
    value = jax.jit(
        jax.vmap(
            lambda t: rewards.success_value(BASE.replace(step_count=t, max_steps=jnp.int32(250)))
        )
    )
    ours = np.asarray(value(jnp.int32(counts)))
    reference = minigrid_success_value(counts, 250)
    assert (ours[counts > 278] < 0).all()
    np.testing.assert_array_max_ulp(ours, reference, maxulp=2)
    assert_same_values(ours[counts <= 250], counts[counts <= 250], 250)
