import jax
import numpy as np

from horizax.core import episode_keys as E


def test_next_episode_keys_are_distinct_and_deterministic():
    key = jax.random.PRNGKey(7)
    seen = set()
    for _ in range(100):
        seen.add(np.asarray(key).tobytes())
        key = E.next_episode_key(key)
    assert len(seen) == 100
    np.testing.assert_array_equal(
        E.next_episode_key(jax.random.PRNGKey(7)), E.next_episode_key(jax.random.PRNGKey(7))
    )


def test_streams_draw_uncorrelated_numbers():
    key = jax.random.PRNGKey(1)
    a = jax.random.uniform(key, (20000,))
    b = jax.random.uniform(E.next_episode_key(key), (20000,))
    c = jax.random.uniform(E.dynamics_key(key), (20000,))
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.03 and abs(np.corrcoef(a, c)[0, 1]) < 0.03
    assert abs(float(b.mean()) - 0.5) < 0.01


def test_typed_keys_keep_their_type():
    key = jax.random.key(3)
    nxt = E.next_episode_key(key)
    assert nxt.dtype == key.dtype
    np.testing.assert_array_equal(
        jax.random.key_data(nxt), E.next_episode_key(jax.random.key_data(key))
    )
