"""`reset_where`: per-environment meaning, and both batched paths agree with it."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from horizax.core import sparse_reset
from horizax.core.sparse_reset import reset_where
from tests.compiles import compiled_while


def initial_state(key):
    """A toy layout: small leaves (selected per round) and a large one ("g", scattered)."""
    bits = jax.random.bits(key, (3,), jnp.uint32)
    grid = (bits[1] + jnp.arange(25, dtype=jnp.uint32)).reshape(5, 5).astype(jnp.uint8)
    return {"a": bits.astype(jnp.int32) % 100, "b": (bits[0] % 7).astype(jnp.float32), "g": grid}


def blank_state(*batch):
    return {
        "a": -jnp.ones((*batch, 3), jnp.int32),
        "b": -jnp.ones(batch, jnp.float32),
        "g": jnp.zeros((*batch, 5, 5), jnp.uint8),
    }


def reference(done, keys, state):
    fresh = jax.vmap(initial_state)(keys)
    pick = lambda new, old: np.where(done.reshape(-1, *[1] * (old.ndim - 1)), new, old)  # noqa: E731
    return jax.tree.map(pick, fresh, state)


@pytest.mark.parametrize("rounds", [True, False])
@pytest.mark.parametrize(
    ("batch", "n_done"),
    [
        *[(1, 0), (1, 1)],
        *[(32, 0), (32, 1), (32, 5), (32, 32)],
        *[(100, 2), (100, 3), (100, 4), (100, 50), (100, 100)],
    ],
)  # a branch at batch 1, rounds of 1 environment at batch 32, of 3 at batch 100 (last partial)
def test_vmapped_matches_the_per_environment_rule(batch, n_done, rounds):
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    state = blank_state(batch)
    done = np.zeros(batch, bool)
    done[np.random.default_rng(n_done).choice(batch, n_done, replace=False)] = True
    fn = jax.jit(jax.vmap(lambda d, k, s: reset_where(initial_state, d, k, s, rounds=rounds)))
    out = fn(jnp.asarray(done), keys, state)
    jax.tree.map(np.testing.assert_array_equal, out, reference(done, keys, state))


@pytest.mark.parametrize("rounds", [True, False])
def test_unbatched_and_partly_batched_arguments(rounds):
    key = jax.random.PRNGKey(3)
    state = jax.tree.map(jnp.zeros_like, blank_state())
    where = lambda d, k, s: reset_where(initial_state, d, k, s, rounds=rounds)  # noqa: E731
    out = jax.jit(lambda d: where(d, key, state))(True)
    jax.tree.map(np.testing.assert_array_equal, out, initial_state(key))
    out = where(jnp.bool_(False), key, state)
    jax.tree.map(np.testing.assert_array_equal, out, state)
    # Only `done` batched: key and state broadcast inside the batched rule.
    done = jnp.array([True, False, True])
    out = jax.vmap(lambda d: where(d, key, state))(done)
    for name in state:
        np.testing.assert_array_equal(out[name][1], state[name])
        np.testing.assert_array_equal(out[name][0], initial_state(key)[name])
        np.testing.assert_array_equal(out[name][2], initial_state(key)[name])


def test_nested_vmap_and_scan():
    keys = jax.random.split(jax.random.PRNGKey(1), 12).reshape(3, 4, -1)
    done = jnp.arange(12).reshape(3, 4) % 5 == 0
    state = blank_state(3, 4)
    inner = jax.vmap(lambda d, k, s: reset_where(initial_state, d, k, s))
    out = jax.jit(jax.vmap(inner))(done, keys, state)
    flat = jax.tree.map(lambda x: x.reshape(12, *x.shape[2:]), state)
    expected = reference(np.asarray(done).ravel(), keys.reshape(12, -1), flat)
    for name in state:
        np.testing.assert_array_equal(out[name].reshape(12, *out[name].shape[2:]), expected[name])

    def body(s, d):
        return inner(d, keys[0], s), None

    dones = jnp.array([[True, False, False, False], [False, True, True, True]])
    final, _ = jax.lax.scan(body, jax.tree.map(lambda x: x[0], state), dones)
    assert (np.asarray(final["a"]) != -1).any(axis=1).all()


def test_layouts_are_drawn_in_rounds_of_a_fraction_of_the_batch():
    batch = 2 * sparse_reset.ROUND_FRACTION
    jaxpr = jax.make_jaxpr(jax.vmap(lambda d, k, s: reset_where(initial_state, d, k, s)))(
        jnp.zeros(batch, bool),
        jax.random.split(jax.random.PRNGKey(0), batch),
        blank_state(batch),
    )
    text = str(jaxpr)
    # One traced draw of 2 layouts (a round), inside the loop; never one of all 64.
    assert "u32[2,3]" in text and "u32[64,3]" not in text
    assert "while" in text


def test_a_batch_of_one_branches_instead_of_looping():
    jaxpr = jax.make_jaxpr(jax.vmap(lambda d, k, s: reset_where(initial_state, d, k, s)))(
        jnp.zeros(1, bool), jax.random.split(jax.random.PRNGKey(0), 1), blank_state(1)
    )
    text = str(jaxpr)
    assert "cond" in text and "while" not in text and "top_k" not in text


def test_without_rounds_every_layout_is_drawn_and_selected():
    batch = 2 * sparse_reset.ROUND_FRACTION
    jaxpr = jax.make_jaxpr(
        jax.vmap(lambda d, k, s: reset_where(initial_state, d, k, s, rounds=False))
    )(jnp.zeros(batch, bool), jax.random.split(jax.random.PRNGKey(0), batch), blank_state(batch))
    text = str(jaxpr)
    assert "u32[64,3]" in text and "while" not in text


@pytest.mark.parametrize("rounds", [True, False])
def test_a_pytree_key_is_gathered_row_by_row(rounds):
    """``key`` may be any pytree (the engine passes a family rule's inputs): each reset
    environment draws from its own rows of every leaf."""
    batch = 40
    keys = jax.random.split(jax.random.PRNGKey(3), batch)
    offsets = jnp.arange(batch, dtype=jnp.uint32) * 1000
    done = jnp.arange(batch) % 3 == 0
    draw = lambda pair: initial_state(jax.random.fold_in(pair[0], pair[1]))  # noqa: E731
    out = jax.jit(jax.vmap(lambda d, k, o, s: reset_where(draw, d, (k, o), s, rounds=rounds)))(
        done, keys, offsets, blank_state(batch)
    )
    expected = reference(done, jax.vmap(jax.random.fold_in)(keys, offsets), blank_state(batch))
    for name in out:
        np.testing.assert_array_equal(np.asarray(out[name]), np.asarray(expected[name]), name)


@pytest.mark.parametrize("kind", ["raw", "typed"])
@pytest.mark.parametrize("batch", [1, 5, 32, 64, 100, 1000])
def test_draw_batch_equals_vmap_whatever_the_padding(batch, kind):
    """Chunks of one round's size (the last one padded, then cut) give vmap's states."""
    make = jax.random.PRNGKey if kind == "raw" else jax.random.key
    keys = jax.random.split(make(8), batch)
    expected = jax.vmap(initial_state)(keys)
    for rounds in (True, False):
        out = jax.jit(lambda k, r=rounds: sparse_reset.draw_batch(initial_state, k, rounds=r))(keys)
        jax.tree.map(np.testing.assert_array_equal, out, expected)


def test_draw_batch_draws_one_round_at_a_time():
    """The point of the chunks: the layout is traced at the rounds' batch size (so a
    program that also autoresets compiles it once), in a loop; without rounds, at B."""
    batch = 3 * sparse_reset.ROUND_FRACTION + 1  # rounds of 3, the last one padded
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    chunked = str(jax.make_jaxpr(lambda k: sparse_reset.draw_batch(initial_state, k))(keys))
    assert sparse_reset.round_size(batch) == 3
    assert "u32[3,3]" in chunked and f"u32[{batch},3]" not in chunked and "scan" in chunked
    plain = str(
        jax.make_jaxpr(lambda k: sparse_reset.draw_batch(initial_state, k, rounds=False))(keys)
    )
    assert f"u32[{batch},3]" in plain and "scan" not in plain


@pytest.mark.parametrize("rounds", [True, False])
@pytest.mark.parametrize("batch", [1, 5, 64, 100])
def test_draw_is_the_plain_call_under_vmap_jit_and_scan(batch, rounds):
    """`draw` changes how a batch is drawn, never what: vmap's states, also in a scan and
    under a second vmap; unbatched it is the plain call."""
    keys = jax.random.split(jax.random.PRNGKey(4), batch)
    expected = jax.vmap(initial_state)(keys)
    drawn = jax.jit(jax.vmap(lambda k: sparse_reset.draw(initial_state, k, rounds=rounds)))
    jax.tree.map(np.testing.assert_array_equal, drawn(keys), expected)

    def body(carry, k):
        return carry, jax.vmap(lambda kk: sparse_reset.draw(initial_state, kk, rounds=rounds))(k)

    _, scanned = jax.lax.scan(body, 0, jnp.stack([keys, keys[::-1]]))
    jax.tree.map(np.testing.assert_array_equal, jax.tree.map(lambda x: x[0], scanned), expected)
    nested = jax.jit(
        jax.vmap(jax.vmap(lambda k: sparse_reset.draw(initial_state, k, rounds=rounds)))
    )
    jax.tree.map(
        np.testing.assert_array_equal,
        nested(jnp.stack([keys, keys])),
        jax.tree.map(lambda x: np.stack([x, x]), expected),
    )
    one = sparse_reset.draw(initial_state, keys[0], rounds=rounds)
    jax.tree.map(np.testing.assert_array_equal, one, jax.tree.map(lambda x: x[0], expected))


def test_draw_under_vmap_takes_the_shapes_the_autoreset_rounds_take():
    """A batched `draw` traces the layout at the rounds' size (B = 64: rounds of 2), a batch
    of one unbatched, as `reset_where`'s single-environment branch does, and a batch above
    `DRAW_IN_ROUNDS_UP_TO` as a plain vmap."""
    batch = 2 * sparse_reset.ROUND_FRACTION
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    text = str(jax.make_jaxpr(jax.vmap(lambda k: sparse_reset.draw(initial_state, k)))(keys))
    assert "u32[2,3]" in text and "u32[64,3]" not in text
    single = str(jax.make_jaxpr(jax.vmap(lambda k: sparse_reset.draw(initial_state, k)))(keys[:1]))
    assert "u32[3]" in single and "u32[1,3]" not in single
    plain = jax.make_jaxpr(jax.vmap(lambda k: sparse_reset.draw(initial_state, k, rounds=False)))
    assert "u32[64,3]" in str(plain(keys))
    large = jax.random.split(jax.random.PRNGKey(0), sparse_reset.DRAW_IN_ROUNDS_UP_TO + 1)
    text = str(jax.make_jaxpr(jax.vmap(lambda k: sparse_reset.draw(initial_state, k)))(large))
    assert f"u32[{len(large)},3]" in text and "scan" not in text


def test_an_eager_unbatched_draw_is_the_plain_call():
    """Outside any transformation `draw` calls the function on the concrete key: wrapping it
    in a fresh `jax.jit` would compile a program on every eager reset."""
    seen = []

    def recorded(key):
        seen.append(isinstance(key, jax.core.Tracer))
        return initial_state(key)

    key = jax.random.PRNGKey(2)
    out = sparse_reset.draw(recorded, key)
    jax.tree.map(np.testing.assert_array_equal, out, initial_state(key))
    jax.vmap(lambda k: sparse_reset.draw(recorded, k))(jax.random.split(key, 4))
    assert seen[0] is False and seen[1] is True


@pytest.mark.parametrize("typed", [False, True])
@pytest.mark.parametrize("nested", [False, True])
def test_an_eager_vmapped_draw_compiles_nothing_new(nested, typed):
    """Eagerly `vmap`-ped (once or twice), `draw` is the plain call: a second call with new
    keys (raw or typed) reuses every compiled program. The rounds' rule, wrapped afresh on
    every call, would compile its programs again each time."""
    batched = jax.vmap(lambda k: sparse_reset.draw(initial_state, k))
    if nested:
        batched = jax.vmap(batched)

    def keys(seed):
        k = jax.random.split(jax.random.key(seed) if typed else jax.random.PRNGKey(seed), 8)
        return k.reshape(2, 4, *k.shape[1:]) if nested else k

    first = batched(keys(0))
    flat_keys = keys(0).reshape(8, *keys(0).shape[2:]) if nested else keys(0)
    expected = jax.vmap(initial_state)(flat_keys)
    flat = jax.tree.map(lambda x: x.reshape(8, *x.shape[2:]) if nested else x, first)
    jax.tree.map(np.testing.assert_array_equal, flat, expected)
    assert compiled_while(lambda: jax.block_until_ready(batched(keys(1)))) == 0
    # Inside jit the rounds' rule is used, and compiled once like any jitted program.
    jitted = jax.jit(batched)
    jitted(keys(0))
    assert compiled_while(lambda: jax.block_until_ready(jitted(keys(1)))) == 0


def test_shared_jit_is_traced_once_by_a_vmapped_scan():
    """`vmap` re-batches a scan body under each equation's recorded context, where the sparse
    reset's batched rule runs; a plain `jax.jit` layout missed its cache there and was traced
    again. `shared_jit` is traced once, and the rollout is unchanged."""
    traces = []

    def counted(key):
        traces.append(key)
        return initial_state(key)

    layout = sparse_reset.shared_jit(counted)

    def rollout(key, draw):
        def body(carry, _):
            state, key = carry
            key, sub = jax.random.split(key)
            state = reset_where(draw, state["b"] > 2.0, sub, state)
            return (state, key), state["a"]

        return jax.lax.scan(body, (draw(key), key), None, length=6)[1]

    keys = jax.random.split(jax.random.PRNGKey(5), 16)
    ours = jax.jit(jax.vmap(lambda k: rollout(k, layout)))(keys)
    assert len(traces) == 1
    plain = jax.jit(jax.vmap(lambda k: rollout(k, initial_state)))(keys)
    np.testing.assert_array_equal(ours, plain)


def test_shared_jit_traces_under_the_mesh_in_effect():
    meshes = []

    def seen(key):
        meshes.append(jax.sharding.get_abstract_mesh())
        return initial_state(key)

    layout = sparse_reset.shared_jit(seen)
    mesh = jax.make_mesh((1,), ("envs",))
    key = jax.random.PRNGKey(2)
    with jax.set_mesh(mesh):
        state = jax.jit(layout)(key)
    assert meshes == [mesh.abstract_mesh]
    jax.tree.map(np.testing.assert_array_equal, state, initial_state(key))
