"""Generate golden trajectories of orbitalgym 0.1.0's Sun-Blocking and Observation-Blocking.

horizax's `test_blocking_goldens.py` replays them without orbitalgym. This script calls only
orbitalgym's public API (its builders, ``OrbitalGymEnv``, ``SunTrackerBlocker``,
``set_precision``) and records what ``env.step`` returns.

**orbitalgym runs in its documented float64 mode** (``orbitalgym.set_precision(float64)``).
In its float32 default the rewards of these two games read the time as a float32 MJD
(``epoch + t / 86400``, 337 s apart near MJD 60067) and astrojax's float32 epochs snap to
quarter days, so the Earth under the target stands still for hours; horizax evaluates the
Sun and the Earth's rotation at the exact time, and float64 orbitalgym is the reference that
measures that. Rerun from the repository root with the interpreter that has orbitalgym
(Python 3.12)::

    /work/venv-orbital/bin/python tests/orbital/reference/make_blocking_goldens.py

Cases (``B`` scenarios of ``T`` steps; scenario ``i`` reset with ``PRNGKey(1000 + i)``, every
step with ``PRNGKey(0)``; the first half random commands, drawn as in ``make_goldens.py``
from ``np.random.default_rng(seed)``; the second half a coasting guard against orbitalgym's
``SunTrackerBlocker`` at the bandit's full per-step thrust, in closed loop on the bandit's
flattened observation):

* ``sun_blocking``: ``make_sun_blocking()``, B = 16, T = 540 (the whole 5400 s horizon, so
  the step cap ends every scenario on the last step).
* ``observation_blocking``: ``make_observation_blocking(reference_orbit=...)`` with a 51.6 deg
  inclined circular reference orbit that starts over the default target (37.4 N, 122.2 W),
  so the target sees the guard for the first part of the episode and not after; B = 16,
  T = 200.
* ``observation_blocking_default``: ``make_observation_blocking()`` (equatorial orbit, the
  target never sees the guard: every reward is 0), B = 4, T = 540.

Arrays per case (states float32, rewards float64): ``init_guard_rtn`` ``[B, 1, 6]``,
``init_bandit_rtn`` ``[B, 1, 6]``, ``actions_guard`` / ``actions_bandit`` ``[T, B, 1, 3]``
(the commands fed to ``env.step``, before clipping), ``guard_rtn`` / ``bandit_rtn``
``[T, B, 1, 6]`` (the state leaving each step), ``t`` ``[T, B]``, ``step`` int32 ``[T, B]``,
``reward_guard`` / ``reward_bandit`` ``[T, B]``, ``episode_done`` bool ``[T, B]``.
``cases.json`` gains one entry per case: the builder call, the IC sampler, the game's
fields (``target_ecef_m`` included), the Sun direction given to the blocker and versions.
"""

from __future__ import annotations

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import dataclasses
import importlib.metadata
import json
import math
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import orbitalgym
from orbitalgym import Actions, BySide, OrbitalGymEnv, ReferenceOrbitState
from orbitalgym.games.observation_blocking import make_observation_blocking
from orbitalgym.games.sun_blocking import make_sun_blocking
from orbitalgym.observations.types import flatten_observations
from orbitalgym.policies.heuristic import SunTrackerBlocker

GOLDENS_DIR = Path(__file__).resolve().parent / "goldens"
RESET_KEY_BASE = 1000


def _inclined_orbit_over_target() -> tuple[np.ndarray, np.ndarray]:
    """A circular 7000 km orbit, inclined 51.6 deg, whose start lies over 37.4 N, 122.2 W at
    MJD 60067.0 (the target's ECI direction from astrojax, float64)."""
    import astrojax

    epoch = astrojax.Epoch._from_internal(
        jnp.int32(2460067), jnp.float64(43200.0), jnp.float64(0.0)
    )  # JD 2460067.5 = MJD 60067.0
    ecef = np.asarray(
        astrojax.position_geodetic_to_ecef(
            jnp.array([math.radians(-122.2), math.radians(37.4), 0.0])
        ),
        np.float64,
    )
    rotation = np.asarray(astrojax.rotation_ecef_to_eci(astrojax.zero_eop(), epoch), np.float64)
    up = rotation @ ecef
    up /= np.linalg.norm(up)
    radius = 7000e3
    speed = math.sqrt(3.986004418e14 / radius)
    # The orbit normal: tilted 51.6 deg from the pole, at right angles to the start direction.
    pole = np.array([0.0, 0.0, 1.0])
    east = np.cross(pole, up)
    east /= np.linalg.norm(east)
    north = np.cross(up, east)
    inclination = math.radians(51.6)
    # Heading from east towards north so that the normal's z-part is cos(inclination).
    cos_lat = math.sqrt(up[0] ** 2 + up[1] ** 2)
    cos_heading = min(1.0, math.cos(inclination) / cos_lat)
    heading = math.acos(cos_heading)
    direction = math.cos(heading) * east + math.sin(heading) * north
    return radius * up, speed * direction


