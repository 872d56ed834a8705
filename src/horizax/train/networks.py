"""The PPO learner's networks and action distributions (flax linen; extra ``train``).

Any horizax observation becomes one feature vector (`features`): each ``Discrete`` leaf
one-hot, each ``Box`` leaf (and a ``Text`` leaf's encoded characters) flattened as float32,
in the order of the observation pytree's leaves. `ActorCritic` is two separate MLPs (tanh,
orthogonal initialisation, as PureJaxRL's PPO): a policy head of logits (``Discrete``
actions) or of a Gaussian mean with a learned, state-independent log standard deviation
(``Box`` actions), and a value head.

flax rather than equinox: PureJaxRL's PPO, the training loop this one is compared with, is
written in flax linen, so the two run the same network code; flax is also what navix and
jumanji's examples use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

from horizax.core import spaces

__all__ = [
    "ActorCritic",
    "feature_size",
    "features",
    "log_prob",
    "entropy",
    "sample",
]


def _leaf_spaces(space: Any) -> list[Any]:
    """The spaces of an observation's leaves, in `jax.tree` order (a Dict's keys sorted)."""
    if isinstance(space, spaces.Dict):
        return [s for key in sorted(space.spaces) for s in _leaf_spaces(space.spaces[key])]
    if isinstance(space, spaces.Text):
        return [space.encoded]
    if isinstance(space, spaces.Discrete | spaces.Box):
        return [space]
    raise TypeError(f"the PPO learner cannot encode an observation space {space!r}")


def feature_size(space: Any) -> int:
    """The length ``F`` of `features` for an observation ``space``."""
    sizes = [
        int(s.n) if isinstance(s, spaces.Discrete) else int(np.prod(s.shape))
        for s in _leaf_spaces(space)
    ]
    return sum(sizes)


def features(space: Any, observation: Any, batch_ndim: int = 1) -> Array:
    """f32[*batch, F]: ``observation`` (leading ``batch_ndim`` axes) as one feature vector."""
    leaves = jax.tree.leaves(observation)
    leaf_spaces = _leaf_spaces(space)
    if len(leaves) != len(leaf_spaces):
        raise ValueError(f"the observation has {len(leaves)} leaves, its space {len(leaf_spaces)}")
    parts = []
    for leaf, leaf_space in zip(leaves, leaf_spaces, strict=True):
        batch = jnp.shape(leaf)[:batch_ndim]
        if isinstance(leaf_space, spaces.Discrete):
            parts.append(jax.nn.one_hot(leaf, int(leaf_space.n), dtype=jnp.float32))
        else:
            parts.append(jnp.reshape(leaf, (*batch, -1)).astype(jnp.float32))
    return jnp.concatenate(parts, axis=-1)


class ActorCritic(nn.Module):
    """Policy and value MLPs over a feature vector.

    Attributes:
        action_dim: the number of discrete actions, or the size of a ``Box`` action.
        continuous: a Gaussian policy (``Box`` actions) instead of a categorical one.
        hidden: the hidden layer sizes of both MLPs.
    """

    action_dim: int
    continuous: bool = False
    hidden: Sequence[int] = (64, 64)

    @nn.compact
    def __call__(self, x: Array) -> tuple[Array, Array | None, Array]:
        """``(logits or mean [*, A], log_std [A] or None, value [*])``."""
        policy, value = x, x
        for width in self.hidden:
            policy = nn.tanh(
                nn.Dense(width, kernel_init=nn.initializers.orthogonal(math.sqrt(2)))(policy)
            )
        head = nn.Dense(self.action_dim, kernel_init=nn.initializers.orthogonal(0.01))(policy)
        for width in self.hidden:
            value = nn.tanh(
                nn.Dense(width, kernel_init=nn.initializers.orthogonal(math.sqrt(2)))(value)
            )
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(value)[..., 0]
        if not self.continuous:
            return head, None, value
        log_std = self.param("log_std", nn.initializers.zeros, (self.action_dim,))
        return head, log_std, value


def sample(key: Array, head: Array, log_std: Array | None) -> Array:
    """One action from one environment's policy output (``head`` [A])."""
    if log_std is None:
        return jax.random.categorical(key, head).astype(jnp.int32)
    return head + jnp.exp(log_std) * jax.random.normal(key, head.shape)


def log_prob(head: Array, log_std: Array | None, action: Array) -> Array:
    """The log-probability of ``action`` under the policy output ``head`` (batched)."""
    if log_std is None:
        logp = jax.nn.log_softmax(head)
        return jnp.take_along_axis(logp, action[..., None], axis=-1)[..., 0]
    z = (action - head) / jnp.exp(log_std)
    return jnp.sum(-0.5 * z**2 - log_std - 0.5 * math.log(2 * math.pi), axis=-1)


def entropy(head: Array, log_std: Array | None) -> Array:
    """The policy's entropy (batched)."""
    if log_std is None:
        logp = jax.nn.log_softmax(head)
        return -jnp.sum(jnp.exp(logp) * logp, axis=-1)
    per_dim = 0.5 + 0.5 * math.log(2 * math.pi) + log_std
    return jnp.broadcast_to(jnp.sum(per_dim), head.shape[:-1])
