"""`horizax.grid.draws`: draws inside a loop are the unrolled loop's draws, digit for digit."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.grid.draws import sequential_draws
from horizax.grid.sampling import WIDE_DIGIT_BUDGET

BOUNDS = (6, 3, 36)  # BabyAI-Unlock's object: colour, kind, rank among the free cells


def _radix(total, d, bound):
    """A radix in [1, bound] that depends on the digits drawn so far, as a cell's does."""
    return jnp.where(d == 2, 1 + total % bound, bound)


def _program(count, looped, budget_draws=(5, 7)):
    """Draws before, ``count`` iterations of BOUNDS, and draws after: the digits, i32[n]."""

    def program(draw):
        before = [draw(b, b) for b in budget_draws]
        total = jnp.int32(sum(before))

        def body(i, digit, carry):
            total, out = carry
            for d, bound in enumerate(BOUNDS):
                value = digit(d, _radix(total, d, bound))
                out = out.at[i, d].set(value)
                total = total + value
            return total, out

        out = jnp.zeros((count, len(BOUNDS)), jnp.int32)
        if looped:
            total, out = draw.loop(count, BOUNDS, body, (total, out))
        else:
            for i in range(count):
                total, out = body(jnp.int32(i), lambda d, r: draw(r, BOUNDS[d]), (total, out))
        after = [draw(b, b) for b in budget_draws]
        return jnp.concatenate([jnp.stack(before), out.reshape(-1), jnp.stack(after)])

    return program


@pytest.mark.parametrize("count", [0, 1, 27])
def test_looped_draws_are_the_unrolled_draws(count):
    keys = jax.random.split(jax.random.PRNGKey(3), 64)

    def run(looped):
        one = lambda k: sequential_draws(k, _program(count, looped), budget=WIDE_DIGIT_BUDGET)  # noqa: E731
        return np.asarray(jax.jit(jax.vmap(one))(keys))

    unrolled, looped = run(False), run(True)
    np.testing.assert_array_equal(looped, unrolled)
    assert unrolled.shape == (64, 4 + 3 * count)
    if count:  # the digits are draws, not placeholders
        assert len(np.unique(unrolled[:, 2:-2])) > 3


def test_a_loop_body_must_draw_its_digits_in_order():
    def out_of_order(draw):
        return draw.loop(2, BOUNDS, lambda i, digit, c: c + digit(1, 3) + digit(0, 6), 0)

    with pytest.raises(ValueError, match="drew digit 1 after"):
        sequential_draws(jax.random.PRNGKey(0), out_of_order)

    def too_few(draw):
        return draw.loop(2, BOUNDS, lambda i, digit, c: c + digit(0, 6), jnp.int32(0))

    with pytest.raises(ValueError, match="drew 1 digits, its bounds are"):
        sequential_draws(jax.random.PRNGKey(0), too_few)