def _cases() -> dict[str, dict[str, Any]]:
    pos, vel = _inclined_orbit_over_target()
    inclined = ReferenceOrbitState(position_eci=jnp.asarray(pos), velocity_eci=jnp.asarray(vel))
    return {
        "sun_blocking": dict(
            builder="orbitalgym.games.sun_blocking.make_sun_blocking()",
            cfg=make_sun_blocking(),
            B=16,
            T=540,
            seed=11,
            reference_orbit=None,
        ),
        "observation_blocking": dict(
            builder=(
                "orbitalgym.games.observation_blocking.make_observation_blocking("
                "reference_orbit=ReferenceOrbitState(position_eci, velocity_eci))"
            ),
            cfg=make_observation_blocking(reference_orbit=inclined),
            B=16,
            T=200,
            seed=12,
            reference_orbit=[pos.tolist(), vel.tolist()],
        ),
        "observation_blocking_default": dict(
            builder="orbitalgym.games.observation_blocking.make_observation_blocking()",
            cfg=make_observation_blocking(),
            B=4,
            T=540,
            seed=13,
            reference_orbit=None,
        ),
    }


def _random_dv(rng: np.random.Generator, shape: tuple[int, ...], cap: float) -> np.ndarray:
    direction = rng.standard_normal((*shape, 3))
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    return direction * rng.uniform(0.0, 2.0 * cap, (*shape, 1))


def _sun_line_rtn(env: OrbitalGymEnv, cfg: Any) -> tuple[float, float, float]:
    """The blocker's static line: the Sun's RTN direction at the start (any fixed line does;
    this one makes the scripted bandit do something sensible)."""
    from orbitalgym.games.sun_blocking import _sun_eci_at_mjd

    sun = np.asarray(_sun_eci_at_mjd(jnp.float64(cfg.epoch_mjd_utc)), np.float64)
    r = np.asarray(cfg.reference_orbit.position_eci, np.float64)
    v = np.asarray(cfg.reference_orbit.velocity_eci, np.float64)
    radial = r / np.linalg.norm(r)
    normal = np.cross(r, v)
    normal /= np.linalg.norm(normal)
    along = np.cross(normal, radial)
    line = np.array([radial, along, normal]) @ (sun - r)
    line /= np.linalg.norm(line)
    del env
    return (float(line[0]), float(line[1]), float(line[2]))


