"""Batched environments sharded over devices and hosts: `VectorEnv`.

A `VectorEnv` runs ``num_envs`` copies of any registered id (or any environment with a
protocol view) through the episode engine (`horizax.core.episode`), in one of its autoreset
modes. The batch axis is sharded over a `jax.sharding.Mesh` with one axis, ``"batch"``:

* **one process**: the mesh holds every local device by default (`jax.devices()`); with one
  device the programs are the plain jitted `vmap` of the engine;
* **several processes** (JAX's multi-controller runtime: call `jax.distributed.initialize`
  first, in every process): `jax.devices()` then lists every process's devices, each
  process owns the rows on its own devices, and the global batch is their concatenation in
  process order. Every process runs the same calls with the same arguments.

Each device steps its own rows with the engine's per-environment functions (`jax.shard_map`):
an environment's trajectory is a pure function of its key and its actions, so the same
global key (or seed) and actions give the same trajectories on 1 device, on N devices and on
several processes, and no step needs communication between devices.

Example::

    import jax
    from horizax.vector import VectorEnv, random_policy

    venv = VectorEnv("MiniGrid-DoorKey-8x8-v0", num_envs=1024)
    state, step = venv.reset(jax.random.PRNGKey(0))    # or venv.reset(seed=0)
    state, step, final = venv.step(state, actions)      # actions: i32[1024]
    carry, trajectory = venv.rollout(random_policy(venv), jax.random.PRNGKey(1), 128)
    trajectory.step.reward.shape                         # (128, 1024)

Shapes: ``N = num_envs``, ``T = num_steps``; a leaf of a batched pytree has a leading axis
``N`` (``[T, N, ...]`` in a trajectory). Outputs are global `jax.Array` s sharded over the
mesh's ``"batch"`` axis; `local_rows` gives a process its own rows as numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from horizax.core import episode as engine
from horizax.core import spaces, threefry
from horizax.core.checks import check_key, check_num_envs, int_in_range
from horizax.core.episode import AutoresetMode, Episode, Final
from horizax.core.protocol import Step
from horizax.core.struct import pytree_dataclass

__all__ = [
    "BATCH_AXIS",
    "Trajectory",
    "VectorEnv",
    "batch_mesh",
    "local_rows",
    "random_policy",
]

BATCH_AXIS = "batch"
_MAX_ROLLOUT_PROGRAMS = 8  # compiled rollouts kept per VectorEnv (oldest dropped first)

# policy_fn(keys [N], observation batch) -> actions [N, ...]
PolicyFn = Callable[[Array, Any], Array]


@pytree_dataclass
class Trajectory:
    """What `VectorEnv.rollout` records, each leaf with leading axes ``[T, N]``.

    Attributes:
        observation: the observations the policy acted on.
        action: the actions taken.
        step: the engine's `Step` of each step (reward f32, terminated and truncated bool,
            the observation after the step and info).
        final: SAME_STEP only (else None): the `Final` of each step, whose ``observation`` is
            the real last observation of an episode that ended there (``mask`` True), the
            one to bootstrap from on a truncation.
    """

    observation: Any
    action: Array
    step: Step
    final: Final | None


def batch_mesh(devices: int | None = None) -> Mesh:
    """A one-axis mesh (``"batch"``) over the first ``devices`` devices of `jax.devices()`.

    Args:
        devices: how many devices; None for all of them (every process's, after
            `jax.distributed.initialize`).

    Raises:
        ValueError: ``devices`` not an int in ``[1, len(jax.devices())]``.
    """
    available = jax.devices()
    if devices is None:
        return Mesh(np.array(available), (BATCH_AXIS,))
    count = int_in_range(devices, "devices", maximum=len(available))  # JAX sees that many
    return Mesh(np.array(available[:count]), (BATCH_AXIS,))


def local_rows(tree: Any) -> Any:
    """The rows of a batched pytree that live on this process, as numpy arrays.

    A leaf sharded over the ``"batch"`` axis (as `VectorEnv` returns them: axis 0 of a
    batch, axis 1 of a trajectory's ``[T, N, ...]``) gives this process's rows in order; any
    other leaf is returned whole. In a single process the result is the whole batch.
    """

    def rows(leaf: Array) -> np.ndarray:
        spec = tuple(getattr(leaf.sharding, "spec", ()))
        if leaf.is_fully_addressable or BATCH_AXIS not in spec:
            return np.asarray(leaf)
        axis = spec.index(BATCH_AXIS)
        by_start = {s.index[axis].start or 0: s for s in leaf.addressable_shards}
        return np.concatenate([np.asarray(by_start[k].data) for k in sorted(by_start)], axis)

    return jax.tree.map(rows, tree)


def random_policy(venv: VectorEnv) -> PolicyFn:
    """A uniform random policy over ``venv``'s action space, one draw per environment key.

    Each environment's action is drawn from its own key (`VectorEnv.rollout` hands one per
    environment), so the draws do not depend on how the batch is sharded.
    """
    space = venv.single_action_space
    return lambda keys, observation: jax.vmap(lambda k: space.sample(k))(keys)


class VectorEnv:
    """``num_envs`` environments of one id, stepped by the episode engine over a device mesh.

    Args:
        env: a registered id (``horizax.make(env, **overrides)``) or an environment object
            with a protocol view (`horizax.core.protocol.functional`).
        num_envs: the global batch size ``N``; a multiple of the mesh's device count.
        autoreset_mode: an `AutoresetMode` or its value (``"NextStep"``, ``"SameStep"``,
            ``"Disabled"``); default NEXT_STEP.
        mesh: a `jax.sharding.Mesh` with a ``"batch"`` axis; default `batch_mesh()` (every
            device JAX sees). ``devices=k`` is shorthand for ``batch_mesh(k)``.
        devices: how many of `jax.devices()` to use (not with ``mesh``).
        **overrides: ``horizax.make`` overrides (``max_steps``, ...), with an id only.

    Attributes:
        num_envs: the number of environments in the batch.
        mesh: the device mesh.
        autoreset_mode: the autoreset mode.
        fenv: the functional (protocol) view of the environment.
        single_observation_space: one environment's observation space (a horizax space).
        single_action_space: one environment's action space (a horizax space).
        sharding: the batch axis's `NamedSharding`.

    Raises:
        TypeError: overrides with an environment object, an unsupported action space, a
            ``mesh`` without a ``"batch"`` axis or both ``mesh`` and ``devices``.
        ValueError: an unknown id, a bad ``num_envs`` or ``devices``, or ``num_envs`` not a
            multiple of the device count.
    """

    def __init__(
        self,
        env: Any,
        num_envs: int,
        *,
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        mesh: Mesh | None = None,
        devices: int | None = None,
        **overrides: Any,
    ) -> None:
        # The adapters' rule (an id with overrides, or a configured object), not a copy of it.
        from horizax.adapters.gymnasium_common import resolve_env

        self.fenv, _ = resolve_env(env, overrides)
        self.single_action_space = self.fenv.action_space
        self.single_observation_space = self.fenv.observation_space
        self.num_envs = check_num_envs(num_envs)
        self.autoreset_mode = engine.as_mode(autoreset_mode)
        if mesh is not None and devices is not None:
            raise TypeError("give mesh or devices, not both")
        self.mesh = batch_mesh(devices) if mesh is None else mesh
        if not isinstance(self.mesh, Mesh) or BATCH_AXIS not in self.mesh.axis_names:
            raise TypeError(f"mesh must be a jax.sharding.Mesh with a {BATCH_AXIS!r} axis")
        shards = self.mesh.shape[BATCH_AXIS]
        if self.num_envs % shards:
            raise ValueError(
                f"num_envs must be a multiple of the {shards} devices of the mesh's "
                f"{BATCH_AXIS!r} axis, got {self.num_envs}"
            )
        self.sharding = NamedSharding(self.mesh, PartitionSpec(BATCH_AXIS))
        self._replicated = NamedSharding(self.mesh, PartitionSpec())
        # A program of its own: a plain vmap compiles faster than the autoreset's chunks.
        self._reset = jax.jit(
            self._sharded(lambda keys: engine.start_episodes(self.fenv, keys, rounds=False))
        )
        mode = self.autoreset_mode
        self._step = jax.jit(
            self._sharded(lambda e, a: engine.step_episodes(self.fenv, mode, e, a))
        )
        self._split = jax.jit(
            lambda k: threefry.split(k, self.num_envs), out_shardings=self.sharding
        )
        self._rollouts: dict[tuple[Any, int], Callable[..., Any]] = {}

    def _sharded(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` over a batch, run by each device on its own rows."""
        spec = PartitionSpec(BATCH_AXIS)
        # check_vma off: the engine's sparse reset is a custom_vmap, which the check rejects.
        return jax.shard_map(fn, mesh=self.mesh, in_specs=spec, out_specs=spec, check_vma=False)

    def shard(self, batch: Any) -> Any:
        """Places a host batch (numpy leaves with leading axis ``N``, the global batch, the
        same in every process) on the mesh, each process keeping its own rows."""

        def place(leaf: Any) -> Array:
            if isinstance(leaf, jax.Array):
                return jax.device_put(leaf, self.sharding)
            array = np.asarray(leaf)
            return jax.make_array_from_callback(array.shape, self.sharding, lambda i: array[i])

        return jax.tree.map(place, batch)

    def keys(self, key: Any = None, *, seed: int | None = None) -> Array:
        """The first keys of the batch, sharded: ``[N, *key_shape]``.

        From ``key``: ``jax.random.split(key, N)``. From ``seed``: environment ``i`` gets the
        key of seed ``seed + i`` (`horizax.core.episode.seed_keys`), as horizax's Gymnasium
        vector env and Gymnasium's own vector envs seed a batch, so the same seed plays the
        same episodes here and there.
        """
        if (key is None) == (seed is None):
            raise TypeError("give exactly one of key and seed")
        if seed is not None:
            return self.shard(engine.seed_keys(seed, self.num_envs))
        check_key(key)
        return self._split(jax.device_put(key, self._replicated))

    def reset(self, key: Any = None, *, seed: int | None = None) -> tuple[Episode, Step]:
        """Starts every environment: ``(state, step)``.

        Args:
            key: one PRNG key (split into the batch's keys), or
            seed: an int (environment ``i`` seeded ``seed + i``); exactly one of the two.

        Returns:
            ``state``: the engine's `Episode` batch; ``step``: the first `Step` batch
            (observation, reward 0, both flags False).
        """
        return self._reset(self.keys(key, seed=seed))

    def step(self, state: Episode, actions: Any) -> tuple[Episode, Step, Final | None]:
        """Steps every environment under the autoreset mode (`horizax.core.episode.step_episode`).

        Args:
            state: the `Episode` batch from `reset` or `step`.
            actions: ``i32[N]`` (Discrete) or ``f32[N, *shape]`` (Box): a jax array (kept on
                its devices, or moved to the mesh) or a numpy array of the global batch.

        Returns:
            ``(state, step, final)``; ``final`` is None except in SAME_STEP.

        Raises:
            TypeError, ValueError: actions of the wrong dtype or shape; numpy Discrete actions
                outside ``[0, n)``. Inside `jit` (and for jax arrays, whose values are not
                read) an out-of-range action does what its family documents.
        """
        return self._step(state, self.shard(self.check_actions(actions)))

    def check_actions(self, actions: Any) -> Any:
        """``actions`` checked against the action space for a batch of ``N``, or raises."""
        space = self.single_action_space
        if isinstance(space, spaces.Box):
            return spaces.check_box_action(actions, space, (self.num_envs,))
        if isinstance(actions, bool):
            raise TypeError("actions must be integers, got a bool")
        array = actions if isinstance(actions, jax.Array) else np.asarray(actions)
        if not jnp.issubdtype(array.dtype, jnp.integer):
            raise TypeError(f"actions must be integers, got dtype {array.dtype}")
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {array.shape}")
        if isinstance(array, np.ndarray) and ((array < 0) | (array >= space.n)).any():
            raise ValueError(f"actions must be in [0, {space.n}), got {array.tolist()}")
        return array.astype(np.int32) if isinstance(array, np.ndarray) else array

    def rollout(
        self,
        policy_fn: PolicyFn,
        key: Any,
        num_steps: int,
        *,
        start: tuple[Episode, Any] | None = None,
    ) -> tuple[tuple[Episode, Any], Trajectory]:
        """Runs ``policy_fn`` for ``num_steps`` steps of every environment, as one jitted scan.

        Args:
            policy_fn: ``(keys [N], observation batch) -> actions`` (jax-traceable). Each
                environment gets its own key at each step, so a policy that draws per key
                acts the same however the batch is sharded (`random_policy`).
            key: one PRNG key: split into the reset key (when ``start`` is None) and the
                policy's keys.
            num_steps: ``T`` >= 1.
            start: ``(state, observation)`` to continue from, as the ``carry`` a previous
                call returned; None resets first.

        Returns:
            ``(carry, trajectory)``: ``carry = (state, observation)`` after the last step
            (pass it back as ``start``), and the `Trajectory` with leaves ``[T, N, ...]``.

        The program is compiled once per (``policy_fn``, ``num_steps``): pass the same
        function object to reuse it (the last 8 programs are kept).
        """
        num_steps = int_in_range(num_steps, "num_steps")
        check_key(key)
        reset_key, policy_key = jax.random.split(key)
        if start is None:
            state, first = self.reset(reset_key)
            start = (state, first.observation)
        program = self._rollouts.get((policy_fn, num_steps))
        if program is None:
            if len(self._rollouts) >= _MAX_ROLLOUT_PROGRAMS:  # a new lambda per call: bounded
                self._rollouts.pop(next(iter(self._rollouts)))
            program = self._rollout_program(policy_fn, num_steps)
            self._rollouts[(policy_fn, num_steps)] = program
        return program(start, jax.device_put(policy_key, self._replicated))

    def _rollout_program(self, policy_fn: PolicyFn, num_steps: int) -> Callable[..., Any]:
        step_batch = self._step
        constrain = jax.lax.with_sharding_constraint

        def body(carry: Any, step_key: Array) -> tuple[Any, Trajectory]:
            state, observation = carry
            keys = constrain(threefry.split(step_key, self.num_envs), self.sharding)
            actions = constrain(policy_fn(keys, observation), self.sharding)
            state, step, final = step_batch(state, actions)
            return (state, step.observation), Trajectory(observation, actions, step, final)

        def run(start: Any, key: Array) -> Any:
            return jax.lax.scan(body, start, threefry.split(key, num_steps))

        return jax.jit(run)
