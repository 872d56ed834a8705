"""A reference PPO in the PureJaxRL style, with exact bootstrapping (extra ``train``).

Environment and learner run in one jitted program per update: a `lax.scan` of
``num_steps`` steps of a `horizax.vector.VectorEnv` (SAME_STEP autoreset, so the real last
observation of every episode that ended is at hand), then generalized advantages
(`horizax.train.advantages.gae`: a truncation bootstraps from the value of that last
observation, a termination from zero), then ``update_epochs`` epochs of clipped PPO over
``num_minibatches`` minibatches of environments.

Data-parallel: the environments' axis is sharded over the `VectorEnv`'s mesh and the
parameters are replicated; the loss is a mean over the global minibatch, so under `jax.jit`
XLA averages the gradients across devices (and hosts, after `jax.distributed.initialize`).
The same seed gives the same parameters on 1 device and on N (to float tolerance: the
reductions are summed in another order).

Example::

    from horizax.train.ppo import PPO, default_config

    learner = PPO("MiniGrid-Empty-8x8-v0", default_config("MiniGrid-Empty-8x8-v0"))
    state = learner.init(seed=0)
    for _ in range(learner.config.num_updates):
        state, metrics = learner.update(state)     # metrics: dict of floats
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import Array

from horizax.core import spaces
from horizax.core.checks import int_in_range
from horizax.core.struct import pytree_dataclass
from horizax.train import networks
from horizax.train.advantages import bootstrap_values, gae
from horizax.vector import VectorEnv

__all__ = ["PPO", "PPOConfig", "ObservationStats", "TrainState", "default_config"]

_LOSS_INPUTS = ("observation", "action", "logp", "value", "advantage", "target")


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """PPO's hyperparameters (defaults: PureJaxRL's PPO for discrete tasks).

    Attributes:
        total_steps: environment steps to train for (over all environments).
        num_envs: environments stepped together (a multiple of ``num_minibatches``).
        num_steps: steps per environment in each update's rollout.
        learning_rate: Adam's step size (annealed linearly to 0 if ``anneal_lr``).
        gamma, gae_lambda: discount and GAE parameter, in [0, 1].
        clip_eps: the PPO ratio and value clip.
        ent_coef, vf_coef: entropy bonus and value-loss weights.
        max_grad_norm: global gradient-norm clip.
        update_epochs, num_minibatches: passes over each rollout, and minibatches per pass
            (each a group of whole environments).
        hidden: hidden layer sizes of the actor and critic MLPs.
        normalize_observations: standardise features with running mean and variance.
        reward_scale: rewards are multiplied by it for the value targets (the metrics report
            unscaled returns); the orbital games' rewards are metres, hence their 0.01.
        truncation_as_termination: bootstrap from zero on truncations (the common mistake),
            for ablations.
    """

    total_steps: int = 500_000
    num_envs: int = 64
    num_steps: int = 128
    learning_rate: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_eps: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    update_epochs: int = 4
    num_minibatches: int = 8
    hidden: tuple[int, ...] = (64, 64)
    normalize_observations: bool = True
    reward_scale: float = 1.0
    truncation_as_termination: bool = False

    def __post_init__(self) -> None:
        for name in ("total_steps", "num_envs", "num_steps", "update_epochs", "num_minibatches"):
            int_in_range(getattr(self, name), name, maximum=2**62)
        for name in ("gamma", "gae_lambda"):
            if not 0.0 <= float(getattr(self, name)) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        names = ("learning_rate", "clip_eps", "ent_coef", "vf_coef", "max_grad_norm")
        for name in (*names, "reward_scale"):
            value = float(getattr(self, name))
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, got {value}")
        if self.num_envs % self.num_minibatches:
            raise ValueError(
                f"num_envs ({self.num_envs}) must be a multiple of num_minibatches "
                f"({self.num_minibatches})"
            )
        if not self.hidden or any(int_in_range(h, "hidden") < 1 for h in self.hidden):
            raise ValueError(f"hidden must be a non-empty tuple of ints >= 1, got {self.hidden}")
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))

    @property
    def steps_per_update(self) -> int:
        """``num_envs * num_steps``."""
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        """Updates in ``total_steps`` (at least one)."""
        return max(1, self.total_steps // self.steps_per_update)


def default_config(env_id: str, **overrides: Any) -> PPOConfig:
    """Per-family defaults, with ``overrides`` (`PPOConfig` fields) applied.

    Gridworlds and the Maze: PureJaxRL's discrete settings, 500 k steps. Orbital games
    (continuous thrust): no entropy bonus, learning rate 3e-4, 64-step rollouts, rewards
    scaled by 0.01, 1 M steps.
    """
    family: dict[str, Any] = {}
    if env_id.startswith("Orbital-"):
        family = {"total_steps": 1_000_000, "learning_rate": 3e-4, "ent_coef": 0.0}
        family |= {"reward_scale": 0.01}
        family |= {"num_steps": 64, "num_minibatches": 4}
    return PPOConfig(**{**family, **overrides})


@pytree_dataclass
class ObservationStats:
    """Running feature moments (parallel-variance updates): f32[F] mean and var, f32[] count."""

    mean: Array
    var: Array
    count: Array

    def normalize(self, x: Array) -> Array:
        """``x`` standardised and clipped to [-10, 10]."""
        return jnp.clip((x - self.mean) / jnp.sqrt(self.var + 1e-8), -10.0, 10.0)

    def updated(self, x: Array) -> ObservationStats:
        """The moments after also seeing ``x`` [..., F]."""
        flat = x.reshape(-1, x.shape[-1])
        n = jnp.float32(flat.shape[0])
        mean, var = flat.mean(0), flat.var(0)
        delta, total = mean - self.mean, self.count + n
        m2 = self.var * self.count + var * n + delta**2 * self.count * n / total
        return ObservationStats(self.mean + delta * n / total, m2 / total, total)


@pytree_dataclass
class TrainState:
    """Everything an update reads: checkpoint it to resume exactly.

    Attributes:
        params: the network parameters (replicated).
        opt_state: the optimizer state (its step count drives the annealing).
        stats: the `ObservationStats`.
        env_state: the environments' engine state, ``[N]`` (sharded).
        observation: the observations the next step acts on, ``[N, ...]``.
        episode_return: f32[N], the return so far of each running episode.
        key: the learner's PRNG key.
        update: i32[], updates done.
    """

    params: Any
    opt_state: Any
    stats: ObservationStats
    env_state: Any
    observation: Any
    episode_return: Array
    key: Array
    update: Array


class PPO:
    """The learner: `init` a `TrainState`, then `update` it ``config.num_updates`` times.

    Args:
        env: a registered id (with ``horizax.make`` ``overrides``) or an environment object.
        config: the `PPOConfig`.
        mesh, devices: the `VectorEnv`'s mesh (default: every device JAX sees).
        **overrides: ``horizax.make`` overrides.

    Raises:
        TypeError: an observation space the networks cannot encode.
        ValueError: as `VectorEnv`.
    """

    def __init__(
        self,
        env: Any,
        config: PPOConfig,
        *,
        mesh: Any = None,
        devices: int | None = None,
        **overrides: Any,
    ) -> None:
        self.config = config
        self.venv = VectorEnv(
            env, config.num_envs, autoreset_mode="SameStep", mesh=mesh, devices=devices, **overrides
        )
        self.observation_space = self.venv.single_observation_space
        networks.feature_size(self.observation_space)  # refuses what it cannot encode
        space = self.venv.single_action_space
        self.continuous = isinstance(space, spaces.Box)
        self.action_shape: tuple[int, ...] = ()
        if isinstance(space, spaces.Box):
            self.action_shape = tuple(space.shape)
            action_dim = int(np.prod(self.action_shape))
        else:
            action_dim = int(space.n)
        self.network = networks.ActorCritic(action_dim, self.continuous, config.hidden)
        minibatch_steps = config.update_epochs * config.num_minibatches
        rate: Any = config.learning_rate
        if config.anneal_lr:
            rate = optax.linear_schedule(
                config.learning_rate, 0.0, config.num_updates * minibatch_steps
            )
        self.optimizer = optax.chain(
            optax.clip_by_global_norm(config.max_grad_norm), optax.adam(rate, eps=1e-5)
        )
        self._init = jax.jit(self._init_fn)
        self._update = jax.jit(self._update_fn)
        self._run = jax.jit(self._run_fn, static_argnums=1)

    # --- public -------------------------------------------------------------------------

    def init(self, seed: int) -> TrainState:
        """A fresh `TrainState`: environments seeded ``seed + i``, parameters from ``seed``."""
        int_in_range(seed, "seed", minimum=0, maximum=2**32 - 1)
        env_state, first = self.venv.reset(seed=seed)
        return self._init(jax.random.PRNGKey(seed), env_state, first.observation)

    def update(self, state: TrainState) -> tuple[TrainState, dict[str, float]]:
        """One rollout and PPO update; the metrics of that rollout as Python floats."""
        state, metrics = self._update(state)
        return state, {k: float(v) for k, v in jax.device_get(metrics).items()}

    def run(self, state: TrainState, num_updates: int) -> tuple[TrainState, dict[str, Array]]:
        """``num_updates`` updates as one jitted `lax.scan` (PureJaxRL's whole-run program).

        Equal to calling `update` ``num_updates`` times; the metrics come back as arrays
        ``f32[num_updates]`` (one entry per update) and the host is not consulted in between.
        Compiles once per ``num_updates``.
        """
        return self._run(state, int_in_range(num_updates, "num_updates", maximum=2**31 - 1))

    def compile_run(self, state: TrainState, num_updates: int) -> Any:
        """`run` compiled ahead of time: ``program(state) -> (state, metrics)``."""
        num_updates = int_in_range(num_updates, "num_updates", maximum=2**31 - 1)
        return self._run.lower(state, num_updates).compile()

    def act(self, state: TrainState, observation: Any, key: Array, greedy: bool = False) -> Array:
        """Actions for an observation batch ``[N, ...]`` (the mean / argmax if ``greedy``)."""
        head, log_std, _ = self._apply(state.params, state.stats, observation)
        if greedy:
            return head.reshape(-1, *self.action_shape) if self.continuous else head.argmax(-1)
        keys = jax.random.split(key, head.shape[0])
        actions = jax.vmap(lambda k, h: networks.sample(k, h, log_std))(keys, head)
        return actions.reshape(-1, *self.action_shape) if self.continuous else actions

    def value(self, state: TrainState, observation: Any) -> Array:
        """f32[N]: the critic's value of an observation batch (in ``reward_scale`` units)."""
        return self._apply(state.params, state.stats, observation)[2]

    def policy(self, state: TrainState) -> Any:
        """``policy_fn(keys [N], observation) -> actions`` for `VectorEnv.rollout`: each
        environment's action drawn from its own key."""

        def policy_fn(keys: Array, observation: Any) -> Array:
            head, log_std, _ = self._apply(state.params, state.stats, observation)
            actions = jax.vmap(lambda k, h: networks.sample(k, h, log_std))(keys, head)
            return actions.reshape(-1, *self.action_shape) if self.continuous else actions

        return policy_fn

    # --- the programs ----------------------------------------------------------------------

    def _features(self, observation: Any, batch_ndim: int = 1) -> Array:
        return networks.features(self.observation_space, observation, batch_ndim)

    def _apply(
        self, params: Any, stats: ObservationStats, observation: Any, batch_ndim: int = 1
    ) -> Any:
        x = self._features(observation, batch_ndim)
        if self.config.normalize_observations:
            x = stats.normalize(x)
        return self.network.apply(params, x)

    def _init_fn(self, key: Array, env_state: Any, observation: Any) -> TrainState:
        x = self._features(observation)
        params = self.network.init(key, x)
        stats = ObservationStats(
            jnp.zeros(x.shape[-1]), jnp.ones(x.shape[-1]), jnp.float32(1e-4)
        ).updated(x)
        returns = jax.lax.with_sharding_constraint(
            jnp.zeros(self.config.num_envs, jnp.float32), self.venv.sharding
        )
        return TrainState(
            params=params,
            opt_state=self.optimizer.init(params),
            stats=stats,
            env_state=env_state,
            observation=observation,
            episode_return=returns,
            key=jax.random.fold_in(key, 1),
            update=jnp.int32(0),
        )

    def _update_fn(self, ts: TrainState) -> tuple[TrainState, dict[str, Array]]:
        cfg = self.config
        key, rollout_key, epoch_key = jax.random.split(ts.key, 3)
        (env_state, observation, episode_return), batch = jax.lax.scan(
            lambda carry, k: self._env_step(ts, carry, k),
            (ts.env_state, ts.observation, ts.episode_return),
            jax.random.split(rollout_key, cfg.num_steps),
        )
        last_value = self._apply(ts.params, ts.stats, observation)[2]
        next_values = jnp.concatenate([batch["value"][1:], last_value[None]], axis=0)
        final_values = self._truncated_values(
            ts.params, ts.stats, batch.pop("final_observation"), batch["truncated"]
        )
        next_values = bootstrap_values(next_values, final_values, batch["final_mask"])
        advantages, targets = gae(
            batch["reward"] * cfg.reward_scale,
            batch["value"],
            next_values,
            batch["terminated"],
            batch["truncated"],
            gamma=cfg.gamma,
            lam=cfg.gae_lambda,
            truncation_as_termination=cfg.truncation_as_termination,
        )
        batch |= {"advantage": advantages, "target": targets}
        (params, opt_state), losses = jax.lax.scan(
            lambda carry, k: self._epoch(ts.stats, carry, batch, k),
            (ts.params, ts.opt_state),
            jax.random.split(epoch_key, cfg.update_epochs),
        )
        features = self._features(batch["observation"], 2)
        stats = ts.stats.updated(features) if cfg.normalize_observations else ts.stats
        state = TrainState(
            params=params,
            opt_state=opt_state,
            stats=stats,
            env_state=env_state,
            observation=observation,
            episode_return=episode_return,
            key=key,
            update=ts.update + 1,
        )
        truncated = batch["truncated"]
        metrics = {
            "episodes": batch["ended_return_mask"].sum(dtype=jnp.float32),
            "return_sum": batch["ended_return"].sum(),
            "successes": (batch["terminated"] & (batch["reward"] > 0)).sum(dtype=jnp.float32),
            "terminated": batch["terminated"].sum(dtype=jnp.float32),
            "truncated": truncated.sum(dtype=jnp.float32),
            "value_at_truncation": jnp.where(truncated, final_values, 0.0).sum()
            / jnp.maximum(truncated.sum(), 1),
            **{name: value[-1].mean() for name, value in losses.items()},
        }
        return state, metrics

    def _run_fn(self, ts: TrainState, num_updates: int) -> tuple[TrainState, dict[str, Array]]:
        return jax.lax.scan(lambda state, _: self._update_fn(state), ts, length=num_updates)

    def _truncated_values(
        self, params: Any, stats: ObservationStats, final_observation: Any, truncated: Array
    ) -> Array:
        """f32[T, N]: the critic's value of each truncated episode's real last observation, 0
        elsewhere (a terminated episode bootstraps from zero, so its value is never read).

        Truncations are rare (one per episode), so the critic runs on the at most ``N`` of
        them, gathered, rather than on all ``T * N`` final observations (which doubled the
        rollout's critic work); a rollout with more than ``N`` takes the full pass. Computed
        with ``truncation_as_termination`` too: the metric ``value_at_truncation`` reads it.
        """
        steps, envs = truncated.shape
        flat = truncated.reshape(-1)

        def gathered() -> Array:
            (rows,) = jnp.nonzero(flat, size=envs, fill_value=0)
            leaves = jax.tree.map(
                lambda x: x.reshape(steps * envs, *x.shape[2:])[rows], final_observation
            )
            values = self._apply(params, stats, leaves)[2]
            values = jnp.where(jnp.arange(envs) < flat.sum(), values, 0.0)
            return jnp.zeros(steps * envs, jnp.float32).at[rows].add(values).reshape(steps, envs)

        def full() -> Array:
            values = self._apply(params, stats, final_observation, 2)[2]
            return jnp.where(truncated, values, 0.0)

        return jax.lax.cond(flat.sum() <= envs, gathered, full)

    def _env_step(self, ts: TrainState, carry: Any, key: Array) -> tuple[Any, dict[str, Any]]:
        env_state, observation, episode_return = carry
        head, log_std, value = self._apply(ts.params, ts.stats, observation)
        keys = jax.lax.with_sharding_constraint(
            jax.random.split(key, self.config.num_envs), self.venv.sharding
        )
        action = jax.vmap(lambda k, h: networks.sample(k, h, log_std))(keys, head)
        logp = networks.log_prob(head, log_std, action)
        env_action = action.reshape(-1, *self.action_shape) if self.continuous else action
        env_state, step, final = self.venv.step(env_state, env_action)
        assert final is not None  # SAME_STEP keeps the final observations
        ended = step.terminated | step.truncated
        episode_return = episode_return + step.reward
        record = {
            "observation": observation,
            "action": action,
            "logp": logp,
            "value": value,
            "reward": step.reward,
            "terminated": step.terminated,
            "truncated": step.truncated,
            "final_observation": final.observation,
            "final_mask": final.mask,
            "ended_return": jnp.where(ended, episode_return, 0.0),
            "ended_return_mask": ended,
        }
        carry = (env_state, step.observation, jnp.where(ended, 0.0, episode_return))
        return carry, record

    def _epoch(
        self, stats: ObservationStats, carry: Any, batch: dict[str, Any], key: Array
    ) -> tuple[Any, dict[str, Array]]:
        cfg = self.config
        groups = cfg.num_minibatches
        order = jax.random.permutation(key, cfg.num_envs)

        def split(leaf: Array) -> Array:  # [T, N, ...] -> [M, T, N / M, ...]
            leaf = jnp.take(leaf, order, axis=1)
            leaf = leaf.reshape(leaf.shape[0], groups, -1, *leaf.shape[2:])
            return jnp.swapaxes(leaf, 0, 1)

        used = {k: batch[k] for k in _LOSS_INPUTS}  # the rest is bookkeeping: not shuffled
        minibatches = jax.tree.map(split, used)

        def minibatch(carry: Any, mb: dict[str, Any]) -> tuple[Any, dict[str, Array]]:
            params, opt_state = carry
            grads, losses = jax.grad(self._loss, has_aux=True)(params, stats, mb)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), losses

        carry, losses = jax.lax.scan(minibatch, carry, minibatches)
        return carry, jax.tree.map(jnp.mean, losses)

    def _loss(
        self, params: Any, stats: ObservationStats, mb: dict[str, Any]
    ) -> tuple[Array, dict[str, Array]]:
        cfg = self.config
        head, log_std, value = self._apply(params, stats, mb["observation"], 2)
        logp = networks.log_prob(head, log_std, mb["action"])
        clipped = mb["value"] + jnp.clip(value - mb["value"], -cfg.clip_eps, cfg.clip_eps)
        value_loss = (
            0.5 * jnp.maximum((value - mb["target"]) ** 2, (clipped - mb["target"]) ** 2).mean()
        )
        advantage = mb["advantage"]
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        ratio = jnp.exp(logp - mb["logp"])
        policy_loss = -jnp.minimum(
            ratio * advantage, jnp.clip(ratio, 1 - cfg.clip_eps, 1 + cfg.clip_eps) * advantage
        ).mean()
        entropy = networks.entropy(head, log_std).mean()
        total = policy_loss + cfg.vf_coef * value_loss - cfg.ent_coef * entropy
        return total, {"policy_loss": policy_loss, "value_loss": value_loss, "entropy": entropy}