def run_case(name: str, spec: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    cfg, B, T = spec["cfg"], spec["B"], spec["T"]
    env = OrbitalGymEnv(cfg)
    cap_g = cfg.guard_params.max_thrust_n * cfg.dt / cfg.guard_params.dry_mass_kg
    cap_b = cfg.bandit_params.max_thrust_n * cfg.dt / cfg.bandit_params.dry_mass_kg
    rng = np.random.default_rng(spec["seed"])
    rand_g = _random_dv(rng, (T, B, 1), cap_g)
    rand_b = _random_dv(rng, (T, B, 1), cap_b)
    line = _sun_line_rtn(env, cfg)
    blocker = SunTrackerBlocker(
        sun_dir_rtn=jnp.asarray(line),
        max_dv_mps=cap_b,
        n_vehicles=1,
        command_cls=env.bandit_command_cls,
    )
    step = jax.jit(env.step)
    reset = jax.jit(env.reset)
    rec: dict[str, list] = {
        k: []
        for k in (
            "guard_rtn",
            "bandit_rtn",
            "t",
            "step",
            "reward_guard",
            "reward_bandit",
            "episode_done",
            "actions_guard",
            "actions_bandit",
        )
    }
    init_g, init_b = [], []
    for b in range(B):
        state, outputs = reset(jax.random.PRNGKey(RESET_KEY_BASE + b))
        init_g.append(np.asarray(state.guards.rtn))
        init_b.append(np.asarray(state.bandits.rtn))
        view_b = flatten_observations(outputs.bandit.obs)
        rows: dict[str, list] = {k: [] for k in rec}
        for t in range(T):
            if b < B // 2:
                dv_g, dv_b = rand_g[t, b], rand_b[t, b]
            else:
                dv_g = np.zeros((1, 3))
                command, _ = blocker(None, view_b, jax.random.PRNGKey(0), state.t)
                dv_b = np.asarray(command.dv)
            actions = Actions(
                sides=BySide(
                    guard=env.guard_command_cls(dv=jnp.asarray(dv_g)),
                    bandit=env.bandit_command_cls(dv=jnp.asarray(dv_b)),
                )
            )
            out = step(jax.random.PRNGKey(0), state, actions)
            state = out.state
            view_b = flatten_observations(out.outputs.bandit.obs)
            rows["actions_guard"].append(np.asarray(dv_g, np.float32))
            rows["actions_bandit"].append(np.asarray(dv_b, np.float32))
            rows["guard_rtn"].append(np.asarray(state.guards.rtn, np.float32))
            rows["bandit_rtn"].append(np.asarray(state.bandits.rtn, np.float32))
            rows["t"].append(float(state.t))
            rows["step"].append(int(state.step))
            rows["reward_guard"].append(float(out.outputs.guard.reward))
            rows["reward_bandit"].append(float(out.outputs.bandit.reward))
            rows["episode_done"].append(bool(out.episode_done))
        for k in rec:
            rec[k].append(np.asarray(rows[k]))
    data = {k: np.stack(v, axis=1) for k, v in rec.items()}  # [T, B, ...]
    data["t"] = data["t"].astype(np.float64)
    data["step"] = data["step"].astype(np.int32)
    data["init_guard_rtn"] = np.asarray(init_g, np.float32)
    data["init_bandit_rtn"] = np.asarray(init_b, np.float32)
    game = {f.name: _jsonable(getattr(cfg.game, f.name)) for f in dataclasses.fields(cfg.game)}
    sampler = {
        side: {
            f.name: _jsonable(getattr(getattr(cfg.ic_sampler, f"{side}_sampler"), f.name))
            for f in dataclasses.fields(getattr(cfg.ic_sampler, f"{side}_sampler"))
        }
        for side in ("guard", "bandit")
    }
    info = {
        "builder": spec["builder"],
        "reference_orbit": spec["reference_orbit"],
        "B": B,
        "T": T,
        "max_steps": cfg.max_steps,
        "dt": cfg.dt,
        "epoch_mjd_utc": cfg.epoch_mjd_utc,
        "game": {"class": type(cfg.game).__name__, **game},
        "reward": type(cfg.reward_fn).__name__,
        "termination": type(cfg.termination_fn).__name__,
        "ic_sampler": sampler,
        "blocker_sun_dir_rtn": list(line),
        "precision": "orbitalgym.set_precision(jax.numpy.float64)",
        "nonzero_rewards": int(np.count_nonzero(data["reward_bandit"])),
    }
    return data, info


def _jsonable(value: Any) -> Any:
    if isinstance(value, jax.Array | np.ndarray):
        return np.asarray(value).tolist()
    if dataclasses.is_dataclass(value):
        return type(value).__name__
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def main() -> None:
    orbitalgym.set_precision(jnp.float64)
    cases_path = GOLDENS_DIR / "blocking_cases.json"
    described = {}
    for name, spec in _cases().items():
        data, info = run_case(name, spec)
        np.savez_compressed(GOLDENS_DIR / f"{name}.npz", **data)
        described[name] = info
        print(name, "nonzero bandit rewards:", info["nonzero_rewards"], "of", data["t"].size)
    described["versions"] = {
        pkg: importlib.metadata.version(pkg) for pkg in ("orbitalgym", "astrojax", "jax", "numpy")
    }
    cases_path.write_text(json.dumps(described, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
