"""Gridworld adapters for the harness: horizax's, navix's and xland-minigrid's.

Each ``*_make_rollout`` returns ``make_rollout(B, T) -> (rollout_fn, key)``
(`horizax.bench.harness`); each ``*_info`` the fields that describe its configuration.
Peer packages are imported inside the adapters, so this module loads wherever horizax does;
``horizax bench --vs navix|xminigrid`` and ``benchmarks/peers.py`` use them.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from horizax.bench.harness import MakeRollout, RolloutFn, make_scan_rollout

NAVIX_AUTORESET = (
    "navix Environment.step, deferred: the terminal timestep is returned as-is and the "
    "NEXT step() call returns a fresh reset, ignoring its action (that step counts in B*T)"
)


XMINIGRID_AUTORESET = {
    "gym": "xminigrid GymAutoResetWrapper: reset on the same step as termination/truncation",
    "dm": "xminigrid DmEnvAutoResetWrapper: NEXT step() call resets, ignoring its action",
}


def horizax_make_rollout(env_id: str, obs: str) -> MakeRollout:
    """Returns a ``make_rollout`` for a horizax environment (autoreset on, its default).

    Args:
        env_id: a registered horizax id, e.g. ``"MiniGrid-DoorKey-8x8-v0"``.
        obs: the name of a function in ``horizax.grid.observations``.
    """

    def make_rollout(B: int, T: int) -> tuple[RolloutFn, jax.Array]:
        import horizax
        from horizax.grid import observations

        env = horizax.make(env_id, observation_fn=getattr(observations, obs))
        rollout = make_scan_rollout(
            reset=env.reset,
            step=env.step,
            observe=lambda ts: ts.observation,
            is_done=lambda ts: ts.is_done(),
            num_actions=env.action_space.n,
            batch_size=B,
            num_steps=T,
        )
        return rollout, jax.random.key(0)

    return make_rollout


def horizax_info(env_id: str, obs: str) -> dict[str, Any]:
    """Describes a horizax configuration (version, shapes, horizon, autoreset)."""
    import horizax
    from horizax.grid import observations

    env = horizax.make(env_id, observation_fn=getattr(observations, obs))
    return {
        "library_version": horizax.__version__,
        "obs_shape": list(env.observation_space.shape),
        "obs_dtype": str(jnp.dtype(env.observation_space.dtype)),
        "num_actions": env.action_space.n,
        "max_steps": env.max_steps,
        "autoreset": NAVIX_AUTORESET.replace("navix", "horizax"),
    }


def navix_make_rollout(env_id: str, obs: str) -> MakeRollout:
    """Returns a ``make_rollout`` for a navix environment.

    Args:
        env_id: a registered navix id, e.g. ``"Navix-DoorKey-8x8-v0"``.
        obs: the name of a function in ``navix.observations`` (e.g.
            ``"symbolic"`` or ``"symbolic_first_person"``).

    Returns:
        ``make_rollout(B, T) -> (rollout_fn, key)``. Autoreset is navix's own
        (inside ``Environment.step``).
    """

    def make_rollout(B: int, T: int) -> tuple[RolloutFn, jax.Array]:
        import navix  # pyright: ignore[reportMissingImports]

        env = navix.make(env_id, observation_fn=getattr(navix.observations, obs))
        rollout = make_scan_rollout(
            reset=env.reset,
            step=env.step,
            observe=lambda ts: ts.observation,
            is_done=lambda ts: ts.is_done(),
            num_actions=len(env.action_set),
            batch_size=B,
            num_steps=T,
        )
        return rollout, jax.random.key(0)

    return make_rollout


def navix_info(env_id: str, obs: str) -> dict[str, Any]:
    """Describes a navix configuration (version, shapes, horizon, autoreset).

    Args:
        env_id: a registered navix id.
        obs: the name of a function in ``navix.observations``.

    Returns:
        Fields merged into every result record.
    """
    import navix  # pyright: ignore[reportMissingImports]

    env = navix.make(env_id, observation_fn=getattr(navix.observations, obs))
    return {
        "library_version": dist_version("navix"),
        "obs_shape": list(env.observation_space.shape),
        "obs_dtype": str(jnp.dtype(env.observation_space.dtype)),
        "num_actions": len(env.action_set),
        "max_steps": env.max_steps,
        "autoreset": NAVIX_AUTORESET,
    }


def xminigrid_make_rollout(env_id: str, autoreset: str = "gym") -> MakeRollout:
    """Returns a ``make_rollout`` for an xland-minigrid environment.

    Args:
        env_id: a registered xminigrid id, e.g. ``"MiniGrid-DoorKey-8x8"``.
        autoreset: ``"gym"`` (``GymAutoResetWrapper``, reset on the terminal
            step) or ``"dm"`` (``DmEnvAutoResetWrapper``, reset on the next step).

    Returns:
        ``make_rollout(B, T) -> (rollout_fn, key)`` using xminigrid's default
        observation (egocentric ``view_size x view_size x 2`` crop).
    """

    def make_rollout(B: int, T: int) -> tuple[RolloutFn, jax.Array]:
        import xminigrid  # pyright: ignore[reportMissingImports]
        from xminigrid.wrappers import DmEnvAutoResetWrapper, GymAutoResetWrapper  # pyright: ignore[reportMissingImports]

        env, params = xminigrid.make(env_id)
        wrapper = GymAutoResetWrapper if autoreset == "gym" else DmEnvAutoResetWrapper
        env = wrapper(env)
        rollout = make_scan_rollout(
            reset=lambda key: env.reset(params, key),
            step=lambda ts, action: env.step(params, ts, action),
            observe=lambda ts: ts.observation,
            is_done=lambda ts: ts.last(),
            num_actions=env.num_actions(params),
            batch_size=B,
            num_steps=T,
        )
        return rollout, jax.random.key(0)

    return make_rollout


def xminigrid_info(env_id: str, autoreset: str) -> dict[str, Any]:
    """Describes an xminigrid configuration (version, shapes, horizon, autoreset).

    Args:
        env_id: a registered xminigrid id.
        autoreset: ``"gym"`` or ``"dm"``.

    Returns:
        Fields merged into every result record.
    """
    import xminigrid  # pyright: ignore[reportMissingImports]

    env, params = xminigrid.make(env_id)
    return {
        "library_version": dist_version("xminigrid"),
        "obs_shape": list(env.observation_shape(params)),
        "obs_dtype": "uint8",
        "obs_occlusion": False,
        "num_actions": env.num_actions(params),
        "max_steps": params.max_steps,
        "autoreset": XMINIGRID_AUTORESET[autoreset],
    }


def dist_version(dist: str) -> str:
    """Returns an installed distribution's version, or ``"unknown"``."""
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"
