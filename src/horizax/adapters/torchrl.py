"""TorchRL adapter: a batch of horizax environments as one ``torchrl.envs.EnvBase``.

::

    env = TorchRLEnv("MiniGrid-Empty-5x5-v0", num_envs=8, seed=0)
    check_env_specs(env)
    rollout = env.rollout(100, break_when_any_done=False)  # resets finished envs in place

Layout (batch size ``[B]``): observations under ``"observation"`` for a Box space, or one
entry per key of a Dict space (``"action_mask"`` included, where TorchRL's masking tools look
for it); ``"action"`` i64[B] in ``[0, n)`` for a ``Discrete(n)`` space, or ``[B, *shape]`` of
a ``Box`` space's dtype (a ``Bounded`` spec; the orbital games' f32[B, 3 * vehicles]);
``"reward"`` f32[B, 1]; ``"done"``, ``"terminated"`` and ``"truncated"`` bool[B, 1]. The
specs are converted from the environment's spaces (`to_torchrl_spec`).

Actions of a ``Box`` space follow the rule of every adapter (`horizax.adapters.actions`): a
float or integer tensor of exactly ``[B, *shape]``, cast to the space's dtype; values outside
the bounds are passed to the environment unclipped (TorchRL's own ``Bounded`` spec does not
clip a policy's output either; the family decides what an oversized command means).

Episode boundary (ARCHITECTURE.md, contract 1): ``terminated`` (an absorbing state: do not
bootstrap) and ``truncated`` (the time limit: bootstrap) come through unchanged and never
both; ``done`` is their OR. The environment never resets itself: TorchRL computes
``"_reset"`` from the done entries (`horizax.done.terminated_or_truncated` implements the
same rule) and calls `reset` with it, and only the environments it marks are reset -- one
jitted, vmapped masked reset. So ``("next", "observation")`` of an ending step is that
episode's last observation, and the root observation of the following step is the new one.

Computation is JAX: one jitted ``vmap`` of the protocol's ``step`` for the whole batch.
Tensors cross between JAX and torch through DLPack without copies (CPU). Every array handed
to torch is a fresh output of the jitted call that the adapter does not keep, so TorchRL
writing into a returned tensor in place (its partial-reset merge does) cannot reach the
adapter's JAX state.

`TorchRLEnv.save_state` / `load_state` write and restore the batch's JAX state (a
`horizax.checkpoint` file), so a restored environment continues the same trajectories.

Requires the ``torch`` extra: ``pip install 'horizax[torch]'``.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

try:
    import torch
    from tensordict import TensorDict, TensorDictBase
    from torchrl.data import Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase
except ImportError as err:  # pragma: no cover - exercised by a test that hides torchrl
    raise ImportError(
        "horizax.adapters.torchrl needs the optional dependencies torch, tensordict and "
        f"torchrl; install the `torch` extra: pip install 'horizax[torch]'. Original error: {err}"
    ) from err

from horizax.adapters.actions import check_action_space, check_box_action
from horizax.adapters.adapter_state import load_adapter, save_adapter
from horizax.core import episode as engine
from horizax.core import spaces
from horizax.core.checks import check_num_envs
from horizax.core.protocol import FunctionalEnv, Step, functional
from horizax.core.registry import make

__all__ = ["TorchRLEnv", "HorizaxEnv", "to_torchrl_spec"]

_FLAGS = ("done", "terminated", "truncated")


def _torch_dtype(dtype: Any) -> torch.dtype:
    return torch.from_numpy(np.zeros((), np.dtype(dtype))).dtype


def to_torchrl_spec(space: Any, batch: tuple[int, ...] = ()) -> Any:
    """The TorchRL spec of a horizax space, with leading ``batch`` dimensions.

    Args:
        space: a `horizax.core.spaces` ``Box``, ``Discrete``, ``Text`` (as its encoded
            array) or ``Dict`` (nested freely).
        batch: leading batch shape, e.g. ``(B,)``.

    Returns:
        ``Categorical`` for a Discrete space and a boolean Box, ``Bounded`` for a Box with
        finite bounds, ``Unbounded`` for one without, ``Composite`` for a Dict.

    Raises:
        TypeError: for any other space.
    """
    batch = tuple(batch)
    if isinstance(space, spaces.Dict):
        children = {k: to_torchrl_spec(s, batch) for k, s in space.spaces.items()}
        return Composite(children, shape=batch)
    if isinstance(space, spaces.Text):  # tensors hold the encoded array, not the string
        return to_torchrl_spec(space.encoded, batch)
    if isinstance(space, spaces.Discrete):
        return Categorical(int(space.n), shape=torch.Size(batch), dtype=_torch_dtype(space.dtype))
    if isinstance(space, spaces.Box):
        shape = torch.Size(batch + space.shape)
        dtype = np.dtype(space.dtype)
        if dtype == np.bool_:
            return Categorical(2, shape=shape, dtype=torch.bool)
        low = np.broadcast_to(np.asarray(space.low, np.float64), shape)
        high = np.broadcast_to(np.asarray(space.high, np.float64), shape)
        if not (np.isfinite(low).all() and np.isfinite(high).all()):
            return Unbounded(shape=shape, dtype=_torch_dtype(dtype))
        return Bounded(
            low=torch.from_numpy(low.astype(dtype)),
            high=torch.from_numpy(high.astype(dtype)),
            shape=shape,
            dtype=_torch_dtype(dtype),
        )
    raise TypeError(f"no TorchRL spec for a {type(space).__name__} space")


def _outputs(step: Step, observation_key: str | None) -> dict[str, Any]:
    """The TensorDict entries of a batched `Step` (flags and reward as ``[B, 1]``)."""
    out = dict(step.observation) if observation_key is None else {observation_key: step.observation}
    out["reward"] = step.reward[:, None]
    out["terminated"] = step.terminated[:, None]
    out["truncated"] = step.truncated[:, None]
    out["done"] = out["terminated"] | out["truncated"]
    return out


@functools.partial(jax.jit, static_argnums=(0, 1))
def _reset_all(fenv: FunctionalEnv, observation_key: str | None, keys: jax.Array):
    episodes, step = engine.start_episodes(fenv, keys, rounds=False)  # a program of its own
    # Two copies of the outputs: one kept (for envs a partial reset leaves alone), one for torch.
    return episodes, _outputs(step, observation_key), _outputs(step, observation_key)


@functools.partial(jax.jit, static_argnums=0)
def _next_keys(fenv: FunctionalEnv, episodes: engine.Episode) -> jax.Array:
    return engine.next_episode_keys(fenv, episodes)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _reset_masked(
    fenv: FunctionalEnv,
    observation_key: str | None,
    mask: jax.Array,
    episodes: engine.Episode,
    kept: dict[str, Any],
):
    keys = engine.next_episode_keys(fenv, episodes)
    # Only the masked environments draw a new episode under vmap.
    episodes, step = engine.restart_episodes_where(fenv, episodes, keys, mask)

    def where(new: jax.Array, old: jax.Array) -> jax.Array:
        return jnp.where(mask.reshape(mask.shape + (1,) * (new.ndim - 1)), new, old)

    kept = jax.tree.map(where, _outputs(step, observation_key), kept)
    return episodes, kept, jax.tree.map(jnp.copy, kept)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _step_all(
    fenv: FunctionalEnv,
    observation_key: str | None,
    episodes: engine.Episode,
    action: jax.Array,
):
    # Discrete: TorchRL's i64 indices as the protocol's i32; Box: already the space's dtype.
    action = action.astype(jnp.dtype(fenv.action_space.dtype))
    episodes, step, _ = engine.step_episodes(fenv, engine.AutoresetMode.DISABLED, episodes, action)
    return episodes, _outputs(step, observation_key), _outputs(step, observation_key)


def _to_torch(tree: Any) -> Any:
    """JAX arrays to torch tensors over DLPack (no copy)."""
    return jax.tree.map(torch.from_dlpack, tree)


class TorchRLEnv(EnvBase):
    """``num_envs`` copies of a horizax environment as one batched TorchRL environment.

    Args:
        env: a registered id (e.g. ``"MiniGrid-Empty-5x5-v0"``), an environment from
            `horizax.make`, or a hashable `horizax.core.protocol.FunctionalEnv` (it is a
            static argument of the jitted functions).
        num_envs: the batch size B.
        seed: environment ``i`` starts from ``jax.random.PRNGKey(seed + i)``; each later
            episode from the family's next-episode key (`set_seed` re-seeds the next reset).
        **overrides: `horizax.make` overrides such as ``max_steps`` (with an id only).

    Attributes:
        fenv: the protocol view being driven.
        env_id: the registered id ("" if unknown).
        max_steps: the time limit (episodes truncate there).

    Raises:
        TypeError: overrides with an environment object, an unhashable protocol object, or
            an action space other than Discrete or a float/integer Box.
        ValueError: ``num_envs < 1`` or an unknown id.
    """

    def __init__(self, env: Any, *, num_envs: int = 1, seed: int = 0, **overrides: Any) -> None:
        if isinstance(env, str):
            env = make(env, **overrides)
        elif overrides:
            raise TypeError(f"overrides {sorted(overrides)} need an environment id, not an object")
        num_envs = check_num_envs(num_envs)
        fenv = functional(env)
        action_space = check_action_space(fenv.action_space)
        try:
            hash(fenv)
        except TypeError as err:
            raise TypeError(f"the environment must be hashable (frozen), got {fenv!r}") from err
        super().__init__(device="cpu", batch_size=torch.Size([int(num_envs)]))
        self.fenv = fenv
        self.env_id = str(getattr(fenv, "env_id", "") or "")
        self.max_steps = int(fenv.max_steps)
        self._num_envs = int(num_envs)
        self._action_space = action_space
        observation_space = fenv.observation_space
        self._observation_key = (
            None if isinstance(observation_space, spaces.Dict) else "observation"
        )
        self._make_specs(observation_space)
        engine.seed_keys(seed, self._num_envs)  # a bad seed fails here, not at reset
        self._seed: int | None = int(seed)  # set: the next reset starts from these seeds
        self._episodes: engine.Episode | None = None
        self._kept: Any = None

    def _make_specs(self, observation_space: Any) -> None:
        batch = torch.Size([self._num_envs])
        observation = to_torchrl_spec(observation_space, batch)
        if self._observation_key is not None:
            observation = Composite({self._observation_key: observation}, shape=batch)
        self.observation_spec = observation
        if isinstance(self._action_space, spaces.Box):
            self.action_spec = to_torchrl_spec(self._action_space, tuple(batch))
        else:
            n = int(self._action_space.n)
            self.action_spec = Categorical(n, shape=batch, dtype=torch.int64)
        self.reward_spec = Unbounded(shape=torch.Size([*batch, 1]), dtype=torch.float32)
        self.done_spec = Composite(
            {
                name: Categorical(2, shape=torch.Size([*batch, 1]), dtype=torch.bool)
                for name in _FLAGS
            },
            shape=batch,
        )

    def _static(self) -> tuple[Any, str | None]:
        return self.fenv, self._observation_key

    def _tensordict(self, outputs: dict[str, Any]) -> TensorDict:
        return TensorDict(_to_torch(outputs), batch_size=self.batch_size, device=self.device)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDict:
        mask = None
        if tensordict is not None:
            mask = tensordict.get("_reset", None)
        if self._episodes is None or self._seed is not None:
            keys = engine.seed_keys(self._seed or 0, self._num_envs)
            self._seed = None
            self._episodes, self._kept, out = _reset_all(*self._static(), keys)
        elif mask is None or bool(mask.all()):
            keys = _next_keys(self.fenv, self._episodes)
            self._episodes, self._kept, out = _reset_all(*self._static(), keys)
        else:
            mask = jnp.from_dlpack(mask.reshape(self._num_envs).contiguous())
            self._episodes, self._kept, out = _reset_masked(
                *self._static(), mask, self._episodes, self._kept
            )
        out = dict(out)
        del out["reward"]
        return self._tensordict(out)

    def _step(self, tensordict: TensorDictBase) -> TensorDict:
        if self._episodes is None:
            raise RuntimeError("call reset() before step()")
        action = tensordict.get("action")
        space = self._action_space
        if isinstance(space, spaces.Box):
            if not isinstance(action, torch.Tensor):  # e.g. a string, held as NonTensorData
                raise TypeError(f"action must be a float or integer tensor, got {action!r}")
            # detach: a policy's output may require grad, which numpy refuses.
            checked = check_box_action(np.asarray(action.detach()), space, (self._num_envs,))
            action = jnp.asarray(checked)
        else:
            action = jnp.from_dlpack(self._discrete_action(action, int(space.n)).contiguous())
        self._episodes, self._kept, out = _step_all(*self._static(), self._episodes, action)
        return self._tensordict(out)

    def _discrete_action(self, action: torch.Tensor, n: int) -> torch.Tensor:
        """Integer indices ``[B]`` in ``[0, n)``, as TorchRL's ``Categorical`` spec holds them."""
        if action.dtype.is_floating_point or action.dtype == torch.bool:
            raise TypeError(f"action must be an integer tensor, got {action.dtype}")
        action = action.reshape(self._num_envs)
        if bool(((action < 0) | (action >= n)).any()):
            raise ValueError(f"action {action.tolist()} has values outside [0, {n})")
        return action

    def _set_seed(self, seed: int | None) -> None:
        if seed is None:  # follow torch's global generator, as torch.manual_seed users expect
            seed = int(torch.randint(0, 2**31 - 1, ()).item())
        engine.seed_keys(int(seed), self._num_envs)  # validate before taking it
        self._seed = int(seed)

    def save_state(self, path: str | os.PathLike[str]) -> None:
        """Writes the batch's state to ``path`` (a `horizax.checkpoint` file).

        The JAX episodes (states, episode keys, step counts, done flags), the last outputs
        that a partial reset keeps, and a seed set for the next reset, so that `load_state`,
        on this env or a fresh one made alike, continues the very same trajectories.

        Raises:
            RuntimeError: before the first reset.
        """
        if self._episodes is None:
            raise RuntimeError("call reset() before save_state()")
        tree = {"episodes": self._episodes, "outputs": self._kept}
        extra = {"pending_seed": self._seed}
        save_adapter(
            path, "TorchRLEnv", tree, env_id=self.env_id, settings=self._settings(), extra=extra
        )

    def load_state(self, path: str | os.PathLike[str]) -> TensorDict:
        """Restores the state `save_state` wrote, to step on from it.

        Args:
            path: a file written by `save_state` of a TorchRL env with the same environment
                and ``num_envs``.

        Returns:
            The root TensorDict of the restored state (observations and done entries, as
            `reset` returns them): set its ``"action"`` and step on.

        Raises:
            FileNotFoundError: no file at ``path``.
            ValueError: a checkpoint of another env id, ``num_envs`` or state
                (`horizax.checkpoint.load` names what differs).
        """
        keys = engine.seed_keys(0, self._num_envs)
        episodes, kept, _ = jax.eval_shape(lambda k: _reset_all(*self._static(), k), keys)
        like = {"episodes": episodes, "outputs": kept}
        tree, extra = load_adapter(
            path, "TorchRLEnv", like, env_id=self.env_id, settings=self._settings()
        )
        self._episodes, self._kept = tree["episodes"], tree["outputs"]
        seed = extra.get("pending_seed")
        self._seed = None if seed is None else int(seed)
        # Fresh copies for torch, as every output: TorchRL may write into them in place.
        out = {k: jax.tree.map(jnp.copy, v) for k, v in self._kept.items() if k != "reward"}
        return self._tensordict(out)

    def _settings(self) -> dict[str, Any]:
        return {"num_envs": self._num_envs}

    def render(self, index: int = 0) -> np.ndarray:
        """u8[H, W, 3] frame of environment ``index``'s current state.

        Raises:
            RuntimeError: before the first reset.
        """
        if self._episodes is None:
            raise RuntimeError("call reset() before render()")
        state = jax.tree.map(lambda x: x[index], self._episodes.state)
        return np.asarray(self.fenv.render(state), dtype=np.uint8)


HorizaxEnv = TorchRLEnv  # the name before the adapters were named by their target
