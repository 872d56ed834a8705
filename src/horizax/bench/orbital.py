"""Orbital adapters for the harness: orbitalgym 0.1.0's games against horizax's.

Two rollouts of the same scenario (LadyBanditGuard or PursuitEvasion, 50 steps of 10 s, the
builders' zero-thrust opponent, uniform random thrust commands):

* `select_rollout`: either library's ``SingleAgentView`` under one autoreset written here
  (`_select_autoreset`: every environment computes a reset each step and a select keeps it
  where the episode ended, as a vmapped ``lax.cond`` would); orbitalgym has no batched
  autoreset of its own.
* `engine_rollout`: horizax's registered id under its episode engine (sparse autoreset).

orbitalgym (Python 3.12) is imported inside the adapters. ``horizax bench --vs orbitalgym``
and ``benchmarks/orbital_peers.py`` use them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from horizax.bench.harness import state_bytes

GAMES = {"lbg": "LadyBanditGuard", "pe": "PursuitEvasion"}


MAX_HORIZON_S = 500.0  # 50 steps of 10 s: episodes end inside the rollout


Rollout = Callable[[jax.Array], tuple[jax.Array, jax.Array]]


def _package(lib: str) -> Any:
    if lib == "orbitalgym":
        import orbitalgym  # pyright: ignore[reportMissingImports]

        return orbitalgym
    if lib == "horizax":
        import horizax.orbital

        return horizax.orbital
    raise ValueError(f"unknown library {lib!r}")


def make_config(lib: str, game: str) -> Any:
    """The scenario of ``game`` ("lbg" / "pe") built by ``lib``'s own builder."""
    pkg = _package(lib)
    if game == "lbg":
        return pkg.make_lady_bandit_guard(seed=0, max_horizon_s=MAX_HORIZON_S)
    if game == "pe":
        return pkg.make_game(pkg.GameKey.PURSUIT_EVASION, max_horizon_s=MAX_HORIZON_S)
    raise ValueError(f"unknown game {game!r}; expected one of {sorted(GAMES)}")


def dv_max(cfg: Any) -> float:
    """The controlled (guard) side's largest velocity change per step, m/s."""
    params = cfg.guard_params
    return float(params.max_thrust_n * cfg.dt / params.dry_mass_kg)


def _sample_commands(key: jax.Array, cfg: Any, B: int, T: int) -> jax.Array:
    """f32[T, B, n_guards, 3]: uniform in [-dv_max, dv_max] per component (RTN)."""
    bound = dv_max(cfg)
    return jax.random.uniform(
        key, (T, B, cfg.n_guards, 3), jnp.float32, minval=-bound, maxval=bound
    )


def _split_keys(key: jax.Array, B: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(command key, per-env reset keys [B, 2], per-env step keys [B, 2])."""
    k_cmd, k_reset, k_step = jax.random.split(key, 3)
    return k_cmd, jax.random.split(k_reset, B), jax.random.split(k_step, B)


_fold_batch = jax.vmap(jax.random.fold_in, in_axes=(0, None))


def _select_autoreset(
    view: Any, reset_keys: jax.Array, t: jax.Array, done: jax.Array, stepped: Any, step_obs: Any
) -> tuple[Any, jax.Array]:
    """Where ``done`` (bool[B]), the state of ``view.reset(fold_in(reset_keys[i], t))`` and
    its first observation; elsewhere the stepped state and the step's observation. A select
    over every leaf: every environment computes the reset, as a vmapped `lax.cond` would."""
    fresh, first_obs, _ = jax.vmap(view.reset)(_fold_batch(reset_keys, t))

    def pick(new: jax.Array, old: jax.Array) -> jax.Array:
        return jnp.where(done.reshape(done.shape + (1,) * (old.ndim - 1)), new, old)

    return jax.tree.map(pick, fresh, stepped), pick(first_obs, step_obs)


def select_rollout(lib: str, game: str, B: int, T: int) -> Rollout:
    """The rollout of ``lib``'s `SingleAgentView` under `_select_autoreset`."""
    pkg = _package(lib)
    cfg = make_config(lib, game)
    view = pkg.SingleAgentView(pkg.OrbitalGymEnv(cfg))
    command_cls = view.env.guard_command_cls
    batch_step = jax.vmap(view.step)

    def rollout(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        k_cmd, reset_keys, step_keys = _split_keys(key, B)
        state, _, opp = jax.vmap(view.reset)(reset_keys)
        commands = _sample_commands(k_cmd, cfg, B, T)

        def body(carry: Any, xs: tuple[jax.Array, jax.Array]) -> tuple[Any, None]:
            state, opp, episodes, checksum = carry
            t, dv = xs
            stepped, obs, _, done, opp, _ = batch_step(
                _fold_batch(step_keys, t), state, command_cls(dv=dv), opp
            )
            state, obs = _select_autoreset(view, reset_keys, t, done, stepped, obs)
            episodes = episodes + done.sum(dtype=jnp.int32)
            checksum = checksum + obs.astype(jnp.float32).sum()
            return (state, opp, episodes, checksum), None

        init = (state, opp, jnp.int32(0), jnp.float32(0.0))
        (_, _, episodes, checksum), _ = jax.lax.scan(
            body, init, (jnp.arange(T, dtype=jnp.int32), commands)
        )
        return episodes, checksum

    rollout.state_bytes_per_env = state_bytes(lambda k: view.reset(k)[0])  # type: ignore[attr-defined]
    return rollout


def engine_rollout(game: str, B: int, T: int, mode: str = "SameStep") -> Rollout:
    """horizax's registered id under its own episode engine (`horizax.core.episode`)."""
    import horizax
    from horizax.core import episode as ep
    from horizax.orbital.policies.zero import ZeroControl

    # The select rows' opponent (the builders' ZeroControl), not the id's scripted default.
    fenv = horizax.make(
        f"Orbital-{GAMES[game]}-v0", max_horizon_s=MAX_HORIZON_S, opponent_policy=ZeroControl()
    )
    cfg = fenv.config
    assert fenv.dv_max == dv_max(cfg), (fenv.dv_max, dv_max(cfg))

    def rollout(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        k_cmd, reset_keys, _ = _split_keys(key, B)
        episodes_state, _ = ep.start_episodes(fenv, reset_keys)
        commands = _sample_commands(k_cmd, cfg, B, T).reshape(T, B, -1)

        def body(carry: Any, dv: jax.Array) -> tuple[Any, None]:
            episodes_state, episodes, checksum = carry
            episodes_state, step, _ = ep.step_episodes(fenv, mode, episodes_state, dv)
            episodes = episodes + step.done.sum(dtype=jnp.int32)
            checksum = checksum + step.observation.astype(jnp.float32).sum()
            return (episodes_state, episodes, checksum), None

        init = (episodes_state, jnp.int32(0), jnp.float32(0.0))
        (_, episodes, checksum), _ = jax.lax.scan(body, init, commands)
        return episodes, checksum

    rollout.state_bytes_per_env = state_bytes(  # type: ignore[attr-defined]
        lambda k: ep.start_episode(fenv, k)[0]
    )
    return rollout


def make_rollout(lib: str, autoreset: str, game: str, B: int, T: int, mode: str) -> Rollout:
    if autoreset == "select":
        return select_rollout(lib, game, B, T)
    if lib == "horizax" and autoreset == "engine":
        return engine_rollout(game, B, T, mode)
    raise ValueError(f"no rollout for {lib!r} with autoreset {autoreset!r}")
